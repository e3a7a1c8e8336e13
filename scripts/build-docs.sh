#!/usr/bin/env bash
# Builds the DocC documentation of every library product and fails on any DocC warning
# (unresolved symbol links, broken article references, malformed markup).
#   scripts/build-docs.sh              # all four catalogs, archives under .build/plugins/Swift-DocC/outputs/
#   scripts/build-docs.sh OpenMLKit    # one
# It reuses the debug build that `swift build` / `swift test` made, so it is quick after them.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(TFLiteRuntime OpenMLKit OpenMLKitVision ModelHub TensorFlowLite)
args=()
for target in "${targets[@]}"; do args+=(--target "$target"); done

# --warnings-as-errors makes docc exit non-zero on any warning, and `set -e` stops the script then.
swift package --allow-writing-to-package-directory generate-documentation "${args[@]}" --warnings-as-errors
echo "build-docs: ${targets[*]}: no DocC warnings"
