#!/usr/bin/env python3
"""Runs the AutoML Video traffic model over consecutive frames, feeding its LSTM state forward, in
LiteRT and in `mlkit run`, and checks that every output of every frame is identical.

The model (`traffic_model.tflite`) takes a 256x256 uint8 frame and two uint8 LSTM state tensors
(c, h) and returns boxes, classes, scores, count and the next c, h. Each runtime chains its own
states from frame to frame, starting from zeros, so a difference anywhere would propagate.

    tools/parity_traffic.py --mlkit .build/release/mlkit [--model ../shared/models/traffic_model.tflite]
        [--frames ../shared/images/traffic_frames]

Exit status 0 when all outputs of all frames are byte-for-byte equal, 1 otherwise.
Needs ai-edge-litert, numpy and pillow (tools/requirements-ci.txt).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litert_common import make_interpreter, run  # noqa: E402

OUTPUT_NAMES = ["boxes", "classes", "scores", "count", "lstm_c", "lstm_h"]


def mlkit_run(mlkit: Path, model: Path, inputs: list[np.ndarray], scratch: Path) -> list[np.ndarray]:
    """One inference through `mlkit run`; returns the outputs in order."""
    paths = []
    for i, array in enumerate(inputs):
        path = scratch / f"input_{i}.npy"
        np.save(path, array)
        paths += ["--input", str(path)]
    out = scratch / "out"
    result = subprocess.run([str(mlkit), "run", str(model), *paths, "--output-dir", str(out)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"mlkit run failed ({result.returncode}): {result.stderr.strip()}")
    return [np.load(out / f"output_{k}.npy") for k in range(len(OUTPUT_NAMES))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mlkit", required=True, type=Path)
    parser.add_argument("--model", type=Path, default=Path("../shared/models/traffic_model.tflite"))
    parser.add_argument("--frames", type=Path, default=Path("../shared/images/traffic_frames"))
    args = parser.parse_args()

    frames = sorted(p for p in args.frames.iterdir() if p.suffix.lower() in (".bmp", ".jpg", ".png"))
    if not frames:
        print(f"no frames in {args.frames}", file=sys.stderr)
        return 1
    interpreter = make_interpreter(args.model)
    details = interpreter.get_input_details()
    height, width = int(details[0]["shape"][1]), int(details[0]["shape"][2])
    zero_c = np.zeros(details[1]["shape"], dtype=details[1]["dtype"])
    zero_h = np.zeros(details[2]["shape"], dtype=details[2]["dtype"])
    ours_state = (zero_c, zero_h)
    ref_state = (zero_c, zero_h)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for frame_path in frames:
            image = Image.open(frame_path).convert("RGB").resize((width, height), Image.BILINEAR)
            frame = np.asarray(image, dtype=np.uint8)[np.newaxis]
            reference = run(interpreter, [frame, *ref_state])
            ours = mlkit_run(args.mlkit, args.model, [frame, *ours_state], scratch)
            ref_state = (reference[4], reference[5])
            ours_state = (ours[4], ours[5])
            parts = []
            for name, a, b in zip(OUTPUT_NAMES, ours, reference):
                same = a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
                failures += 0 if same else 1
                parts.append(f"{name} {'=' if same else 'DIFFERENT'}")
            count = int(reference[3].reshape(-1)[0])
            scores = reference[2].reshape(-1)[:count]
            print(f"{frame_path.name}: {', '.join(parts)}; {count} detections, best score "
                  f"{scores.max() if count else 0:.4f}")
    print(f"traffic: {len(frames)} frames with state fed forward; "
          f"{'all outputs identical to LiteRT' if failures == 0 else f'{failures} outputs differ'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
