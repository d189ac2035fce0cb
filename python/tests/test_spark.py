"""crawlaudit on Apache Spark (``local[2]``, task retries allowed) writes the
report ``crawlaudit audit`` writes, byte for byte: on every golden case and
the demo, for N = 1, 2, 3 and 7 shards and two ``spark.sql.shuffle.partitions``
values; with a task of each stage failing once and retried; over three nights
with ``--state``; and with the CLI's messages and exit codes on a bad file.

Needs the ``crawlaudit`` binary (``CRAWLAUDIT_BIN``, default the debug build
in ``$CARGO_TARGET_DIR``) and the ``crawlaudit`` wheel installed; ``.ci/run``
provides both.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
BIN = Path(os.environ.get("CRAWLAUDIT_BIN", TARGET / "debug" / "crawlaudit"))
DEMO = ROOT / "fixtures" / "demo"
TABLES = ["violations", "crawlers", "findings", "daily"]
FILES = [f"{t}.{ext}" for t in TABLES for ext in ("csv", "parquet", "ndjson")] + [
    "report.html"
]


@pytest.fixture(scope="session")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2,4]")  # 2 threads, a task tried up to 4 times
        .appName("crawlaudit-tests")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def cli(args, out: Path):
    """``crawlaudit audit ARGS --out OUT --quiet``: (exit code, stderr)."""
    run = subprocess.run(
        [str(BIN), "audit", *map(str, args), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
    )
    return run.returncode, run.stderr


def summary_without_run(out: Path) -> dict:
    s = json.loads((out / "summary.json").read_text())
    s.pop("run")
    return s


def assert_same_report(single: Path, other: Path, what: str) -> None:
    for name in FILES:
        a, b = (single / name).read_bytes(), (other / name).read_bytes()
        assert a == b, f"{what}: {name} differs from crawlaudit audit's"
    assert summary_without_run(other) == summary_without_run(single), f"{what}: summary.json"


def spark_audit(spark, args, out: Path, shards: int, hook=None):
    from crawlaudit.spark import audit_argv

    return audit_argv(spark, [*map(str, args), "--out", str(out), "--quiet"], shards, hook)


def cases():
    found = []
    for case in sorted((ROOT / "fixtures" / "cases").iterdir()):
        if not (case / "access.log").exists():
            continue
        args = [case / "access.log", "--snapshot", case / "snapshot"]
        if (case / "ip-ranges").is_dir():
            args += ["--ip-ranges", case / "ip-ranges"]
        found.append((case.name, args))
    found.append(
        (
            "demo",
            [DEMO / "access.log", "--snapshot", DEMO / "snapshot", "--ip-ranges", DEMO / "ip-ranges"],
        )
    )
    return found


def test_the_binary_and_the_wheel_are_there():
    assert BIN.exists(), f"{BIN}: build crawlaudit first (cargo test builds it)"
    import crawlaudit

    assert crawlaudit.__version__


def test_every_case_and_the_demo_equal_crawlaudit_audit(spark, tmp_path):
    # N = 1, 2, 3, 7 for the demo with both shuffle-partition values; each
    # golden case at every N, the shuffle partitions alternating.
    runs = 0
    for name, args in cases():
        single = tmp_path / f"{name}-cli"
        code, err = cli(args, single)
        assert code == 0, err
        for i, n in enumerate([1, 2, 3, 7]):
            partitions = [2, 200] if name == "demo" else [[2, 200][i % 2]]
            for p in partitions:
                spark.conf.set("spark.sql.shuffle.partitions", str(p))
                out = tmp_path / f"{name}-n{n}-p{p}"
                result = spark_audit(spark, args, out, n)
                assert result.exit_code == 0
                assert_same_report(single, out, f"{name}, N = {n}, shuffle partitions {p}")
                runs += 1
    assert runs == len(cases()) * 4 + 4
    # The same command again: the workers keep their jobs from the last run
    # (judging set a shard on them), and read every line all the same.
    name, args = cases()[-1]
    out = tmp_path / "demo-again"
    import time

    for _ in range(2):
        t = time.perf_counter()
        assert spark_audit(spark, args, out, 2).exit_code == 0
        wall = time.perf_counter() - t
        assert_same_report(tmp_path / "demo-cli", out, "the demo run twice")
        # The run's time is this run's, not that of a job a worker kept.
        seconds = json.loads((out / "summary.json").read_text())["run"]["seconds"]
        assert 0 < seconds <= wall + 0.01, (seconds, wall)
    # The tables come back as DataFrames too.
    rows = result.violations.count()
    assert rows == len((single / "violations.csv").read_text().splitlines()) - 1
    assert rows > 0


def demo_in_files(dir: Path, k: int):
    """The demo's log cut into k files."""
    lines = (DEMO / "access.log").read_text().splitlines(keepends=True)
    per = -(-len(lines) // k)
    files = []
    for f in range(k):
        path = dir / f"access-{f}.log"
        path.write_text("".join(lines[f * per : (f + 1) * per]))
        files.append(path)
    return files


class FailOnce:
    """A task hook that makes the first task of each stage fail once, after
    it emitted its rows (Spark must drop them and run the task again)."""

    def __init__(self, dir: Path):
        self.dir = str(dir)

    def __call__(self, stage: str, number: int) -> None:
        marker = os.path.join(self.dir, f"failed-{stage}")
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        raise RuntimeError(f"a {stage} task fails once, on purpose (test)")


def test_a_task_failing_once_changes_nothing(spark, tmp_path):
    # The hook goes to the workers by value: they cannot import this file.
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    files = demo_in_files(tmp_path, 4)
    args = [*files, "--snapshot", DEMO / "snapshot", "--ip-ranges", DEMO / "ip-ranges"]
    single = tmp_path / "cli"
    code, err = cli(args, single)
    assert code == 0, err
    markers = tmp_path / "markers"
    markers.mkdir()
    out = tmp_path / "retried"
    result = spark_audit(spark, args, out, 3, FailOnce(markers))
    assert result.exit_code == 0
    # Both stages did fail once, and were retried.
    assert sorted(p.name for p in markers.iterdir()) == ["failed-ingest", "failed-judge"]
    assert_same_report(single, out, "a retried ingest and judge task")


def test_three_nights_with_state_equal_one_run_over_the_three_days(spark, tmp_path):
    lines = (DEMO / "access.log").read_text().splitlines(keepends=True)
    day = lambda l: l.split("[", 1)[1][:2]
    nights = [("01", "03"), ("03", "05"), ("05", "99")]
    whole = tmp_path / "whole"
    files = []
    for i, (a, b) in enumerate(nights):
        path = tmp_path / f"night-{i}.log"
        path.write_text("".join(l for l in lines if a <= day(l) < b))
        files.append(path)
    base = ["--snapshot", DEMO / "snapshot", "--ip-ranges", DEMO / "ip-ranges"]
    code, err = cli([*files, *base], whole)
    assert code == 0, err
    state = tmp_path / "state" / "crawlaudit.parquet"
    rows, alone = [], []
    import crawlaudit.spark

    for i, (path, n) in enumerate(zip(files, [2, 5, 1])):
        out = tmp_path / f"night-{i}"
        # The keyword form: flags by name.
        result = crawlaudit.spark.audit(
            spark,
            path,
            shards=n,
            snapshot=DEMO / "snapshot",
            ip_ranges=DEMO / "ip-ranges",
            state=state,
            out=out,
            quiet=True,
        )
        assert result.exit_code == 0
        assert result.violations.count() == len((out / "violations.csv").read_text().splitlines()) - 1
        rows += (out / "violations.csv").read_text().splitlines()[1:]
        code, err = cli([path, *base], tmp_path / f"alone-{i}")
        assert code == 0, err
        alone += (tmp_path / f"alone-{i}" / "violations.csv").read_text().splitlines()[1:]
    week = (whole / "violations.csv").read_text().splitlines()[1:]
    assert rows == week, "three nights with --state differ from one run over the three days"
    # The test means something: nights without the state miss violations.
    assert alone != week
    assert state.exists()


def test_a_bad_file_gives_the_cli_messages_and_exit_codes(spark, tmp_path, capfd):
    from crawlaudit.cli import main

    good = DEMO / "access.log"
    broken = tmp_path / "broken.log.gz"
    data = gzip.compress(good.read_bytes())
    broken.write_bytes(data[: len(data) // 2])
    base = [good, broken, "--snapshot", DEMO / "snapshot"]
    for extra, expected in [([], 2), (["--allow-partial"], 0)]:
        code, cli_err = cli([*base, *extra], tmp_path / f"cli{len(extra)}")
        assert code == expected, cli_err
        capfd.readouterr()
        out = tmp_path / f"spark{len(extra)}"
        argv = ["audit", *map(str, base), *extra, "--out", str(out), "--quiet", "--shards", "2"]
        assert main(argv, spark=spark) == expected
        spark_err = capfd.readouterr().err
        ours = [l for l in spark_err.splitlines() if l.startswith("crawlaudit: ")]
        theirs = [l for l in cli_err.splitlines() if l.startswith("crawlaudit: ")]
        assert ours == theirs and theirs, f"{ours} != {theirs}"
        assert_same_report(tmp_path / f"cli{len(extra)}", out, f"a broken file {extra}")
    # A refused flag: the CLI's one line, exit 2.
    capfd.readouterr()
    assert main(["audit", str(good), "--bogus", "--shards", "2"], spark=spark) == 2
    err = capfd.readouterr().err
    assert (
        "crawlaudit: error: unexpected argument '--bogus' found; a similar argument exists: '--bots' (see crawlaudit audit --help)"
        in err
    ), err
    # Nothing could be read: exit 2, the CLI's words, the old report kept.
    empty = tmp_path / "empty.log.gz"
    empty.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(64)))
    args = [empty, "--snapshot", DEMO / "snapshot"]
    for out in (tmp_path / "cli0", tmp_path / "spark0"):
        before = (out / "violations.csv").read_bytes()
        capfd.readouterr()
        if out.name == "cli0":
            code, err = cli(args, out)
        else:
            code = main(["audit", *map(str, args), "--out", str(out), "--shards", "2"], spark=spark)
            err = capfd.readouterr().err
        assert code == 2
        lines = [l for l in err.splitlines() if l.startswith("crawlaudit: error")]
        assert lines[-1] == f"crawlaudit: error: no log could be read: the report in {out} is left as it was", err
        assert (out / "violations.csv").read_bytes() == before


def test_logs_in_object_storage_are_read_through_pyarrow_fs(spark, tmp_path):
    # file:// goes through the same code as s3:// or gs:// (pyarrow.fs lists
    # the prefix and each task streams its object to a local copy); the
    # tables are the CLI's on the same files, and the report names the URIs.
    logs = tmp_path / "logs"
    logs.mkdir()
    files = demo_in_files(logs, 3)
    gz = logs / "access-2.log.gz"
    gz.write_bytes(gzip.compress(files[2].read_bytes()))
    files[2].unlink()
    base = ["--snapshot", DEMO / "snapshot", "--ip-ranges", DEMO / "ip-ranges"]
    single = tmp_path / "cli"
    code, err = cli([logs, *base], single)
    assert code == 0, err
    out = tmp_path / "spark"
    result = spark_audit(spark, [f"file://{logs}/", *base], out, 3)
    assert result.exit_code == 0
    for name in FILES:
        if name == "report.html":
            continue
        assert (single / name).read_bytes() == (out / name).read_bytes(), name
    ours, theirs = summary_without_run(out), summary_without_run(single)
    assert [f["path"] for f in ours["inputs"]["files"]] == [
        f"file://{logs}/access-0.log",
        f"file://{logs}/access-1.log",
        f"file://{logs}/access-2.log.gz",
    ]
    assert [f["compressed"] for f in ours["inputs"]["files"]] == [False, False, True]
    for f in ours["inputs"]["files"] + theirs["inputs"]["files"]:
        f.pop("path")
    assert ours == theirs
    # A URI that names nothing is refused before any task runs.
    with pytest.raises(RuntimeError, match="does not exist"):
        spark_audit(spark, [f"file://{logs}/nothing.log", *base], tmp_path / "none", 2)


def test_help_and_bad_flags_need_no_spark_session(capfd):
    from crawlaudit.cli import main

    assert main(["audit", "--help"]) == 0
    out = capfd.readouterr().out
    assert "--snapshot <PATH>" in out and "--shards <N>" in out and "--master <URL>" in out
    # Refused before a session starts (no session is given, none is made).
    assert main(["audit", "a.log", "--since", "yesterday-ish"]) == 2
    err = capfd.readouterr().err
    assert err.startswith("crawlaudit: error: invalid value 'yesterday-ish' for '--since <TIME>'"), err
    assert main(["audit", "a.log", "--shards", "0"]) == 2
    assert "--shards 0: give a number of shards, 1 or more" in capfd.readouterr().err


def test_timings_are_the_drivers_stages(spark, tmp_path, capfd):
    # `--timings` on Spark: the driver's stages on stderr, adding up to at
    # most the whole run; the report is the one written without it.
    from crawlaudit.cli import main

    base = ["audit", str(DEMO / "access.log"), "--snapshot", str(DEMO / "snapshot"), "--quiet", "--shards", "2"]
    capfd.readouterr()
    assert main([*base, "--out", str(tmp_path / "timed"), "--timings"], spark=spark) == 0
    err = capfd.readouterr().err
    assert "crawlaudit: stage timings (wall time)\n" in err, err
    table = err.split("crawlaudit: stage timings (wall time)\n", 1)[1].splitlines()
    stages = ["set-up", "reading and judging", "merging the shard reports", "writing the report", "total"]
    assert [line.split("  ")[1] for line in table] == stages, table
    seconds = [float(line.split()[line.split().index("s") - 1]) for line in table]
    assert all(s >= 0 for s in seconds) and seconds[-1] > 0, table
    assert sum(seconds[:-1]) <= seconds[-1] + 0.003, table
    assert "the cluster's tasks" in table[1], table
    assert main([*base, "--out", str(tmp_path / "plain")], spark=spark) == 0
    assert "timings" not in capfd.readouterr().err
    for name in FILES:
        assert (tmp_path / "timed" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes(), name
