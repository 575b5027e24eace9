#!/usr/bin/env bash
# `make demo`: check and render the bundled release in examples/release/, then show what the
# guard catches when the template and the build disagree.
set -euo pipefail
guard=${1:-swiftpm-guard}
here=$(cd "$(dirname "$0")" && pwd)
out=$(pwd)/demo-out
rm -rf "$out" && mkdir -p "$out"
cd "$here/release"
# SwiftPM judges the manifest where `swift` is installed; without it, accept the static
# reading (a needs-swiftpm warning, the report says unproven) so the demo still runs.
static=()
command -v swift >/dev/null 2>&1 || static=(--accept-static)

echo "== check: zips, checksums.txt and the workflow's FRAMEWORKS array against the template"
"$guard" check --template swiftpm/Package.swift.template --version 1.0.0 \
  --artifacts artifacts --checksums checksums.txt \
  --frameworks-from workflow/apple.yml:build-frameworks:FRAMEWORKS \
  --json "$out/report.json" --markdown "$out/report.md" "${static[@]}"

echo "== render: writes Package.swift only because every check passed"
"$guard" render --template swiftpm/Package.swift.template --version 1.0.0 \
  --checksums checksums.txt --output "$out/Package.swift" "${static[@]}"
grep -n '"sha256": "' "$out/Package.swift" | head -3

echo "== a template that asks for a framework this build did not make (expect exit 1)"
sed 's/"kernels_llm": \[/"kernels_new": [\n    "sha256": "__SHA256_kernels_new__",\n  ],\n  "kernels_llm": [/' \
  swiftpm/Package.swift.template > "$out/Package.swift.template"
mkdir -p "$out/.Package.swift" && cp -r swiftpm/.Package.swift/. "$out/.Package.swift/"
mkdir -p "$out/.Package.swift/kernels_new" && echo '// stub' > "$out/.Package.swift/kernels_new/dummy.swift"
set +e
"$guard" render --template "$out/Package.swift.template" --version 1.0.0 \
  --checksums checksums.txt --output "$out/Blocked.swift" "${static[@]}"
status=$?
set -e
if [ "$status" -ne 1 ] || [ -e "$out/Blocked.swift" ]; then
  echo "demo: expected exit 1 and no manifest, got $status" >&2
  exit 1
fi
echo "== blocked as expected (exit $status, nothing written); reports in $out/"
