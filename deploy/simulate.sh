#!/bin/sh
# Runs the Kubernetes Indexed Job on this machine: SHARDS processes of
# deploy/shard.sh at once, each with its own JOB_COMPLETION_INDEX as a pod
# would have, then deploy/merge.sh, as the merge Job would. The same
# environment as the pods (LOGS, SNAPSHOT, OUT, REPORT, CRAWLAUDIT_ARGS,
# CRAWLAUDIT); exit 2 when a shard or the merge fails.
#
#   SHARDS=4 LOGS=fixtures/demo/access.log SNAPSHOT=fixtures/demo/snapshot \
#     OUT=/tmp/shards REPORT=reports deploy/simulate.sh
set -u
: "${SHARDS:?set SHARDS, the number of shards}"
here=$(dirname "$0")
pids=""
k=0
while [ "$k" -lt "$SHARDS" ]; do
  JOB_COMPLETION_INDEX=$k sh "$here/shard.sh" &
  pids="$pids $!"
  k=$((k + 1))
done
failed=0
for pid in $pids; do
  wait "$pid" || failed=$((failed + 1))
done
if [ "$failed" -ne 0 ]; then
  echo "simulate: $failed of $SHARDS shards failed; no merge" >&2
  exit 2
fi
sh "$here/merge.sh" || exit 2
