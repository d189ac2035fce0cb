#!/usr/bin/env python3
"""Every real log's report.html in headless Chromium (issue "A report people
act on"): audits each log in ../shared/data/logs with the snapshot
scripts/sweep.py writes for it, opens the page with `chromium --dump-dom`
(the default 800x600 window, three seconds of virtual time) and fails
(exit 1) when a page does not finish rendering, logs anything to the
console, or weighs 1 MB or more.

    cargo build --release && python3 scripts/page_sweep.py [--data ../shared/data]
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

import sweep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(sweep.ROOT.parent / "shared" / "data"))
    data = pathlib.Path(ap.parse_args().data)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="crawlaudit-pages-"))
    bad = 0
    logs = sorted(p for p in (data / "logs").rglob("*") if p.is_file() and not p.name.endswith(".md"))
    for log in logs:
        snap, out = tmp / ("snap-" + log.name), tmp / ("out-" + log.name)
        sweep.write_snapshot(log, snap)
        name = str(log.relative_to(data / "logs"))
        fmt = sweep.FORMAT_OVERRIDES.get(name)
        run = subprocess.run([str(sweep.BIN), "audit", str(log), "--snapshot", str(snap), "--site", "site.example",
                              "--out", str(out), "--quiet"] + (["--format", fmt] if fmt else []),
                             capture_output=True, text=True)
        page = out / "report.html"
        if not page.exists():
            print(f"--  {name}: no report (exit {run.returncode})")
            continue
        shown = subprocess.run(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                                "--virtual-time-budget=3000", "--enable-logging=stderr", "--v=0",
                                "--dump-dom", page.as_uri()], capture_output=True, text=True)
        ready = 'data-ready="1"' in shown.stdout
        # The page's own failure notice, filled in (its script holds the text too).
        failed = re.search(r'id="fail">The page could not finish rendering: [^\']', shown.stdout) is not None
        console = [line for line in shown.stderr.splitlines() if ":CONSOLE" in line]
        size = page.stat().st_size
        ok = ready and not failed and not console and size < 1_000_000
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name:<50} {size:>8} B  ready={ready} failed={failed} {console[:1]}")
    print(f"{len(logs)} logs, {bad} bad pages")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
