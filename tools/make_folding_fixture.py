"""Writes Tests/TFLiteRuntimeTests/Fixtures/graphs/constant_folding.tflite: shape arithmetic on
constants, as converters emit it for `tf.shape`-driven graphs (BirdNET's spectrogram framing).

    x (float32 [6], input)
    s  = MUL(dims int32 [2] = [3, 2], one int32 [] = 1)          constant inputs: folded at prepare
    y  = RESHAPE(x, s)                                           output 0: [3, 2] known at allocate
    e  = RESHAPE(seven int32 [1] = [7], empty int32 [0])         an empty constant (no bytes)
    z  = ADD(e, one)                                             output 1: scalar 8

The outputs' declared shapes are placeholders ([1]): a runtime that cannot fold knows their shapes
only when it runs. Run: .venv/bin/python tools/make_folding_fixture.py
"""
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    buffers = [schema.BufferT()]
    tensors: list[schema.TensorT] = []

    def tensor(name, dtype, shape, data=None, empty_buffer=False):
        t = schema.TensorT()
        t.name, t.type, t.shape, t.buffer = name, dtype, list(shape), 0
        if data is not None or empty_buffer:
            b = schema.BufferT()
            b.data = None if data is None else np.asarray(data).tobytes()
            buffers.append(b)
            t.buffer = len(buffers) - 1
        tensors.append(t)
        return len(tensors) - 1

    i32, f32 = schema.TensorType.INT32, schema.TensorType.FLOAT32
    x = tensor("x", f32, [6])
    dims = tensor("dims", i32, [2], np.array([3, 2], np.int32))
    one = tensor("one", i32, [], np.array(1, np.int32))
    s = tensor("s", i32, [2])
    y = tensor("y", f32, [1])
    seven = tensor("seven", i32, [1], np.array([7], np.int32))
    empty = tensor("empty", i32, [0], empty_buffer=True)
    e = tensor("e", i32, [1])
    z = tensor("z", i32, [1])

    codes = []
    for op in (schema.BuiltinOperator.MUL, schema.BuiltinOperator.RESHAPE, schema.BuiltinOperator.ADD):
        c = schema.OperatorCodeT()
        c.builtinCode = c.deprecatedBuiltinCode = op
        c.version = 1
        codes.append(c)

    def operator(code, inputs, outputs):
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = code, inputs, outputs
        return o

    graph = schema.SubGraphT()
    graph.name = "main"
    graph.tensors = tensors
    graph.inputs = [x]
    graph.outputs = [y, z]
    graph.operators = [
        operator(0, [dims, one], [s]),
        operator(1, [x, s], [y]),
        operator(1, [seven, empty], [e]),
        operator(2, [e, one], [z]),
    ]
    model = schema.ModelT()
    model.version = 3
    model.description = "OpenMLKit constant folding fixture"
    model.operatorCodes = codes
    model.subgraphs = [graph]
    model.buffers = buffers
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    out = ROOT / "Tests/TFLiteRuntimeTests/Fixtures/graphs/constant_folding.tflite"
    out.write_bytes(builder.Output())
    print(out, out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
