#!/usr/bin/env python3
"""Byte-identical output check for a rework (issue "The audit at the speed
of reading"): runs two crawlaudit binaries, OLD and NEW, on the same inputs
and compares every report file (summary.json but for `run.seconds`) and
the `--state` files.

Cases: the bundled demo; every real log under ../shared/data/logs with the
snapshot `scripts/sweep.py` writes for it, plain and as two nightly runs
with `--state`; any extra `LOG SNAPSHOT` pairs given with --case (the
benchmark's generated logs, for instance), plain and with `--state`; and
any `LOG NEXT SNAPSHOT` given with --nights: two nights with one state
file, LOG's and then NEXT's (the next day's log, as
`benches/state_nights.sh` makes it), SNAPSHOT `-` for none.

    python3 scripts/compare_runs.py OLD NEW [--data ../shared/data]
        [--case LOG SNAPSHOT]... [--nights LOG NEXT SNAPSHOT]...

Relative paths are taken from the current directory (`--data` defaults to
the `shared/data` beside the repository): run it from the directory that
holds the --case files, or give them absolute paths, e.g. from the
benchmarks' directory:

    cd ~/bench-data && python3 /path/to/scripts/compare_runs.py OLD NEW \
        --case combined-256M-1.log snapshot \
        --case vhost-10000-256M-1.log snapshot-10000 \
        --nights vhost-10000-256M-1.log vhost-10000-256M-1.next.log snapshot-10000 \
        --nights hosts-100000.log hosts-100000.next.log -

A --case file that does not exist stops the script; a case that fails in
both builds is printed as "same (both exit N, ...)".

Exit 1 when any output differs.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sweep import write_snapshot  # noqa: E402


def normalized(path: pathlib.Path) -> bytes:
    data = path.read_bytes()
    if path.name == "summary.json":
        s = json.loads(data)
        s.get("run", {}).pop("seconds", None)
        return json.dumps(s, sort_keys=True).encode()
    return data


def compare_dirs(a: pathlib.Path, b: pathlib.Path) -> list:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    diffs = []
    for n in names:
        pa, pb = a / n, b / n
        if not pa.exists() or not pb.exists():
            diffs.append(f"{n}: only in {'new' if not pa.exists() else 'old'}")
        elif normalized(pa) != normalized(pb):
            diffs.append(f"{n}: differs")
    return diffs


def run(binary, args, cwd):
    return subprocess.run([binary, "audit", "--quiet", *args], capture_output=True, cwd=cwd)


def case(name, old, new, args, tmp: pathlib.Path, state=None):
    """state: the stem of the state files, shared by the nights of one log."""
    results = {}
    for label, binary in (("old", old), ("new", new)):
        out = tmp / f"{name}-{label}"
        extra = []
        if state:
            extra = ["--state", str(tmp / f"{state}-{label}.state")]
        r = run(binary, [*args, "--out", str(out), *extra], tmp)
        results[label] = (r.returncode, out)
    (ca, oa), (cb, ob) = results["old"], results["new"]
    problems = []
    if ca != cb:
        problems.append(f"exit {ca} vs {cb}")
    if oa.exists() and ob.exists():
        problems += compare_dirs(oa, ob)
    if state:
        sa, sb = tmp / f"{state}-old.state", tmp / f"{state}-new.state"
        if sa.exists() != sb.exists() or (sa.exists() and sa.read_bytes() != sb.read_bytes()):
            problems.append("state differs")
    # A run that fails in both builds compares equal: say so, so that a
    # case that never ran cannot pass for one that matched.
    failed = f" (both exit {ca}, {'no report' if not oa.exists() else 'report written'})" if ca == cb and ca != 0 else ""
    print(f"{'same' if not problems else 'DIFF'} {name}{failed}" + (f": {'; '.join(problems)}" if problems else ""))
    return not problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--data", default=str(pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "data"))
    ap.add_argument("--case", nargs=2, action="append", default=[], metavar=("LOG", "SNAPSHOT"))
    ap.add_argument("--nights", nargs=3, action="append", default=[], metavar=("LOG", "NEXT", "SNAPSHOT"))
    a = ap.parse_args()
    # Every path given must exist, but a night's SNAPSHOT `-` (none).
    given = [p for pair in a.case for p in pair]
    for log, following, snap in a.nights:
        given += [log, following] + ([] if snap == "-" else [snap])
    for p in given:
        if not pathlib.Path(p).exists():
            sys.exit(f"compare_runs: {p} does not exist (relative paths are taken from {pathlib.Path.cwd()})")
    ok = True
    with tempfile.TemporaryDirectory(prefix="crawlaudit-compare-") as t:
        tmp = pathlib.Path(t)
        ok &= case("demo", a.old, a.new, [], tmp)
        logs = sorted(p for p in (pathlib.Path(a.data) / "logs").rglob("*") if p.is_file() and not p.name.endswith(".md"))
        for log in logs:
            snap = tmp / ("snap-" + log.name)
            write_snapshot(log, snap)
            args = [str(log), "--snapshot", str(snap), "--site", "site.example"]
            ok &= case(log.name, a.old, a.new, args, tmp)
            # Two nights: the log's first and second run with one state file.
            ok &= case(log.name + "+state", a.old, a.new, args, tmp, state=log.name)
            ok &= case(log.name + "+state2", a.old, a.new, args, tmp, state=log.name)
        for i, (log, snap) in enumerate(a.case):
            ok &= case(f"case{i}-{pathlib.Path(log).name}", a.old, a.new, [str(pathlib.Path(log).resolve()), "--snapshot", str(pathlib.Path(snap).resolve())], tmp)
            ok &= case(f"case{i}+state", a.old, a.new, [str(pathlib.Path(log).resolve()), "--snapshot", str(pathlib.Path(snap).resolve())], tmp, state=f"case{i}")
        for i, (log, following, snap) in enumerate(a.nights):
            snapshot = [] if snap == "-" else ["--snapshot", str(pathlib.Path(snap).resolve())]
            for night, f in ((1, log), (2, following)):
                args = [str(pathlib.Path(f).resolve()), *snapshot]
                ok &= case(f"nights{i}-{night}-{pathlib.Path(f).name}", a.old, a.new, args, tmp, state=f"nights{i}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
