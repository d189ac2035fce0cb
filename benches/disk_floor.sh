#!/usr/bin/env bash
# The disk's floor under an audit: how long this machine's disk takes to
# write a report's files durably, against the audit that writes them, in
# one `farm-bench` call (the two commands alternated).
#
# A report's rows are sorted by time first and logs need not be sorted, so
# the last line read may hold the first row: no byte of `violations.*` can
# be written before the last line is read, and a run takes at least its
# reading plus the writing of its report. The floor command writes the
# report's files as the product does (each file by a process of its own,
# `O_DIRECT` 1 MiB at a time, synced), exactly the same number of bytes, from
# /dev/zero; its time bounds from below the writing stage of any audit that
# writes that report to that directory's disk, and so its throughput:
# log bytes / floor.
#
# Usage: benches/disk_floor.sh LOG SNAPSHOT [BIN]   (default: the release build's binary)
# Env:   OUT_DIR (default: beside LOG; the disk measured is the one it is on),
#        RUNS (default 5)
# Needs: farm-bench (the tool library's timer), GNU dd.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 LOG SNAPSHOT [BIN]" >&2; exit 2; }
# The paths as the caller meant them, before the move to the repository.
LOG=$(realpath "$1")
SNAP=$(realpath "$2")
BIN_ARG=${3:+$(realpath "$3")}
. "$(dirname "$0")/common.sh"
enter_repo
pick_bin ${BIN_ARG:+"$BIN_ARG"}
need_farm_bench
RUNS=${RUNS:-5}
OUT=$(mktemp -d "${OUT_DIR:-$(dirname "$LOG")}/.disk-floor.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

# One audit first, for the report's files and their sizes.
"$BIN" audit "$LOG" --snapshot "$SNAP" --out "$OUT/report" --quiet > /dev/null
report_bytes=0
writers=""
for f in "$OUT"/report/*; do
  size=$(stat -c %s "$f")
  report_bytes=$((report_bytes + size))
  [ "$size" -gt 0 ] || continue
  # Exactly the file's bytes (GNU dd writes a last partial block without
  # O_DIRECT).
  writers="$writers dd if=/dev/zero of=\$d/$(basename "$f") bs=1M count=$size iflag=count_bytes oflag=direct conv=fsync status=none &"
done
# Each run writes new files into a directory of its own (nothing is
# truncated or removed inside the timing: the floor stays a lower bound).
printf '%s\n' "#!/bin/sh" "d=\$(mktemp -d $OUT/floor.XXXXXX)" "$writers wait" > "$OUT/floor.sh"
log_bytes=$(stat -c %s "$LOG")
echo "== $("$BIN" --version); $LOG: $log_bytes bytes; its report: $report_bytes bytes in $OUT (on $(df --output=source "$OUT" | tail -1))"
echo "== the audit (A) against writing its report's bytes durably (B)"
cat "$LOG" > /dev/null
farm-bench -n "$RUNS" --timeout 600 --vs "sh $OUT/floor.sh" -- \
  "$BIN" audit "$LOG" --snapshot "$SNAP" --out "$OUT/report" --quiet | tee "$OUT/bench.txt"
awk -v lb="$log_bytes" -v rep="$report_bytes" '$1 == "B" && $2 == "wall" {
  # "B wall s  min median max": the median is the fifth field.
  printf "the floor: %.3f s to write the report (%.0f MB/s); an audit that writes it here cannot pass %.0f MB/s of log (1 GB/s allows %.3f s)\n",
    $5, rep / $5 / 1e6, lb / $5 / 1e6, lb / 1e9
}' "$OUT/bench.txt"
