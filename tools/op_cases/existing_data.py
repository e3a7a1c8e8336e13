"""Data movement, shape and conversion operators the runtime already runs: every type LiteRT accepts."""

import numpy as np

from opmodel import Case, const, inp, out

CASES = []

ALL = ["float32", "float16", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "bool"]
_Q = {"int8": dict(scale=0.1, zero_point=-3), "uint8": dict(scale=0.1, zero_point=128),
      "int16": dict(scale=0.01, zero_point=0)}


def q(dtype):
    return dict(_Q.get(dtype, {}))


def x(dtype, shape, **kw):
    if dtype in ("int32", "int64", "uint32", "uint16") and "low" not in kw:
        kw = dict(kw, low=0 if dtype.startswith("u") else -50, high=50)
    return inp(dtype, shape, **q(dtype), **kw)


def o(dtype):
    return out(dtype, **q(dtype))


# ---------------------------------------------------------------- CONCATENATION
for t in ALL:
    CASES.append(Case(f"concatenation_{t}_axis1", "CONCATENATION", [x(t, [2, 3, 4]), x(t, [2, 2, 4]), x(t, [2, 1, 4])],
                      [o(t)], options=("ConcatenationOptions", {"axis": 1}), version=3))
for t in ["float32", "int32", "int8"]:
    CASES.append(Case(f"concatenation_{t}_axis_neg1", "CONCATENATION", [x(t, [2, 3, 2]), x(t, [2, 3, 5])], [o(t)],
                      options=("ConcatenationOptions", {"axis": -1}), version=3))
    CASES.append(Case(f"concatenation_{t}_axis0_rank1", "CONCATENATION", [x(t, [3]), x(t, [1]), x(t, [0])], [o(t)],
                      options=("ConcatenationOptions", {"axis": 0}), version=3))
CASES.append(Case("concatenation_float32_relu", "CONCATENATION", [x("float32", [2, 3]), x("float32", [2, 3])],
                  [o("float32")], options=("ConcatenationOptions", {"axis": 0, "fusedActivationFunction": 1})))
CASES.append(Case("concatenation_float32_rank5", "CONCATENATION", [x("float32", [2, 1, 2, 3, 2]),
                                                                    x("float32", [2, 1, 2, 1, 2])],
                  [o("float32")], options=("ConcatenationOptions", {"axis": 3})))
for t, zps in [("uint8", [(0.1, 128), (0.05, 100), (0.2, 130)]), ("int8", [(0.1, -3), (0.05, 10), (0.2, 0)])]:
    CASES.append(Case(f"concatenation_{t}_requantize", "CONCATENATION",
                      [inp(t, [2, 3], scale=zps[0][0], zero_point=zps[0][1]),
                       inp(t, [2, 2], scale=zps[1][0], zero_point=zps[1][1])],
                      [out(t, scale=zps[2][0], zero_point=zps[2][1])],
                      options=("ConcatenationOptions", {"axis": 1}), version=2))
CASES.append(Case("concatenation_int16_requantize", "CONCATENATION",
                  [inp("int16", [2, 3], scale=0.01, zero_point=0), inp("int16", [2, 2], scale=0.02, zero_point=0)],
                  [out("int16", scale=0.015, zero_point=0)], options=("ConcatenationOptions", {"axis": 1}), version=3))

# ---------------------------------------------------------------- PACK / UNPACK
for t in ALL:
    CASES.append(Case(f"pack_{t}_axis0", "PACK", [x(t, [2, 3]), x(t, [2, 3]), x(t, [2, 3])], [o(t)],
                      options=("PackOptions", {"valuesCount": 3, "axis": 0}), version=3))
    CASES.append(Case(f"unpack_{t}_axis1", "UNPACK", [x(t, [2, 3, 4])], [o(t), o(t), o(t)],
                      options=("UnpackOptions", {"num": 3, "axis": 1}), version=3))
CASES.append(Case("pack_float32_axis_last", "PACK", [x("float32", [2, 3]), x("float32", [2, 3])], [o("float32")],
                  options=("PackOptions", {"valuesCount": 2, "axis": 2})))
CASES.append(Case("pack_int32_axis_neg1_scalars", "PACK", [x("int32", []), x("int32", []), x("int32", [])],
                  [o("int32")], options=("PackOptions", {"valuesCount": 3, "axis": -1})))
CASES.append(Case("unpack_float32_axis_neg1", "UNPACK", [x("float32", [3, 2])], [o("float32"), o("float32")],
                  options=("UnpackOptions", {"num": 2, "axis": -1})))
CASES.append(Case("unpack_int32_rank1", "UNPACK", [x("int32", [4])], [o("int32")] * 4,
                  options=("UnpackOptions", {"num": 4, "axis": 0})))

# ---------------------------------------------------------------- SPLIT / SPLIT_V
for t in ALL:
    CASES.append(Case(f"split_{t}_axis1", "SPLIT", [const("int32", [], [1]), x(t, [2, 6, 2])], [o(t)] * 3,
                      options=("SplitOptions", {"numSplits": 3}), version=3))
    CASES.append(Case(f"split_v_{t}", "SPLIT_V", [x(t, [2, 6, 2]), const("int32", [3], [1, 2, 3]),
                                                  const("int32", [], [1])], [o(t)] * 3,
                      options=("SplitVOptions", {"numSplits": 3}), version=2))
CASES.append(Case("split_float32_axis_neg1", "SPLIT", [const("int32", [], [-1]), x("float32", [3, 4])],
                  [o("float32")] * 2, options=("SplitOptions", {"numSplits": 2})))
CASES.append(Case("split_float32_axis_input", "SPLIT", [inp("int32", [], values=[0]), x("float32", [4, 3])],
                  [o("float32")] * 4, options=("SplitOptions", {"numSplits": 4})))
CASES.append(Case("split_float32_one", "SPLIT", [const("int32", [1], [0]), x("float32", [4, 3])],
                  [o("float32")], options=("SplitOptions", {"numSplits": 1})))
CASES.append(Case("split_v_float32_minus1", "SPLIT_V", [x("float32", [3, 7]), const("int32", [3], [2, -1, 1]),
                                                        const("int32", [], [-1])], [o("float32")] * 3,
                  options=("SplitVOptions", {"numSplits": 3})))
CASES.append(Case("split_v_float32_int64_sizes", "SPLIT_V", [x("float32", [5, 2]), const("int64", [2], [3, 2]),
                                                             const("int32", [], [0])], [o("float32")] * 2,
                  options=("SplitVOptions", {"numSplits": 2})))
CASES.append(Case("split_v_float32_zero_size", "SPLIT_V", [x("float32", [5, 2]), const("int32", [3], [3, 0, 2]),
                                                           const("int32", [], [0])], [o("float32")] * 3,
                  options=("SplitVOptions", {"numSplits": 3})))

# ---------------------------------------------------------------- SLICE
for t in ALL:
    CASES.append(Case(f"slice_{t}", "SLICE", [x(t, [3, 4, 5]), const("int32", [3], [1, 0, 2]),
                                              const("int32", [3], [2, -1, 2])], [o(t)], version=4))
for it in ["int32", "int64"]:
    CASES.append(Case(f"slice_float32_{it}_begin_input", "SLICE", [x("float32", [4, 6]), inp(it, [2], values=[1, 2]),
                                                                   inp(it, [2], values=[2, 3])], [o("float32")],
                      version=4))
CASES.append(Case("slice_float32_int64_const", "SLICE", [x("float32", [2, 3, 4, 5]), const("int64", [4], [1, 1, 0, 2]),
                                                         const("int64", [4], [1, 2, -1, 3])], [o("float32")],
                  version=4))
CASES.append(Case("slice_float32_rank5", "SLICE", [x("float32", [2, 3, 2, 3, 2]), const("int32", [5], [1, 1, 0, 1, 0]),
                                                   const("int32", [5], [1, 2, 2, 2, -1])], [o("float32")], version=5))
CASES.append(Case("slice_float32_empty", "SLICE", [x("float32", [3, 4]), const("int32", [2], [1, 0]),
                                                   const("int32", [2], [0, 4])], [o("float32")], version=4))

# ---------------------------------------------------------------- STRIDED_SLICE


def _ss(name, t, shape, begin, end, strides, version=4, itype="int32", **opts):
    n = len(begin)
    CASES.append(Case(name, "STRIDED_SLICE", [x(t, shape), const(itype, [n], begin), const(itype, [n], end),
                                              const(itype, [n], strides)], [o(t)],
                      options=("StridedSliceOptions", opts), version=version))


for t in ALL:
    _ss(f"strided_slice_{t}", t, [4, 6, 3], [0, 1, 0], [4, 6, 3], [2, 2, 1])
_ss("strided_slice_float32_negative_stride", "float32", [5, 4], [4, 0], [0, 4], [-1, 1])
_ss("strided_slice_float32_negative_indices", "float32", [6, 5], [-4, -1], [-1, -6], [1, -2])
_ss("strided_slice_float32_begin_end_mask", "float32", [5, 6], [2, 3], [4, 5], [1, 1], beginMask=1, endMask=2)
_ss("strided_slice_float32_shrink", "float32", [4, 5, 3], [1, 0, 2], [2, 5, 3], [1, 1, 1], shrinkAxisMask=5)
_ss("strided_slice_float32_ellipsis", "float32", [2, 3, 4, 5], [0, 1], [0, 3], [1, 1], ellipsisMask=1, version=5)
_ss("strided_slice_float32_new_axis", "float32", [3, 4], [0, 0, 1], [0, 3, 3], [1, 1, 1], newAxisMask=1)
_ss("strided_slice_float32_offset", "float32", [5, 6], [1, 2], [2, 3], [1, 1], offset=True, version=8)
_ss("strided_slice_float32_rank5", "float32", [2, 3, 4, 3, 2], [0, 1, 0, 2, 1], [2, 3, 4, 0, 2],
    [1, 1, 2, -1, 1], version=5)
_ss("strided_slice_float32_int64_indices", "float32", [5, 6], [1, 0], [5, 6], [2, 3], itype="int64")
_ss("strided_slice_int32_shrink_all", "int32", [3, 4], [1, 2], [2, 3], [1, 1], shrinkAxisMask=3)
_ss("strided_slice_float32_out_of_range", "float32", [4, 5], [-10, 1], [10, 100], [1, 2])
CASES.append(Case("strided_slice_float32_runtime_begin", "STRIDED_SLICE",
                  [x("float32", [4, 6]), inp("int32", [2], values=[1, 0]), inp("int32", [2], values=[3, 6]),
                   const("int32", [2], [1, 2])], [o("float32")], options=("StridedSliceOptions", {}), version=4))

# ---------------------------------------------------------------- TRANSPOSE
for t in ALL:
    CASES.append(Case(f"transpose_{t}", "TRANSPOSE", [x(t, [2, 3, 4]), const("int32", [3], [2, 0, 1])], [o(t)],
                      version=5))
for rank, perm in [(1, [0]), (2, [1, 0]), (4, [0, 3, 1, 2]), (5, [4, 1, 3, 0, 2]), (6, [5, 4, 3, 2, 1, 0])]:
    shape = [2, 3, 1, 4, 2, 3][:rank]
    CASES.append(Case(f"transpose_float32_rank{rank}", "TRANSPOSE", [x("float32", shape),
                                                                     const("int32", [rank], perm)], [o("float32")],
                      version=6))
CASES.append(Case("transpose_int8_perm_input_int64", "TRANSPOSE", [x("int8", [3, 4]), inp("int64", [2], values=[1, 0])],
                  [o("int8")], version=5))
CASES.append(Case("transpose_float32_negative_perm", "TRANSPOSE", [x("float32", [2, 3, 4]),
                                                                  const("int32", [3], [-1, 0, 1])], [o("float32")]))

# ---------------------------------------------------------------- PAD / PADV2 / MIRROR_PAD
for t in ALL:
    CASES.append(Case(f"pad_{t}", "PAD", [x(t, [2, 3, 2]), const("int32", [3, 2], [[0, 1], [2, 0], [1, 1]])], [o(t)],
                      version=3))
    if t != "bool":
        pv = np.asarray([7], dtype=np.float64).tolist() if t not in ("int8", "uint8") else [5]
        CASES.append(Case(f"padv2_{t}", "PADV2", [x(t, [2, 3]), const("int32", [2, 2], [[1, 0], [1, 2]]),
                                                  const(t, [], pv, **q(t))], [o(t)], version=3))
    CASES.append(Case(f"mirror_pad_{t}_reflect", "MIRROR_PAD", [x(t, [3, 4]), const("int32", [2, 2], [[1, 2], [2, 1]])],
                      [o(t)], options=("MirrorPadOptions", {"mode": 0}), version=2))
CASES.append(Case("pad_float32_int64_paddings", "PAD", [x("float32", [2, 3]), const("int64", [2, 2], [[1, 1], [0, 2]])],
                  [o("float32")], version=2))
CASES.append(Case("pad_float32_rank5", "PAD", [x("float32", [1, 2, 2, 3, 2]),
                                               const("int32", [5, 2], [[0, 1], [1, 0], [0, 0], [2, 1], [1, 1]])],
                  [o("float32")], version=4))
CASES.append(Case("pad_int8_rank4_runtime_paddings", "PAD", [x("int8", [1, 3, 3, 2]),
                                                             inp("int32", [4, 2], values=[0, 0, 1, 1, 2, 0, 0, 1])],
                  [o("int8")], version=3))
CASES.append(Case("padv2_float32_no_value", "PADV2", [x("float32", [2, 3]), const("int32", [2, 2], [[1, 0], [1, 2]])],
                  [o("float32")]))
CASES.append(Case("padv2_float32_int64_paddings", "PADV2", [x("float32", [2, 2, 3]),
                                                           const("int64", [3, 2], [[1, 0], [0, 0], [2, 1]]),
                                                           const("float32", [], [-2.5])], [o("float32")], version=4))
for t in ["float32", "int32", "int8"]:
    CASES.append(Case(f"mirror_pad_{t}_symmetric", "MIRROR_PAD",
                      [x(t, [2, 3, 4]), const("int32", [3, 2], [[2, 1], [3, 0], [0, 4]])], [o(t)],
                      options=("MirrorPadOptions", {"mode": 1}), version=2))
CASES.append(Case("mirror_pad_float32_int64_paddings", "MIRROR_PAD",
                  [x("float32", [3, 3]), const("int64", [2, 2], [[2, 2], [1, 0]])], [o("float32")],
                  options=("MirrorPadOptions", {"mode": 0}), version=2))

# ---------------------------------------------------------------- RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR
for op, low, opt in [("RESIZE_BILINEAR", "resize_bilinear", "ResizeBilinearOptions"),
                     ("RESIZE_NEAREST_NEIGHBOR", "resize_nearest", "ResizeNearestNeighborOptions")]:
    for t in ALL:
        CASES.append(Case(f"{low}_{t}", op, [x(t, [1, 3, 4, 2]), const("int32", [2], [5, 7])], [o(t)],
                          options=(opt, {}), version=3))
    for tag, flags in [("align", {"alignCorners": True}), ("half", {"halfPixelCenters": True})]:
        for t in ["float32", "uint8", "int8", "int16"]:
            CASES.append(Case(f"{low}_{t}_{tag}", op, [x(t, [2, 3, 4, 2]), const("int32", [2], [6, 5])], [o(t)],
                              options=(opt, flags), version=4 if t == "int16" else 3))
    CASES.append(Case(f"{low}_float32_downscale", op, [x("float32", [1, 8, 9, 3]), const("int32", [2], [3, 4])],
                      [o("float32")], options=(opt, {})))
    CASES.append(Case(f"{low}_float32_size_input", op, [x("float32", [1, 4, 4, 1]), inp("int32", [2], values=[6, 3])],
                      [o("float32")], options=(opt, {})))

# ---------------------------------------------------------------- SPACE_TO_DEPTH / DEPTH_TO_SPACE
for t in ALL:
    CASES.append(Case(f"space_to_depth_{t}", "SPACE_TO_DEPTH", [x(t, [2, 4, 6, 3])], [o(t)],
                      options=("SpaceToDepthOptions", {"blockSize": 2}), version=2))
    CASES.append(Case(f"depth_to_space_{t}", "DEPTH_TO_SPACE", [x(t, [2, 2, 3, 8])], [o(t)],
                      options=("DepthToSpaceOptions", {"blockSize": 2}), version=2))
CASES.append(Case("space_to_depth_float32_block3", "SPACE_TO_DEPTH", [x("float32", [1, 6, 3, 2])], [o("float32")],
                  options=("SpaceToDepthOptions", {"blockSize": 3})))
CASES.append(Case("depth_to_space_float32_block3", "DEPTH_TO_SPACE", [x("float32", [1, 2, 1, 18])], [o("float32")],
                  options=("DepthToSpaceOptions", {"blockSize": 3})))

# ---------------------------------------------------------------- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND
for t in ALL:
    CASES.append(Case(f"space_to_batch_nd_{t}", "SPACE_TO_BATCH_ND",
                      [x(t, [1, 4, 5, 2]), const("int32", [2], [2, 2]), const("int32", [2, 2], [[0, 0], [1, 0]])],
                      [o(t)], version=3))
    CASES.append(Case(f"batch_to_space_nd_{t}", "BATCH_TO_SPACE_ND",
                      [x(t, [4, 2, 3, 2]), const("int32", [2], [2, 2]), const("int32", [2, 2], [[0, 1], [1, 0]])],
                      [o(t)], version=3))
CASES.append(Case("space_to_batch_nd_float32_rank3", "SPACE_TO_BATCH_ND",
                  [x("float32", [2, 5, 3]), const("int32", [1], [3]), const("int32", [1, 2], [[1, 0]])],
                  [o("float32")], version=4))
CASES.append(Case("batch_to_space_nd_float32_rank3", "BATCH_TO_SPACE_ND",
                  [x("float32", [6, 2, 3]), const("int32", [1], [3]), const("int32", [1, 2], [[1, 2]])],
                  [o("float32")], version=4))
CASES.append(Case("space_to_batch_nd_float32_runtime", "SPACE_TO_BATCH_ND",
                  [x("float32", [2, 2, 4, 1]), inp("int32", [2], values=[2, 2]),
                   inp("int32", [2, 2], values=[1, 1, 0, 2])], [o("float32")], version=2))
CASES.append(Case("batch_to_space_nd_float32_runtime", "BATCH_TO_SPACE_ND",
                  [x("float32", [8, 1, 2, 1]), inp("int32", [2], values=[2, 4]),
                   inp("int32", [2, 2], values=[0, 1, 1, 2])], [o("float32")], version=2))

# ---------------------------------------------------------------- TILE
for t in ALL:
    CASES.append(Case(f"tile_{t}", "TILE", [x(t, [2, 3]), const("int32", [2], [2, 3])], [o(t)], version=3))
CASES.append(Case("tile_float32_int64_multiples", "TILE", [x("float32", [2, 1, 3]), const("int64", [3], [1, 4, 2])],
                  [o("float32")]))
CASES.append(Case("tile_int32_runtime_multiples", "TILE", [x("int32", [3]), inp("int32", [1], values=[3])],
                  [o("int32")]))
CASES.append(Case("tile_float32_rank5", "TILE", [x("float32", [1, 2, 1, 2, 2]), const("int32", [5], [2, 1, 3, 1, 2])],
                  [o("float32")]))

# ---------------------------------------------------------------- RESHAPE / SQUEEZE / EXPAND_DIMS / SHAPE
for t in ALL:
    CASES.append(Case(f"reshape_{t}", "RESHAPE", [x(t, [2, 3, 4]), const("int32", [2], [4, 6])], [o(t)]))
    CASES.append(Case(f"squeeze_{t}", "SQUEEZE", [x(t, [1, 3, 1, 2])], [o(t)]))
    CASES.append(Case(f"expand_dims_{t}", "EXPAND_DIMS", [x(t, [3, 2]), const("int32", [], [1])], [o(t)]))
    CASES.append(Case(f"shape_{t}", "SHAPE", [x(t, [2, 3, 4])], [out("int32")], options=("ShapeOptions", {"outType": 2})))
CASES.append(Case("reshape_float32_minus1", "RESHAPE", [x("float32", [2, 3, 4]), const("int32", [3], [3, -1, 2])],
                  [o("float32")]))
CASES.append(Case("reshape_float32_options_only", "RESHAPE", [x("float32", [2, 6])], [out("float32", [3, 4])],
                  options=("ReshapeOptions", {"newShape": [3, 4]})))
CASES.append(Case("reshape_float32_runtime_shape", "RESHAPE", [x("float32", [2, 6]), inp("int32", [3], values=[3, 2, 2])],
                  [o("float32")]))
CASES.append(Case("reshape_float32_to_scalar", "RESHAPE", [x("float32", [1, 1]), const("int32", [0], [])],
                  [o("float32")]))
CASES.append(Case("reshape_int32_int64_shape", "RESHAPE", [x("int32", [6]), const("int64", [2], [2, 3])],
                  [o("int32")]))
CASES.append(Case("squeeze_float32_dims", "SQUEEZE", [x("float32", [1, 3, 1, 2, 1])], [o("float32")],
                  options=("SqueezeOptions", {"squeezeDims": [0, -1]})))
CASES.append(Case("squeeze_float32_all_ones", "SQUEEZE", [x("float32", [1, 1])], [o("float32")]))
CASES.append(Case("expand_dims_float32_neg_axis", "EXPAND_DIMS", [x("float32", [3, 2]), const("int32", [1], [-1])],
                  [o("float32")]))
CASES.append(Case("expand_dims_float32_int64_axis", "EXPAND_DIMS", [x("float32", [3, 2]), const("int64", [], [0])],
                  [o("float32")]))
CASES.append(Case("expand_dims_int32_runtime_axis", "EXPAND_DIMS", [x("int32", [3, 2]), inp("int32", [], values=[2])],
                  [o("int32")]))
CASES.append(Case("shape_float32_int64", "SHAPE", [x("float32", [2, 3, 4, 1])], [out("int64")],
                  options=("ShapeOptions", {"outType": 4})))
CASES.append(Case("shape_float32_scalar", "SHAPE", [x("float32", [])], [out("int32")],
                  options=("ShapeOptions", {"outType": 2})))

# ---------------------------------------------------------------- CAST
_CAST = ["float32", "float16", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "bool"]
for a in _CAST:
    for b in _CAST:
        if a == b:
            continue
        kw = {"low": -300, "high": 300} if a.startswith("float") else {}
        if a in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64"):
            kw = {"low": -200 if not a.startswith("u") else 0, "high": 300}
        CASES.append(Case(f"cast_{a}_to_{b}", "CAST", [inp(a, [3, 5], **kw)], [out(b)], version=5))
CASES.append(Case("cast_float32_to_int32_rounding", "CAST",
                  [inp("float32", [8], values=[-2.7, -2.5, -0.5, 0.4, 0.5, 1.5, 2.5, 3.99])], [out("int32")]))
CASES.append(Case("cast_float32_to_uint8_wrap", "CAST", [inp("float32", [6], values=[-1.0, 0.0, 255.0, 256.0, 300.7, -3.5])],
                  [out("uint8")]))
CASES.append(Case("cast_int32_to_int8_wrap", "CAST", [inp("int32", [6], values=[-129, 128, 255, 256, -1, 1000])],
                  [out("int8")]))

# ---------------------------------------------------------------- QUANTIZE / DEQUANTIZE
_QF = {"int8": dict(scale=0.05, zero_point=-3), "uint8": dict(scale=0.05, zero_point=128),
       "int16": dict(scale=0.001, zero_point=0)}
for t, qq in _QF.items():
    CASES.append(Case(f"quantize_float32_to_{t}", "QUANTIZE", [inp("float32", [3, 7], low=-8, high=8)],
                      [out(t, **qq)], version=3))
    CASES.append(Case(f"quantize_float16_to_{t}", "QUANTIZE", [inp("float16", [3, 7])], [out(t, **qq)], version=3))
    CASES.append(Case(f"dequantize_{t}", "DEQUANTIZE", [inp(t, [3, 7], **qq)], [out("float32")], version=3))
CASES.append(Case("quantize_float32_to_int8_perchannel", "QUANTIZE", [inp("float32", [3, 4])],
                  [out("int8", scale=[0.01, 0.02, 0.05, 0.1], zero_point=[0, 0, 0, 0], axis=1)], version=4))
CASES.append(Case("dequantize_int8_perchannel", "DEQUANTIZE",
                  [inp("int8", [3, 4], scale=[0.01, 0.02, 0.05], zero_point=[0, 1, -2], axis=0)], [out("float32")],
                  version=4))
CASES.append(Case("dequantize_float16", "DEQUANTIZE", [inp("float16", [3, 7])], [out("float32")], version=3))
CASES.append(Case("dequantize_float16_const", "DEQUANTIZE", [const("float16", [3, 4], np.linspace(-2, 2, 12).tolist())],
                  [out("float32")], version=3))
CASES.append(Case("dequantize_int8_const", "DEQUANTIZE",
                  [const("int8", [6], [-128, -5, 0, 3, 100, 127], scale=0.1, zero_point=2)], [out("float32")],
                  version=2))
# requantize: integer in, integer out
for a, qa, b, qb in [("int8", _QF["int8"], "int8", dict(scale=0.03, zero_point=5)),
                     ("uint8", _QF["uint8"], "uint8", dict(scale=0.07, zero_point=120)),
                     ("int8", _QF["int8"], "uint8", dict(scale=0.05, zero_point=125)),
                     ("uint8", _QF["uint8"], "int8", dict(scale=0.05, zero_point=0)),
                     ("int16", _QF["int16"], "int16", dict(scale=0.002, zero_point=0)),
                     ("int16", _QF["int16"], "int8", dict(scale=0.02, zero_point=-1)),
                     ("int8", _QF["int8"], "int16", dict(scale=0.001, zero_point=0)),
                     ("int16", _QF["int16"], "uint8", dict(scale=0.02, zero_point=128)),
                     ("uint8", _QF["uint8"], "int16", dict(scale=0.001, zero_point=0)),
                     ("int16", _QF["int16"], "int32", dict(scale=0.0001, zero_point=0)),
                     ("int8", _QF["int8"], "int32", dict(scale=0.001, zero_point=0))]:
    CASES.append(Case(f"quantize_{a}_to_{b}", "QUANTIZE", [inp(a, [4, 6], **qa)], [out(b, **qb)], version=4))
for b, qb in [("int8", dict(scale=0.05, zero_point=-2)), ("int16", dict(scale=0.01, zero_point=0)),
              ("uint8", dict(scale=0.05, zero_point=128))]:
    CASES.append(Case(f"quantize_int32_to_{b}", "QUANTIZE", [inp("int32", [4, 6], low=-5000, high=5000, scale=0.001,
                                                                 zero_point=3)], [out(b, **qb)], version=4))
CASES.append(Case("quantize_float32_to_uint8_perchannel_axis0", "QUANTIZE", [inp("float32", [3, 2, 4])],
                  [out("uint8", scale=[0.01, 0.02, 0.05], zero_point=[128, 100, 3], axis=0)], version=4))
CASES.append(Case("quantize_float32_to_int16_perchannel", "QUANTIZE", [inp("float32", [2, 5])],
                  [out("int16", scale=[0.001, 0.0005], zero_point=[0, 0], axis=0)], version=4))
CASES.append(Case("quantize_float32_to_int8_large", "QUANTIZE", [inp("float32", [5, 37], low=-8, high=8)],
                  [out("int8", scale=0.06, zero_point=1)], version=2))

# ---------------------------------------------------------------- larger shapes and edge values
for t in ["float32", "int8", "uint8", "int16"]:
    CASES.append(Case(f"resize_bilinear_{t}_large", "RESIZE_BILINEAR", [x(t, [2, 9, 11, 3]),
                                                                        const("int32", [2], [20, 17])], [o(t)],
                      options=("ResizeBilinearOptions", {"halfPixelCenters": True}), version=4 if t == "int16" else 3))
    CASES.append(Case(f"resize_bilinear_{t}_large_align", "RESIZE_BILINEAR", [x(t, [1, 9, 11, 17]),
                                                                              const("int32", [2], [31, 4])], [o(t)],
                      options=("ResizeBilinearOptions", {"alignCorners": True}), version=4 if t == "int16" else 3))
    CASES.append(Case(f"resize_bilinear_{t}_upscale_x2", "RESIZE_BILINEAR", [x(t, [1, 8, 8, 8]),
                                                                             const("int32", [2], [16, 16])], [o(t)],
                      options=("ResizeBilinearOptions", {}), version=4 if t == "int16" else 3))
    CASES.append(Case(f"resize_nearest_{t}_large_half", "RESIZE_NEAREST_NEIGHBOR",
                      [x(t, [2, 7, 9, 5]), const("int32", [2], [15, 4])], [o(t)],
                      options=("ResizeNearestNeighborOptions", {"halfPixelCenters": True}),
                      version=4 if t == "int16" else 3))
    CASES.append(Case(f"resize_nearest_{t}_align_half", "RESIZE_NEAREST_NEIGHBOR",
                      [x(t, [1, 5, 6, 2]), const("int32", [2], [9, 4])], [o(t)],
                      options=("ResizeNearestNeighborOptions", {"halfPixelCenters": True, "alignCorners": True}),
                      version=4 if t == "int16" else 3))
CASES.append(Case("resize_bilinear_float32_align_half", "RESIZE_BILINEAR",
                  [x("float32", [1, 5, 6, 2]), const("int32", [2], [9, 4])], [o("float32")],
                  options=("ResizeBilinearOptions", {"halfPixelCenters": True, "alignCorners": True}), version=3))
CASES.append(Case("resize_bilinear_float32_same_size", "RESIZE_BILINEAR",
                  [x("float32", [1, 4, 5, 3]), const("int32", [2], [4, 5])], [o("float32")],
                  options=("ResizeBilinearOptions", {})))
CASES.append(Case("resize_bilinear_float32_to_1x1_align", "RESIZE_BILINEAR",
                  [x("float32", [1, 4, 5, 3]), const("int32", [2], [1, 1])], [o("float32")],
                  options=("ResizeBilinearOptions", {"alignCorners": True})))
for t in ["float32", "int8", "int32", "bool", "int64"]:
    CASES.append(Case(f"transpose_{t}_large_rank4", "TRANSPOSE", [x(t, [3, 17, 19, 5]),
                                                                  const("int32", [4], [0, 2, 3, 1])], [o(t)],
                      version=5))
    CASES.append(Case(f"concatenation_{t}_many_axis0", "CONCATENATION",
                      [x(t, [n, 7, 3]) for n in [1, 2, 3, 4, 5]], [o(t)],
                      options=("ConcatenationOptions", {"axis": 0}), version=3))
    CASES.append(Case(f"tile_{t}_large", "TILE", [x(t, [3, 5, 7]), const("int32", [3], [4, 1, 3])], [o(t)],
                      version=3))
for t in ["float32", "int8", "uint8", "int16", "int32", "int64", "bool"]:
    CASES.append(Case(f"strided_slice_{t}_masks_rank5", "STRIDED_SLICE",
                      [x(t, [2, 3, 4, 5, 2]), const("int32", [5], [1, 0, -1, 4, 0]), const("int32", [5], [2, 3, 0, 0, 2]),
                       const("int32", [5], [1, 2, -1, -2, 1])], [o(t)],
                      options=("StridedSliceOptions", {"beginMask": 2, "endMask": 16, "shrinkAxisMask": 1}),
                      version=5))
    CASES.append(Case(f"slice_{t}_rank5_minus1", "SLICE", [x(t, [2, 3, 4, 5, 2]), const("int32", [5], [0, 1, 1, 2, 0]),
                                                    const("int32", [5], [-1, 2, 3, -1, 1])], [o(t)], version=5))
    CASES.append(Case(f"mirror_pad_{t}_symmetric_rank4", "MIRROR_PAD",
                      [x(t, [1, 3, 4, 2]), const("int32", [4, 2], [[0, 0], [3, 2], [1, 4], [0, 1]])], [o(t)],
                      options=("MirrorPadOptions", {"mode": 1}), version=2))
    CASES.append(Case(f"pad_{t}_rank4_large", "PAD", [x(t, [2, 9, 11, 6]),
                                                      const("int32", [4, 2], [[0, 0], [2, 1], [1, 3], [0, 2]])],
                      [o(t)], version=3))
_ss("strided_slice_float32_ellipsis_new_axis", "float32", [2, 3, 4], [0, 0, 1], [0, 0, 3], [1, 1, 1],
    ellipsisMask=1, newAxisMask=2, version=5)
_ss("strided_slice_float32_shrink_negative", "float32", [5, 4], [-1, 0], [0, 4], [1, 1], shrinkAxisMask=1)
_ss("strided_slice_float32_empty", "float32", [5, 4], [3, 0], [1, 4], [1, 1])
_ss("strided_slice_float32_offset_negative_stride", "float32", [6, 5], [4, 0], [-3, 5], [-1, 2], offset=True,
    version=8)
CASES.append(Case("space_to_batch_nd_int8_rank4_pad", "SPACE_TO_BATCH_ND",
                  [x("int8", [2, 5, 7, 3]), const("int32", [2], [3, 2]), const("int32", [2, 2], [[1, 0], [0, 1]])],
                  [o("int8")], version=2))
CASES.append(Case("batch_to_space_nd_uint8_crop", "BATCH_TO_SPACE_ND",
                  [x("uint8", [6, 3, 4, 2]), const("int32", [2], [3, 2]), const("int32", [2, 2], [[1, 2], [0, 3]])],
                  [o("uint8")], version=2))
CASES.append(Case("depth_to_space_int8_large", "DEPTH_TO_SPACE", [x("int8", [2, 5, 7, 36])], [o("int8")],
                  options=("DepthToSpaceOptions", {"blockSize": 3}), version=2))
CASES.append(Case("space_to_depth_uint8_large", "SPACE_TO_DEPTH", [x("uint8", [2, 12, 8, 5])], [o("uint8")],
                  options=("SpaceToDepthOptions", {"blockSize": 4}), version=2))
CASES.append(Case("cast_float32_to_int32_edge", "CAST",
                  [inp("float32", [8], values=[float("nan"), float("inf"), float("-inf"), 3e9, -3e9, 2147483520.0,
                                                -2147483648.0, -0.99])], [out("int32")]))
CASES.append(Case("cast_float32_to_int64_edge", "CAST",
                  [inp("float32", [6], values=[float("nan"), float("inf"), -1e19, 1e19, 123456789.0, -0.5])],
                  [out("int64")]))
CASES.append(Case("cast_float32_to_int8_edge", "CAST",
                  [inp("float32", [6], values=[float("nan"), 1000.0, -1000.0, 127.9, -128.9, 200.0])], [out("int8")]))
CASES.append(Case("cast_float32_to_bool_edge", "CAST",
                  [inp("float32", [6], values=[float("nan"), 0.0, -0.0, 1e-40, -2.0, float("inf")])], [out("bool")]))
CASES.append(Case("cast_float32_to_float16_edge", "CAST",
                  [inp("float32", [8], values=[65504.0, 65520.0, 1e-8, 6e-8, -3e-5, float("nan"), 1e6, 0.1])],
                  [out("float16")]))
CASES.append(Case("cast_float64_to_float32_edge", "CAST",
                  [inp("float64", [5], values=[1e300, -1e-300, 0.1, float("nan"), 3.4028235677973366e38])],
                  [out("float32")]))
CASES.append(Case("cast_int64_to_int32_wrap", "CAST",
                  [inp("int64", [5], values=[2**31, -2**31 - 1, 2**40 + 5, -1, 7])], [out("int32")]))
CASES.append(Case("cast_uint32_to_int32_wrap", "CAST",
                  [inp("uint32", [4], values=[2**31, 2**32 - 1, 5, 0])], [out("int32")]))
CASES.append(Case("cast_int32_to_float32_large", "CAST",
                  [inp("int32", [4], values=[2**31 - 1, -2**31, 16777217, -16777217])], [out("float32")]))
CASES.append(Case("dequantize_uint8_perchannel", "DEQUANTIZE",
                  [inp("uint8", [2, 3], scale=[0.1, 0.2, 0.3], zero_point=[128, 0, 255], axis=1)], [out("float32")],
                  version=4))
CASES.append(Case("dequantize_int16_perchannel", "DEQUANTIZE",
                  [inp("int16", [3, 2], scale=[0.001, 0.002, 0.003], zero_point=[0, 0, 0], axis=0)], [out("float32")],
                  version=4))
CASES.append(Case("dequantize_int8_large", "DEQUANTIZE", [inp("int8", [5, 37], scale=0.07, zero_point=-4)],
                  [out("float32")], version=2))
CASES.append(Case("dequantize_uint8_large", "DEQUANTIZE", [inp("uint8", [5, 37], scale=0.07, zero_point=130)],
                  [out("float32")], version=2))
CASES.append(Case("quantize_float32_to_uint8_edge", "QUANTIZE",
                  [inp("float32", [10], values=[0.025, 0.075, -0.025, 1e10, -1e10, float("nan"), 6.4, -6.4, 0.0,
                                                 0.125])],
                  [out("uint8", scale=0.05, zero_point=128)]))
CASES.append(Case("quantize_float32_to_int8_edge_block", "QUANTIZE",
                  [inp("float32", [17], values=[0.025 * k for k in range(-8, 9)])],
                  [out("int8", scale=0.05, zero_point=0)], version=2))
CASES.append(Case("quantize_float32_to_int16_edge", "QUANTIZE",
                  [inp("float32", [6], values=[0.0005, -0.0005, 0.0015, 100.0, -100.0, 0.0])],
                  [out("int16", scale=0.001, zero_point=0)], version=3))
CASES.append(Case("quantize_int8_to_int8_large", "QUANTIZE", [inp("int8", [5, 37], scale=0.05, zero_point=-3)],
                  [out("int8", scale=0.03, zero_point=5)], version=2))
CASES.append(Case("reshape_float32_runtime_minus1", "RESHAPE", [x("float32", [4, 6]), inp("int32", [2], values=[-1, 8])],
                  [o("float32")]))
CASES.append(Case("expand_dims_int8_axis_end", "EXPAND_DIMS", [x("int8", [2, 3]), const("int32", [1], [2])], [o("int8")]))
CASES.append(Case("squeeze_int8_negative_dim", "SQUEEZE", [x("int8", [2, 1, 3, 1])], [o("int8")],
                  options=("SqueezeOptions", {"squeezeDims": [-3]})))
CASES.append(Case("split_int8_axis0_large", "SPLIT", [const("int32", [], [0]), x("int8", [6, 33])], [o("int8")] * 3,
                  options=("SplitOptions", {"numSplits": 3}), version=2))
CASES.append(Case("unpack_int8_axis0", "UNPACK", [x("int8", [3, 5])], [o("int8")] * 3,
                  options=("UnpackOptions", {"num": 3, "axis": 0}), version=2))
CASES.append(Case("pack_int8_axis1_rank3", "PACK", [x("int8", [2, 3, 4])] * 3, [o("int8")],
                  options=("PackOptions", {"valuesCount": 3, "axis": 1}), version=2))
CASES.append(Case("quantize_float32_to_int16_edge_block", "QUANTIZE",
                  [inp("float32", [19], values=[0.0005 * k for k in range(-9, 10)])],
                  [out("int16", scale=0.001, zero_point=0)], version=3))
CASES.append(Case("quantize_float32_to_uint8_edge_block", "QUANTIZE",
                  [inp("float32", [19], values=[0.025 * k for k in range(-9, 10)])],
                  [out("uint8", scale=0.05, zero_point=128)], version=2))

# ---------------------------------------------------------------- DENSIFY (constant sparse tensors)
from ai_edge_litert import schema_py_generated as _schema  # noqa: E402

_SEGMENT_TYPES = {"int32": (_schema.SparseIndexVector.Int32Vector, _schema.Int32VectorT),
                  "uint16": (_schema.SparseIndexVector.Uint16Vector, _schema.Uint16VectorT),
                  "uint8": (_schema.SparseIndexVector.Uint8Vector, _schema.Uint8VectorT)}


def _index_vector(values, kind):
    code, table = _SEGMENT_TYPES[kind]
    v = table()
    v.values = [int(a) for a in values]
    return code, v


def _sparse(dense, formats, block=None, index_type="int32"):
    """TACO encoding of `dense`: `formats` per traversed level ("d" dense, "s" CSR); `block` = block sizes of
    the last dimensions (block sparsity, blocks stored dense). Returns (SparsityParametersT, stored values)."""
    dense = np.asarray(dense)
    rank = dense.ndim
    if block:
        nb = len(block)
        block_map = list(range(rank - nb, rank))
        outer = list(dense.shape[:rank - nb]) + [dense.shape[d] // b for d, b in zip(block_map, block)]
        shape = outer + list(block)
        # blocked[i0.., bi.., ii..]: element at (i0.., bi*b + ii..)
        blocked = np.zeros(shape, dense.dtype)
        for idx in np.ndindex(*shape):
            o, inner = idx[:rank], idx[rank:]
            src = list(o[:rank - nb]) + [o[rank - nb + k] * block[k] + inner[k] for k in range(nb)]
            blocked[idx] = dense[tuple(src)]
        levels = blocked
    else:
        block_map = []
        levels = dense
    dims = []
    values = []

    def walk(prefix, level):
        sub = levels[tuple(prefix)]
        if level == levels.ndim:
            return [sub]
        return None

    # Build level by level: each level's positions are the paths kept so far.
    paths = [()]
    for level, fmt in enumerate(formats):
        meta = _schema.DimensionMetadataT()
        size = levels.shape[level]
        if fmt == "d":
            meta.format = _schema.DimensionType.DENSE
            meta.denseSize = size
            paths = [p + (i,) for p in paths for i in range(size)]
        else:
            meta.format = _schema.DimensionType.SPARSE_CSR
            segments, indices, kept = [0], [], []
            for p in paths:
                for i in range(size):
                    if np.any(levels[p + (i,)] != 0):
                        indices.append(i)
                        kept.append(p + (i,))
                segments.append(len(indices))
            meta.arraySegmentsType, meta.arraySegments = _index_vector(segments, index_type)
            meta.arrayIndicesType, meta.arrayIndices = _index_vector(indices, index_type)
            paths = kept
        dims.append(meta)
    values = [levels[p] for p in paths]
    sp = _schema.SparsityParametersT()
    sp.traversalOrder = list(range(levels.ndim))
    sp.blockMap = block_map or None
    sp.dimMetadata = dims
    return sp, np.asarray(values, dtype=dense.dtype).ravel().tolist()


def _densify_case(name, dense, formats, dtype, block=None, index_type="int32", **q):
    sp, vals = _sparse(np.asarray(dense).astype(np.float64), formats, block, index_type)
    count = len(vals)
    spec = const(dtype, list(np.asarray(dense).shape), vals, sparsity=sp, **q)
    spec.shape = list(np.asarray(dense).shape)
    # The buffer holds only the stored values: array() reshapes `values` to `shape`, so give it a flat view.
    spec.values = np.asarray(vals)
    CASES.append(Case(name, "DENSIFY", [spec], [out(dtype, **q)], note=f"{count} stored values"))


_dense_a = np.array([[0, 1.5, 0, 0, -2], [0, 0, 0, 0, 0], [3, 0, 0, 0.25, 0], [0, 0, 7, 0, 0]])
_dense_b = np.zeros([4, 6])
_dense_b[0:2, 2:4] = [[1, 2], [3, 0]]
_dense_b[2:4, 0:2] = [[-4, 5], [6, -7]]
_dense_b[2:4, 4:6] = [[0, 0.5], [8, 9]]
_dense_c = np.zeros([2, 3, 4])
_dense_c[0, 1, 2] = 5
_dense_c[1, 0, 0] = -1
_dense_c[1, 2, 3] = 2.5
for dtype, dq in [("float32", {}), ("float16", {}), ("int8", dict(scale=0.5, zero_point=0))]:
    mult = 2 if dtype == "int8" else 1
    _densify_case(f"densify_{dtype}_csr", _dense_a * mult, "ds", dtype, **dq)
    _densify_case(f"densify_{dtype}_block2x2", _dense_b * mult, "dsdd", dtype, block=[2, 2], **dq)
    _densify_case(f"densify_{dtype}_rank3_csr", _dense_c * mult, "dss", dtype, **dq)
_densify_case("densify_float32_dense_levels", _dense_a, "dd", "float32")
_densify_case("densify_float32_csr_uint8_indices", _dense_a, "ds", "float32", index_type="uint8")
_densify_case("densify_float32_csr_uint16_indices", _dense_a, "ds", "float32", index_type="uint16")
_densify_case("densify_float32_block1x4", np.pad(_dense_a, [(0, 0), (0, 3)]), "dsdd", "float32", block=[1, 4])


# FULLY_CONNECTED reads sparse float weights itself (the converter's EXPERIMENTAL_SPARSITY on a pruned
# Dense layer writes them with no DENSIFY): LiteRT runs dense rows with CSR columns, unblocked or in
# 1x4 blocks, and refuses other encodings (the 2x2 case, kept in the manifest with its message).
def _fc_sparse_case(name, dense, formats, block=None, activation=0, batch=3):
    sp, vals = _sparse(np.asarray(dense, dtype=np.float64), formats, block)
    weights = const("float32", list(np.asarray(dense).shape), vals, sparsity=sp)
    weights.values = np.asarray(vals)
    units, depth = np.asarray(dense).shape
    bias = const("float32", [units], (np.arange(units) * 0.25 - 0.5).tolist())
    CASES.append(Case(name, "FULLY_CONNECTED", [inp("float32", [batch, depth]), weights, bias], [out("float32")],
                      options=("FullyConnectedOptions", {"fusedActivationFunction": activation}),
                      note=f"{len(vals)} stored weights"))


_fc_sparse_rng = np.random.default_rng(7)
_fc_sparse_random = np.round(_fc_sparse_rng.uniform(-2, 2, [6, 10]), 2) * (_fc_sparse_rng.uniform(size=[6, 10]) < 0.35)
_fc_sparse_random[3] = 0  # a row with no stored weight: its output is the bias alone
_fc_sparse_blocks = np.round(_fc_sparse_rng.uniform(-2, 2, [5, 12]), 2)
_fc_sparse_blocks *= np.repeat(_fc_sparse_rng.uniform(size=[5, 3]) < 0.4, 4, axis=1)
_fc_sparse_blocks[1] = 0
_fc_sparse_case("fully_connected_float32_sparse_weights_csr", _fc_sparse_random, "ds")
_fc_sparse_case("fully_connected_float32_sparse_weights_block1x4_relu", _fc_sparse_blocks, "dsd", block=[4],
                activation=1, batch=2)
_fc_sparse_case("fully_connected_float32_sparse_weights_block2x2", _dense_b, "dsdd", block=[2, 2])


# int8 weights (fully integer and dynamic range) are read sparse in 1x16 blocks only.
def _fc_sparse_int8_case(name, dense, formats, block=None, hybrid=False, asym=False, per_channel=False):
    units, depth = np.asarray(dense).shape
    sp, vals = _sparse(np.asarray(dense, dtype=np.float64), formats, block)
    wq = (dict(scale=[0.01 + 0.003 * u for u in range(units)], zero_point=[0] * units, axis=0) if per_channel
          else dict(scale=0.02, zero_point=0))
    weights = const("int8", [units, depth], vals, sparsity=sp, **wq)
    weights.values = np.asarray(vals)
    options = ("FullyConnectedOptions", {"fusedActivationFunction": 0, "asymmetricQuantizeInputs": asym})
    if hybrid:
        ins = [inp("float32", [3, depth]), weights, const("float32", [units], (np.arange(units) * 0.2 - 0.3).tolist())]
        CASES.append(Case(name, "FULLY_CONNECTED", ins, [out("float32")], options=options, version=9,
                          tolerance=1e-4, note=f"{len(vals)} stored weights"))
        return
    in_scale = 0.05
    scales = wq["scale"] if per_channel else [wq["scale"]] * units
    bias = const("int32", [units], [int(v) for v in (np.arange(units) * 37 - 60)],
                 scale=[in_scale * s for s in scales], zero_point=[0] * units, axis=0)
    ins = [inp("int8", [3, depth], scale=in_scale, zero_point=-3), weights, bias]
    CASES.append(Case(name, "FULLY_CONNECTED", ins, [out("int8", scale=0.08, zero_point=4)], options=options,
                      version=12 if per_channel else 4, note=f"{len(vals)} stored weights"))


_fc_sparse_int8 = _fc_sparse_rng.integers(-127, 128, [6, 48]).astype(np.float64)
_fc_sparse_int8 *= np.repeat(_fc_sparse_rng.uniform(size=[6, 3]) < 0.45, 16, axis=1)
_fc_sparse_int8[2] = 0
_fc_sparse_int8_case("fully_connected_int8_sparse_weights_block1x16", _fc_sparse_int8, "dsd", block=[16])
_fc_sparse_int8_case("fully_connected_int8_sparse_weights_block1x16_perchannel", _fc_sparse_int8, "dsd", block=[16],
                     per_channel=True)
_fc_sparse_int8_case("fully_connected_int8_sparse_weights_csr", _fc_sparse_int8, "ds")
for _asym in (False, True):
    _fc_sparse_int8_case(f"fully_connected_hybrid_int8_sparse_weights_block1x16_{'asym' if _asym else 'sym'}",
                         _fc_sparse_int8, "dsd", block=[16], hybrid=True, asym=_asym)
_fc_sparse_int8_case("fully_connected_hybrid_int8_sparse_weights_block1x16_perchannel", _fc_sparse_int8, "dsd",
                     block=[16], hybrid=True, per_channel=True)


def _int4_const(shape, values, **q):
    spec = const("int8", shape, values, **q)
    spec.dtype = "int4"
    return spec


CASES.append(Case("dequantize_int4", "DEQUANTIZE",
                  [_int4_const([7], [-8, -5, -1, 0, 3, 6, 7], scale=0.5, zero_point=0)], [out("float32")], version=6))
CASES.append(Case("dequantize_int4_perchannel", "DEQUANTIZE",
                  [_int4_const([4, 6], (np.arange(24) % 15 - 7).tolist(), scale=[0.1, 0.2, 0.3, 0.4],
                               zero_point=[0] * 4, axis=0)], [out("float32")], version=6))
CASES.append(Case("dequantize_int4_zero_point", "DEQUANTIZE",
                  [_int4_const([2, 3], [-8, -3, 0, 2, 5, 7], scale=0.25, zero_point=-1)], [out("float32")], version=6))

# ---------------------------------------------------------------- more edge cases
CASES.append(Case("transpose_float32_zero_dim", "TRANSPOSE", [x("float32", [2, 0, 3]), const("int32", [3], [2, 0, 1])],
                  [o("float32")]))
CASES.append(Case("pad_float32_zero_dim", "PAD", [x("float32", [0, 3]), const("int32", [2, 2], [[1, 1], [0, 1]])],
                  [o("float32")]))
CASES.append(Case("tile_float32_zero_multiple", "TILE", [x("float32", [2, 3]), const("int32", [2], [0, 2])],
                  [o("float32")]))
CASES.append(Case("reshape_float32_zero", "RESHAPE", [x("float32", [0, 3]), const("int32", [2], [3, 0])],
                  [o("float32")]))
CASES.append(Case("concatenation_float32_zero_inputs", "CONCATENATION", [x("float32", [2, 0]), x("float32", [2, 3])],
                  [o("float32")], options=("ConcatenationOptions", {"axis": 1})))
CASES.append(Case("resize_nearest_float32_align_upscale", "RESIZE_NEAREST_NEIGHBOR",
                  [x("float32", [1, 3, 3, 1]), const("int32", [2], [7, 8])], [o("float32")],
                  options=("ResizeNearestNeighborOptions", {"alignCorners": True})))
CASES.append(Case("resize_bilinear_int8_size_input", "RESIZE_BILINEAR",
                  [x("int8", [1, 4, 4, 3]), inp("int32", [2], values=[7, 5])], [o("int8")],
                  options=("ResizeBilinearOptions", {"halfPixelCenters": True}), version=3))
CASES.append(Case("strided_slice_int8_runtime_all", "STRIDED_SLICE",
                  [x("int8", [5, 6]), inp("int32", [2], values=[4, 1]), inp("int32", [2], values=[0, 6]),
                   inp("int32", [2], values=[-2, 2])], [o("int8")], options=("StridedSliceOptions", {}), version=4))
CASES.append(Case("slice_int8_runtime_size_minus1", "SLICE",
                  [x("int8", [4, 6]), inp("int32", [2], values=[1, 2]), inp("int32", [2], values=[-1, 3])],
                  [o("int8")], version=4))
CASES.append(Case("split_v_int8_runtime_sizes", "SPLIT_V",
                  [x("int8", [7, 2]), inp("int32", [3], values=[2, 4, 1]), const("int32", [], [0])], [o("int8")] * 3,
                  options=("SplitVOptions", {"numSplits": 3}), version=2))
CASES.append(Case("space_to_batch_nd_float32_rank3_runtime", "SPACE_TO_BATCH_ND",
                  [x("float32", [1, 5, 2]), inp("int32", [1], values=[2]), inp("int32", [1, 2], values=[0, 1])],
                  [o("float32")], version=4))
CASES.append(Case("mirror_pad_float32_reflect_max", "MIRROR_PAD",
                  [x("float32", [3, 4]), const("int32", [2, 2], [[2, 2], [3, 3]])], [o("float32")],
                  options=("MirrorPadOptions", {"mode": 0}), version=2))
CASES.append(Case("mirror_pad_float32_symmetric_max", "MIRROR_PAD",
                  [x("float32", [3, 4]), const("int32", [2, 2], [[3, 3], [4, 4]])], [o("float32")],
                  options=("MirrorPadOptions", {"mode": 1}), version=2))
CASES.append(Case("cast_float16_to_int32_edge", "CAST",
                  [inp("float16", [6], values=[float("nan"), float("inf"), 65504.0, -0.5, 2.5, -7.99])], [out("int32")]))
CASES.append(Case("cast_bool_to_float16_values", "CAST", [inp("bool", [4], values=[True, False, True, True])],
                  [out("float16")]))
