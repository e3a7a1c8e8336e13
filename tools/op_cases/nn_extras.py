"""CONV_3D, CONV_3D_TRANSPOSE, NON_MAX_SUPPRESSION_V4/V5 and RFFT2D."""

import numpy as np

from opmodel import Case, const, inp, out

CASES = []


def _conv3d(padding, sd, sh, sw, act=0, dd=1, dh=1, dw=1):
    return ("Conv3DOptions", {"padding": padding, "strideD": sd, "strideH": sh, "strideW": sw,
                              "fusedActivationFunction": act, "dilationDFactor": dd, "dilationHFactor": dh,
                              "dilationWFactor": dw})


def _floats(shape, seed, scale=0.5):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, size=shape) * scale).astype(np.float32).tolist()


for name, in_shape, k, cout, opts, bias in [
    ("valid_s1", [1, 3, 4, 4, 2], [2, 2, 2], 3, _conv3d(1, 1, 1, 1), True),
    ("same_s2", [2, 4, 5, 3, 3], [3, 3, 2], 2, _conv3d(0, 2, 2, 1), True),
    ("same_dilated_relu", [1, 5, 5, 5, 1], [2, 3, 2], 4, _conv3d(0, 1, 1, 1, 1, 2, 1, 2), False),
    ("valid_s2_relu6", [1, 5, 6, 4, 2], [3, 2, 2], 2, _conv3d(1, 2, 1, 2, 3), True),
]:
    filt = k + [in_shape[4], cout]
    inputs = [inp("float32", in_shape), const("float32", filt, _floats(filt, len(name)))]
    if bias:
        inputs.append(const("float32", [cout], _floats([cout], 3)))
    CASES.append(Case(f"conv_3d_float32_{name}", "CONV_3D", inputs, [out("float32")], options=opts))
CASES.append(Case("conv_3d_float32_runtime_filter", "CONV_3D",
                  [inp("float32", [1, 3, 3, 3, 2]), inp("float32", [2, 2, 2, 2, 2])], [out("float32")],
                  options=_conv3d(0, 1, 1, 1)))

# CONV_3D_TRANSPOSE: output_shape, filter [KD, KH, KW, Cout, Cin], input, optional bias.
for name, in_shape, k, cout, out_dhw, opts, bias in [
    ("same_s2", [1, 2, 3, 2, 2], [3, 3, 3], 3, [4, 6, 4], _conv3d(0, 2, 2, 2), True),
    ("valid_s1", [2, 2, 2, 3, 3], [2, 2, 2], 2, [3, 3, 4], _conv3d(1, 1, 1, 1), False),
    ("valid_s2x1_relu", [1, 2, 3, 3, 1], [2, 3, 2], 2, [4, 5, 4], _conv3d(1, 2, 1, 1, 1), True),
]:
    filt = k + [cout, in_shape[4]]
    inputs = [const("int32", [5], [in_shape[0]] + out_dhw + [cout]), const("float32", filt, _floats(filt, len(name))),
              inp("float32", in_shape)]
    if bias:
        inputs.append(const("float32", [cout], _floats([cout], 5)))
    CASES.append(Case(f"conv_3d_transpose_float32_{name}", "CONV_3D_TRANSPOSE", inputs, [out("float32")],
                      options=opts))

# NON_MAX_SUPPRESSION_V4 / V5: boxes [N, 4] (y1, x1, y2, x2, corners in either order), scores [N].
_BOXES = [
    [0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101],
    [1, 1, 0, 0], [5, 5, 7, 8], [5.2, 5.1, 7.1, 8.2], [20, 20, 20, 20],
]
_SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.85, 0.4, 0.45, 0.2]
for name, max_out, iou, score_threshold in [
    ("basic", 6, 0.5, 0.0), ("score_threshold", 10, 0.5, 0.42), ("max_two", 2, 0.5, 0.0),
    ("iou_low", 8, 0.05, 0.0), ("iou_one", 10, 1.0, 0.0), ("none_pass", 4, 0.5, 0.99),
]:
    CASES.append(Case(f"non_max_suppression_v4_{name}", "NON_MAX_SUPPRESSION_V4",
                      [inp("float32", [10, 4], values=_BOXES), inp("float32", [10], values=_SCORES),
                       const("int32", [], max_out), const("float32", [], iou), const("float32", [], score_threshold)],
                      [out("int32"), out("int32")]))
    for sigma in (0.0, 0.5):
        CASES.append(Case(f"non_max_suppression_v5_{name}_sigma{sigma}", "NON_MAX_SUPPRESSION_V5",
                          [inp("float32", [10, 4], values=_BOXES), inp("float32", [10], values=_SCORES),
                           const("int32", [], max_out), const("float32", [], iou),
                           const("float32", [], score_threshold), const("float32", [], sigma)],
                          [out("int32"), out("float32"), out("int32")]))
CASES.append(Case("non_max_suppression_v4_random", "NON_MAX_SUPPRESSION_V4",
                  [inp("float32", [30, 4], low=0, high=5), inp("float32", [30], low=0, high=1, unique=True),
                   const("int32", [], 12), const("float32", [], 0.3), const("float32", [], 0.1)],
                  [out("int32"), out("int32")]))
CASES.append(Case("non_max_suppression_v5_random_soft", "NON_MAX_SUPPRESSION_V5",
                  [inp("float32", [30, 4], low=0, high=5), inp("float32", [30], low=0, high=1, unique=True),
                   const("int32", [], 15), const("float32", [], 0.6), const("float32", [], 0.2),
                   const("float32", [], 0.8)],
                  [out("int32"), out("float32"), out("int32")]))
CASES.append(Case("non_max_suppression_v4_runtime_max", "NON_MAX_SUPPRESSION_V4",
                  [inp("float32", [10, 4], values=_BOXES), inp("float32", [10], values=_SCORES),
                   inp("int32", [], values=5), const("float32", [], 0.5), const("float32", [], 0.0)],
                  [out("int32"), out("int32")]))

# RFFT2D: float32 [..., H, W] with fft_length [2]; complex64 [..., fft_h, fft_w / 2 + 1].
for name, shape, fft in [
    ("4x4", [4, 4], [4, 4]), ("batch_8x4", [2, 8, 4], [8, 4]), ("crop", [3, 8, 8], [4, 4]),
    ("pad", [1, 3, 3], [4, 8]), ("rank4", [2, 2, 4, 2], [4, 2]), ("1x16", [1, 16], [1, 16]),
]:
    CASES.append(Case(f"rfft2d_float32_{name}", "RFFT2D", [inp("float32", shape), const("int32", [2], fft)],
                      [out("complex64")]))
for dtype, scale in [("int8", 0.05), ("int16", 0.001)]:
    CASES.append(Case(f"non_max_suppression_v4_{dtype}", "NON_MAX_SUPPRESSION_V4",
                      [inp(dtype, [10, 4], low=0, high=60 if dtype == "int8" else 3000, scale=scale, zero_point=0),
                       inp(dtype, [10], low=0, high=100, scale=0.01, zero_point=0),
                       const("int32", [], 5), const(dtype, [], 25, scale=0.02, zero_point=0),
                       const(dtype, [], 10, scale=0.01, zero_point=0)],
                      [out("int32"), out("int32")]))

CASES.append(Case("rfft2d_float32_runtime_length", "RFFT2D", [inp("float32", [2, 4, 4]), inp("int32", [2], values=[4, 8])],
                  [out("complex64")]))
CASES.append(Case("conv_3d_transpose_float32_runtime_shape", "CONV_3D_TRANSPOSE",
                  [inp("int32", [5], values=[1, 3, 4, 3, 2]), const("float32", [2, 2, 2, 2, 1], _floats([2, 2, 2, 2, 1], 9)),
                   inp("float32", [1, 2, 2, 2, 1])], [out("float32")], options=_conv3d(1, 1, 2, 1)))
CASES.append(Case("conv_3d_transpose_float32_dilated", "CONV_3D_TRANSPOSE",
                  [const("int32", [5], [1, 5, 5, 4, 2]), const("float32", [2, 2, 2, 2, 2], _floats([2, 2, 2, 2, 2], 10)),
                   inp("float32", [1, 3, 3, 2, 2])], [out("float32")], options=_conv3d(1, 1, 1, 2, 0, 2, 2, 1)))
for dtype in ("int8", "float16"):
    kw = {"scale": 0.1, "zero_point": 0} if dtype == "int8" else {}
    CASES.append(Case(f"conv_3d_{dtype}", "CONV_3D",
                      [inp(dtype, [1, 3, 3, 3, 2], **kw), const(dtype, [2, 2, 2, 2, 2], [1] * 32, **kw)],
                      [out(dtype, **kw)], options=_conv3d(1, 1, 1, 1)))
CASES.append(Case("rfft2d_float64", "RFFT2D", [inp("float64", [4, 4]), const("int32", [2], [4, 4])], [out("complex128")]))
CASES.append(Case("rfft2d_float32_length_not_power_of_two", "RFFT2D", [inp("float32", [3, 6]), const("int32", [2], [3, 6])],
                  [out("complex64")]))

# Edge cases: no boxes, no selections allowed, larger transforms.
CASES.append(Case("non_max_suppression_v4_no_boxes", "NON_MAX_SUPPRESSION_V4",
                  [inp("float32", [0, 4]), inp("float32", [0]), const("int32", [], 3), const("float32", [], 0.5),
                   const("float32", [], 0.0)], [out("int32"), out("int32")]))
CASES.append(Case("non_max_suppression_v5_max_zero", "NON_MAX_SUPPRESSION_V5",
                  [inp("float32", [10, 4], values=_BOXES), inp("float32", [10], values=_SCORES),
                   const("int32", [], 0), const("float32", [], 0.5), const("float32", [], 0.0), const("float32", [], 0.3)],
                  [out("int32"), out("float32"), out("int32")]))
CASES.append(Case("non_max_suppression_v5_ties", "NON_MAX_SUPPRESSION_V5",
                  [inp("float32", [8, 4], values=[[i, 0, i + 1, 1] for i in range(8)]),
                   inp("float32", [8], values=[0.5, 0.7, 0.5, 0.7, 0.5, 0.7, 0.5, 0.9]),
                   const("int32", [], 8), const("float32", [], 0.5), const("float32", [], 0.1), const("float32", [], 0.0)],
                  [out("int32"), out("float32"), out("int32")]))
CASES.append(Case("rfft2d_float32_16x32", "RFFT2D", [inp("float32", [2, 16, 32]), const("int32", [2], [16, 32])],
                  [out("complex64")]))
CASES.append(Case("rfft2d_float32_2x2", "RFFT2D", [inp("float32", [2, 2]), const("int32", [2], [2, 2])],
                  [out("complex64")]))
CASES.append(Case("conv_3d_float32_tanh_activation", "CONV_3D",
                  [inp("float32", [1, 3, 3, 3, 2]), const("float32", [2, 2, 2, 2, 2], _floats([2, 2, 2, 2, 2], 21, 2.0))],
                  [out("float32")], options=_conv3d(1, 1, 1, 1, 4)))
CASES.append(Case("conv_3d_transpose_float32_tanh_activation", "CONV_3D_TRANSPOSE",
                  [const("int32", [5], [1, 3, 3, 3, 2]), const("float32", [2, 2, 2, 2, 2], _floats([2, 2, 2, 2, 2], 22, 2.0)),
                   inp("float32", [1, 2, 2, 2, 2])], [out("float32")], options=_conv3d(1, 1, 1, 1, 4)))
