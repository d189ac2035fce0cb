"""crawlaudit: which crawlers disobeyed your robots rules.

The Rust core of the ``crawlaudit`` command line, for Python: ``crawlaudit.spark``
runs ``crawlaudit audit`` on an Apache Spark cluster, each log file read once
(``crawlaudit-spark audit ...`` on the command line).
"""

from ._core import Job, __version__

__all__ = ["Job", "__version__"]
