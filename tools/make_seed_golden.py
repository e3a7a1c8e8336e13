#!/usr/bin/env python3
"""Golden for the seed-style classification test (Tests/OpenMLKitTests/SeedCodeTests.swift).

The test does what ML Kit's guide does by hand: read an image's pixels, scale them to the
model's 224x224 input, normalise, run ModelInterpreter, read a 1x1001 output. This script
performs the same steps in numpy -- nearest-neighbour scaling with source index
floor((i + 0.5) * src / dst), (value - 127.5) / 127.5 -- runs Google's LiteRT on the result, and
writes the top-5 classes with their scores. The image and model come from ../shared and are not
copied; only the small JSON result is committed.

Usage: .venv/bin/python tools/make_seed_golden.py [--shared ../shared]
"""
import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image

from litert_common import make_interpreter, run

CASES = [
    ("cat.bmp", "mobilenet_v1_0.25_224_float_metadata.tflite"),
    ("bird.bmp", "mobilenet_v1_0.25_224_float_metadata.tflite"),
]


def seed_input(image_path: Path, size: int = 224) -> np.ndarray:
    pixels = np.asarray(Image.open(image_path).convert("RGB"), dtype=np.float32)
    height, width, _ = pixels.shape
    rows = np.floor((np.arange(size) + 0.5) * height / size).astype(int)
    cols = np.floor((np.arange(size) + 0.5) * width / size).astype(int)
    scaled = pixels[rows][:, cols]
    return ((scaled - 127.5) / 127.5)[None].astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "Tests/OpenMLKitTests/Goldens/seed_classification.json"))
    args = parser.parse_args()
    shared = Path(args.shared)
    labels = (shared / "models/imagenet_labels.txt").read_text().splitlines()
    results = []
    for image, model in CASES:
        output = run(make_interpreter(shared / "models" / model), [seed_input(shared / "images" / image)])[0][0]
        top = np.argsort(-output, kind="stable")[:5]
        results.append({
            "image": image, "model": model,
            "top5": [{"index": int(i), "label": labels[i], "score": float(output[i])} for i in top],
        })
        print(image, [(labels[i], round(float(output[i]), 4)) for i in top[:3]])
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"cases": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
