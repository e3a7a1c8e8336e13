#!/usr/bin/env python3
"""Makes the float MobileNetV2 1.0 224 (random weights) the side-by-side benchmark needs.

Needs TensorFlow (the .venv-tf venv, tools/requirements-fixtures.txt). Writes
out/bench/mobilenet_v2_1.0_224_float.tflite (gitignored).
"""
from pathlib import Path

import tensorflow as tf

OUT = Path(__file__).resolve().parents[1] / "out/bench/mobilenet_v2_1.0_224_float.tflite"


def main() -> None:
    tf.keras.utils.set_random_seed(7)
    model = tf.keras.applications.MobileNetV2(input_shape=(224, 224, 3), alpha=1.0, weights=None, classes=1000)
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(converter.convert())
    print(OUT)


if __name__ == "__main__":
    main()
