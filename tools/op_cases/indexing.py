"""Index-driven operators: CUMSUM, RANGE, TOPK_V2, ONE_HOT, BROADCAST_TO/ARGS, SCATTER_ND, REVERSE_V2,
REVERSE_SEQUENCE, segment reductions, EMBEDDING_LOOKUP, MATRIX_DIAG/SET_DIAG, DYNAMIC_UPDATE_SLICE,
RANK, UNIQUE, SPARSE_TO_DENSE, BUCKETIZE, and the types of GATHER / GATHER_ND / FILL."""

from opmodel import Case, const, inp, out

CASES = []
_Q = {"int8": {"scale": 0.1, "zero_point": 2}, "uint8": {"scale": 0.1, "zero_point": 128},
      "int16": {"scale": 0.01, "zero_point": 0}}
_ALL = ["float32", "int32", "int64", "int8", "uint8", "int16", "bool", "float16"]


def _q(dtype):
    return _Q.get(dtype, {})


# CUMSUM
for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16", "float16"]:
    for exclusive in [False, True]:
        for reverse in [False, True]:
            for axis, shape in [(1, [2, 5, 3]), (-1, [2, 5, 3]), (0, [7])]:
                if dtype != "float32" and axis != 1 and (exclusive or reverse):
                    continue
                CASES.append(Case(f"cumsum_{dtype}_axis{axis}_r{len(shape)}{'_excl' if exclusive else ''}"
                                  f"{'_rev' if reverse else ''}", "CUMSUM",
                                  [inp(dtype, shape), const("int32", [], [axis])], [out(dtype)],
                                  options=("CumsumOptions", {"exclusive": exclusive, "reverse": reverse})))
CASES.append(Case("cumsum_float32_runtime_axis", "CUMSUM", [inp("float32", [3, 4]), inp("int32", [], values=0)],
                  [out("float32")], options=("CumsumOptions", {"exclusive": False, "reverse": False})))

# RANGE
for dtype, (start, limit, delta) in [("int32", (2, 17, 3)), ("int64", (10, -4, -3)), ("float32", (0.5, 4.2, 0.7)),
                                      ("float32", (3.0, -1.0, -0.5)), ("int32", (5, 5, 1))]:
    tag = f"range_{dtype}_{str(start).replace('-', 'm').replace('.', 'p')}_{str(limit).replace('-', 'm').replace('.', 'p')}"
    CASES.append(Case(tag, "RANGE", [const(dtype, [], [start]), const(dtype, [], [limit]), const(dtype, [], [delta])],
                      [out(dtype)]))
    CASES.append(Case(tag + "_runtime", "RANGE", [inp(dtype, [], values=start), inp(dtype, [], values=limit),
                                                  inp(dtype, [], values=delta)], [out(dtype)]))
for dtype in ["float16", "int8", "uint8", "int16", "float64"]:
    CASES.append(Case(f"range_{dtype}", "RANGE", [const(dtype, [], [1]), const(dtype, [], [9]), const(dtype, [], [2])],
                      [out(dtype)]))

# TOPK_V2
for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16", "float16"]:
    for k, shape in [(3, [2, 7]), (1, [9]), (4, [2, 3, 4])]:
        CASES.append(Case(f"topk_v2_{dtype}_k{k}_r{len(shape)}", "TOPK_V2",
                          [inp(dtype, shape, unique=True, low=-60, high=60, **_q(dtype)), const("int32", [], [k])],
                          [out(dtype, **_q(dtype)), out("int32")]))
CASES.append(Case("topk_v2_float32_ties", "TOPK_V2",
                  [inp("float32", [2, 6], values=[1, 3, 3, 2, 3, 0, 5, 5, 5, 5, 1, 1]), const("int32", [], [4])],
                  [out("float32"), out("int32")]))
CASES.append(Case("topk_v2_float32_runtime_k", "TOPK_V2",
                  [inp("float32", [3, 8], unique=True), inp("int32", [], values=2)], [out("float32"), out("int32")]))
CASES.append(Case("topk_v2_float32_int16_indices", "TOPK_V2",
                  [inp("float32", [3, 8], unique=True), const("int32", [], [3])], [out("float32"), out("int16")],
                  version=3))
CASES.append(Case("topk_v2_float32_int16_k", "TOPK_V2",
                  [inp("float32", [3, 8], unique=True), const("int16", [], [3])], [out("float32"), out("int32")],
                  version=3))

# ONE_HOT
for dtype in ["float32", "int32", "int64", "int8", "uint8", "bool", "int16"]:
    on, off = (1, 0) if dtype != "float32" else (2.5, -1.0)
    if dtype == "bool":
        on, off = True, False
    for axis, shape in [(-1, [2, 3]), (0, [4]), (1, [2, 3])]:
        CASES.append(Case(f"one_hot_{dtype}_axis{axis}_r{len(shape)}", "ONE_HOT",
                          [inp("int32", shape, low=-1, high=4), const("int32", [], [4]), const(dtype, [], [on]),
                           const(dtype, [], [off])], [out(dtype)], options=("OneHotOptions", {"axis": axis})))
CASES.append(Case("one_hot_float32_int64_indices", "ONE_HOT",
                  [inp("int64", [5], low=0, high=3), const("int32", [], [3]), const("float32", [], [1.0]),
                   const("float32", [], [0.0])], [out("float32")], options=("OneHotOptions", {"axis": -1})))
CASES.append(Case("one_hot_float32_runtime_depth", "ONE_HOT",
                  [inp("int32", [5], low=0, high=3), inp("int32", [], values=3), const("float32", [], [1.0]),
                   const("float32", [], [0.0])], [out("float32")], options=("OneHotOptions", {"axis": -1})))

# BROADCAST_TO
for dtype in _ALL:
    CASES.append(Case(f"broadcast_to_{dtype}", "BROADCAST_TO",
                      [inp(dtype, [3, 1], **_q(dtype)), const("int32", [3], [2, 3, 4])], [out(dtype, **_q(dtype))],
                      version=2))
CASES.append(Case("broadcast_to_float32_int64_shape", "BROADCAST_TO",
                  [inp("float32", [1, 4]), const("int64", [2], [3, 4])], [out("float32")], version=3))
CASES.append(Case("broadcast_to_float32_scalar", "BROADCAST_TO",
                  [inp("float32", []), const("int32", [2], [2, 3])], [out("float32")], version=2))
CASES.append(Case("broadcast_to_int32_rank6", "BROADCAST_TO",
                  [inp("int32", [2, 1, 3, 1, 1, 2]), const("int32", [6], [2, 2, 3, 2, 1, 2])], [out("int32")],
                  version=4))
CASES.append(Case("broadcast_to_float32_runtime_shape", "BROADCAST_TO",
                  [inp("float32", [1, 3]), inp("int32", [3], values=[2, 2, 3])], [out("float32")], version=2))
CASES.append(Case("broadcast_to_float32_empty", "BROADCAST_TO",
                  [inp("float32", [1, 3]), const("int32", [2], [0, 3])], [out("float32")], version=2))

# BROADCAST_ARGS
for dtype in ["int32", "int64"]:
    CASES.append(Case(f"broadcast_args_{dtype}", "BROADCAST_ARGS",
                      [const(dtype, [3], [2, 1, 4]), const(dtype, [2], [3, 1])], [out(dtype)]))
    CASES.append(Case(f"broadcast_args_{dtype}_runtime", "BROADCAST_ARGS",
                      [inp(dtype, [4], values=[1, 5, 1, 3]), inp(dtype, [1], values=[3])], [out(dtype)]))
CASES.append(Case("broadcast_args_int32_empty", "BROADCAST_ARGS",
                  [const("int32", [0], []), const("int32", [2], [2, 3])], [out("int32")]))

# SCATTER_ND
for dtype in ["float32", "int32", "int64", "int8", "uint8", "bool", "int16"]:
    CASES.append(Case(f"scatter_nd_{dtype}_rows", "SCATTER_ND",
                      [const("int32", [3, 1], [2, 0, 2]), inp(dtype, [3, 4], low=-5, high=5), const("int32", [2], [4, 4])],
                      [out(dtype)]))
CASES.append(Case("scatter_nd_float32_elements", "SCATTER_ND",
                  [const("int32", [4, 2], [0, 1, 2, 2, 1, 0, 0, 1]), inp("float32", [4]), const("int32", [2], [3, 3])],
                  [out("float32")]))
CASES.append(Case("scatter_nd_float32_runtime", "SCATTER_ND",
                  [inp("int32", [2, 1], values=[1, 3]), inp("float32", [2, 2, 3]), inp("int32", [3], values=[4, 2, 3])],
                  [out("float32")]))
CASES.append(Case("scatter_nd_int32_int64_indices", "SCATTER_ND",
                  [const("int64", [2, 1], [1, 0]), inp("int32", [2, 3]), const("int64", [2], [3, 3])], [out("int32")]))

# REVERSE_V2
for dtype in _ALL:
    CASES.append(Case(f"reverse_v2_{dtype}", "REVERSE_V2", [inp(dtype, [2, 3, 4], **_q(dtype)), const("int32", [1], [1])],
                      [out(dtype, **_q(dtype))], version=3))
for axes in [[0], [-1], [0, 2], [2, 0, 1]]:
    CASES.append(Case(f"reverse_v2_float32_axes{'_'.join(str(a).replace('-', 'm') for a in axes)}", "REVERSE_V2",
                      [inp("float32", [2, 3, 4]), const("int32", [len(axes)], axes)], [out("float32")], version=3))
CASES.append(Case("reverse_v2_int32_int64_axis", "REVERSE_V2", [inp("int32", [3, 4]), const("int64", [1], [0])],
                  [out("int32")], version=3))

# REVERSE_SEQUENCE
for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16", "bool"]:
    CASES.append(Case(f"reverse_sequence_{dtype}", "REVERSE_SEQUENCE",
                      [inp(dtype, [3, 5, 2]), const("int32", [3], [5, 0, 3])], [out(dtype)],
                      options=("ReverseSequenceOptions", {"seqDim": 1, "batchDim": 0})))
CASES.append(Case("reverse_sequence_float32_batch1_seq0", "REVERSE_SEQUENCE",
                  [inp("float32", [4, 3, 2]), const("int64", [3], [2, 4, 1])], [out("float32")],
                  options=("ReverseSequenceOptions", {"seqDim": 0, "batchDim": 1})))
CASES.append(Case("reverse_sequence_float32_batch2_seq0", "REVERSE_SEQUENCE",
                  [inp("float32", [4, 2, 3]), inp("int32", [3], values=[1, 4, 3])], [out("float32")],
                  options=("ReverseSequenceOptions", {"seqDim": 0, "batchDim": 2})))

# SEGMENT_SUM and UNSORTED_SEGMENT_*
for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16"]:
    CASES.append(Case(f"segment_sum_{dtype}", "SEGMENT_SUM",
                      [inp(dtype, [5, 3], low=-5, high=5), const("int32", [5], [0, 0, 1, 2, 2])], [out(dtype)]))
CASES.append(Case("segment_sum_float32_runtime_ids", "SEGMENT_SUM",
                  [inp("float32", [4, 2, 2]), inp("int32", [4], values=[0, 1, 1, 2])], [out("float32")]))
for op in ["UNSORTED_SEGMENT_SUM", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_MIN"]:
    low = op.lower()
    for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16"]:
        CASES.append(Case(f"{low}_{dtype}", op,
                          [inp(dtype, [6, 3], low=-4, high=4), const("int32", [6], [2, 0, 2, 1, 0, 2]),
                           const("int32", [], [4])], [out(dtype)]))
    CASES.append(Case(f"{low}_float32_2d_ids", op,
                      [inp("float32", [2, 3, 2]), const("int32", [2, 3], [0, 1, 0, 2, 2, 1]), const("int32", [1], [3])],
                      [out("float32")]))
    CASES.append(Case(f"{low}_float32_runtime", op,
                      [inp("float32", [5]), inp("int32", [5], values=[1, 1, 0, 3, 1]), inp("int32", [], values=4)],
                      [out("float32")]))
    CASES.append(Case(f"{low}_float32_negative_id", op,
                      [inp("float32", [4, 2]), const("int32", [4], [0, -1, 1, 0]), const("int32", [], [2])],
                      [out("float32")]))

# EMBEDDING_LOOKUP
for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16", "bool"]:
    CASES.append(Case(f"embedding_lookup_{dtype}", "EMBEDDING_LOOKUP",
                      [inp("int32", [4], values=[2, 0, 2, 4]), inp(dtype, [5, 3], **_q(dtype))], [out(dtype, **_q(dtype))]))
CASES.append(Case("embedding_lookup_float32_rank3", "EMBEDDING_LOOKUP",
                  [inp("int32", [3], values=[1, 1, 0]), inp("float32", [2, 3, 2])], [out("float32")]))
for dtype in ["int8", "uint8"]:
    CASES.append(Case(f"embedding_lookup_hybrid_{dtype}", "EMBEDDING_LOOKUP",
                      [inp("int32", [3], values=[3, 0, 1]), const(dtype, [4, 5], list(range(20)), scale=0.25,
                                                                     zero_point=0)],
                      [out("float32")], version=2))
    CASES.append(Case(f"embedding_lookup_hybrid_{dtype}_per_row", "EMBEDDING_LOOKUP",
                      [inp("int32", [3], values=[3, 0, 1]), const(dtype, [4, 5], list(range(20)),
                                                                     scale=[0.5, 0.25, 0.125, 1.0], zero_point=[0] * 4)],
                      [out("float32")], version=3))

# MATRIX_DIAG / MATRIX_SET_DIAG. Not bool or float16: LiteRT 2.3 moves those as 4-byte elements,
# writing past the output (its answer is memory corruption, not a golden).
for dtype in [t for t in _ALL if t not in ("bool", "float16")]:
    CASES.append(Case(f"matrix_diag_{dtype}", "MATRIX_DIAG", [inp(dtype, [2, 3], **_q(dtype))],
                      [out(dtype, **_q(dtype))]))
    CASES.append(Case(f"matrix_set_diag_{dtype}", "MATRIX_SET_DIAG",
                      [inp(dtype, [2, 3, 4], **_q(dtype)), inp(dtype, [2, 3], **_q(dtype))], [out(dtype, **_q(dtype))]))
CASES.append(Case("matrix_diag_float32_rank1", "MATRIX_DIAG", [inp("float32", [4])], [out("float32")]))
CASES.append(Case("matrix_set_diag_float32_tall", "MATRIX_SET_DIAG",
                  [inp("float32", [5, 3]), inp("float32", [3])], [out("float32")]))

# DYNAMIC_UPDATE_SLICE
for dtype in _ALL:
    CASES.append(Case(f"dynamic_update_slice_{dtype}", "DYNAMIC_UPDATE_SLICE",
                      [inp(dtype, [4, 5], **_q(dtype)), inp(dtype, [2, 3], **_q(dtype)), const("int32", [2], [1, 2])],
                      [out(dtype, **_q(dtype))], version=4))
CASES.append(Case("dynamic_update_slice_float32_clamped", "DYNAMIC_UPDATE_SLICE",
                  [inp("float32", [4, 5]), inp("float32", [2, 3]), inp("int32", [2], values=[3, -2])], [out("float32")],
                  version=4))
CASES.append(Case("dynamic_update_slice_float32_int64_start", "DYNAMIC_UPDATE_SLICE",
                  [inp("float32", [3, 4, 2]), inp("float32", [1, 2, 2]), inp("int64", [3], values=[2, 1, 0])],
                  [out("float32")], version=4))

# RANK
for dtype in ["float32", "int32", "bool", "int8"]:
    CASES.append(Case(f"rank_{dtype}", "RANK", [inp(dtype, [2, 3, 1])], [out("int32")]))
CASES.append(Case("rank_float32_scalar", "RANK", [inp("float32", [])], [out("int32")]))

# UNIQUE
_UNIQUE_VALUES = {"float32": [1, 2, 1, -0.5, 3, 2, 2, 7, -0.5, 1], "bool": [1, 0, 0, 1, 1, 0, 1, 1, 0, 0]}
for dtype in ["float32", "int32", "int64", "int8", "uint8", "int16", "bool", "float16"]:
    values = _UNIQUE_VALUES.get(dtype, [3, 1, 3, 0, 5, 1, 1, 4, 0, 3])
    for idx in ["int32", "int64"]:
        CASES.append(Case(f"unique_{dtype}_{idx}", "UNIQUE", [inp(dtype, [10], values=values)],
                          [out(dtype), out(idx)], options=("UniqueOptions", {"idxOutType": 2 if idx == "int32" else 4})))

# SPARSE_TO_DENSE
for dtype in ["float32", "int32", "int64", "int8", "uint8", "bool", "int16"]:
    d = 1 if dtype == "bool" else 7
    CASES.append(Case(f"sparse_to_dense_{dtype}", "SPARSE_TO_DENSE",
                      [const("int32", [3, 2], [0, 1, 1, 3, 2, 0]), const("int32", [2], [3, 4]),
                       inp(dtype, [3], low=1, high=5), const(dtype, [], [d if dtype != "bool" else False])],
                      [out(dtype)], options=("SparseToDenseOptions", {"validateIndices": False}), version=3))
CASES.append(Case("sparse_to_dense_float32_vector", "SPARSE_TO_DENSE",
                  [const("int32", [3], [4, 0, 2]), const("int32", [1], [6]), inp("float32", [3]), const("float32", [], [0.5])],
                  [out("float32")], options=("SparseToDenseOptions", {"validateIndices": False})))
CASES.append(Case("sparse_to_dense_float32_scalar_value", "SPARSE_TO_DENSE",
                  [const("int64", [2, 2], [0, 0, 2, 1]), const("int64", [2], [3, 2]), inp("float32", []),
                   const("float32", [], [0.0])],
                  [out("float32")], options=("SparseToDenseOptions", {"validateIndices": False}), version=2))
CASES.append(Case("sparse_to_dense_int32_runtime", "SPARSE_TO_DENSE",
                  [inp("int32", [2, 2], values=[1, 1, 0, 2]), inp("int32", [2], values=[2, 3]), inp("int32", [2]),
                   inp("int32", [], values=9)],
                  [out("int32")], options=("SparseToDenseOptions", {"validateIndices": False})))

# BUCKETIZE
for dtype in ["float32", "int32", "int64", "float64", "int8", "float16"]:
    CASES.append(Case(f"bucketize_{dtype}", "BUCKETIZE", [inp(dtype, [3, 5], low=-6, high=6)], [out("int32")],
                      options=("BucketizeOptions", {"boundaries": [-3.0, 0.0, 0.5, 4.0]})))
CASES.append(Case("bucketize_float32_exact_boundaries", "BUCKETIZE",
                  [inp("float32", [6], values=[-3.0, 0.0, 0.5, 4.0, 10.0, -10.0])], [out("int32")],
                  options=("BucketizeOptions", {"boundaries": [-3.0, 0.0, 0.5, 4.0]})))
CASES.append(Case("bucketize_float32_no_boundaries", "BUCKETIZE", [inp("float32", [4])], [out("int32")],
                  options=("BucketizeOptions", {"boundaries": []})))

# GATHER / GATHER_ND / FILL types
for dtype in _ALL:
    CASES.append(Case(f"gather_{dtype}", "GATHER", [inp(dtype, [4, 3], **_q(dtype)), inp("int32", [3], values=[3, 0, 3])],
                      [out(dtype, **_q(dtype))], options=("GatherOptions", {"axis": 0, "batchDims": 0}), version=7))
    CASES.append(Case(f"gather_nd_{dtype}", "GATHER_ND",
                      [inp(dtype, [3, 2, 2], **_q(dtype)), inp("int32", [2, 2], values=[2, 1, 0, 0])],
                      [out(dtype, **_q(dtype))], version=5))
    CASES.append(Case(f"fill_{dtype}", "FILL", [const("int32", [2], [2, 3]), inp(dtype, [], **_q(dtype))],
                      [out(dtype, **_q(dtype))], version=4))

# Edge cases and higher ranks
CASES.append(Case("cumsum_int32_rank4_axis2_excl_rev", "CUMSUM", [inp("int32", [2, 2, 5, 3]), const("int32", [], [2])],
                  [out("int32")], options=("CumsumOptions", {"exclusive": True, "reverse": True})))
CASES.append(Case("cumsum_float32_rank1_axis_vector", "CUMSUM", [inp("float32", [9]), const("int32", [1], [0])],
                  [out("float32")], options=("CumsumOptions", {"exclusive": False, "reverse": True})))
CASES.append(Case("topk_v2_float32_k_all", "TOPK_V2", [inp("float32", [2, 5], unique=True), const("int32", [], [5])],
                  [out("float32"), out("int32")]))
CASES.append(Case("topk_v2_int32_ties", "TOPK_V2",
                  [inp("int32", [12], values=[4, 9, 4, 4, 9, 1, 0, 9, 4, 2, 2, 9]), const("int32", [], [6])],
                  [out("int32"), out("int32")]))
CASES.append(Case("one_hot_int64_indices_axis0_r2", "ONE_HOT",
                  [inp("int64", [2, 3], low=-2, high=5), const("int32", [], [5]), const("int32", [], [7]),
                   const("int32", [], [-7])], [out("int32")], options=("OneHotOptions", {"axis": 0})))
CASES.append(Case("one_hot_float32_axis2_r2", "ONE_HOT",
                  [inp("int32", [2, 3], low=0, high=3), const("int32", [], [3]), const("float32", [], [1.0]),
                   const("float32", [], [0.0])], [out("float32")], options=("OneHotOptions", {"axis": 2})))
CASES.append(Case("broadcast_to_int8_rank5", "BROADCAST_TO",
                  [inp("int8", [1, 3, 1, 2], scale=0.1, zero_point=1), const("int32", [5], [2, 2, 3, 4, 2])],
                  [out("int8", scale=0.1, zero_point=1)], version=3))
CASES.append(Case("broadcast_to_float32_identity", "BROADCAST_TO",
                  [inp("float32", [2, 3]), const("int32", [2], [2, 3])], [out("float32")], version=2))
CASES.append(Case("broadcast_to_bool_rank8", "BROADCAST_TO",
                  [inp("bool", [2, 1, 1, 1, 1, 1, 1, 3]), const("int64", [8], [2, 2, 1, 1, 1, 1, 2, 3])], [out("bool")],
                  version=4))
CASES.append(Case("broadcast_args_int32_rank5", "BROADCAST_ARGS",
                  [const("int32", [5], [2, 1, 3, 1, 1]), const("int32", [4], [1, 3, 4, 7])], [out("int32")]))
CASES.append(Case("scatter_nd_float32_rank3_indices", "SCATTER_ND",
                  [const("int32", [2, 2, 2], [0, 0, 1, 2, 0, 0, 2, 1]), inp("float32", [2, 2, 3]),
                   const("int32", [3], [3, 3, 3])], [out("float32")]))
CASES.append(Case("scatter_nd_int32_full_index", "SCATTER_ND",
                  [const("int32", [3, 3], [0, 1, 1, 1, 0, 0, 0, 1, 1]), inp("int32", [3]), const("int32", [3], [2, 2, 2])],
                  [out("int32")]))
for axes in [[1, 2], [0, 1, 2, 3], [3]]:
    CASES.append(Case(f"reverse_v2_int32_rank4_axes{'_'.join(map(str, axes))}", "REVERSE_V2",
                      [inp("int32", [2, 3, 2, 4]), const("int32", [len(axes)], axes)], [out("int32")], version=3))
CASES.append(Case("reverse_v2_float32_rank1", "REVERSE_V2", [inp("float32", [7]), const("int32", [1], [0])],
                  [out("float32")], version=2))
CASES.append(Case("reverse_sequence_int32_rank4", "REVERSE_SEQUENCE",
                  [inp("int32", [2, 3, 4, 2]), const("int32", [3], [4, 1, 2])], [out("int32")],
                  options=("ReverseSequenceOptions", {"seqDim": 2, "batchDim": 1})))
CASES.append(Case("segment_sum_float32_rank3", "SEGMENT_SUM",
                  [inp("float32", [6, 2, 3]), const("int32", [6], [0, 1, 1, 1, 2, 3])], [out("float32")]))
CASES.append(Case("unsorted_segment_max_int32_few_segments", "UNSORTED_SEGMENT_MAX",
                  [inp("int32", [6]), const("int32", [6], [0, 0, 1, 1, 5, 1]), const("int32", [], [6])], [out("int32")]))
CASES.append(Case("embedding_lookup_float32_repeated_ids", "EMBEDDING_LOOKUP",
                  [inp("int32", [6], values=[0, 0, 1, 0, 1, 1]), inp("float32", [2, 4])], [out("float32")]))
CASES.append(Case("matrix_diag_int32_rank3", "MATRIX_DIAG", [inp("int32", [2, 2, 3])], [out("int32")]))
CASES.append(Case("matrix_set_diag_int8_wide", "MATRIX_SET_DIAG",
                  [inp("int8", [2, 2, 5]), inp("int8", [2, 2])], [out("int8")]))
CASES.append(Case("dynamic_update_slice_int32_rank4", "DYNAMIC_UPDATE_SLICE",
                  [inp("int32", [2, 3, 4, 2]), inp("int32", [1, 2, 2, 2]), inp("int32", [4], values=[1, 5, -1, 0])],
                  [out("int32")], version=4))
CASES.append(Case("dynamic_update_slice_float32_whole", "DYNAMIC_UPDATE_SLICE",
                  [inp("float32", [2, 3]), inp("float32", [2, 3]), const("int32", [2], [1, 1])], [out("float32")],
                  version=4))
CASES.append(Case("unique_int32_all_same", "UNIQUE", [inp("int32", [5], values=[7] * 5)], [out("int32"), out("int32")],
                  options=("UniqueOptions", {"idxOutType": 2})))
CASES.append(Case("unique_float32_signed_zero", "UNIQUE", [inp("float32", [4], values=[0.0, -0.0, 1.0, -0.0])],
                  [out("float32"), out("int32")], options=("UniqueOptions", {"idxOutType": 2})))
CASES.append(Case("sparse_to_dense_int32_duplicates", "SPARSE_TO_DENSE",
                  [const("int32", [3], [1, 3, 1]), const("int32", [1], [5]), inp("int32", [3]), const("int32", [], [0])],
                  [out("int32")], options=("SparseToDenseOptions", {"validateIndices": False})))
CASES.append(Case("sparse_to_dense_float32_rank3", "SPARSE_TO_DENSE",
                  [const("int64", [2, 3], [0, 1, 1, 1, 0, 2]), const("int64", [3], [2, 2, 3]), inp("float32", [2]),
                   const("float32", [], [-1.0])],
                  [out("float32")], options=("SparseToDenseOptions", {"validateIndices": False}), version=2))
CASES.append(Case("bucketize_float32_repeated_boundaries", "BUCKETIZE",
                  [inp("float32", [8], values=[-1, 0, 0.5, 1, 1.5, 2, 3, float("inf")])], [out("int32")],
                  options=("BucketizeOptions", {"boundaries": [0.0, 1.0, 1.0, 2.0]})))
CASES.append(Case("bucketize_int32_large", "BUCKETIZE", [inp("int32", [5], values=[16777217, -5, 0, 3, 16777216])],
                  [out("int32")], options=("BucketizeOptions", {"boundaries": [0.0, 16777216.0]})))
CASES.append(Case("range_float32_fractional_delta", "RANGE",
                  [const("float32", [], [-1.0]), const("float32", [], [1.0]), const("float32", [], [0.1])], [out("float32")]))
CASES.append(Case("range_int32_negative_step", "RANGE",
                  [inp("int32", [], values=3), inp("int32", [], values=-8), inp("int32", [], values=-2)], [out("int32")]))
CASES.append(Case("rank_int64_rank5", "RANK", [inp("int64", [1, 2, 1, 2, 1])], [out("int32")]))
# GATHER / GATHER_ND variants
CASES.append(Case("gather_float32_axis1_int64_indices", "GATHER",
                  [inp("float32", [3, 4, 2]), inp("int64", [2, 2], values=[3, 0, 1, 1])], [out("float32")],
                  options=("GatherOptions", {"axis": 1, "batchDims": 0}), version=1))
CASES.append(Case("gather_int8_batch_dims", "GATHER",
                  [inp("int8", [2, 4, 3], scale=0.1, zero_point=0), inp("int32", [2, 2], values=[3, 0, 1, 2])],
                  [out("int8", scale=0.1, zero_point=0)], options=("GatherOptions", {"axis": 1, "batchDims": 1}),
                  version=5))
CASES.append(Case("gather_int16_indices", "GATHER",
                  [inp("float32", [5, 2]), inp("int16", [3], values=[4, 1, 4])], [out("float32")],
                  options=("GatherOptions", {"axis": -2, "batchDims": 0}), version=6))
CASES.append(Case("gather_nd_int64_indices_elements", "GATHER_ND",
                  [inp("int32", [3, 4]), inp("int64", [3, 2], values=[2, 3, 0, 0, 1, 2])], [out("int32")], version=3))
CASES.append(Case("gather_nd_int16_indices", "GATHER_ND",
                  [inp("float32", [3, 4]), inp("int16", [2, 1], values=[2, 0])], [out("float32")], version=6))
CASES.append(Case("fill_float32_int64_dims", "FILL", [const("int64", [3], [2, 1, 3]), inp("float32", [])],
                  [out("float32")], version=1))
CASES.append(Case("fill_int32_runtime_dims", "FILL", [inp("int32", [2], values=[3, 2]), inp("int32", [])],
                  [out("int32")], version=1))
# hybrid tables with bytes above 127 (LiteRT refuses non-zero zero points)
for dtype, values, zp in [("uint8", list(range(100, 250, 10)), 0), ("int8", list(range(-120, 120, 16)), 0)]:
    CASES.append(Case(f"embedding_lookup_hybrid_{dtype}_full_range", "EMBEDDING_LOOKUP",
                      [inp("int32", [4], values=[2, 0, 1, 2]), const(dtype, [3, 5], values, scale=0.5, zero_point=zp)],
                      [out("float32")], version=2))

# More types and shapes for the thinner operators
CASES.append(Case("topk_v2_bool", "TOPK_V2", [inp("bool", [2, 5]), const("int32", [], [2])], [out("bool"), out("int32")]))
CASES.append(Case("embedding_lookup_float16", "EMBEDDING_LOOKUP", [inp("int32", [3], values=[1, 0, 1]), inp("float16", [2, 3])],
                  [out("float16")]))
CASES.append(Case("scatter_nd_float16_rows", "SCATTER_ND",
                  [const("int32", [2, 1], [1, 0]), inp("float16", [2, 3]), const("int32", [2], [3, 3])], [out("float16")]))
CASES.append(Case("one_hot_float16", "ONE_HOT",
                  [inp("int32", [3], low=0, high=2), const("int32", [], [3]), const("float16", [], [1.0]),
                   const("float16", [], [0.0])], [out("float16")], options=("OneHotOptions", {"axis": -1})))
for dtype in ["float32", "int32"]:
    CASES.append(Case(f"segment_sum_{dtype}_single_segment", "SEGMENT_SUM",
                      [inp(dtype, [4, 3], low=-9, high=9), const("int32", [4], [0, 0, 0, 0])], [out(dtype)]))
    CASES.append(Case(f"segment_sum_{dtype}_rank1", "SEGMENT_SUM",
                      [inp(dtype, [5], low=-9, high=9), const("int32", [5], [0, 1, 2, 3, 4])], [out(dtype)]))
for op in ["UNSORTED_SEGMENT_SUM", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_MIN"]:
    low = op.lower()
    CASES.append(Case(f"{low}_int32_empty_segments", op,
                      [inp("int32", [3, 2], low=-9, high=9), const("int32", [3], [4, 0, 4]), const("int32", [], [6])],
                      [out("int32")]))
    CASES.append(Case(f"{low}_float32_rank3_data", op,
                      [inp("float32", [4, 2, 3]), const("int32", [4], [1, 0, 1, 1]), const("int32", [], [2])],
                      [out("float32")]))
CASES.append(Case("broadcast_args_int64_equal", "BROADCAST_ARGS",
                  [inp("int64", [3], values=[4, 5, 6]), inp("int64", [3], values=[4, 5, 6])], [out("int64")]))
CASES.append(Case("rank_uint8_rank1", "RANK", [inp("uint8", [7])], [out("int32")]))
# NaN and infinities in TOPK_V2: NaNs rank last, in their original order
_NAN, _INF = float("nan"), float("inf")
for k in [5, 2]:
    CASES.append(Case(f"topk_v2_float32_nan_k{k}", "TOPK_V2",
                      [inp("float32", [3, 5], values=[_NAN, -_INF, 1, _NAN, 2, 3, _NAN, _NAN, -_INF, _NAN,
                                                      _NAN, _NAN, _NAN, _NAN, 1]), const("int32", [], [k])],
                      [out("float32"), out("int32")]))
# Empty outputs and other edges LiteRT runs (REVERSE_V2 with an empty axis list crashes LiteRT 2.3: no case)
CASES += [
    Case("topk_v2_float32_k0", "TOPK_V2", [inp("float32", [2, 3]), const("int32", [], [0])],
         [out("float32"), out("int32")]),
    Case("cumsum_float32_empty", "CUMSUM", [inp("float32", [0, 3]), const("int32", [], [1])], [out("float32")],
         options=("CumsumOptions", {"exclusive": False, "reverse": False})),
    Case("sparse_to_dense_float32_mixed_index_types", "SPARSE_TO_DENSE",
         [const("int32", [2, 1], [1, 3]), const("int64", [1], [5]), inp("float32", [2]), const("float32", [], [0.0])],
         [out("float32")], options=("SparseToDenseOptions", {"validateIndices": False})),
    Case("one_hot_float32_depth0", "ONE_HOT",
         [inp("int32", [3], values=[0, 1, 2]), const("int32", [], [0]), const("float32", [], [1.0]),
          const("float32", [], [0.0])], [out("float32")], options=("OneHotOptions", {"axis": -1})),
    Case("broadcast_to_int16_quantized", "BROADCAST_TO", [inp("int16", [1, 2], scale=0.5), const("int32", [2], [3, 2])],
         [out("int16", scale=0.5)], version=2),
    Case("matrix_diag_int32_empty", "MATRIX_DIAG", [inp("int32", [2, 0])], [out("int32")]),
    Case("range_float32_negative_zero", "RANGE",
         [const("float32", [], [-0.0]), const("float32", [], [1.0]), const("float32", [], [0.25])], [out("float32")]),
    Case("rank_bool_rank0", "RANK", [inp("bool", [])], [out("int32")]),
    Case("bucketize_float64_exact", "BUCKETIZE", [inp("float64", [3], values=[0.1, 0.5, 0.30000001192092896])],
         [out("int32")], options=("BucketizeOptions", {"boundaries": [0.1, 0.3]})),
]
# Operators without an options table take the schema's defaults
CASES += [
    Case("cumsum_float32_no_options", "CUMSUM", [inp("float32", [2, 3]), const("int32", [], [1])], [out("float32")]),
    Case("one_hot_float32_no_options", "ONE_HOT",
         [inp("int32", [3], values=[0, 0, 1]), const("int32", [], [2]), const("float32", [], [1.0]),
          const("float32", [], [0.0])], [out("float32")]),
    Case("bucketize_float32_no_options", "BUCKETIZE", [inp("float32", [3])], [out("int32")]),
]

# int4 tables (two values per byte, low nibble first), per-tensor and per-row scales: LiteRT 2.3
# dequantizes them like the 8-bit hybrid tables.
CASES.append(Case("embedding_lookup_hybrid_int4", "EMBEDDING_LOOKUP",
                  [inp("int32", [3], values=[3, 0, 1]),
                   const("int4", [4, 6], [(i % 16) - 8 for i in range(24)], scale=0.25, zero_point=0)],
                  [out("float32")], version=4))
CASES.append(Case("embedding_lookup_hybrid_int4_per_row", "EMBEDDING_LOOKUP",
                  [inp("int32", [4], values=[2, 3, 0, 2]),
                   const("int4", [4, 5], [((i * 7) % 16) - 8 for i in range(20)],
                         scale=[0.5, 0.25, 0.125, 1.0], zero_point=[0] * 4)],
                  [out("float32")], version=4))
