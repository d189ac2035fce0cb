#!/usr/bin/env bash
# A profile-guided release build of crawlaudit, for production: the same code
# and the same output as `cargo build --release`, about a tenth less time per
# audit (BENCHMARKS.md, "Issue 14, thirty-third step").
#
#   1. builds an instrumented binary (`-Cprofile-generate`);
#   2. runs it on a training set made here from nothing but the repository:
#      the bundled demo, and logs written by `examples/gen_log` with seed 2
#      (the benchmarks time seed 1): one host plain, gzip and on one thread,
#      10,000 hosts each with its own robots.txt, two nights with `--state`,
#      and `crawlaudit logs`;
#   3. merges the profiles (`llvm-profdata`, from rustup's `llvm-tools`
#      component, added when missing) and builds with `-Cprofile-use`.
#
# Both builds go to target directories of their own beside CARGO_TARGET_DIR's,
# so that the plain build stays warm (benches/e2e_logs.sh, which writes the
# training logs, makes a plain release build too). Every crate is rebuilt in
# step 3, as the profile's path names its contents (cargo never reuses a build
# made from another profile). Measured on 2 cores: 11 minutes, 18 the first
# time, when the instrumented build compiles its dependencies too.
# Prints the binary's path last.
#
# Usage: scripts/pgo_build.sh
# Env:   CARGO_TARGET_DIR (default $HOME/.cache/crawlaudit-target),
#        PGO_TRAIN (the training data's directory; default $TMPDIR/crawlaudit-pgo-train),
#        PGO_SIZE (the one-host training log's size; default 128M).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/crawlaudit-target}
gen_dir=$CARGO_TARGET_DIR-pgo-gen
use_dir=$CARGO_TARGET_DIR-pgo
train=${PGO_TRAIN:-${TMPDIR:-/tmp}/crawlaudit-pgo-train}
size=${PGO_SIZE:-128M}

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  echo "== llvm-profdata missing: rustup component add llvm-tools"
  rustup component add llvm-tools
fi
[ -x "$profdata" ] || { echo "no $profdata after adding llvm-tools" >&2; exit 1; }

echo "== 1/3 instrumented build ($gen_dir)"
raw=$(mktemp -d "${TMPDIR:-/tmp}/crawlaudit-pgo-raw.XXXXXX")
trap 'rm -rf "$raw"' EXIT
# The instrumented binary writes its counts under a directory fixed at build
# time: one that every run of this script reuses, emptied first.
counts=$gen_dir/profraw
rm -rf "$counts"
mkdir -p "$counts"
CARGO_TARGET_DIR=$gen_dir RUSTFLAGS="-Cprofile-generate=$counts" \
  cargo build --quiet --release --bin crawlaudit
gen=$gen_dir/release/crawlaudit

echo "== 2/3 training ($train)"
BENCH_DIR=$train SETUP_ONLY=1 benches/e2e_logs.sh "$size" 2 >/dev/null
BENCH_DIR=$train SETUP_ONLY=1 HOSTS=10000 benches/e2e_logs.sh 64M 2 >/dev/null
one=$train/combined-$size-2.log
many=$train/vhost-10000-64M-2.log
out=$raw/out
run() { "$gen" "$@" --out "$out" --quiet >/dev/null 2>&1 || { echo "training run failed: crawlaudit $*" >&2; exit 1; }; }
run audit
run audit "$one" --snapshot "$train/snapshot"
run audit "$one.gz" --snapshot "$train/snapshot"
run --threads 1 audit "$one" --snapshot "$train/snapshot"
run audit "$many" --snapshot "$train/snapshot-10000"
run audit "$many" --snapshot "$train/snapshot-10000" --state "$raw/state"
run audit "$many" --snapshot "$train/snapshot-10000" --state "$raw/state"
"$gen" logs "$one" >/dev/null 2>&1
ls "$counts"/*.profraw >/dev/null 2>&1 || { echo "the training runs wrote no profile under $counts" >&2; exit 1; }

echo "== 3/3 optimized build ($use_dir)"
"$profdata" merge -o "$raw/merged.profdata" "$counts"/*.profraw
sum=$(sha256sum "$raw/merged.profdata" | cut -c1-16)
profile=$use_dir/crawlaudit-$sum.profdata
mkdir -p "$use_dir"
cp "$raw/merged.profdata" "$profile"
CARGO_TARGET_DIR=$use_dir RUSTFLAGS="-Cprofile-use=$profile" \
  cargo build --quiet --release --bin crawlaudit
# Older profiles are not needed once a build has used the newest.
find "$use_dir" -maxdepth 1 -name 'crawlaudit-*.profdata' ! -name "crawlaudit-$sum.profdata" -delete
echo "$use_dir/release/crawlaudit"
