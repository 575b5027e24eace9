#!/usr/bin/env bash
# Release the action. docs/releasing.md is the maintainer's walk-through; these are the modes.
#
#   scripts/release.sh X.Y.Z
#       Source tag only: creates the annotated tag vX.Y.Z on HEAD (with action.yml still
#       `image: Dockerfile`). Pushing it starts .github/workflows/release.yml, which builds
#       and pushes the image, then runs this script again with --from-tag and --digest. The
#       major tag vX is left alone here: the workflow moves it once the image is pinned, so
#       `@vX` never names a commit whose image does not exist yet.
#
#   scripts/release.sh X.Y.Z --check
#       Only the checks below, and that vX.Y.Z, if it exists, names HEAD and is a source tag
#       (the workflow's first job).
#
#   scripts/release.sh X.Y.Z --registry REGISTRY --owner OWNER [--platforms P1,P2] [--digest D]
#                            [--from-tag | --push-only]
#       The whole release, as the workflow does it: build the Dockerfile's `release` target
#       (the runtime image, pruned and flattened into one layer) for --platforms (default
#       linux/amd64,linux/arm64; `docker buildx` when present, else `docker build` for the
#       engine's own platform only), push it as REGISTRY/OWNER/swiftpm-guard:X.Y.Z, read its
#       digest back, then make the *release commit*: HEAD with action.yml's `image: Dockerfile`
#       replaced by `docker://REGISTRY/OWNER/swiftpm-guard:X.Y.Z@sha256:…`, and tag it vX.Y.Z
#       (main keeps building the Dockerfile); the major tag vX moves to it too (users pin
#       `@v1`). --digest D skips building and pushing (the workflow's build-push-action
#       already did). --from-tag: vX.Y.Z exists already and names HEAD, the source tag; it is
#       moved to the release commit, once (a vX.Y.Z whose action.yml is pinned already is
#       refused). --push-only: build and push, print `pushed: REFERENCE@DIGEST`, touch no tag
#       (the dry run's stand-in for the workflow's build-push-action).
#
#   scripts/release.sh --dry-run X.Y.Z [--owner O] [--registry 127.0.0.1:PORT] [--index URL]
#                      [--workdir DIR] [--python PY] [--platforms P]
#       Every step of the release on this machine, printed as it runs, nothing off loopback:
#       scripts/release_dry_run.py (its docstring says what it does).
#
# Every mode but the dry run needs the version in src/swiftpm_guard/__init__.py and the
# newest CHANGELOG.md section (`## [X.Y.Z] - YYYY-MM-DD`, dated; scripts/changelog.py) to say
# X.Y.Z, and a clean tree. Nothing is pushed to git: the push command is printed.
set -euo pipefail
usage="usage: scripts/release.sh X.Y.Z [--check | --registry R --owner O [--platforms P] [--digest D] [--from-tag | --push-only]] | --dry-run X.Y.Z [options]"
for arg in "$@"; do
  if [ "$arg" = --dry-run ]; then
    rest=()
    for arg in "$@"; do [ "$arg" = --dry-run ] || rest+=("$arg"); done
    exec python3 "$(dirname "$0")/release_dry_run.py" "${rest[@]}"
  fi
done
version=${1:?$usage}
shift
registry="" owner="" platforms="linux/amd64,linux/arm64" digest="" from_tag="" push_only=""
check_only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --registry) registry=${2:?$usage}; shift 2 ;;
    --owner) owner=${2:?$usage}; shift 2 ;;
    --platforms) platforms=${2:?$usage}; shift 2 ;;
    --digest) digest=${2:?$usage}; shift 2 ;;
    --from-tag) from_tag=1; shift ;;
    --push-only) push_only=1; shift ;;
    --check) check_only=1; shift ;;
    *) echo "release: unknown option '$1'; $usage" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "release: '$version' is not X.Y.Z" >&2; exit 2
fi
if [ -n "$check_only" ] && [ -n "$registry$owner$digest$from_tag$push_only" ]; then
  echo "release: --check takes no other option" >&2; exit 2
fi
if [ -n "$registry$owner$digest$from_tag$push_only" ] && { [ -z "$registry" ] || [ -z "$owner" ]; }; then
  echo "release: --registry and --owner go together; $usage" >&2; exit 2
fi
if [ -n "$push_only" ] && [ -n "$digest$from_tag" ]; then
  echo "release: --push-only builds and pushes; it takes neither --digest nor --from-tag" >&2
  exit 2
fi
# Registry host[:port] and owner: what an image reference allows, nothing a shell could read.
if [ -n "$registry" ] && ! [[ $registry =~ ^[a-z0-9][a-z0-9.-]*(:[0-9]+)?$ ]]; then
  echo "release: '$registry' is not a registry host[:port]" >&2; exit 2
fi
owner=$(printf '%s' "$owner" | tr '[:upper:]' '[:lower:]') # GHCR names are lower case
if [ -n "$owner" ] && ! [[ $owner =~ ^[a-z0-9][a-z0-9_.-]*$ ]]; then
  echo "release: '$owner' is not a registry owner name" >&2; exit 2
fi
if [ -n "$digest" ] && ! [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]]; then
  echo "release: '$digest' is not sha256:<64 hex>" >&2; exit 2
fi
if ! [[ $platforms =~ ^linux/[a-z0-9]+(/v[0-9])?(,linux/[a-z0-9]+(/v[0-9])?)*$ ]]; then
  echo "release: '$platforms' is not a list of linux/<arch>" >&2; exit 2
fi

code=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' src/swiftpm_guard/__init__.py)
if [ "$code" != "$version" ]; then
  echo "release: src/swiftpm_guard/__init__.py says '$code', asked for '$version'" >&2; exit 1
fi
# The newest section is X.Y.Z, dated, with entries: what the GitHub release's notes will be.
python3 scripts/changelog.py notes CHANGELOG.md "$version" > /dev/null || exit 1
if [ -n "$(git status --porcelain)" ]; then
  echo "release: the work tree is not clean" >&2; exit 1
fi
# runs.image of the action.yml on stdin: Dockerfile on a source commit.
source_image() {
  python3 -c 'import sys; sys.path.insert(0, "scripts"); from pin_action import image_of; print(image_of(sys.stdin.read()))'
}
tag=v$version
major=v${version%%.*}
tagged=$(git rev-parse -q --verify "refs/tags/$tag^{commit}" || true)
if [ -n "$from_tag$check_only" ] && [ -n "$tagged$from_tag" ]; then
  if [ "$tagged" != "$(git rev-parse HEAD)" ]; then
    echo "release: $tag must name HEAD ($(git rev-parse --short HEAD))${tagged:+, it names ${tagged:0:7}}" >&2
    exit 1
  fi
  if [ "$(git show "$tag:action.yml" | source_image)" != Dockerfile ]; then
    echo "release: $tag is a release already; versions are never re-tagged" >&2; exit 1
  fi
elif [ -z "$push_only" ] && [ -n "$tagged" ]; then
  echo "release: $tag exists already; versions are never re-tagged" >&2; exit 1
fi
if [ "$(source_image < action.yml)" != Dockerfile ]; then
  echo "release: action.yml's runs.image is not Dockerfile: HEAD is a release commit" >&2; exit 1
fi
if [ -n "$check_only" ]; then
  echo "release: $version is ready to release from $(git rev-parse --short HEAD)${tagged:+ ($tag)}"
  exit 0
fi

if [ -z "$registry" ]; then
  git tag -a "$tag" -m "swiftpm-guard $version"
  echo "tagged $tag on $(git rev-parse --short HEAD) (the release workflow moves $major)"
  echo "push with: git push origin $tag"
  exit 0
fi

image=$registry/$owner/swiftpm-guard
if [ -z "$digest" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  if docker buildx version >/dev/null 2>&1; then
    docker buildx build --target release --platform "$platforms" --tag "$image:$version" --push \
      --metadata-file "$scratch/metadata.json" . >&2
    digest=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["containerimage.digest"])' \
      "$scratch/metadata.json")
  else
    native=$(docker version --format '{{.Server.Os}}/{{.Server.Arch}}')
    if [ "$platforms" != "$native" ]; then
      echo "release: without docker buildx only the engine's own platform can be built;" \
        "pass --platforms $native" >&2
      exit 1
    fi
    docker build --network host --target release --tag "$image:$version" . >&2
    docker push "$image:$version" >&2
    digest=$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' \
      "$image:$version" | sed -n "s|^$image@||p" | head -n 1)
  fi
  if ! [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]]; then
    echo "release: could not read the pushed image's digest (got '$digest')" >&2; exit 1
  fi
fi
reference=$image:$version@$digest
if [ -n "$push_only" ]; then
  echo "pushed: $reference"
  exit 0
fi

# The release commit: HEAD's tree with only action.yml changed, made with a private index so
# neither the work tree nor any branch moves.
index=$(mktemp)
trap 'rm -f "$index"; [ -z "${scratch:-}" ] || rm -rf "$scratch"' EXIT
pinned=$(python3 scripts/pin_action.py pin action.yml "$reference" | git hash-object -w --stdin)
GIT_INDEX_FILE=$index git read-tree HEAD
GIT_INDEX_FILE=$index git update-index --cacheinfo "100644,$pinned,action.yml"
tree=$(GIT_INDEX_FILE=$index git write-tree)
commit=$(git commit-tree "$tree" -p HEAD -m "swiftpm-guard $version: run the prebuilt image" \
  -m "image: docker://$reference")
git tag -f -a "$tag" -m "swiftpm-guard $version" -m "image: docker://$reference" "$commit" >/dev/null
git tag -f -a "$major" -m "swiftpm-guard $major -> $version" "$commit" >/dev/null
echo "image: docker://$reference"
echo "tagged $tag and moved $major to the release commit $(git rev-parse --short "$commit")"
echo "push with: git push --force origin $tag $major"
