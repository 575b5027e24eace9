#!/usr/bin/env bash
# Install Mermaid's own parser once per machine, for the test that parses the audit's timeline,
# and print the folder it is in.
#
#   scripts/mermaid-parser.sh          install (or reuse) it; print the folder
#   scripts/mermaid-parser.sh --check  print the folder and exit 0 if a completed install is
#                                      there, else exit 1
#
# What: the `mermaid` package (its `mermaid.parse`, the parser GitHub's renderer runs) and
# `jsdom` (mermaid's modules want a DOM even to parse), pinned, installed with npm from the
# npm registry into $MERMAID_PARSER_DIR (default below), outside the clone, with install
# scripts off. Node.js and npm come from Debian's packages when missing (needs root then).
# A stamp file marks a completed install of this recipe, so later runs return at once.
# The tests run `node tests/support/mermaid_parse.mjs FOLDER` offline: they find the folder
# through SWIFTPM_GUARD_MERMAID, else `--check`, else skip saying how to enable them.
set -euo pipefail

readonly PACKAGES=(mermaid@11.12.3 jsdom@26.1.0)
#: Bump whenever PACKAGES change: a stamp of another recipe means install again.
readonly RECIPE=1
DIR="${MERMAID_PARSER_DIR:-/var/cache/swiftpm-guard/mermaid}"
STAMP="$DIR/.complete"

log() { printf 'mermaid-parser: %s\n' "$*" >&2; }

complete() {
  [[ -f "$STAMP" && "$(cat "$STAMP" 2>/dev/null)" == "recipe=$RECIPE" ]] \
    && [[ -f "$DIR/node_modules/mermaid/package.json" && -f "$DIR/node_modules/jsdom/package.json" ]]
}

if [[ "${1:-}" == "--check" ]]; then
  complete || exit 1
  printf '%s\n' "$DIR"
  exit 0
fi
[[ $# -eq 0 ]] || { log "usage: $0 [--check]"; exit 2; }
if complete; then
  printf '%s\n' "$DIR"
  exit 0
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  log "installing Node.js and npm from Debian's packages"
  apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm >&2
fi
mkdir -p "$DIR"
rm -f "$STAMP"
printf '{"private": true, "description": "swiftpm-guard test tooling: Mermaid parser"}\n' \
  > "$DIR/package.json"
log "installing ${PACKAGES[*]} into $DIR"
timeout 900 npm install --prefix "$DIR" --no-audit --no-fund --ignore-scripts --loglevel=error \
  "${PACKAGES[@]}" >&2
printf 'recipe=%s\n' "$RECIPE" > "$STAMP"
printf '%s\n' "$DIR"
