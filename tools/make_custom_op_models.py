#!/usr/bin/env python3
"""Single-operator models for MediaPipe's and TensorFlow Lite's audio custom operators, with goldens.

    .venv-tf/bin/python tools/make_custom_op_models.py            # every case, then the manifest
    .venv-tf/bin/python tools/make_custom_op_models.py --only Mfcc # cases whose name contains "Mfcc"

Operators: MaxPoolingWithArgmax2D, MaxUnpooling2D, TransformLandmarks (v1, v2), TransformTensorBilinear
(v1, v2), Landmarks2TransformMatrix (v1, v2), AudioSpectrogram, Mfcc. LiteRT's built-in resolver runs
only the audio ops, so each case's golden comes from the best reference that runs it, tried in order:

1. "litert": ai-edge-litert 2.3.0 with its built-in kernels (AudioSpectrogram, Mfcc);
2. "litert-xnnpack": LiteRT with the XNNPACK delegate, which implements some MediaPipe ops;
3. "tf.raw_ops.<Op>": TensorFlow's own op (the audio ops; needs `tensorflow`, imported lazily);
4. "mediapipe 0.10.14 wheel (MediaPipe's C++ kernels)": MediaPipe's own CPU inference runs the case
   (tools/mediapipe_wheel_parity.py --run-dir, in the Python given by --mediapipe-python, default
   .venv-mp010/bin/python); the operands become constants of the model since MediaPipe's graph can
   only feed images from Python. MediaPipe registers only version 2 of TransformLandmarks,
   TransformTensorBilinear and Landmarks2TransformMatrix for the CPU, so version 1 falls through to
5. "numpy: MediaPipe definition": a numpy transcription of the op's definition in MediaPipe's C++
   sources (tools/custom_op_references.py), float32 where MediaPipe computes in float and float64
   where it promotes to double.

XNNPACK implements MaxPoolingWithArgmax2D and MaxUnpooling2D (2×2-style windows whose stride equals
the filter, VALID padding for unpooling, no fused activation) but keeps indices as uint32 bit
patterns counted column-major in the window; its answers are translated to MediaPipe's encoding and
kept as a cross-check, not as the golden.

Every other reference that runs the case is compared with the golden and the largest difference is
kept in the manifest (`cross_checks`). Fixtures go to Tests/TFLiteRuntimeTests/Fixtures/custom_ops/.

MediaPipe's pooling ops take TFLite's C struct `TfLitePoolParams` as raw custom option bytes
(padding, stride_w, stride_h, filter_w, filter_h, activation, then four computed ints); the others
take FlexBuffer maps.

MaxPoolingWithArgmax2D's ties: MediaPipe takes the first maximum in row-major window order, XNNPACK
scans column-major, so the two differ on ties (the `max_pool_argmax_ties` cross-check shows it).
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

import flatbuffers
import numpy as np
from flatbuffers import flexbuffers

sys.path.insert(0, str(Path(__file__).resolve().parent))
import opmodel  # noqa: E402
from ai_edge_litert import schema_py_generated as schema  # noqa: E402
from litert_common import make_interpreter, run  # noqa: E402
from custom_op_references import (  # noqa: E402
    np_landmarks_to_matrix_v1,
    np_landmarks_to_matrix_v2,
    np_max_pool_argmax,
    np_max_unpool,
    np_transform_landmarks,
    np_transform_tensor,
    tf_mfcc,
    tf_spectrogram,
)
from opmodel import Case, const, inp, out  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests/TFLiteRuntimeTests/Fixtures/custom_ops"
F32 = np.float32

# ---------------------------------------------------------------------------------------------
# Options


def pool_options(padding: str, stride: tuple[int, int], filter_: tuple[int, int], activation: int = 0) -> bytes:
    """TfLitePoolParams as MediaPipe stores it: padding (1 SAME, 2 VALID), stride w/h, filter w/h, activation."""
    code = {"SAME": 1, "VALID": 2, "UNKNOWN": 0}[padding]
    return struct.pack("<10i", code, stride[1], stride[0], filter_[1], filter_[0], activation, 0, 0, 0, 0)


def flex(values: dict) -> bytes:
    """A FlexBuffer map; int lists become typed vectors, as MediaPipe's converter writes them."""
    b = flexbuffers.Builder()
    with b.Map():
        for key, value in values.items():
            if isinstance(value, bool):
                b.Bool(key, value)
            elif isinstance(value, int):
                b.Int(key, value)
            elif isinstance(value, float):
                b.Float(key, value)
            elif isinstance(value, str):
                b.String(key, value)
            elif isinstance(value, list):
                b.Key(key)
                b.TypedVectorFromElements(value, element_type=flexbuffers.Type.INT)
            else:
                raise TypeError(key)
    return bytes(b.Finish())


# ---------------------------------------------------------------------------------------------
# Cases

CASES: list[tuple[Case, Callable | None, Callable | None]] = []  # (case, numpy reference, tf reference)


def add(case: Case, numpy_ref: Callable | None = None, tf_ref: Callable | None = None) -> None:
    CASES.append((case, numpy_ref, tf_ref))


def _pool_cases() -> None:
    configs = [
        ("2x2_s2_valid", [1, 4, 6, 3], "VALID", (2, 2), (2, 2), 0),
        ("2x2_s2_same_odd", [1, 5, 7, 2], "SAME", (2, 2), (2, 2), 0),
        ("3x3_s2_same", [2, 7, 6, 4], "SAME", (2, 2), (3, 3), 0),
        ("3x3_s1_valid", [1, 5, 5, 2], "VALID", (1, 1), (3, 3), 0),
        ("3x2_s2x1_same", [1, 6, 5, 3], "SAME", (2, 1), (3, 2), 0),
        ("2x2_s2_relu", [1, 4, 4, 5], "VALID", (2, 2), (2, 2), 1),
        ("2x2_s2_relu6", [1, 6, 4, 2], "SAME", (2, 2), (2, 2), 3),
        ("2x2_s2_relu1", [1, 4, 4, 2], "VALID", (2, 2), (2, 2), 2),
        ("2x2_s2_large", [1, 32, 32, 16], "SAME", (2, 2), (2, 2), 0),
        ("2x2_s3_gaps", [1, 8, 7, 2], "SAME", (3, 3), (2, 2), 0),
        ("1x1_s1", [1, 3, 3, 2], "VALID", (1, 1), (1, 1), 0),
    ]
    for name, shape, padding, stride, filt, act in configs:
        opts = pool_options(padding, stride, filt, act)
        spec = inp("float32", shape, low=-8 if act else -3, high=8 if act else 3)
        add(Case(f"max_pool_argmax_{name}", "CUSTOM:MaxPoolingWithArgmax2D", [spec],
                 [out("float32"), out("float32")], custom_options=opts),
            lambda x, o=opts: np_max_pool_argmax(o, x))
    # ties: many equal values, the first maximum in scan order wins
    opts = pool_options("VALID", (2, 2), (2, 2))
    add(Case("max_pool_argmax_ties", "CUSTOM:MaxPoolingWithArgmax2D",
             [inp("float32", [1, 4, 4, 2], values=[float(v % 3 == 0) for v in range(32)])],
             [out("float32"), out("float32")], custom_options=opts),
        lambda x, o=opts: np_max_pool_argmax(o, x))

    # NaN never wins and -inf never beats the -FLT_MAX start: an all -inf/NaN window reports -FLT_MAX at 0
    special = [float("-inf"), float("nan"), float("-inf"), float("-inf")] * 4 + [float("nan"), -2.0, float("inf"), 1.0] * 4
    add(Case("max_pool_argmax_inf_nan", "CUSTOM:MaxPoolingWithArgmax2D", [inp("float32", [1, 4, 4, 2], values=special)],
             [out("float32"), out("float32")], custom_options=opts),
        lambda x, o=opts: np_max_pool_argmax(o, x))

    unpool_configs = [
        ("2x2_s2", [1, 3, 4, 3], "VALID", (2, 2), (2, 2)),
        ("2x2_s2_same", [2, 2, 3, 2], "SAME", (2, 2), (2, 2)),
        ("3x3_s3", [1, 2, 3, 2], "VALID", (3, 3), (3, 3)),
        ("2x3_s2x3", [1, 3, 2, 4], "VALID", (2, 3), (2, 3)),
        ("2x2_s1_overlap", [1, 3, 3, 2], "VALID", (1, 1), (2, 2)),
        ("2x2_s2_large", [1, 16, 16, 8], "VALID", (2, 2), (2, 2)),
    ]
    for name, shape, padding, stride, filt in unpool_configs:
        opts = pool_options(padding, stride, filt)
        count = int(np.prod(shape))
        rng = np.random.default_rng(count + filt[0] * 7 + stride[0])
        indices = (rng.integers(0, filt[0] * filt[1], size=count) + 0.1).astype(F32).tolist()
        add(Case(f"max_unpool_{name}", "CUSTOM:MaxUnpooling2D",
                 [inp("float32", shape), inp("float32", shape, values=indices)], [out("float32")], custom_options=opts),
            lambda x, i, o=opts: np_max_unpool(o, x, i))


def _matrix(seed: int, scale: float = 1.0, offset: tuple[float, float] = (0.0, 0.0)) -> list[float]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=(2, 2)) * scale
    m = np.eye(4)
    m[0:2, 0:2] = a
    m[0, 3], m[1, 3] = offset
    m[0, 2], m[1, 2] = rng.uniform(-1, 1, size=2)  # the z column is ignored by both ops
    return m.reshape(-1).astype(F32).tolist()


def _landmark_cases() -> None:
    for name, shape, dims, scale in [("dims3", [1, 1, 1, 12], 3, 1.0), ("dims2_scale", [1, 2, 3, 8], 2, 0.5),
                                     ("dims3_wide", [1, 1, 5, 6], 3, 2.0),
                                     ("dims3_default_scale", [1, 1, 4, 3], 3, None),
                                     ("no_options", [1, 1, 2, 9], None, None)]:
        o = {} if dims is None else {"dimensions": dims} if scale is None else {"dimensions": dims, "scale": scale}
        add(Case(f"transform_landmarks_v1_{name}", "CUSTOM:TransformLandmarks",
                 [inp("float32", shape, low=-50, high=50),
                  inp("float32", [1, 4, 4], values=_matrix(len(shape) + (dims or 0), 3.0, (4.0, -2.5)))],
                 [out("float32")], custom_options=flex(o), version=1),
            lambda lm, m, o={"scale": 1.0, **o}: np_transform_landmarks(1, o, lm, m))
    for name, shape in [("xyz", [1, 7, 3]), ("xy", [1, 5, 2]), ("xyz_one", [1, 1, 3])]:
        add(Case(f"transform_landmarks_v2_{name}", "CUSTOM:TransformLandmarks",
                 [inp("float32", shape, low=-1, high=2),
                  inp("float32", [1, 4, 4], values=_matrix(shape[1], 100.0, (128, 96)))],
                 [out("float32")], custom_options=flex({}), version=2),
            lambda lm, m: np_transform_landmarks(2, {}, lm, m))

    for version in (1, 2):
        for name, shape, size, mat in [
            ("identity", [1, 6, 5, 3], (6, 5), np.eye(4).reshape(-1).tolist()),
            ("zoom", [1, 8, 8, 2], (5, 7), _matrix(5, 1.5, (1.2, 0.7))),
            ("rotate_oob", [1, 10, 9, 4], (8, 8), _matrix(9, 1.2, (3.0, -1.0))),
            ("single_channel", [1, 12, 12, 1], (6, 9), _matrix(11, 2.0, (0.3, 0.2))),
        ]:
            o = {"mode": "bilinear", "output_size": list(size)} if version == 1 else \
                {"output_height": size[0], "output_width": size[1]}
            add(Case(f"transform_tensor_bilinear_v{version}_{name}", "CUSTOM:TransformTensorBilinear",
                     [inp("float32", shape), inp("float32", [1, 4, 4], values=[float(v) for v in mat])],
                     [out("float32")], custom_options=flex(o), version=version),
                lambda x, m, v=version, s=size: np_transform_tensor(v, s, x, m))

    v1_options = [
        ("face", 6, {"dimensions": 3, "landmarks_range": 192, "bbox_size_multiplier": 1.5, "left_rotation_idx": 1,
                     "right_rotation_idx": 4, "input_hw": [256, 256], "output_hw": [192, 192],
                     "subset": [0, 1, 2, 3, 4, 5]}),
        ("odd_subset", 8, {"dimensions": 3, "landmarks_range": 256, "bbox_size_multiplier": 2.0, "left_rotation_idx": 6,
                           "right_rotation_idx": 2, "input_hw": [480, 640], "output_hw": [128, 96],
                           "subset": [7, 3, 5]}),
    ]
    for name, count, o in v1_options:
        add(Case(f"landmarks2transform_matrix_v1_{name}", "CUSTOM:Landmarks2TransformMatrix",
                 [inp("float32", [1, 1, 1, count * 3], low=0, high=o["landmarks_range"])], [out("float32")],
                 custom_options=flex(o), version=1),
            lambda lm, o=o: np_landmarks_to_matrix_v1(o, lm))
    v2_options = [
        ("pose", 10, {"subset_idxs": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "left_rotation_idx": 2, "right_rotation_idx": 5,
                      "target_rotation_radians": 0.0, "output_height": 256, "output_width": 256,
                      "scale_x": 1.5, "scale_y": 1.5}),
        ("odd_target", 6, {"subset_idxs": [5, 0, 3], "left_rotation_idx": 0, "right_rotation_idx": 4,
                           "target_rotation_radians": 1.5707963, "output_height": 160, "output_width": 128,
                           "scale_x": 1.2, "scale_y": 2.0}),
    ]
    for name, count, o in v2_options:
        add(Case(f"landmarks2transform_matrix_v2_{name}", "CUSTOM:Landmarks2TransformMatrix",
                 [inp("float32", [1, count, 3], low=0, high=256)], [out("float32")], custom_options=flex(o), version=2),
            lambda lm, o=o: np_landmarks_to_matrix_v2(o, lm))


def _audio_cases() -> None:
    for name, samples, channels, window, stride, squared in [
        ("w32_s16", 200, 1, 32, 16, False),
        ("w30_s10_squared", 160, 2, 30, 10, True),
        ("w64_s64_stereo", 300, 2, 64, 64, False),
        ("w25_s40_gap", 150, 1, 25, 40, True),
        ("w480_s160_speech", 1600, 1, 480, 160, False),
        ("too_short", 20, 1, 32, 16, False),
        ("w2_s1_minimal", 9, 1, 2, 1, False),
        ("w1024_s512", 3000, 1, 1024, 512, True),
    ]:
        o = {"window_size": window, "stride": stride, "magnitude_squared": squared}
        add(Case(f"audio_spectrogram_{name}", "CUSTOM:AudioSpectrogram",
                 [inp("float32", [samples, channels], low=-1, high=1)],
                 [out("float32")], custom_options=flex(o)),
            None, lambda x, o=o: tf_spectrogram(o, x))
    for name, shape, rate, o in [
        ("speech", [1, 49, 257], 16000, {"upper_frequency_limit": 4000.0, "lower_frequency_limit": 20.0,
                                         "filterbank_channel_count": 40, "dct_coefficient_count": 13}),
        ("stereo_small", [2, 3, 65], 8000, {"upper_frequency_limit": 3800.0, "lower_frequency_limit": 100.0,
                                            "filterbank_channel_count": 20, "dct_coefficient_count": 20}),
        ("int_options", [1, 4, 129], 22050, {"upper_frequency_limit": 8000, "lower_frequency_limit": 0,
                                             "filterbank_channel_count": 26, "dct_coefficient_count": 12}),
        ("fractional_limits", [1, 2, 129], 16000, {"upper_frequency_limit": 5000.75, "lower_frequency_limit": 60.5,
                                                   "filterbank_channel_count": 32, "dct_coefficient_count": 10}),
        ("too_many_channels", [1, 3, 17], 16000, {"upper_frequency_limit": 4000.0, "lower_frequency_limit": 20.0,
                                                  "filterbank_channel_count": 40, "dct_coefficient_count": 13}),
        ("upper_above_nyquist", [1, 2, 33], 8000, {"upper_frequency_limit": 6000.0, "lower_frequency_limit": 20.0,
                                                   "filterbank_channel_count": 10, "dct_coefficient_count": 5}),
    ]:
        add(Case(f"mfcc_{name}", "CUSTOM:Mfcc", [inp("float32", shape, low=0, high=40), const("int32", [], rate)],
                 [out("float32")], custom_options=flex(o)),
            None, lambda s, _rate, o=o, r=rate: tf_mfcc(o, s, r))
    # the sample rate as a run-time input
    o = {"upper_frequency_limit": 4000.0, "lower_frequency_limit": 20.0, "filterbank_channel_count": 40,
         "dct_coefficient_count": 13}
    add(Case("mfcc_rate_input", "CUSTOM:Mfcc",
             [inp("float32", [1, 5, 257], low=0, high=10), inp("int32", [1], values=[16000])],
             [out("float32")], custom_options=flex(o)),
        None, lambda s, r, o=o: tf_mfcc(o, s, int(r.reshape(-1)[0])))


_pool_cases()
_landmark_cases()
_audio_cases()


# ---------------------------------------------------------------------------------------------
# Running


def _litert(case: Case, xnnpack: bool, shapes: list[list[int]] | None,
            inputs: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """LiteRT's outputs; `shapes` (the numpy reference's) are declared first, as XNNPACK needs static shapes."""
    inputs = case.input_arrays() if inputs is None else inputs
    outputs = run(make_interpreter(opmodel.build(case, shapes), xnnpack=xnnpack), inputs)
    final = opmodel.build(case, [list(o.shape) for o in outputs])
    again = run(make_interpreter(final, xnnpack=xnnpack), inputs)
    for a, b in zip(outputs, again):
        if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
            raise RuntimeError("different outputs on a second run")
    return again


def _const_values(case: Case) -> list[np.ndarray]:
    """All operand values in operand order (run-time inputs and constants), as the references take them."""
    rng = case.rng()
    runtime = iter(case.input_arrays())
    values = []
    for spec in case.inputs:
        values.append(spec.array(rng) if spec.const else next(runtime))
    return values


def _answer(answer: list[np.ndarray] | str) -> list[np.ndarray]:
    if isinstance(answer, str):
        raise RuntimeError(answer)
    return answer


def _diff(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    worst = 0.0
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return float("inf")
        if x.size:
            worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))))
    return worst


def _xnnpack_pooling(case: Case, shapes: list[list[int]] | None) -> list[np.ndarray]:
    """XNNPACK's pooling ops, translated to MediaPipe's index encoding.

    XNNPACK keeps argmax indices as uint32 bit patterns in the float tensor, counted column-major in
    the window (x * filter_h + y); MediaPipe's CPU kernels store y * filter_w + x + 0.1 as a float.
    Translating both ways lets XNNPACK check the same cases MediaPipe's definition answers.
    """
    _, _, _, fw, fh, _ = struct.unpack("<6i", bytes(case.custom_options[:24]))
    if case.op.endswith("MaxPoolingWithArgmax2D"):
        values, indices = _litert(case, True, shapes)
        k = indices.view(np.uint32).astype(np.int64)
        return [values, ((k % fh) * fw + k // fh).astype(F32) + F32(0.1)]
    x, idx = case.input_arrays()
    k = idx.astype(np.int64)
    xnn = ((k % fw) * fh + k // fw).astype(np.uint32).view(F32)
    return _litert(case, True, shapes, [x, xnn])


def _const_model(case: Case, shapes: list[list[int]]) -> bytes:
    """The case's model with every operand a constant and one unused `[1, 1, 1, 3]` float graph input.

    MediaPipe's CalculatorGraph can only feed image tensors from Python, so the operands travel in
    the model instead; TFLite still runs the operator (it does not fold constants).
    """
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(opmodel.build(case, shapes), 0))
    graph = model.subgraphs[0]
    for index, values in zip(graph.inputs, case.input_arrays()):
        buffer = schema.BufferT()
        buffer.data = np.frombuffer(np.ascontiguousarray(values).tobytes(), dtype=np.uint8).tolist() or None
        model.buffers.append(buffer)
        graph.tensors[index].buffer = len(model.buffers) - 1
    dummy = schema.TensorT()
    dummy.name, dummy.type, dummy.shape, dummy.buffer = "image", schema.TensorType.FLOAT32, [1, 1, 1, 3], 0
    graph.tensors.append(dummy)
    graph.inputs = [len(graph.tensors) - 1]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


MEDIAPIPE = "mediapipe 0.10.14 wheel (MediaPipe's C++ kernels)"


def mediapipe_goldens(cases: list[tuple[Case, Callable | None, Callable | None]],
                      python: Path | None) -> dict[str, list[np.ndarray] | str]:
    """Each MediaPipe case's outputs from MediaPipe's own kernels (via tools/mediapipe_wheel_parity.py
    run by `python`, a venv with the mediapipe 0.10 wheel), or why not."""
    chosen = [(c, n) for c, n, _ in cases if n is not None]
    if not chosen:
        return {}
    if python is None or not python.exists():
        return {c.name: "no Python with the mediapipe wheel (--mediapipe-python)" for c, _ in chosen}
    answers: dict[str, list[np.ndarray] | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case, numpy_ref in chosen:
            shapes = [list(a.shape) for a in numpy_ref(*_const_values(case))]
            (Path(tmp) / case.name).mkdir()
            (Path(tmp) / case.name / "model.tflite").write_bytes(_const_model(case, shapes))
        tool = Path(__file__).resolve().parent / "mediapipe_wheel_parity.py"
        subprocess.run([str(python), str(tool), "--run-dir", tmp], check=True, capture_output=True)
        for case, _ in chosen:
            folder = Path(tmp) / case.name
            if (folder / "error.txt").exists():
                answers[case.name] = (folder / "error.txt").read_text()
                continue
            answers[case.name] = [np.load(folder / f"output_{i}.npy") for i in range(len(case.outputs))]
    return answers


def make_case(case: Case, numpy_ref: Callable | None, tf_ref: Callable | None,
              mediapipe: list[np.ndarray] | str | None) -> dict:
    entry: dict = {"name": case.name, "op": case.op, "version": case.version,
                   "inputs": [t.dtype for t in case.inputs], "outputs": [t.dtype for t in case.outputs]}
    found: dict[str, list[np.ndarray]] = {}
    refused: dict[str, str] = {}
    shapes = None
    if numpy_ref:
        try:
            shapes = [list(a.shape) for a in numpy_ref(*_const_values(case))]
        except Exception:  # the reference is tried again below, where its failure is recorded
            pass
    for source, compute in [
        ("litert", lambda: _litert(case, False, shapes)),
        ("litert-xnnpack", lambda: _litert(case, True, shapes)) if "Max" not in case.op else
        ("litert-xnnpack (indices translated to XNNPACK's encoding)", lambda: _xnnpack_pooling(case, shapes)),
        (f"tf.raw_ops.{case.op.split(':')[1]}", (lambda: tf_ref(*_const_values(case))) if tf_ref else None),
        (MEDIAPIPE, (lambda: _answer(mediapipe)) if mediapipe is not None else None),
        ("numpy: MediaPipe definition", (lambda: numpy_ref(*_const_values(case))) if numpy_ref else None),
    ]:
        if compute is None:
            continue
        try:
            found[source] = [np.asarray(a, dtype=F32) for a in compute()]
        except Exception as error:  # a reference that cannot run the case is recorded, not fatal
            refused[source] = " | ".join(str(error).splitlines()[:1])[:200]
    if not found:
        entry["golden"] = "none: " + "; ".join(f"{k}: {v}" for k, v in refused.items())
        return entry
    # XNNPACK's pooling ops only agree with MediaPipe's after translating their index encoding, so
    # MediaPipe's own definition is the golden there and XNNPACK the cross-check.
    order = sorted(found, key=lambda k: k.startswith("litert-xnnpack (indices"))
    source, golden = order[0], found[order[0]]
    entry["golden"] = source
    entry["cross_checks"] = {k: _diff(v, golden) for k, v in found.items() if k != source}
    if refused:
        entry["refused_by"] = refused
    entry["tolerance"] = case.tolerance
    inputs = case.input_arrays()
    entry["run_inputs"] = len(inputs)
    folder = OUT / case.name
    folder.mkdir(parents=True)
    (folder / "model.tflite").write_bytes(opmodel.build(case, [list(g.shape) for g in golden]))
    for i, array in enumerate(inputs):
        np.save(folder / f"input_{i}.npy", array)
    for i, array in enumerate(golden):
        np.save(folder / f"output_{i}.npy", array)
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="only cases whose name or operator contains this")
    parser.add_argument("--mediapipe-python", type=Path, default=ROOT / ".venv-mp010/bin/python",
                        help="a Python with the mediapipe 0.10 wheel (see tools/mediapipe_wheel_parity.py)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUT / "manifest.json"
    previous = json.loads(manifest_path.read_text())["cases"] if manifest_path.exists() else []
    chosen = [(c, n, t) for c, n, t in CASES if not args.only or args.only in c.name or args.only in c.op]
    names = {c.name for c, _, _ in chosen}
    known = {c.name for c, _, _ in CASES}
    entries = {e["name"]: e for e in previous if e["name"] not in names and e["name"] in known}
    mediapipe = mediapipe_goldens(chosen, args.mediapipe_python)
    for case, numpy_ref, tf_ref in chosen:
        shutil.rmtree(OUT / case.name, ignore_errors=True)
        entry = make_case(case, numpy_ref, tf_ref, mediapipe.get(case.name))
        entries[case.name] = entry
        checks = ", ".join(f"{k} differs by {v:.3g}" for k, v in entry.get("cross_checks", {}).items())
        print(f"  {case.name}: {entry['golden']}" + (f" ({checks})" if checks else ""))
    ordered = sorted(entries.values(), key=lambda e: (e["op"], e["name"]))
    manifest = {
        "about": "Custom-operator cases made by tools/make_custom_op_models.py. 'golden' names the reference the "
        "expected outputs come from (first that runs: LiteRT 2.3 built-in kernels, LiteRT+XNNPACK, TensorFlow's "
        "raw op, MediaPipe 0.10.14's own kernels, numpy transcription of MediaPipe's definition); "
        "'cross_checks' gives the largest difference of every other reference that runs the case.",
        "cases": ordered,
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{sum(1 for e in ordered if 'tolerance' in e)} of {len(ordered)} cases have a golden")


if __name__ == "__main__":
    main()
