"""``crawlaudit-spark audit [LOG]... [crawlaudit audit's flags] --shards N --master URL``:
``crawlaudit audit`` on Apache Spark, with the CLI's flags, messages and exit
codes (0 done, 2 a fault or a refused flag, 3 ``--fail-on`` matched)."""

from __future__ import annotations

import sys
from typing import Optional, Sequence

USAGE = """usage: crawlaudit-spark audit [LOG]... [OPTIONS] [--shards N] [--master URL]

Runs `crawlaudit audit` on Apache Spark: every log file is read once, by one
task; hosts are judged in N shards (default: Spark's default parallelism);
the report is written by the driver, byte for byte what `crawlaudit audit`
writes. OPTIONS are crawlaudit audit's (see crawlaudit audit --help).

  --shards N     judge tasks (hosts are split among them by a stable hash)
  --master URL   Spark's master (default: spark-submit's, or local[*])
"""


def _take(argv: list, flag: str) -> Optional[str]:
    """Removes ``flag VALUE`` or ``flag=VALUE`` from argv; its value."""
    value = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == flag:
            if i + 1 >= len(argv):
                raise ValueError(f"{flag} needs a value")
            value = argv[i + 1]
            del argv[i : i + 2]
            continue
        if a.startswith(flag + "="):
            value = a[len(flag) + 1 :]
            del argv[i]
            continue
        i += 1
    return value


def main(argv: Optional[Sequence[str]] = None, spark=None) -> int:
    """The console script; returns (and, as a script, exits with) the code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    if argv[0] != "audit":
        sys.stderr.write(
            f"crawlaudit-spark: error: unknown command {argv[0]!r}: only audit runs on Spark (see crawlaudit-spark --help)\n"
        )
        return 2
    argv = argv[1:]
    from ._core import Job

    if "-h" in argv or "--help" in argv:
        sys.stdout.write(Job.help())
        sys.stdout.write(
            "\nOn Spark:\n"
            "      --shards <N>    judge tasks; hosts are split among them by a stable hash\n"
            "                      (default: Spark's default parallelism)\n"
            "      --master <URL>  Spark's master (default: spark-submit's, or local[*])\n"
        )
        return 0
    try:
        shards = _take(argv, "--shards")
        master = _take(argv, "--master")
        n = int(shards) if shards is not None else 0
        if shards is not None and n < 1:
            raise ValueError(f"--shards {shards}: give a number of shards, 1 or more")
    except ValueError as e:
        sys.stderr.write(f"crawlaudit-spark: error: {e}\n")
        return 2
    try:
        # The flags are checked before a Spark session is started.
        Job.remote_logs(argv)
    except RuntimeError as e:
        sys.stderr.write(f"crawlaudit: error: {e}\n")
        return 2
    from .spark import audit_argv

    # A session started here for --master is stopped at the end; one that a
    # platform runs the script in (spark-submit, a Databricks wheel task)
    # is the platform's, and left running.
    own = spark is None and master is not None
    if spark is None:
        from pyspark.sql import SparkSession

        builder = SparkSession.builder.appName("crawlaudit")
        if "--quiet" in argv:
            # No progress bar, as the CLI's --quiet.
            builder = builder.config("spark.ui.showConsoleProgress", "false")
        if master:
            builder = builder.master(master)
        spark = builder.getOrCreate()
    try:
        result = audit_argv(spark, argv, n)
    except RuntimeError as e:
        sys.stderr.flush()
        sys.stderr.write(f"crawlaudit: error: {e}\n")
        return 2
    finally:
        if own:
            spark.stop()
    return result.exit_code


def _script() -> None:
    sys.exit(main())


if __name__ == "__main__":
    _script()
