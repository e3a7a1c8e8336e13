"""Complex parts (REAL, IMAG, COMPLEX_ABS), BITCAST, FAKE_QUANT, the classic text and embedding
operators (HASHTABLE_LOOKUP, EMBEDDING_LOOKUP_SPARSE, LSH_PROJECTION, SKIP_GRAM) and seeded random
sampling (RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL)."""

from opmodel import Case, const, inp, out

CASES = []

# --- complex numbers -------------------------------------------------------------------------------
for op in ["REAL", "IMAG", "COMPLEX_ABS"]:
    low = op.lower()
    for dtype, result in [("complex64", "float32"), ("complex128", "float64")]:
        for shape in ([2, 3, 4], [7], []):
            tag = "x".join(map(str, shape)) or "scalar"
            CASES.append(Case(f"{low}_{dtype}_{tag}", op, [inp(dtype, shape)], [out(result)]))
    CASES.append(Case(f"{low}_complex64_special", op,
                      [inp("complex64", [6], values=[0, 3 + 4j, -1e30 + 1e30j, 1e-30 - 2e-30j, complex(float("inf"), 1),
                                                   complex(0, float("nan"))])], [out("float32")]))
    CASES.append(Case(f"{low}_float32_refused", op, [inp("float32", [3])], [out("float32")]))

# --- BITCAST ---------------------------------------------------------------------------------------
_BITCASTS = [
    ("float32", [2, 3], "int32"),
    ("int32", [2, 3], "float32"),
    ("float32", [2, 3], "uint8"),
    ("uint8", [2, 3, 4], "int32"),
    ("uint8", [3, 4], "float32"),
    ("int32", [4], "int16"),
    ("int16", [3, 2], "float32"),
    ("int16", [5], "float16"),
    ("float16", [5], "uint16"),
    ("int64", [3], "float64"),
    ("float64", [2, 2], "int32"),
    ("int8", [6], "uint8"),
    ("uint8", [2, 8], "int64"),
    ("uint32", [3], "int32"),
    ("complex64", [3], "int64"),
    ("bool", [4], "int8"),
    ("int32", [], "uint8"),
]
for source, shape, target in _BITCASTS:
    kw = {"low": 0, "high": 255} if source == "uint8" else {}
    CASES.append(Case(f"bitcast_{source}_to_{target}_{len(shape)}d", "BITCAST", [inp(source, shape, **kw)],
                      [out(target)]))
CASES.append(Case("bitcast_uint8_to_int32_bad_last_dim", "BITCAST", [inp("uint8", [2, 3])], [out("int32")]))

# --- FAKE_QUANT ------------------------------------------------------------------------------------
for version in (1, 2):
    for lo, hi, bits in [(-1.0, 1.0, 8), (0.0, 6.0, 8), (-3.0, 3.0, 4), (-2.5, 1.3, 16), (-0.2, 5.7, 2),
                         (-6.0, 0.0, 8), (-1.7, 2.9, 5)]:
        name = f"fake_quant_v{version}_{lo}_{hi}_{bits}bits".replace("-", "m").replace(".", "p")
        CASES.append(Case(name, "FAKE_QUANT", [inp("float32", [2, 3, 5], low=-7, high=7)], [out("float32")],
                          options=("FakeQuantOptions", {"min": lo, "max": hi, "numBits": bits}), version=version))
CASES.append(Case("fake_quant_rank1_edges", "FAKE_QUANT",
                  [inp("float32", [8], values=[-1.0, -0.99609375, 0.00390625, 0.001953125, 0.5, 0.998, 1.0, 2.0])],
                  [out("float32")], options=("FakeQuantOptions", {"min": -1.0, "max": 1.0, "numBits": 8})))
CASES.append(Case("fake_quant_scalar", "FAKE_QUANT", [inp("float32", [])], [out("float32")],
                  options=("FakeQuantOptions", {"min": -2.0, "max": 2.0, "numBits": 8})))
CASES.append(Case("fake_quant_narrow_range_refused", "FAKE_QUANT", [inp("float32", [4])], [out("float32")],
                  options=("FakeQuantOptions", {"min": -1.0, "max": 1.0, "numBits": 8, "narrowRange": True}),
                  version=2))
