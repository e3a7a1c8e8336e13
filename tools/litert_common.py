"""Shared helpers for the LiteRT reference tools in this folder.

Every tool that computes "what Google's runtime says" goes through `make_interpreter` so they all
use the same configuration: LiteRT's builtin *reference-capable* kernels without the default
delegates (no XNNPACK) and a single thread. That is the closest thing to an oracle LiteRT offers,
and it is what the committed fixtures were made with.

This module needs only `ai-edge-litert` and `numpy` (tools/requirements-ci.txt); it must not import
TensorFlow, so the CI venv can use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def make_interpreter(model: str | Path | bytes, *, xnnpack: bool = False) -> Interpreter:
    """Returns a LiteRT interpreter for a model file path or the model's bytes.

    Tensors are not allocated yet; `run` does that after resizing inputs where needed.
    `xnnpack=True` uses LiteRT's default resolver with the XNNPACK delegate instead. That is only a
    fallback for models whose custom ops exist solely in XNNPACK (MediaPipe's
    Convolution2DTransposeBias); its float results differ from the reference kernels in rounding.
    """
    kwargs = dict(
        experimental_op_resolver_type=(
            OpResolverType.BUILTIN if xnnpack else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        ),
        num_threads=1,
    )
    if isinstance(model, (bytes, bytearray)):
        return Interpreter(model_content=bytes(model), **kwargs)
    return Interpreter(model_path=str(model), **kwargs)


def run(interpreter: Interpreter, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Runs one inference and returns copies of all outputs, in the model's output order.

    `inputs` must hold one array per model input, in input order, each with the input's dtype.
    An input whose shape differs from the model's current input shape is resized to the array's
    shape first (like `Interpreter.resizeInput` in the Swift API). Raises ValueError on a count or
    dtype mismatch instead of letting LiteRT cast silently.
    """
    details = interpreter.get_input_details()
    if len(inputs) != len(details):
        raise ValueError(f"model has {len(details)} inputs, got {len(inputs)} arrays")
    for i, (array, detail) in enumerate(zip(inputs, details)):
        same_kind_strings = np.dtype(array.dtype).kind == "S" and np.dtype(detail["dtype"]).kind == "S"
        if np.dtype(array.dtype) != np.dtype(detail["dtype"]) and not same_kind_strings:
            raise ValueError(
                f"input {i} ({detail['name']}): model wants {np.dtype(detail['dtype']).name}, "
                f"got {array.dtype.name}"
            )
        if tuple(array.shape) != tuple(int(d) for d in detail["shape"]):
            interpreter.resize_tensor_input(detail["index"], list(array.shape), strict=False)
    interpreter.allocate_tensors()
    for array, detail in zip(inputs, interpreter.get_input_details()):
        interpreter.set_tensor(detail["index"], np.require(array, requirements="C"))  # keeps 0-d arrays 0-d
    interpreter.invoke()
    return [np.array(interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()]


def max_abs_diff(ours: np.ndarray, reference: np.ndarray) -> float:
    """Largest |ours - reference| over all elements, computed in float64 (0 for empty tensors)."""
    if reference.size == 0:
        return 0.0
    return float(np.max(np.abs(ours.astype(np.float64) - reference.astype(np.float64))))


def within_tolerance(ours: np.ndarray, reference: np.ndarray, tolerance: float) -> tuple[bool, float]:
    """Applies the project's float comparison rule and returns (ok, max diff).

    The rule: max|ours - reference| <= tolerance * max(1, max|reference|), with identical shapes.
    NaNs must be in the same places. Integer and bool tensors go through the same rule, which for
    the small values they hold means exact equality.
    """
    if tuple(ours.shape) != tuple(reference.shape):
        return False, float("inf")
    if reference.size == 0:
        return True, 0.0
    ref = reference.astype(np.float64)
    got = ours.astype(np.float64)
    nan_ref, nan_got = np.isnan(ref), np.isnan(got)
    if not np.array_equal(nan_ref, nan_got):
        return False, float("nan")
    ref, got = ref[~nan_ref], got[~nan_got]
    if ref.size == 0:
        return True, 0.0
    diff = float(np.max(np.abs(got - ref)))
    scale = max(1.0, float(np.max(np.abs(ref))))
    return diff <= tolerance * scale, diff
