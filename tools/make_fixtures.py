#!/usr/bin/env python3
"""Builds the golden op fixtures for TFLiteRuntimeTests with TensorFlow's own converter.

    python3 tools/make_fixtures.py [--out Tests/TFLiteRuntimeTests/Fixtures/ops]

Needs tools/requirements-fixtures.txt (TensorFlow 2.21 + ai-edge-litert 2.3). Each case (defined in
tools/fixture_cases.py) is a small graph (a tf.function with constant weights, or a Keras model) converted with
tf.lite.TFLiteConverter. For each case the script writes <out>/<case>/:

    model.tflite                 the converted model
    input_0.npy, input_1.npy...  seeded random inputs, in the model's input order, already in the
                                 model's input shapes (no fixture needs an input resize)
    output_0.npy, ...            the outputs of LiteRT 2.3 (builtin kernels, no XNNPACK, 1 thread)

and <out>/manifest.json:

    {"cases": [{"name", "description", "ops", "fused_activations", "inputs", "outputs",
                "input_dtypes", "output_dtypes", "tolerance"}],
     "required": [...], "uncovered": [...]}

"ops" lists the builtin operators actually present in the converted model (read back from the
flatbuffer, not assumed); "fused_activations" lists entries such as "CONV_2D+RELU6" for operators
whose fused_activation_function is set. "required" is the op list this suite must cover, plus a
few fused-activation entries; "uncovered" is whatever of it no case contains, and should be empty;
"outside_required" lists ops some case contains beyond that list (also best kept empty).

"tolerance" means: max|ours - expected| <= tolerance * max(1, max|expected|) per output. Integer
and bool outputs must match exactly.

Quantized cases (tools/fixture_cases_quantized.py, named q_<scheme>_<graph>) add "quantized": true
and "dtype" {"scheme", "io", "tensor_types"}; those with integer outputs have tolerance 0.

The script is deterministic (per-case seeds derived from the case name, so adding a case does not
change the others) and idempotent: it rewrites every case directory and removes case directories
that are no longer listed. Each model is converted twice and must come out byte-identical.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import zlib
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_cases import CASES as FLOAT_CASES, REQUIRED_FUSED, REQUIRED_OPS, Case, Weights  # noqa: E402
from fixture_cases_quantized import QUANTIZED_CASES, REQUIRED_QUANTIZED_OPS  # noqa: E402
from litert_common import make_interpreter, run  # noqa: E402
from tflite_ops import list_operators  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "Tests" / "TFLiteRuntimeTests" / "Fixtures" / "ops"

# Float cases first, then the quantized ones (tools/fixture_cases_quantized.py).
CASES: list[Case] = FLOAT_CASES + QUANTIZED_CASES



def seed_for(name: str, stream: str) -> int:
    """A stable seed per case and purpose, so weights and inputs come from unrelated streams."""
    return zlib.crc32(f"{stream}/{name}".encode())


def convert(c: Case) -> bytes:
    """Converts one case to a .tflite flatbuffer, with all Python/NumPy/TF/Keras seeds fixed."""
    import keras
    import tensorflow as tf

    seed = seed_for(c.name, "weights")
    keras.backend.clear_session()  # resets Keras' name counters, which end up in tensor names
    keras.utils.set_random_seed(seed % 2**31)
    if c.keras:
        model = c.build(Weights(seed))
        # Keras applications build with a dynamic batch; pin it so the fixture needs no resize.
        if model.inputs[0].shape[0] is None:
            model = _with_batch_one(model, c)
        converter = tf.lite.TFLiteConverter.from_keras_model(model)
    else:
        specs = [tf.TensorSpec(i.shape, i.dtype, name=i.name or f"input_{k}") for k, i in enumerate(c.inputs)]
        function = tf.function(c.build(Weights(seed)), input_signature=specs, autograph=False)
        converter = tf.lite.TFLiteConverter.from_concrete_functions([function.get_concrete_function()], function)
    if c.fp16:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    if hasattr(c, "configure"):  # quantized cases set optimizations, representative data, I/O types
        c.configure(converter)
    with contextlib.redirect_stdout(io.StringIO()):  # Keras prints a summary of every export
        return converter.convert()


def _with_batch_one(model, c: Case):
    import keras

    x = keras.Input(c.inputs[0].data_shape[1:], batch_size=1)
    return keras.Model(x, model(x))


def make_case(c: Case, directory: Path) -> dict:
    """Converts, runs in LiteRT and writes one case; returns its manifest entry."""
    tflite = convert(c)
    if convert(c) != tflite:
        raise RuntimeError(f"{c.name}: the converter is not deterministic for this case")

    interpreter = make_interpreter(tflite)
    details = interpreter.get_input_details()
    if len(details) != len(c.inputs):
        raise RuntimeError(f"{c.name}: model has {len(details)} inputs, case declares {len(c.inputs)}")
    rng = np.random.default_rng(seed_for(c.name, "inputs"))
    inputs = []
    for k, (spec, detail) in enumerate(zip(c.inputs, details)):
        array = c.draw_input(spec, detail["dtype"], rng) if hasattr(c, "draw_input") else spec.draw(rng)
        if tuple(detail["shape"]) != array.shape or np.dtype(detail["dtype"]) != array.dtype:
            raise RuntimeError(
                f"{c.name}: input {k} ({detail['name']}) is {np.dtype(detail['dtype']).name}"
                f"{list(detail['shape'])} in the model, but the case draws {array.dtype.name}{list(array.shape)}"
            )
        inputs.append(array)
    outputs = run(interpreter, inputs)
    for k, array in enumerate(outputs):
        if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
            raise RuntimeError(f"{c.name}: output {k} has non-finite values; fix the input ranges")

    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / "model.tflite").write_bytes(tflite)
    for k, array in enumerate(inputs):
        np.save(directory / f"input_{k}.npy", array)
    for k, array in enumerate(outputs):
        np.save(directory / f"output_{k}.npy", np.ascontiguousarray(array))

    ops, fused = list_operators(tflite)
    entry = {
        "name": c.name,
        "description": c.description,
        "ops": sorted(set(ops)),
        "fused_activations": sorted(set(fused)),
        "inputs": len(inputs),
        "outputs": len(outputs),
        "input_dtypes": [a.dtype.name for a in inputs],
        "output_dtypes": [a.dtype.name for a in outputs],
        "tolerance": c.tolerance,
    }
    if hasattr(c, "manifest_extra"):  # quantized cases: "quantized": true and their "dtype"
        entry.update(c.manifest_extra(tflite))
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the golden op fixtures (small .tflite models + LiteRT outputs) for the Swift tests.",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output directory (default: {DEFAULT_OUT.relative_to(REPO)})")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--only", nargs="+", metavar="CASE",
                        help="convert just these cases into a scratch --out (no manifest, no cleanup)")
    args = parser.parse_args(argv)

    if args.list:
        for c in CASES:
            print(f"{c.name:24} {c.description}")
        return 0

    if args.only:
        for c in CASES:
            if c.name in args.only:
                entry = make_case(c, args.out / c.name)
                print(f"{c.name:24} {' '.join(entry['ops'])} {entry.get('dtype', '')}", flush=True)
        return 0

    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    # Idempotence: drop case directories from earlier runs whose case no longer exists.
    for stale in sorted(out.iterdir()):
        if stale.is_dir() and stale.name not in names and (stale / "model.tflite").exists():
            shutil.rmtree(stale)

    entries = []
    for c in CASES:
        entry = make_case(c, out / c.name)
        fused = f" fused: {', '.join(entry['fused_activations'])}" if entry["fused_activations"] else ""
        print(f"{c.name:24} {' '.join(entry['ops'])}{fused}", flush=True)
        entries.append(entry)

    present = {op for e in entries for op in e["ops"]} | {f for e in entries for f in e["fused_activations"]}
    required = REQUIRED_OPS + REQUIRED_QUANTIZED_OPS + REQUIRED_FUSED
    uncovered = [op for op in required if op not in present]
    # Helper ops the converter adds (e.g. GREATER/SELECT from tf.where) would make a case fail for
    # reasons outside the list, so they are reported.
    outside = sorted({op for e in entries for op in e["ops"]} - set(REQUIRED_OPS + REQUIRED_QUANTIZED_OPS))
    manifest = {
        "generator": "tools/make_fixtures.py",
        "reference": "ai-edge-litert 2.3.0, BUILTIN_WITHOUT_DEFAULT_DELEGATES, 1 thread",
        "tolerance_rule": "max|ours - expected| <= tolerance * max(1, max|expected|); integers and bools exact",
        "cases": entries,
        "required": required,
        "uncovered": uncovered,
        "outside_required": outside,
    }
    with tempfile.NamedTemporaryFile("w", dir=out, delete=False, suffix=".tmp") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.replace(f.name, out / "manifest.json")

    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"{len(entries)} cases, {size / 1e6:.2f} MB in {out}; uncovered: {uncovered or 'none'}; "
          f"ops outside the required list: {outside or 'none'}")
    return 0 if not uncovered else 1


if __name__ == "__main__":
    sys.exit(main())
