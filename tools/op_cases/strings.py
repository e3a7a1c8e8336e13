"""String tensors through the general operators (the types LiteRT refuses are recorded as refused).

The element-moving kernels run their own index rules on the strings' positions (StringMove)."""

from opmodel import Case, const, inp, out

WORDS = ["alpha", "", "gamma delta", "ünï", "e", "fff", "g", "hh"]
CASES = [
    Case("gather_string", "GATHER", [inp("string", [4], values=[w.encode() for w in WORDS[:4]]),
                                     const("int32", [3], [3, 0, 3])], [out("string")]),
    Case("gather_string_axis1", "GATHER", [inp("string", [2, 4], values=[w.encode() for w in WORDS]),
                                           const("int32", [2], [1, 3])], [out("string")],
         options=("GatherOptions", {"axis": 1})),
    Case("gather_nd_string", "GATHER_ND", [inp("string", [2, 4], values=[w.encode() for w in WORDS]),
                                           const("int32", [2, 2], [1, 2, 0, 3])], [out("string")]),
    Case("fill_string", "FILL", [const("int32", [2], [2, 3]), inp("string", [], values=[b"xy"])], [out("string")]),
    Case("reshape_string", "RESHAPE", [inp("string", [2, 4], values=[w.encode() for w in WORDS]),
                                       const("int32", [2], [4, 2])], [out("string")]),
    Case("squeeze_string", "SQUEEZE", [inp("string", [1, 4], values=[w.encode() for w in WORDS[:4]])], [out("string")]),
    Case("expand_dims_string", "EXPAND_DIMS", [inp("string", [4], values=[w.encode() for w in WORDS[:4]]),
                                               const("int32", [], [0])], [out("string")]),
    Case("slice_string", "SLICE", [inp("string", [2, 4], values=[w.encode() for w in WORDS]),
                                   const("int32", [2], [0, 1]), const("int32", [2], [2, 2])], [out("string")]),
    Case("tile_string", "TILE", [inp("string", [2], values=[b"ab", b"c"]), const("int32", [1], [3])], [out("string")]),
    Case("concatenation_string", "CONCATENATION", [inp("string", [2], values=[b"a", b"b"]),
                                                   inp("string", [1], values=[b"c"])], [out("string")],
         options=("ConcatenationOptions", {"axis": 0})),
    Case("equal_string", "EQUAL", [inp("string", [4], values=[b"a", b"b", b"", b"x"]),
                                   inp("string", [4], values=[b"a", b"c", b"", b"xy"])], [out("bool")], version=3),
    Case("not_equal_string", "NOT_EQUAL", [inp("string", [4], values=[b"a", b"b", b"", b"x"]),
                                           inp("string", [1], values=[b"a"])], [out("bool")], version=3),
    Case("transpose_string", "TRANSPOSE", [inp("string", [2, 4], values=[w.encode() for w in WORDS]),
                                           const("int32", [2], [1, 0])], [out("string")]),
    Case("pack_string", "PACK", [inp("string", [2], values=[b"a", b"b"]), inp("string", [2], values=[b"c", b"d"])],
         [out("string")], options=("PackOptions", {"valuesCount": 2, "axis": 0})),
    Case("split_string", "SPLIT", [const("int32", [], [0]), inp("string", [4], values=[w.encode() for w in WORDS[:4]])],
         [out("string"), out("string")], options=("SplitOptions", {"numSplits": 2})),
    Case("strided_slice_string", "STRIDED_SLICE", [inp("string", [4], values=[w.encode() for w in WORDS[:4]]),
                                                   const("int32", [1], [0]), const("int32", [1], [4]), const("int32", [1], [2])],
         [out("string")]),
    Case("select_v2_string", "SELECT_V2", [inp("bool", [3], values=[True, False, True]),
                                           inp("string", [3], values=[b"a", b"b", b"c"]), inp("string", [3], values=[b"x", b"y", b"z"])],
         [out("string")]),
    Case("broadcast_to_string", "BROADCAST_TO", [inp("string", [2], values=[b"a", b"bc"]), const("int32", [2], [3, 2])],
         [out("string")], version=2),
    Case("shape_string", "SHAPE", [inp("string", [2, 3], values=[b"a"] * 6)], [out("int32")],
         options=("ShapeOptions", {"outType": 2})),
]
