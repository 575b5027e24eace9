#!/usr/bin/env bash
# Make a real Swift toolchain on a Debian machine that has none, and print the `swift` to use.
#
#   scripts/swift-toolchain.sh            build (or reuse) the toolchain; print the wrapper path
#   scripts/swift-toolchain.sh --resolver build (or reuse) it; print the networked wrapper's path
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
# `$SWIFT_TOOLCHAIN_DIR/bin/swift-net` is the same with the host's network (for `swift package
# resolve`, which downloads binary targets; `unzip` in the chroot validates the archives). With
# SWIFTPM_GUARD_CA_FILE=PEM it also trusts that CA: the chroot's bundle plus the PEM, written
# to the run's private folder and bind-mounted over /etc/ssl/certs/ca-certificates.crt in the
# run's own mount namespace, so the chroot itself and every other run are untouched. With
# SWIFTPM_GUARD_LIST_ARTIFACTS=NONCE it prints what SwiftPM extracted under .build/artifacts. A
# separate file, so `bin/swift` (the evaluation path) never gets a network whatever the env.
#
# Environment: SWIFT_TOOLCHAIN_DIR (cache folder), SWIFT_TOOLCHAIN_MIRROR (Debian mirror URL;
# default: the first .../debian URI in apt's own sources). Needs root (debootstrap, chroot).
set -euo pipefail
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"  # debootstrap, chroot, unshare live in sbin

readonly SUITE=trixie
# git: SwiftPM clones a package dependency by URL with it (publish's consumer proof).
readonly PACKAGES=(swiftlang libc6-dev unzip git)
#: Bump whenever PACKAGES or the build steps change: a stamp of another recipe means rebuild.
readonly RECIPE=3
DIR="${SWIFT_TOOLCHAIN_DIR:-/var/cache/swiftpm-guard/swift-trixie}"
ROOT="$DIR/root"
STAMP="$DIR/.complete"
WRAPPER="$DIR/bin/swift"
NET_WRAPPER="$DIR/bin/swift-net"

log() { printf 'swift-toolchain: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

complete() {
  [[ -f "$STAMP" && -x "$WRAPPER" && -x "$NET_WRAPPER" ]] \
    && [[ "$(cat "$STAMP" 2>/dev/null)" == "recipe=$RECIPE" ]]
}

if [[ "${1:-}" == "--check" ]]; then
  complete
  exit
fi
PRINTED="$WRAPPER"
if [[ "${1:-}" == "--resolver" ]]; then
  PRINTED="$NET_WRAPPER"
  shift
fi
[[ $# -eq 0 ]] || die "usage: $0 [--check | --resolver]"
BUILDING="$ROOT"

# The Debian archive apt already uses here (scripts/apt-sources.sh, shared with
# container-engine.sh): a plain Debian archive, not -security, not a third-party repository.
# shellcheck source=apt-sources.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt-sources.sh"

# Run a command inside the chroot being built: private mount and PID namespaces, /proc mounted
# there only.
in_chroot() {
  unshare --mount --propagation private --pid --fork --mount-proc="$BUILDING/proc" \
    chroot "$BUILDING" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# Local CAs (a re-signing proxy's) so apt inside trusts what apt outside trusts.
copy_certificates() {
  local target="$BUILDING/usr/local/share/ca-certificates"
  if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
    mkdir -p "$target"
    cp -R /usr/local/share/ca-certificates/. "$target/"
  fi
  if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
    mkdir -p "$BUILDING/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$BUILDING/etc/ssl/certs/ca-certificates.crt"
  fi
}

# $1: the toolchain's `swift --version` line, recorded in the wrapper so that a different
# toolchain means a different wrapper file (swiftpm-guard's result cache keys on the file).
# bin/swift keeps exactly this text: other checkouts' scripts write the same file.
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
  install_wrapper "$WRAPPER"
}

# $1: the wrapper just written to "$1.tmp".
install_wrapper() {
  chmod 0755 "$1.tmp"
  # Unchanged wrappers keep their mtime: swiftpm-guard's result cache keys on it.
  if cmp -s "$1.tmp" "$1"; then rm -f "$1.tmp"; else mv -f "$1.tmp" "$1"; fi
}

# The networked twin for `swift package resolve` (see the header); $1 as for write_wrapper.
write_net_wrapper() {
  mkdir -p "$DIR/bin"
  {
    printf '#!/usr/bin/env bash\n# toolchain: %s\n' "$1"
    cat <<'WRAPPER_EOF'
# swift inside the swiftpm-guard trixie chroot WITH the host's network, for `swift package
# resolve`: package folder copied in, nothing copied back. SWIFTPM_GUARD_CA_FILE=PEM: this run
# also trusts that CA (bind-mounted bundle in the run's own mount namespace).
# Written by scripts/swift-toolchain.sh.
set -euo pipefail
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"  # chroot, unshare and mount live in sbin
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
ca="${SWIFTPM_GUARD_CA_FILE:-}"
[[ -z "$ca" || -f "$ca" ]] || { echo "swift: SWIFTPM_GUARD_CA_FILE is not a file: $ca" >&2; exit 66; }
work="$(mktemp -d "$ROOT/tmp/swiftpm-guard.XXXXXXXX")"
trap 'rm -rf -- "$work"' EXIT
trap 'exit 143' TERM INT  # so the EXIT trap still removes the copy when we are stopped
inside="/tmp/${work##*/}"
mkdir "$work/package" "$work/home"
cp -RP -- "$package/." "$work/package/"
bundle=""
if [[ -n "$ca" ]]; then
  bundle="$work/ca-certificates.crt"
  cat -- "$ROOT/etc/ssl/certs/ca-certificates.crt" "$ca" >"$bundle"
fi
chmod -R a+rwX "$work"
userns=()
[[ "$(id -u)" -eq 0 ]] || userns=(--user --map-root-user)
passed=(PATH=/usr/bin:/bin HOME="$inside/home" LANG=C.UTF-8 TMPDIR="$inside")
while IFS='=' read -r name _; do
  [[ "$name" == SWIFT_* ]] && passed+=("$name=${!name}")
done < <(env)
# Inside the new mount namespace, before chroot: the bundle over the chroot's, for this run only.
# shellcheck disable=SC2016  # expanded by the inner bash
inner='[[ -z "$1" ]] || mount --bind -- "$1" "$2/etc/ssl/certs/ca-certificates.crt"
root="$2"; shift 2; exec chroot "$root" "$@"'
set +e
unshare "${userns[@]}" --mount --propagation private --pid --fork --kill-child \
  --mount-proc="$ROOT/proc" \
  /bin/bash -c "$inner" swift-net "$bundle" "$ROOT" \
  /usr/bin/env -i -C "$inside/package" "${passed[@]}" \
  swift "${args[@]}"
code=$?
# SWIFTPM_GUARD_LIST_ARTIFACTS=NONCE: what SwiftPM extracted, since nothing is copied back:
# identity/target/entry under .build/artifacts, NUL-separated between two marker lines that
# carry the caller's nonce (names in the listing are the zips' own, not ours).
nonce="${SWIFTPM_GUARD_LIST_ARTIFACTS:-}"
if [[ "$nonce" =~ ^[0-9a-f]{16,64}$ && -d "$work/package/.build/artifacts" ]]; then
  printf '\nswiftpm-guard-artifacts-begin-%s\n' "$nonce"
  find "$work/package/.build/artifacts" -mindepth 3 -maxdepth 3 -printf '%P\0'
  printf '\nswiftpm-guard-artifacts-end-%s\n' "$nonce"
fi
set -e
exit "$code"
WRAPPER_EOF
  } >"$NET_WRAPPER.tmp"
  install_wrapper "$NET_WRAPPER"
}

write_wrappers() {
  write_wrapper "$1"
  write_net_wrapper "$1"
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
  # The live root stays in place until the new one is complete: wrappers running from it
  # (other sessions' tests) keep working while this builds, and it is swapped in at the end.
  partial="$DIR/root.partial"
  BUILDING="$partial"
  rm -rf -- "$partial" "$DIR/root.old"
  mkdir -p "$DIR"
  log "debootstrap $SUITE from $mirror into $partial"
  local keyring=()
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] \
    && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
  debootstrap --variant=minbase "${keyring[@]}" "$SUITE" "$partial" "$mirror" \
    >"$DIR/debootstrap.log" 2>&1 || { tail -n 20 "$DIR/debootstrap.log" >&2; die "debootstrap failed (log: $DIR/debootstrap.log)"; }
  cp /etc/resolv.conf "$partial/etc/resolv.conf"
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
  in_chroot unzip -v >/dev/null 2>&1 || die "unzip does not run in the chroot"
  find "$partial/tmp" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
  [[ -d "$ROOT" ]] && mv "$ROOT" "$DIR/root.old"
  mv "$partial" "$ROOT"
  rm -rf -- "$DIR/root.old"
  write_wrappers "$version"
  local seconds=$(( $(date +%s) - started ))
  local size
  size=$(du -sh "$ROOT" | cut -f1)
  printf 'suite=%s\nmirror=%s\nswift=%s\nseconds=%s\nsize=%s\n' \
    "$SUITE" "$mirror" "$version" "$seconds" "$size" >"$DIR/build-info"
  printf 'recipe=%s\n' "$RECIPE" >"$STAMP"
  log "built in ${seconds}s, $size: $version"
}

mkdir -p "$DIR"
# One builder at a time: CI and a developer on the same machine may both ask for it.
exec 9>"$DIR.lock"
flock 9
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "recipe=$RECIPE" && -d "$ROOT" ]]; then
  write_wrappers "$(sed -n 's/^swift=//p' "$DIR/build-info")"  # in step with this script
  log "reusing $DIR ($(sed -n 's/^swift=//p' "$DIR/build-info" 2>/dev/null))"
else
  [[ -f "$STAMP" ]] && log "the cached chroot is of another recipe than $RECIPE; rebuilding"
  rm -f "$STAMP"
  build
fi
printf '%s\n' "$PRINTED"
