#!/usr/bin/env python3
"""Makes the UNIDIRECTIONAL_SEQUENCE_LSTM fixtures in Tests/TFLiteRuntimeTests/Fixtures/lstm.

The converter in this TensorFlow (Keras 3) lowers Keras LSTMs to WHILE loops, so the models are
written directly with the TFLite schema: one UNIDIRECTIONAL_SEQUENCE_LSTM node with seeded random
weights. Cases (one directory each, with model.tflite, input_0.npy, output_0.npy = LiteRT's answer
with the builtin kernels, one thread, no delegates):

  float           plain LSTM, tanh, no clipping
  float_peephole  CIFG + peephole + projection + cell/projection clipping, time-major, batch 2
  float_layernorm layer-normalized LSTM
  hybrid          int8 weights, float activations (dynamic range), symmetric input quantization
  hybrid_asym     same with asymmetric_quantize_inputs, projection and peephole
  int8            full-integer LSTM (int8 activations, int16 cell state 2^-12, int32 biases)
  int8_cifg_batch the same with CIFG and batch 2
  int8_layernorm  layer-normalized integer LSTM (int16 coefficients, gate intermediates' scales)
  int8_projection integer LSTM with projection (own hidden scale and zero point) and projection clip

Deterministic: fixed seeds, so an unchanged script gives byte-identical files.
"""
import sys
from pathlib import Path

import flatbuffers
import numpy as np
from tensorflow.lite.python import schema_py_generated as s

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litert_common import make_interpreter, run  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "Tests/TFLiteRuntimeTests/Fixtures/lstm"
FLOAT32, INT8 = 0, 9


def lstm_model(seed, batch, steps, n_in, n_cell, n_out, *, cifg=False, peephole=False, projection=False,
               layer_norm=False, hybrid=False, asym=False, time_major=False, cell_clip=0.0, proj_clip=0.0,
               activation=4, integer=False):
    rng = np.random.default_rng(seed)
    m = s.ModelT()
    m.version = 3
    m.buffers = [s.BufferT()]
    code = s.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = s.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM
    code.version = 1
    m.operatorCodes = [code]
    g = s.SubGraphT()
    g.tensors = []

    def tensor(name, shape, data=None, dtype=FLOAT32, variable=False, scale=None, zero_point=0):
        t = s.TensorT()
        t.name = name.encode()
        t.shape = list(shape)
        t.type = dtype
        t.isVariable = variable
        b = s.BufferT()
        if data is not None:
            b.data = np.ascontiguousarray(data).tobytes()
        t.buffer = len(m.buffers)
        m.buffers.append(b)
        if scale is not None:
            q = s.QuantizationParametersT()
            q.scale = [float(scale)]
            q.zeroPoint = [int(zero_point)]
            t.quantization = q
        g.tensors.append(t)
        return len(g.tensors) - 1

    def weights(name, shape):
        w = rng.uniform(-0.6, 0.6, size=shape).astype(np.float32)
        if hybrid or integer:
            scale = float(np.abs(w).max()) / 127
            q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
            return tensor(name, shape, q, INT8, scale=scale)
        return tensor(name, shape, w)

    in_scale, in_zp, st_scale, st_zp = 1 / 128, -5, 1 / 120, 3

    def vec(name, lo=-0.5, hi=0.5, weight_scale=None, state=False):
        if integer:
            v = rng.uniform(lo, hi, size=[n_cell])
            bscale = (st_scale if state else in_scale) * weight_scale
            return tensor(name, [n_cell], np.round(v / bscale).astype(np.int32), 2, scale=bscale)
        return tensor(name, [n_cell], rng.uniform(lo, hi, size=[n_cell]).astype(np.float32))

    x_shape = [steps, batch, n_in] if time_major else [batch, steps, n_in]
    inputs = [-1] * 24
    inputs[0] = tensor("input", x_shape, dtype=INT8 if integer else FLOAT32,
                       scale=in_scale if integer else None, zero_point=in_zp)
    for k, gate in enumerate("ifco"):
        if gate == "i" and cifg:
            continue
        inputs[1 + k] = weights(f"input_to_{gate}", [n_cell, n_in])
        inputs[5 + k] = weights(f"recurrent_to_{gate}", [n_cell, n_out])
        wscale = g.tensors[inputs[1 + k]].quantization.scale[0] if integer else None
        if integer and layer_norm:
            coef = rng.uniform(0.5, 1.5, size=[n_cell])
            ln_scale = float(coef.max()) / 32767
            inputs[20 + k] = tensor(f"{gate}_layer_norm", [n_cell], np.round(coef / ln_scale).astype(np.int16), 7,
                                    scale=ln_scale)
            bias = rng.uniform(-0.5, 0.5, size=[n_cell])
            bscale = ln_scale / 1024
            inputs[12 + k] = tensor(f"{gate}_bias", [n_cell], np.round(bias / bscale).astype(np.int32), 2, scale=bscale)
            continue
        inputs[12 + k] = vec(f"{gate}_bias", weight_scale=wscale)
        if layer_norm:
            inputs[20 + k] = vec(f"{gate}_layer_norm", 0.5, 1.5)
    if peephole:
        for k, gate in ((9, "i"), (10, "f"), (11, "o")):
            if gate == "i" and cifg:
                continue
            inputs[k] = weights(f"cell_to_{gate}", [n_cell]) if hybrid else vec(f"cell_to_{gate}")
    hidden_scale, hidden_zp = 1 / 100, -2
    if projection:
        inputs[16] = weights("projection", [n_out, n_cell])
        pb = rng.uniform(-0.2, 0.2, size=[n_out])
        if integer:
            bscale = g.tensors[inputs[16]].quantization.scale[0] * hidden_scale
            inputs[17] = tensor("projection_bias", [n_out], np.round(pb / bscale).astype(np.int32), 2, scale=bscale)
        else:
            inputs[17] = tensor("projection_bias", [n_out], pb.astype(np.float32))
    if integer:
        inputs[18] = tensor("output_state", [batch, n_out], None, INT8, True, st_scale, st_zp)
        inputs[19] = tensor("cell_state", [batch, n_cell], None, 7, True, 2.0 ** -12)
    else:
        inputs[18] = tensor("output_state", [batch, n_out], variable=True)
        inputs[19] = tensor("cell_state", [batch, n_cell], variable=True)
    out_shape = [steps, batch, n_out] if time_major else [batch, steps, n_out]
    if integer:
        output = tensor("output", out_shape, None, INT8, scale=st_scale, zero_point=st_zp)
        if layer_norm:
            intermediates = [tensor(f"intermediate_{k}", [0], None, 7, scale=0.0007 + 0.0001 * k) for k in range(4)]
        else:
            intermediates = [tensor(f"intermediate_{k}", [0]) for k in range(4)]
        if projection:
            intermediates.append(tensor("hidden", [0], None, INT8, scale=hidden_scale, zero_point=hidden_zp))
        else:
            intermediates.append(tensor("hidden", [0], None, INT8, scale=st_scale, zero_point=st_zp))
    else:
        output = tensor("output", out_shape)

    op = s.OperatorT()
    op.opcodeIndex = 0
    op.inputs = inputs
    op.outputs = [output]
    if integer:
        op.intermediates = intermediates
    op.builtinOptionsType = s.BuiltinOptions.UnidirectionalSequenceLSTMOptions
    o = s.UnidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction = activation
    o.cellClip = cell_clip
    o.projClip = proj_clip
    o.timeMajor = time_major
    o.asymmetricQuantizeInputs = asym
    op.builtinOptions = o
    g.operators = [op]
    g.inputs = [inputs[0]]
    g.outputs = [output]
    m.subgraphs = [g]
    b = flatbuffers.Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output()), x_shape


CASES = {
    "float": dict(seed=1, batch=1, steps=5, n_in=3, n_cell=6, n_out=6),
    "float_peephole": dict(seed=2, batch=2, steps=4, n_in=3, n_cell=5, n_out=4, cifg=True, peephole=True,
                           projection=True, time_major=True, cell_clip=0.8, proj_clip=0.6),
    "float_layernorm": dict(seed=3, batch=1, steps=4, n_in=4, n_cell=5, n_out=5, layer_norm=True, peephole=True),
    "hybrid": dict(seed=4, batch=2, steps=4, n_in=6, n_cell=5, n_out=5, hybrid=True),
    "hybrid_asym": dict(seed=5, batch=1, steps=4, n_in=6, n_cell=5, n_out=3, hybrid=True, asym=True,
                        projection=True, peephole=True),
    "int8": dict(seed=6, batch=1, steps=6, n_in=5, n_cell=8, n_out=8, integer=True, cell_clip=3.0),
    "int8_cifg_batch": dict(seed=7, batch=2, steps=5, n_in=4, n_cell=6, n_out=6, integer=True, cifg=True),
    "int8_layernorm": dict(seed=9, batch=1, steps=5, n_in=4, n_cell=8, n_out=8, integer=True, layer_norm=True),
    "int8_projection": dict(seed=8, batch=1, steps=5, n_in=4, n_cell=6, n_out=3, integer=True, projection=True,
                            proj_clip=0.5),
}


def main():
    for name, c in CASES.items():
        flat, x_shape = lstm_model(**c)
        d = OUT / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "model.tflite").write_bytes(flat)
        x = np.random.default_rng(c["seed"] + 100).uniform(-1, 1, size=x_shape).astype(np.float32)
        if c.get("integer"):
            x = np.clip(np.round(x * 128) - 5, -128, 127).astype(np.int8)
        np.save(d / "input_0.npy", x)
        y = run(make_interpreter(flat), [x])[0]
        np.save(d / "output_0.npy", y)
        print(name, y.dtype, y.shape)


if __name__ == "__main__":
    main()
