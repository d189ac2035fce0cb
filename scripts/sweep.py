#!/usr/bin/env python3
"""Real-world sweep (issue "Hardening"): runs `crawlaudit audit` over every
log in ../shared/data/logs (each with --site and a snapshot written for it)
and `crawlaudit check` over every robots.txt in ../shared/data/robots_corpus.
Fails (exit 1) on a panic, a signal, or an error that is not the input's
fault; prints per-log totals and the bad-line rates by reason.

    cargo build --release && python3 scripts/sweep.py [--data ../shared/data]
"""
import argparse
import collections
import csv
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
BIN = TARGET / "release" / "crawlaudit"
# Errors that are the input's fault: the tool refuses it and says why.
INPUT_FAULTS = [
    "cannot detect the log format",
    "is compressed with",
]
# Logs that auto-detection cannot read, with the --format they need: a
# custom layout has no format to detect (README, "--format regex:").
FORMAT_OVERRIDES = {
    "formats_matomo/custom_regex_custom_date.log": (
        r'regex:^(?P<ip>\S+) \S+ \S+ \[(?P<month>[A-Za-z]+) - (?P<day>\d+), (?P<year>\d{4}):'
        r'(?P<hour>\d\d):(?P<minute>\d\d):(?P<second>\d\d)\] "(?P<request>[^"]*)" '
        r'(?P<status>\S+) (?P<bytes>\S+)$'),
}
VHOST = re.compile(rb"^([A-Za-z0-9.-]+)(?::(\d+))? \S+ \S+ \S+ \[")
REQUEST = re.compile(rb'"(?:GET|HEAD|POST) (/[^ ?"]*)')


def write_snapshot(log: pathlib.Path, snap: pathlib.Path):
    """A snapshot for this log: site.example (the --site) and every host a
    vhost log names, each disallowing the most requested first path segment
    and /admin/, with a crawl-delay, and noindex on the 3 most requested
    pages."""
    hosts = {"site.example"}
    segments = collections.Counter()
    pages = collections.Counter()
    with open(log, "rb") as f:
        for i, line in enumerate(f):
            if i >= 200_000:
                break
            m = VHOST.match(line)
            if m and b"[" in line[:120]:
                host = m.group(1).decode().lower().rstrip(".")
                port = m.group(2)
                if port and port.decode() not in ("80", "443"):
                    host += ":" + port.decode()
                hosts.add(host)
            r = REQUEST.search(line)
            if r:
                path = r.group(1).decode("latin-1")
                pages[path] += 1
                seg = path.split("/")[1] if path.count("/") > 1 else ""
                if seg:
                    segments["/" + seg + "/"] += 1
    top = segments.most_common(1)[0][0] if segments else "/private/"
    robots = f"User-agent: *\nDisallow: /admin/\nDisallow: {top}\nCrawl-delay: 2\n"
    for host in sorted(hosts)[:50]:
        d = snap / host
        d.mkdir(parents=True, exist_ok=True)
        (d / "robots.txt").write_text(robots)
        with open(d / "pages.jsonl", "w") as f:
            for page, _ in pages.most_common(3):
                f.write(json.dumps({"url": page, "x_robots_tag": "noindex"}) + "\n")
    return len(hosts), top


def sweep_logs(data: pathlib.Path, tmp: pathlib.Path):
    problems = []
    totals = collections.Counter()
    reasons = collections.Counter()
    crawlers = {}
    logs = sorted(p for p in (data / "logs").rglob("*") if p.is_file() and not p.name.endswith(".md"))
    print(f"{'log':<52} {'format':<15} {'lines':>8} {'bad':>6} {'bad%':>6} {'crawler':>8} {'viol.':>6} exit  s")
    for log in logs:
        snap = tmp / ("snap-" + log.name)
        out = tmp / ("out-" + log.name)
        nhosts, top = write_snapshot(log, snap)
        name = str(log.relative_to(data / "logs"))
        fmt = FORMAT_OVERRIDES.get(name)
        start = time.time()
        run = subprocess.run([str(BIN), "audit", str(log), "--snapshot", str(snap), "--site", "site.example",
                              "--out", str(out), "--quiet"] + (["--format", fmt] if fmt else []),
                             capture_output=True, text=True)
        secs = time.time() - start
        err = run.stderr.strip()
        if run.returncode < 0 or run.returncode == 101 or "panicked" in err:
            problems.append(f"{name}: crashed (exit {run.returncode}): {err[:300]}")
        elif run.returncode != 0 and not any(f in err for f in INPUT_FAULTS):
            problems.append(f"{name}: exit {run.returncode}: {err[:300]}")
        summary = out / "summary.json"
        if summary.exists() and run.returncode == 0:
            s = json.loads(summary.read_text())
            f = s["inputs"]["files"][0]
            viol = sum(s["violations"].values())
            lines, bad = f["lines"], f["bad"]
            totals["files ok"] += 1
            totals["lines"] += lines
            totals["bad"] += bad
            totals["crawler"] += s["requests"]["crawler"]
            totals["violations"] += viol
            for r, n in f["bad_by_reason"].items():
                reasons[r] += n
            with open(out / "crawlers.csv", newline="") as table:
                for row in csv.DictReader(table):
                    viol = sum(int(row[k]) for k in ("disallow", "crawl_delay", "noindex", "unavailable_after"))
                    r, v = crawlers.get(row["crawler"], (0, 0))
                    crawlers[row["crawler"]] = (r + int(row["requests"]), v + viol)
            pct = 100.0 * bad / lines if lines else 0.0
            print(f"{name:<52} {f['format'][:15]:<15} {lines:>8} {bad:>6} {pct:>5.1f}% {s['requests']['crawler']:>8} {viol:>6} {run.returncode:>4} {secs:4.1f}")
            if fmt:
                print(f"{'':<4}--format given (FORMAT_OVERRIDES)")
            if bad:
                print(f"{'':<4}bad by reason: {dict(f['bad_by_reason'])}")
            for sample in f["samples"][:3]:
                print(f"{'':<4}e.g. line {sample['line']} ({sample['reason']}): {sample['text'][:100]!r}")
        else:
            totals["files refused"] += 1
            print(f"{name:<52} {'-':<15} {'':>8} {'':>6} {'':>6} {'':>8} {'':>6} {run.returncode:>4} {secs:4.1f}")
            print(f"{'':<4}{err.splitlines()[0][:160] if err else ''}")
    print("log totals:", dict(totals), "bad by reason:", dict(reasons))
    print_crawlers(crawlers)
    return problems


def print_crawlers(crawlers):
    """The crawler list over all logs, as a site owner reads it: each name
    the report gave, its requests and violations (monitors' included)."""
    print(f"\ncrawlers over all logs: {len(crawlers)} names (requests, violations), most requests first")
    rows = sorted(crawlers.items(), key=lambda kv: (-kv[1][0], kv[0]))
    for i in range(0, len(rows), 3):
        cells = [f"{n[:34]:<34} {r:>6} {v:>5}" for n, (r, v) in rows[i:i + 3]]
        print("  " + "   ".join(cells))


def sweep_robots(data: pathlib.Path):
    problems = []
    files = sorted(p for p in (data / "robots_corpus").rglob("*") if p.is_file() and not p.name.endswith("LICENSE"))
    counts = collections.Counter()
    start = time.time()
    for f in files:
        run = subprocess.run([str(BIN), "check", str(f), "Googlebot", "/", "/admin/", "/search?q=1"],
                             capture_output=True, text=True)
        counts[f"exit {run.returncode}"] += 1
        if run.returncode not in (0, 1) or "panicked" in run.stderr:
            problems.append(f"{f}: check exit {run.returncode}: {run.stderr.strip()[:300]}")
    print(f"robots.txt check: {len(files)} files in {time.time() - start:.0f} s: {dict(counts)}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    if not BIN.exists():
        sys.exit(f"{BIN} not found: run cargo build --release first")
    with tempfile.TemporaryDirectory() as tmp:
        problems = sweep_logs(data, pathlib.Path(tmp)) + sweep_robots(data)
    for p in problems:
        print("PROBLEM:", p)
    print("sweep clean" if not problems else f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
