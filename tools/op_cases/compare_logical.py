"""Comparisons, logical operators, SELECT/SELECT_V2 and WHERE."""

from opmodel import Case, inp, out

CASES = []

_COMPARE = ["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"]
for op in _COMPARE:
    low = op.lower()
    for dtype in ["float32", "int32", "int64", "bool", "int16"]:
        if dtype == "bool" and op not in ("EQUAL", "NOT_EQUAL"):
            continue
        if dtype == "int16" and op == "NOT_EQUAL":
            # LiteRT's NOT_EQUAL has no int16 path and leaves the output unset; stale memory can make
            # that look deterministic, so the case is left out rather than recorded from garbage.
            continue
        kw = {"low": -3, "high": 3} if dtype != "float32" else {}
        CASES.append(Case(f"{low}_{dtype}", op, [inp(dtype, [2, 3, 4], **kw), inp(dtype, [2, 3, 4], **kw)], [out("bool")]))
    # broadcasting (one operand a row)
    CASES.append(Case(f"{low}_float32_broadcast", op,
                      [inp("float32", [2, 3, 4], values=[round(v * 0.5, 1) for v in range(-12, 12)]),
                       inp("float32", [1, 1, 4], values=[-1.0, 0.0, 0.5, 2.0])], [out("bool")]))
    CASES.append(Case(f"{low}_int32_broadcast5d", op,
                      [inp("int32", [2, 1, 3, 1, 2], low=-2, high=2), inp("int32", [1, 2, 1, 2, 1], low=-2, high=2)],
                      [out("bool")]))
    # quantized: the operands have different scales, so the kernel must rescale before comparing
    CASES.append(Case(f"{low}_uint8", op,
                      [inp("uint8", [2, 8], scale=0.05, zero_point=128), inp("uint8", [2, 8], scale=0.1, zero_point=120)],
                      [out("bool")], version=2))
    CASES.append(Case(f"{low}_int8", op,
                      [inp("int8", [2, 8], scale=0.05, zero_point=-3), inp("int8", [1, 8], scale=0.08, zero_point=4)],
                      [out("bool")], version=2))

for op in ["LOGICAL_AND", "LOGICAL_OR"]:
    low = op.lower()
    CASES.append(Case(f"{low}_bool", op, [inp("bool", [3, 5]), inp("bool", [3, 5])], [out("bool")]))
    CASES.append(Case(f"{low}_bool_broadcast", op, [inp("bool", [2, 3, 4]), inp("bool", [3, 1])], [out("bool")]))
CASES.append(Case("logical_not_bool", "LOGICAL_NOT", [inp("bool", [4, 6])], [out("bool")]))

for op, version in [("SELECT", 1), ("SELECT_V2", 1)]:
    low = op.lower()
    for dtype in ["float32", "int32", "int64", "bool", "uint8", "int8", "int16"]:
        kw = {"scale": 0.1, "zero_point": 0} if dtype in ("uint8", "int8", "int16") else {}
        CASES.append(Case(f"{low}_{dtype}", op,
                          [inp("bool", [2, 3, 4]), inp(dtype, [2, 3, 4], **kw), inp(dtype, [2, 3, 4], **kw)],
                          [out(dtype, **kw)], version=version))
CASES.append(Case("select_float32_rank1_condition", "SELECT",
                  [inp("bool", [2]), inp("float32", [2, 3]), inp("float32", [2, 3])], [out("float32")]))
CASES.append(Case("select_v2_float32_broadcast", "SELECT_V2",
                  [inp("bool", [1, 3, 1]), inp("float32", [2, 3, 4]), inp("float32", [1, 1, 4])], [out("float32")], version=2))
CASES.append(Case("select_v2_int32_broadcast_scalar", "SELECT_V2",
                  [inp("bool", [2, 3]), inp("int32", []), inp("int32", [2, 1])], [out("int32")], version=2))

for dtype in ["bool", "float32", "int32", "int64", "int8", "uint8"]:
    CASES.append(Case(f"where_{dtype}", "WHERE", [inp(dtype, [3, 4], low=-1, high=1)], [out("int64")]))

# More types and shapes LiteRT may accept.
for op in _COMPARE:
    low = op.lower()
    CASES.append(Case(f"{low}_float16", op, [inp("float16", [2, 5]), inp("float16", [2, 5])], [out("bool")]))
    CASES.append(Case(f"{low}_int8_broadcast4d", op,
                      [inp("int8", [2, 1, 3, 4], scale=0.5, zero_point=1), inp("int8", [1, 2, 1, 4], scale=0.25, zero_point=-2)],
                      [out("bool")], version=2))
    CASES.append(Case(f"{low}_uint8_same_scale", op,
                      [inp("uint8", [3, 4], scale=0.02, zero_point=7), inp("uint8", [3, 4], scale=0.02, zero_point=7)],
                      [out("bool")], version=2))
    CASES.append(Case(f"{low}_int64_scalar", op, [inp("int64", [3, 4], low=-3, high=3), inp("int64", [], low=-3, high=3)],
                      [out("bool")]))
    CASES.append(Case(f"{low}_float32_empty", op, [inp("float32", [0, 3]), inp("float32", [1, 3])], [out("bool")]))
CASES.append(Case("equal_bool_broadcast", "EQUAL", [inp("bool", [2, 3]), inp("bool", [3])], [out("bool")]))
CASES.append(Case("logical_and_bool_broadcast5d", "LOGICAL_AND", [inp("bool", [2, 1, 3, 1, 2]), inp("bool", [2, 1, 2, 1])],
                  [out("bool")]))
CASES.append(Case("logical_or_bool_scalar", "LOGICAL_OR", [inp("bool", [3, 2]), inp("bool", [])], [out("bool")]))
CASES.append(Case("logical_not_bool_scalar", "LOGICAL_NOT", [inp("bool", [])], [out("bool")]))
for dtype in ["float16", "uint32", "float64"]:
    CASES.append(Case(f"select_v2_{dtype}", "SELECT_V2",
                      [inp("bool", [2, 3]), inp(dtype, [2, 3]), inp(dtype, [2, 3])], [out(dtype)]))
CASES.append(Case("select_int32_scalar_condition", "SELECT",
                  [inp("bool", []), inp("int32", [2, 3]), inp("int32", [2, 3])], [out("int32")]))
CASES.append(Case("select_int8_rank1_condition_3d", "SELECT",
                  [inp("bool", [3]), inp("int8", [3, 2, 2], scale=0.1, zero_point=0),
                   inp("int8", [3, 2, 2], scale=0.1, zero_point=0)], [out("int8", scale=0.1, zero_point=0)]))
CASES.append(Case("select_v2_int64_broadcast5d", "SELECT_V2",
                  [inp("bool", [2, 1, 1, 3, 1]), inp("int64", [1, 2, 1, 1, 2]), inp("int64", [2, 1, 2, 1, 1])],
                  [out("int64")], version=2))
CASES.append(Case("select_v2_bool_scalar_condition", "SELECT_V2",
                  [inp("bool", []), inp("bool", [2, 3]), inp("bool", [2, 3])], [out("bool")], version=2))
for dtype in ["int16", "float16"]:
    CASES.append(Case(f"where_{dtype}", "WHERE", [inp(dtype, [3, 4], low=-1, high=1)], [out("int64")]))
CASES.append(Case("where_bool_rank1", "WHERE", [inp("bool", [7])], [out("int64")]))
CASES.append(Case("where_bool_rank4", "WHERE", [inp("bool", [2, 2, 3, 2])], [out("int64")]))
CASES.append(Case("where_float32_all_zero", "WHERE", [inp("float32", [2, 3], values=[0.0] * 6)], [out("int64")]))

# Larger quantized comparisons: the rescaled values must tie and differ exactly as in LiteRT.
for op in _COMPARE:
    low = op.lower()
    CASES.append(Case(f"{low}_uint8_large", op,
                      [inp("uint8", [20, 50], scale=0.0372, zero_point=131), inp("uint8", [20, 50], scale=0.0745, zero_point=66)],
                      [out("bool")], version=2))
    CASES.append(Case(f"{low}_int8_large_broadcast", op,
                      [inp("int8", [16, 64], scale=0.5, zero_point=0), inp("int8", [64], scale=0.25, zero_point=1)],
                      [out("bool")], version=2))
CASES.append(Case("greater_float32_broadcast6d", "GREATER",
                  [inp("float32", [2, 1, 2, 1, 2, 1]), inp("float32", [1, 2, 1, 2, 1, 2])], [out("bool")]))
CASES.append(Case("equal_float32_nan", "EQUAL", [inp("float32", [4], values=[float("nan"), 1.0, -0.0, float("inf")]),
                                                 inp("float32", [4], values=[float("nan"), 1.0, 0.0, float("inf")])],
                  [out("bool")]))
CASES.append(Case("select_v2_float32_broadcast6d", "SELECT_V2",
                  [inp("bool", [2, 1, 1, 2, 1, 1]), inp("float32", [1, 2, 1, 1, 2, 1]), inp("float32", [1, 1, 2, 1, 1, 2])],
                  [out("float32")], version=2))
CASES.append(Case("where_bool_rank5", "WHERE", [inp("bool", [2, 1, 2, 3, 2])], [out("int64")]))
CASES.append(Case("where_int32_scalar", "WHERE", [inp("int32", [], values=3)], [out("int64")]))
CASES.append(Case("logical_and_bool_broadcast6d", "LOGICAL_AND", [inp("bool", [2, 1, 2, 1, 2, 1]), inp("bool", [2, 1, 2, 1, 2])],
                  [out("bool")]))
# Scales above one (LiteRT aborts the process on a scale of exactly 1.0): LiteRT's multiplier then has a positive shift, which its rounding shift
# takes as a negative exponent.
for op in ["LESS", "EQUAL"]:
    CASES.append(Case(f"{op.lower()}_uint8_large_scales", op,
                      [inp("uint8", [4, 16], scale=2.0, zero_point=128), inp("uint8", [4, 16], scale=3.5, zero_point=100)],
                      [out("bool")], version=2))
    CASES.append(Case(f"{op.lower()}_int8_scale_above_one", op,
                      [inp("int8", [4, 16], scale=1.5, zero_point=0), inp("int8", [4, 16], scale=0.5, zero_point=-3)],
                      [out("bool")], version=2))
