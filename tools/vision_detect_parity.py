"""Detection parity: `mlkit detect --json` against the boxes Google's LiteRT outputs imply.

For every model in ../shared/models with one image input whose outputs are those of
TFLite_Detection_PostProcess (boxes [1,N,4], classes [1,N], scores [1,N], count [1]) and every photo
in ../shared/images, this script runs
`mlkit detect --json --threshold T --dump-input FILE --resize bilinear` (the Task Library's
sampling, pinned for parity), checks that the dumped input equals OpenMLKitVision's pre-processing
reproduced in numpy (tools/vision_parity.py), runs LiteRT on that same input, turns LiteRT's boxes
into upright image pixels the documented way (ymin, xmin, ymax, xmax in 0...1, times the image
size, clipped) and
compares objects one by one: class index, score (exact) and frame (within --tolerance pixels).

Exit status 1 on any difference.
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
from vision_parity import IMAGE_SUFFIXES, normalization_of, preprocess  # noqa: E402

EXTRA_LABELS = {"coco_ssd_mobilenet_v1_detect.tflite": "coco_ssd_mobilenet_v1_labelmap.txt"}


def detectors(models: Path) -> list[Path]:
    found = []
    for path in sorted(models.glob("*.tflite")):
        interpreter = make_interpreter(path)
        if len(interpreter.get_output_details()) != 4:
            continue
        interpreter.allocate_tensors()  # post-process outputs get their shapes when prepared
        ins, outs = interpreter.get_input_details(), interpreter.get_output_details()
        if len(ins) == 1 and len(ins[0]["shape"]) == 4 and len(outs) == 4 and any(
            len(o["shape"]) == 3 and o["shape"][-1] == 4 for o in outs
        ):
            found.append(path)
    return found


def litert_objects(interpreter, tensor, width, height, threshold):
    detail = interpreter.get_input_details()[0]
    interpreter.set_tensor(detail["index"], tensor)
    interpreter.invoke()
    outs = [interpreter.get_tensor(o["index"]) for o in interpreter.get_output_details()]
    boxes, classes, scores, count = outs[0][0], outs[1][0], outs[2][0], int(outs[3][0])
    objects = []
    for i in range(min(count, len(scores))):
        if not scores[i] >= threshold:
            continue
        ymin, xmin, ymax, xmax = (float(v) for v in boxes[i])
        x0, x1 = sorted((xmin * width, xmax * width))
        y0, y1 = sorted((ymin * height, ymax * height))
        x0, x1 = min(max(x0, 0), width), min(max(x1, 0), width)
        y0, y1 = min(max(y0, 0), height), min(max(y1, 0), height)
        objects.append(dict(index=int(round(float(classes[i]))), score=float(scores[i]), frame=(x0, y0, x1 - x0, y1 - y0)))
    objects.sort(key=lambda o: -o["score"])
    return objects


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mlkit", required=True, type=Path)
    parser.add_argument("--models", type=Path, default=Path("../shared/models"))
    parser.add_argument("--images", type=Path, default=Path("../shared/images"))
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--tolerance", type=float, default=0.01, help="largest frame difference in pixels")
    args = parser.parse_args()

    photos = sorted(p for p in args.images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    runs = same = objects_total = inputs_equal = 0
    for model in detectors(args.models):
        interpreter = make_interpreter(model)
        interpreter.allocate_tensors()
        detail = interpreter.get_input_details()[0]
        shape, dtype = list(detail["shape"]), detail["dtype"]
        normalization = normalization_of(model, args.mlkit)
        model_same = model_objects = model_equal = 0
        for photo in photos:
            with tempfile.TemporaryDirectory() as tmp:
                dump = Path(tmp) / "input.bin"
                command = [str(args.mlkit), "detect", str(photo), "--model", str(model), "--json",
                           "--threshold", str(args.threshold), "--dump-input", str(dump), "--resize", "bilinear"]
                if model.name in EXTRA_LABELS:
                    command += ["--labels", str(args.models / EXTRA_LABELS[model.name])]
                run = subprocess.run(command, capture_output=True, text=True)
                if run.returncode != 0:
                    print(f"{model.name} {photo.name}: mlkit failed: {run.stderr.strip()}")
                    return 1
                ours = json.loads(run.stdout)["objects"]
                tensor = np.frombuffer(dump.read_bytes(), dtype=dtype).reshape(shape)
            mine = preprocess(photo, shape, dtype, tuple(detail["quantization"]), normalization)
            model_equal += int(np.array_equal(mine, tensor))
            width, height = ImageOps.exif_transpose(Image.open(photo)).size
            theirs = litert_objects(interpreter, tensor, width, height, args.threshold)
            ok = len(ours) == len(theirs)
            for a, b in zip(ours, theirs):
                f = a["frame"]
                label = a["labels"][0]
                delta = max(abs(f["x"] - b["frame"][0]), abs(f["y"] - b["frame"][1]),
                            abs(f["width"] - b["frame"][2]), abs(f["height"] - b["frame"][3]))
                ok &= label["index"] == b["index"] and abs(label["confidence"] - b["score"]) <= 1e-6 and delta <= args.tolerance
            if not ok:
                print(f"  MISMATCH {model.name} {photo.name}: mlkit {[(o['labels'][0]['index'], round(o['labels'][0]['confidence'], 4)) for o in ours]}"
                      f" LiteRT {[(o['index'], round(o['score'], 4)) for o in theirs]}")
            model_same += int(ok)
            model_objects += len(theirs)
        print(f"{model.name}: {len(photos)} photos, {model_same}/{len(photos)} with identical objects "
              f"({model_objects} objects at score >= {args.threshold}); inputs identical to numpy {model_equal}/{len(photos)}")
        runs += len(photos)
        same += model_same
        objects_total += model_objects
        inputs_equal += model_equal
    print(f"TOTAL: {runs} runs, {same}/{runs} identical object lists ({objects_total} objects); "
          f"inputs identical to numpy pre-processing {inputs_equal}/{runs}")
    return 0 if same == runs else 1


if __name__ == "__main__":
    sys.exit(main())
