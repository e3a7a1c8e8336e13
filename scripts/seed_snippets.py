#!/usr/bin/env python3
"""Extracts the Swift code blocks of the ML Kit guides in ../shared/seeds (never committed).

A block is the text between a line that names Swift ("Swift", or its translations in the
localised guides: "Rápido", "빠른") and the next line naming Objective-C. Podfile blocks (which the
guides also label Swift) are skipped. Prints JSON: [{"seed", "index", "line", "code"}].
"""
import json
import pathlib
import sys

SWIFT_LABELS = {"Swift", "Rápido", "빠른"}
OBJC_LABELS = {"Objective-C", "C objetivo", "오브젝티브-C"}


def snippets(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    found, current, start = [], None, 0
    for number, line in enumerate(lines, 1):
        label = line.strip()
        if label in SWIFT_LABELS:
            current, start = [], number + 1
        elif label in OBJC_LABELS or (current is not None and label in SWIFT_LABELS):
            if current is not None:
                found.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    result = []
    for start, block in found:
        code = "\n".join(block).strip("\n")
        text = code.strip()
        if not text or text.startswith("pod "):
            continue
        result.append({"seed": path.name, "index": len(result), "line": start, "code": code})
    return result


def main():
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/seeds")
    everything = []
    for path in sorted(folder.glob("*.txt")):
        everything.extend(snippets(path))
    json.dump(everything, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
