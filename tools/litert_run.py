#!/usr/bin/env python3
"""Runs a .tflite model in Google's LiteRT and writes its outputs as .npy files.

This is the reference side of `mlkit run`, with the same contract:

    python3 tools/litert_run.py MODEL --input a.npy [--input b.npy ...] --output-dir DIR

One .npy per model input, in input order, each with the input's dtype (an input whose shape
differs from the model's is resized). Writes DIR/output_0.npy, DIR/output_1.npy, ... in output
order (NumPy format 1.0, little-endian). LiteRT runs with its builtin kernels, no default
delegates (no XNNPACK) and one thread; see tools/litert_common.py.

Exits non-zero with one line on stderr on error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litert_common import make_interpreter, run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Run a .tflite model in LiteRT (reference kernels, 1 thread) and save its outputs.",
    )
    parser.add_argument("model", type=Path, help="path to the .tflite model")
    parser.add_argument(
        "--input", action="append", default=[], type=Path, metavar="FILE",
        help="one .npy per model input, in input order (repeat the option)",
    )
    parser.add_argument(
        "--output-dir", required=True, type=Path, metavar="DIR",
        help="directory for output_0.npy, output_1.npy, ... (created if missing)",
    )
    args = parser.parse_args(argv)

    try:
        inputs = [np.load(path, allow_pickle=False) for path in args.input]
        outputs = run(make_interpreter(args.model), inputs)
        args.output_dir.mkdir(parents=True, exist_ok=True)
        for i, array in enumerate(outputs):
            # astype('<...') keeps the files little-endian whatever the host is.
            little = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("<"), copy=False))
            np.save(args.output_dir / f"output_{i}.npy", little)
    except Exception as error:  # one line, like the Swift CLI
        message = " ".join(str(error).split()) or type(error).__name__
        print(f"error: {message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
