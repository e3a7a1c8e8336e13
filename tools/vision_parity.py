"""Image classification parity: `mlkit classify` against Google's LiteRT on the same pixels.

For every classifier in ../shared/models (one NHWC image input, one [1, classes] output) and every
photo in ../shared/images, this script

1. runs `mlkit classify --resize bilinear --json --top 5 --threshold 0 --dump-inputs DIR` on all
   photos at once (bilinear pinned: it is the Task Library's sampling, which the numpy copy below
   reproduces; the CLI's default area averaging is measured by tools/resize_compare.py);
2. reproduces OpenMLKitVision's pre-processing independently in numpy (Pillow decode, EXIF
   transpose, pixel-centre bilinear sampling in float32, round half up, normalisation) and counts
   the input elements that differ from the tensor mlkit dumped;
3. runs LiteRT (reference kernels, one thread) on mlkit's own input tensor ("same pixels") and on
   the numpy tensor, and compares top-1 and the ordered top-5 class indices with mlkit's JSON.

Exit status 1 when any top-1 on the same pixels differs (or with --strict-top5, any top-5).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litert_common import make_interpreter  # noqa: E402

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp"}
# Labels for classifiers that carry none in metadata (the CLI's --labels / manifest paths).
EXTRA_LABELS = {"cup_model.tflite": "cup_labels.txt"}


def classifiers(models: Path) -> list[Path]:
    """Every model with one 4-D image input and one [1, N] output, plus ML Kit's AutoML manifest."""
    found = []
    for path in sorted(models.glob("*.tflite")) + sorted(models.glob("*/manifest.json")):
        model = path if path.suffix == ".tflite" else path.parent / json.loads(path.read_text())["modelFile"]
        interpreter = make_interpreter(model)
        ins, outs = interpreter.get_input_details(), interpreter.get_output_details()
        if len(ins) != 1 or len(outs) != 1:
            continue
        shape, out = list(ins[0]["shape"]), list(outs[0]["shape"])
        if len(shape) == 4 and shape[0] == 1 and shape[3] in (1, 3) and len(out) == 2 and out[0] == 1 and out[1] >= 2:
            found.append(path)
    return found


def axis(count: int, length: float, size: int, flip: bool = False):
    """Sample indices and weights along one axis, exactly as AxisSamples in ImagePreprocessor.swift."""
    f32 = np.float32
    step = f32(length) / f32(count)
    upright = (f32(0) + (np.arange(count, dtype=f32) + f32(0.5)) * step) - f32(0.5)
    last = f32(size - 1)
    s = (last - upright) if flip else upright
    s = np.minimum(np.maximum(s, f32(0)), last).astype(f32)
    low = np.floor(s).astype(np.int64)
    high = np.minimum(low + 1, size - 1)
    return low, high, (s - low.astype(f32)).astype(f32)


def preprocess(image_path: Path, shape, dtype, quantization, normalization) -> np.ndarray:
    """Our pre-processing in numpy: stretch the whole upright image to the input size."""
    image = ImageOps.exif_transpose(Image.open(image_path))
    rgb = np.asarray(image.convert("RGB"), dtype=np.float32)
    _, height, width, channels = shape
    xl, xh, fx = axis(width, rgb.shape[1], rgb.shape[1])
    yl, yh, fy = axis(height, rgb.shape[0], rgb.shape[0])
    if channels == 1:
        r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
        rgb = ((np.float32(0.299) * r + np.float32(0.587) * g) + np.float32(0.114) * b)[..., None]
    p00 = rgb[yl][:, xl]
    p10 = rgb[yl][:, xh]
    p01 = rgb[yh][:, xl]
    p11 = rgb[yh][:, xh]
    fxb = fx[None, :, None]
    fyb = fy[:, None, None]
    top = p00 + (p10 - p00) * fxb
    bottom = p01 + (p11 - p01) * fxb
    value = top + (bottom - top) * fyb
    pixel = np.clip(np.floor(value + np.float32(0.5)), 0, 255).astype(np.float32)
    if dtype == np.uint8:
        return pixel.astype(np.uint8)[None]
    mean, std = normalization if normalization else ([127.5], [127.5])
    mean = np.resize(np.array(mean, dtype=np.float32), channels)
    std = np.resize(np.array(std, dtype=np.float32), channels)
    if dtype == np.float32:
        return ((pixel - mean) / std).astype(np.float32)[None]
    scale, zero = quantization
    if normalization and scale > 0:
        x = ((pixel - mean) / std) / np.float32(scale) + np.float32(zero)
        q = np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))
    else:
        q = pixel - 128
    return np.clip(q, -128, 127).astype(np.int8)[None]


def normalization_of(model_path: Path, mlkit: Path):
    """Mean/std from the model's metadata, via `mlkit inspect --json`."""
    report = json.loads(subprocess.run([str(mlkit), "inspect", str(model_path), "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    meta = report.get("tflite_metadata") or {}
    for subgraph in meta.get("subgraphs", [])[:1]:
        for tensor in subgraph.get("inputs", [])[:1]:
            if tensor.get("normalization"):
                return tensor["normalization"]["mean"], tensor["normalization"]["std"]
    return None


def top_k(scores: np.ndarray, k: int) -> list[int]:
    order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
    return order[:k]


def litert_scores(interpreter, tensor: np.ndarray) -> np.ndarray:
    detail = interpreter.get_input_details()[0]
    interpreter.set_tensor(detail["index"], tensor)
    interpreter.invoke()
    out = interpreter.get_output_details()[0]
    raw = interpreter.get_tensor(out["index"])[0].astype(np.float32)
    scale, zero = out["quantization"]
    if out["dtype"] in (np.uint8, np.int8) and scale > 0:
        return (raw - np.float32(zero)) * np.float32(scale)
    return raw


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mlkit", required=True, type=Path)
    parser.add_argument("--models", type=Path, default=Path("../shared/models"))
    parser.add_argument("--images", type=Path, default=Path("../shared/images"))
    parser.add_argument("--strict-top5", action="store_true", help="also fail when an ordered top-5 differs")
    parser.add_argument("--json", type=Path, help="write per-run details here")
    args = parser.parse_args()

    photos = sorted(p for p in args.images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    totals = dict(runs=0, top1_same=0, top5_same=0, top1_numpy=0, inputs_equal=0)
    details = []
    for model_arg in classifiers(args.models):
        model_path = model_arg if model_arg.suffix == ".tflite" else model_arg.parent / json.loads(model_arg.read_text())["modelFile"]
        interpreter = make_interpreter(model_path)
        interpreter.allocate_tensors()
        detail = interpreter.get_input_details()[0]
        shape, dtype = list(detail["shape"]), detail["dtype"]
        normalization = normalization_of(model_path, args.mlkit)
        with tempfile.TemporaryDirectory() as tmp:
            command = [str(args.mlkit), "classify", *map(str, photos), "--model", str(model_arg), "--top", "5",
                       "--threshold", "0", "--json", "--dump-inputs", tmp, "--resize", "bilinear"]
            if model_arg.name in EXTRA_LABELS:
                command += ["--labels", str(args.models / EXTRA_LABELS[model_arg.name])]
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{model_arg.name}: mlkit failed: {run.stderr.strip()}")
                return 1
            lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
            if len(photos) == 1:
                lines = [{"image": str(photos[0]), **lines[0]}]
            stats = dict(runs=0, top1_same=0, top5_same=0, top1_numpy=0, inputs_equal=0, worst_input=0.0, diff=0)
            for i, (photo, result) in enumerate(zip(photos, lines)):
                ours = [label["index"] for label in result["labels"]]
                dumped = np.frombuffer((Path(tmp) / f"{i}.bin").read_bytes(), dtype=dtype).reshape(shape)
                mine = preprocess(photo, shape, dtype, tuple(detail["quantization"]), normalization)
                delta = np.abs(dumped.astype(np.float64) - mine.astype(np.float64))
                stats["worst_input"] = max(stats["worst_input"], float(delta.max()))
                stats["diff"] += int((delta > 1e-6).sum())
                stats["inputs_equal"] += int((delta <= 1e-6).all())
                same = top_k(litert_scores(interpreter, dumped), 5)
                numpy_top = top_k(litert_scores(interpreter, mine), 5)
                stats["runs"] += 1
                stats["top1_same"] += int(ours[:1] == same[:1])
                stats["top5_same"] += int(ours == same)
                stats["top1_numpy"] += int(ours[:1] == numpy_top[:1])
                details.append(dict(model=model_arg.name, image=photo.name, mlkit=ours, litert=same, litert_numpy_input=numpy_top))
                if ours[:1] != same[:1] or (args.strict_top5 and ours != same):
                    print(f"  MISMATCH {model_arg.name} {photo.name}: mlkit {ours} LiteRT {same}")
        for key in totals:
            totals[key] += stats[key]
        name = model_arg.name if model_arg.suffix == ".tflite" else f"{model_arg.parent.name}/{model_arg.name}"
        print(f"{name}: {stats['runs']} photos, top-1 {stats['top1_same']}/{stats['runs']}, "
              f"top-5 {stats['top5_same']}/{stats['runs']} (same pixels); numpy-preprocessed top-1 "
              f"{stats['top1_numpy']}/{stats['runs']}; inputs identical {stats['inputs_equal']}/{stats['runs']} "
              f"({stats['diff']} elements differ, worst {stats['worst_input']:g})")
    runs = totals["runs"]
    print(f"TOTAL: {runs} runs; top-1 same as LiteRT {totals['top1_same']}/{runs}; ordered top-5 {totals['top5_same']}/{runs}; "
          f"top-1 vs LiteRT on numpy pre-processing {totals['top1_numpy']}/{runs}; identical inputs {totals['inputs_equal']}/{runs}")
    if args.json:
        args.json.write_text(json.dumps(dict(totals=totals, runs=details), indent=1))
    failed = totals["top1_same"] != runs or (args.strict_top5 and totals["top5_same"] != runs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
