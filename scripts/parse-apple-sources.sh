#!/usr/bin/env bash
# Syntax check of the Swift code that only Apple platforms compile.
#
# No Apple SDK exists on the machines this package is built on, so the code behind
# `#if canImport(UIKit)` (ImageIO, CoreGraphics, CoreVideo, CoreMedia, AVFoundation, Network, Darwin)
# is never type-checked here. `swiftc -parse` checks that every such file is valid Swift *syntax*,
# inactive branches included: it does NOT check names, types or availability against Apple's SDKs.
# The portable code those files call is built and tested on Linux by `swift test`.
#
# It also checks that every file marked "Apple platforms only" keeps all of its code inside one
# `#if canImport(...)` region, so that it compiles to nothing elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

frameworks='UIKit|ImageIO|CoreGraphics|CoreVideo|CoreMedia|AVFoundation|Network|Darwin'
mapfile -t files < <(grep -rlE "^[[:space:]]*#if .*canImport\(($frameworks)\)" Sources Tests/DocSnippetsTests --include='*.swift' | sort)
if [ "${#files[@]}" -eq 0 ]; then
    echo "parse-apple-sources: no Apple-conditional Swift files found" >&2
    exit 1
fi

swiftc -parse "${files[@]}"

status=0
for file in $(grep -rl "Apple platforms only: this file compiles to nothing elsewhere" Sources --include='*.swift' | sort); do
    # Outside #if canImport(...) ... #endif regions only comments and blank lines may appear.
    if ! awk '
        /^#if .*canImport\(/ { depth++; next }
        /^#if / && depth > 0 { depth++; next }
        /^#endif/ { depth--; next }
        depth == 0 && !/^[[:space:]]*(\/\/.*)?$/ { print FILENAME ":" FNR ": code outside #if canImport: " $0; bad = 1 }
        END { exit bad }
    ' "$file"; then
        status=1
    fi
done
[ "$status" -eq 0 ] || exit 1

echo "parse-apple-sources: ${#files[@]} files parse (syntax only; not type-checked against an Apple SDK):"
printf '  %s\n' "${files[@]}"
