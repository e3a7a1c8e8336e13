"""Reductions (SUM, MEAN, REDUCE_MAX/MIN/PROD/ANY/ALL) and ARG_MAX/ARG_MIN."""

from opmodel import Case, const, inp, out

CASES = []

# (suffix, input shape, axes, keep_dims)
_AXES = [
    ("axis1", [2, 3, 4], [1], False),
    ("axes02_keep", [2, 3, 4], [0, 2], True),
    ("neg", [2, 3, 4], [-1], False),
    ("repeat", [2, 3, 4], [1, -2], False),
    ("all", [2, 3, 4], [0, 1, 2], False),
    ("empty_axes", [2, 3], [], False),
    ("rank4_keep", [2, 2, 3, 5], [1, 2], True),
]

_QUANT = {
    "int8": {"scale": 0.05, "zero_point": -3},
    "uint8": {"scale": 0.05, "zero_point": 120},
    "int16": {"scale": 0.01, "zero_point": 0},
}


def _reduce(prefix, op, dtype, shape, axes, keep, version=1, qin=None, qout=None, note="", **kw):
    qin = qin or {}
    qout = qout if qout is not None else qin
    CASES.append(Case(f"{prefix}", op, [inp(dtype, shape, **qin, **kw), const("int32", [len(axes)], axes)],
                      [out(dtype, **qout)], options=("ReducerOptions", {"keepDims": keep}), version=version,
                      note=note))


for op, types in [
    ("SUM", ["float32", "int32", "int64", "int8", "uint8", "int16", "bool"]),
    ("MEAN", ["float32", "int32", "int64", "int8", "uint8", "int16"]),
    ("REDUCE_MAX", ["float32", "int32", "int64", "int8", "uint8", "int16", "bool"]),
    ("REDUCE_MIN", ["float32", "int32", "int64", "int8", "uint8", "int16", "bool"]),
    ("REDUCE_PROD", ["float32", "int32", "int64", "int8", "int16", "uint8", "bool"]),
    ("REDUCE_ANY", ["bool"]),
    ("REDUCE_ALL", ["bool"]),
]:
    low = op.lower().replace("reduce_", "reduce_")
    for dtype in types:
        q = _QUANT.get(dtype) if dtype in _QUANT else None
        kw = {}
        if op == "REDUCE_PROD" and dtype in ("int32", "int64"):
            kw = {"low": -3, "high": 3}
        if op == "REDUCE_PROD" and dtype == "float32":
            kw = {"low": -1.5, "high": 1.5}
        if op == "REDUCE_PROD" and dtype in ("int8", "int16"):
            kw = {"low": -40, "high": 40} if dtype == "int8" else {"low": -300, "high": 300}
        version = 2 if q else 1
        main = _AXES if dtype in ("float32", "int32", "bool") else _AXES[:3] + _AXES[4:5]
        for suffix, shape, axes, keep in main:
            _reduce(f"{low}_{dtype}_{suffix}", op, dtype, shape, axes, keep, version, q, **kw)
        if q and op in ("SUM", "MEAN", "REDUCE_PROD"):
            # the output on another scale: the kernel must requantize
            qo = dict(q)
            qo["scale"] = q["scale"] * (3 if op != "REDUCE_PROD" else 0.5)
            if dtype != "int16":
                qo["zero_point"] = q["zero_point"] + 5
            for suffix, shape, axes, keep in _AXES[:2] + _AXES[4:5] + _AXES[6:]:
                _reduce(f"{low}_{dtype}_rescale_{suffix}", op, dtype, shape, axes, keep, version, q, qo, **kw)
        # unquantized 8/16-bit SUM/MEAN divide by a zero scale in LiteRT (garbage out): not cases
        if dtype in ("int8", "uint8", "int16") and op not in ("SUM", "MEAN"):
            # unquantized 8/16-bit integers
            _reduce(f"{low}_{dtype}_plain_axis1", op, dtype, [2, 3, 4], [1], False, version,
                    **({"low": -3, "high": 3} if dtype != "uint8" else {"low": 0, "high": 5}))
    # empty input, scalar input
    t = types[0]
    _reduce(f"{low}_{t}_empty_input", op, t, [0, 3], [0], False)
    _reduce(f"{low}_{t}_scalar", op, t, [], [0], False)

# MEAN over H and W of a 4D quantized tensor (LiteRT's dedicated path), several depths
for dtype in ["int8", "uint8"]:
    q = _QUANT[dtype]
    qo = {"scale": q["scale"] * 0.7, "zero_point": q["zero_point"] + 2}
    for depth in [3, 16, 21]:
        _reduce(f"mean_{dtype}_hw_depth{depth}", "MEAN", dtype, [2, 3, 4, depth], [1, 2], True, 2, q, qo)
_reduce("mean_float32_hw", "MEAN", "float32", [2, 3, 4, 5], [2, 1], True)
_reduce("mean_float32_lastdim", "MEAN", "float32", [3, 4, 7], [2], False)

# a non-constant axis operand
for op in ["SUM", "REDUCE_PROD", "REDUCE_MIN", "REDUCE_ANY"]:
    dtype = "bool" if op == "REDUCE_ANY" else "float32"
    CASES.append(Case(f"{op.lower()}_{dtype}_runtime_axis", op,
                      [inp(dtype, [3, 4, 2]), inp("int32", [2], values=[2, 0])], [out(dtype)],
                      options=("ReducerOptions", {"keepDims": False})))
# int64 axis operand
CASES.append(Case("reduce_min_float32_int64_axis", "REDUCE_MIN",
                  [inp("float32", [3, 4]), const("int64", [1], [1])], [out("float32")],
                  options=("ReducerOptions", {"keepDims": False})))

for op in ["ARG_MAX", "ARG_MIN"]:
    low = op.lower()
    opts = "ArgMaxOptions" if op == "ARG_MAX" else "ArgMinOptions"
    for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16", "bool"]:
        q = {"scale": 0.1, "zero_point": 0} if dtype in ("int8", "uint8", "int16") else {}
        for axis, shape in [(1, [3, 5, 4]), (-1, [3, 5, 4]), (0, [6])]:
            CASES.append(Case(f"{low}_{dtype}_axis{axis}_rank{len(shape)}", op,
                              [inp(dtype, shape, low=-3, high=3, **q), const("int32", [1], [axis])],
                              [out("int64")], options=(opts, {"outputType": 4}), version=2))
    CASES.append(Case(f"{low}_float32_int32_out", op, [inp("float32", [4, 6]), const("int32", [1], [1])],
                      [out("int32")], options=(opts, {"outputType": 2})))
    CASES.append(Case(f"{low}_float32_int64_axis", op, [inp("float32", [4, 6]), const("int64", [1], [0])],
                      [out("int64")], options=(opts, {"outputType": 4})))
    CASES.append(Case(f"{low}_int32_runtime_axis", op, [inp("int32", [4, 6]), inp("int32", [1], values=[1])],
                      [out("int32")], options=(opts, {"outputType": 2})))

# A scalar axis operand, keep_dims with an empty axis list and with negative repeated axes
for op, dtype in [("SUM", "int32"), ("REDUCE_PROD", "float32"), ("REDUCE_MIN", "int64"), ("REDUCE_ALL", "bool"),
                  ("MEAN", "float32"), ("REDUCE_MAX", "float32")]:
    low = op.lower()
    CASES.append(Case(f"{low}_{dtype}_scalar_axis", op, [inp(dtype, [3, 4], low=-3, high=3), const("int32", [], [-1])],
                      [out(dtype)], options=("ReducerOptions", {"keepDims": False})))
    CASES.append(Case(f"{low}_{dtype}_empty_axes_keep", op, [inp(dtype, [3, 4], low=-3, high=3), const("int32", [0], [])],
                      [out(dtype)], options=("ReducerOptions", {"keepDims": True})))
    CASES.append(Case(f"{low}_{dtype}_neg_repeat_keep", op,
                      [inp(dtype, [2, 3, 4, 2], low=-3, high=3), const("int32", [3], [-1, 1, 3])],
                      [out(dtype)], options=("ReducerOptions", {"keepDims": True})))
# runtime axes for the existing kernels and the quantized paths
for op, dtype in [("MEAN", "float32"), ("REDUCE_MAX", "int32"), ("MEAN", "int8"), ("REDUCE_PROD", "int8"),
                  ("REDUCE_ALL", "bool")]:
    q = _QUANT.get(dtype, {})
    CASES.append(Case(f"{op.lower()}_{dtype}_runtime_axes_keep", op,
                      [inp(dtype, [3, 4, 2], **q, **({"low": -20, "high": 20} if op == "REDUCE_PROD" else {})),
                       inp("int32", [2], values=[0, -1])], [out(dtype, **q)],
                      options=("ReducerOptions", {"keepDims": True}), version=2 if q else 1))
# infinities and NaN through MIN/MAX/PROD, and an all-negative-infinity MAX
CASES.append(Case("reduce_min_float32_specials", "REDUCE_MIN",
                  [inp("float32", [2, 4], values=[float("inf"), 1, -2, float("nan"), float("inf"), float("inf"), 3, 0]),
                   const("int32", [1], [1])], [out("float32")], options=("ReducerOptions", {"keepDims": False})))
CASES.append(Case("reduce_max_float32_neg_inf", "REDUCE_MAX",
                  [inp("float32", [2, 3], values=[-float("inf")] * 6), const("int32", [1], [1])], [out("float32")],
                  options=("ReducerOptions", {"keepDims": False})))
CASES.append(Case("reduce_prod_float32_specials", "REDUCE_PROD",
                  [inp("float32", [2, 3], values=[float("inf"), 0, 2, -1e30, 1e30, 3]), const("int32", [1], [1])],
                  [out("float32")], options=("ReducerOptions", {"keepDims": False})))
CASES.append(Case("reduce_prod_int32_wraps", "REDUCE_PROD",
                  [inp("int32", [2, 4], values=[70000, 70000, 3, 1, -65536, 65536, 2, 7]), const("int32", [1], [1])],
                  [out("int32")], options=("ReducerOptions", {"keepDims": False})))
# quantized PROD with a long chain (saturating outputs) and a non-zero zero point
CASES.append(Case("reduce_prod_int8_long_chain", "REDUCE_PROD",
                  [inp("int8", [3, 16], low=-128, high=127, scale=0.02, zero_point=5), const("int32", [1], [1])],
                  [out("int8", scale=0.05, zero_point=-4)], options=("ReducerOptions", {"keepDims": False}), version=2))
CASES.append(Case("reduce_prod_int16_chain", "REDUCE_PROD",
                  [inp("int16", [2, 3, 5], low=-900, high=900, scale=0.002), const("int32", [2], [2, 0])],
                  [out("int16", scale=0.01)], options=("ReducerOptions", {"keepDims": True}), version=2))
# float16 (LiteRT refuses it for every reduction)
for op in ["SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"]:
    _reduce(f"{op.lower()}_float16_axis1", op, "float16", [2, 3, 4], [1], False)
# empty inputs and empty axis lists on the quantized and bool paths
_R = ("ReducerOptions", {"keepDims": False})
CASES += [
    Case("reduce_any_bool_empty_rows", "REDUCE_ANY", [inp("bool", [0, 3]), const("int32", [1], [0])], [out("bool")],
         options=_R),
    Case("reduce_all_bool_empty_columns", "REDUCE_ALL", [inp("bool", [3, 0]), const("int32", [1], [1])], [out("bool")],
         options=_R),
    Case("sum_int8_empty_axes_rescale", "SUM", [inp("int8", [2, 3], scale=0.1, zero_point=1), const("int32", [0], [])],
         [out("int8", scale=0.2, zero_point=-2)], options=_R, version=2),
    Case("mean_int8_empty_axes_rescale", "MEAN", [inp("int8", [2, 3], scale=0.1, zero_point=1), const("int32", [0], [])],
         [out("int8", scale=0.2, zero_point=-2)], options=_R, version=2),
    Case("reduce_prod_int8_empty_axes_rescale", "REDUCE_PROD",
         [inp("int8", [2, 3], scale=0.1, zero_point=1, low=-5, high=5), const("int32", [0], [])],
         [out("int8", scale=0.2, zero_point=-2)], options=_R, version=2),
    Case("reduce_min_int8_empty_input", "REDUCE_MIN",
         [inp("int8", [0, 3], scale=0.1, zero_point=1), const("int32", [1], [0])],
         [out("int8", scale=0.1, zero_point=1)], options=_R, version=2),
    Case("reduce_max_float32_empty_input_all", "REDUCE_MAX", [inp("float32", [0, 3]), const("int32", [2], [0, 1])],
         [out("float32")], options=_R),
    Case("reduce_prod_int32_empty_input", "REDUCE_PROD", [inp("int32", [2, 0]), const("int32", [1], [1])],
         [out("int32")], options=_R),
]
# quantized PROD over axes of size 1: LiteRT copies the stored values without requantizing
CASES.append(Case("reduce_prod_int8_size1_axis_rescale", "REDUCE_PROD",
                  [inp("int8", [2, 1, 3], scale=0.1, zero_point=1, low=-5, high=5), const("int32", [1], [1])],
                  [out("int8", scale=0.2, zero_point=-2)], options=_R, version=2))
CASES.append(Case("reduce_prod_int16_size1_axes_rescale", "REDUCE_PROD",
                  [inp("int16", [1, 4, 1], scale=0.01, low=-50, high=50), const("int32", [2], [0, 2])],
                  [out("int16", scale=0.02)], options=("ReducerOptions", {"keepDims": True}), version=2))
# 4D over H and W outside LiteRT's dedicated MEAN path (no keep_dims, int16, SUM), and axes [2, 1]
for dtype in ["int8", "uint8", "int16"]:
    q = _QUANT[dtype]
    qo = {"scale": q["scale"] * 0.7, "zero_point": q["zero_point"] + (2 if dtype != "int16" else 0)}
    _reduce(f"mean_{dtype}_hw_nokeep", "MEAN", dtype, [2, 3, 4, 5], [1, 2], False, 2, q, qo)
    _reduce(f"mean_{dtype}_hw_reversed_axes", "MEAN", dtype, [1, 4, 3, 17], [2, 1], True, 2, q, qo)
    _reduce(f"sum_{dtype}_hw_keep", "SUM", dtype, [2, 3, 4, 5], [1, 2], True, 2, q, {**qo, "scale": q["scale"] * 4})
CASES.append(Case("sum_float32_no_options", "SUM", [inp("float32", [2, 3]), const("int32", [1], [1])], [out("float32")]))
CASES.append(Case("reduce_prod_int32_no_options", "REDUCE_PROD", [inp("int32", [2, 3], low=-3, high=3),
                                                                const("int32", [1], [0])], [out("int32")]))
