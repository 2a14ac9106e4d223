"""Reading TREC files: runs, qrels and where they come from (docs/inputs.md).

``sources`` says what a path means (a file, a directory of runs, ``-``) and
how one field of a line is read; ``fields`` is the vectorised reader of
whitespace-separated files; ``hashing`` hashes (topic, docno) pairs for
lookups; ``trec`` reads runs and qrels into dicts or columns; ``maps`` reads
the small map files (conditions, query variations, topic weights) by one set
of rules; ``files`` writes output files whole or not at all. Docnos are
bytes from the file to the output. The lowest layer: imports only
:mod:`bvtest_cli.errors`.
"""
