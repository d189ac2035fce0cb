#!/usr/bin/env bash
# The Spark run of the 1 GiB benchmark: benches/e2e_logs.sh's combined log
# split into 16 files, audited by crawlaudit-spark on local[2] (the release
# wheel) and by `crawlaudit audit` on the same files, in the same run.
# Prints the wall times, the ratio, the fixed start-up cost apart (the
# SparkSession's start, and a Spark audit of a one-line log), where the
# Spark run's time goes (ingest, judge, assemble) and how many bytes crossed
# the shuffle; checks that both reports are the same bytes.
#
# Usage: benches/spark_e2e.sh [SIZE] [SEED]     (default 1G 1)
# Env:   BENCH_DIR (default the repository's bench-data; a relative path is
#        the caller's), FILES (default 16), SHARDS (default 2),
#        RUNS (default 3), CRAWLAUDIT_PY_ENVS (scripts/spark-env's, default ~/.cache/crawlaudit-py)
set -euo pipefail
. "$(dirname "$0")/common.sh"
enter_repo
SIZE=${1:-1G}
SEED=${2:-1}
DIR=${BENCH_DIR:-bench-data}
FILES=${FILES:-16}
SETUP_ONLY=1 benches/e2e_logs.sh "$SIZE" "$SEED"
LOG=$DIR/combined-$SIZE-$SEED.log
SPLIT=$DIR/split-$FILES-$SIZE-$SEED
if [ ! -s "$SPLIT/part-$(printf %02d $((FILES - 1))).log" ]; then
  echo "splitting $LOG into $FILES files"
  rm -rf "$SPLIT" && mkdir -p "$SPLIT"
  split -n "l/$FILES" -d --additional-suffix=.log "$LOG" "$SPLIT/part-"
fi
envs=${CRAWLAUDIT_PY_ENVS:-$HOME/.cache/crawlaudit-py}
[ -x "$envs/spark35/bin/maturin" ] || scripts/spark-env
py=$envs/spark35/bin/python
wheels=$CARGO_TARGET_DIR/wheels-release
rm -rf "$wheels"
"$envs/spark35/bin/maturin" build --release -i "$py" -m python/Cargo.toml -o "$wheels" --quiet
"$py" -m pip install -q --force-reinstall --no-deps "$wheels"/crawlaudit-*.whl
head -1 "$LOG" > "$DIR/one-line.log"
PYSPARK_PYTHON="$py" "$py" benches/spark_e2e.py \
  --bin "$CARGO_TARGET_DIR/release/crawlaudit" --snapshot "$DIR/snapshot" \
  --out "$DIR" --one "$DIR/one-line.log" --shards "${SHARDS:-2}" --runs "${RUNS:-3}" \
  "$SPLIT"/part-*.log
