#!/usr/bin/env python3
"""Builds float models that no test has seen, for a manual or CI-optional parity check.

    python3 tools/make_unseen_models.py [--out out/unseen]
    python3 tools/parity_live.py --mlkit .build/release/mlkit --extra out/unseen

The committed fixtures (tools/make_fixtures.py) exercise one op family at a time; these are whole
architectures the kernels were not written against, so they catch combinations the fixtures miss:

    mobilenet_v3_small       Keras MobileNetV3Small (minimalistic=False, 224x224): hard-swish,
                             squeeze-excite (MEAN, MUL by a broadcast gate), Rescaling preprocessing
    sep_transpose_autoencoder  SeparableConv2D encoder + Conv2DTranspose decoder, sigmoid output
    bilinear_upsampling      a small segmentation-style head with UpSampling2D(bilinear), Resizing
                             (tf.image.resize, half-pixel) and a skip concatenation
    transformer_block        token embedding projection, MultiHeadAttention (BATCH_MATMUL, SOFTMAX),
                             LayerNormalization, GELU feed-forward, residuals
    mobilenet_v3_small_fp16  the MobileNetV3Small above with float16 weights (DEQUANTIZE)

Weights are seeded and rescaled so activations stay O(1) (see randomize_keras_weights). Writes
DIR/<name>.tflite and prints the operators each model contains; the output directory is not
committed (out/ is gitignored). Needs tools/requirements-fixtures.txt.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_cases import Case, F, randomize_keras_weights  # noqa: E402
from litert_common import make_interpreter, run  # noqa: E402
from make_fixtures import REPO, convert  # noqa: E402
from tflite_ops import operator_counts  # noqa: E402


def mobilenet_v3_small(w):
    import keras

    model = keras.applications.MobileNetV3Small(
        input_shape=(224, 224, 3), alpha=1.0, minimalistic=False, weights=None, classes=100,
        classifier_activation=None, include_preprocessing=True,
    )
    return randomize_keras_weights(model, w.seed)


def sep_transpose_autoencoder(w):
    import keras

    layers = keras.layers
    x = keras.Input((64, 64, 3), batch_size=1)
    y = layers.SeparableConv2D(16, 3, strides=2, padding="same", activation="relu")(x)
    y = layers.SeparableConv2D(32, 3, strides=2, padding="same", activation="relu", depth_multiplier=2)(y)
    y = layers.BatchNormalization()(y)
    y = layers.SeparableConv2D(32, 3, padding="same", activation="relu")(y)
    y = layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu")(y)
    y = layers.Conv2DTranspose(8, 4, strides=2, padding="same")(y)
    y = layers.Conv2D(3, 3, padding="same", activation="sigmoid")(y)
    return randomize_keras_weights(keras.Model(x, y), w.seed)


def bilinear_upsampling(w):
    import keras

    layers = keras.layers
    x = keras.Input((96, 96, 3), batch_size=1)
    skip = layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)          # 48
    y = layers.Conv2D(24, 3, strides=2, padding="same", activation="relu")(skip)          # 24
    y = layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(y)       # 12
    y = layers.UpSampling2D(2, interpolation="bilinear")(y)                               # 24
    y = layers.Resizing(48, 48, interpolation="bilinear")(y)                              # 48
    y = layers.Concatenate()([y, skip])
    y = layers.Conv2D(4, 1)(y)
    y = layers.Resizing(96, 96, interpolation="bilinear")(y)
    return randomize_keras_weights(keras.Model(x, layers.Softmax()(y)), w.seed)


def transformer_block(w):
    import keras

    layers = keras.layers
    tokens, width = 16, 32
    x = keras.Input((tokens, 24), batch_size=1)
    h = layers.Dense(width)(x)
    a = layers.MultiHeadAttention(num_heads=4, key_dim=8)(h, h)
    h = layers.LayerNormalization(epsilon=1e-5)(layers.Add()([h, a]))
    f = layers.Dense(64, activation="gelu")(h)
    f = layers.Dense(width)(f)
    h = layers.LayerNormalization(epsilon=1e-5)(layers.Add()([h, f]))
    pooled = layers.GlobalAveragePooling1D()(h)
    return randomize_keras_weights(keras.Model(x, [h, layers.Dense(5)(pooled)]), w.seed)


MODELS = [
    Case("mobilenet_v3_small", "", [F(1, 224, 224, 3, lo=0, hi=255)], mobilenet_v3_small, keras=True),
    Case("sep_transpose_autoencoder", "", [F(1, 64, 64, 3, lo=0, hi=1)], sep_transpose_autoencoder, keras=True),
    Case("bilinear_upsampling", "", [F(1, 96, 96, 3)], bilinear_upsampling, keras=True),
    Case("transformer_block", "", [F(1, 16, 24)], transformer_block, keras=True),
    Case("mobilenet_v3_small_fp16", "", [F(1, 224, 224, 3, lo=0, hi=255)], mobilenet_v3_small, keras=True,
         fp16=True),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build unseen float .tflite models for parity checks.")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "unseen",
                        help="output directory (default: out/unseen, gitignored)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for c in MODELS:
        tflite = convert(c)
        path = args.out / f"{c.name}.tflite"
        path.write_bytes(tflite)
        # A smoke run, so a model LiteRT itself cannot run is caught here.
        outputs = run(make_interpreter(tflite), [s.draw(np.random.default_rng(0)) for s in c.inputs])
        ops = " ".join(f"{name}x{count}" for name, count in sorted(operator_counts(tflite).items()))
        shapes = ", ".join(str(list(o.shape)) for o in outputs)
        print(f"{path} ({len(tflite) / 1e6:.2f} MB) -> {shapes}\n  {ops}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
