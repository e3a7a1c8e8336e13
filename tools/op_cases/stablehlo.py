"""StableHLO operators LiteRT's built-in kernels run, DILATE and REDUCE_WINDOW."""

from flatbuffers import flexbuffers
from opmodel import Case, const, inp, out

CASES = []

ALL_TYPES = ["float32", "float16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]

# Elementwise binary operators: same shapes, no broadcasting, integer arithmetic wraps.
for op in ["STABLEHLO_ADD", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_MINIMUM"]:
    low = op.lower().replace("stablehlo_", "shlo_")
    for dtype in ALL_TYPES + ["bool"]:
        CASES.append(Case(f"{low}_{dtype}", op, [inp(dtype, [2, 3, 4]), inp(dtype, [2, 3, 4])], [out(dtype)]))
    CASES.append(Case(f"{low}_float32_scalar", op, [inp("float32", []), inp("float32", [])], [out("float32")]))
    CASES.append(Case(f"{low}_int32_rank1", op, [inp("int32", [7]), inp("int32", [7])], [out("int32")]))
    CASES.append(Case(f"{low}_float32_rank5", op, [inp("float32", [2, 1, 3, 2, 2]), inp("float32", [2, 1, 3, 2, 2])],
                      [out("float32")]))
    CASES.append(Case(f"{low}_int8_quantized", op,
                      [inp("int8", [3, 4], scale=0.1, zero_point=2), inp("int8", [3, 4], scale=0.1, zero_point=2)],
                      [out("int8", scale=0.1, zero_point=2)]))
CASES.append(Case("shlo_add_int8_wrap", "STABLEHLO_ADD", [inp("int8", [16], low=60, high=127),
                                                          inp("int8", [16], low=60, high=127)], [out("int8")]))
CASES.append(Case("shlo_multiply_int32_wrap", "STABLEHLO_MULTIPLY",
                  [inp("int32", [8], low=100000, high=2000000), inp("int32", [8], low=100000, high=2000000)],
                  [out("int32")]))
CASES.append(Case("shlo_maximum_float32_nan", "STABLEHLO_MAXIMUM",
                  [inp("float32", [4], values=[1.0, float("nan"), -0.0, 2.0]),
                   inp("float32", [4], values=[float("nan"), 3.0, 0.0, float("inf")])], [out("float32")]))
CASES.append(Case("shlo_minimum_float32_nan", "STABLEHLO_MINIMUM",
                  [inp("float32", [4], values=[1.0, float("nan"), -0.0, 2.0]),
                   inp("float32", [4], values=[float("nan"), 3.0, 0.0, float("-inf")])], [out("float32")]))

for dtype in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32"]:
    CASES.append(Case(f"shlo_and_{dtype}", "STABLEHLO_AND", [inp(dtype, [3, 5], low=-100, high=100),
                                                             inp(dtype, [3, 5], low=-100, high=100)], [out(dtype)]))
CASES.append(Case("shlo_and_int32_scalar", "STABLEHLO_AND", [inp("int32", [], values=12), inp("int32", [], values=10)],
                  [out("int32")]))

for dtype, bits in [("int8", 8), ("int16", 16), ("int32", 32), ("int64", 64), ("uint8", 8), ("uint16", 16),
                    ("uint32", 32), ("float32", 0), ("bool", 1)]:
    CASES.append(Case(f"shlo_shift_left_{dtype}", "STABLEHLO_SHIFT_LEFT",
                      [inp(dtype, [2, 3, 4], low=-50, high=50), inp(dtype, [2, 3, 4], low=0, high=max(bits - 1, 0))],
                      [out(dtype)]))

# STABLEHLO_PAD: edge padding (negative crops) and interior padding, a scalar padding value.
def pad_case(name, dtype, shape, low, high, interior, **kw):
    CASES.append(Case(name, "STABLEHLO_PAD", [inp(dtype, shape, **kw), inp(dtype, [], **kw)], [out(dtype, **kw)],
                      options2=("StablehloPadOptions", {"edgePaddingLow": low, "edgePaddingHigh": high,
                                                        "interiorPadding": interior})))


for dtype in ALL_TYPES + ["bool"]:
    pad_case(f"shlo_pad_{dtype}", dtype, [2, 3], [1, 0], [0, 2], [1, 1])
pad_case("shlo_pad_float32_edges_only", "float32", [2, 3, 4], [1, 2, 0], [2, 0, 1], [0, 0, 0])
pad_case("shlo_pad_float32_crop", "float32", [4, 5], [-1, 2], [1, -2], [0, 0])
pad_case("shlo_pad_float32_crop_interior", "float32", [3, 4], [-2, -1], [-1, 1], [2, 1])
pad_case("shlo_pad_int32_rank1", "int32", [5], [3], [2], [2])
pad_case("shlo_pad_float32_rank4", "float32", [1, 2, 2, 3], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 1, 0])
pad_case("shlo_pad_float32_noop", "float32", [2, 3], [0, 0], [0, 0], [0, 0])
pad_case("shlo_pad_int8_quantized", "int8", [2, 4], [1, 1], [1, 1], [0, 1], scale=0.5, zero_point=-3)

# STABLEHLO_GATHER (output shapes declared: LiteRT takes the result rank from the model).
def gather_case(name, dtype, shape, idx_dtype, idx_shape, idx_values, out_shape, offset_dims, collapsed, start_map,
                ivd, slice_sizes, **kw):
    CASES.append(Case(name, "STABLEHLO_GATHER", [inp(dtype, shape), inp(idx_dtype, idx_shape, values=idx_values)],
                      [out(dtype, out_shape)],
                      options2=("StablehloGatherOptions", {
                          "offsetDims": offset_dims, "collapsedSliceDims": collapsed, "startIndexMap": start_map,
                          "indexVectorDim": ivd, "sliceSizes": slice_sizes, **kw})))


for dtype in ALL_TYPES + ["bool"]:
    # rows of a [5, 3] table (like tf.gather axis 0)
    gather_case(f"shlo_gather_{dtype}", dtype, [5, 3], "int32", [4, 1], [4, 0, 2, 2], [4, 3], [1], [0], [0], 1, [1, 3])
gather_case("shlo_gather_float32_int64_indices", "float32", [5, 3], "int64", [2, 1], [3, 1], [2, 3], [1], [0], [0], 1,
            [1, 3])
gather_case("shlo_gather_float32_columns", "float32", [3, 6], "int32", [4, 1], [5, 0, 3, 1], [3, 4], [0], [1], [1], 1,
            [3, 1])
# gather_nd-like: full index vectors, element slices
gather_case("shlo_gather_float32_nd", "float32", [3, 4, 2], "int32", [5, 2], [0, 0, 2, 3, 1, 1, 2, 0, 0, 3],
            [5, 2], [1], [0, 1], [0, 1], 1, [1, 1, 2])
# window slices that are clamped at the edge (start indices out of range)
gather_case("shlo_gather_float32_clamped", "float32", [6, 5], "int32", [3, 2], [4, 3, -2, 1, 9, 9], [3, 2, 3],
            [1, 2], [], [0, 1], 1, [2, 3])
# index vector in the leading dimension, batch dims after
gather_case("shlo_gather_int32_ivd0", "int32", [4, 5], "int32", [2, 3], [0, 1, 3, 4, 2, 0], [3, 2, 2], [1, 2], [],
            [0, 1], 0, [2, 2])
# start_index_map reversed, collapsed second dim
gather_case("shlo_gather_float32_map_order", "float32", [4, 5, 3], "int64", [2, 2], [1, 3, 4, 0], [2, 2, 3], [1, 2],
            [1], [1, 0], 1, [2, 1, 3])
gather_case("shlo_gather_float32_batch2d", "float32", [6, 2], "int32", [2, 3, 1], [5, 0, 1, 1, 4, 3], [2, 3, 2],
            [2], [0], [0], 2, [1, 2], indicesAreSorted=False)

# DILATE: input, int32 dilations, scalar padding value.
for dtype in ALL_TYPES + ["bool"]:
    CASES.append(Case(f"dilate_{dtype}", "DILATE",
                      [inp(dtype, [2, 3]), const("int32", [2], [2, 3]), inp(dtype, [])], [out(dtype)]))
CASES.append(Case("dilate_float32_rank3_trailing_ones", "DILATE",
                  [inp("float32", [2, 3, 4]), const("int32", [3], [3, 1, 1]), inp("float32", [])], [out("float32")]))
CASES.append(Case("dilate_float32_all_ones", "DILATE",
                  [inp("float32", [2, 3]), const("int32", [2], [1, 1]), inp("float32", [])], [out("float32")]))
CASES.append(Case("dilate_int32_rank1", "DILATE", [inp("int32", [4]), const("int32", [1], [4]), inp("int32", [])],
                  [out("int32")]))
CASES.append(Case("dilate_float32_runtime_dilations", "DILATE",
                  [inp("float32", [3, 2]), inp("int32", [2], values=[2, 2]), inp("float32", [])], [out("float32")]))

# REDUCE_WINDOW (TFLite's own): input, init value, int64 window shape, strides and dilations.
_FUNCTIONS = {"add": 1, "mul": 2, "min": 3, "max": 4, "all": 5, "any": 6}


def reduce_window_case(name, dtype, shape, window, strides, dilations, function, **kw):
    rank = len(shape)
    CASES.append(Case(name, "REDUCE_WINDOW",
                      [inp(dtype, shape, **kw), inp(dtype, [], **kw), const("int64", [rank], window),
                       const("int64", [rank], strides), const("int64", [rank], dilations)],
                      [out(dtype)], options2=("ReduceWindowOptions", {"reduceFunction": _FUNCTIONS[function]})))


for dtype in ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "float16", "uint16", "uint32",
              "uint64"]:
    for function in _FUNCTIONS:
        kw = {"low": -3, "high": 3} if dtype not in ("float32", "float64", "float16", "bool") else {}
        reduce_window_case(f"reduce_window_{function}_{dtype}", dtype, [4, 6], [2, 3], [2, 1], [1, 1], function, **kw)
reduce_window_case("reduce_window_add_float32_dilated", "float32", [1, 7, 7, 2], [1, 2, 2, 1], [1, 2, 2, 1],
                   [1, 2, 3, 1], "add")
reduce_window_case("reduce_window_max_float32_rank1", "float32", [9], [3], [3], [1], "max")
reduce_window_case("reduce_window_max_int32_big_window", "int32", [3, 2], [4, 1], [1, 1], [1, 1], "max")
reduce_window_case("reduce_window_add_float32_uneven", "float32", [5, 5], [2, 2], [2, 2], [1, 1], "add")


def body(op, dtype, **kw):
    """A reduction or update region: two scalars in, one out, through `op` (or none: "NONE")."""
    return Case("body", op, [inp(dtype, [], **kw), inp(dtype, [], **kw)], [out(dtype, [], **kw)])


# STABLEHLO_REDUCE_WINDOW: input, init value; the body subgraph's one operator is the reduction.
def shlo_reduce_window_case(name, dtype, shape, window, strides, base, dilations, padding, body_op, **kw):
    CASES.append(Case(name, "STABLEHLO_REDUCE_WINDOW", [inp(dtype, shape, **kw), inp(dtype, [], **kw)],
                      [out(dtype, **kw)],
                      options2=("StablehloReduceWindowOptions", {
                          "windowDimensions": window, "windowStrides": strides, "baseDilations": base,
                          "windowDilations": dilations, "padding": padding, "bodySubgraphIndex": 1}),
                      subgraphs=[body(body_op, dtype, **kw)]))


_BODIES = {"add": "STABLEHLO_ADD", "mul": "STABLEHLO_MULTIPLY", "max": "STABLEHLO_MAXIMUM", "min": "STABLEHLO_MINIMUM",
           "and": "STABLEHLO_AND"}
for dtype in ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "float16", "uint32"]:
    for name, op in _BODIES.items():
        kw = {"low": -3, "high": 3} if dtype not in ("float32", "float64", "float16", "bool") else {}
        shlo_reduce_window_case(f"shlo_reduce_window_{name}_{dtype}", dtype, [4, 6], [2, 3], [2, 1], [1, 1], [1, 1],
                                [0, 0, 0, 0], op, **kw)
for name, op in [("add", "ADD"), ("mul", "MUL"), ("max", "MAXIMUM"), ("min", "MINIMUM")]:
    shlo_reduce_window_case(f"shlo_reduce_window_tfl_{name}_float32", "float32", [3, 5], [2, 2], [1, 2], [1, 1],
                            [1, 1], [0, 0, 0, 0], op)
shlo_reduce_window_case("shlo_reduce_window_tfl_and_bool", "bool", [3, 5], [2, 2], [1, 1], [1, 1], [1, 1],
                        [0, 0, 0, 0], "LOGICAL_AND")
shlo_reduce_window_case("shlo_reduce_window_tfl_or_bool", "bool", [3, 5], [2, 2], [1, 1], [1, 1], [1, 1],
                        [0, 0, 0, 0], "LOGICAL_OR")
# max pooling with SAME-like padding, as jax.lax.reduce_window writes it
shlo_reduce_window_case("shlo_reduce_window_max_float32_padded", "float32", [1, 5, 5, 2], [1, 3, 3, 1], [1, 2, 2, 1],
                        [1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 1, 1, 1, 1, 0, 0], "STABLEHLO_MAXIMUM")
shlo_reduce_window_case("shlo_reduce_window_add_float32_base_dilated", "float32", [3, 4], [2, 2], [1, 1], [2, 3],
                        [1, 1], [0, 0, 0, 0], "STABLEHLO_ADD")
shlo_reduce_window_case("shlo_reduce_window_add_float32_cropped", "float32", [6, 6], [2, 2], [2, 1], [1, 1],
                        [1, 2], [-1, 1, 0, -2], "STABLEHLO_ADD")
shlo_reduce_window_case("shlo_reduce_window_add_int32_everything", "int32", [4, 5], [2, 3], [2, 2], [2, 1],
                        [2, 1], [1, 0, -1, 2], "STABLEHLO_ADD", low=-5, high=5)
shlo_reduce_window_case("shlo_reduce_window_max_float32_rank1", "float32", [10], [3], [2], [1], [2], [2, 1],
                        "STABLEHLO_MAXIMUM")

# STABLEHLO_SCATTER: operand, indices, updates; the update region's operator (none: replace).
def scatter_case(name, dtype, shape, idx_dtype, idx_shape, idx_values, upd_shape, window_dims, inserted, to_operand,
                 ivd, body_op, **kw):
    CASES.append(Case(name, "STABLEHLO_SCATTER",
                      [inp(dtype, shape, **kw), inp(idx_dtype, idx_shape, values=idx_values),
                       inp(dtype, upd_shape, **kw)],
                      [out(dtype, **kw)],
                      options2=("StablehloScatterOptions", {
                          "updateWindowDims": window_dims, "insertedWindowDims": inserted,
                          "scatterDimsToOperandDims": to_operand, "indexVectorDim": ivd,
                          "updateComputationSubgraphIndex": 1}),
                      subgraphs=[body(body_op, dtype, **kw)]))


_SCATTER_BODIES = {"update": "NONE", "add": "STABLEHLO_ADD", "mul": "STABLEHLO_MULTIPLY", "max": "STABLEHLO_MAXIMUM",
                   "min": "STABLEHLO_MINIMUM"}
for dtype in ALL_TYPES + ["bool"]:
    for name, op in _SCATTER_BODIES.items():
        kw = {"low": -3, "high": 3} if dtype not in ("float32", "float64", "float16", "bool") else {}
        if dtype.startswith("uint"):
            kw = {"low": 0, "high": 5}
        # rows of a [5, 3] operand, one index repeated so updates combine in order
        scatter_case(f"shlo_scatter_{name}_{dtype}", dtype, [5, 3], "int32", [3, 1], [4, 1, 4], [3, 3], [1], [0], [0],
                     1, op, **kw)
scatter_case("shlo_scatter_add_float32_int64_indices", "float32", [4, 3], "int64", [2, 1], [0, 3], [2, 3], [1], [0],
             [0], 1, "STABLEHLO_ADD")
scatter_case("shlo_scatter_update_float32_elements", "float32", [3, 4], "int32", [4, 2], [0, 0, 2, 3, 1, 1, 2, 3],
             [4], [], [0, 1], [0, 1], 1, "NONE")
scatter_case("shlo_scatter_add_float32_out_of_bounds", "float32", [4, 3], "int32", [3, 1], [1, 4, 9], [3, 3], [1], [0],
             [0], 1, "STABLEHLO_ADD")
scatter_case("shlo_scatter_add_float32_partial_window", "float32", [5, 4], "int32", [2, 2], [3, 1, 0, 2], [2, 3, 3],
             [1, 2], [], [0, 1], 1, "STABLEHLO_ADD")
scatter_case("shlo_scatter_add_float32_ivd0", "float32", [4, 5], "int32", [1, 3], [0, 3, 2], [3, 5], [1], [0], [0], 0,
             "STABLEHLO_ADD")
scatter_case("shlo_scatter_max_int32_columns", "int32", [3, 6], "int32", [2, 1], [5, 2], [3, 2], [0], [1], [1], 1,
             "STABLEHLO_MAXIMUM", low=-9, high=9)

# STABLEHLO_CASE: an int32 index picks a branch subgraph (out of range: the last); the other inputs
# are the branch's inputs.
def branch(op, dtype, shape):
    return Case("branch", op, [inp(dtype, shape), inp(dtype, shape)], [out(dtype, shape)])


for dtype, ops in [("float32", ["ADD", "MUL", "STABLEHLO_MAXIMUM"]), ("int32", ["ADD", "SUB", "STABLEHLO_MINIMUM"])]:
    for label, index in [("0", 0), ("1", 1), ("2", 2), ("out_of_range", 7), ("negative", -1)]:
        CASES.append(Case(f"shlo_case_{dtype}_index_{label}", "STABLEHLO_CASE",
                          [inp("int32", [], values=index), inp(dtype, [2, 3]), inp(dtype, [2, 3])], [out(dtype)],
                          options2=("StablehloCaseOptions", {"branchSubgraphIndices": [1, 2, 3]}),
                          subgraphs=[branch(op, dtype, [2, 3]) for op in ops]))
CASES.append(Case("shlo_case_float32_one_branch", "STABLEHLO_CASE",
                  [inp("int32", [1], values=[0]), inp("float32", [4]), inp("float32", [4])], [out("float32")],
                  options2=("StablehloCaseOptions", {"branchSubgraphIndices": [1]}),
                  subgraphs=[branch("STABLEHLO_ADD", "float32", [4])]))

# STABLEHLO_COMPOSITE: the decomposition subgraph computes the operator.
for dtype in ["float32", "int32"]:
    CASES.append(Case(f"shlo_composite_{dtype}", "STABLEHLO_COMPOSITE", [inp(dtype, [2, 3]), inp(dtype, [2, 3])],
                      [out(dtype)],
                      options2=("StableHLOCompositeOptions", {
                          "name": "openmlkit.add", "decompositionSubgraphIndex": 1, "version": 1,
                          "compositeAttributes": list(flexbuffers.Dumps({"alpha": 1.5}))}),
                      subgraphs=[branch("STABLEHLO_ADD", dtype, [2, 3])]))

# STABLEHLO_RNG_BIT_GENERATOR: uint64 state in, (new state, random bits of a declared shape) out.
_STATE3 = [0x0123456789ABCDEF, 0xFEDCBA9876543210, 0x00000000FFFFFFFF]
for algorithm, label, state_len in [(0, "default", 2), (1, "philox", 2), (1, "philox_state3", 3), (2, "threefry", 2)]:
    for dtype, shape in [("uint32", [3, 5]), ("int32", [7]), ("uint64", [2, 3]), ("int64", [5])]:
        CASES.append(Case(f"shlo_rng_bit_generator_{label}_{dtype}", "STABLEHLO_RNG_BIT_GENERATOR",
                          [inp("uint64", [state_len], values=_STATE3[:state_len])],
                          [out("uint64", [state_len]), out(dtype, shape)],
                          options2=("StablehloRngBitGeneratorOptions", {"algorithm": algorithm})))
CASES.append(Case("shlo_rng_bit_generator_philox_counter_carry", "STABLEHLO_RNG_BIT_GENERATOR",
                  [inp("uint64", [2], values=[42, 0x00000005FFFFFFFE])], [out("uint64", [2]), out("uint32", [4, 4])],
                  options2=("StablehloRngBitGeneratorOptions", {"algorithm": 1})))
CASES.append(Case("shlo_rng_bit_generator_threefry_counter_carry", "STABLEHLO_RNG_BIT_GENERATOR",
                  [inp("uint64", [2], values=[7, 0x00000001FFFFFFFF])], [out("uint64", [2]), out("int32", [6])],
                  options2=("StablehloRngBitGeneratorOptions", {"algorithm": 2})))

# Edge cases: empty tensors, size-1 windows, a branch whose output shape differs from the others.
for op in ["STABLEHLO_ADD", "STABLEHLO_MAXIMUM"]:
    low = op.lower().replace("stablehlo_", "shlo_")
    CASES.append(Case(f"{low}_float32_empty", op, [inp("float32", [2, 0, 3]), inp("float32", [2, 0, 3])],
                      [out("float32")]))
pad_case("shlo_pad_float32_empty_operand", "float32", [0, 3], [1, 0], [1, 1], [2, 0])
pad_case("shlo_pad_int32_crop_to_empty", "int32", [3, 2], [-2, 0], [-1, 0], [0, 0])
gather_case("shlo_gather_float32_no_indices", "float32", [5, 3], "int32", [0, 1], [], [0, 3], [1], [0], [0], 1, [1, 3])
scatter_case("shlo_scatter_add_float32_no_updates", "float32", [4, 3], "int32", [0, 1], [], [0, 3], [1], [0], [0], 1,
             "STABLEHLO_ADD")
reduce_window_case("reduce_window_add_float32_unit_window", "float32", [3, 4], [1, 1], [1, 1], [1, 1], "add")
CASES.append(Case("shlo_case_float32_branch_shapes_differ", "STABLEHLO_CASE",
                  [inp("int32", [], values=1), inp("float32", [2, 3]), inp("float32", [2, 3])], [out("float32")],
                  options2=("StablehloCaseOptions", {"branchSubgraphIndices": [1, 2]}),
                  subgraphs=[branch("STABLEHLO_ADD", "float32", [2, 3]),
                             Case("branch", "CONCATENATION", [inp("float32", [2, 3]), inp("float32", [2, 3])],
                                  [out("float32", [2, 6])], options=("ConcatenationOptions", {"axis": 1}))]))
pad_case("shlo_pad_int32_crop_below_empty", "int32", [3, 2], [-3, 1], [-2, 0], [0, 0])
pad_case("shlo_pad_float32_interior_crop_odd", "float32", [4, 3], [-3, -1], [-2, 2], [2, 1])
for dtype, op in [("int8", "STABLEHLO_MULTIPLY"), ("float16", "STABLEHLO_MAXIMUM"), ("int64", "STABLEHLO_MINIMUM")]:
    CASES.append(Case(f"shlo_composite_{dtype}_{op.lower().split('_')[1]}", "STABLEHLO_COMPOSITE",
                      [inp(dtype, [3, 4]), inp(dtype, [3, 4])], [out(dtype)],
                      options2=("StableHLOCompositeOptions", {
                          "name": "openmlkit.binary", "decompositionSubgraphIndex": 1, "version": 2,
                          "compositeAttributes": list(flexbuffers.Dumps({}))}),
                      subgraphs=[branch(op, dtype, [3, 4])]))
CASES.append(Case("shlo_composite_float32_one_input_constant", "STABLEHLO_COMPOSITE", [inp("float32", [2, 4])],
                  [out("float32")],
                  options2=("StableHLOCompositeOptions", {
                      "name": "openmlkit.add_constant", "decompositionSubgraphIndex": 1,
                      "compositeAttributes": list(flexbuffers.Dumps({}))}),
                  subgraphs=[Case("decomposition", "STABLEHLO_ADD",
                                  [inp("float32", [2, 4]), const("float32", [2, 4], [0.5 * i for i in range(8)])],
                                  [out("float32", [2, 4])])]))
shlo_reduce_window_case("shlo_reduce_window_max_float32_rank6", "float32", [2, 1, 3, 2, 2, 3], [1, 1, 2, 2, 1, 2],
                        [1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [0] * 12, "STABLEHLO_MAXIMUM")
for dtype in ["int8", "bool", "float16", "uint64"]:
    CASES.append(Case(f"shlo_case_{dtype}", "STABLEHLO_CASE",
                      [inp("int32", [], values=1), inp(dtype, [3, 2]), inp(dtype, [3, 2])], [out(dtype)],
                      options2=("StablehloCaseOptions", {"branchSubgraphIndices": [1, 2]}),
                      subgraphs=[branch("STABLEHLO_MAXIMUM", dtype, [3, 2]), branch("STABLEHLO_MULTIPLY", dtype, [3, 2])]))
