"""TRANSPOSE_CONV variants: dynamic-range (float input, int8 filter) and int16 activations with int8 filters."""

import numpy as np

from opmodel import Case, const, inp, out

CASES = []


def _filter(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-127, 128, size=shape).astype(np.int8).tolist()


def _opts(padding, sw, sh, act=0):
    return ("TransposeConvOptions", {"padding": padding, "strideW": sw, "strideH": sh, "fusedActivationFunction": act})


# Hybrid: float input, int8 constant filter [O, KH, KW, C], per-tensor or per-channel scales.
for name, in_shape, o, kh, kw, padding, sw, sh, out_hw, per_channel, bias, version in [
    ("same_s2", [1, 3, 3, 2], 3, 3, 3, 0, 2, 2, (6, 6), False, True, 3),
    ("valid_s1", [2, 2, 3, 3], 2, 2, 2, 1, 1, 1, (3, 4), False, False, 3),
    ("same_s2_per_channel", [1, 3, 2, 4], 3, 3, 3, 0, 2, 2, (6, 4), True, True, 3),
    ("valid_s2x1_per_channel", [1, 2, 3, 2], 4, 2, 3, 1, 1, 2, (4, 5), True, False, 3),
]:
    n, h, w, c = in_shape
    scale = [0.02 + 0.01 * i for i in range(o)] if per_channel else 0.03
    inputs = [const("int32", [4], [n, out_hw[0], out_hw[1], o]),
              const("int8", [o, kh, kw, c], _filter([o, kh, kw, c], len(name)), scale=scale,
                    zero_point=[0] * o if per_channel else 0),
              inp("float32", in_shape)]
    if bias:
        inputs.append(const("float32", [o], [0.1 * (i - 1) for i in range(o)]))
    CASES.append(Case(f"transpose_conv_hybrid_{name}", "TRANSPOSE_CONV", inputs, [out("float32")],
                      options=_opts(padding, sw, sh), version=version))

# int16 activations, int8 filter, int64 bias (16x8).
for name, per_channel, bias in [("per_tensor", False, True), ("per_channel", True, True), ("no_bias", False, False)]:
    o = 3
    scale = [0.02, 0.03, 0.025] if per_channel else 0.02
    inputs = [const("int32", [4], [1, 6, 6, o]),
              const("int8", [o, 3, 3, 2], _filter([o, 3, 3, 2], 7), scale=scale, zero_point=[0] * o if per_channel else 0),
              inp("int16", [1, 3, 3, 2], scale=0.01, zero_point=0)]
    if bias:
        inputs.append(const("int64", [o], [100, -250, 40], scale=[0.01 * s for s in (scale if per_channel else [scale] * o)],
                            zero_point=[0] * o))
    CASES.append(Case(f"transpose_conv_int16x8_{name}", "TRANSPOSE_CONV", inputs,
                      [out("int16", scale=0.05, zero_point=0)], options=_opts(0, 2, 2), version=3))

# Hybrid with a fused activation (version 4) and with an output shape given at run time.
CASES.append(Case("transpose_conv_hybrid_same_s2_relu", "TRANSPOSE_CONV",
                  [const("int32", [4], [1, 5, 5, 2]),
                   const("int8", [2, 3, 3, 3], _filter([2, 3, 3, 3], 11), scale=0.02, zero_point=0),
                   inp("float32", [1, 3, 3, 3]), const("float32", [2], [0.5, -0.5])],
                  [out("float32")], options=_opts(0, 2, 2, 1), version=4))
CASES.append(Case("transpose_conv_hybrid_runtime_shape", "TRANSPOSE_CONV",
                  [inp("int32", [4], values=[1, 4, 7, 2]),
                   const("int8", [2, 2, 3, 2], _filter([2, 2, 3, 2], 12), scale=[0.03, 0.05], zero_point=[0, 0]),
                   inp("float32", [1, 2, 3, 2])],
                  [out("float32")], options=_opts(1, 2, 2), version=3))
CASES.append(Case("transpose_conv_hybrid_uint8_filter", "TRANSPOSE_CONV",
                  [const("int32", [4], [1, 4, 4, 2]),
                   const("uint8", [2, 2, 2, 2], (np.array(_filter([2, 2, 2, 2], 13)) % 256).tolist(), scale=0.02, zero_point=0),
                   inp("float32", [1, 2, 2, 2])],
                  [out("float32")], options=_opts(1, 2, 2), version=3))
for name, act, in_shape, out_hw, padding, stride in (("tanh_same_s1", 4, [2, 3, 4, 3], (3, 4), 0, 1),
                                                     ("relu6_same_s3", 3, [1, 2, 2, 4], (6, 6), 0, 3),
                                                     ("relu_n1_to_1_valid_s2", 2, [2, 2, 3, 2], (5, 7), 1, 2)):
    c = in_shape[3]
    CASES.append(Case(f"transpose_conv_hybrid_{name}", "TRANSPOSE_CONV",
                      [const("int32", [4], [in_shape[0], out_hw[0], out_hw[1], 3]),
                       const("int8", [3, 3, 3, c], _filter([3, 3, 3, c], len(name)), scale=[0.01, 0.02, 0.015],
                             zero_point=[0, 0, 0]),
                       inp("float32", in_shape), const("float32", [3], [0.2, -0.1, 0.05])],
                      [out("float32")], options=_opts(padding, stride, stride, act), version=4))
