# Shared by the scripts (`source scripts/lib.sh` from the repository root, after `set -euo pipefail`).
#
#   build CONFIG PRODUCT...   builds the products (CONFIG: debug or release); on failure prints the
#                             compiler's output and exits 1, so no script goes on to run a stale binary
#   build_tests               builds everything, tests included (debug), failing the same way
#   build_static PRODUCT      a release build with Swift's runtime and Foundation linked in (packages)
#   bin_dir CONFIG            prints where CONFIG's binaries are
# Build progress goes to standard error; warnings and the closing line are shown, the rest only on failure.

# Runs `swift build` with the given arguments, quietly unless it fails.
_swift_build() {
  local log status=0
  log=$(mktemp)
  swift build "$@" >"$log" 2>&1 || status=$?
  if [[ $status -ne 0 ]]; then
    grep -v '^\[[0-9]*/[0-9]*\]' "$log" >&2 || true
    rm -f "$log"
    echo "${0##*/}: swift build $* failed (exit $status): stopping here rather than running an old binary" >&2
    exit 1
  fi
  grep -E 'warning: |Build (of product .*)?complete' "$log" >&2 || true
  rm -f "$log"
}

build() {
  local config=$1 product
  shift
  for product in "$@"; do _swift_build -c "$config" --product "$product"; done
}

build_tests() { _swift_build --build-tests; }

build_static() { _swift_build -c release --product "$1" --static-swift-stdlib; }

bin_dir() { swift build -c "$1" --show-bin-path; }
