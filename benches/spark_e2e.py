"""Times crawlaudit-spark (local[2]) against `crawlaudit audit` on the same
log files (benches/spark_e2e.sh runs it). Each side: best of --runs."""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--snapshot", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--one", required=True)
    p.add_argument("--shards", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("logs", nargs="+")
    a = p.parse_args()
    out = Path(a.out)
    size = sum(os.path.getsize(l) for l in a.logs)
    common = [*a.logs, "--snapshot", a.snapshot, "--quiet"]

    cli_best = None
    for _ in range(a.runs):
        t = time.perf_counter()
        subprocess.run([a.bin, "audit", *common, "--out", str(out / "cli-report")], check=True, stdout=subprocess.DEVNULL)
        cli_best = min(cli_best or 1e9, time.perf_counter() - t)

    t = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    session = time.perf_counter() - t
    from crawlaudit.spark import audit_argv

    t = time.perf_counter()
    audit_argv(spark, [a.one, "--snapshot", a.snapshot, "--quiet", "--out", str(out / "spark-one")], a.shards)
    one = time.perf_counter() - t

    best = None
    for i in range(a.runs):
        t = time.perf_counter()
        r = audit_argv(spark, [*common, "--out", str(out / "spark-report")], a.shards, measure=(i == 0))
        wall = time.perf_counter() - t
        if i == 0:
            shuffled = r.shuffled_bytes
            measured = dict(r.seconds)
        else:
            if best is None or wall < best[0]:
                best = (wall, dict(r.seconds))
    if best is None:
        best = (wall, measured)
    # The per-job cost on a warm session: a one-line log again.
    t = time.perf_counter()
    audit_argv(spark, [a.one, "--snapshot", a.snapshot, "--quiet", "--out", str(out / "spark-one")], a.shards)
    one_warm = time.perf_counter() - t
    spark.stop()

    same = all(
        (out / "cli-report" / f).read_bytes() == (out / "spark-report" / f).read_bytes()
        for f in os.listdir(out / "cli-report")
        if f not in ("summary.json",) and not f.startswith(".")
    )
    wall, stages = best
    mb = size / 1e6
    print(f"input: {len(a.logs)} files, {mb:.0f} MB")
    print(f"crawlaudit audit (release, best of {a.runs}): {cli_best:.2f} s, {mb / cli_best:.0f} MB/s")
    print(f"crawlaudit-spark local[2], {a.shards} shards (best of {a.runs - 1 or 1}): {wall:.2f} s, {mb / wall:.0f} MB/s")
    print(f"  stages: {stages}")
    print(f"  ratio Spark / CLI: {wall / cli_best:.2f}x")
    print(
        f"  fixed costs apart: SparkSession start {session:.1f} s; a one-line log, first job of the session "
        f"(Python workers, JIT) {one:.2f} s, again on the warm session {one_warm:.2f} s"
    )
    print(f"  ratio without the warm one-line job's cost: {(wall - one_warm) / cli_best:.2f}x")
    print(f"  rows through the shuffle: {shuffled / 1e6:.1f} MB ({shuffled / size * 100:.1f}% of the log)")
    print(f"  reports byte-identical (but summary.json's run time): {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
