#!/usr/bin/env bash
# Tag a release of the action: `scripts/release.sh 1.2.3` creates the annotated tag v1.2.3 on
# HEAD and moves the major tag v1 to it (as users pin `@v1`). Refuses unless the version in
# src/swiftpm_guard/__init__.py and the newest CHANGELOG entry both say 1.2.3 and the tree is
# clean. Prints the push command instead of pushing.
set -euo pipefail
version=${1:?usage: scripts/release.sh X.Y.Z}
cd "$(dirname "$0")/.."
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "release: '$version' is not X.Y.Z" >&2; exit 2
fi
code=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' src/swiftpm_guard/__init__.py)
log=$(sed -n 's/^## \[\([0-9][^]]*\)\].*/\1/p' CHANGELOG.md | head -n 1)
if [ "$code" != "$version" ] || [ "$log" != "$version" ]; then
  echo "release: __init__.py says '$code', CHANGELOG.md says '$log', asked for '$version'" >&2
  exit 1
fi
if [ -n "$(git status --porcelain)" ]; then
  echo "release: the work tree is not clean" >&2; exit 1
fi
if git rev-parse -q --verify "refs/tags/v$version" >/dev/null; then
  echo "release: v$version exists already; versions are never re-tagged" >&2; exit 1
fi
major=v${version%%.*}
git tag -a "v$version" -m "swiftpm-guard $version"
git tag -f -a "$major" -m "swiftpm-guard $major -> $version" >/dev/null
echo "tagged v$version and moved $major to $(git rev-parse --short HEAD)"
echo "push with: git push origin v$version && git push --force origin $major"
