#!/usr/bin/env bash
# Make a real Swift toolchain on a Debian machine that has none, and print the `swift` to use.
#
#   scripts/swift-toolchain.sh            build (or reuse) the toolchain; print the wrapper path
#   scripts/swift-toolchain.sh --check    exit 0 if a completed toolchain is there, else 1
#
# How: a Debian trixie chroot (`debootstrap --variant=minbase trixie`) from the mirror apt already
# uses here, with Debian's `swiftlang` and `libc6-dev` installed inside. `/proc` is mounted only
# inside a private mount namespace, so nothing stays mounted on the host and nothing needs
# unmounting. The chroot is cached under $SWIFT_TOOLCHAIN_DIR (default below); a stamp file
# marks a completed build, so later runs on the same machine return at once.
#
# The wrapper `$SWIFT_TOOLCHAIN_DIR/bin/swift` runs `swift` inside the chroot with the network
# unshared. The package folder (the working directory, or `--package-path DIR`) is copied in,
# swift runs on the copy, the copy is deleted: only stdout, stderr and the exit code come back.
#
# Environment: SWIFT_TOOLCHAIN_DIR (cache folder), SWIFT_TOOLCHAIN_MIRROR (Debian mirror URL;
# default: the first .../debian URI in apt's own sources). Needs root (debootstrap, chroot).
set -euo pipefail
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"  # debootstrap, chroot, unshare live in sbin

readonly SUITE=trixie
readonly PACKAGES=(swiftlang libc6-dev)
DIR="${SWIFT_TOOLCHAIN_DIR:-/var/cache/swiftpm-guard/swift-trixie}"
ROOT="$DIR/root"
STAMP="$DIR/.complete"
WRAPPER="$DIR/bin/swift"

log() { printf 'swift-toolchain: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [[ "${1:-}" == "--check" ]]; then
  [[ -f "$STAMP" && -x "$WRAPPER" ]]
  exit
fi
[[ $# -eq 0 ]] || die "usage: $0 [--check]"

# The Debian archive apt already uses here (scripts/apt-sources.sh, shared with
# container-engine.sh): a plain Debian archive, not -security, not a third-party repository.
# shellcheck source=apt-sources.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt-sources.sh"

# Run a command inside the chroot: private mount and PID namespaces, /proc mounted there only.
in_chroot() {
  unshare --mount --propagation private --pid --fork --mount-proc="$ROOT/proc" \
    chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# Local CAs (a re-signing proxy's) so apt inside trusts what apt outside trusts.
copy_certificates() {
  local target="$ROOT/usr/local/share/ca-certificates"
  if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
    mkdir -p "$target"
    cp -R /usr/local/share/ca-certificates/. "$target/"
  fi
  if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
    mkdir -p "$ROOT/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
  fi
}

# $1: the toolchain's `swift --version` line, recorded in the wrapper so that a different
# toolchain means a different wrapper file (swiftpm-guard's result cache keys on the file).
write_wrapper() {
  mkdir -p "$DIR/bin"
  {
    printf '#!/usr/bin/env bash\n# toolchain: %s\n' "$1"
    cat <<'WRAPPER_EOF'
# swift inside the swiftpm-guard trixie chroot: network unshared, package folder copied in,
# nothing copied back. Written by scripts/swift-toolchain.sh.
set -euo pipefail
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"  # chroot and unshare live in sbin
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$HERE/root"
package="$PWD"
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --package-path) [[ $# -ge 2 ]] || { echo "swift: --package-path needs a value" >&2; exit 64; }
                    package="$2"; shift 2 ;;
    --package-path=*) package="${1#--package-path=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
[[ -d "$package" ]] || { echo "swift: no package folder: $package" >&2; exit 66; }
work="$(mktemp -d "$ROOT/tmp/swiftpm-guard.XXXXXXXX")"
trap 'rm -rf -- "$work"' EXIT
trap 'exit 143' TERM INT  # so the EXIT trap still removes the copy when we are stopped
inside="/tmp/${work##*/}"
mkdir "$work/package" "$work/home"
# Copy the package's contents (dot folders such as .Package.swift included), never symlink
# targets outside it: -P keeps symlinks as links, which then point nowhere inside the chroot.
cp -RP -- "$package/." "$work/package/"
chmod -R a+rwX "$work"
userns=()
[[ "$(id -u)" -eq 0 ]] || userns=(--user --map-root-user)
passed=(PATH=/usr/bin:/bin HOME="$inside/home" LANG=C.UTF-8 TMPDIR="$inside")
while IFS='=' read -r name _; do
  [[ "$name" == SWIFT_* ]] && passed+=("$name=${!name}")
done < <(env)
set +e
unshare "${userns[@]}" --mount --propagation private --pid --net --fork --kill-child \
  --mount-proc="$ROOT/proc" \
  chroot "$ROOT" /usr/bin/env -i -C "$inside/package" "${passed[@]}" \
  swift "${args[@]}"
code=$?
set -e
exit "$code"
WRAPPER_EOF
  } >"$WRAPPER.tmp"
  chmod 0755 "$WRAPPER.tmp"
  # Unchanged wrappers keep their mtime: swiftpm-guard's result cache keys on it.
  if cmp -s "$WRAPPER.tmp" "$WRAPPER"; then rm -f "$WRAPPER.tmp"; else mv -f "$WRAPPER.tmp" "$WRAPPER"; fi
}

build() {
  local started mirror partial
  started=$(date +%s)
  [[ "$(id -u)" -eq 0 ]] || die "building the chroot needs root (debootstrap, chroot)"
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap on the host"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  mirror="${SWIFT_TOOLCHAIN_MIRROR:-$(debian_archive debian)}" || die "no Debian mirror in apt's sources; set SWIFT_TOOLCHAIN_MIRROR"
  [[ -n "$mirror" ]] || die "no Debian mirror in apt's sources; set SWIFT_TOOLCHAIN_MIRROR"
  # A half-built chroot from an interrupted run is thrown away, never reused.
  partial="$DIR/root.partial"
  rm -rf -- "$partial" "$ROOT"
  mkdir -p "$DIR"
  log "debootstrap $SUITE from $mirror into $partial"
  local keyring=()
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] \
    && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
  debootstrap --variant=minbase "${keyring[@]}" "$SUITE" "$partial" "$mirror" \
    >"$DIR/debootstrap.log" 2>&1 || { tail -n 20 "$DIR/debootstrap.log" >&2; die "debootstrap failed (log: $DIR/debootstrap.log)"; }
  mv "$partial" "$ROOT"
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  copy_certificates
  log "apt-get install ${PACKAGES[*]} inside the chroot"
  in_chroot apt-get update -qq
  if ! in_chroot apt-cache show "${PACKAGES[0]}" >/dev/null 2>&1; then
    in_chroot apt-cache search --names-only swift >&2 || true
    die "no package ${PACKAGES[0]} in $SUITE; see the list above"
  fi
  in_chroot apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" \
    >"$DIR/apt.log" 2>&1 || { tail -n 20 "$DIR/apt.log" >&2; die "apt-get install failed (log: $DIR/apt.log)"; }
  in_chroot apt-get clean
  in_chroot update-ca-certificates >/dev/null 2>&1 || true
  # Prove it before stamping: a toolchain that cannot print its version is not complete.
  local version
  version=$(in_chroot swift --version 2>&1 | head -n 1) || die "swift does not run in the chroot"
  write_wrapper "$version"
  find "$ROOT/tmp" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
  local seconds=$(( $(date +%s) - started ))
  local size
  size=$(du -sh "$ROOT" | cut -f1)
  printf 'suite=%s\nmirror=%s\nswift=%s\nseconds=%s\nsize=%s\n' \
    "$SUITE" "$mirror" "$version" "$seconds" "$size" >"$DIR/build-info"
  touch "$STAMP"
  log "built in ${seconds}s, $size: $version"
}

mkdir -p "$DIR"
# One builder at a time: CI and a developer on the same machine may both ask for it.
exec 9>"$DIR.lock"
flock 9
if [[ -f "$STAMP" && -x "$WRAPPER" ]]; then
  write_wrapper "$(sed -n 's/^swift=//p' "$DIR/build-info")"  # in step with this script
  log "reusing $DIR ($(sed -n 's/^swift=//p' "$DIR/build-info" 2>/dev/null))"
else
  rm -f "$STAMP"
  build
fi
printf '%s\n' "$WRAPPER"
