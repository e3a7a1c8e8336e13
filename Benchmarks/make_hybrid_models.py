#!/usr/bin/env python3
"""Dynamic-range ("hybrid") variants of real float models, for the benchmark's real-model set.

    .venv/bin/python Benchmarks/make_hybrid_models.py MODEL.tflite [...] --out out/bench_real

Does what TFLite's converter does with `optimizations=[DEFAULT]` and no representative data:
every constant float32 filter of CONV_2D (per output channel) and FULLY_CONNECTED (per tensor)
becomes symmetric int8 (scale = max|w| / 127, zero point 0), the activations stay float, so LiteRT
runs those operators on its hybrid kernels. The models are the float models' authors' work under
their licences: written under out/ (ignored), never committed. Needs only ai-edge-litert's schema
module and flatbuffers (no TensorFlow).
"""
import argparse
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema

OPS = {schema.BuiltinOperator.CONV_2D: True, schema.BuiltinOperator.FULLY_CONNECTED: False}


def hybridize(model: "schema.ModelT") -> int:
    changed = 0
    for sg in model.subgraphs:
        for op in sg.operators:
            code = model.operatorCodes[op.opcodeIndex]
            kind = max(code.builtinCode, code.deprecatedBuiltinCode)
            if kind not in OPS or len(op.inputs) < 2:
                continue
            x, w = sg.tensors[op.inputs[0]], sg.tensors[op.inputs[1]]
            buf = model.buffers[w.buffer]
            if x.type != schema.TensorType.FLOAT32 or w.type != schema.TensorType.FLOAT32:
                continue
            if buf.data is None or len(buf.data) == 0:
                continue
            values = np.frombuffer(bytes(bytearray(buf.data)), dtype=np.float32).reshape(w.shape)
            per_channel = OPS[kind]
            if per_channel:
                m = np.abs(values.reshape(values.shape[0], -1)).max(axis=1)
            else:
                m = np.array([np.abs(values).max()])
            scale = np.where(m > 0, m / 127.0, 1.0).astype(np.float32)
            s = scale.reshape((-1,) + (1,) * (values.ndim - 1)) if per_channel else scale[0]
            q = np.clip(np.round(values / s), -127, 127).astype(np.int8)
            buf.data = np.frombuffer(q.tobytes(), dtype=np.uint8)
            w.type = schema.TensorType.INT8
            w.quantization = schema.QuantizationParametersT()
            w.quantization.scale = [float(v) for v in scale]
            w.quantization.zeroPoint = [0] * len(scale)
            w.quantization.quantizedDimension = 0
            changed += 1
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--out", default="out/bench_real")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for path in map(Path, args.models):
        model = schema.ModelT.InitFromPackedBuf(bytearray(path.read_bytes()), 0)
        n = hybridize(model)
        builder = flatbuffers.Builder(1 << 20)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        target = out / f"{path.stem}_hybrid_int8.tflite"
        target.write_bytes(builder.Output())
        print(f"{target}: {n} operators with int8 weights")


if __name__ == "__main__":
    main()
