# Shared by the benches' scripts (sourced first, from wherever the caller
# is: `. "$(dirname "$0")/common.sh"`).

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/crawlaudit-target}

# enter_repo: moves to the repository's root, where the scripts run. A
# BENCH_DIR given is the caller's path, made absolute first; the default
# (bench-data) is the repository's.
enter_repo() {
  [ -z "${BENCH_DIR:-}" ] || BENCH_DIR=$(realpath -m "$BENCH_DIR")
  cd "$(dirname "$0")/.."
}

# pick_bin [PATH]: sets BIN to PATH, made absolute, or, without one, to the
# release build's binary, built first.
pick_bin() {
  if [ $# -ge 1 ]; then
    BIN=$(realpath "$1")
  else
    cargo build --quiet --release --bin crawlaudit
    BIN=$CARGO_TARGET_DIR/release/crawlaudit
  fi
}

# need_farm_bench: exits 2 when the tool library's timer is not on PATH.
need_farm_bench() {
  command -v farm-bench > /dev/null || { echo "farm-bench not found (the tool library's timer)" >&2; exit 2; }
}
