#!/usr/bin/env python3
"""Single-operator models for every operator and type, with LiteRT's answers as goldens.

    .venv/bin/python tools/make_op_models.py                 # all case files, then the manifest
    .venv/bin/python tools/make_op_models.py --only compare  # case files whose name contains "compare"
    .venv/bin/python tools/make_op_models.py --probe         # also re-probe LiteRT's builtin versions

Cases live in `tools/op_cases/*.py` (each a `CASES` list of `opmodel.Case`). For each case the model
is built straight from the FlatBuffer schema, run once in LiteRT 2.3 with its built-in kernels
(`BUILTIN_WITHOUT_DEFAULT_DELEGATES`, one thread), rebuilt with the output shapes LiteRT computed,
and run again. A case LiteRT runs is written to `Tests/TFLiteRuntimeTests/Fixtures/single_ops/<case>/`
(`model.tflite`, `input_<i>.npy`, `output_<i>.npy`); a case LiteRT refuses is kept in the manifest
with LiteRT's message and no files. The cases LiteRT runs are the denominator: `swift test`
(`SingleOperatorTests`) runs every one of them.

`--probe` builds a one-operator model for every builtin of the schema at versions 1 to 20 and
records which versions LiteRT's resolver accepts (`litert_builtins.json`): the operators and versions
LiteRT runs, which `docs/OPERATORS.md` sets beside ours. Regenerating is deterministic.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import opmodel  # noqa: E402
from litert_common import make_interpreter, run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests/TFLiteRuntimeTests/Fixtures/single_ops"
CASES = Path(__file__).resolve().parent / "op_cases"
NOT_OPERATORS = {"CUSTOM", "DELEGATE", "PLACEHOLDER_FOR_GREATER_OP_CODES"}


def load_cases(only: str | None) -> list[opmodel.Case]:
    cases: list[opmodel.Case] = []
    for path in sorted(CASES.glob("*.py")):
        if path.name.startswith("_") or (only and only not in path.stem):
            continue
        spec = importlib.util.spec_from_file_location(f"op_cases.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        assert spec.loader is not None
        spec.loader.exec_module(module)
        for case in module.CASES:
            case.extra.setdefault("file", path.name)
            cases.append(case)
    names = [c.name for c in cases]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SystemExit(f"duplicate case names: {duplicates}")
    return cases


def probe_versions() -> dict[str, list[int]]:
    """Builtin name -> the versions LiteRT's built-in resolver registers for it."""
    found: dict[str, list[int]] = {}
    for name, _ in sorted(opmodel.BUILTINS.items(), key=lambda kv: kv[1]):
        if name in NOT_OPERATORS:
            continue
        versions = []
        for version in range(1, 21):
            case = opmodel.Case("probe", name, [opmodel.inp("float32", [1])], [opmodel.out("float32", [1])],
                                version=version)
            try:
                make_interpreter(opmodel.build(case))
            except Exception as error:  # LiteRT raises ValueError/RuntimeError; only "not found" means absent
                if "find op" in str(error):
                    continue
            versions.append(version)
        if versions:
            found[name] = versions
    return found


def run_case(case: opmodel.Case) -> tuple[bytes, list[np.ndarray], list[np.ndarray]]:
    """Runs the case in LiteRT; returns the final model bytes, inputs and outputs (raises if refused)."""
    inputs = case.input_arrays()
    first = opmodel.build(case)
    outputs = run(make_interpreter(first), inputs)
    final = opmodel.build(case, [list(o.shape) for o in outputs])
    # LiteRT computes some outputs once, in Prepare, from what is known then (every input constant,
    # or only the input's shape): poisoning those would clobber the answer, so they get a plain rerun.
    known_at_prepare = all(t is None or t.const for t in case.inputs) or case.op in ("RANK", "SHAPE")
    again = (run if known_at_prepare else run_poisoned)(make_interpreter(final), inputs)
    for a, b in zip(outputs, again):
        if a.shape != b.shape or not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
            raise RuntimeError("LiteRT gave different outputs on a second run (uninitialised output: it does not compute this type)")
    return final, inputs, again


def type_label(case: opmodel.Case) -> str:
    """What `mlkit ops` calls the case's type: its inputs' distinct types in order, leaving out int32
    and int64 operands (indices, shapes, biases) beside other types ("float32/int8": float
    activations with int8 weights); conversions add "->" and the output type."""
    types: list[str] = []
    for t in case.inputs:
        if t is not None and t.dtype not in types:
            types.append(t.dtype)
    if not types:
        types = [case.outputs[0].dtype] if case.outputs else ["none"]
    kept = [t for t in types if t not in ("int32", "int64")] or types[:1]
    label = "/".join(kept)
    if case.op in ("CAST", "QUANTIZE", "DEQUANTIZE", "BITCAST") and case.outputs:
        label += "->" + case.outputs[0].dtype
    return label


def run_poisoned(interpreter, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Like `litert_common.run`, but first fills every output with a byte pattern: a kernel that
    leaves an output unwritten (a type LiteRT does not compute) then gives a different answer from
    the first run, and the case is refused instead of keeping garbage as a golden."""
    details = interpreter.get_input_details()
    for array, detail in zip(inputs, details):
        if tuple(array.shape) != tuple(int(d) for d in detail["shape"]):
            interpreter.resize_tensor_input(detail["index"], list(array.shape), strict=False)
    interpreter.allocate_tensors()
    for array, detail in zip(inputs, interpreter.get_input_details()):
        interpreter.set_tensor(detail["index"], np.require(array, requirements="C"))
    for detail in interpreter.get_output_details():
        shape = tuple(int(d) for d in detail["shape"])
        dtype = np.dtype(detail["dtype"])
        if dtype.kind in "biufc" and np.prod(shape, dtype=np.int64) > 0:
            poison = np.frombuffer(bytes([0xA7, 0x3C]) * (int(np.prod(shape)) * dtype.itemsize), dtype=np.uint8)
            try:
                interpreter.set_tensor(detail["index"], poison[: int(np.prod(shape)) * dtype.itemsize].view(dtype).reshape(shape))
            except ValueError:
                pass
    interpreter.invoke()
    return [np.array(interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()]
def save_array(folder: Path, stem: str, array: np.ndarray) -> None:
    """`<stem>.npy`, or for a string tensor `<stem>.json`: its strings in row-major order (UTF-8)."""
    if array.dtype.kind in "SO":
        strings = [bytes(v).decode("utf-8") for v in array.reshape(-1)]
        (folder / f"{stem}.json").write_text(json.dumps(strings) + "\n")
    else:
        np.save(folder / f"{stem}.npy", array)


def summary(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    useful = [line for line in lines if "Node number" not in line and "failed to prepare" not in line]
    return " | ".join((useful or lines or [type(error).__name__])[:2])[:300]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="only case files whose name contains this")
    parser.add_argument("--probe", action="store_true", help="re-probe LiteRT's builtin operators and versions")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    if args.probe or not (args.out / "litert_builtins.json").exists():
        versions = probe_versions()
        (args.out / "litert_builtins.json").write_text(json.dumps(versions, indent=1, sort_keys=True) + "\n")
        print(f"LiteRT registers {len(versions)} builtin operators")

    manifest_path = args.out / "manifest.json"
    previous = json.loads(manifest_path.read_text())["cases"] if manifest_path.exists() else []
    cases = load_cases(args.only)
    chosen = {c.name for c in cases}
    files = {c.extra["file"] for c in cases}
    # Entries of case files that were not regenerated this time are kept as they were.
    entries = {e["name"]: e for e in previous if e.get("file") not in files and e["name"] not in chosen}
    runs = refused = 0
    for case in cases:
        folder = args.out / case.name
        if folder.exists():
            shutil.rmtree(folder)
        entry = {
            "name": case.name,
            "op": case.op,
            "version": case.version,
            "file": case.extra["file"],
            "inputs": [t.dtype if t is not None else None for t in case.inputs],
            "outputs": [t.dtype for t in case.outputs],
            "label": type_label(case),
        }
        if case.note:
            entry["note"] = case.note
        try:
            model, inputs, outputs = run_case(case)
        except Exception as error:
            entry["litert"] = "refused: " + summary(error)
            refused += 1
            print(f"  {case.name}: LiteRT refuses ({entry['litert']})")
        else:
            folder.mkdir(parents=True)
            (folder / "model.tflite").write_bytes(model)
            for i, array in enumerate(inputs):
                save_array(folder, f"input_{i}", array)
            for i, array in enumerate(outputs):
                save_array(folder, f"output_{i}", array)
            entry["litert"] = "runs"
            entry["run_inputs"] = len(inputs)
            entry["tolerance"] = case.tolerance
            runs += 1
        entries[case.name] = entry
    ordered = sorted(entries.values(), key=lambda e: (e["op"], e["name"]))
    manifest = {
        "about": "Single-operator cases made by tools/make_op_models.py; goldens from ai-edge-litert 2.3.0, "
        "BUILTIN_WITHOUT_DEFAULT_DELEGATES, one thread. Cases with litert == 'runs' are the denominator.",
        "cases": ordered,
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    total_runs = sum(1 for e in ordered if e["litert"] == "runs")
    print(f"this run: {runs} cases LiteRT runs, {refused} it refuses; manifest: {total_runs} of {len(ordered)} run")


if __name__ == "__main__":
    main()
