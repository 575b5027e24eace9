#!/usr/bin/env bash
# Create local branch BRANCH whose tree is FOLDER (template + stub folders), without touching
# the work tree or the index: what a project's `swiftpm` template branch looks like.
# Used by the project's CI to run the action from the checkout on the bundled example.
set -euo pipefail
branch=$1
folder=$2
index=$(mktemp)
trap 'rm -f "$index"' EXIT
export GIT_INDEX_FILE=$index
git read-tree --empty
git --work-tree="$folder" add --all --force .
tree=$(git write-tree)
commit=$(git -c user.name=fixture -c user.email=fixture@example.invalid \
  commit-tree "$tree" -m "fixture template branch")
git update-ref "refs/heads/$branch" "$commit"
echo "$branch -> $commit"
