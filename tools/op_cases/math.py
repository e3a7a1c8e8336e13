"""Element-wise math: unary functions, POW/ATAN2/shifts/xor, ADD_N, ZEROS_LIKE, and the types LiteRT
accepts for the arithmetic and activation operators beyond float32."""

from opmodel import Case, inp, out

CASES = []

Q8 = {"uint8": (0.05, 128), "int8": (0.05, 3)}
Q_OUT = {"uint8": (0.04, 120), "int8": (0.04, -5)}


def versions(op):
    return {"SIN": 2, "COS": 2, "SIGN": 2, "ABS": 5, "LOG": 2, "SQRT": 2, "RSQRT": 3, "EXP": 2, "FLOOR_DIV": 3,
            "FLOOR_MOD": 2, "SQUARED_DIFFERENCE": 2, "MAXIMUM": 4, "MINIMUM": 4, "ADD": 6, "SUB": 5, "MUL": 8,
            "DIV": 2, "RELU": 3, "RELU6": 3, "LOGISTIC": 3, "TANH": 3, "GELU": 3, "LEAKY_RELU": 2}.get(op, 1)


def tensor(dtype, shape, low=None, high=None, quant=Q8, **kw):
    if dtype in ("uint8", "int8") and quant is not None:
        s, z = quant[dtype]
        return inp(dtype, shape, scale=s, zero_point=z, **kw)
    if dtype == "int16" and quant is not None:
        return inp(dtype, shape, scale=0.001, zero_point=0, **kw)
    return inp(dtype, shape, low=low, high=high, **kw)


def output(dtype, quant=Q_OUT):
    if dtype in ("uint8", "int8") and quant is not None:
        s, z = quant[dtype]
        return out(dtype, scale=s, zero_point=z)
    if dtype == "int16" and quant is not None:
        return out(dtype, scale=0.0008, zero_point=0)
    return out(dtype)


# Unary operators: (op, types, low, high)
UNARY = [
    ("SIN", ["float32", "float16", "float64", "int8", "int16"], -6, 6),
    ("COS", ["float32", "float16", "float64", "int8", "int16"], -6, 6),
    ("FLOOR", ["float32", "float16", "float64", "int8", "int32"], -4, 4),
    ("CEIL", ["float32", "float16", "float64", "int8", "int32"], -4, 4),
    ("ROUND", ["float32", "float16", "float64", "int32"], -4, 4),
    ("SIGN", ["float32", "float64", "int32", "int64", "int8", "int16"], -3, 3),
    ("SQUARE", ["float32", "int32", "int64", "int8", "float16"], -5, 5),
    ("RELU_0_TO_1", ["float32", "uint8", "int8", "int16"], -2, 2),
    ("ZEROS_LIKE", ["float32", "int32", "int64", "int8", "uint8", "bool", "float16"], -3, 3),
    ("ABS", ["float32", "int32", "int64", "int8", "int16", "uint8", "float16"], -5, 5),
    ("NEG", ["float32", "int32", "int64", "int8", "int16", "float16"], -5, 5),
    ("LOG", ["float32", "int8", "int16", "uint8", "float16"], 0.05, 8),
    ("SQRT", ["float32", "int8", "int16", "uint8", "float16"], 0.0, 8),
    ("RSQRT", ["float32", "int8", "int16", "uint8", "float16"], 0.05, 8),
    ("EXP", ["float32", "int8", "int16", "uint8", "float16"], -3, 2),
    ("HARD_SWISH", ["float32", "uint8", "int8", "int16"], -5, 5),
    ("RELU", ["float32", "uint8", "int8", "int16", "int32", "int64"], -3, 3),
    ("RELU6", ["float32", "uint8", "int8", "int16", "int32"], -3, 8),
    ("RELU_N1_TO_1", ["float32", "uint8", "int8", "int16"], -2, 2),
    ("LOGISTIC", ["float32", "uint8", "int8", "int16"], -4, 4),
    ("TANH", ["float32", "uint8", "int8", "int16"], -3, 3),
    ("ELU", ["float32", "int8", "uint8"], -3, 3),
    ("GELU", ["float32", "int8", "uint8"], -3, 3),
]
for op, types, low, high in UNARY:
    name = op.lower()
    for dtype in types:
        lo, hi = (low, high) if dtype.startswith("float") else (int(low), int(high) if high >= 1 else 1)
        if op in ("LOG", "RSQRT") and not dtype.startswith("float"):
            lo = max(lo, 1)
        x = tensor(dtype, [2, 3, 5], lo, hi)
        y = output(dtype)
        if op in ("LOG", "SQRT", "RSQRT") and dtype in ("int8", "int16"):
            # Non-negative (LOG, RSQRT: positive) real values only: LiteRT rejects others.
            x = inp("int8", [2, 3, 5], scale=0.05, zero_point=-128, low=-127, high=127) if dtype == "int8" else \
                inp("int16", [2, 3, 5], scale=0.001, zero_point=0, low=1, high=8000)
        if op == "LOGISTIC" and dtype != "float32":
            y = out(dtype, scale=1 / 256, zero_point=-128 if dtype == "int8" else 0) if dtype != "int16" else \
                out(dtype, scale=1 / 32768, zero_point=0)
        if op == "TANH" and dtype == "int16":
            y = out(dtype, scale=1 / 32768, zero_point=0)
        CASES.append(Case(f"{name}_{dtype}", op, [x], [y], version=versions(op)))
    CASES.append(Case(f"{name}_float32_rank0", op, [inp("float32", [], low=low if low > 0 else 0.5, high=high)],
                      [out("float32")], version=versions(op)))

# Edge values for rounding and sign.
HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.0, 0.0, 0.49999997, -3.7, 1e8 + 0.5]
for op in ["ROUND", "FLOOR", "CEIL", "SIGN"]:
    CASES.append(Case(f"{op.lower()}_float32_halves", op, [inp("float32", [12], values=HALVES)], [out("float32")],
                      version=versions(op)))

# Binary operators.
for dtype in ["float32", "int32", "int64", "int8", "int16", "float16"]:
    base = inp(dtype, [2, 3, 4], low=0.5 if dtype.startswith("float") else -3, high=3)
    expo = inp(dtype, [2, 3, 4], low=-2 if dtype.startswith("float") else 0, high=3)
    CASES.append(Case(f"pow_{dtype}", "POW", [base, expo], [out(dtype)]))
CASES.append(Case("pow_float32_broadcast", "POW", [inp("float32", [2, 3, 4], low=0.1, high=4),
                                                    inp("float32", [4], values=[0.0, 0.5, 2.0, -1.5])], [out("float32")]))
CASES.append(Case("pow_int32_broadcast5d", "POW", [inp("int32", [2, 1, 3, 1, 2], low=-4, high=4),
                                                   inp("int32", [1, 2, 1, 2, 1], low=0, high=5)], [out("int32")]))
for dtype in ["float32", "float64", "float16"]:
    CASES.append(Case(f"atan2_{dtype}", "ATAN2", [inp(dtype, [3, 5]), inp(dtype, [3, 5])], [out(dtype)]))
CASES.append(Case("atan2_float32_signed_zeros", "ATAN2",
                  [inp("float32", [6], values=[0.0, -0.0, 0.0, -0.0, 1.0, -1.0]),
                   inp("float32", [6], values=[0.0, 0.0, -0.0, -0.0, 0.0, -0.0])], [out("float32")]))
CASES.append(Case("atan2_float32_rank4", "ATAN2", [inp("float32", [1, 2, 3, 2]), inp("float32", [1, 2, 3, 2])],
                  [out("float32")]))

INTS = ["int8", "int16", "int32", "uint8", "uint16", "uint32", "int64"]
BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "int64": 64}
for dtype in INTS:
    big = {"int8": 127, "uint8": 255, "int16": 32000, "uint16": 65000}.get(dtype, 1 << 30)
    lo = 0 if dtype.startswith("u") else -big
    CASES.append(Case(f"right_shift_{dtype}", "RIGHT_SHIFT",
                      [inp(dtype, [3, 4], low=lo, high=big), inp(dtype, [3, 4], low=0, high=BITS[dtype] - 1)],
                      [out(dtype)]))
    CASES.append(Case(f"bitwise_xor_{dtype}", "BITWISE_XOR",
                      [inp(dtype, [3, 4], low=lo, high=big), inp(dtype, [3, 4], low=lo, high=big)], [out(dtype)]))
CASES.append(Case("right_shift_int32_broadcast", "RIGHT_SHIFT",
                  [inp("int32", [2, 3, 4], low=-1000, high=1000), inp("int32", [4], values=[0, 1, 3, 31])],
                  [out("int32")]))
CASES.append(Case("bitwise_xor_int32_broadcast", "BITWISE_XOR",
                  [inp("int32", [2, 1, 4], low=-1000, high=1000), inp("int32", [3, 1], low=-1000, high=1000)],
                  [out("int32")]))

for dtype in ["float32", "int32", "int64", "int8", "int16", "float16"]:
    CASES.append(Case(f"add_n_{dtype}", "ADD_N", [inp(dtype, [2, 3], low=-50, high=50) for _ in range(3)],
                      [out(dtype)]))
CASES.append(Case("add_n_float32_one", "ADD_N", [inp("float32", [4])], [out("float32")]))
CASES.append(Case("add_n_float32_five", "ADD_N", [inp("float32", [2, 2, 2]) for _ in range(5)], [out("float32")]))

# The arithmetic operators on the types beyond float32/int32/int64 that LiteRT may take.
BINARY = [
    ("FLOOR_DIV", ["float32", "int32", "int16", "int8", "int64", "uint8"]),
    ("FLOOR_MOD", ["float32", "int32", "int64", "int16", "int8", "uint8"]),
    ("SQUARED_DIFFERENCE", ["float32", "int32", "int64", "int8", "uint8", "int16"]),
    ("MAXIMUM", ["float32", "int32", "int64", "int8", "uint8", "int16", "float16"]),
    ("MINIMUM", ["float32", "int32", "int64", "int8", "uint8", "int16", "float16"]),
    ("ADD", ["int16", "int64", "uint8", "int8", "float16"]),
    ("SUB", ["int16", "int64", "uint8", "int8"]),
    ("MUL", ["int16", "int64", "uint8", "int8", "uint32", "float16"]),
    ("DIV", ["int64", "uint8", "int8", "int16"]),
]
for op, types in BINARY:
    name = op.lower()
    for dtype in types:
        divides = op in ("FLOOR_DIV", "FLOOR_MOD", "DIV")
        if dtype.startswith("float"):
            a = inp(dtype, [2, 3, 4])
            b = inp(dtype, [2, 3, 4], low=0.5, high=3) if divides else inp(dtype, [2, 3, 4])
        elif dtype in ("int16", "int8", "uint8") and op in ("SQUARED_DIFFERENCE", "ADD", "SUB", "MUL", "DIV"):
            a, b = tensor(dtype, [2, 3, 4]), tensor(dtype, [2, 3, 4])
            if op == "DIV":
                b.low, b.high = (Q8[dtype][1] + 1, Q8[dtype][1] + 60) if dtype != "int16" else (1, 3000)
        else:
            lo = 0 if dtype.startswith("u") else -20
            a = inp(dtype, [2, 3, 4], low=lo, high=20)
            b = inp(dtype, [2, 3, 4], low=1, high=6) if divides else inp(dtype, [2, 3, 4], low=lo, high=20)
        quantized = b.scale is not None
        o = output(dtype) if quantized else out(dtype)
        if op in ("MAXIMUM", "MINIMUM") and dtype in ("int8", "uint8", "int16"):
            a.scale = b.scale = None
            o = out(dtype)
        CASES.append(Case(f"{name}_{dtype}_math", op, [a, b], [o], version=versions(op)))

# Unquantized types beyond those above, for each arithmetic operator (LiteRT refuses most).
for op in ["ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "FLOOR_DIV", "FLOOR_MOD", "SQUARED_DIFFERENCE"]:
    name = op.lower()
    divides = op in ("FLOOR_DIV", "FLOOR_MOD", "DIV")
    for dtype in ["float16", "float64", "uint16", "uint32", "bool", "int8", "int16", "uint8"]:
        if f"{name}_{dtype}_math" in {c.name for c in CASES}:
            continue
        if dtype == "bool":
            a, b = inp(dtype, [2, 3]), inp(dtype, [2, 3])
        elif dtype.startswith("float"):
            a, b = inp(dtype, [2, 3]), inp(dtype, [2, 3], low=0.5 if divides else -3, high=3)
        else:
            a, b = inp(dtype, [2, 3], low=0, high=20), inp(dtype, [2, 3], low=1 if divides else 0, high=9)
        CASES.append(Case(f"{name}_{dtype}_raw", op, [a, b], [out(dtype)], version=versions(op)))
CASES.append(Case("maximum_int8_broadcast_raw", "MAXIMUM", [inp("int8", [2, 3, 4], low=-100, high=100),
                                                            inp("int8", [4], low=-100, high=100)], [out("int8")],
                  version=4))
CASES.append(Case("floor_div_int32_negative_math", "FLOOR_DIV", [inp("int32", [8], values=[-7, 7, -7, 7, 0, -1, 5, -5]),
                                                                 inp("int32", [8], values=[2, -2, -2, 2, 3, 4, -3, -3])],
                  [out("int32")], version=3))
CASES.append(Case("floor_mod_int16_negative_math", "FLOOR_MOD", [inp("int16", [8], values=[-7, 7, -7, 7, 0, -1, 5, -5]),
                                                                 inp("int16", [8], values=[2, -2, -2, 2, 3, 4, -3, -3])],
                  [out("int16")], version=2))

# Larger quantized cases, so rare rounding ties and LiteRT's vector blocks and scalar tails all show.
for dtype, (za, zo) in {"uint8": (128, 120), "int8": (3, -5)}.items():
    lo, hi = (0, 255) if dtype == "uint8" else (-128, 127)
    CASES.append(Case(f"div_{dtype}_large", "DIV",
                      [inp(dtype, [10, 37], scale=0.05, zero_point=za, low=lo, high=hi),
                       inp(dtype, [10, 37], scale=0.07, zero_point=za, low=za + 1, high=hi)],
                      [out(dtype, scale=0.09, zero_point=zo)], version=2))
    CASES.append(Case(f"div_{dtype}_broadcast_relu", "DIV",
                      [inp(dtype, [4, 9], scale=0.03, zero_point=za, low=lo, high=hi),
                       inp(dtype, [9], scale=0.05, zero_point=za, low=za + 1, high=min(hi, za + 40))],
                      [out(dtype, scale=0.1, zero_point=zo)], options=("DivOptions", {"fusedActivationFunction": 1}),
                      version=2))
CASES.append(Case("div_int16_large", "DIV", [inp("int16", [10, 37], scale=0.001, zero_point=0),
                                             inp("int16", [10, 37], scale=0.002, zero_point=0, low=1, high=3000)],
                  [out("int16", scale=0.0005, zero_point=0)], version=2))
ALL8 = {"int8": list(range(-128, 128)), "uint8": list(range(256))}
for op in ["EXP", "LOG"]:
    CASES.append(Case(f"{op.lower()}_int8_every_value", op,
                      [inp("int8", [256], values=ALL8["int8"], scale=0.03 if op == "EXP" else 0.05, zero_point=-20)],
                      [out("int8", scale=0.05 if op == "EXP" else 0.03, zero_point=-100 if op == "EXP" else 60)],
                      version=versions(op)))
    CASES.append(Case(f"{op.lower()}_int16_range", op,
                      [inp("int16", [8, 64], scale=1 / 4096, zero_point=0, low=-32768 if op == "EXP" else 1, high=32767)],
                      [out("int16", scale=1 / 2048 if op == "EXP" else 1 / 8192, zero_point=0)], version=versions(op)))
CASES.append(Case("relu_0_to_1_int8_every_value", "RELU_0_TO_1",
                  [inp("int8", [256], values=ALL8["int8"], scale=0.02, zero_point=-10)],
                  [out("int8", scale=1 / 255, zero_point=-128)]))
CASES.append(Case("relu_0_to_1_uint8_every_value", "RELU_0_TO_1",
                  [inp("uint8", [256], values=ALL8["uint8"], scale=0.03, zero_point=100)],
                  [out("uint8", scale=1 / 250, zero_point=3)]))
CASES.append(Case("neg_int16_extremes", "NEG", [inp("int16", [4], values=[-32768, 32767, 0, -1], scale=0.01,
                                                       zero_point=0)],
                  [out("int16", scale=0.01, zero_point=0)]))
CASES.append(Case("pow_int32_overflow", "POW", [inp("int32", [6], values=[3, -3, 7, 2, -2, 0]),
                                                inp("int32", [6], values=[25, 21, 13, 31, 31, 0])], [out("int32")]))
CASES.append(Case("pow_float32_special", "POW", [inp("float32", [6], values=[-2.0, -8.0, 0.0, 0.0, 1.0, 2.0]),
                                                 inp("float32", [6], values=[3.0, 1 / 3, -1.0, 0.0, 1e9, 0.5])],
                  [out("float32")]))
CASES.append(Case("right_shift_int8_overshift", "RIGHT_SHIFT", [inp("int8", [4], values=[-128, 127, -1, 64]),
                                                                inp("int8", [4], values=[7, 7, 3, 6])], [out("int8")]))
CASES.append(Case("sin_float32_large", "SIN", [inp("float32", [64], low=-1000, high=1000)], [out("float32")], version=2))
CASES.append(Case("add_n_int32_wraps", "ADD_N", [inp("int32", [2], values=[2147483647, -2147483648]),
                                                 inp("int32", [2], values=[1, -1])], [out("int32")]))
CASES.append(Case("pow_int32_negative_exponent", "POW", [inp("int32", [4], values=[2, -1, 1, 3]),
                                                         inp("int32", [4], values=[-1, -3, -2, 2])], [out("int32")]))

# The other activations' quantized types (RELU, TANH, ... are above).
for dtype in ["uint8", "int8", "int16"]:
    CASES.append(Case(f"leaky_relu_{dtype}", "LEAKY_RELU", [tensor(dtype, [2, 3, 5])], [output(dtype)],
                      options=("LeakyReluOptions", {"alpha": 0.2}), version=2))
    CASES.append(Case(f"hard_swish_{dtype}_every_value" if dtype != "int16" else "hard_swish_int16_values", "HARD_SWISH",
                      [inp(dtype, [256] if dtype != "int16" else [64], values=ALL8[dtype] if dtype != "int16" else None,
                           scale=0.04, zero_point={"uint8": 128, "int8": 0, "int16": 0}[dtype])],
                      [out(dtype, scale=0.03, zero_point={"uint8": 40, "int8": -90, "int16": 0}[dtype])]))
    CASES.append(Case(f"gelu_{dtype}_math", "GELU", [tensor(dtype, [2, 3, 5])], [output(dtype)], version=3))
    CASES.append(Case(f"elu_{dtype}_math", "ELU", [tensor(dtype, [2, 3, 5])], [output(dtype)]))
CASES.append(Case("leaky_relu_float32_negative_alpha", "LEAKY_RELU", [inp("float32", [2, 5])], [out("float32")],
                  options=("LeakyReluOptions", {"alpha": -0.5}), version=2))
CASES.append(Case("tanh_int8_scale", "TANH", [inp("int8", [64], scale=0.05, zero_point=2)],
                  [out("int8", scale=1 / 128, zero_point=0)], version=3))
CASES.append(Case("tanh_uint8_scale", "TANH", [inp("uint8", [64], scale=0.05, zero_point=130)],
                  [out("uint8", scale=1 / 128, zero_point=128)], version=3))
CASES.append(Case("logistic_int16_pot", "LOGISTIC", [inp("int16", [64], scale=1 / 4096, zero_point=0)],
                  [out("int16", scale=1 / 32768, zero_point=0)], version=3))
CASES.append(Case("abs_int8_rescale", "ABS", [inp("int8", [64], scale=0.05, zero_point=-7)],
                  [out("int8", scale=0.03, zero_point=-128)], version=5))
CASES.append(Case("abs_int16_plain", "ABS", [inp("int16", [2, 8], low=-30000, high=30000)], [out("int16")], version=5))
CASES.append(Case("sqrt_int8_every_value", "SQRT",
                  [inp("int8", [128], values=list(range(0, 128)), scale=0.05, zero_point=0)],
                  [out("int8", scale=0.02, zero_point=-128)], version=2))
CASES.append(Case("rsqrt_int8_every_value", "RSQRT",
                  [inp("int8", [127], values=list(range(1, 128)), scale=0.05, zero_point=0)],
                  [out("int8", scale=0.04, zero_point=-128)], version=3))

# More shapes for the new binary operators.
CASES.append(Case("pow_float32_scalar_exponent", "POW", [inp("float32", [3, 4], low=0.1, high=3),
                                                         inp("float32", [], values=2.5)], [out("float32")]))
CASES.append(Case("atan2_float32_scalar", "ATAN2", [inp("float32", []), inp("float32", [])], [out("float32")]))
CASES.append(Case("bitwise_xor_uint8_scalar", "BITWISE_XOR", [inp("uint8", [3, 4], low=0, high=255),
                                                              inp("uint8", [], values=0x5A)], [out("uint8")]))
CASES.append(Case("right_shift_uint16_broadcast4d", "RIGHT_SHIFT",
                  [inp("uint16", [2, 1, 3, 4], low=0, high=65535), inp("uint16", [1, 2, 1, 4], low=0, high=15)],
                  [out("uint16")]))
CASES.append(Case("floor_mod_float32_signs", "FLOOR_MOD",
                  [inp("float32", [8], values=[-7.5, 7.5, -7.5, 7.5, 0.0, -0.0, 5.25, -1.0]),
                   inp("float32", [8], values=[2.0, -2.0, -2.0, 2.0, 3.0, 3.0, -0.5, 1e-3])], [out("float32")],
                  version=2))
CASES.append(Case("squared_difference_int32_broadcast", "SQUARED_DIFFERENCE",
                  [inp("int32", [2, 3, 4], low=-1000, high=1000), inp("int32", [4], low=-1000, high=1000)],
                  [out("int32")], version=2))
CASES.append(Case("squared_difference_int8_broadcast", "SQUARED_DIFFERENCE",
                  [inp("int8", [2, 3, 4], scale=0.05, zero_point=3), inp("int8", [4], scale=0.03, zero_point=-2)],
                  [out("int8", scale=0.02, zero_point=-128)], version=2))
CASES.append(Case("round_float16_halves", "ROUND", [inp("float16", [8], values=[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.25])],
                  [out("float16")]))
CASES.append(Case("neg_int16_plain", "NEG", [inp("int16", [4], values=[-32768, 32767, 0, -5])], [out("int16")]))
CASES.append(Case("neg_int8_plain", "NEG", [inp("int8", [4], values=[-128, 127, 0, -5])], [out("int8")]))
CASES.append(Case("abs_int16_most_negative", "ABS", [inp("int16", [3], values=[-32768, -1, 7])], [out("int16")],
                  version=5))
SPECIAL = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e-45, -1e-45, 3.4e38]
for op in ["SIGN", "FLOOR", "CEIL", "ROUND", "SQUARE", "SIN", "COS"]:
    CASES.append(Case(f"{op.lower()}_float32_special", op, [inp("float32", [8], values=SPECIAL)], [out("float32")],
                      version=versions(op)))

# SOFTMAX, LOG_SOFTMAX and PRELU on the types LiteRT takes.
for dtype, (zin, zout_s, zout_l) in {"uint8": (128, 0, 255), "int8": (0, -128, 127)}.items():
    CASES.append(Case(f"softmax_{dtype}_math", "SOFTMAX", [inp(dtype, [2, 10], scale=0.1, zero_point=zin)],
                      [out(dtype, scale=1 / 256, zero_point=zout_s)], options=("SoftmaxOptions", {"beta": 1.0})))
    CASES.append(Case(f"log_softmax_{dtype}_math", "LOG_SOFTMAX", [inp(dtype, [2, 10], scale=0.1, zero_point=zin)],
                      [out(dtype, scale=16 / 256, zero_point=zout_l)], version=2))
    CASES.append(Case(f"prelu_{dtype}_math", "PRELU",
                      [inp(dtype, [1, 2, 3, 4], scale=0.05, zero_point=zin // 2),
                       inp(dtype, [1, 1, 4], scale=0.01, zero_point=zin // 4)],
                      [out(dtype, scale=0.04, zero_point=zin // 3)]))
CASES.append(Case("softmax_int8_int16_math", "SOFTMAX", [inp("int8", [2, 10], scale=0.1, zero_point=0)],
                  [out("int16", scale=1 / 32768, zero_point=0)], options=("SoftmaxOptions", {"beta": 1.0}), version=3))
CASES.append(Case("softmax_int16_math", "SOFTMAX", [inp("int16", [2, 10], scale=0.001, zero_point=0)],
                  [out("int16", scale=1 / 32768, zero_point=0)], options=("SoftmaxOptions", {"beta": 1.0}), version=3))
CASES.append(Case("softmax_float32_beta_math", "SOFTMAX", [inp("float32", [3, 7])], [out("float32")],
                  options=("SoftmaxOptions", {"beta": 0.5})))
CASES.append(Case("prelu_float32_broadcast_math", "PRELU", [inp("float32", [2, 3, 4]), inp("float32", [4])],
                  [out("float32")]))

# ADD/SUB/MUL quantized with broadcasting and a fused activation.
for op, opts in [("ADD", "AddOptions"), ("SUB", "SubOptions"), ("MUL", "MulOptions")]:
    for dtype, z in {"uint8": 128, "int8": 0}.items():
        CASES.append(Case(f"{op.lower()}_{dtype}_broadcast_relu6", op,
                          [inp(dtype, [2, 3, 8], scale=0.05, zero_point=z), inp(dtype, [8], scale=0.03, zero_point=z - 5)],
                          [out(dtype, scale=0.04, zero_point=z - 10)], options=(opts, {"fusedActivationFunction": 3}),
                          version=versions(op)))
    CASES.append(Case(f"{op.lower()}_int16_broadcast", op,
                      [inp("int16", [2, 3, 8], scale=0.001, zero_point=0), inp("int16", [3, 1], scale=0.002, zero_point=0)],
                      [out("int16", scale=0.003, zero_point=0)], version=versions(op)))
    CASES.append(Case(f"{op.lower()}_float32_relu_n1", op, [inp("float32", [2, 3, 4]), inp("float32", [1, 4])],
                      [out("float32")], options=(opts, {"fusedActivationFunction": 2}), version=versions(op)))
CASES.append(Case("div_float32_relu_broadcast", "DIV", [inp("float32", [2, 3, 4]), inp("float32", [4], low=0.5, high=2)],
                  [out("float32")], options=("DivOptions", {"fusedActivationFunction": 1})))

# Baselines of the existing kernels on float32/int32, with fused activations on integers too.
CASES.append(Case("log_softmax_float32_math", "LOG_SOFTMAX", [inp("float32", [3, 9])], [out("float32")]))
for op, opts in [("ADD", "AddOptions"), ("SUB", "SubOptions"), ("MUL", "MulOptions"), ("DIV", "DivOptions")]:
    b = inp("int32", [4], values=[1, -2, 3, 5]) if op == "DIV" else inp("int32", [4], low=-9, high=9)
    CASES.append(Case(f"{op.lower()}_int32_relu6_math", op, [inp("int32", [2, 3, 4], low=-9, high=9), b], [out("int32")],
                      options=(opts, {"fusedActivationFunction": 3}), version=versions(op)))
    CASES.append(Case(f"{op.lower()}_int32_scalar_math", op, [inp("int32", [], values=7), b], [out("int32")],
                      version=versions(op)))
