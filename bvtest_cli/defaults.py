"""Defaults shared by the options and the analyses, declared once (no imports,
so reading them costs nothing at start-up)."""

DEFAULT_MEASURES = ("AP", "nDCG@10", "ERR@20")  # the papers' three
DEFAULT_ALPHAS = ("0", "1", "5", "10")  # Dincer16 Table 5
DEFAULT_SEED = 20220101  # fixed, so the same command gives the same output
DEFAULT_REPEATS = 1000  # Zhang22 §5.3.2 repeats the random grouping 1000 times
DEFAULT_BOOTSTRAP = 1000  # bootstrap samples: Cormack & Grossman 2019 §3, Sakai06
DEFAULT_CI_MEMORY_MIB = 256  # stored bootstrap replicates (beyond: streamed)
MAX_ALPHA = 1e6  # beyond this (1+α)·losses only overflows; the papers use at most 20

# `bvtest budget`: the methods of Cormack & Grossman 2019 Experiment 1
BUDGET_METHODS = ("xinfAP", "statAP", "depth", "hedge", "mtf")

# `bvtest variations`
VARIATION_ALPHAS = "-20:20:1"  # the paper's small range (Zuccon16 §5.1)
VARIATION_MODES = ("general", "intra", "inter")

#: The tests of a paired difference in mean (`compare --test`, `sensitivity --test`).
TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap", "tukey", "randomised-tukey")
#: Multiple-comparison corrections over the pairs compared (analyses.significance.adjust).
CORRECTIONS = ("holm", "bonferroni", "bh", "none")

#: The output formats of -f, every command that has it; html is one page.
FORMATS = ("trec", "table", "tsv", "csv", "json", "latex", "markdown", "html")
#: The formats rendered as text by render.text (all but html).
TEXT_FORMATS = FORMATS[:-1]
