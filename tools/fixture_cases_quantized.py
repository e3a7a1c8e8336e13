"""Quantized cases for tools/make_fixtures.py: TensorFlow's converter with a representative dataset
(full-integer int8 with int8 or uint8 I/O, float I/O around an int8 core, 16x8) and dynamic-range
(hybrid) models.

Each quantized graph is registered with @qcase(name, description, inputs, schemes=[...]) and becomes
one case per scheme, named "q_<scheme>_<name>":

    int8      full integer, inference_input_type/inference_output_type tf.int8
    uint8     full integer, inference_input_type/inference_output_type tf.uint8 (the core stays
              int8; the converter adds QUANTIZE at the edges)
    float     full integer core, float32 I/O (QUANTIZE in, DEQUANTIZE out)
    int16x8   EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, int16 I/O
    dynamic   Optimize.DEFAULT without a representative dataset: float I/O, int8 weights (hybrid
              kernels); the converter only quantizes constants of 1024+ elements

The `In` specs are the float inputs of the graph; they give the shapes and the value ranges of the
representative dataset (seeded, so conversion is deterministic). The committed inputs of integer
models are seeded random integers over the whole range of the input type, so the goldens exercise
rounding and saturation. Integer outputs must match LiteRT exactly (tolerance 0); float outputs of
float/dynamic schemes keep the usual 1e-4 rule (DEQUANTIZE of an exact integer is exact too, but
the hybrid kernels accumulate in float).

Importing this module does not import TensorFlow; builders do, when called.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from fixture_cases import DEFAULT_TOLERANCE, Case, F, In, randomize_keras_weights

# Operators only the quantized cases bring in; make_fixtures adds them to the required list.
REQUIRED_QUANTIZED_OPS = ["QUANTIZE"]

REPRESENTATIVE_SAMPLES = 24

_SCHEME_TYPES = {"int8": "int8", "uint8": "uint8", "float": "float32", "int16x8": "int16", "dynamic": "float32"}


@dataclass
class QuantizedCase(Case):
    scheme: str = "int8"

    # -- conversion ---------------------------------------------------------------------------

    def representative_dataset(self):
        """A fresh seeded generator of float samples (a new one for every conversion)."""
        rng = np.random.default_rng(zlib.crc32(f"representative/{self.name}".encode()))
        samples = [[spec.draw(rng) for spec in self.inputs] for _ in range(REPRESENTATIVE_SAMPLES)]

        def generate():
            for sample in samples:
                yield sample

        return generate

    def configure(self, converter) -> None:
        import tensorflow as tf

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        if self.scheme == "dynamic":
            return
        converter.representative_dataset = self.representative_dataset()
        if self.scheme == "int16x8":
            converter.target_spec.supported_ops = [
                tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8
            ]
            converter.inference_input_type = tf.int16
            converter.inference_output_type = tf.int16
            return
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        if self.scheme in ("int8", "uint8"):
            io = tf.int8 if self.scheme == "int8" else tf.uint8
            converter.inference_input_type = io
            converter.inference_output_type = io

    # -- inputs -------------------------------------------------------------------------------

    def draw_input(self, spec: In, dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
        """Integer model inputs: uniform over the type's whole range; float ones: the spec."""
        dtype = np.dtype(dtype)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            values = rng.integers(int(info.min), int(info.max), spec.data_shape, endpoint=True)
            return np.ascontiguousarray(values.astype(dtype))
        return spec.draw(rng)

    # -- manifest -----------------------------------------------------------------------------

    def manifest_extra(self, tflite: bytes) -> dict:
        return {
            "quantized": True,
            "dtype": {
                "scheme": self.scheme,
                "io": _SCHEME_TYPES[self.scheme],
                "tensor_types": tensor_types(tflite),
            },
        }


def tensor_types(content: bytes) -> list[str]:
    """The distinct tensor types in a flatbuffer (all subgraphs), e.g. ["FLOAT32", "INT8"]."""
    from ai_edge_litert import schema_py_generated as schema

    names = {v: k for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
    model = schema.ModelT.InitFromPackedBuf(bytearray(content), 0)
    return sorted({names.get(t.type, str(t.type)) for g in model.subgraphs or [] for t in g.tensors or []})


QUANTIZED_CASES: list[Case] = []


def qcase(name: str, description: str, inputs: list[In], schemes=("int8", "uint8"), **options):
    def register(build):
        for scheme in schemes:
            tolerance = DEFAULT_TOLERANCE if scheme in ("float", "dynamic") else 0.0
            QUANTIZED_CASES.append(QuantizedCase(
                f"q_{scheme}_{name}", f"[{scheme}] {description}", inputs, build,
                tolerance=tolerance, scheme=scheme, **options))
        return build

    return register


def _tf():
    import tensorflow as tf

    return tf


# --------------------------------------------------------------------------------------------
# Full-integer cases (int8 and uint8 I/O)


@qcase("small_cnn", "A small Keras CNN: CONV_2D (+RELU), DEPTHWISE_CONV_2D (+RELU6), 1x1 CONV_2D, "
       "residual ADD, AVERAGE_POOL_2D, MAX_POOL_2D, FULLY_CONNECTED, SOFTMAX", [F(1, 16, 16, 3)], keras=True)
def _small_cnn(w):
    import keras

    layers = keras.layers
    x = keras.Input((16, 16, 3), batch_size=1)
    y = layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    z = layers.DepthwiseConv2D(3, padding="same", activation="relu6")(y)
    z = layers.Conv2D(8, 1)(z)
    y = layers.Add()([y, z])
    y = layers.AveragePooling2D(2)(y)
    y = layers.MaxPooling2D(2)(y)
    y = layers.Flatten()(y)
    logits = layers.Dense(6)(y)
    return randomize_keras_weights(keras.Model(x, [logits, layers.Softmax()(logits)]), w.seed)


@qcase("elementwise", "ADD, SUB, MUL with same shapes and broadcasting (channel vector, row), "
       "MAXIMUM, MINIMUM (also with a constant)",
       [F(1, 4, 5, 3, lo=-2, hi=2), F(1, 4, 5, 3), F(3, lo=-1.5, hi=1.5), F(1, 4, 1, 3, lo=-3, hi=3)])
def _elementwise(w):
    tf = _tf()

    def f(x, y, c, r):
        return x + y, x - c, x * r, y * c, r - x, tf.maximum(x, y), tf.minimum(x, r), tf.minimum(y, 0.25)

    return f


@qcase("activations", "LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU, RELU6, GELU (own input), PRELU "
       "(per-channel alpha) in int8; ELU stays float32 between DEQUANTIZE and QUANTIZE (TF 2.21's "
       "quantizer has no int8 ELU)", [F(1, 4, 6, 4, lo=-6, hi=6), F(1, 4, 6, 4, lo=-4, hi=4),
                               F(1, 4, 6, 4, lo=-3, hi=3)])
def _activations(w):
    tf = _tf()
    alpha = w(1, 1, 4, lo=0.05, hi=0.6)

    def f(x, g, p):
        return (
            tf.sigmoid(x),
            tf.tanh(x),
            x * tf.nn.relu6(x + 3.0) / 6.0,
            tf.nn.leaky_relu(x, 0.2),
            tf.nn.relu6(x),
            tf.nn.elu(x),
            tf.nn.gelu(g, approximate=False),
            tf.nn.relu(p) + (-alpha) * tf.nn.relu(-p),
        )

    return f


@qcase("reductions", "MEAN over H,W (keep dims) and over the last axis, SUM, REDUCE_MAX",
       [F(1, 5, 6, 4, lo=-2, hi=2)])
def _reductions(w):
    tf = _tf()

    def f(x):
        return (
            tf.reduce_mean(x, [1, 2], keepdims=True),
            tf.reduce_mean(x, -1),
            tf.reduce_mean(x, 1),
            tf.reduce_sum(x, [1, 2]),
            tf.reduce_max(x, 2),
        )

    return f


@qcase("data_movement", "CONCATENATION, PAD, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, TRANSPOSE, "
       "STRIDED_SLICE, SPACE_TO_DEPTH", [F(1, 4, 6, 3), F(1, 4, 6, 2, lo=-2, hi=2)])
def _data_movement(w):
    tf = _tf()

    def f(x, y):
        # The converter leaves these ops in float when they read a model input and write a model
        # output directly, so they read the results of a quantized ADD/MUL instead.
        h, g = x + 0.25, y * 1.5
        return (
            tf.concat([x, y], -1),
            tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]),
            tf.image.resize(h, [7, 9], method="bilinear"),
            tf.image.resize(g, [8, 12], method="nearest"),
            tf.transpose(h, [0, 3, 1, 2]),
            h[:, 1:4:2, ::2, :],
            tf.nn.space_to_depth(y, 2),
        )

    return f


@qcase("transpose_conv", "TRANSPOSE_CONV: 3x3 stride-2 SAME with bias, 2x2 stride-2 VALID",
       [F(1, 5, 5, 4)])
def _transpose_conv(w):
    tf = _tf()
    k1, b1 = w(3, 3, 3, 4), w(3, scale=0.1)
    k2 = w(2, 2, 6, 4)

    def f(x):
        return tf.nn.conv2d_transpose(x, k1, [1, 10, 10, 3], 2, "SAME") + b1, \
            tf.nn.conv2d_transpose(x, k2, [1, 10, 10, 6], 2, "VALID")

    return f


@qcase("batch_matmul", "BATCH_MATMUL of two activations (batch 2, and adjoint y)",
       [F(2, 3, 5), F(2, 5, 4), F(2, 6, 5, lo=-2, hi=2)])
def _batch_matmul(w):
    tf = _tf()

    def f(a, b, c):
        return tf.matmul(a, b), tf.matmul(a, c, adjoint_b=True)

    return f


@qcase("arg_max", "ARG_MAX over the last axis of a quantized sum (int32 result)",
       [F(2, 3, 7), F(2, 3, 7)])
def _arg_max(w):
    tf = _tf()

    def f(x, y):
        return tf.argmax(x + y, -1, output_type=tf.int32)

    return f


# --------------------------------------------------------------------------------------------
# Float I/O around an int8 core, 16x8, dynamic range


@qcase("edges", "QUANTIZE/DEQUANTIZE at the edges: float32 I/O around an int8 CONV_2D, ADD, "
       "FULLY_CONNECTED and SOFTMAX", [F(1, 8, 8, 3)], schemes=("float",), keras=True)
def _edges(w):
    import keras

    layers = keras.layers
    x = keras.Input((8, 8, 3), batch_size=1)
    y = layers.Conv2D(6, 3, padding="same", activation="relu")(x)
    z = layers.Conv2D(6, 3, padding="same")(y)
    y = layers.GlobalAveragePooling2D()(layers.Add()([y, z]))
    logits = layers.Dense(5)(y)
    return randomize_keras_weights(keras.Model(x, [logits, layers.Softmax()(logits)]), w.seed)


@qcase("cnn", "16x8 (int16 activations, int8 weights): CONV_2D, residual ADD, FULLY_CONNECTED, SOFTMAX",
       [F(1, 8, 8, 3)], schemes=("int16x8",), keras=True)
def _cnn_16x8(w):
    import keras

    layers = keras.layers
    x = keras.Input((8, 8, 3), batch_size=1)
    y = layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    z = layers.Conv2D(8, 3, padding="same")(y)
    y = layers.Add()([y, z])
    y = layers.Flatten()(layers.MaxPooling2D(2)(y))
    logits = layers.Dense(6)(y)
    return randomize_keras_weights(keras.Model(x, [logits, layers.Softmax()(logits)]), w.seed)


@qcase("hybrid", "Dynamic range: float I/O, int8 weights (1024+ elements) in FULLY_CONNECTED, CONV_2D "
       "and DEPTHWISE_CONV_2D (hybrid kernels)", [F(1, 6, 6, 16), F(2, 64)], schemes=("dynamic",))
def _hybrid(w):
    tf = _tf()
    k_conv, b_conv = w(3, 3, 16, 16), w(16, scale=0.1)
    k_dw, b_dw = w(3, 3, 128, 1), w(128, scale=0.1)
    k_fc, b_fc = w(64, 32), w(32, scale=0.1)
    k_up = w(1, 1, 16, 128)

    def f(x, v):
        c = tf.nn.conv2d(x, k_conv, 1, "SAME") + b_conv
        d = tf.nn.depthwise_conv2d(tf.nn.conv2d(x, k_up, 1, "VALID"), k_dw, [1, 1, 1, 1], "SAME") + b_dw
        return c, d, tf.matmul(v, k_fc) + b_fc

    return f
