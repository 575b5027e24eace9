#!/usr/bin/env bash
# Print the package index pip is configured to use on this machine, or nothing when pip is left
# on its built-in default, so `make lock` resolves where pip itself would and this repository
# names no index host.
#
#   scripts/pip-index.sh [PYTHON]     (default python3; its pip's configuration is read)
#
# Order, as pip applies it: PIP_INDEX_URL, then `index-url` from pip's configuration files
# (`pip config list`: the `install` section before `global`). Extra indexes and find-links
# folders are deliberately not reported: `make lock` must hash what the index serves, not
# local wheels.
set -euo pipefail
python=${1:-python3}
if [[ -n "${PIP_INDEX_URL:-}" ]]; then
  printf '%s\n' "$PIP_INDEX_URL"
  exit 0
fi
listed=$(env -u PIP_INDEX_URL "$python" -m pip config list 2>/dev/null) || listed=""
for section in install global; do
  value=$(sed -n "s/^${section}\.index-url='\(.*\)'\$/\1/p" <<<"$listed" | head -n 1)
  if [[ -n "$value" ]]; then
    printf '%s\n' "$value"
    exit 0
  fi
done
