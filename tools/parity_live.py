#!/usr/bin/env python3
"""Compares the `mlkit` CLI with Google's LiteRT on every real model we have.

    python3 tools/parity_live.py --mlkit .build/release/mlkit \\
        [--models ../shared/models] [--extra out/unseen ...] [--images ../shared/images] \\
        [--float-only] [--strict-quantized] [--tolerance 1e-4] [--json report.json]

For every .tflite under --models and each --extra directory (recursively):

1. Inspect: `mlkit inspect MODEL --json` against LiteRT's get_input_details() and
   get_output_details() -- tensor index, name, shape, shape signature, dtype, quantization scales,
   zero points and quantized dimension -- and the per-operator counts against the flatbuffer
   (tools/tflite_ops.py). Every difference is printed as a MISMATCH line.
2. Float models (all inputs float32): runs LiteRT and `mlkit run` on 2 seeded random inputs in
   [-1, 1] and, when an input looks like an image ([1, H, W, 3]), on 2 photos from --images
   resized to HxW and scaled to [-1, 1]. Every output must satisfy
   max|mlkit - LiteRT| <= tolerance * max(1, max|LiteRT|); an mlkit error is a FAIL.
3. Other (quantized) models: run the same way (photos as raw uint8, or uint8 - 128 for int8) and
   report how many output elements match exactly. They do not fail the run unless
   --strict-quantized; an mlkit error is reported as "SKIP (unsupported: ...)", except a crash
   (killed by a signal), which always fails. --float-only skips running them (they are still
   inspected).

LiteRT runs with builtin kernels, no default delegates (no XNNPACK) and one thread, with a fresh
interpreter per input set; only a model with a custom op that exists solely in XNNPACK (MediaPipe's
Convolution2DTransposeBias) falls back to LiteRT with XNNPACK, and says so.
A model whose file shape cannot run (a dynamic dimension stored as a placeholder 1) may have a
`MODEL.tflite.inputs.json` beside it listing the input shapes to use instead.
Prints one line per model and input, then a summary line; exits 1 if any inspect mismatch or
any failing run, 2 on a usage error. --json writes the same results as a JSON report.
Needs tools/requirements-ci.txt (ai-edge-litert, numpy, pillow).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litert_common import make_interpreter, run, within_tolerance  # noqa: E402
from tflite_ops import operator_counts  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PHOTOS = ["grace_hopper.bmp", "parrot.jpg"]  # preferred; any other photos are the fallback
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp"}


@dataclass
class RunResult:
    input: str
    status: str  # PASS, FAIL, DIFF (quantized, not failing), SKIP
    max_diff: float | None = None
    tolerance: float | None = None
    exact: str | None = None  # "matching/total" elements, over all outputs
    message: str = ""


@dataclass
class ModelResult:
    model: str
    kind: str  # float (all inputs float32), non-float (quantized or integer inputs), unknown
    inspect_mismatches: list[str] = field(default_factory=list)
    runs: list[RunResult] = field(default_factory=list)
    note: str = ""


# --------------------------------------------------------------------------------------------
# mlkit


def run_mlkit(mlkit: Path, args: list[str], timeout: float) -> tuple[bool, str]:
    """Runs the CLI; returns (ok, stdout) or (False, its one-line error)."""
    try:
        done = subprocess.run([str(mlkit), *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout:.0f} s"
    if done.returncode < 0:
        return False, f"crashed with signal {-done.returncode}"
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        message = lines[-1].strip() if lines else f"exit code {done.returncode}"
        return False, message.removeprefix("error: ").removeprefix("Error: ")
    return True, done.stdout


# --------------------------------------------------------------------------------------------
# Inspect


def _litert_tensor(detail: dict, position: int) -> dict:
    q = detail.get("quantization_parameters") or {}
    scales = [float(s) for s in np.asarray(q.get("scales", []), dtype=np.float32)]
    return {
        "index": position,
        "tensor_index": int(detail["index"]),
        "name": detail["name"],
        "shape": [int(d) for d in detail["shape"]],
        "shape_signature": [int(d) for d in detail.get("shape_signature", detail["shape"])],
        "dtype": np.dtype(detail["dtype"]).name,
        "scales": scales,
        "zero_points": [int(z) for z in np.asarray(q.get("zero_points", []))],
        "quantized_dimension": int(q.get("quantized_dimension", 0)),
    }


def compare_tensor(where: str, ours: dict, refs: list[dict]) -> list[str]:
    """Differences between one mlkit tensor entry and LiteRT's; a field may match any of `refs`.

    `refs` holds LiteRT's view before allocate_tensors() (the shapes written in the file) and after
    it (shapes its kernels computed, e.g. TFLite_Detection_PostProcess outputs declared as []),
    since an inspect command may legitimately report either.
    """
    problems = []

    def check(key, value, values):
        if all(value != v for v in values):
            shown = " or ".join(dict.fromkeys(json.dumps(v) for v in values))
            problems.append(f"{where}.{key}: mlkit {json.dumps(value)} vs LiteRT {shown}")

    for key in ("index", "tensor_index", "name", "shape", "shape_signature", "dtype"):
        if key not in ours:
            if key in ("index", "shape_signature"):
                continue  # optional in the contract's older drafts
            problems.append(f"{where}.{key}: missing from mlkit inspect")
        else:
            check(key, ours[key], [r[key] for r in refs])
    ref = refs[0]
    quantization = ours.get("quantization") or {}
    scales = [float(np.float32(s)) for s in quantization.get("scales") or []]
    zero_points = [int(z) for z in quantization.get("zero_points") or []]
    check("quantization.scales", scales, [ref["scales"]])
    # An empty zero-point list stands for all zeros.
    if zero_points or any(ref["zero_points"]):
        check("quantization.zero_points", zero_points, [ref["zero_points"]])
    if len(ref["scales"]) > 1:
        check("quantization.quantized_dimension", quantization.get("quantized_dimension"),
              [ref["quantized_dimension"]])
    return problems


def _normalize_ops(counts: dict) -> dict:
    # Custom ops may be spelled "CUSTOM:<code>" or just "<code>"; compare them by their code.
    return {(k.split(":", 1)[1] if k.startswith("CUSTOM:") else k): int(v) for k, v in counts.items()}


def inspect_mismatches(mlkit: Path, model: Path, views: list[dict], content: bytes, timeout: float) -> list[str]:
    """Compares `mlkit inspect --json` with LiteRT's views ({"inputs": details, "outputs": details})."""
    ok, stdout = run_mlkit(mlkit, ["inspect", str(model), "--json"], timeout)
    if not ok:
        return [f"mlkit inspect failed: {stdout}"]
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError as error:
        return [f"mlkit inspect printed invalid JSON: {error}"]
    problems = []
    for side in ("inputs", "outputs"):
        ours, details = report.get(side), views[0][side]
        if not isinstance(ours, list):
            problems.append(f"{side}: missing from mlkit inspect")
            continue
        if len(ours) != len(details):
            problems.append(f"{side}: mlkit lists {len(ours)}, LiteRT {len(details)}")
        for k, entry in enumerate(ours[: len(details)]):
            problems += compare_tensor(f"{side}[{k}]", entry, [_litert_tensor(v[side][k], k) for v in views])
    if "operators" in report:
        ours_ops, ref_ops = _normalize_ops(report["operators"]), _normalize_ops(operator_counts(content))
        for name in sorted(set(ours_ops) | set(ref_ops)):
            if ours_ops.get(name, 0) != ref_ops.get(name, 0):
                problems.append(f"operators.{name}: mlkit {ours_ops.get(name, 0)} vs flatbuffer {ref_ops.get(name, 0)}")
    return problems


# --------------------------------------------------------------------------------------------
# Inputs


def _is_image(shape: list[int]) -> bool:
    return len(shape) == 4 and shape[0] == 1 and shape[3] == 3 and shape[1] >= 8 and shape[2] >= 8


def _takes_photo(detail: dict) -> bool:
    """An image-shaped input of a type a photo maps onto (float, uint8, int8; not 16x8's int16)."""
    dtype = np.dtype(detail["dtype"])
    return _is_image([int(x) for x in detail["shape"]]) and (dtype.kind == "f" or dtype in (np.uint8, np.int8))


def pick_photos(images: Path | None) -> list[Path]:
    if images is None or not images.is_dir():
        return []
    preferred = [images / name for name in PHOTOS if (images / name).is_file()]
    others = sorted(p for p in images.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p not in preferred)
    return (preferred + others)[:2]


def random_input(detail: dict, rng: np.random.Generator) -> np.ndarray:
    shape, dtype = [int(d) for d in detail["shape"]], np.dtype(detail["dtype"])
    if dtype.kind == "f":
        return rng.uniform(-1.0, 1.0, shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(int(info.min), -128), min(int(info.max), 255)
        if dtype.itemsize > 1:
            lo, hi = 0, 9  # wider integers are usually ids or counts, not pixels
        return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)
    raise ValueError(f"cannot make a random {dtype.name} input")


def photo_input(detail: dict, photo: Path) -> np.ndarray:
    from PIL import Image

    _, height, width, _ = [int(d) for d in detail["shape"]]
    with Image.open(photo) as image:
        pixels = np.asarray(image.convert("RGB").resize((width, height), Image.BILINEAR), dtype=np.uint8)
    pixels = pixels[np.newaxis]
    dtype = np.dtype(detail["dtype"])
    if dtype.kind == "f":
        return (pixels.astype(np.float32) / 127.5 - 1.0).astype(dtype)
    if dtype == np.uint8:
        return pixels
    if dtype == np.int8:
        return (pixels.astype(np.int16) - 128).astype(np.int8)
    raise ValueError(f"cannot feed a photo to a {dtype.name} input")


def input_sets(model: Path, details: list[dict], photos: list[Path]) -> list[tuple[str, list[np.ndarray]]]:
    """The named input sets for a model: 2 random ones, plus 2 photos when an input is an image."""
    seed = zlib.crc32(model.name.encode())
    sets = []
    for k in range(2):
        rng = np.random.default_rng([seed, k])
        sets.append((f"random#{k}", [random_input(d, rng) for d in details]))
    if any(_takes_photo(d) for d in details):
        for k, photo in enumerate(photos):
            rng = np.random.default_rng([seed, 100 + k])
            arrays = [photo_input(d, photo) if _takes_photo(d) else random_input(d, rng)
                      for d in details]
            sets.append((f"photo:{photo.name}", arrays))
    return sets


# --------------------------------------------------------------------------------------------
# Runs


def one_line(error: Exception | str) -> str:
    """An error as one line; LiteRT repeats its whole message once per failed call, keep one copy."""
    text = " ".join(str(error).split())
    for cut in range(1, len(text) // 2 + 1):
        if len(text) % cut == 0 and text == text[:cut] * (len(text) // cut):
            return text[:cut]
    return text


def compare_run(mlkit: Path, model: Path, make_reference, name: str, arrays: list[np.ndarray], is_float: bool,
                args) -> RunResult:
    try:
        # A fresh interpreter per input set: models with variable tensors (LSTM state) must start
        # from their initial state, as a fresh `mlkit run` process does.
        reference = run(make_reference(), arrays)
    except Exception as error:  # LiteRT failing is not a parity result
        return RunResult(name, "SKIP", message=f"LiteRT failed: {one_line(error)}")
    with tempfile.TemporaryDirectory(prefix="parity-") as scratch:
        scratch = Path(scratch)
        cli = ["run", str(model)]
        for k, array in enumerate(arrays):
            np.save(scratch / f"input_{k}.npy", array)
            cli += ["--input", str(scratch / f"input_{k}.npy")]
        cli += ["--output-dir", str(scratch / "out")]
        ok, message = run_mlkit(mlkit, cli, args.timeout)
        if not ok:
            # A crash is never acceptable, whatever the model; other errors on non-float models are
            # expected until quantized kernels exist.
            if is_float or args.strict_quantized or message.startswith("crashed"):
                return RunResult(name, "FAIL", message=f"mlkit: {message}")
            return RunResult(name, "SKIP", message=f"unsupported: {message}")
        try:
            ours = [np.load(scratch / "out" / f"output_{k}.npy", allow_pickle=False) for k in range(len(reference))]
        except (OSError, ValueError) as error:
            return RunResult(name, "FAIL", message=f"reading mlkit outputs: {error}")
        extra = len(list((scratch / "out").glob("output_*.npy"))) - len(reference)

    problems, worst, matching, total = [], 0.0, 0, 0
    # The allowance actually applied (tolerance × max(1, max|LiteRT|)) for the tightest output,
    # so the printed line shows the bound each figure was judged against.
    allowed = None
    if extra:
        problems.append(f"mlkit wrote {extra} extra output files")
    for k, (a, b) in enumerate(zip(ours, reference)):
        if a.dtype != b.dtype:
            problems.append(f"output {k} dtype {a.dtype.name} vs {b.dtype.name}")
        if a.shape != b.shape:
            problems.append(f"output {k} shape {list(a.shape)} vs {list(b.shape)}")
            continue
        ok_k, diff = within_tolerance(a, b, args.tolerance)
        worst = diff if not np.isfinite(diff) else max(worst, diff)
        finite = np.abs(b[np.isfinite(b)]) if b.dtype.kind == "f" else np.abs(b)
        bound = args.tolerance * max(1.0, float(finite.max()) if finite.size else 1.0)
        allowed = bound if allowed is None else min(allowed, bound)
        matching += int(np.sum(a == b)) + int(np.sum(np.isnan(a) & np.isnan(b)) if b.dtype.kind == "f" else 0)
        total += b.size
        if is_float and not ok_k:
            problems.append(f"output {k} max diff {diff:.3g}")
    exact = f"{matching}/{total}"
    if is_float:
        status = "FAIL" if problems else "PASS"
    elif problems or matching != total:
        status = "FAIL" if args.strict_quantized else "DIFF"
    else:
        status = "PASS"
    return RunResult(name, status, worst, allowed if is_float else None, exact, "; ".join(problems))


def verdict(r: RunResult) -> str:
    """One human line: PASS/FAIL/DIFF with the numbers, or SKIP (reason)."""
    if r.status == "SKIP":
        return f"SKIP ({r.message})"
    parts = [r.status]
    if r.max_diff is not None:
        parts.append(f"max|diff| {r.max_diff:.3g}")
    if r.tolerance is not None:
        parts.append(f"(allowed {r.tolerance:.3g})")
    if r.exact is not None and r.tolerance is None:
        parts.append(f"exact {r.exact}")
    if r.message:
        parts.append(f"-- {r.message}")
    return " ".join(parts)


def declared_input_shapes(model: Path, details: list[dict]) -> list[list[int]] | None:
    """Input shapes from `MODEL.tflite.inputs.json` beside the model (a JSON list of shapes), if any.

    For a model whose file declares a placeholder size for a dynamic dimension that its own kernels
    cannot run (openWakeWord's melspectrogram: [1, 1] audio samples, shape signature [1, -1]);
    both runtimes then get inputs of these shapes. Each must keep the file's rank and fixed sizes.
    """
    sidecar = model.with_name(model.name + ".inputs.json")
    if not sidecar.is_file():
        return None
    shapes = json.loads(sidecar.read_text())
    if not isinstance(shapes, list) or len(shapes) != len(details):
        raise ValueError(f"{sidecar.name}: expected a list of {len(details)} input shapes")
    for shape, detail in zip(shapes, details):
        signature = [int(d) for d in detail.get("shape_signature", detail["shape"])]
        if (not isinstance(shape, list) or len(shape) != len(signature)
                or any(not isinstance(n, int) or n < 1 or (s != -1 and n != s) for n, s in zip(shape, signature))):
            raise ValueError(f"{sidecar.name}: shape {shape} does not fit input signature {signature}")
    return shapes


def check_model(model: Path, root: Path, photos: list[Path], args) -> ModelResult:
    label = str(model.relative_to(root)) if model.is_relative_to(root) else str(model)
    content = model.read_bytes()
    xnnpack, note = False, ""
    view = lambda i: {"inputs": i.get_input_details(), "outputs": i.get_output_details()}  # noqa: E731
    try:
        interpreter = make_interpreter(content)
        views = [view(interpreter)]
        details = views[0]["inputs"]
        shapes = declared_input_shapes(model, details)
        if shapes:
            details = [dict(d, shape=np.array(s, dtype=np.int32)) for d, s in zip(details, shapes)]
            for detail in details:
                interpreter.resize_tensor_input(detail["index"], [int(x) for x in detail["shape"]], strict=True)
            note = f"inputs resized to {shapes} ({model.name}.inputs.json)"
        try:
            interpreter.allocate_tensors()
        except RuntimeError as error:
            if "unresolved custom op" not in str(error):
                raise
            # Some custom ops (MediaPipe's Convolution2DTransposeBias) exist only in XNNPACK.
            xnnpack = True
            note = "; ".join(filter(None, [note, f"reference is LiteRT with XNNPACK ({one_line(error).split('. ')[0]})"]))
            interpreter = make_interpreter(content, xnnpack=True)
            for detail in details if shapes else []:
                interpreter.resize_tensor_input(detail["index"], [int(x) for x in detail["shape"]], strict=True)
            interpreter.allocate_tensors()
        views.append(view(interpreter))
    except Exception as error:
        print(f"{label}: LiteRT cannot load it: {one_line(error)}")
        return ModelResult(label, "unknown", note=f"LiteRT cannot load it: {one_line(error)}")
    is_float = all(np.dtype(d["dtype"]) == np.float32 for d in details)
    result = ModelResult(label, "float" if is_float else "non-float", note=note)
    if note:
        print(f"{label}: note: {note}")
    result.inspect_mismatches = inspect_mismatches(args.mlkit, model, views, content, args.timeout)
    print(f"{label}: inspect {'MISMATCH' if result.inspect_mismatches else 'OK'}", flush=True)
    for problem in result.inspect_mismatches:
        print(f"    {problem}")
    if not is_float and args.float_only:
        result.note = "not run (--float-only)"
        return result
    for name, arrays in input_sets(model, details, photos):
        r = compare_run(args.mlkit, model, lambda: make_interpreter(content, xnnpack=xnnpack), name, arrays,
                        is_float, args)
        result.runs.append(r)
        print(f"{label} [{result.kind}] {name}: {verdict(r)}", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    shared = REPO.parent / "shared"
    parser = argparse.ArgumentParser(
        description="Compare `mlkit inspect` and `mlkit run` with LiteRT on every .tflite model.",
    )
    parser.add_argument("--mlkit", required=True, type=Path, help="path to the mlkit binary")
    parser.add_argument("--models", type=Path, default=shared / "models",
                        help="directory searched recursively for .tflite files (default: ../shared/models)")
    parser.add_argument("--extra", type=Path, action="append", default=[], metavar="DIR",
                        help="more model directories, e.g. out/unseen (repeatable)")
    parser.add_argument("--images", type=Path, default=shared / "images",
                        help="photos for image inputs (default: ../shared/images)")
    parser.add_argument("--float-only", action="store_true", help="run only models whose inputs are all float32")
    parser.add_argument("--strict-quantized", action="store_true",
                        help="make quantized-model differences and mlkit errors fail the run")
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="relative tolerance for float models (default 1e-4)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds allowed per mlkit call (default 900)")
    parser.add_argument("--json", type=Path, metavar="REPORT", help="also write the results as JSON")
    args = parser.parse_args(argv)

    if not args.mlkit.is_file():
        parser.error(f"--mlkit {args.mlkit}: no such file (build it with: swift build -c release --product mlkit)")
    args.mlkit = args.mlkit.resolve()
    directories = [args.models, *args.extra]
    for directory in directories:
        if not directory.is_dir():
            parser.error(f"{directory}: not a directory")
    photos = pick_photos(args.images)
    if not photos:
        print(f"note: no photos in {args.images}; image models get random inputs only")

    results = []
    for directory in directories:
        for model in sorted(directory.rglob("*.tflite")):
            results.append(check_model(model, directory, photos, args))

    runs = [r for m in results for r in m.runs]
    mismatched = sum(1 for m in results if m.inspect_mismatches)
    failed = [r for r in runs if r.status == "FAIL"]
    float_runs = [r for m in results if m.kind == "float" for r in m.runs]
    quant_runs = [r for m in results if m.kind == "non-float" for r in m.runs]
    count = lambda rs, s: sum(1 for r in rs if r.status == s)  # noqa: E731
    summary = (
        f"parity: {len(results)} models; inspect mismatches in {mismatched}; "
        f"float runs {count(float_runs, 'PASS')} pass / {count(float_runs, 'FAIL')} fail; "
        f"non-float (quantized) runs {count(quant_runs, 'PASS')} exact / {count(quant_runs, 'DIFF')} differ / "
        f"{count(quant_runs, 'FAIL')} fail / {count(quant_runs, 'SKIP')} skipped"
    )
    unloadable = [m for m in results if m.kind == "unknown"]
    if unloadable:
        summary += f"; {len(unloadable)} not loadable by LiteRT"
    print(summary)
    if args.json:
        report = {"summary": summary, "tolerance": args.tolerance, "models": [asdict(m) for m in results]}
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if mismatched or failed else 0


if __name__ == "__main__":
    sys.exit(main())
