#!/usr/bin/env python3
"""Builds float and quantized models that no test has seen, for a manual or CI-optional parity check.

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

and quantized ones (TensorFlow's converter; full-integer models get a representative dataset of
seeded random samples plus, for image inputs, a few photos from ../shared/images resized with
pillow, when there are any):

    q_int8_mobilenet_v3_small     MobileNetV3Small (160x160, minimalistic=False: hard-swish,
                                  squeeze-excite), full integer, int8 I/O
    q_uint8_mobilenet_v3_small    the same with uint8 I/O (QUANTIZE at the edges)
    q_uint8_transpose_bilinear_autoencoder  encoder/decoder with Conv2DTranspose, UpSampling2D
                                  (bilinear) and tf.image.resize (bilinear), full integer, uint8 I/O
    q_int8_gelu_elu               Dense/Conv2D with GELU and ELU, full integer, int8 I/O (TF 2.21
                                  may leave ELU in float between DEQUANTIZE/QUANTIZE; kept as is)
    q_dynamic_mobilenet_v3_small  MobileNetV3Small, dynamic range (int8 weights, float I/O)
    q_dynamic_attention_block     Dense + MultiHeadAttention block, dynamic range
    q_int16x8_small_cnn           a small CNN, 16x8 (int16 activations, int8 weights), int16 I/O
                                  (a 1-channel input, so parity_live feeds it no photos)
    q_int16x8_float_io_small_cnn  the same CNN, 16x8 core with float32 I/O

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
from fixture_cases_quantized import QuantizedCase  # noqa: E402
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


# --------------------------------------------------------------------------------------------
# Quantized models

SHARED_IMAGES = REPO.parent / "shared" / "images"
REPRESENTATIVE_RANDOM = 16
REPRESENTATIVE_PHOTOS = 8


def _photos(limit: int) -> list[Path]:
    if not SHARED_IMAGES.is_dir():
        return []
    suffixes = {".jpg", ".jpeg", ".png", ".bmp"}
    return sorted(p for p in SHARED_IMAGES.iterdir() if p.suffix.lower() in suffixes)[:limit]


def _photo_sample(spec, photo: Path) -> np.ndarray | None:
    """A photo resized to an image spec [1, H, W, 3] and mapped from [0, 255] to [lo, hi]."""
    shape = spec.data_shape
    if len(shape) != 4 or shape[0] != 1 or shape[3] != 3:
        return None
    try:
        from PIL import Image
    except ImportError:
        return None
    with Image.open(photo) as image:
        pixels = np.asarray(image.convert("RGB").resize((shape[2], shape[1]), Image.BILINEAR), dtype=np.float32)
    return (spec.lo + (spec.hi - spec.lo) * pixels[np.newaxis] / 255.0).astype(np.float32)


class UnseenQuantizedCase(QuantizedCase):
    """QuantizedCase whose representative dataset adds photos for image inputs."""

    def representative_dataset(self):
        import zlib

        rng = np.random.default_rng(zlib.crc32(f"representative/{self.name}".encode()))
        samples = [[spec.draw(rng) for spec in self.inputs] for _ in range(REPRESENTATIVE_RANDOM)]
        for photo in _photos(REPRESENTATIVE_PHOTOS):
            sample = [_photo_sample(spec, photo) for spec in self.inputs]
            if all(x is not None for x in sample):
                samples.append(sample)

        def generate():
            for sample in samples:
                yield sample

        return generate


def q_mobilenet_v3_small(w):
    import keras

    model = keras.applications.MobileNetV3Small(
        input_shape=(160, 160, 3), alpha=1.0, minimalistic=False, weights=None, classes=100,
        classifier_activation=None, include_preprocessing=True,
    )
    return randomize_keras_weights(model, w.seed)


def q_transpose_bilinear_autoencoder(w):
    import keras
    import tensorflow as tf

    layers = keras.layers
    x = keras.Input((64, 64, 3), batch_size=1)
    e1 = layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)             # 32
    e2 = layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(e1)            # 16
    e3 = layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(e2)      # 8
    d = layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(e3)    # 16
    d = layers.Concatenate()([d, e2])
    d = layers.Conv2DTranspose(16, 4, strides=2, padding="same")(d)                        # 32
    d = layers.Add()([d, e1])
    d = layers.UpSampling2D(2, interpolation="bilinear")(d)                                # 64
    side = layers.Lambda(lambda t: tf.image.resize(t, (64, 64), method="bilinear"))(e3)  # 8 -> 64
    side = layers.Conv2D(16, 1)(side)
    d = layers.Add()([d, side])
    d = layers.Lambda(lambda t: tf.image.resize(t, (40, 40), method="bilinear"))(d)     # non-integer scale
    y = layers.Conv2D(3, 3, padding="same", activation="sigmoid")(d)
    return randomize_keras_weights(keras.Model(x, y), w.seed)


def q_gelu_elu(w):
    import keras

    layers = keras.layers
    x = keras.Input((12, 12, 4), batch_size=1)
    y = layers.Conv2D(16, 3, padding="same", activation="gelu")(x)
    y = layers.Conv2D(16, 3, strides=2, padding="same", activation="elu")(y)
    y = layers.Flatten()(y)
    y = layers.Dense(32, activation="gelu")(y)
    y = layers.Dense(24, activation="elu")(y)
    return randomize_keras_weights(keras.Model(x, layers.Dense(8)(y)), w.seed)


def q_attention_block(w):
    import keras

    layers = keras.layers
    tokens, width = 16, 64
    x = keras.Input((tokens, 48), batch_size=1)
    h = layers.Dense(width)(x)
    a = layers.MultiHeadAttention(num_heads=4, key_dim=16)(h, h)
    h = layers.LayerNormalization(epsilon=1e-5)(layers.Add()([h, a]))
    f = layers.Dense(128, activation="relu")(h)
    f = layers.Dense(width)(f)
    h = layers.Add()([h, f])
    pooled = layers.GlobalAveragePooling1D()(h)
    return randomize_keras_weights(keras.Model(x, [h, layers.Dense(10)(pooled)]), w.seed)


def q_small_cnn(channels):
    def build(w):
        import keras

        layers = keras.layers
        x = keras.Input((32, 32, channels), batch_size=1)
        y = layers.Conv2D(16, 3, padding="same", activation="relu")(x)
        y = layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(y)
        r = layers.Conv2D(16, 1)(y)
        y = layers.Add()([y, r])
        y = layers.MaxPooling2D(2)(y)
        y = layers.Conv2D(32, 3, padding="same", activation="relu")(y)
        y = layers.AveragePooling2D(2)(y)
        y = layers.Flatten()(y)
        y = layers.Dense(10)(y)
        return randomize_keras_weights(keras.Model(x, layers.Softmax()(y)), w.seed)

    return build


def _q(name, scheme, inputs, build):
    return UnseenQuantizedCase(name, "", inputs, build, keras=True, tolerance=0.0, scheme=scheme)


MNV3_Q_INPUT = [F(1, 160, 160, 3, lo=0, hi=255)]
QUANTIZED_MODELS = [
    _q("q_int8_mobilenet_v3_small", "int8", MNV3_Q_INPUT, q_mobilenet_v3_small),
    _q("q_uint8_mobilenet_v3_small", "uint8", MNV3_Q_INPUT, q_mobilenet_v3_small),
    _q("q_uint8_transpose_bilinear_autoencoder", "uint8", [F(1, 64, 64, 3, lo=0, hi=1)],
       q_transpose_bilinear_autoencoder),
    _q("q_int8_gelu_elu", "int8", [F(1, 12, 12, 4)], q_gelu_elu),
    _q("q_dynamic_mobilenet_v3_small", "dynamic", MNV3_Q_INPUT, q_mobilenet_v3_small),
    _q("q_dynamic_attention_block", "dynamic", [F(1, 16, 48)], q_attention_block),
    _q("q_int16x8_small_cnn", "int16x8", [F(1, 32, 32, 1)], q_small_cnn(1)),
    _q("q_int16x8_float_io_small_cnn", "int16x8_float", [F(1, 32, 32, 3)], q_small_cnn(3)),
]


def _configure_int16x8_float(c: QuantizedCase):
    """16x8 with the converter's default float32 I/O (QUANTIZE in, DEQUANTIZE out)."""

    def configure(converter) -> None:
        import tensorflow as tf

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = c.representative_dataset()
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8
        ]

    return configure


def _smoke_inputs(tflite: bytes, c: Case) -> list[np.ndarray]:
    """Inputs for LiteRT's smoke run: the spec's floats, or seeded integers for integer inputs."""
    rng = np.random.default_rng(0)
    details = make_interpreter(tflite).get_input_details()
    if hasattr(c, "draw_input"):
        return [c.draw_input(spec, d["dtype"], rng) for spec, d in zip(c.inputs, details)]
    return [s.draw(rng) for s in c.inputs]


def _tensor_types(tflite: bytes) -> str:
    from fixture_cases_quantized import tensor_types

    return "/".join(tensor_types(tflite))


def _io_types(tflite: bytes) -> str:
    interpreter = make_interpreter(tflite)
    ins = ",".join(np.dtype(d["dtype"]).name for d in interpreter.get_input_details())
    outs = ",".join(np.dtype(d["dtype"]).name for d in interpreter.get_output_details())
    return f"{ins} -> {outs}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build unseen float and quantized .tflite models for parity checks.")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "unseen",
                        help="output directory (default: out/unseen, gitignored)")
    parser.add_argument("--only", choices=["float", "quantized"],
                        help="build only the float or only the quantized (q_*) models (default: both)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for c in MODELS if args.only != "quantized" else []:
        tflite = convert(c)
        path = args.out / f"{c.name}.tflite"
        path.write_bytes(tflite)
        # A smoke run, so a model LiteRT itself cannot run is caught here.
        outputs = run(make_interpreter(tflite), [s.draw(np.random.default_rng(0)) for s in c.inputs])
        ops = " ".join(f"{name}x{count}" for name, count in sorted(operator_counts(tflite).items()))
        shapes = ", ".join(str(list(o.shape)) for o in outputs)
        print(f"{path} ({len(tflite) / 1e6:.2f} MB) -> {shapes}\n  {ops}", flush=True)
    for c in QUANTIZED_MODELS if args.only != "float" else []:
        if c.scheme == "int16x8_float":
            c.configure = _configure_int16x8_float(c)
        tflite = convert(c)
        path = args.out / f"{c.name}.tflite"
        path.write_bytes(tflite)
        outputs = run(make_interpreter(tflite), _smoke_inputs(tflite, c))
        ops = " ".join(f"{name}x{count}" for name, count in sorted(operator_counts(tflite).items()))
        shapes = ", ".join(str(list(o.shape)) for o in outputs)
        print(f"{path} ({len(tflite) / 1e6:.2f} MB, {c.scheme}; I/O {_io_types(tflite)}; "
              f"tensors {_tensor_types(tflite)}) -> {shapes}\n  {ops}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
