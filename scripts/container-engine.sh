#!/usr/bin/env bash
# A real container engine and the Dockerfile's base image on a machine that has neither: no
# container registry is reachable and the `docker` on PATH is only a client.
#
#   export DOCKER_HOST="$(bash scripts/container-engine.sh start)"
#   bash scripts/container-engine.sh stop
#
# start   installs Debian's docker.io (and debootstrap) when missing, starts `dockerd` in the
#         background on a private socket and data root, imports the base image under the exact
#         name the Dockerfile's FROM line uses, and prints the DOCKER_HOST to use (stdout, one
#         line; everything else goes to stderr). Idempotent: a running engine and a present
#         base image are reused.
# stop    stops the engine this script started, by the PID it recorded.
# status  prints the DOCKER_HOST when the engine answers; exit 1 otherwise.
# base    imports the base image only (the engine must be running).
#
# The base image is a stand-in for the registry's debian:SUITE-slim (SUITE from the Dockerfile's
# FROM line: trixie, or bookworm for older checkouts): `debootstrap --variant=minbase SUITE` from
# the mirror apt already uses, slimmed the way the official
# slim images are, with the host's locally added CA certificates copied in (HTTPS from inside a
# build is re-signed by a local CA on these machines, and pip must trust it). The rootfs tarball
# is cached under SWIFTPM_GUARD_CACHE so later runs import it in seconds.
#
# The engine gets no bridge network and leaves the host's iptables alone (other engineers share
# this machine): builds and containers use the host network, which is also how the tests reach
# servers on loopback. If dockerd does not come up, Debian's podman serves the Docker API instead
# (runtime runc; crun fails on this host's hybrid cgroups).
#
# Environment: SWIFTPM_GUARD_ENGINE=auto|docker|podman (default auto: docker, then podman),
# SWIFTPM_GUARD_ENGINE_DIR (data root, default /var/lib/swiftpm-guard/engine),
# SWIFTPM_GUARD_ENGINE_RUN (socket, PIDs, logs; default /run/swiftpm-guard-engine),
# SWIFTPM_GUARD_CACHE (rootfs tarballs, default /var/cache/swiftpm-guard),
# SWIFTPM_GUARD_DEBIAN_MIRROR / SWIFTPM_GUARD_DEBIAN_SECURITY (the archives to debootstrap from;
# default: the first .../debian and .../debian-security URIs in apt's own sources).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
ENGINE=${SWIFTPM_GUARD_ENGINE:-auto}
DATA=${SWIFTPM_GUARD_ENGINE_DIR:-/var/lib/swiftpm-guard/engine}
RUN=${SWIFTPM_GUARD_ENGINE_RUN:-/run/swiftpm-guard-engine}
CACHE=${SWIFTPM_GUARD_CACHE:-/var/cache/swiftpm-guard}
SOCK=$RUN/engine.sock
HOST=unix://$SOCK
PIDFILE=$RUN/engine.pid
KINDFILE=$RUN/engine.kind
LOG=$RUN/engine.log
LOCAL_CA=/usr/local/share/ca-certificates

log() { printf 'container-engine: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- packages ------------------------------------------------------------------------------

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# apt-get install without letting maintainer scripts start services: a system dockerd would
# take /var/run/docker.sock, the docker0 bridge and the host's iptables.
install_packages() {
  local missing=() pkg
  for pkg in "$@"; do installed "$pkg" || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} from Debian"
  local policy=/usr/sbin/policy-rc.d own_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && own_policy=1
  fi
  local status=0
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends "${missing[@]}"; } > "$RUN/apt.log" 2>&1 || status=$?
  [ -n "$own_policy" ] && rm -f "$policy"
  if [ "$status" -ne 0 ]; then
    tail -n 20 "$RUN/apt.log" >&2
    die "apt-get install ${missing[*]} failed (log: $RUN/apt.log)"
  fi
}

# --- the engine ----------------------------------------------------------------------------

answers() { docker -H "$HOST" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

recorded_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  # Only a process that is still the engine we started counts (PIDs get reused).
  case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
    dockerd|podman) echo "$pid" ;;
    *) return 1 ;;
  esac
}

wait_until_answers() {
  local pid=$1
  for _ in $(seq 1 120); do
    answers && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}

start_dockerd() {
  install_packages docker.io
  mkdir -p "$DATA/docker"
  # An empty config file, so a system /etc/docker/daemon.json cannot change this engine.
  printf '{}\n' > "$RUN/daemon.json"
  setsid dockerd --config-file "$RUN/daemon.json" --host "$HOST" \
    --data-root "$DATA/docker" --exec-root "$RUN/exec" --pidfile "$RUN/dockerd.pid" \
    --bridge=none --iptables=false --ip-forward=false --ip-masq=false --log-level=warn \
    < /dev/null >> "$LOG" 2>&1 9>&- &
  local pid=$!
  echo "$pid" > "$PIDFILE"
  echo docker > "$KINDFILE"
  if wait_until_answers "$pid"; then return 0; fi
  log "dockerd did not answer; last lines of $LOG:"
  tail -n 15 "$LOG" >&2
  stop_engine
  return 1
}

ulimit_value() { local v; v=$(ulimit -H "$1"); [ "$v" = unlimited ] && v=-1; echo "$v"; }

# The hard limit a running process has, from /proc (-1 for unlimited).
process_limit() {
  awk -v what="$2" '$0 ~ "^" what { v = $(NF - 1); print (v == "unlimited" ? -1 : v) }' \
    "/proc/$1/limits"
}

write_podman_conf() {
  # Rootful podman asks containers for more open files and processes than root may set here,
  # and crun fails on this host's hybrid cgroups: explicit limits, runc.
  cat > "$RUN/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$1:$1", "nproc=$2:$2"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
}

launch_podman() {
  CONTAINERS_CONF="$RUN/containers.conf" setsid podman --root "$DATA/podman" \
    --runroot "$RUN/podman" system service --time=0 "$HOST" < /dev/null >> "$LOG" 2>&1 9>&- &
  local pid=$!
  echo "$pid" > "$PIDFILE"
  echo podman > "$KINDFILE"
  if wait_until_answers "$pid"; then return 0; fi
  log "podman system service did not answer; last lines of $LOG:"
  tail -n 15 "$LOG" >&2
  stop_engine
  return 1
}

start_podman() {
  install_packages podman runc
  mkdir -p "$DATA/podman"
  local nofile nproc pid have_nofile have_nproc
  nofile=$(ulimit_value -n)
  nproc=$(ulimit_value -u)
  write_podman_conf "$nofile" "$nproc"
  launch_podman || return 1
  # podman changes its own limits at start (here nproc to 32768), and a container may not
  # exceed the process that starts it: when they differ, restart once with podman's own.
  pid=$(cat "$PIDFILE")
  have_nofile=$(process_limit "$pid" "Max open files")
  have_nproc=$(process_limit "$pid" "Max processes")
  if [ "$have_nofile" != "$nofile" ] || [ "$have_nproc" != "$nproc" ]; then
    log "podman runs with nofile=$have_nofile nproc=$have_nproc; containers get the same"
    stop_engine
    write_podman_conf "$have_nofile" "$have_nproc"
    launch_podman || return 1
  fi
}

start_engine() {
  if recorded_pid > /dev/null && answers; then
    log "engine already running ($(cat "$KINDFILE"), pid $(recorded_pid))"
    return 0
  fi
  stop_engine  # a stale PID file or a half-started engine
  rm -f "$SOCK"
  case "$ENGINE" in
    docker) start_dockerd || die "dockerd failed" ;;
    podman) start_podman || die "podman failed" ;;
    auto) start_dockerd || { log "falling back to podman"; start_podman; } \
            || die "neither dockerd nor podman started" ;;
    *) die "SWIFTPM_GUARD_ENGINE must be auto, docker or podman, not '$ENGINE'" ;;
  esac
  log "engine running ($(cat "$KINDFILE"), pid $(cat "$PIDFILE")), log $LOG"
}

kill_by_pid() {
  local pid=$1 what=$2
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || { log "stopped $what (pid $pid)"; return 0; }
    sleep 0.5
  done
  log "$what (pid $pid) ignored SIGTERM for 30 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

stop_engine() {
  local pid kind
  kind=$(cat "$KINDFILE" 2>/dev/null || true)
  if pid=$(recorded_pid); then kill_by_pid "$pid" "$kind"; fi
  # What the engines leave mounted after they exit: dockerd its network namespace,
  # containers/storage (podman) its overlay folder.
  local mount
  for mount in "$RUN/exec/netns/default" "$DATA/podman/overlay"; do
    if mountpoint -q "$mount" 2>/dev/null; then umount "$mount" || true; fi
  done
  # dockerd stops the containerd it started; should it have died first, stop that one too.
  local cpid
  cpid=$(cat "$RUN/exec/containerd/containerd.pid" 2>/dev/null || true)
  if [[ "$cpid" =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$cpid/comm" 2>/dev/null)" = containerd ]; then
    kill_by_pid "$cpid" containerd
  fi
  rm -f "$PIDFILE" "$KINDFILE"
}

# --- the base image ------------------------------------------------------------------------

from_image() {
  local name
  name=$(awk 'toupper($1) == "FROM" { print $2; exit }' "$REPO/Dockerfile" 2>/dev/null || true)
  echo "${name:-debian:trixie-slim}"
}

# The Debian archives apt already uses here: debian_archive (shared with swift-toolchain.sh).
# shellcheck source=apt-sources.sh
source "$HERE/apt-sources.sh"

# What the official slim images leave out of every package, in our own words: documentation
# (copyright files stay), man and info pages, translations.
write_slim_config() {
  local root=$1
  mkdir -p "$root/etc/dpkg/dpkg.cfg.d" "$root/etc/apt/apt.conf.d"
  cat > "$root/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
# Keep images small: no docs, manuals or translations (licences stay).
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
  cat > "$root/etc/apt/apt.conf.d/slim" <<'EOF'
// No package cache or translated indexes in image layers.
Acquire::Languages "none";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };
EOF
}

slim_rootfs() {
  # ${root:?}: an empty root must never turn these into paths on the host.
  local root=${1:?} mirror=$2 security=$3 suite=$4
  write_slim_config "$root"
  # Apply the same exclusions to what debootstrap already unpacked.
  find "${root:?}/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
  find "${root:?}/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "${root:?}"/usr/share/{man,groff,info,lintian,linda,locale}/*
  rm -rf "${root:?}"/var/cache/apt/archives/*.deb "${root:?}"/var/cache/apt/*.bin \
    "${root:?}"/var/lib/apt/lists/* "${root:?}"/var/log/*.log "${root:?}"/dev/*
  rm -f "$root/etc/apt/sources.list"
  {
    printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\n' "$mirror" "$suite" "$suite"
    printf 'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
    if [ -n "$security" ]; then
      printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\n' "$security" "$suite"
      printf 'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
    fi
  } > "$root/etc/apt/sources.list.d/debian.sources"
  if compgen -G "$LOCAL_CA/*.crt" > /dev/null; then
    mkdir -p "$root$LOCAL_CA"
    cp "$LOCAL_CA"/*.crt "$root$LOCAL_CA/"
    log "copied $(compgen -G "$LOCAL_CA/*.crt" | wc -l) local CA certificate(s) into the rootfs"
  fi
}

build_rootfs() {
  local tarball=$1 suite=$2 mirror security work
  install_packages debootstrap
  mirror=${SWIFTPM_GUARD_DEBIAN_MIRROR:-$(debian_archive debian || true)}
  [ -n "$mirror" ] || die "no Debian archive in apt's sources; set SWIFTPM_GUARD_DEBIAN_MIRROR"
  # The security archive is optional: without one the rootfs simply has no security source.
  security=${SWIFTPM_GUARD_DEBIAN_SECURITY:-$(debian_archive debian-security || true)}
  mkdir -p "$CACHE"
  work=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  log "debootstrap --variant=minbase $suite from $mirror (about a minute)"
  if ! debootstrap --variant=minbase "$suite" "$work/root" "$mirror" \
      > "$work/debootstrap.log" 2>&1; then
    tail -n 20 "$work/debootstrap.log" >&2
    rm -rf "$work"
    die "debootstrap failed"
  fi
  slim_rootfs "$work/root" "$mirror" "$security" "$suite"
  tar --numeric-owner -C "$work/root" -cf "$work/rootfs.tar" .
  # Drop tarballs made for other CA sets, then publish this one atomically.
  rm -f "$CACHE/debian-$suite-minbase-"*.tar
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  log "cached $tarball ($(du -h "$tarball" | cut -f1))"
}

import_base() {
  local name suite tarball ca_id
  name=$(from_image)
  case "$name" in
    debian:bookworm|debian:bookworm-slim|debian:trixie|debian:trixie-slim) ;;
    *) die "the Dockerfile's FROM is '$name'; this script stands in for debian:trixie(-slim) or debian:bookworm(-slim) only" ;;
  esac
  suite=${name#debian:}
  suite=${suite%-slim}
  if docker -H "$HOST" image inspect "$name" > /dev/null 2>&1; then
    log "base image $name present"
    return 0
  fi
  # The tarball holds the local CA certificates, so they are part of its name.
  ca_id=$(cat "$LOCAL_CA"/*.crt 2>/dev/null | sha256sum | cut -c1-12)
  tarball=$CACHE/debian-$suite-minbase-$ca_id.tar
  if [ -s "$tarball" ]; then log "reusing $tarball"; else build_rootfs "$tarball" "$suite"; fi
  log "importing it as $name"
  docker -H "$HOST" import --change 'CMD ["bash"]' "$tarball" "$name" > /dev/null
}

# --- main ----------------------------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || die "must run as root (dockerd, debootstrap)"
mkdir -p "$RUN"
exec 9> "$RUN/lock"
flock 9

case "${1:-start}" in
  start)
    start_engine
    import_base
    log "engine and base image ready after ${SECONDS}s"
    echo "$HOST"
    ;;
  stop) stop_engine ;;
  status) recorded_pid > /dev/null && answers && echo "$HOST" ;;
  base) answers || die "no engine answers at $HOST; run '$0 start'"; import_base ;;
  *) die "usage: $0 [start|stop|status|base]" ;;
esac
