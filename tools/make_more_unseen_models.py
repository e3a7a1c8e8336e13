#!/usr/bin/env python3
"""Builds a second set of unseen float and quantized models, for a manual parity check.

    python3 tools/make_more_unseen_models.py [--out out/more_unseen] [--only NAME ...]
    python3 tools/parity_live.py --mlkit .build/release/mlkit --extra out/more_unseen --strict-quantized

tools/make_unseen_models.py covers MobileNetV3, a separable/transpose autoencoder, bilinear
resizing and one transformer block. These are architectures and op mixes it lacks:

    efficientnet_b0      Keras EfficientNetB0 (96x96): swish, squeeze-excite, Rescaling/Normalization
    resnet_v2_small      pre-activation ResNet (BatchNorm-ReLU-Conv, ZeroPadding2D, MaxPool, projection)
    densenet121          Keras DenseNet121 (64x64): dense blocks of CONCATENATION, AveragePooling
    xception_like        SeparableConv2D stacks with strided 1x1 residual projections, MaxPool 3x3/2
    convnext_block       ConvNeXt stem + blocks: depthwise 7x7, LayerNormalization, GELU, layer scale
    vit_tiny             patch-embedding Conv2D, class token, position embedding, MultiHeadAttention
    conv1d_keyword       Conv1D / MaxPooling1D / GlobalAveragePooling1D audio keyword model
    lstm_sequence        stacked Keras LSTM + Bidirectional LSTM (this converter lowers Keras 3
                         LSTMs to WHILE loops with REVERSE_V2, not UNIDIRECTIONAL_SEQUENCE_LSTM)
    gru_sequence         Keras GRU (a WHILE loop over subgraphs)
    conv3d_video         Conv3D stack (CONV_3D; Keras' 3D pools are not TFLite builtins)
    two_in_two_out       a vector and an image input, a class and a box output
    odd_shapes_cnn       non-square 37x29 input, 5x5 stride-3 conv with 13 channels, dilated
                         depthwise with multiplier 3, grouped conv, 3x3/2 average pool,
                         stride-3 TRANSPOSE_CONV, FULLY_CONNECTED on a rank-3 input
    causal_attention     MultiHeadAttention with a causal mask (SELECT_V2)
    dynamic_batch_mlp    tf.function with batch dimension None (shape_signature -1): MLP, softmax
    dynamic_length_audio / dynamic_tokens_attention / dynamic_image
                         tf.function models with a None time, token or image-size dimension
                         (SHAPE, RANGE, FILL, resize to the input's size)
    tensor_ops           tf.function: gather, where, top_k, argsort, resize nearest, reduce
                         max/min/prod, cumsum, space_to_depth/depth_to_space, reflect pad,
                         strided_slice with masks, split/unstack, int32/int64 index math, cast
    tensor_ops_more      l2_normalize, log_softmax, reverse, LRN, einsum, unsorted_segment_sum,
                         batch_to_space, round/floor/ceil/sign, atan2, square, broadcast_to
    yolo_head            a YOLO-like detection head: convs, CONCATENATION, LOGISTIC, RESHAPE,
                         TRANSPOSE, grid offsets and anchor scaling (POW, TILE)
    sparse_*             pruned Dense/Conv2D weights converted with EXPERIMENTAL_SPARSITY: float
                         FULLY_CONNECTED reads 1x4-block sparse weights itself, int8 and
                         dynamic-range ones 1x16 blocks (sparse16); the others get DENSIFY

plus fp16 (float16 weights), dynamic-range (q_dynamic_*), full-integer int8 / uint8 (q_int8_*,
q_uint8_*, with a representative dataset), int8 with float32 I/O (q_float_io_*), per-tensor weight
scales (*_per_tensor_*), the old quantizer (*_old_quantizer_*) and 16x8 (q_int16x8_*) variants where
the converter makes them. Not included because TF 2.21 cannot make them: int8 LSTM/GRU (the
converter segfaults on the WHILE loops), 16x8 of models with NEG/POW/CUMSUM/... ("not yet
supported"), and per-tensor dynamic-range convolutions (LiteRT refuses them).
Weights are seeded and rescaled so activations stay O(1); nothing is downloaded. A model the
converter or LiteRT itself rejects is reported and skipped, not written. The output directory is
not committed (out/ is gitignored). Needs tools/requirements-fixtures.txt.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_cases import Case, F, randomize_keras_weights  # noqa: E402
from litert_common import make_interpreter, run  # noqa: E402
from make_fixtures import REPO, convert  # noqa: E402
from make_unseen_models import UnseenQuantizedCase, _io_types, _smoke_inputs, _tensor_types  # noqa: E402
from tflite_ops import operator_counts  # noqa: E402


def randomize_all(model, seed: int):
    """randomize_keras_weights plus the layers it leaves alone (Conv1D, LayerNormalization, custom)."""
    import keras

    randomize_keras_weights(model, seed)
    rng = np.random.default_rng(seed + 1)
    for layer in model.layers:
        if isinstance(layer, keras.layers.Conv1D) and not isinstance(layer, keras.layers.SeparableConv1D):
            shape = layer.kernel.shape
            layer.kernel.assign(rng.normal(0.0, (1.0 / (shape[0] * shape[1])) ** 0.5, shape).astype(np.float32))
            if layer.bias is not None:
                layer.bias.assign(rng.uniform(-0.1, 0.1, layer.bias.shape).astype(np.float32))
        elif isinstance(layer, keras.layers.LayerNormalization):
            layer.gamma.assign(rng.uniform(0.8, 1.2, layer.gamma.shape).astype(np.float32))
            layer.beta.assign(rng.uniform(-0.1, 0.1, layer.beta.shape).astype(np.float32))
    return model


# --------------------------------------------------------------------------------------------
# Keras architectures


def efficientnet_b0(w):
    import keras

    model = keras.applications.EfficientNetB0(
        input_shape=(96, 96, 3), weights=None, classes=50, classifier_activation=None, include_top=True,
    )
    return randomize_all(model, w.seed)


def resnet_v2_small(w):
    import keras

    layers = keras.layers
    x = keras.Input((64, 64, 3), batch_size=1)
    y = layers.ZeroPadding2D(3)(x)
    y = layers.Conv2D(16, 7, strides=2)(y)
    y = layers.ZeroPadding2D(1)(y)
    y = layers.MaxPooling2D(3, strides=2)(y)
    for filters, stride in [(16, 1), (32, 2), (64, 2)]:
        pre = layers.ReLU()(layers.BatchNormalization()(y))
        if stride != 1 or y.shape[-1] != filters * 2:
            shortcut = layers.Conv2D(filters * 2, 1, strides=stride)(pre)
        else:
            shortcut = y
        r = layers.Conv2D(filters, 1, use_bias=False)(pre)
        r = layers.ReLU()(layers.BatchNormalization()(r))
        r = layers.ZeroPadding2D(1)(r)
        r = layers.Conv2D(filters, 3, strides=stride, use_bias=False)(r)
        r = layers.ReLU()(layers.BatchNormalization()(r))
        r = layers.Conv2D(filters * 2, 1)(r)
        y = layers.Add()([shortcut, r])
    y = layers.ReLU()(layers.BatchNormalization()(y))
    y = layers.GlobalAveragePooling2D()(y)
    return randomize_all(keras.Model(x, layers.Dense(20, activation="softmax")(y)), w.seed)


def densenet121(w):
    import keras

    model = keras.applications.DenseNet121(input_shape=(64, 64, 3), weights=None, classes=30,
                                           classifier_activation=None)
    return randomize_all(model, w.seed)


def xception_like(w):
    import keras

    layers = keras.layers
    x = keras.Input((64, 64, 3), batch_size=1)
    y = layers.Conv2D(16, 3, strides=2, use_bias=False)(x)
    y = layers.Activation("relu")(layers.BatchNormalization()(y))
    for filters in (32, 64):
        residual = layers.BatchNormalization()(layers.Conv2D(filters, 1, strides=2, padding="same")(y))
        y = layers.Activation("relu")(y)
        y = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False)(y)
        y = layers.Activation("relu")(layers.BatchNormalization()(y))
        y = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False)(y)
        y = layers.BatchNormalization()(y)
        y = layers.MaxPooling2D(3, strides=2, padding="same")(y)
        y = layers.Add()([y, residual])
    y = layers.SeparableConv2D(96, 3, padding="same", depth_multiplier=2)(y)
    y = layers.GlobalMaxPooling2D()(y)
    return randomize_all(keras.Model(x, layers.Dense(10)(y)), w.seed)


def _layer_scale_class():
    import keras

    class LayerScale(keras.layers.Layer):
        """ConvNeXt's learned per-channel scale of a residual branch."""

        def __init__(self, init, **kwargs):
            super().__init__(**kwargs)
            self.init = init

        def build(self, shape):
            self.gamma = self.add_weight(shape=(shape[-1],), initializer="ones")
            self.gamma.assign(self.init)

        def call(self, x):
            return x * self.gamma

    return LayerScale


def convnext_block(w):
    import keras

    layers = keras.layers
    LayerScale = _layer_scale_class()
    rng = np.random.default_rng(w.seed)
    x = keras.Input((32, 32, 3), batch_size=1)
    y = layers.Conv2D(32, 4, strides=4)(x)
    y = layers.LayerNormalization(epsilon=1e-6)(y)
    for k in range(2):
        r = layers.DepthwiseConv2D(7, padding="same")(y)
        r = layers.LayerNormalization(epsilon=1e-6)(r)
        r = layers.Dense(128, activation="gelu")(r)
        r = layers.Dense(32)(r)
        r = LayerScale(rng.uniform(0.3, 1.0, 32).astype(np.float32))(r)
        y = layers.Add()([y, r])
    y = layers.LayerNormalization(epsilon=1e-6)(y)
    y = layers.Conv2D(64, 2, strides=2)(y)
    y = layers.GlobalAveragePooling2D()(y)
    y = layers.LayerNormalization(epsilon=1e-6)(y)
    return randomize_all(keras.Model(x, layers.Dense(10)(y)), w.seed)


def _class_token_class():
    import keras
    import tensorflow as tf

    class ClassTokenAndPosition(keras.layers.Layer):
        """Prepends a learned class token and adds learned position embeddings."""

        def __init__(self, token, position, **kwargs):
            super().__init__(**kwargs)
            self.token_init, self.position_init = token, position

        def build(self, shape):
            self.token = self.add_weight(shape=self.token_init.shape, initializer="zeros")
            self.token.assign(self.token_init)
            self.position = self.add_weight(shape=self.position_init.shape, initializer="zeros")
            self.position.assign(self.position_init)

        def call(self, x):
            token = tf.broadcast_to(self.token, [tf.shape(x)[0], 1, self.token_init.shape[-1]])
            return tf.concat([token, x], axis=1) + self.position

    return ClassTokenAndPosition


def vit_tiny(w):
    import keras

    layers = keras.layers
    rng = np.random.default_rng(w.seed)
    width, patches = 32, 16
    ClassTokenAndPosition = _class_token_class()
    x = keras.Input((32, 32, 3), batch_size=1)
    y = layers.Conv2D(width, 8, strides=8)(x)
    y = layers.Reshape((patches, width))(y)
    y = ClassTokenAndPosition(rng.normal(0, 0.5, (1, 1, width)).astype(np.float32),
                              rng.normal(0, 0.5, (1, patches + 1, width)).astype(np.float32))(y)
    for _ in range(2):
        h = layers.LayerNormalization(epsilon=1e-6)(y)
        h = layers.MultiHeadAttention(num_heads=4, key_dim=8)(h, h)
        y = layers.Add()([y, h])
        h = layers.LayerNormalization(epsilon=1e-6)(y)
        h = layers.Dense(64, activation="gelu")(h)
        h = layers.Dense(width)(h)
        y = layers.Add()([y, h])
    y = layers.LayerNormalization(epsilon=1e-6)(y)
    cls = layers.Lambda(lambda t: t[:, 0])(y)
    return randomize_all(keras.Model(x, layers.Dense(10)(cls)), w.seed)


def conv1d_keyword(w):
    import keras

    layers = keras.layers
    x = keras.Input((98, 40), batch_size=1)  # 98 frames of 40 mel bins
    y = layers.Conv1D(32, 5, padding="same", activation="relu")(x)
    y = layers.MaxPooling1D(2)(y)
    y = layers.Conv1D(48, 3, strides=2, activation="relu")(y)
    y = layers.Conv1D(48, 3, dilation_rate=2, padding="causal", activation="relu")(y)
    y = layers.AveragePooling1D(2)(y)
    y = layers.GlobalAveragePooling1D()(y)
    return randomize_all(keras.Model(x, layers.Dense(12, activation="softmax")(y)), w.seed)


def lstm_sequence(w):
    import keras

    layers = keras.layers
    x = keras.Input((20, 12), batch_size=1)
    y = layers.LSTM(24, return_sequences=True)(x)
    y = layers.Bidirectional(layers.LSTM(16, return_sequences=True))(y)
    last = layers.LSTM(16)(y)
    return randomize_all(keras.Model(x, [layers.Dense(6)(last), y]), w.seed)


def gru_sequence(w):
    import keras

    layers = keras.layers
    x = keras.Input((16, 10), batch_size=1)
    y = layers.GRU(20, return_sequences=True)(x)
    y = layers.GRU(12)(y)
    return randomize_all(keras.Model(x, layers.Dense(5)(y)), w.seed)


def two_in_two_out(w):
    import keras

    layers = keras.layers
    image = keras.Input((32, 32, 3), batch_size=1, name="image")
    meta = keras.Input((8,), batch_size=1, name="meta")
    y = layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(image)
    y = layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(y)
    y = layers.GlobalAveragePooling2D()(y)
    m = layers.Dense(16, activation="tanh")(meta)
    y = layers.Concatenate()([y, m])
    y = layers.Dense(32, activation="relu")(y)
    classes = layers.Dense(7, activation="softmax", name="classes")(y)
    box = layers.Dense(4, activation="sigmoid", name="box")(y)
    return randomize_all(keras.Model([image, meta], [classes, box]), w.seed)


def yolo_head(w):
    import keras
    import tensorflow as tf

    layers = keras.layers
    anchors = 3
    classes = 4
    x = keras.Input((64, 64, 3), batch_size=1)
    p3 = layers.Conv2D(16, 3, strides=4, padding="same", activation="swish")(x)   # 16x16
    p4 = layers.Conv2D(32, 3, strides=2, padding="same", activation="swish")(p3)  # 8x8
    up = layers.UpSampling2D(2)(p4)
    p3 = layers.Concatenate()([p3, up])
    outputs = []
    for feature, grid, stride in [(p3, 16, 4), (p4, 8, 8)]:
        raw = layers.Conv2D(anchors * (5 + classes), 1)(feature)

        def decode(t, grid=grid, stride=stride):
            t = tf.reshape(t, [1, grid, grid, anchors, 5 + classes])
            t = tf.sigmoid(t)
            gy, gx = np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij")
            offsets = np.stack([gx, gy], -1).reshape(1, grid, grid, 1, 2).astype(np.float32)
            anchor = (np.array([[10, 13], [16, 30], [33, 23]], np.float32) / 4).reshape(1, 1, 1, anchors, 2)
            xy = (t[..., 0:2] * 2.0 - 0.5 + offsets) * stride
            wh = (t[..., 2:4] * 2.0) ** 2 * anchor
            t = tf.concat([xy, wh, t[..., 4:]], axis=-1)
            return tf.reshape(t, [1, grid * grid * anchors, 5 + classes])

        outputs.append(layers.Lambda(decode)(raw))
    y = layers.Concatenate(axis=1)(outputs)
    y = layers.Lambda(lambda t: tf.transpose(t, [0, 2, 1]))(y)
    return randomize_all(keras.Model(x, y), w.seed)


# --------------------------------------------------------------------------------------------
# tf.function models


def dynamic_batch_mlp(w):
    import tensorflow as tf

    w1, w2 = w(16, 32), w(32, 8)
    b1 = w(32, lo=-0.1, hi=0.1)

    def f(x):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        h = tf.matmul(h, w2)
        return tf.nn.softmax(h), tf.reduce_sum(h, axis=-1, keepdims=True)

    return f


def tensor_ops(w):
    import tensorflow as tf

    k1 = w(3, 3, 4, 8)
    table = w(10, 6, scale=1.0)

    def f(x, v):
        # x: [1, 8, 8, 4] image-like, v: [1, 10] scores
        y = tf.nn.conv2d(x, k1, 1, "SAME")                                  # [1, 8, 8, 8]
        s2d = tf.nn.space_to_depth(y, 2)                                    # [1, 4, 4, 32]
        d2s = tf.nn.depth_to_space(s2d * 0.5, 4)                            # [1, 16, 16, 2]
        nearest = tf.image.resize(x, (12, 12), method="nearest")            # [1, 12, 12, 4]
        padded = tf.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="REFLECT")
        strided = padded[:, 1::2, ..., ::-1]                                # masks, negative stride
        halves = tf.split(y, 2, axis=3)
        rows = tf.unstack(halves[0][0, :, :, 0], axis=0)
        reduced = tf.stack([tf.reduce_max(y, axis=[1, 2]), tf.reduce_min(y, axis=[1, 2]),
                            tf.reduce_prod(tf.tanh(y) * 0.5 + 1.0, axis=[1, 2])], axis=1)
        cum = tf.cumsum(v, axis=1) + tf.cumsum(v, axis=1, exclusive=True, reverse=True)
        values, indices = tf.math.top_k(v, k=4)
        order = tf.argsort(v, axis=1, direction="DESCENDING")
        picked = tf.gather(table, indices[0])                               # [4, 6]
        idx64 = tf.cast(indices, tf.int64) * 2 + 1
        idx32 = tf.cast(tf.math.floormod(idx64, 10), tf.int32)
        regathered = tf.gather(v, idx32, axis=1, batch_dims=1)
        chosen = tf.where(v > 0.0, v, tf.cast(order, tf.float32) * -0.1)
        flags = tf.cast(tf.greater(chosen, 0.2), tf.int32)
        count = tf.reduce_sum(flags, axis=1)
        return (d2s, nearest, strided, halves[1] - rows[3][tf.newaxis, :, tf.newaxis, tf.newaxis], reduced,
                cum, values, picked, regathered, chosen, tf.cast(count, tf.float32), tf.cast(order, tf.float32))

    return f


def tensor_ops_more(w):
    import tensorflow as tf

    k = w(1, 1, 8, 8)

    def f(x, s):
        # x: [1, 6, 6, 8], s: [2, 12]
        y = tf.nn.conv2d(x, k, 1, "VALID")
        norm = tf.math.l2_normalize(y, axis=-1)
        logsm = tf.nn.log_softmax(s, axis=-1)
        rev = tf.reverse(y, axis=[1, 2])
        lrn = tf.nn.local_response_normalization(y, depth_radius=2, bias=1.0, alpha=0.5, beta=0.75)
        mixed = tf.einsum("bhwc,cd->bhwd", y, tf.reshape(k, [8, 8]))
        segments = tf.math.unsorted_segment_sum(tf.transpose(s), tf.constant([0, 1, 1, 2, 0, 2, 3, 3, 1, 0, 2, 3]), 4)
        b2s = tf.batch_to_space(tf.reshape(s, [4, 1, 3, 2]), [2, 2], [[0, 0], [0, 0]])
        rounded = tf.round(s * 3.0) + tf.floor(s * 2.0) - tf.math.ceil(s * 1.5) + tf.sign(s)
        angles = tf.math.atan2(s, tf.reverse(s, axis=[1]) + 0.1) + tf.square(s)
        bcast = tf.broadcast_to(tf.reduce_mean(s, axis=0, keepdims=True), [3, 12])
        summed = tf.reduce_sum(y, axis=[1, 2])[:, :3] + tf.reduce_mean(tf.abs(y), axis=[3])[:, 0, :3]
        return norm, logsm, rev, lrn, mixed, segments, b2s, rounded, angles, bcast, summed

    return f


def conv3d_video(w):
    import keras

    layers = keras.layers
    x = keras.Input((6, 16, 16, 3), batch_size=1)
    y = layers.Conv3D(8, 3, padding="same", activation="relu")(x)
    y = layers.Conv3D(8, 2, strides=2, activation="relu")(y)
    y = layers.Conv3D(16, (1, 3, 3), strides=(1, 2, 2), activation="relu")(y)
    y = layers.GlobalAveragePooling3D()(y)
    model = keras.Model(x, layers.Dense(5)(y))
    rng = np.random.default_rng(w.seed)
    for layer in model.layers:
        if isinstance(layer, (layers.Conv3D, layers.Dense)):
            shape = layer.kernel.shape
            layer.kernel.assign(rng.normal(0.0, (1.0 / int(np.prod(shape[:-1]))) ** 0.5, shape).astype(np.float32))
            layer.bias.assign(rng.uniform(-0.1, 0.1, layer.bias.shape).astype(np.float32))
    return model


def odd_shapes_cnn(w):
    import keras

    layers = keras.layers
    x = keras.Input((37, 29, 3), batch_size=1)
    y = layers.Conv2D(13, 5, strides=3, padding="same", activation="relu")(x)             # 13x10x13
    y = layers.DepthwiseConv2D(3, padding="same", dilation_rate=2, depth_multiplier=3)(y)  # 39 channels
    y = layers.Conv2D(18, 3, padding="valid", groups=3, activation="relu6")(y)            # grouped
    y = layers.AveragePooling2D(3, strides=2, padding="same")(y)
    y = layers.Conv2DTranspose(7, 3, strides=3, padding="valid", activation="relu")(y)
    y = layers.Conv2D(5, (1, 7), padding="same")(y)
    y = layers.Reshape((-1, 5))(y)
    y = layers.Dense(11, activation="tanh")(y)                                           # 3D input
    return randomize_all(keras.Model(x, layers.Dense(3)(y)), w.seed)


def causal_attention(w):
    import keras

    layers = keras.layers
    x = keras.Input((12, 20), batch_size=1)
    h = layers.Dense(32)(x)
    a = layers.MultiHeadAttention(num_heads=2, key_dim=16)(h, h, use_causal_mask=True)
    h = layers.LayerNormalization(epsilon=1e-5)(layers.Add()([h, a]))
    return randomize_all(keras.Model(x, layers.Dense(6)(h)), w.seed)


def dynamic_length_audio(w):
    import tensorflow as tf

    k1, k2 = w(5, 40, 24), w(3, 24, 16)
    wr, wo = w(16, 16, scale=0.3), w(16, 6)

    def f(x):
        # x: [1, None, 40]: a keyword model over any number of frames
        y = tf.nn.relu(tf.nn.conv1d(x, k1, 1, "SAME"))
        y = tf.nn.max_pool1d(y, 2, 2, "SAME")
        y = tf.nn.relu(tf.nn.conv1d(y, k2, 1, "SAME"))
        frames = tf.shape(y)[1]
        positions = tf.cast(tf.range(frames), tf.float32) / tf.cast(frames, tf.float32)
        y = y + positions[tf.newaxis, :, tf.newaxis]
        pooled = tf.reduce_mean(y, axis=1) + tf.reduce_max(y, axis=1)
        mixed = tf.tanh(tf.matmul(tf.reshape(y, [-1, 16]), wr))
        return tf.nn.softmax(tf.matmul(pooled, wo)), tf.reshape(mixed, tf.shape(y))

    return f


def dynamic_tokens_attention(w):
    import tensorflow as tf

    wq, wk, wv, wo = w(24, 24), w(24, 24), w(24, 24), w(24, 24)

    def f(x):
        # x: [1, None, 24] tokens; 2-head self-attention with a causal mask built from tf.shape
        n = tf.shape(x)[1]

        def heads(t):
            return tf.transpose(tf.reshape(t, [1, n, 2, 12]), [0, 2, 1, 3])

        q, k, v = heads(tf.matmul(x, wq)), heads(tf.matmul(x, wk)), heads(tf.matmul(x, wv))
        scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(12.0).astype(np.float32)
        mask = tf.linalg.band_part(tf.ones([n, n]), -1, 0)
        scores = scores + (1.0 - mask) * -1e9
        a = tf.matmul(tf.nn.softmax(scores), v)
        a = tf.reshape(tf.transpose(a, [0, 2, 1, 3]), [1, n, 24])
        mean, var = tf.nn.moments(x + tf.matmul(a, wo), axes=[-1], keepdims=True)
        return (x + tf.matmul(a, wo) - mean) * tf.math.rsqrt(var + 1e-5)

    return f


def dynamic_image(w):
    import tensorflow as tf

    k1, k2 = w(3, 3, 3, 8), w(3, 3, 8, 4)

    def f(x):
        # x: [1, None, None, 3]: any image size, upsampled back to the input's size
        y = tf.nn.relu(tf.nn.conv2d(x, k1, 2, "SAME"))
        y = tf.nn.conv2d(y, k2, 1, "SAME")
        size = tf.shape(x)[1:3]
        up = tf.image.resize(y, size, method="bilinear")
        near = tf.image.resize(y, size, method="nearest")
        return tf.nn.sigmoid(up) + near, tf.reduce_mean(y, axis=[1, 2])

    return f


def pruned_mlp(w, block=4):
    import keras

    layers = keras.layers
    x = keras.Input((64,), batch_size=1)
    y = layers.Dense(128, activation="relu")(x)
    y = layers.Dense(96, activation="relu")(y)
    model = keras.Model(x, layers.Dense(16)(y))
    randomize_all(model, w.seed)
    # Magnitude pruning as tfmot leaves it: 80% of each kernel zero, in blocks of `block` along the
    # input (float FC keeps 1x4 blocks as sparse weights; int8 ones are 1x16 blocks).
    rng = np.random.default_rng(w.seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.Dense):
            kernel = layer.kernel.numpy()
            blocks = kernel.reshape(kernel.shape[0] // block, block, kernel.shape[1])
            keep = rng.uniform(size=(blocks.shape[0], 1, blocks.shape[2])) < 0.2
            layer.kernel.assign((blocks * keep).reshape(kernel.shape) * 2.0)
    return model


def pruned_cnn(w):
    import keras

    layers = keras.layers
    x = keras.Input((16, 16, 8), batch_size=1)
    y = layers.Conv2D(32, 3, padding="same", activation="relu")(x)
    y = layers.Conv2D(32, 1, activation="relu")(y)
    y = layers.GlobalAveragePooling2D()(y)
    model = keras.Model(x, layers.Dense(10)(y))
    randomize_all(model, w.seed)
    rng = np.random.default_rng(w.seed)
    for layer in model.layers:
        if isinstance(layer, (keras.layers.Conv2D, keras.layers.Dense)):
            kernel = layer.kernel.numpy()
            layer.kernel.assign(kernel * (rng.uniform(size=kernel.shape) < 0.25) * 2.0)
    return model


# --------------------------------------------------------------------------------------------
# Registry

IMG96 = [F(1, 96, 96, 3, lo=0, hi=255)]
IMG64 = [F(1, 64, 64, 3)]
IMG32 = [F(1, 32, 32, 3)]
AUDIO = [F(1, 98, 40)]
TWO = [F(1, 8), F(1, 32, 32, 3)]  # the converter orders these inputs meta, image
OPS = [F(1, 8, 8, 4), F(1, 10)]
OPS2 = [F(1, 6, 6, 8), F(2, 12)]
VIDEO = [F(1, 6, 16, 16, 3)]
ODD = [F(1, 37, 29, 3)]

MODELS = [
    Case("efficientnet_b0", "", IMG96, efficientnet_b0, keras=True),
    Case("efficientnet_b0_fp16", "", IMG96, efficientnet_b0, keras=True, fp16=True),
    Case("resnet_v2_small", "", IMG64, resnet_v2_small, keras=True),
    Case("densenet121", "", IMG64, densenet121, keras=True),
    Case("xception_like", "", IMG64, xception_like, keras=True),
    Case("convnext_block", "", IMG32, convnext_block, keras=True),
    Case("vit_tiny", "", IMG32, vit_tiny, keras=True),
    Case("vit_tiny_fp16", "", IMG32, vit_tiny, keras=True, fp16=True),
    Case("conv1d_keyword", "", AUDIO, conv1d_keyword, keras=True),
    Case("lstm_sequence", "", [F(1, 20, 12)], lstm_sequence, keras=True),
    Case("lstm_sequence_fp16", "", [F(1, 20, 12)], lstm_sequence, keras=True, fp16=True),
    Case("gru_sequence", "", [F(1, 16, 10)], gru_sequence, keras=True),
    Case("two_in_two_out", "", TWO, two_in_two_out, keras=True),
    Case("dynamic_batch_mlp", "", [F(None, 16)], dynamic_batch_mlp),
    Case("tensor_ops", "", OPS, tensor_ops),
    Case("yolo_head", "", IMG64, yolo_head, keras=True),
    Case("yolo_head_fp16", "", IMG64, yolo_head, keras=True, fp16=True),
    Case("tensor_ops_more", "", OPS2, tensor_ops_more),
    Case("conv3d_video", "", VIDEO, conv3d_video, keras=True),
    Case("odd_shapes_cnn", "", ODD, odd_shapes_cnn, keras=True),
    Case("causal_attention", "", [F(1, 12, 20)], causal_attention, keras=True),
    Case("dynamic_length_audio", "", [F(1, None, 40)], dynamic_length_audio),
    Case("dynamic_tokens_attention", "", [F(1, None, 24)], dynamic_tokens_attention),
    Case("dynamic_image", "", [F(1, None, None, 3)], dynamic_image),
]
SPARSE_MODELS = [
    ("sparse_pruned_mlp", None, [F(1, 64)], pruned_mlp),
    ("sparse_pruned_cnn", None, [F(1, 16, 16, 8)], pruned_cnn),
    ("q_int8_sparse_pruned_mlp", "int8", [F(1, 64)], pruned_mlp),
    ("q_int8_sparse16_pruned_mlp", "int8", [F(1, 64)], lambda w: pruned_mlp(w, 16)),
    ("q_dynamic_sparse16_pruned_mlp", "dynamic", [F(1, 64)], lambda w: pruned_mlp(w, 16)),
    ("q_dynamic_sparse_pruned_mlp", "dynamic", [F(1, 64)], pruned_mlp),
    ("q_int8_sparse_pruned_cnn", "int8", [F(1, 16, 16, 8)], pruned_cnn),
    ("q_fp16_sparse_pruned_cnn", "fp16", [F(1, 16, 16, 8)], pruned_cnn),
]


@dataclass
class ConverterOptionsCase(UnseenQuantizedCase):
    """A quantized case with extra converter attributes set after the scheme's own configuration
    (per-tensor weights, the old quantizer: what models from older toolchains look like)."""

    options: dict = field(default_factory=dict)

    def configure(self, converter) -> None:
        super().configure(converter)
        for key, value in self.options.items():
            setattr(converter, key, value)


def _q(name, scheme, inputs, build, keras=True, **options):
    if options:
        return ConverterOptionsCase(name, "", inputs, build, keras=keras, tolerance=0.0, scheme=scheme,
                                    options=options)
    return UnseenQuantizedCase(name, "", inputs, build, keras=keras, tolerance=0.0, scheme=scheme)


@dataclass
class SparseCase(UnseenQuantizedCase):
    """The converter's EXPERIMENTAL_SPARSITY on pruned weights, alone (float, scheme "sparse_float"),
    with float16 weights ("fp16") or with a quantization scheme."""

    def configure(self, converter) -> None:
        import tensorflow as tf

        if self.scheme == "sparse_float":
            converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
            return
        if self.scheme == "fp16":
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
            converter.target_spec.supported_types = [tf.float16]
        else:
            super().configure(converter)
        converter.optimizations = [*converter.optimizations, tf.lite.Optimize.EXPERIMENTAL_SPARSITY]


PER_TENSOR = {"_experimental_disable_per_channel": True}
OLD_QUANTIZER = {"experimental_new_quantizer": False}


QUANTIZED_MODELS = [
    _q("q_int8_efficientnet_b0", "int8", IMG96, efficientnet_b0),
    _q("q_uint8_efficientnet_b0", "uint8", IMG96, efficientnet_b0),
    _q("q_dynamic_efficientnet_b0", "dynamic", IMG96, efficientnet_b0),
    _q("q_int8_resnet_v2_small", "int8", IMG64, resnet_v2_small),
    _q("q_int8_densenet121", "int8", IMG64, densenet121),
    _q("q_dynamic_densenet121", "dynamic", IMG64, densenet121),
    _q("q_int8_xception_like", "int8", IMG64, xception_like),
    _q("q_int16x8_xception_like", "int16x8", IMG64, xception_like),
    _q("q_int8_convnext_block", "int8", IMG32, convnext_block),
    _q("q_dynamic_convnext_block", "dynamic", IMG32, convnext_block),
    _q("q_int8_vit_tiny", "int8", IMG32, vit_tiny),
    _q("q_dynamic_vit_tiny", "dynamic", IMG32, vit_tiny),
    _q("q_int8_conv1d_keyword", "int8", AUDIO, conv1d_keyword),
    _q("q_dynamic_conv1d_keyword", "dynamic", AUDIO, conv1d_keyword),
    _q("q_int16x8_conv1d_keyword", "int16x8", AUDIO, conv1d_keyword),
    _q("q_dynamic_lstm_sequence", "dynamic", [F(1, 20, 12)], lstm_sequence),
    _q("q_dynamic_gru_sequence", "dynamic", [F(1, 16, 10)], gru_sequence),
    _q("q_int8_two_in_two_out", "int8", TWO, two_in_two_out),
    _q("q_uint8_two_in_two_out", "uint8", TWO, two_in_two_out),
    _q("q_dynamic_dynamic_batch_mlp", "dynamic", [F(None, 16)], dynamic_batch_mlp, keras=False),
    _q("q_int8_tensor_ops", "int8", OPS, tensor_ops, keras=False),
    _q("q_int8_yolo_head", "int8", IMG64, yolo_head),
    _q("q_uint8_yolo_head", "uint8", IMG64, yolo_head),
    _q("q_int16x8_efficientnet_b0", "int16x8", IMG96, efficientnet_b0),
    _q("q_int16x8_two_in_two_out", "int16x8", TWO, two_in_two_out),
    _q("q_int8_dynamic_batch_mlp", "int8", [F(None, 16)], dynamic_batch_mlp, keras=False),
    _q("q_int8_tensor_ops_more", "int8", OPS2, tensor_ops_more, keras=False),
    _q("q_dynamic_conv3d_video", "dynamic", VIDEO, conv3d_video),
    _q("q_int8_odd_shapes_cnn", "int8", ODD, odd_shapes_cnn),
    _q("q_uint8_odd_shapes_cnn", "uint8", ODD, odd_shapes_cnn),
    _q("q_int16x8_odd_shapes_cnn", "int16x8", ODD, odd_shapes_cnn),
    _q("q_dynamic_odd_shapes_cnn", "dynamic", ODD, odd_shapes_cnn),
    _q("q_int8_causal_attention", "int8", [F(1, 12, 20)], causal_attention),
    _q("q_dynamic_causal_attention", "dynamic", [F(1, 12, 20)], causal_attention),
    _q("q_dynamic_dynamic_length_audio", "dynamic", [F(1, None, 40)], dynamic_length_audio, keras=False),
    _q("q_dynamic_dynamic_tokens_attention", "dynamic", [F(1, None, 24)], dynamic_tokens_attention, keras=False),
    _q("q_int8_dynamic_image", "int8", [F(1, None, None, 3)], dynamic_image, keras=False),
    _q("q_dynamic_dynamic_image", "dynamic", [F(1, None, None, 3)], dynamic_image, keras=False),
    # int8 inside, float32 I/O (the converter's default when no inference type is set)
    _q("q_float_io_efficientnet_b0", "float", IMG96, efficientnet_b0),
    _q("q_float_io_vit_tiny", "float", IMG32, vit_tiny),
    _q("q_float_io_odd_shapes_cnn", "float", ODD, odd_shapes_cnn),
    # per-tensor weight scales and the old (TOCO-era) quantizer
    _q("q_int8_per_tensor_odd_shapes_cnn", "int8", ODD, odd_shapes_cnn, **PER_TENSOR),
    _q("q_uint8_per_tensor_resnet_v2_small", "uint8", IMG64, resnet_v2_small, **PER_TENSOR),
    _q("q_int8_old_quantizer_efficientnet_b0", "int8", IMG96, efficientnet_b0, **OLD_QUANTIZER),
    _q("q_uint8_old_quantizer_odd_shapes_cnn", "uint8", ODD, odd_shapes_cnn, **OLD_QUANTIZER),
    _q("q_int16x8_old_quantizer_conv1d_keyword", "int16x8", AUDIO, conv1d_keyword, **OLD_QUANTIZER),
]


QUANTIZED_MODELS += [SparseCase(name, "", inputs, build, keras=True, tolerance=0.0, scheme=scheme or "sparse_float")
                     for name, scheme, inputs, build in SPARSE_MODELS]


def _describe(path: Path, tflite: bytes, outputs, extra: str = "") -> str:
    ops = " ".join(f"{name}x{count}" for name, count in sorted(operator_counts(tflite).items()))
    shapes = ", ".join(str(list(o.shape)) for o in outputs)
    return f"{path} ({len(tflite) / 1e6:.2f} MB{extra}) -> {shapes}\n  {ops}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build more unseen .tflite models for parity checks.")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "more_unseen",
                        help="output directory (default: out/more_unseen, gitignored)")
    parser.add_argument("--only", nargs="*", help="build only these model names")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    for c in MODELS + QUANTIZED_MODELS:
        if args.only and c.name not in args.only:
            continue
        try:
            tflite = convert(c)
            # A smoke run, so a model LiteRT itself cannot run is caught here and not written.
            if isinstance(c, UnseenQuantizedCase) and c.scheme not in ("sparse_float", "fp16"):
                outputs = run(make_interpreter(tflite), _smoke_inputs(tflite, c))
                extra = f", {c.scheme}; I/O {_io_types(tflite)}; tensors {_tensor_types(tflite)}"
            else:
                outputs = run(make_interpreter(tflite), [s.draw(np.random.default_rng(0)) for s in c.inputs])
                extra = ""
        except Exception as error:  # the converter or LiteRT rejecting a model is not our bug
            failed.append(c.name)
            last = traceback.format_exception_only(type(error), error)[-1].strip()
            print(f"SKIPPED {c.name}: {last[:300]}", flush=True)
            continue
        path = args.out / f"{c.name}.tflite"
        path.write_bytes(tflite)
        print(_describe(path, tflite, outputs, extra), flush=True)
    if failed:
        print(f"not built: {' '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
