"""bvtest from Python: the commands as functions returning the command's report.

    >>> import bvtest
    >>> report = bvtest.evaluate("qrels/qrels.txt", "sample_runs/", measures="AP")
    >>> round(report.measures["AP"].systems["sys001"].mse, 4)
    0.159

The implementation is :mod:`bvtest_cli.api` (the CLI's package); this package
only re-exports it, so that ``import bvtest`` is what users type.
"""

from bvtest_cli import __version__
from bvtest_cli.api import *  # noqa: F403 (the API is exactly bvtest_cli.api.__all__)
from bvtest_cli.api import __all__ as _api_all
from bvtest_cli.api import __getattr__  # noqa: F401 (commands added after the API)

__all__ = ["__version__", *_api_all]
