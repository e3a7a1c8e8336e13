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

# --- HASHTABLE_LOOKUP ------------------------------------------------------------------------------
_KEYS = [-7, -2, 0, 3, 9, 14]
_LOOKUPS = [3, 5, -7, 14, 0, 100, -2, 9, 3]
for dtype, shape, kw in [("float32", [6, 3], {}), ("int32", [6], {}), ("uint8", [6, 2], {"low": 0, "high": 255}),
                         ("float32", [6, 2, 2], {}), ("int8", [6, 2], {}), ("int64", [6], {}), ("int16", [6, 3], {}),
                         ("bool", [6, 2], {})]:
    tag = "x".join(map(str, shape))
    CASES.append(Case(f"hashtable_lookup_{dtype}_{tag}", "HASHTABLE_LOOKUP",
                      [inp("int32", [len(_LOOKUPS)], values=_LOOKUPS), const("int32", [6], _KEYS),
                       inp(dtype, shape, **kw)],
                      [out(dtype), out("uint8")]))
CASES.append(Case("hashtable_lookup_float32_const_values", "HASHTABLE_LOOKUP",
                  [inp("int32", [4], values=[9, 1, -7, 9]), inp("int32", [6], values=_KEYS),
                   const("float32", [6, 2], [float(v) for v in range(12)])], [out("float32"), out("uint8")]))
CASES.append(Case("hashtable_lookup_string", "HASHTABLE_LOOKUP",
                  [inp("int32", [5], values=[14, 2, -7, 0, 14]), const("int32", [6], _KEYS),
                   const("string", [6], ["minus seven", "minus two", "zero", "", "nine", "fourteen!"])],
                  [out("string"), out("uint8")]))
CASES.append(Case("hashtable_lookup_string_input_values", "HASHTABLE_LOOKUP",
                  [inp("int32", [3], values=[3, 4, -2]), const("int32", [6], _KEYS),
                   inp("string", [6], values=["a", "bb", "ccc", "dddd", "e e", "ffffff"])],
                  [out("string"), out("uint8")]))
CASES.append(Case("hashtable_lookup_empty_lookup", "HASHTABLE_LOOKUP",
                  [inp("int32", [0], values=[]), const("int32", [6], _KEYS), inp("float32", [6, 2])],
                  [out("float32"), out("uint8")]))

# --- EMBEDDING_LOOKUP_SPARSE -----------------------------------------------------------------------
_ELS = [
    # ids, indices, dense shape, params shape
    ("2d", [1, 3, 0, 1, 4], [[0, 0], [0, 1], [1, 0], [3, 3], [3, 5]], [4, 6], [6, 5]),
    ("3d", [2, 0, 5, 1], [[0, 0, 0], [0, 1, 0], [0, 1, 2], [1, 2, 3]], [2, 3, 4], [6, 3]),
    ("params3d", [4, 4, 2], [[0, 0], [2, 1], [2, 4]], [3, 5], [5, 2, 3]),
    ("1d", [0, 2, 1], [[0], [1], [4]], [6], [3, 4]),
]
for tag, ids, indices, dense, params in _ELS:
    n, rank = len(ids), len(dense)
    for combiner, cname in [(0, "sum"), (1, "mean"), (2, "sqrtn")]:
        CASES.append(Case(f"embedding_lookup_sparse_{tag}_{cname}", "EMBEDDING_LOOKUP_SPARSE",
                          [inp("int32", [n], values=ids), inp("int32", [n, rank], values=indices),
                           inp("int32", [rank], values=dense), inp("float32", [n], low=0.2, high=2.0),
                           inp("float32", params)],
                          [out("float32")], options=("EmbeddingLookupSparseOptions", {"combiner": combiner})))
CASES.append(Case("embedding_lookup_sparse_const_shape", "EMBEDDING_LOOKUP_SPARSE",
                  [inp("int32", [3], values=[0, 1, 2]), const("int32", [3, 2], [[0, 0], [1, 0], [1, 1]]),
                   const("int32", [2], [2, 3]), inp("float32", [3], low=-1.0, high=1.0), const("float32", [3, 2],
                                                                                            [1, 2, 3, 4, 5, 6])],
                  [out("float32")], options=("EmbeddingLookupSparseOptions", {"combiner": 1})))

# --- LSH_PROJECTION --------------------------------------------------------------------------------
for ptype, pname in [(1, "sparse"), (2, "dense")]:
    for dtype, shape, hashes, weighted in [("float32", [3, 2], [4, 3], True), ("float32", [5], [3, 8], False),
                                           ("int32", [4, 3], [2, 5], True), ("uint8", [6, 20], [3, 4], False),
                                           ("int8", [2, 4], [6, 2], True), ("float32", [3, 17], [2, 3], True),
                                           ("int64", [3, 2], [5, 4], False), ("float32", [2, 30], [4, 6], False)]:
        tag = "x".join(map(str, shape))
        inputs = [inp("float32", hashes, low=-1.0, high=1.0), inp(dtype, shape)]
        if weighted:
            inputs.append(inp("float32", [shape[0]], low=-1.0, high=1.0))
        CASES.append(Case(f"lsh_projection_{pname}_{dtype}_{tag}{'_weighted' if weighted else ''}", "LSH_PROJECTION",
                          inputs, [out("int32")], options=("LSHProjectionOptions", {"type": ptype})))
CASES.append(Case("lsh_projection_sparse_const_hash", "LSH_PROJECTION",
                  [const("float32", [2, 4], [0.1, -0.3, 0.7, 1.5, -2.0, 0.0, 3.25, -0.5]), inp("int32", [3])],
                  [out("int32")], options=("LSHProjectionOptions", {"type": 1})))

# --- SKIP_GRAM -------------------------------------------------------------------------------------
_SENTENCES = ["the quick brown fox jumps over the lazy dog", "  leading and   multiple\tspaces here ", "one",
              "a b c d e f"]
for si, sentence in enumerate(_SENTENCES):
    for ngram, skip, include in [(1, 0, False), (2, 0, False), (2, 1, False), (3, 1, True), (3, 2, False),
                                 (2, 3, True), (4, 0, False)]:
        CASES.append(Case(f"skip_gram_s{si}_n{ngram}_skip{skip}{'_all' if include else ''}", "SKIP_GRAM",
                          [inp("string", [1], values=[sentence])], [out("string")],
                          options=("SkipGramOptions", {"ngramSize": ngram, "maxSkipSize": skip,
                                                       "includeAllNgrams": include})))

# --- random sampling (deterministic with a non-zero seed; seeds 0 and 0 draw fresh seeds) -------------
_SEEDS = [(1, 2), (42, 0), (0, 7), (2**40 + 5, -3), (-123456789, 987654321)]
for op in ["RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL"]:
    low = op.lower()
    for k, (seed, seed2) in enumerate(_SEEDS):
        CASES.append(Case(f"{low}_seed{k}_const_shape", op, [const("int32", [2], [3, 5])], [out("float32")],
                          options=("RandomOptions", {"seed": seed, "seed2": seed2})))
    for tag, shape in [("odd", [7]), ("3d", [2, 3, 3]), ("one", [1]), ("empty", [0, 4]), ("scalar", [])]:
        CASES.append(Case(f"{low}_{tag}", op, [const("int32", [len(shape)], shape)], [out("float32")],
                          options=("RandomOptions", {"seed": 9, "seed2": 11})))
    CASES.append(Case(f"{low}_input_shape", op, [inp("int32", [3], values=[2, 5, 3])], [out("float32")],
                      options=("RandomOptions", {"seed": 5, "seed2": 6})))
    CASES.append(Case(f"{low}_large", op, [const("int32", [2], [64, 37])], [out("float32")],
                      options=("RandomOptions", {"seed": 77, "seed2": 78})))
    CASES.append(Case(f"{low}_unseeded", op, [const("int32", [1], [16])], [out("float32")],
                      options=("RandomOptions", {"seed": 0, "seed2": 0}),
                      note="seeds 0: LiteRT draws random seeds, so the output cannot be compared"))
    CASES.append(Case(f"{low}_int32_output", op, [const("int32", [1], [4])], [out("int32")],
                      options=("RandomOptions", {"seed": 1, "seed2": 1})))

_LOGITS = [0.5, -1.0, 2.0, 0.0, 1.5, -3.0, 0.25, 4.0, -0.5, 1.0]
for k, (seed, seed2) in enumerate(_SEEDS):
    CASES.append(Case(f"multinomial_seed{k}", "MULTINOMIAL",
                      [const("float32", [2, 5], _LOGITS), const("int32", [], 10)], [out("int64")],
                      options=("RandomOptions", {"seed": seed, "seed2": seed2})))
for dtype in ["int64", "int32"]:
    CASES.append(Case(f"multinomial_input_logits_{dtype}", "MULTINOMIAL",
                      [inp("float32", [3, 6], low=-2.0, high=2.0), const("int32", [], 13)], [out(dtype)],
                      options=("RandomOptions", {"seed": 3, "seed2": 4})))
CASES.append(Case("multinomial_input_num_samples", "MULTINOMIAL",
                  [inp("float32", [2, 4], low=-1.0, high=1.0), inp("int32", [], values=7)], [out("int64")],
                  options=("RandomOptions", {"seed": 12, "seed2": 0})))
CASES.append(Case("multinomial_zero_samples", "MULTINOMIAL",
                  [const("float32", [2, 3], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]), const("int32", [], 0)], [out("int64")],
                  options=("RandomOptions", {"seed": 1, "seed2": 2})))
CASES.append(Case("multinomial_infinite_logits", "MULTINOMIAL",
                  [const("float32", [3, 4], [float("-inf"), 0.0, float("-inf"), 1.0, 2.0, float("inf"), 0.0,
                                             float("nan"),
                                             float("-inf"), float("-inf"), float("-inf"), float("-inf")]),
                   const("int32", [], 9)], [out("int64")], options=("RandomOptions", {"seed": 8, "seed2": 9})))
CASES.append(Case("multinomial_single_class_many", "MULTINOMIAL",
                  [const("float32", [1, 1], [0.3]), const("int32", [], 50)], [out("int32")],
                  options=("RandomOptions", {"seed": 2, "seed2": 2})))
CASES.append(Case("multinomial_unseeded", "MULTINOMIAL",
                  [const("float32", [1, 4], [0.0, 1.0, 2.0, 3.0]), const("int32", [], 64)], [out("int64")],
                  options=("RandomOptions", {"seed": 0, "seed2": 0}),
                  note="seeds 0: LiteRT draws random seeds, so the output cannot be compared"))

# --- more edges ------------------------------------------------------------------------------------
CASES.append(Case("bitcast_const_float32_to_int32", "BITCAST", [const("float32", [2, 2], [1.0, -2.5, 0.0, 3.0e38])],
                  [out("int32")]))
CASES.append(Case("fake_quant_nan_inf", "FAKE_QUANT",
                  [inp("float32", [5], values=[float("nan"), float("inf"), float("-inf"), -0.0, 0.3])],
                  [out("float32")], options=("FakeQuantOptions", {"min": -1.0, "max": 1.0, "numBits": 8})))
for dtype, shape in [("float64", [6, 2]), ("float16", [6, 3]), ("complex64", [6]), ("uint32", [6, 2])]:
    CASES.append(Case(f"hashtable_lookup_{dtype}", "HASHTABLE_LOOKUP",
                      [inp("int32", [len(_LOOKUPS)], values=_LOOKUPS), const("int32", [6], _KEYS), inp(dtype, shape)],
                      [out(dtype), out("uint8")]))
CASES.append(Case("hashtable_lookup_unsorted_keys", "HASHTABLE_LOOKUP",
                  [inp("int32", [6], values=[5, 1, 9, -4, 2, 7]), const("int32", [6], [9, 1, 7, 2, -4, 5]),
                   inp("int32", [6, 2])], [out("int32"), out("uint8")]))
for ptype, pname in [(1, "sparse"), (2, "dense")]:
    CASES.append(Case(f"lsh_projection_{pname}_string", "LSH_PROJECTION",
                      [inp("float32", [3, 4], low=-1.0, high=1.0),
                       inp("string", [4], values=["alpha", "beta", "", "a much longer string of words"])],
                      [out("int32")], options=("LSHProjectionOptions", {"type": ptype})))
    CASES.append(Case(f"lsh_projection_{pname}_bool", "LSH_PROJECTION",
                      [inp("float32", [2, 5], low=-1.0, high=1.0), inp("bool", [7, 3])],
                      [out("int32")], options=("LSHProjectionOptions", {"type": ptype})))
    CASES.append(Case(f"lsh_projection_{pname}_float16_weighted", "LSH_PROJECTION",
                      [inp("float32", [3, 3], low=-1.0, high=1.0), inp("float16", [4, 2]),
                       inp("float32", [4], low=-1.0, high=1.0)],
                      [out("int32")], options=("LSHProjectionOptions", {"type": ptype})))
CASES.append(Case("lsh_projection_sparse_32_bits", "LSH_PROJECTION",
                  [inp("float32", [3, 32], low=-1.0, high=1.0), inp("int32", [3, 2])],
                  [out("int32")], options=("LSHProjectionOptions", {"type": 1})))
for k, sentence in enumerate([" ", "x", "tabs\tand\nnew\x0blines\x0cand\rreturns", "  ", "solo word "]):
    CASES.append(Case(f"skip_gram_edge{k}", "SKIP_GRAM", [inp("string", [1], values=[sentence])], [out("string")],
                      options=("SkipGramOptions", {"ngramSize": 1, "maxSkipSize": 1, "includeAllNgrams": True})))
CASES.append(Case("skip_gram_two_strings_uses_first", "SKIP_GRAM",
                  [inp("string", [2], values=["first one here", "second ignored"])], [out("string")],
                  options=("SkipGramOptions", {"ngramSize": 2, "maxSkipSize": 1})))
CASES.append(Case("skip_gram_negative_ngram", "SKIP_GRAM", [inp("string", [1], values=["a b c"])], [out("string")],
                  options=("SkipGramOptions", {"ngramSize": -1, "maxSkipSize": 0})))
CASES.append(Case("skip_gram_zero_ngram", "SKIP_GRAM", [inp("string", [1], values=["a b c"])], [out("string")],
                  options=("SkipGramOptions", {"ngramSize": 0, "maxSkipSize": 0, "includeAllNgrams": True})))
CASES.append(Case("embedding_lookup_sparse_unsorted_mean", "EMBEDDING_LOOKUP_SPARSE",
                  [inp("int32", [4], values=[1, 2, 0, 3]),
                   inp("int32", [4, 2], values=[[2, 0], [0, 0], [2, 1], [0, 3]]),
                   inp("int32", [2], values=[4, 5]), inp("float32", [4], low=0.5, high=1.5), inp("float32", [4, 3])],
                  [out("float32")], options=("EmbeddingLookupSparseOptions", {"combiner": 1})))
CASES.append(Case("embedding_lookup_sparse_empty", "EMBEDDING_LOOKUP_SPARSE",
                  [inp("int32", [0], values=[]), inp("int32", [0, 2], values=[]), inp("int32", [2], values=[3, 4]),
                   inp("float32", [0], values=[]), inp("float32", [4, 3])],
                  [out("float32")], options=("EmbeddingLookupSparseOptions", {"combiner": 2})))
CASES.append(Case("embedding_lookup_sparse_sqrtn_negative_weights", "EMBEDDING_LOOKUP_SPARSE",
                  [inp("int32", [3], values=[0, 1, 1]), inp("int32", [3, 2], values=[[0, 0], [0, 1], [1, 0]]),
                   inp("int32", [2], values=[2, 2]), inp("float32", [3], low=-2.0, high=-0.5),
                   inp("float32", [2, 2, 2])],
                  [out("float32")], options=("EmbeddingLookupSparseOptions", {"combiner": 2})))
# LiteRT validates neither num_bits nor the range (NaN for degenerate ones)
for lo, hi, bits in [(-1.0, 1.0, 0), (-1.0, 1.0, 31), (-1.0, 1.0, 32), (1.0, 2.0, 8), (-2.0, -1.0, 8), (1.0, -1.0, 8),
                     (0.0, 0.0, 8), (-300000.0, 70000.0, 16), (-1.0, 1.0, 20)]:
    name = f"fake_quant_unchecked_{lo}_{hi}_{bits}bits".replace("-", "m").replace(".", "p")
    CASES.append(Case(name, "FAKE_QUANT", [inp("float32", [12], low=-3, high=3)], [out("float32")],
                      options=("FakeQuantOptions", {"min": lo, "max": hi, "numBits": bits})))
for source, shape, target in [("float32", [4, 2], "complex64"), ("int64", [3], "complex64"),
                              ("complex128", [3], "float64"), ("float64", [2, 2], "complex128"),
                              ("complex64", [2], "complex128")]:
    CASES.append(Case(f"bitcast_{source}_to_{target}", "BITCAST", [inp(source, shape)], [out(target)]))
for op in ["REAL", "IMAG", "COMPLEX_ABS"]:
    CASES.append(Case(f"{op.lower()}_complex128_special", op,
                      [inp("complex128", [5], values=[0, 3 - 4j, -1e300 + 1e300j, 5e-324 + 5e-324j,
                                                      complex(float("-inf"), float("nan"))])], [out("float64")]))
