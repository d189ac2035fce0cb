#!/usr/bin/env bash
# End-to-end log reading benchmark: generates a realistic combined log
# (seeded, reproducible) and times, in the same run on the same file:
#   crawlaudit's parse-only pass (`crawlaudit logs`), plain and gzip,
#   wc -l, zcat of the gzip file, and GoAccess with --log-format=COMBINED.
# Prints MB/s, lines/s, peak RSS and the ratios.
#
# Usage: benches/e2e_logs.sh [SIZE] [SEED]     (default 1G 1)
# Env:   BENCH_DIR (default ./bench-data), SKIP_GOACCESS=1, THREADS=N
# Needs: gzip, GNU time (/usr/bin/time); GoAccess (apt-get install goaccess).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1G}
SEED=${2:-1}
DIR=${BENCH_DIR:-bench-data}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/crawlaudit-target}
mkdir -p "$DIR"
cargo build --quiet --release --bin crawlaudit --example gen_log
BIN=$CARGO_TARGET_DIR/release/crawlaudit
LOG=$DIR/combined-$SIZE-$SEED.log
if [ ! -s "$LOG" ]; then
  echo "generating $LOG"
  "$CARGO_TARGET_DIR/release/examples/gen_log" --size "$SIZE" --seed "$SEED" > "$LOG.tmp" && mv "$LOG.tmp" "$LOG"
fi
if [ ! -s "$LOG.gz" ]; then
  echo "compressing $LOG.gz"
  gzip -1 -c "$LOG" > "$LOG.gz.tmp" && mv "$LOG.gz.tmp" "$LOG.gz"
fi
BYTES=$(stat -c %s "$LOG")
LINES=$(wc -l < "$LOG")
THREADS_ARG=()
[ -n "${THREADS:-}" ] && THREADS_ARG=(--threads "$THREADS")
cat "$LOG" "$LOG.gz" > /dev/null   # warm the page cache for every contender alike

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
run "zcat" zcat "$LOG.gz"
run "crawlaudit logs (gzip)" "$BIN" "${THREADS_ARG[@]}" logs "$LOG.gz"
if [ -z "${SKIP_GOACCESS:-}" ] && command -v goaccess > /dev/null; then
  # GoAccess is much slower: one run only.
  /usr/bin/time -f "%e %M" -o "$DIR/.time" goaccess "$LOG" --log-format=COMBINED --no-global-config -o "$DIR/goaccess.json" > /dev/null 2>&1
  out=$(tail -1 "$DIR/.time")
  WALL[goaccess]=${out% *}; RSS[goaccess]=${out#* }
fi

printf '\nfile: %s (%.0f MB, %d lines), %s cores, threads %s\n' "$LOG" "$(echo "$BYTES/1000000" | bc -l)" "$LINES" "$(nproc)" "${THREADS:-all}"
printf '%-26s %9s %10s %14s %11s\n' "command" "seconds" "MB/s" "lines/s" "peak RSS"
for name in "wc -l" "crawlaudit logs (plain)" "zcat" "crawlaudit logs (gzip)" goaccess; do
  [ -n "${WALL[$name]:-}" ] || continue
  awk -v n="$name" -v s="${WALL[$name]}" -v b="$BYTES" -v l="$LINES" -v r="${RSS[$name]}" \
    'BEGIN { printf "%-26s %9.2f %10.0f %14.0f %8.0f MB\n", n, s, b/1e6/s, l/s, r/1024 }'
done
echo
awk -v a="${WALL[crawlaudit logs (plain)]}" -v w="${WALL[wc -l]}" 'BEGIN { printf "plain: crawlaudit takes %.2fx the time of wc -l\n", a/w }'
awk -v a="${WALL[crawlaudit logs (gzip)]}" -v z="${WALL[zcat]}" 'BEGIN { printf "gzip:  crawlaudit is %.2fx faster than zcat\n", z/a }'
if [ -n "${WALL[goaccess]:-}" ]; then
  awk -v a="${WALL[crawlaudit logs (plain)]}" -v g="${WALL[goaccess]}" 'BEGIN { printf "crawlaudit is %.0fx faster than GoAccess\n", g/a }'
fi
