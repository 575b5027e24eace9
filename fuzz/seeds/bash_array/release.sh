# FRAMEWORKS=( decoy )
set -euo pipefail
FRAMEWORKS=(
  "executorch" 'backend_'coreml \
  threadpool  # comment ) here
)
cat <<EOF
FRAMEWORKS=( heredoc )
EOF
for f in "${FRAMEWORKS[@]}"; do ./build.sh "$f"; done
