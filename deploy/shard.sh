#!/bin/sh
# One shard of the audit: the hosts of shard $JOB_COMPLETION_INDEX of
# $SHARDS (a Kubernetes Indexed Job sets JOB_COMPLETION_INDEX for each pod).
#
# Environment:
#   SHARDS, JOB_COMPLETION_INDEX  required: shard K of N (K from 0)
#   LOGS      log files or directories (default /data/logs)
#   SNAPSHOT  the site snapshot (default /data/snapshot)
#   OUT       where shard reports go: $OUT/shard-K (default /data/shards)
#   OBJECT_STORE  optional, e.g. s3://bucket/crawlaudit/2026-11-21: logs
#             and snapshot are fetched from $OBJECT_STORE/logs and
#             /snapshot first, and the shard report is uploaded to
#             $OBJECT_STORE/shards/shard-K after (needs the aws CLI)
#   CRAWLAUDIT_ARGS  more audit options (--ip-ranges DIR, --site HOST, ...)
#   CRAWLAUDIT       the binary (default crawlaudit)
set -eu
: "${SHARDS:?set SHARDS, the number of shards}"
: "${JOB_COMPLETION_INDEX:?set JOB_COMPLETION_INDEX, this shard (0 to SHARDS-1)}"
LOGS=${LOGS:-/data/logs}
SNAPSHOT=${SNAPSHOT:-/data/snapshot}
OUT=${OUT:-/data/shards}
CRAWLAUDIT=${CRAWLAUDIT:-crawlaudit}
K=$JOB_COMPLETION_INDEX
if [ -n "${OBJECT_STORE:-}" ]; then
  aws s3 sync --only-show-errors "$OBJECT_STORE/logs" "$LOGS"
  aws s3 sync --only-show-errors "$OBJECT_STORE/snapshot" "$SNAPSHOT"
fi
# shellcheck disable=SC2086 # LOGS and CRAWLAUDIT_ARGS are lists
"$CRAWLAUDIT" audit $LOGS --snapshot "$SNAPSHOT" --shard "$K/$SHARDS" \
  --out "$OUT/shard-$K" --quiet ${CRAWLAUDIT_ARGS:-}
if [ -n "${OBJECT_STORE:-}" ]; then
  aws s3 sync --only-show-errors --delete "$OUT/shard-$K" "$OBJECT_STORE/shards/shard-$K"
fi
