#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 30) and summarise executions per second.
set -euo pipefail
python=${PYTHON:-python3}
seconds=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
status=0
for target in checksums template workflow bash_array zip_reader; do
  log=$(mktemp)
  if ! "$python" "$here/run.py" "$target" "$seconds" >"$log" 2>&1; then
    status=1
    echo "fuzz: $target found a crash:" >&2
    tail -30 "$log" >&2
  fi
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  speed=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  echo "fuzz: $target: $runs executions in ${seconds}s ($speed/s)"
  rm -f "$log"
done
exit $status
