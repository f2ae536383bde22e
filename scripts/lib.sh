# Shared by the scripts (`source scripts/lib.sh` from the repository root, after `set -euo pipefail`).
#
#   build CONFIG PRODUCT...   builds the products (CONFIG: debug or release); on failure prints the
#                             compiler's output and exits 1, so no script goes on to run a stale binary
#   build_tests               builds everything, tests included (debug), failing the same way
#   build_static PRODUCT      a release build with Swift's runtime and Foundation linked in (packages)
#   bin_dir CONFIG            prints where CONFIG's binaries are
#   vm_kernel                 prints the folder holding Debian's kernel package unpacked (downloaded
#                             once into ~/.cache/scanpick-vm): boot/vmlinuz-V, lib/modules/V
#   vm_modules KERNEL MODULE...  prints the modules' .ko files with their dependencies, in load order
#   vm_boot KERNEL INITRD RESULTS LOG ARGS...  boots the kernel under qemu (software emulation, 2 CPUs,
#                             2 GiB) with this machine's / read-only as 9p tag hostroot and RESULTS
#                             writable as tag results; kernel command line ARGS; console to LOG;
#                             powered off after $vm_timeout seconds (default 600)
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

vm_kernel() {
  # Debian's kernel package: its ABI name changes with updates, so ask linux-image-amd64 for it.
  local package cache version
  package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [[ -z "$package" ]]; then
    apt-get update -qq >&2
    package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  fi
  cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/scanpick-vm/$package
  if [[ ! -d "$cache/kernel" ]]; then
    mkdir -p "$cache"
    (cd "$cache" && apt-get download "$package" 2>/dev/null && dpkg -x ./*.deb kernel && rm -f ./*.deb) >&2
  fi
  version=$(ls "$cache/kernel/lib/modules" 2>/dev/null || true)
  if [[ -z "$version" ]]; then
    echo "${0##*/}: could not get Debian's kernel package '$package' into $cache" >&2
    return 1
  fi
  [[ -f "$cache/kernel/lib/modules/$version/modules.dep" ]] || depmod -b "$cache/kernel" "$version"
  echo "$cache/kernel"
}

vm_modules() {
  local kernel=$1 version module
  shift
  version=$(ls "$kernel/lib/modules")
  for module in "$@"; do
    modprobe -d "$kernel" -S "$version" --show-depends "$module" | awk '/^insmod/ {print $2}'
  done | awk '!seen[$0]++'
}

vm_boot() {
  local kernel=$1 initrd=$2 results=$3 log=$4 version
  shift 4
  version=$(ls "$kernel/lib/modules")
  timeout "${vm_timeout:-600}" qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -nographic -no-reboot \
    -kernel "$kernel/boot/vmlinuz-$version" -initrd "$initrd" -append "console=ttyS0 quiet panic=-1 $*" \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev local,id=results,path="$results",security_model=none -device virtio-9p-pci,fsdev=results,mount_tag=results \
    >"$log" 2>&1 || true
}
