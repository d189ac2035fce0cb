#!/bin/sh
# Merges the shard reports $OUT/shard-0 .. shard-(SHARDS-1) into $REPORT.
#
# Environment:
#   SHARDS    required: the number of shards
#   OUT       where the shard reports are (default /data/shards)
#   REPORT    where the merged report goes (default /data/report)
#   OBJECT_STORE  optional: shard reports are fetched from
#             $OBJECT_STORE/shards and the report uploaded to
#             $OBJECT_STORE/report (needs the aws CLI)
#   CRAWLAUDIT    the binary (default crawlaudit)
set -eu
: "${SHARDS:?set SHARDS, the number of shards}"
OUT=${OUT:-/data/shards}
REPORT=${REPORT:-/data/report}
CRAWLAUDIT=${CRAWLAUDIT:-crawlaudit}
if [ -n "${OBJECT_STORE:-}" ]; then
  aws s3 sync --only-show-errors "$OBJECT_STORE/shards" "$OUT"
fi
set --
k=0
while [ "$k" -lt "$SHARDS" ]; do
  set -- "$@" "$OUT/shard-$k"
  k=$((k + 1))
done
"$CRAWLAUDIT" merge "$@" --out "$REPORT"
if [ -n "${OBJECT_STORE:-}" ]; then
  aws s3 sync --only-show-errors --delete "$REPORT" "$OBJECT_STORE/report"
fi
