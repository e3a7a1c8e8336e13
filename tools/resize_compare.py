"""How `--resize area` (the default) changes classification and detection against `--resize bilinear`.

For every classifier and detection model in ../shared/models that tools/vision_parity.py and
tools/vision_detect_parity.py check, and every photo directly in ../shared/images, this script runs
the same `mlkit classify` / `mlkit detect` command twice, once per resize method, and reports:

- classifiers: how often top-1 is the same, how often the ordered top-5 is the same, the mean size
  of the top-5 overlap, and the change in the confidence of bilinear's top-1 class (mean and
  largest absolute change);
- detectors (threshold --threshold): objects found by each, objects matched one to one (same class,
  IoU ≥ 0.5), the mean IoU of the matched frames and the mean absolute score change.

It reports differences; it does not judge them (neither mode is ground truth). Nothing here needs
LiteRT: both runs are OpenMLKit's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageOps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vision_detect_parity import EXTRA_LABELS as DETECT_LABELS, detectors  # noqa: E402
from vision_parity import EXTRA_LABELS as CLASSIFY_LABELS, IMAGE_SUFFIXES, classifiers  # noqa: E402

METHODS = ("area", "bilinear")


def run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])}...: {done.stderr.strip()}")
    return done.stdout


def classify(mlkit: Path, models: Path, model: Path, photos: list[Path], method: str) -> list[list[dict]]:
    command = [str(mlkit), "classify", *map(str, photos), "--model", str(model), "--top", "5", "--threshold", "0",
               "--json", "--resize", method]
    if model.name in CLASSIFY_LABELS:
        command += ["--labels", str(models / CLASSIFY_LABELS[model.name])]
    lines = [json.loads(line) for line in run(command).splitlines() if line.strip()]
    return [line["labels"] for line in lines]


def detect(mlkit: Path, models: Path, model: Path, photo: Path, method: str, threshold: float) -> list[dict]:
    command = [str(mlkit), "detect", str(photo), "--model", str(model), "--json", "--threshold", str(threshold),
               "--resize", method]
    if model.name in DETECT_LABELS:
        command += ["--labels", str(models / DETECT_LABELS[model.name])]
    return json.loads(run(command))["objects"]


def iou(a: dict, b: dict) -> float:
    ax1, ay1 = a["x"] + a["width"], a["y"] + a["height"]
    bx1, by1 = b["x"] + b["width"], b["y"] + b["height"]
    w = max(0.0, min(ax1, bx1) - max(a["x"], b["x"]))
    h = max(0.0, min(ay1, by1) - max(a["y"], b["y"]))
    union = a["width"] * a["height"] + b["width"] * b["height"] - w * h
    return w * h / union if union > 0 else 0.0


def match(area: list[dict], bilinear: list[dict]) -> list[tuple[dict, dict, float]]:
    """Greedy one-to-one matching of objects with the same top label, best IoU first."""
    pairs = []
    for a in area:
        for b in bilinear:
            if a["labels"] and b["labels"] and a["labels"][0]["index"] == b["labels"][0]["index"]:
                overlap = iou(a["frame"], b["frame"])
                if overlap >= 0.5:
                    pairs.append((overlap, id(a), id(b), a, b))
    pairs.sort(key=lambda p: -p[0])
    used_a, used_b, matched = set(), set(), []
    for overlap, ia, ib, a, b in pairs:
        if ia not in used_a and ib not in used_b:
            used_a.add(ia)
            used_b.add(ib)
            matched.append((a, b, overlap))
    return matched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mlkit", required=True, type=Path)
    parser.add_argument("--models", type=Path, default=Path("../shared/models"))
    parser.add_argument("--images", type=Path, default=Path("../shared/images"))
    parser.add_argument("--threshold", type=float, default=0.3, help="detection score threshold")
    args = parser.parse_args()

    photos = sorted(p for p in args.images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    sizes = [ImageOps.exif_transpose(Image.open(p)).size for p in photos]
    megapixels = [w * h / 1e6 for w, h in sizes]
    print(f"{len(photos)} photos: {', '.join(p.name for p in photos)}")
    print(f"sizes {min(megapixels):.2f} to {max(megapixels):.2f} megapixels (largest {max(sizes, key=lambda s: s[0] * s[1])})")

    totals = dict(runs=0, top1=0, top5=0, overlap=0, deltas=[])
    for model in classifiers(args.models):
        results = {m: classify(args.mlkit, args.models, model, photos, m) for m in METHODS}
        top1 = top5 = overlap = 0
        deltas = []
        for area, bilinear in zip(results["area"], results["bilinear"]):
            a = [label["index"] for label in area]
            b = [label["index"] for label in bilinear]
            top1 += int(a[:1] == b[:1])
            top5 += int(a == b)
            overlap += len(set(a) & set(b))
            # The confidence of bilinear's top-1 class in both runs (0 when it left area's top 5).
            best = bilinear[0]
            other = next((label["confidence"] for label in area if label["index"] == best["index"]), 0.0)
            deltas.append(abs(other - best["confidence"]))
        n = len(photos)
        name = model.name if model.suffix == ".tflite" else f"{model.parent.name}/{model.name}"
        print(f"classify {name}: top-1 same {top1}/{n}, ordered top-5 same {top5}/{n}, mean top-5 overlap "
              f"{overlap / n:.2f}/5, top-1 confidence change mean {sum(deltas) / n:.4f} max {max(deltas):.4f}")
        totals["runs"] += n
        totals["top1"] += top1
        totals["top5"] += top5
        totals["overlap"] += overlap
        totals["deltas"] += deltas
    runs = totals["runs"]
    print(f"classify TOTAL: {runs} runs, top-1 same {totals['top1']}/{runs}, ordered top-5 same {totals['top5']}/{runs}, "
          f"mean top-5 overlap {totals['overlap'] / runs:.2f}/5, top-1 confidence change mean "
          f"{sum(totals['deltas']) / runs:.4f} max {max(totals['deltas']):.4f}")

    for model in detectors(args.models):
        found = {m: 0 for m in METHODS}
        matched, ious, score_deltas, same_photos = 0, [], [], 0
        for photo in photos:
            objects = {m: detect(args.mlkit, args.models, model, photo, m, args.threshold) for m in METHODS}
            for m in METHODS:
                found[m] += len(objects[m])
            pairs = match(objects["area"], objects["bilinear"])
            matched += len(pairs)
            ious += [overlap for _, _, overlap in pairs]
            score_deltas += [abs(a["labels"][0]["confidence"] - b["labels"][0]["confidence"]) for a, b, _ in pairs]
            same_photos += int(len(pairs) == len(objects["area"]) == len(objects["bilinear"]))
        mean_iou = sum(ious) / len(ious) if ious else 0.0
        mean_delta = sum(score_deltas) / len(score_deltas) if score_deltas else 0.0
        print(f"detect {model.name} (score ≥ {args.threshold}): objects area {found['area']}, bilinear "
              f"{found['bilinear']}, matched {matched} (same class, IoU ≥ 0.5; mean IoU {mean_iou:.3f}, mean score "
              f"change {mean_delta:.4f}); photos whose objects all match {same_photos}/{len(photos)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
