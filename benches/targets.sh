#!/usr/bin/env bash
# Issue 14's targets, measured as BENCHMARKS.md's steps quote them (the
# fortieth step's four calls): each call alternates its two commands and
# gives the ratio pair by pair, so a shared machine's drift falls out.
#   1. one host, 1 GiB: the audit against `crawlaudit logs` on the same file
#      (target: >= 1 GB/s, <= 2x `logs`)
#   2. 10,000 hosts, 1 GiB: the audit alone (target: >= 1 GB/s)
#   3. gzip: the audit of the .gz against `zcat` of it (target: <= 0.5x)
#   4. two threads against one (target: >= 1.7x)
#   5. peak RSS at 4 GiB, plain and gzip (target: <= 512 MB), and the cost
#      per line at 4 GiB against 256 MiB (target: flat within 10%): the
#      4 GiB audit (A) against the 256 MiB one (B), their wall ratio times
#      B's lines over A's; skipped with SKIP_4G=1 (the 4 GiB log and its
#      gzip take about 5 GB of disk)
# `--state` has its own script (benches/state_nights.sh), byte identity
# too (scripts/compare_runs.py), and so has the disk's floor under the
# first two (benches/disk_floor.sh: no audit that writes its report to a
# disk runs faster than the disk writes the report).
#
# Usage: benches/targets.sh [BIN]   (default: the release build's binary)
# Env:   BENCH_DIR (default the repository's bench-data; a relative path is
#        the caller's; a path without spaces: farm-bench splits its --vs
#        command as a shell splits words), SKIP_4G=1
# Needs: farm-bench (the tool library's timer: medians, pairs' ratios),
#        GNU time (/usr/bin/time), gzip.
set -euo pipefail
# BIN as the caller meant it, before the move to the repository.
BIN_ARG=${1:+$(realpath "$1")}
. "$(dirname "$0")/common.sh"
enter_repo
DIR=${BENCH_DIR:-bench-data}
export BENCH_DIR=$DIR
pick_bin ${BIN_ARG:+"$BIN_ARG"}
need_farm_bench
CRAWLAUDIT_BIN=$BIN SETUP_ONLY=1 benches/e2e_logs.sh 1G 1 > /dev/null
CRAWLAUDIT_BIN=$BIN HOSTS=10000 SETUP_ONLY=1 benches/e2e_logs.sh 1G 1 > /dev/null
if [ -z "${SKIP_4G:-}" ]; then
  CRAWLAUDIT_BIN=$BIN SETUP_ONLY=1 benches/e2e_logs.sh 4G 1 > /dev/null
  CRAWLAUDIT_BIN=$BIN SETUP_ONLY=1 benches/e2e_logs.sh 256M 1 > /dev/null
fi
OUT=$(mktemp -d "$DIR/.targets.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
ONE=$DIR/combined-1G-1.log
MANY=$DIR/vhost-10000-1G-1.log

# warm FILE...: the files in the page cache before a call.
warm() { cat "$@" > /dev/null; }
warm_snapshot() { find "$1" -type f -exec cat {} + > /dev/null; }

echo "== $("$BIN" --version), $(nproc) cores; $ONE: $(stat -c %s "$ONE") bytes, $MANY: $(stat -c %s "$MANY") bytes"
echo "== 1. one host, 1 GiB: audit (A) against logs (B); MB/s = bytes / A's median wall"
warm "$ONE"; warm_snapshot "$DIR/snapshot"
farm-bench -n 8 --timeout 600 --vs "$BIN logs $ONE" -- \
  "$BIN" audit "$ONE" --snapshot "$DIR/snapshot" --out "$OUT/one" --quiet
echo "== 2. 10,000 hosts, 1 GiB: audit"
warm "$MANY"; warm_snapshot "$DIR/snapshot-10000"
farm-bench -n 6 --timeout 600 -- \
  "$BIN" audit "$MANY" --snapshot "$DIR/snapshot-10000" --out "$OUT/many" --quiet
echo "== 3. gzip: audit of the .gz (A) against zcat of it (B)"
warm "$ONE.gz"; warm_snapshot "$DIR/snapshot"
farm-bench -n 8 --timeout 600 --vs "sh -c 'zcat $ONE.gz > /dev/null'" -- \
  "$BIN" audit "$ONE.gz" --snapshot "$DIR/snapshot" --out "$OUT/gz" --quiet
echo "== 4. two threads (A) against one (B)"
warm "$ONE"
farm-bench -n 8 --timeout 600 \
  --vs "$BIN --threads 1 audit $ONE --snapshot $DIR/snapshot --out $OUT/t1 --quiet" -- \
  "$BIN" --threads 2 audit "$ONE" --snapshot "$DIR/snapshot" --out "$OUT/t2" --quiet
if [ -z "${SKIP_4G:-}" ]; then
  BIG=$DIR/combined-4G-1.log
  SMALL=$DIR/combined-256M-1.log
  big_lines=$(wc -l < "$BIG")
  small_lines=$(wc -l < "$SMALL")
  echo "== 5. 4 GiB ($big_lines lines, A) against 256 MiB ($small_lines lines, B): A's peak;" \
    "cost per line at 4 GiB against 256 MiB = A/B wall x $small_lines / $big_lines"
  warm "$BIG" "$SMALL"
  farm-bench -n 3 --timeout 600 \
    --vs "$BIN audit $SMALL --snapshot $DIR/snapshot --out $OUT/small --quiet" -- \
    "$BIN" audit "$BIG" --snapshot "$DIR/snapshot" --out "$OUT/big" --quiet | tee "$OUT/per-line.txt"
  awk -v s="$small_lines" -v b="$big_lines" '$1 == "A/B" && $2 == "wall" {
    printf "cost per line at 4 GiB against 256 MiB: %.3f (the pairs: %.3f-%.3f)\n", $4 * s / b, $3 * s / b, $5 * s / b
  }' "$OUT/per-line.txt"
  echo "== 5. gzip at 4 GiB: peak RSS"
  warm "$BIG.gz"
  farm-bench -n 3 --timeout 600 -- \
    "$BIN" audit "$BIG.gz" --snapshot "$DIR/snapshot" --out "$OUT/big" --quiet
fi
