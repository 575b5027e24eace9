#!/usr/bin/env bash
# The composite action's first step: install this ref of swiftpm-guard (the folder above this
# one, which the runner checked out at the ref the workflow names) into a virtualenv under
# RUNNER_TEMP, and output `python`, the interpreter the next step runs entrypoint.py with.
#
# The virtualenv is keyed by the action's path and the package version, so a second use of the
# action in the same job reuses it and two refs never share one. Python: $SWIFTPM_GUARD_PYTHON
# if set, else the first of python3, python that is >= 3.11 (setup-python's, or the runner
# image's). pip reads the runner's own configuration (PIP_INDEX_URL and friends) if any.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(dirname "$here")
: "${RUNNER_TEMP:?RUNNER_TEMP is not set: not on a runner}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: not on a runner}"

fits() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; }
python=${SWIFTPM_GUARD_PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3 python; do
    if command -v "$candidate" >/dev/null && fits "$candidate"; then python=$candidate; break; fi
  done
fi
if [ -z "$python" ] || ! fits "$python"; then
  echo "::error title=swiftpm-guard::needs Python >= 3.11 on the runner (actions/setup-python)"
  exit 2
fi

version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$source_dir/src/swiftpm_guard/__init__.py")
key=$("$python" -c 'import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:12])' \
  "$source_dir")
venv=$RUNNER_TEMP/swiftpm-guard-$version-$key
bin=$venv/bin
[ -d "$venv/Scripts" ] && bin=$venv/Scripts # Windows
if [ ! -f "$venv/.installed" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  [ -d "$venv/Scripts" ] && bin=$venv/Scripts
  # The action's own source, never a name from an index: what runs is exactly this ref. It is
  # built from a copy, so the build writes nothing into the action's folder (with
  # `uses: ./composite` that folder is the workspace under check).
  mkdir "$venv/source"
  cp -R "$source_dir/pyproject.toml" "$source_dir/README.md" "$source_dir/src" "$venv/source/"
  "$bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "$venv/source[github]"
  rm -rf "$venv/source"
  touch "$venv/.installed"
fi
interpreter=$bin/python
[ -f "$bin/python.exe" ] && interpreter=$bin/python.exe
echo "swiftpm-guard $version: $("$interpreter" -I -c 'import sys; print(sys.version.split()[0])') in $venv"
echo "python=$interpreter" >> "$GITHUB_OUTPUT"
