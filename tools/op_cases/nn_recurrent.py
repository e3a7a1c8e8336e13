"""Classic recurrent operators: RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN, SVDF, LSTM and
BIDIRECTIONAL_SEQUENCE_LSTM; float and hybrid (int8 weights, float activations). States are variable tensors."""

import zlib

import numpy as np

from opmodel import Case, const, inp, out, var

CASES = []


def _w(name, shape, scale=0.4):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return (rng.uniform(-1, 1, size=shape) * scale).astype(np.float32)


def weight(name, shape, hybrid, scale=0.4, per_channel=False):
    """A constant weight matrix: float32, or int8 symmetric (per tensor) for hybrid cases."""
    values = _w(name, shape, scale)
    if not hybrid:
        return const("float32", shape, values.tolist())
    s = float(np.abs(values).max()) / 127 or 1.0
    q = np.clip(np.round(values / s), -127, 127).astype(np.int8)
    return const("int8", shape, q.tolist(), scale=s, zero_point=0)


def bias(name, n):
    return const("float32", [n], _w(name, [n], 0.2).tolist())


# RNN / UNIDIRECTIONAL_SEQUENCE_RNN: input, weights [units, in], recurrent [units, units], bias, hidden state.
for kind in ("float32", "hybrid", "hybrid_asym"):
    hybrid = kind != "float32"
    asym = kind == "hybrid_asym"
    version = 1 if not hybrid else (3 if asym else 2)
    for act, act_name in ((4, "tanh"), (1, "relu"), (0, "none")):
        if hybrid and act == 0:
            continue
        batch, n_in, units = 2, 3, 4
        name = f"rnn_{kind}_{act_name}"
        CASES.append(Case(name, "RNN",
                          [inp("float32", [batch, n_in]), weight(name + "w", [units, n_in], hybrid),
                           weight(name + "r", [units, units], hybrid), bias(name + "b", units),
                           var("float32", [batch, units])],
                          [out("float32")], options=("RNNOptions", {"fusedActivationFunction": act,
                                                                    "asymmetricQuantizeInputs": asym}),
                          version=version))
    for time_major in (False, True):
        for act, act_name in ((4, "tanh"), (1, "relu")):
            batch, time, n_in, units = 2, 5, 3, 4
            name = f"unidirectional_sequence_rnn_{kind}_{act_name}_{'time_major' if time_major else 'batch_major'}"
            shape = [time, batch, n_in] if time_major else [batch, time, n_in]
            CASES.append(Case(name, "UNIDIRECTIONAL_SEQUENCE_RNN",
                              [inp("float32", shape), weight(name + "w", [units, n_in], hybrid),
                               weight(name + "r", [units, units], hybrid), bias(name + "b", units),
                               var("float32", [batch, units])],
                              [out("float32")],
                              options=("SequenceRNNOptions", {"timeMajor": time_major, "fusedActivationFunction": act,
                                                              "asymmetricQuantizeInputs": asym}),
                              version=version))

# BIDIRECTIONAL_SEQUENCE_RNN: fw (weights, recurrent, bias, state), bw (same), aux input + aux weights.
for kind in ("float32", "hybrid"):
    hybrid = kind == "hybrid"
    for time_major in (True, False):
        for merge in (False, True):
            if hybrid and merge and time_major:
                continue  # LiteRT 2.3 crashes (segmentation fault) on this one
            batch, time, n_in, fw_units, bw_units = 2, 4, 3, 4, 3
            name = f"bidirectional_sequence_rnn_{kind}_{'time_major' if time_major else 'batch_major'}" \
                   f"{'_merged' if merge else ''}"
            shape = [time, batch, n_in] if time_major else [batch, time, n_in]
            inputs = [inp("float32", shape),
                      weight(name + "fw", [fw_units, n_in], hybrid), weight(name + "fr", [fw_units, fw_units], hybrid),
                      bias(name + "fb", fw_units), var("float32", [batch, fw_units]),
                      weight(name + "bw", [bw_units, n_in], hybrid), weight(name + "br", [bw_units, bw_units], hybrid),
                      bias(name + "bb", bw_units), var("float32", [batch, bw_units]), None, None, None]
            CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_RNN", inputs,
                              [out("float32")] if merge else [out("float32"), out("float32")],
                              options=("BidirectionalSequenceRNNOptions",
                                       {"timeMajor": time_major, "fusedActivationFunction": 4, "mergeOutputs": merge}),
                              version=2 if hybrid else 1))

# SVDF: input [batch, in], weights_feature [filters, in], weights_time [filters, memory], bias [units], state.
for kind in ("float32", "hybrid"):
    hybrid = kind == "hybrid"
    for rank, units, memory, act, with_bias in ((1, 4, 3, 0, True), (2, 3, 4, 1, True), (1, 2, 5, 0, False)):
        batch, n_in = 2, 3
        filters = units * rank
        name = f"svdf_{kind}_rank{rank}_memory{memory}{'' if with_bias else '_no_bias'}"
        CASES.append(Case(name, "SVDF",
                          [inp("float32", [batch, n_in]), weight(name + "f", [filters, n_in], hybrid),
                           weight(name + "t", [filters, memory], hybrid),
                           bias(name + "b", units) if with_bias else None, var("float32", [batch, memory * filters])],
                          [out("float32")],
                          options=("SVDFOptions", {"rank": rank, "fusedActivationFunction": act}),
                          version=2 if hybrid else 1))


def lstm_operands(prefix, n_in, cell, n_out, hybrid, cifg=False, peephole=False, projection=False):
    """The 17 weight/bias operands of one LSTM direction (input weights ... projection bias)."""
    ops = []
    for g in ("i", "f", "c", "o"):
        ops.append(None if (cifg and g == "i") else weight(f"{prefix}x{g}", [cell, n_in], hybrid))
    for g in ("i", "f", "c", "o"):
        ops.append(None if (cifg and g == "i") else weight(f"{prefix}h{g}", [cell, n_out], hybrid))
    for g in ("i", "f", "o"):
        ops.append(None if (not peephole or (cifg and g == "i")) else weight(f"{prefix}p{g}", [cell], hybrid, 0.3))
    for g in ("i", "f", "c", "o"):
        ops.append(None if (cifg and g == "i") else bias(f"{prefix}b{g}", cell))
    ops.append(weight(f"{prefix}proj", [n_out, cell], hybrid) if projection else None)
    ops.append(bias(f"{prefix}projb", n_out) if projection else None)
    return ops


# LSTM (full kernel): 24 operands; [batch, input] in, [batch, output] out.
for kind in ("float32", "hybrid"):
    hybrid = kind == "hybrid"
    for variant, cifg, peephole, projection, layer_norm in (
        ("basic", False, False, False, False), ("cifg_peephole", True, True, False, False),
        ("projection", False, False, True, False), ("layer_norm", False, True, False, True),
    ):
        batch, n_in, cell = 2, 3, 4
        n_out = 3 if projection else cell
        name = f"lstm_{kind}_{variant}"
        inputs = [inp("float32", [batch, n_in])] + lstm_operands(name, n_in, cell, n_out, hybrid, cifg, peephole,
                                                                 projection)
        inputs += [var("float32", [batch, n_out]), var("float32", [batch, cell])]
        if layer_norm:
            inputs += [None if (cifg and g == "i") else const("float32", [cell], (1 + _w(name + "ln" + g, [cell], 0.3)).tolist())
                       for g in ("i", "f", "c", "o")]
        version = 3 if layer_norm else (2 if hybrid else 1)
        CASES.append(Case(name, "LSTM", inputs, [out("float32")],
                          options=("LSTMOptions", {"fusedActivationFunction": 4, "cellClip": 0.0 if variant != "basic" else 3.0,
                                                   "projClip": 0.0, "kernelType": 0}),
                          version=version))

# BIDIRECTIONAL_SEQUENCE_LSTM: 48 operands (fw 1-17, bw 18-34, states 35-38, aux 39-47). Batch-major with
# merged outputs is left out: LiteRT 2.3 gives a different output on each run there.
for kind in ("float32", "hybrid"):
    hybrid = kind == "hybrid"
    for variant, time_major, merge, projection in (
        ("time_major", True, False, False), ("time_major_merged", True, True, False),
        ("batch_major", False, False, False), ("projection", True, False, True),
    ):
        batch, time, n_in, cell = 2, 3, 3, 4
        n_out = 2 if projection else cell
        name = f"bidirectional_sequence_lstm_{kind}_{variant}"
        shape = [time, batch, n_in] if time_major else [batch, time, n_in]
        inputs = [inp("float32", shape)]
        inputs += lstm_operands(name + "fw", n_in, cell, n_out, hybrid, projection=projection)
        inputs += lstm_operands(name + "bw", n_in, cell, n_out, hybrid, projection=projection)
        inputs += [var("float32", [batch, n_out]), var("float32", [batch, cell]),
                   var("float32", [batch, n_out]), var("float32", [batch, cell])]
        inputs += [None] * 9
        CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_LSTM", inputs,
                          [out("float32")] if merge else [out("float32"), out("float32")],
                          options=("BidirectionalSequenceLSTMOptions",
                                   {"fusedActivationFunction": 4, "cellClip": 0.0, "projClip": 0.0,
                                    "mergeOutputs": merge, "timeMajor": time_major}),
                          version=2 if hybrid else 1))

# Asymmetric input quantization for the hybrid forms.
for merge_name, merge in (("", False),):
    batch, time, n_in, units = 2, 4, 3, 4
    name = "bidirectional_sequence_rnn_hybrid_asym_batch_major"
    CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_RNN",
                      [inp("float32", [batch, time, n_in]),
                       weight(name + "fw", [units, n_in], True), weight(name + "fr", [units, units], True),
                       bias(name + "fb", units), var("float32", [batch, units]),
                       weight(name + "bw", [units, n_in], True), weight(name + "br", [units, units], True),
                       bias(name + "bb", units), var("float32", [batch, units]), None, None, None],
                      [out("float32"), out("float32")],
                      options=("BidirectionalSequenceRNNOptions", {"timeMajor": False, "fusedActivationFunction": 4,
                                                                    "asymmetricQuantizeInputs": True}),
                      version=3))
for rank, units, memory in ((1, 4, 3), (2, 3, 4)):
    name = f"svdf_hybrid_asym_rank{rank}_memory{memory}"
    CASES.append(Case(name, "SVDF",
                      [inp("float32", [2, 3]), weight(name + "f", [units * rank, 3], True),
                       weight(name + "t", [units * rank, memory], True), bias(name + "b", units),
                       var("float32", [2, memory * units * rank])],
                      [out("float32")],
                      options=("SVDFOptions", {"rank": rank, "fusedActivationFunction": 1, "asymmetricQuantizeInputs": True}),
                      version=4))
for variant, cifg, peephole, projection in (("basic", False, False, False), ("projection", False, True, True)):
    name = f"lstm_hybrid_asym_{variant}"
    n_out = 3 if projection else 4
    inputs = [inp("float32", [2, 3])] + lstm_operands(name, 3, 4, n_out, True, cifg, peephole, projection)
    inputs += [var("float32", [2, n_out]), var("float32", [2, 4])]
    CASES.append(Case(name, "LSTM", inputs, [out("float32")],
                      options=("LSTMOptions", {"fusedActivationFunction": 4, "kernelType": 0,
                                               "asymmetricQuantizeInputs": True}), version=4))
name = "bidirectional_sequence_lstm_hybrid_asym_time_major"
inputs = [inp("float32", [3, 2, 3])]
inputs += lstm_operands(name + "fw", 3, 4, 4, True) + lstm_operands(name + "bw", 3, 4, 4, True)
inputs += [var("float32", [2, 4]), var("float32", [2, 4]), var("float32", [2, 4]), var("float32", [2, 4])] + [None] * 9
CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_LSTM", inputs, [out("float32"), out("float32")],
                  options=("BidirectionalSequenceLSTMOptions", {"fusedActivationFunction": 4, "timeMajor": True,
                                                                "asymmetricQuantizeInputs": True}), version=3))

# Auxiliary inputs: with aux weights (cross-linked stacking) and without (the backward cell reads the aux input).
for kind in ("float32", "hybrid"):
    hybrid = kind == "hybrid"
    for mode in ("aux_weights", "aux_as_bw_input"):
        # The aux input is as wide as the input: LiteRT's time-major kernels step through the aux input
        # with the input's width (reading out of bounds otherwise).
        batch, time, n_in, n_aux, units = 2, 3, 3, 3, 4
        name = f"bidirectional_sequence_rnn_{kind}_{mode}"
        aux_in = n_aux if mode == "aux_weights" else n_in
        inputs = [inp("float32", [time, batch, n_in]),
                  weight(name + "fw", [units, n_in], hybrid), weight(name + "fr", [units, units], hybrid),
                  bias(name + "fb", units), var("float32", [batch, units]),
                  weight(name + "bw", [units, n_in], hybrid), weight(name + "br", [units, units], hybrid),
                  bias(name + "bb", units), var("float32", [batch, units]),
                  inp("float32", [time, batch, aux_in])]
        if mode == "aux_weights":
            inputs += [weight(name + "fa", [units, n_aux], hybrid), weight(name + "ba", [units, n_aux], hybrid)]
        else:
            inputs += [None, None]
        CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_RNN", inputs, [out("float32"), out("float32")],
                          options=("BidirectionalSequenceRNNOptions", {"timeMajor": True, "fusedActivationFunction": 4}),
                          version=2 if hybrid else 1))
        name = f"bidirectional_sequence_lstm_{kind}_{mode}"
        inputs = [inp("float32", [time, batch, n_in])]
        inputs += lstm_operands(name + "fw", n_in, units, units, hybrid) + lstm_operands(name + "bw", n_in, units, units, hybrid)
        inputs += [var("float32", [batch, units]) for _ in range(4)]
        inputs.append(inp("float32", [time, batch, aux_in]))
        if mode == "aux_weights":
            inputs += [weight(f"{name}fa{g}", [units, n_aux], hybrid) for g in "ifco"]
            inputs += [weight(f"{name}ba{g}", [units, n_aux], hybrid) for g in "ifco"]
        else:
            inputs += [None] * 8
        CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_LSTM", inputs, [out("float32"), out("float32")],
                          options=("BidirectionalSequenceLSTMOptions", {"fusedActivationFunction": 4, "timeMajor": True}),
                          version=2 if hybrid else 1))

# SVDF fully integer: int8 input / output, int8 feature weights, int16 time weights, int32 bias, int16 state.
for rank, units, memory, act in ((1, 4, 3, 1), (2, 3, 5, 1)):
    filters = units * rank
    name = f"svdf_int8_rank{rank}_memory{memory}"
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    CASES.append(Case(name, "SVDF",
                      [inp("int8", [2, 5], scale=0.03, zero_point=2),
                       const("int8", [filters, 5], rng.integers(-127, 128, [filters, 5]).tolist(), scale=0.004, zero_point=0),
                       const("int16", [filters, memory], rng.integers(-3000, 3000, [filters, memory]).tolist(),
                             scale=0.0001, zero_point=0),
                       const("int32", [units], rng.integers(-500, 500, [units]).tolist(), scale=1e-5, zero_point=0),
                       var("int16", [2, memory * filters], scale=0.002, zero_point=0)],
                      [out("int8", scale=0.02, zero_point=-3)],
                      options=("SVDFOptions", {"rank": rank, "fusedActivationFunction": act}), version=3))

# LSTM basic kernel (kernel_type BASIC): input, previous activation, weights, biases, previous state; 4 outputs.
for dtype in ("float32", "uint8"):
    q = dtype == "uint8"
    batch, n_in, cell = 2, 3, 4
    kw = {"scale": 1 / 128, "zero_point": 128} if q else {}
    name = f"lstm_basic_kernel_{dtype}"
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    w = rng.integers(0, 256, [4 * cell, n_in + cell]).tolist() if q else _w(name + "w", [4 * cell, n_in + cell]).tolist()
    b = rng.integers(-2000, 2000, [4 * cell]).tolist() if q else _w(name + "b", [4 * cell], 0.2).tolist()
    CASES.append(Case(name, "LSTM",
                      [inp(dtype, [batch, n_in], **kw), inp(dtype, [batch, cell], **kw),
                       const(dtype, [4 * cell, n_in + cell], w, **({"scale": 0.005, "zero_point": 128} if q else {})),
                       const("int32" if q else "float32", [4 * cell], b, **({"scale": 0.005 / 128, "zero_point": 0} if q else {})),
                       inp("int16" if q else "float32", [batch, cell], **({"scale": 1 / 2048, "zero_point": 0} if q else {}))],
                      [out(dtype, **kw), out("int16" if q else "float32", **({"scale": 1 / 2048, "zero_point": 0} if q else {})),
                       out(dtype, **kw), out("int16" if q else "float32", **({"scale": 1 / 2048, "zero_point": 0} if q else {}))],
                      options=("LSTMOptions", {"fusedActivationFunction": 4, "kernelType": 1}), version=2))

# Hybrid with uint8 weights (older converters): LiteRT accepts them in every hybrid kernel here.
def _as_uint8(case, name, shift):
    import copy
    c = copy.deepcopy(case)
    c.name = name
    for t in c.inputs:
        if t is not None and t.dtype == "int8":
            t.dtype = "uint8"
            t.values = ((np.array(t.values) + shift) % 256).tolist()
            t.zero_point = shift
    return c


_BY_NAME = {c.name: c for c in CASES}
for base, name in (
    ("rnn_hybrid_tanh", "rnn_hybrid_uint8_weights"),
    ("unidirectional_sequence_rnn_hybrid_tanh_batch_major", "unidirectional_sequence_rnn_hybrid_uint8_weights"),
    ("bidirectional_sequence_rnn_hybrid_batch_major", "bidirectional_sequence_rnn_hybrid_uint8_weights"),
    ("svdf_hybrid_rank1_memory3", "svdf_hybrid_uint8_weights"),
    ("lstm_hybrid_basic", "lstm_hybrid_uint8_weights"),
    ("bidirectional_sequence_lstm_hybrid_time_major", "bidirectional_sequence_lstm_hybrid_uint8_weights"),
):
    CASES.append(_as_uint8(_BY_NAME[base], name, 0))
CASES.append(_as_uint8(_BY_NAME["rnn_hybrid_tanh"], "rnn_hybrid_uint8_weights_zero_point_128", 128))

# LSTM, fully integer (8x8→16): int8 input/output and output state, int16 cell state (2^-12), int8 weights,
# int32 biases; five intermediates carry the gate scales (layer norm) and the hidden state's quantization.
for variant, cifg, projection, layer_norm in (("basic", False, False, False), ("cifg", True, False, False),
                                              ("projection", False, True, False), ("layer_norm", False, False, True)):
    name = f"lstm_int8_{variant}"
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    batch, n_in, cell = 2, 4, 6
    n_out = 3 if projection else cell
    in_scale, in_zp, st_scale, st_zp = 1 / 128, -5, 1 / 120, 3
    hidden_scale, hidden_zp = (1 / 100, -2) if projection else (st_scale, st_zp)

    def qweights(shape):
        w = rng.uniform(-0.6, 0.6, size=shape)
        s = float(np.abs(w).max()) / 127
        return const("int8", shape, np.clip(np.round(w / s), -127, 127).astype(np.int8).tolist(), scale=s, zero_point=0), s

    ops = [None] * 17
    norms = [None] * 4
    for k, gate in enumerate("ifco"):
        if gate == "i" and cifg:
            continue
        ops[k], wscale = qweights([cell, n_in])
        ops[4 + k], _ = qweights([cell, n_out])
        if layer_norm:
            coef = rng.uniform(0.5, 1.5, size=[cell])
            ln_scale = float(coef.max()) / 32767
            norms[k] = const("int16", [cell], np.round(coef / ln_scale).astype(np.int16).tolist(), scale=ln_scale, zero_point=0)
            bscale = ln_scale / 1024
        else:
            bscale = in_scale * wscale
        ops[11 + k] = const("int32", [cell], np.round(rng.uniform(-0.5, 0.5, size=[cell]) / bscale).astype(np.int32).tolist(),
                            scale=bscale, zero_point=0)
    if projection:
        ops[15], pscale = qweights([n_out, cell])
        bscale = pscale * hidden_scale
        ops[16] = const("int32", [n_out], np.round(rng.uniform(-0.2, 0.2, size=[n_out]) / bscale).astype(np.int32).tolist(),
                        scale=bscale, zero_point=0)
    inputs = [inp("int8", [batch, n_in], scale=in_scale, zero_point=in_zp)] + ops
    inputs += [var("int8", [batch, n_out], scale=st_scale, zero_point=st_zp), var("int16", [batch, cell], scale=2.0 ** -12, zero_point=0)]
    if layer_norm:
        inputs += norms
    if layer_norm:
        intermediates = [out("int16", [0], scale=0.0007 + 0.0001 * k, zero_point=0) for k in range(4)]
    else:
        intermediates = [out("float32", [0]) for _ in range(4)]
    intermediates.append(out("int8", [0], scale=hidden_scale, zero_point=hidden_zp))
    CASES.append(Case(name, "LSTM", inputs, [out("int8", scale=st_scale, zero_point=st_zp)],
                      options=("LSTMOptions", {"fusedActivationFunction": 4, "kernelType": 0,
                                               "cellClip": 3.0 if variant == "basic" else 0.0}),
                      version=4, intermediates=intermediates))
for name, rank, units, memory, batch, with_bias in (("svdf_int8_batch1_no_bias", 1, 3, 4, 1, False),
                                                    ("svdf_int8_rank3", 3, 2, 3, 3, True)):
    filters = units * rank
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    CASES.append(Case(name, "SVDF",
                      [inp("int8", [batch, 6], scale=0.05, zero_point=-1),
                       const("int8", [filters, 6], rng.integers(-127, 128, [filters, 6]).tolist(), scale=0.003, zero_point=0),
                       const("int16", [filters, memory], rng.integers(-8000, 8000, [filters, memory]).tolist(),
                             scale=0.00005, zero_point=0),
                       const("int32", [units], rng.integers(-900, 900, [units]).tolist(), scale=2e-5, zero_point=0)
                       if with_bias else None,
                       var("int16", [batch, memory * filters], scale=0.001, zero_point=0)],
                      [out("int8", scale=0.01, zero_point=5)],
                      options=("SVDFOptions", {"rank": rank, "fusedActivationFunction": 1}), version=3))

# Float weights fed at run time (not constants).
CASES.append(Case("rnn_float32_runtime_weights", "RNN",
                  [inp("float32", [2, 3]), inp("float32", [4, 3], low=-0.5, high=0.5), inp("float32", [4, 4], low=-0.5, high=0.5),
                   inp("float32", [4], low=-0.2, high=0.2), var("float32", [2, 4])],
                  [out("float32")], options=("RNNOptions", {"fusedActivationFunction": 4})))
CASES.append(Case("svdf_float32_runtime_weights", "SVDF",
                  [inp("float32", [2, 3]), inp("float32", [4, 3], low=-0.5, high=0.5), inp("float32", [4, 3], low=-0.5, high=0.5),
                   inp("float32", [4], low=-0.2, high=0.2), var("float32", [2, 12])],
                  [out("float32")], options=("SVDFOptions", {"rank": 1})))
_lstm_rt = [inp("float32", [2, 3])]
for k in range(17):
    if k < 4:
        _lstm_rt.append(inp("float32", [4, 3], low=-0.5, high=0.5))
    elif k < 8:
        _lstm_rt.append(inp("float32", [4, 4], low=-0.5, high=0.5))
    elif 11 <= k < 15:
        _lstm_rt.append(inp("float32", [4], low=-0.2, high=0.2))
    else:
        _lstm_rt.append(None)
CASES.append(Case("lstm_float32_runtime_weights", "LSTM", _lstm_rt + [var("float32", [2, 4]), var("float32", [2, 4])],
                  [out("float32")], options=("LSTMOptions", {"fusedActivationFunction": 4, "kernelType": 0})))
CASES.append(Case("unidirectional_sequence_rnn_float32_runtime_weights", "UNIDIRECTIONAL_SEQUENCE_RNN",
                  [inp("float32", [2, 3, 3]), inp("float32", [4, 3], low=-0.5, high=0.5),
                   inp("float32", [4, 4], low=-0.5, high=0.5), inp("float32", [4], low=-0.2, high=0.2), var("float32", [2, 4])],
                  [out("float32")], options=("SequenceRNNOptions", {"fusedActivationFunction": 4})))

# CIFG with peephole and clipping in the bidirectional LSTM; other cell activations.
for kind in ("float32", "hybrid"):
    hybrid = kind == "hybrid"
    batch, time, n_in, cell = 2, 3, 3, 4
    name = f"bidirectional_sequence_lstm_{kind}_cifg_peephole_clip"
    inputs = [inp("float32", [time, batch, n_in])]
    inputs += lstm_operands(name + "fw", n_in, cell, 3, hybrid, cifg=True, peephole=True, projection=True)
    inputs += lstm_operands(name + "bw", n_in, cell, 3, hybrid, cifg=True, peephole=True, projection=True)
    inputs += [var("float32", [batch, 3]), var("float32", [batch, cell]), var("float32", [batch, 3]),
               var("float32", [batch, cell])] + [None] * 9
    CASES.append(Case(name, "BIDIRECTIONAL_SEQUENCE_LSTM", inputs, [out("float32"), out("float32")],
                      options=("BidirectionalSequenceLSTMOptions",
                               {"fusedActivationFunction": 4, "cellClip": 0.5, "projClip": 0.3, "timeMajor": True}),
                      version=2 if hybrid else 1))
for act, act_name in ((1, "relu"), (3, "relu6"), (0, "none")):
    name = f"lstm_float32_activation_{act_name}"
    inputs = [inp("float32", [2, 3])] + lstm_operands(name, 3, 4, 4, False) + [var("float32", [2, 4]), var("float32", [2, 4])]
    CASES.append(Case(name, "LSTM", inputs, [out("float32")],
                      options=("LSTMOptions", {"fusedActivationFunction": act, "kernelType": 0})))
for variant, cifg in (("", False), ("_cifg", True)):
    name = f"lstm_hybrid_activation_none{variant}"
    inputs = [inp("float32", [2, 3])] + lstm_operands(name, 3, 4, 4, True, cifg=cifg) + [var("float32", [2, 4]), var("float32", [2, 4])]
    CASES.append(Case(name, "LSTM", inputs, [out("float32")],
                      options=("LSTMOptions", {"fusedActivationFunction": 0, "kernelType": 0}), version=2))
name = "lstm_float32_activation_none_cifg"
inputs = [inp("float32", [2, 3])] + lstm_operands(name, 3, 4, 4, False, cifg=True) + [var("float32", [2, 4]), var("float32", [2, 4])]
CASES.append(Case(name, "LSTM", inputs, [out("float32")], options=("LSTMOptions", {"fusedActivationFunction": 0, "kernelType": 0})))
for kind, act, act_name in (("float32", 3, "relu6"), ("float32", 2, "relu_n1_to_1"), ("hybrid", 0, "none"),
                            ("float32", 5, "sign_bit")):
    hybrid = kind == "hybrid"
    name = f"rnn_{kind}_{act_name}"
    CASES.append(Case(name, "RNN",
                      [inp("float32", [2, 3]), weight(name + "w", [4, 3], hybrid), weight(name + "r", [4, 4], hybrid),
                       bias(name + "b", 4), var("float32", [2, 4])],
                      [out("float32")], options=("RNNOptions", {"fusedActivationFunction": act}), version=2 if hybrid else 1))
    name = f"svdf_{kind}_{act_name}"
    CASES.append(Case(name, "SVDF",
                      [inp("float32", [2, 3]), weight(name + "f", [4, 3], hybrid), weight(name + "t", [4, 3], hybrid),
                       bias(name + "b", 4), var("float32", [2, 12])],
                      [out("float32")], options=("SVDFOptions", {"rank": 1, "fusedActivationFunction": act}),
                      version=2 if hybrid else 1))
