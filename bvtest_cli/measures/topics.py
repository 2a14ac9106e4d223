"""The topic policy (docs/inputs.md): which qrels topics every analysis uses
(``topic_set``), the error when no run shares a topic with the qrels
(``check_shared_topics``), and how topics are listed in a note (``list_topics``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import InputError, printable
from ..io.sources import Note
from ..io.trec import QrelsFile, sort_topics


def list_topics(topics: Sequence[str], shown: int = 5) -> str:
    """``7, 12, 40`` or ``7, 12, 40, 41, 50, ... (12 in all)`` for a note."""
    if not topics:
        return "none"
    more = f", ... ({len(topics)} in all)" if len(topics) > shown else ""
    return ", ".join(map(printable, topics[:shown])) + more


def topic_set(
    qrels_file: QrelsFile,
    rel_level: int,
    note: Note,
    role: str = "qrels",
    rule: str = "judged",
) -> list[str]:
    """The topics every analysis uses (docs/inputs.md), by ``rule``:
    ``"judged"``, the qrels topics with a document of grade >= ``rel_level``
    (the others are dropped with a note naming them; ``role``: how the qrels
    file is called there); ``"all"``, every qrels topic, as trec_eval -c and
    NIST's sample_eval.pl average, with a note naming those without a
    relevant document (every measure is 0 there)."""
    relevant = sort_topics(qrels_file.relevant_topics(rel_level))
    every = sort_topics(qrels_file.topics())
    others = sort_topics(set(every) - set(relevant))
    if rule == "all" and every:
        if others:
            note(
                f"topic set all: {len(others)} of {len(every)} {role} topic(s) have no "
                f"relevant document (rel >= {rel_level}); they score 0: {list_topics(others)}"
            )
        return every
    if not relevant:
        raise InputError(f"no topic has a relevant document (rel >= {rel_level})", qrels_file.label)
    if others:
        note(
            f"{len(others)} {role} topic(s) have no relevant document (rel >= {rel_level}); "
            f"dropped: {list_topics(others)}"
        )
    return relevant


def check_shared_topics(
    qrels_label: str,
    topics: Sequence[str],
    names: Sequence[str],
    run_topics: Sequence[Iterable[str]],
) -> None:
    """Runs that share no topic with the qrels score 0 everywhere: with the
    wrong qrels file every run does, and that is an error, not a table of
    zeros. (One such run among others is only a note: see
    :func:`bvtest_cli.measures.evaluate.evaluate_runs`.)"""
    kept = set(topics)
    if not names or any(kept.intersection(t) for t in run_topics):
        return
    seen = sort_topics(set().union(*map(set, run_topics)))
    shown_runs = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    if len(names) == 1:
        who, theirs = f"run {shown_runs} has no", "its topics"
    else:
        who, theirs = f"none of the {len(names)} runs ({shown_runs}) has a", "run topics"
    examples = f"{theirs}: {list_topics(seen, 3)}; " if seen else ""
    raise InputError(
        f"{who} ranking for any of the {len(topics)} qrels topics with a relevant "
        f"document ({examples}qrels topics: {list_topics(list(topics), 3)}); wrong qrels file?",
        qrels_label,
    )
