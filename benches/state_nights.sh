#!/usr/bin/env bash
# `--state` against the same audit without it (issue 14's target: within
# 1.2x, linear in hosts), on logs of many hosts:
#   vhost-10000-256M: benches/e2e_logs.sh's CDN log of 10,000 hosts, each
#                     with its own robots.txt (HOSTS=10000, 256 MiB);
#   hosts-50000, hosts-100000: 50,000 and 100,000 hosts of two crawler
#                     requests each (Googlebot, bingbot, AhrefsBot in turn),
#                     no snapshot.
# Per case, two nights, each timed against the run without --state, the two
# commands alternated (A B A B ...), RUNS pairs after a warm-up pair:
#   first night:  no state file yet (the run writes one);
#   second night: the next day's log (the first night's, its dates one day
#                 later: `<case>.next.log`, made once), from the first
#                 night's state, copied in before each run. Its state then
#                 holds two nights of fetches, as a nightly job's does (a
#                 rerun of the first night would hold its fetches once).
# Prints per night the medians of wall and CPU seconds and of the pairs'
# ratios, and the peak RSS.
#
# Usage: benches/state_nights.sh [CASE...]   (default: all three)
# Env:   BENCH_DIR (default the repository's bench-data; a relative path is
#        the caller's), RUNS (default 9),
#        CRAWLAUDIT_BIN=PATH: time that binary instead of the release build's,
#        SETUP_ONLY=1: make the cases' logs and snapshot, time nothing
# Needs: python3.
set -euo pipefail
. "$(dirname "$0")/common.sh"
enter_repo
DIR=${BENCH_DIR:-bench-data}
RUNS=${RUNS:-9}
mkdir -p "$DIR"
if [ -n "${CRAWLAUDIT_BIN:-}" ]; then
  BIN=$CRAWLAUDIT_BIN
else
  cargo build --quiet --release --bin crawlaudit
  BIN=$CARGO_TARGET_DIR/release/crawlaudit
fi
CASES=("$@")
[ ${#CASES[@]} -eq 0 ] && CASES=(vhost-10000-256M hosts-50000 hosts-100000)

for case in "${CASES[@]}"; do
  case $case in
    vhost-10000-256M)
      BENCH_DIR=$DIR HOSTS=10000 SETUP_ONLY=1 benches/e2e_logs.sh 256M 1
      LOG=$DIR/vhost-10000-256M-1.log
      NEXT=$DIR/vhost-10000-256M-1.next.log
      SNAP=(--snapshot "$DIR/snapshot-10000")
      if [ ! -s "$NEXT" ]; then
        echo "generating $NEXT"
        # The generator's log lies within 01/Nov/2026.
        sed 's#\[01/Nov/2026:#[02/Nov/2026:#' "$LOG" > "$NEXT.tmp"
        mv "$NEXT.tmp" "$NEXT"
      fi
      ;;
    hosts-*)
      n=${case#hosts-}
      LOG=$DIR/$case.log
      NEXT=$DIR/$case.next.log
      SNAP=()
      for day in 10 11; do
        [ "$day" = 10 ] && F=$LOG || F=$NEXT
        [ -s "$F" ] && continue
        echo "generating $F"
        python3 - "$n" "$day" > "$F.tmp" <<'PY'
import sys
n, day = int(sys.argv[1]), int(sys.argv[2])
agents = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
]
out = sys.stdout
for i in range(n):
    for j in range(2):
        s = (i * 2 + j) * 86400 // (2 * n)
        out.write(
            f'h{i}.example:443 66.249.66.{(i + j) % 250 + 1} - - '
            f'[{day}/Nov/2026:{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d} +0000] '
            f'"GET /page/{j} HTTP/1.1" 200 512 "-" "{agents[(i + j) % 3]}"\n'
        )
PY
        mv "$F.tmp" "$F"
      done
      ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
  esac
  # SETUP_ONLY=1: the case's logs are made; nothing is timed
  # (for scripts/compare_runs.py --nights).
  [ -n "${SETUP_ONLY:-}" ] && continue
  WORK=$(mktemp -d "$DIR/.state-nights.XXXXXX")
  # The first night's state, from no state.
  "$BIN" audit "$LOG" "${SNAP[@]}" --out "$WORK/out" --state "$WORK/first.state" --quiet > /dev/null 2>&1
  echo "== $case: $(wc -l < "$LOG") lines, first night's state $(stat -c %s "$WORK/first.state") bytes"
  python3 - "$RUNS" "$WORK" "$BIN" "$LOG" "$NEXT" "${SNAP[@]}" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, time
runs, work, bin_, first_log, next_log = int(sys.argv[1]), *sys.argv[2:6]
snap = sys.argv[6:]
def audit(log, *extra):
    out = os.path.join(work, "out")
    return [bin_, "audit", log, *snap, "--out", out, "--quiet", *extra]
def timed(cmd, before=None):
    if before:
        before()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, r1.ru_maxrss
state = os.path.join(work, "night.state")
first_state = os.path.join(work, "first.state")
def fresh():
    if os.path.exists(state):
        os.remove(state)
def copy_first():
    shutil.copyfile(first_state, state)
for night, log, before in (
    ("first night", first_log, fresh),
    ("second night (the next day)", next_log, copy_first),
):
    plain = audit(log)
    with_state = audit(log, "--state", state)
    a, b = [], []
    for i in range(runs + 1):
        x = timed(with_state, before)
        y = timed(plain)
        if i:
            a.append(x)
            b.append(y)
    med = lambda v, k: statistics.median(r[k] for r in v)
    ratio = lambda k: sorted(x[k] / y[k] for x, y in zip(a, b))
    rw, rc = ratio(0), ratio(1)
    print(f"  {night}: --state {med(a, 0):.3f} s ({med(a, 1):.2f} CPU-s), "
          f"without {med(b, 0):.3f} s ({med(b, 1):.2f} CPU-s); "
          f"ratio wall {statistics.median(rw):.3f} ({rw[0]:.3f}-{rw[-1]:.3f}), "
          f"CPU {statistics.median(rc):.3f}")
print(f"  peak RSS of the runs so far: {a[-1][2] // 1024} MiB (the largest child)")
PY
  rm -rf "$WORK"
done
