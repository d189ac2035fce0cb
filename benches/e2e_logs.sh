#!/usr/bin/env bash
# End-to-end log reading benchmark: generates a realistic combined log
# (seeded, reproducible) and times, in the same run on the same file:
#   crawlaudit's parse-only pass (`crawlaudit logs`), plain and gzip,
#   the whole audit (`crawlaudit audit`, against a generated snapshot of
#   shop.example: rules for every section, crawl-delays, noindex pages),
#   wc -l, zcat of the gzip file, a one-regex Python parse, and GoAccess
#   with --log-format=COMBINED.
# Prints MB/s, lines/s, peak RSS and the ratios, then the plain audit's
# stages (`--timings`).
#
# Usage: benches/e2e_logs.sh [SIZE] [SEED]     (default 1G 1)
# Env:   BENCH_DIR (default the repository's bench-data; a relative path is
#        the caller's), SKIP_GOACCESS=1, SKIP_PYTHON=1, THREADS=N, SETUP_ONLY=1,
#        PAGE_CACHE=small|large|asis (how the page cache holds the plain log; below),
#        HOSTS=N: a CDN's vhost_combined log of N hosts instead, each host with
#        its own robots.txt (the shop's and a Disallow of its own), no pages;
#        the Python and GoAccess contenders are skipped (they parse combined),
#        CRAWLAUDIT_BIN=PATH: time that binary (e.g. scripts/pgo_build.sh's)
#        instead of the release build's
# Needs: gzip, GNU time (/usr/bin/time); GoAccess (apt-get install goaccess).
set -euo pipefail
. "$(dirname "$0")/common.sh"
enter_repo
SIZE=${1:-1G}
SEED=${2:-1}
DIR=${BENCH_DIR:-bench-data}
mkdir -p "$DIR"
# The release build's binary only when no other is timed (as in
# benches/state_nights.sh); the log generator always.
if [ -n "${CRAWLAUDIT_BIN:-}" ]; then
  cargo build --quiet --release --example gen_log
  BIN=$CRAWLAUDIT_BIN
else
  cargo build --quiet --release --bin crawlaudit --example gen_log
  BIN=$CARGO_TARGET_DIR/release/crawlaudit
fi
HOSTS=${HOSTS:-}
LOG=$DIR/combined-$SIZE-$SEED.log
[ -n "$HOSTS" ] && LOG=$DIR/vhost-$HOSTS-$SIZE-$SEED.log
if [ ! -s "$LOG" ]; then
  echo "generating $LOG"
  "$CARGO_TARGET_DIR/release/examples/gen_log" --size "$SIZE" --seed "$SEED" ${HOSTS:+--hosts "$HOSTS"} > "$LOG.tmp" && mv "$LOG.tmp" "$LOG"
fi
if [ ! -s "$LOG.gz" ]; then
  echo "compressing $LOG.gz"
  gzip -1 -c "$LOG" > "$LOG.gz.tmp" && mv "$LOG.gz.tmp" "$LOG.gz"
fi
SNAP=$DIR/snapshot
if [ ! -s "$SNAP/shop.example/pages.jsonl" ] || ! grep -q old-shop "$SNAP/shop.example/robots.txt"; then
  mkdir -p "$SNAP/shop.example"
  cat > "$SNAP/shop.example/robots.txt" <<'ROBOTS'
User-agent: *
Disallow: /cart/
Disallow: /account/
Disallow: /search
Allow: /search/help
Disallow: /*sessionid=

User-agent: AhrefsBot
User-agent: SemrushBot
Crawl-delay: 2
Disallow: /tag/

User-agent: GPTBot
User-agent: ClaudeBot
Disallow: /
ROBOTS
  # A few hundred more rules, as large sites have: retired sections,
  # parameters, wildcards, per-crawler groups.
  {
    echo
    echo "User-agent: bingbot"
    echo "User-agent: Googlebot"
    for i in $(seq 1 120); do echo "Disallow: /archive/$i/"; done
    for p in sort filter sessionid ref utm_source page_size print; do echo "Disallow: /*?$p="; echo "Disallow: /*&$p="; done
    for i in $(seq 1 60); do echo "Disallow: /products/*/reviews/$i\$"; done
    echo
    echo "User-agent: *"
    for i in $(seq 1 120); do echo "Disallow: /old-shop/$i/"; done
  } >> "$SNAP/shop.example/robots.txt"
  for i in $(seq 0 7 4999); do printf '{"url": "/products/%d", "x_robots_tag": ["noindex"]}\n' "$i"; done > "$SNAP/shop.example/pages.jsonl"
  for i in $(seq 0 11 4999); do printf '{"url": "/blog/%d", "meta": [{"name": "robots", "content": "noindex, nofollow"}]}\n' "$i"; done >> "$SNAP/shop.example/pages.jsonl"
fi
if [ -n "$HOSTS" ]; then
  HSNAP=$DIR/snapshot-$HOSTS
  if [ ! -s "$HSNAP/host$((HOSTS - 1)).example/robots.txt" ]; then
    echo "generating $HSNAP"
    for i in $(seq 0 $((HOSTS - 1))); do
      mkdir -p "$HSNAP/host$i.example"
      { cat "$SNAP/shop.example/robots.txt"; printf '\nUser-agent: *\nDisallow: /host-%d/\n' "$i"; } \
        > "$HSNAP/host$i.example/robots.txt"
    done
  fi
  SNAP=$HSNAP
  SKIP_PYTHON=1
  SKIP_GOACCESS=1
fi
# SETUP_ONLY=1: the log, its gzip and the snapshot are ready; nothing is timed
# (benches/spark_e2e.sh uses them).
[ -n "${SETUP_ONLY:-}" ] && exit 0
BYTES=$(stat -c %s "$LOG")
LINES=$(wc -l < "$LOG")
THREADS_ARG=()
[ -n "${THREADS:-}" ] && THREADS_ARG=(--threads "$THREADS")
cat "$LOG.gz" > /dev/null   # warm the page cache for every contender alike (the plain log below)
# The page cache's state for the plain log, worth about 10% of the audit
# (BENCHMARKS.md, twenty-fifth step): PAGE_CACHE=small (the default) holds
# it in 4 KiB pages, as a log a web server appended to is held, and as our
# own reading of an uncached log leaves it; PAGE_CACHE=large in 2 MiB
# folios, as one read from disk with read(2) is held on a recent kernel;
# PAGE_CACHE=asis leaves it as its history did. Either state is made by
# dropping the log's cached pages, then reading it once: with crawlaudit's
# own reader, or with cat. Figures taken in different states do not
# compare; the state is printed with them.
PAGE_CACHE=${PAGE_CACHE:-small}
case "$PAGE_CACHE" in
  small|large)
    python3 - "$LOG" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
PY
    if [ "$PAGE_CACHE" = small ]; then "$BIN" logs "$LOG" > /dev/null 2>&1; else cat "$LOG" > /dev/null; fi
    ;;
  asis) cat "$LOG" > /dev/null ;;
  *) echo "PAGE_CACHE must be small, large or asis, not $PAGE_CACHE" >&2; exit 2 ;;
esac

# run NAME CMD...: wall seconds and peak RSS (KB) of the best of 3 runs.
declare -A WALL RSS
run() {
  local name=$1; shift
  local best="" best_rss=""
  for _ in 1 2 3; do
    local out
    /usr/bin/time -f "%e %M" -o "$DIR/.time" "$@" > /dev/null 2>&1
    out=$(tail -1 "$DIR/.time")
    local wall=${out% *} rss=${out#* }
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; best_rss=$rss; fi
  done
  WALL[$name]=$best; RSS[$name]=$best_rss
}

run "wc -l" wc -l "$LOG"
run "crawlaudit logs (plain)" "$BIN" "${THREADS_ARG[@]}" logs "$LOG"
run "crawlaudit audit (plain)" "$BIN" "${THREADS_ARG[@]}" audit "$LOG" --snapshot "$SNAP" --out "$DIR/report" --quiet
run "zcat" zcat "$LOG.gz"
run "crawlaudit logs (gzip)" "$BIN" "${THREADS_ARG[@]}" logs "$LOG.gz"
run "crawlaudit audit (gzip)" "$BIN" "${THREADS_ARG[@]}" audit "$LOG.gz" --snapshot "$SNAP" --out "$DIR/report" --quiet
# The floor a hand-written script would reach: one regular expression per
# line in Python, counting crawler-looking requests. One run only.
cat > "$DIR/one_regex.py" <<'PY'
import re, sys
LINE = re.compile(rb'^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) (\S+) "([^"]*)" "([^"]*)"')
bots = bad = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        m = LINE.match(line)
        if m is None:
            bad += 1
        elif b"bot" in m.group(8).lower():
            bots += 1
print(bots, bad)
PY
if [ -z "${SKIP_PYTHON:-}" ]; then
  /usr/bin/time -f "%e %M" -o "$DIR/.time" python3 "$DIR/one_regex.py" "$LOG" > /dev/null 2>&1
  out=$(tail -1 "$DIR/.time")
  WALL[python one-regex]=${out% *}; RSS[python one-regex]=${out#* }
fi
if [ -z "${SKIP_GOACCESS:-}" ] && command -v goaccess > /dev/null; then
  # GoAccess is much slower: one run only.
  /usr/bin/time -f "%e %M" -o "$DIR/.time" goaccess "$LOG" --log-format=COMBINED --no-global-config -o "$DIR/goaccess.json" > /dev/null 2>&1
  out=$(tail -1 "$DIR/.time")
  WALL[goaccess]=${out% *}; RSS[goaccess]=${out#* }
fi

printf '\nfile: %s (%.0f MB, %d lines), %s cores, threads %s\n' "$LOG" "$(echo "$BYTES/1000000" | bc -l)" "$LINES" "$(nproc)" "${THREADS:-all}"
# How the page cache holds the log: in 2 MiB folios (a file read from disk
# with read(2) on a recent kernel) a mapping takes a whole folio per fault;
# in 4 KiB pages (a file written in small pieces, as gen_log writes it)
# one per 64 KiB at most. Worth about 10% of the audit: figures taken in
# the two states do not compare (BENCHMARKS.md, twenty-fifth step).
cat > "$DIR/cache_state.py" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
view = memoryview(m)
sum(view[i] for i in range(0, size, 4096))
kb = 0
with open("/proc/self/smaps") as smaps:
    for line in smaps:
        if line.startswith("FilePmdMapped:"):
            kb += int(line.split()[1])
print(f"{100 * kb * 1024 / size:.0f}")
PY
if command -v python3 > /dev/null && [ -r /proc/self/smaps ]; then
  printf 'page cache (PAGE_CACHE=%s): %s%% of the log in 2 MiB folios\n' "$PAGE_CACHE" "$(python3 "$DIR/cache_state.py" "$LOG")"
fi
printf '%-26s %9s %10s %14s %11s\n' "command" "seconds" "MB/s" "lines/s" "peak RSS"
for name in "wc -l" "crawlaudit logs (plain)" "crawlaudit audit (plain)" "zcat" "crawlaudit logs (gzip)" "crawlaudit audit (gzip)" "python one-regex" goaccess; do
  [ -n "${WALL[$name]:-}" ] || continue
  awk -v n="$name" -v s="${WALL[$name]}" -v b="$BYTES" -v l="$LINES" -v r="${RSS[$name]}" \
    'BEGIN { printf "%-26s %9.2f %10.0f %14.0f %8.0f MB\n", n, s, b/1e6/s, l/s, r/1024 }'
done
echo
awk -v a="${WALL[crawlaudit logs (plain)]}" -v w="${WALL[wc -l]}" 'BEGIN { printf "logs (plain): %.2fx the time of wc -l\n", a/w }'
awk -v a="${WALL[crawlaudit logs (gzip)]}" -v z="${WALL[zcat]}" 'BEGIN { printf "logs (gzip):  %.2fx faster than zcat\n", z/a }'
awk -v a="${WALL[crawlaudit audit (plain)]}" -v w="${WALL[wc -l]}" 'BEGIN { printf "audit (plain): %.1fx the time of wc -l\n", a/w }'
awk -v a="${WALL[crawlaudit audit (gzip)]}" -v z="${WALL[zcat]}" 'BEGIN { printf "audit (gzip):  %.2fx the time of zcat\n", a/z }'
if [ -n "${WALL[python one-regex]:-}" ]; then
  awk -v a="${WALL[crawlaudit audit (plain)]}" -v p="${WALL[python one-regex]}" 'BEGIN { printf "audit (plain): %.1fx faster than a one-regex Python parse\n", p/a }'
fi
if [ -n "${WALL[goaccess]:-}" ]; then
  awk -v a="${WALL[crawlaudit logs (plain)]}" -v g="${WALL[goaccess]}" 'BEGIN { printf "crawlaudit logs is %.0fx faster than GoAccess\n", g/a }'
  awk -v a="${WALL[crawlaudit audit (plain)]}" -v g="${WALL[goaccess]}" 'BEGIN { printf "crawlaudit audit is %.1fx faster than GoAccess\n", g/a }'
fi
# Memory the audit keeps beyond reading, per violation row (what it keeps
# per request is bounded by what is unique; the violations table is not).
rows=$(python3 -c "import json,sys; v=json.load(open(sys.argv[1]))['violations']; print(sum(v.values()))" "$DIR/report/summary.json")
awk -v a="${RSS[crawlaudit audit (plain)]}" -v l="${RSS[crawlaudit logs (plain)]}" -v k="$rows" \
  'BEGIN { printf "audit memory: %.0f MB beyond reading, %d violation rows: %.0f bytes per violation row (the peak beyond that of reading, over the rows: the table itself is 48 bytes a row, its URL and 8 bytes of order; the rest is the working set of the judge)\n", (a-l)/1024, k, (a-l)*1024/k }'
# Where the plain audit's time goes: one more run, its stages' wall times
# (`--timings`; a binary older than the flag is skipped). `grep -c` reads
# all of the help: `grep -q` could end the pipe early, and under pipefail
# the writer's SIGPIPE would skip the table.
if "$BIN" audit --help | grep -c -- --timings > /dev/null; then
  echo
  echo "the plain audit's stages (one more run):"
  "$BIN" "${THREADS_ARG[@]}" audit "$LOG" --snapshot "$SNAP" --out "$DIR/report" --quiet --timings 2>&1 > /dev/null |
    sed -n '/stage timings/,$p'
fi
