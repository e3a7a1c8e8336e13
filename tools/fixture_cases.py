"""The cases behind tools/make_fixtures.py: small TensorFlow graphs that together cover every
TFLite operator the Swift runtime implements.

Each case is registered with @case(name, description, inputs) on a builder. A builder receives a
seeded `Weights` factory and returns either a Python function of tensors (converted through
tf.function with the inputs' TensorSpecs) or, with keras=True, a Keras model. Inputs are drawn from
the `In` specs, in the order they are listed, which is also the model's input order.

Notes on getting the converter to emit particular operators (TF 2.21):
- PRELU only from relu(x) + (-alpha) * relu(-x) with alpha of rank (input rank - 1).
- GELU patterns fail when two GELUs share subexpressions, so each gets its own input.
- A RELU/RELU6 is fused into ADD/SUB/MUL/DIV only when the op's result has no other user.
- SQUEEZE survives only with two or more unknown dims, EXPAND_DIMS with one; otherwise both become
  RESHAPE. SHAPE and FILL survive only with an unknown dim.
- Dynamic dims are 1 in the committed inputs (LiteRT's size before any resize).

Importing this module does not import TensorFlow; builders do, when called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

REQUIRED_OPS = """
CONV_2D DEPTHWISE_CONV_2D FULLY_CONNECTED TRANSPOSE_CONV ADD SUB MUL DIV SQUARED_DIFFERENCE MAXIMUM
MINIMUM AVERAGE_POOL_2D MAX_POOL_2D MEAN SUM REDUCE_MAX SOFTMAX LOGISTIC TANH RELU RELU6
RELU_N1_TO_1 LEAKY_RELU PRELU ELU HARD_SWISH GELU EXP LOG SQRT RSQRT NEG ABS RESHAPE SQUEEZE
EXPAND_DIMS CONCATENATION PACK UNPACK SPLIT SPLIT_V SLICE STRIDED_SLICE GATHER GATHER_ND TRANSPOSE
PAD PADV2 MIRROR_PAD RESIZE_BILINEAR RESIZE_NEAREST_NEIGHBOR SPACE_TO_DEPTH DEPTH_TO_SPACE
BATCH_MATMUL SHAPE FILL CAST ARG_MAX ARG_MIN FLOOR_DIV FLOOR_MOD SPACE_TO_BATCH_ND
BATCH_TO_SPACE_ND DEQUANTIZE
""".split()

REQUIRED_FUSED = [
    "CONV_2D+RELU", "CONV_2D+RELU6", "DEPTHWISE_CONV_2D+RELU6", "FULLY_CONNECTED+RELU",
    "ADD+RELU", "ADD+RELU6", "MUL+RELU6",
]

DEFAULT_TOLERANCE = 1e-4


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class In:
    """One model input: its TensorSpec shape (None = dynamic dim) and how to draw its values.

    Data shapes replace None by 1, which is the size LiteRT gives a dynamic dimension before any
    resize, so the committed inputs always fit the model as loaded.
    kind: "uniform" in [lo, hi); "signed" = magnitude in [lo, hi) (integers: [lo, hi]) with a
    random sign, which keeps divisors away from zero; "int" in [lo, hi] inclusive; "bool".
    """

    shape: tuple
    dtype: str = "float32"
    lo: float = -1.0
    hi: float = 1.0
    kind: str = "uniform"
    name: str | None = None

    @property
    def data_shape(self) -> tuple[int, ...]:
        return tuple(1 if d is None else int(d) for d in self.shape)

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        shape = self.data_shape
        if self.kind == "uniform":
            values = rng.uniform(self.lo, self.hi, shape)
        elif self.kind == "signed" and np.dtype(self.dtype).kind in "iu":
            values = rng.integers(int(self.lo), int(self.hi), shape, endpoint=True) * rng.choice([-1, 1], shape)
        elif self.kind == "signed":
            values = rng.uniform(self.lo, self.hi, shape) * rng.choice([-1.0, 1.0], shape)
        elif self.kind == "int":
            values = rng.integers(int(self.lo), int(self.hi), shape, endpoint=True)
        elif self.kind == "bool":
            values = rng.integers(0, 2, shape).astype(bool)
        else:
            raise ValueError(f"unknown input kind {self.kind}")
        return np.ascontiguousarray(values.astype(self.dtype))


def F(*shape, lo=-1.0, hi=1.0, kind="uniform", name=None) -> In:
    return In(tuple(shape), "float32", lo, hi, kind, name)


def I32(*shape, lo=-10, hi=10, name=None) -> In:
    return In(tuple(shape), "int32", lo, hi, "int", name)


def I64(*shape, lo=-10, hi=10, name=None) -> In:
    return In(tuple(shape), "int64", lo, hi, "int", name)


def B(*shape, name=None) -> In:
    return In(tuple(shape), "bool", 0, 1, "bool", name)


class Weights:
    """Seeded constant weights for tf.function cases (they become the model's buffers)."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape, scale=None, lo=None, hi=None):
        import tensorflow as tf

        if lo is not None:
            values = self.rng.uniform(lo, hi, shape)
        else:
            fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
            values = self.rng.normal(0.0, scale if scale is not None else (2.0 / fan_in) ** 0.5, shape)
        return tf.constant(values.astype(np.float32))


def randomize_keras_weights(model, seed: int):
    """Replaces a Keras model's initial weights by seeded ones that keep activations O(1).

    Keras' default initializers plus identity BatchNorm statistics make deep nets such as
    MobileNetV2 shrink every activation towards 0 (outputs ~1e-10), which would make a parity test
    meaningless. Convolutions (also transposed and the pointwise half of separable ones) and dense
    layers get N(0, 1/fan_in), depthwise kernels N(0, 2/fan_in), biases and BatchNorm parameters
    small random values. Layers nested inside others (MultiHeadAttention's projections) keep their
    Keras initialization. Returns the model.
    """
    import keras

    rng = np.random.default_rng(seed)

    def draw(variable, values):
        variable.assign(values.astype(np.float32))

    for layer in model.layers:
        if isinstance(layer, keras.layers.DepthwiseConv2D):
            shape = layer.kernel.shape
            draw(layer.kernel, rng.normal(0.0, (2.0 / (shape[0] * shape[1])) ** 0.5, shape))
        elif isinstance(layer, keras.layers.SeparableConv2D):
            shape = layer.depthwise_kernel.shape
            draw(layer.depthwise_kernel, rng.normal(0.0, (2.0 / (shape[0] * shape[1])) ** 0.5, shape))
            shape = layer.pointwise_kernel.shape
            draw(layer.pointwise_kernel, rng.normal(0.0, (1.0 / shape[2]) ** 0.5, shape))
        elif isinstance(layer, keras.layers.Conv2DTranspose):
            # kernel is (h, w, out, in); each output sees about h*w*in/stride^2 products.
            shape = layer.kernel.shape
            fan_in = shape[0] * shape[1] * shape[3] / (layer.strides[0] * layer.strides[1])
            draw(layer.kernel, rng.normal(0.0, (1.0 / fan_in) ** 0.5, shape))
        elif isinstance(layer, (keras.layers.Conv2D, keras.layers.Dense)):
            shape = layer.kernel.shape
            draw(layer.kernel, rng.normal(0.0, (1.0 / int(np.prod(shape[:-1]))) ** 0.5, shape))
        elif isinstance(layer, keras.layers.BatchNormalization):
            n = layer.gamma.shape
            draw(layer.gamma, rng.uniform(0.8, 1.2, n))
            draw(layer.beta, rng.uniform(-0.1, 0.1, n))
            draw(layer.moving_mean, rng.uniform(-0.1, 0.1, n))
            draw(layer.moving_variance, rng.uniform(0.5, 1.5, n))
            continue
        else:
            continue
        if getattr(layer, "bias", None) is not None:
            draw(layer.bias, rng.uniform(-0.1, 0.1, layer.bias.shape))
    return model


# --------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    name: str
    description: str
    inputs: list[In]
    build: Callable  # (Weights) -> python function of tensors, or a keras.Model if keras=True
    keras: bool = False
    fp16: bool = False
    tolerance: float = DEFAULT_TOLERANCE


CASES: list[Case] = []


def case(name: str, description: str, inputs: list[In], **options):
    def register(build):
        CASES.append(Case(name, description, inputs, build, **options))
        return build

    return register


def _tf():
    import tensorflow as tf

    return tf


@case("conv2d", "CONV_2D: 3x3 SAME (+RELU), 3x3 stride-2 VALID (+RELU6), 1x1, stride-2 SAME with "
      "asymmetric padding", [F(1, 9, 9, 3), F(1, 8, 8, 3)])
def _conv2d(w):
    tf = _tf()
    k1, b1 = w(3, 3, 3, 8), w(8, scale=0.1)
    k2, b2 = w(3, 3, 8, 6), w(6, scale=0.1)
    k3, b3 = w(1, 1, 3, 4), w(4, scale=0.1)
    k4, b4 = w(3, 3, 3, 5), w(5, scale=0.1)

    def f(x, x2):
        y1 = tf.nn.relu(tf.nn.conv2d(x, k1, 1, "SAME") + b1)
        y2 = tf.nn.relu6(tf.nn.conv2d(y1, k2, 2, "VALID") + b2)
        y3 = tf.nn.conv2d(x, k3, 1, "VALID") + b3
        y4 = tf.nn.conv2d(x2, k4, 2, "SAME") + b4
        return y2, y3, y4

    return f


@case("conv2d_dilated", "CONV_2D with dilation 2 (SAME and VALID) and a 2x3 rectangular kernel "
      "with stride (1,2)", [F(1, 10, 11, 4)])
def _conv2d_dilated(w):
    tf = _tf()
    k1, k2, k3 = w(3, 3, 4, 6), w(3, 3, 4, 3), w(2, 3, 4, 5)

    def f(x):
        y1 = tf.nn.conv2d(x, k1, 1, "SAME", dilations=2)
        y2 = tf.nn.conv2d(x, k2, 1, "VALID", dilations=2)
        y3 = tf.nn.conv2d(x, k3, (1, 2), "VALID")
        return y1, y2, y3

    return f


@case("depthwise_conv2d", "DEPTHWISE_CONV_2D: multiplier 1 SAME (+RELU6), multiplier 2 stride-2 "
      "VALID, dilation 2", [F(1, 10, 10, 4)])
def _depthwise(w):
    tf = _tf()
    k1, b1 = w(3, 3, 4, 1), w(4, scale=0.1)
    k2, b2 = w(3, 3, 4, 2), w(8, scale=0.1)
    k3 = w(3, 3, 4, 1)

    def f(x):
        y1 = tf.nn.relu6(tf.nn.depthwise_conv2d(x, k1, [1, 1, 1, 1], "SAME") + b1)
        y2 = tf.nn.depthwise_conv2d(y1, k2, [1, 2, 2, 1], "VALID") + b2
        y3 = tf.nn.depthwise_conv2d(x, k3, [1, 1, 1, 1], "SAME", dilations=[2, 2])
        return y2, y3

    return f


@case("fully_connected", "FULLY_CONNECTED: 2-layer MLP (+RELU), and a rank-3 input", [F(3, 20), F(1, 5, 8)])
def _fully_connected(w):
    tf = _tf()
    w1, b1 = w(20, 16), w(16, scale=0.1)
    w2, b2 = w(16, 10), w(10, scale=0.1)
    w3 = w(8, 6)

    def f(x, seq):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        y = tf.matmul(h, w2) + b2
        y_seq = tf.reshape(tf.matmul(tf.reshape(seq, [5, 8]), w3), [1, 5, 6])
        return y, y_seq

    return f


@case("transpose_conv", "TRANSPOSE_CONV: 3x3 stride-2 SAME with bias, 3x3 stride-1 VALID, 2x2 "
      "stride-2 VALID", [F(1, 5, 5, 4)])
def _transpose_conv(w):
    tf = _tf()
    k1, b1 = w(3, 3, 3, 4), w(3, scale=0.1)
    k2 = w(3, 3, 2, 4)
    k3 = w(2, 2, 6, 4)

    def f(x):
        y1 = tf.nn.conv2d_transpose(x, k1, [1, 10, 10, 3], 2, "SAME") + b1
        y2 = tf.nn.conv2d_transpose(x, k2, [1, 7, 7, 2], 1, "VALID")
        y3 = tf.nn.conv2d_transpose(x, k3, [1, 10, 10, 6], 2, "VALID")
        return y1, y2, y3

    return f


@case("binary_arith", "ADD, SUB, MUL, DIV: same shapes and broadcasting (channel vector, "
      "row vector, scalar)", [F(1, 4, 5, 3), F(1, 4, 5, 3), F(3, lo=0.5, hi=2.0, kind="signed"),
                              F(1, 4, 1, 3)])
def _binary_arith(w):
    def f(x, y, c, r):
        return x + y, x - c, x * r, x / c, y / (r * r + 0.5), 2.0 - x, x * 0.5 + r

    return f


@case("binary_fused", "ADD/SUB/MUL/DIV with a fused RELU or RELU6 (the converter folds the "
      "activation into the op)", [F(2, 6, lo=-3, hi=3), F(2, 6, lo=-3, hi=3),
                                  F(2, 6, lo=0.5, hi=3, kind="signed")])
def _binary_fused(w):
    tf = _tf()

    def f(x, y, d):
        # Each sum/product feeds exactly one activation; a shared one would not be fused.
        return tf.nn.relu(x + y), tf.nn.relu6(x + d), tf.nn.relu6(x * y), tf.nn.relu(x - y), tf.nn.relu6(y / d)

    return f


@case("minmax_sqdiff", "MAXIMUM, MINIMUM (with broadcast scalar) and SQUARED_DIFFERENCE",
      [F(2, 3, 4), F(2, 3, 4), F(4)])
def _minmax(w):
    tf = _tf()

    def f(x, y, v):
        return tf.maximum(x, y), tf.minimum(x, 0.25), tf.minimum(x, v), tf.math.squared_difference(x, y)

    return f


@case("pooling", "AVERAGE_POOL_2D and MAX_POOL_2D: VALID and SAME padding (averages exclude "
      "padding), strides 1 and 2", [F(1, 9, 9, 3)])
def _pooling(w):
    tf = _tf()

    def f(x):
        return (
            tf.nn.avg_pool2d(x, 2, 2, "VALID"),
            tf.nn.avg_pool2d(x, 3, 2, "SAME"),
            tf.nn.max_pool2d(x, 3, 2, "SAME"),
            tf.nn.max_pool2d(x, 2, 1, "VALID"),
            tf.nn.avg_pool2d(x, (2, 3), (1, 2), "SAME"),
        )

    return f


@case("reductions", "MEAN, SUM, REDUCE_MAX over various axes, with and without keep_dims",
      [F(2, 4, 5, 3)])
def _reductions(w):
    tf = _tf()

    def f(x):
        return (
            tf.reduce_mean(x, [1, 2], keepdims=True),
            tf.reduce_mean(x, -1),
            tf.reduce_sum(x, 3),
            tf.reduce_sum(x, [1, 2]),
            tf.reduce_max(x, 1),
            tf.reduce_max(x, [0, 3], keepdims=True),
        )

    return f


@case("softmax", "SOFTMAX on rank 2 and rank 4, and with a beta other than 1",
      [F(2, 10, lo=-5, hi=5), F(1, 3, 4, 5, lo=-5, hi=5)])
def _softmax(w):
    tf = _tf()

    def f(x, y):
        return tf.nn.softmax(x), tf.nn.softmax(y), tf.nn.softmax(x * 0.5)

    return f


@case("activations", "LOGISTIC, TANH, RELU, RELU6, RELU_N1_TO_1 as standalone ops",
      [F(2, 3, 8, lo=-7, hi=7)])
def _activations(w):
    tf = _tf()

    def f(x):
        return tf.sigmoid(x), tf.tanh(x), tf.nn.relu(x), tf.nn.relu6(x), tf.clip_by_value(x, -1.0, 1.0)

    return f


@case("activations_more", "LEAKY_RELU, ELU, HARD_SWISH (x*relu6(x+3)/6), GELU (exact and tanh "
      "approximation; on separate inputs so the converter's GELU patterns do not share terms)",
      [F(2, 3, 8, lo=-5, hi=5), F(2, 3, 8, lo=-5, hi=5)])
def _activations_more(w):
    tf = _tf()

    def f(x, y):
        return (
            tf.nn.leaky_relu(x, 0.2),
            tf.nn.elu(x),
            x * tf.nn.relu6(x + 3.0) / 6.0,
            tf.nn.gelu(x, approximate=False),
            tf.nn.gelu(y, approximate=True),
        )

    return f


@case("prelu", "PRELU: per-channel alpha broadcast over H and W, and full-shape alpha (the "
      "converter matches Keras' relu(x) - alpha*relu(-x) when alpha has rank 3)",
      [F(1, 5, 6, 4, lo=-3, hi=3), F(1, 5, 6, 4, lo=-3, hi=3)])
def _prelu(w):
    tf = _tf()
    per_channel = w(1, 1, 4, lo=0.05, hi=0.6)
    full = w(5, 6, 4, lo=-0.5, hi=0.5)

    def f(x, y):
        return tf.nn.relu(x) + (-per_channel) * tf.nn.relu(-x), tf.nn.relu(y) + (-full) * tf.nn.relu(-y)

    return f


@case("unary_math", "EXP, LOG, SQRT, RSQRT (positive inputs), NEG, ABS",
      [F(3, 7, lo=-4, hi=4), F(3, 7, lo=0.05, hi=20)])
def _unary_math(w):
    tf = _tf()

    def f(x, p):
        return tf.exp(x), tf.math.log(p), tf.sqrt(p), tf.math.rsqrt(p), -x, tf.abs(x)

    return f


@case("reshape_squeeze_expand", "RESHAPE, SQUEEZE and EXPAND_DIMS; dynamic dims keep the converter "
      "from turning SQUEEZE/EXPAND_DIMS into RESHAPE (SQUEEZE needs two unknown dims for that)",
      [F(None, 1, 6, 1, None), F(None, 3, 4)])
def _reshape(w):
    tf = _tf()

    def f(x, y):
        return (
            tf.squeeze(x, [1, 3]) * 2.0,
            tf.expand_dims(y, 1) + 1.0,
            tf.expand_dims(y, -1) * 3.0,
            tf.reshape(y, [-1, 2, 6]),
            tf.reshape(x, [2, 3]) - 1.0,
        )

    return f


@case("concat_pack_unpack", "CONCATENATION on several axes, PACK, UNPACK", [F(2, 3, 4), F(2, 3, 4), F(2, 3, 2)])
def _concat(w):
    tf = _tf()

    def f(x, y, z):
        a, b, c = tf.unstack(x, axis=1)
        return (
            tf.concat([x, y], 1),
            tf.concat([x, z, y], -1),
            tf.concat([x, y], 0),
            tf.stack([x, y], 0),
            tf.stack([x, y, x], 2),
            a, b, c,
        )

    return f


@case("split", "SPLIT (equal parts) and SPLIT_V (explicit sizes, one inferred)", [F(2, 4, 6, 6)])
def _split(w):
    tf = _tf()

    def f(x):
        s0, s1 = tf.split(x, 2, axis=3)
        v0, v1, v2 = tf.split(x, [1, 3, -1], axis=2)
        t0, t1, t2 = tf.split(x, 3, axis=-1)
        return s0, s1, v0, v1, v2, t2

    return f


@case("slice", "SLICE and STRIDED_SLICE (strides, negative stride, shrink axis, ellipsis, "
      "new axis)", [F(2, 6, 8, 3)])
def _slice(w):
    tf = _tf()

    def f(x):
        return (
            tf.slice(x, [0, 1, 2, 0], [1, 3, 4, 2]),
            tf.slice(x, [1, 0, 0, 1], [-1, 2, -1, -1]),
            x[:, 1:5:2, ::-1, 1],
            x[..., :2],
            x[1, :, 3:, tf.newaxis, 0],
            x[:, -3:, 1:7:3],
        )

    return f


@case("gather", "GATHER with int32 and int64 indices on axes 0 and 1, and GATHER_ND",
      [F(5, 4, 3), I32(2, 3, lo=0, hi=4), I64(4, lo=0, hi=3), I32(3, 2, lo=0, hi=3)])
def _gather(w):
    tf = _tf()

    def f(params, idx, idx64, idx_nd):
        return (
            tf.gather(params, idx, axis=0),
            tf.gather(params, idx64, axis=1),
            tf.gather_nd(params, idx_nd),
            tf.gather(params, [2, 0, 1, 2], axis=2),
        )

    return f


@case("transpose", "TRANSPOSE of rank 2, 3, 4 and 5 tensors", [F(2, 3, 4, 5), F(3, 4, 5), F(2, 3, 1, 2, 3)])
def _transpose(w):
    tf = _tf()

    def f(x, y, z):
        return (
            tf.transpose(x, [0, 3, 1, 2]),
            tf.transpose(x, [3, 2, 1, 0]),
            tf.transpose(y, [2, 0, 1]),
            tf.transpose(y[0]),
            tf.transpose(z, [4, 1, 0, 3, 2]),
        )

    return f


@case("pad", "PAD (zeros), PADV2 (constant 0.5), MIRROR_PAD in REFLECT and SYMMETRIC mode",
      [F(1, 4, 5, 3)])
def _pad(w):
    tf = _tf()

    def f(x):
        return (
            tf.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]]),
            tf.pad(x, [[0, 0], [2, 1], [1, 1], [1, 0]], constant_values=0.5),
            tf.pad(x, [[0, 0], [2, 2], [3, 1], [0, 0]], mode="REFLECT"),
            tf.pad(x, [[0, 0], [1, 3], [2, 0], [0, 1]], mode="SYMMETRIC"),
        )

    return f


@case("resize", "RESIZE_BILINEAR (half-pixel, align-corners, legacy; up and down) and "
      "RESIZE_NEAREST_NEIGHBOR (half-pixel, align-corners, legacy)", [F(1, 5, 7, 3)])
def _resize(w):
    tf = _tf()
    v1 = tf.compat.v1.image

    def f(x):
        return (
            tf.image.resize(x, [10, 14], method="bilinear"),
            tf.image.resize(x, [3, 4], method="bilinear"),
            v1.resize_bilinear(x, [9, 11], align_corners=True),
            v1.resize_bilinear(x, [8, 9]),
            tf.image.resize(x, [11, 13], method="nearest"),
            v1.resize_nearest_neighbor(x, [9, 12], align_corners=True),
            v1.resize_nearest_neighbor(x, [7, 10]),
        )

    return f


@case("space_depth", "SPACE_TO_DEPTH and DEPTH_TO_SPACE with block size 2", [F(1, 4, 6, 3), F(1, 2, 3, 8)])
def _space_depth(w):
    tf = _tf()

    def f(x, y):
        return tf.nn.space_to_depth(x, 2), tf.nn.depth_to_space(y, 2)

    return f


@case("space_batch", "SPACE_TO_BATCH_ND (with and without padding) and BATCH_TO_SPACE_ND (with "
      "and without crops)", [F(1, 4, 6, 2), F(2, 3, 4, 2), F(4, 2, 3, 3)])
def _space_batch(w):
    tf = _tf()

    def f(x, y, z):
        return (
            tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]),
            tf.space_to_batch_nd(y, [2, 3], [[1, 0], [1, 1]]),
            tf.batch_to_space(z, [2, 2], [[0, 0], [0, 0]]),
            tf.batch_to_space(z, [2, 2], [[1, 0], [0, 2]]),
        )

    return f


@case("batch_matmul", "BATCH_MATMUL: plain, adjoint x/y, and batch broadcasting",
      [F(2, 3, 4), F(2, 4, 5), F(2, 5, 4), F(3, 4, 2), F(2, 1, 3, 4)])
def _batch_matmul(w):
    tf = _tf()

    def f(a, b, c, d, e):
        return (
            tf.matmul(a, b),
            tf.matmul(a, c, transpose_b=True),
            tf.matmul(b, a, transpose_a=True, transpose_b=True),
            tf.matmul(e, d),
        )

    return f


@case("shape_fill", "SHAPE (int32 and int64 results) and FILL from a dynamic shape; the dynamic "
      "batch dim keeps the converter from folding them", [F(None, 3, 4)])
def _shape_fill(w):
    tf = _tf()

    def f(x):
        s = tf.shape(x)
        return s, tf.shape(x, out_type=tf.int64), tf.fill(s, 1.5) + x, tf.fill([s[0], 2], 2.0)

    return f


@case("cast", "CAST between float32, int32, int64 and bool", [F(2, 5, lo=-5, hi=5), I32(2, 5, lo=-3, hi=3),
                                                              B(2, 5), I64(2, 5, lo=-1000, hi=1000)])
def _cast(w):
    tf = _tf()

    def f(x, i, b, l):
        return (
            tf.cast(x, tf.int32),
            tf.cast(i, tf.float32) * x,
            tf.cast(b, tf.float32) + x,
            tf.cast(i, tf.bool),
            tf.cast(x, tf.int64),
            tf.cast(l, tf.float32),
            tf.cast(l, tf.int32),
        )

    return f


@case("arg_max_min", "ARG_MAX and ARG_MIN with int64 and int32 results, float and int32 inputs",
      [F(2, 5, 7), I32(3, 6, lo=-1000, hi=1000)])
def _arg(w):
    tf = _tf()

    def f(x, i):
        return (
            tf.argmax(x, axis=-1),
            tf.argmin(x, axis=1, output_type=tf.int32),
            tf.argmax(x, axis=0, output_type=tf.int32),
            tf.argmin(i, axis=1),
        )

    return f


@case("floor_div_mod", "FLOOR_DIV and FLOOR_MOD on float32 and int32 (signs mixed, so floor and "
      "truncation differ)", [F(3, 5, lo=-10, hi=10), F(3, 5, lo=0.5, hi=4, kind="signed"),
                             I32(3, 5, lo=-20, hi=20), In((3, 5), "int32", 1, 6, "signed")])
def _floor(w):
    tf = _tf()

    def f(x, y, a, b):
        return (
            tf.math.floordiv(x, y),
            tf.math.floormod(x, y),
            tf.math.floordiv(a, b),
            tf.math.floormod(a, b),
        )

    return f


@case("int_arith", "int32 ADD, SUB, MUL, MAXIMUM, MINIMUM and int64 ADD", [I32(2, 6, lo=-100, hi=100),
                                                                            I32(2, 6, lo=-100, hi=100),
                                                                            I64(6, lo=-10**6, hi=10**6)])
def _int_arith(w):
    tf = _tf()

    def f(a, b, c):
        return a + b, a - b, a * b, tf.maximum(a, b), tf.minimum(a, 3), c + c * 2

    return f


@case("fp16_weights", "DEQUANTIZE: a small conv/dense net whose float16 weights are dequantized "
      "to float32 at load time (converter Optimize.DEFAULT + float16); outputs logits and softmax",
      [F(1, 12, 12, 3)], keras=True, fp16=True)
def _fp16(w):
    import keras

    x = keras.Input((12, 12, 3), batch_size=1)
    y = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)
    y = keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6")(y)
    y = keras.layers.Conv2D(24, 1)(y)
    y = keras.layers.GlobalAveragePooling2D()(y)
    logits = keras.layers.Dense(10)(y)
    return randomize_keras_weights(keras.Model(x, [logits, keras.layers.Softmax()(logits)]), w.seed)


@case("small_cnn", "A small Keras CNN end to end: Conv2D+BatchNorm+ReLU, MaxPool, residual "
      "ADD+RELU, global average pool, Dense; outputs logits and softmax", [F(1, 16, 16, 3)], keras=True)
def _small_cnn(w):
    import keras

    layers = keras.layers
    x = keras.Input((16, 16, 3), batch_size=1)
    y = layers.Conv2D(8, 3, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.MaxPooling2D(2)(y)
    z = layers.Conv2D(8, 3, padding="same", activation="relu")(y)
    z = layers.Conv2D(8, 3, padding="same")(z)
    y = layers.ReLU()(layers.Add()([y, z]))
    y = layers.GlobalAveragePooling2D()(y)
    logits = layers.Dense(5)(y)
    return randomize_keras_weights(keras.Model(x, [logits, layers.Softmax()(logits)]), w.seed)


@case("mobilenet_v2", "MobileNetV2 alpha 0.35, 96x96 input, seeded random weights scaled to keep "
      "activations O(1), 16-class logits (a 1000-class head would be 6.6 MB)", [F(1, 96, 96, 3)],
      keras=True)
def _mobilenet_v2(w):
    import keras

    model = keras.applications.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), weights=None, classes=16,
                                           classifier_activation=None)
    return randomize_keras_weights(model, w.seed)
