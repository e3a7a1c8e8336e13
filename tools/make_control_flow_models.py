#!/usr/bin/env python3
"""Control-flow and resource-variable models made with TensorFlow's converter, with LiteRT's answers.

    .venv-tf/bin/python tools/make_control_flow_models.py

Each case is a small tf.function converted to TensorFlow Lite (IF from tf.cond, WHILE from
tf.while_loop, VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE / CALL_ONCE from tf.Variable with
resource variables enabled). The model is run in LiteRT 2.3 (built-in kernels, one thread) for
several invokes in a row, because variables carry state from one invoke to the next; every
invoke's inputs and outputs are written to `Tests/TFLiteRuntimeTests/Fixtures/control_flow/<case>/`
(`input_<invoke>_<i>.npy`, `output_<invoke>_<i>.npy`) with a manifest. `ControlFlowTests` replays
them in one interpreter.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litert_common import make_interpreter  # noqa: E402
from tflite_ops import list_operators  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests/TFLiteRuntimeTests/Fixtures/control_flow"


def convert(module: tf.Module, fn, variables: bool = False) -> bytes:
    concrete = fn.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], module)
    if variables:
        converter.experimental_enable_resource_variables = True
    return converter.convert()


class IfModel(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([2, 3], tf.float32)])
    def __call__(self, threshold, x):
        return tf.cond(tf.reduce_sum(x) > threshold, lambda: tf.nn.relu(x) * 2.0 + 1.0, lambda: tf.tanh(x) - x)


class IfShapeModel(tf.Module):
    """The branches give different shapes."""

    @tf.function(input_signature=[tf.TensorSpec([], tf.bool), tf.TensorSpec([4], tf.float32)])
    def __call__(self, flag, x):
        return tf.cond(flag, lambda: tf.concat([x, x], 0), lambda: x[:2] * 3.0)


class WhileModel(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([3], tf.float32)])
    def __call__(self, n, x):
        i = tf.constant(0)
        _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 0.5 + tf.sin(y)), [i, x])
        return y


class WhileGrowModel(tf.Module):
    """The loop state changes shape every turn."""

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def __call__(self, n):
        i = tf.constant(0)
        s = tf.constant([1.0])
        _, s = tf.while_loop(
            lambda i, s: i < n,
            lambda i, s: (i + 1, tf.concat([s, s[-1:] * 2.0], 0)),
            [i, s],
            shape_invariants=[i.get_shape(), tf.TensorShape([None])],
        )
        return s


class CounterModel(tf.Module):
    """A variable that every invoke adds to: state across invokes, CALL_ONCE initialization."""

    def __init__(self):
        super().__init__()
        self.total = tf.Variable(tf.constant([0.5, -1.0, 2.0]))

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def __call__(self, x):
        self.total.assign_add(x * 2.0)
        return self.total.read_value() + 1.0


class NestedModel(tf.Module):
    """A while loop whose body branches."""

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        i = tf.constant(0)

        def body(i, y):
            y = tf.cond(tf.equal(i % 2, 0), lambda: y + 1.0, lambda: y * -0.5)
            return i + 1, y

        _, y = tf.while_loop(lambda i, y: i < 5, body, [i, x])
        return y


class WordIdsModel(tf.Module):
    """String keys to int64 ids through a static hash table (HASHTABLE, HASHTABLE_IMPORT, _FIND)."""

    def __init__(self):
        super().__init__()
        keys = tf.constant(["apple", "banana", "cherry", "", "ünïcödé"])
        self.table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, tf.constant([1, 2, 3, 4, 5], tf.int64)), -1)

    @tf.function(input_signature=[tf.TensorSpec([4], tf.string)])
    def __call__(self, words):
        return self.table.lookup(words) * 10


class IdWordsModel(tf.Module):
    """int64 keys to strings, and the table's size."""

    def __init__(self):
        super().__init__()
        init = tf.lookup.KeyValueTensorInitializer(tf.constant([7, 8, 9], tf.int64), tf.constant(["seven", "eight", "nine"]))
        self.table = tf.lookup.StaticHashTable(init, "?")

    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.int64)])
    def __call__(self, ids):
        return {"words": self.table.lookup(ids), "size": tf.reshape(self.table.size(), [1])}


def cases():
    rng = np.random.default_rng(7)
    x23 = [rng.uniform(-2, 2, (2, 3)).astype(np.float32) for _ in range(3)]
    yield "if_branches", IfModel(), False, [
        [np.float32(0.0), x23[0]],
        [np.float32(100.0), x23[1]],
        [np.float32(-100.0), x23[2]],
    ]
    x4 = rng.uniform(-1, 1, 4).astype(np.float32)
    yield "if_branch_shapes", IfShapeModel(), False, [[np.bool_(True), x4], [np.bool_(False), x4], [np.bool_(True), -x4]]
    x3 = rng.uniform(-1, 1, 3).astype(np.float32)
    yield "while_loop", WhileModel(), False, [[np.int32(0), x3], [np.int32(4), x3], [np.int32(11), -x3]]
    yield "while_growing_state", WhileGrowModel(), False, [[np.int32(0)], [np.int32(3)], [np.int32(6)]]
    yield "variable_counter", CounterModel(), True, [[x3], [x3 * 2], [-x3]]
    words = np.array([b"banana", b"kiwi", "ünïcödé".encode(), b""], dtype=object)
    yield "hashtable_string_keys", WordIdsModel(), True, [[words], [words[::-1].copy()]]
    yield "hashtable_int64_keys", IdWordsModel(), True, [[np.array([[7, 1], [9, 8]], np.int64)], [np.array([[0, 9], [9, 7]], np.int64)]]
    x2 = rng.uniform(-1, 1, 2).astype(np.float32)
    yield "while_with_if", NestedModel(), False, [[x2], [-x2]]


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    entries = []
    for name, module, variables, invokes in cases():
        model = convert(module, module.__call__, variables)
        arg_names = [spec.name for spec in module.__call__.get_concrete_function().structured_input_signature[0]]
        folder = OUT / name
        folder.mkdir()
        (folder / "model.tflite").write_bytes(model)
        interpreter = make_interpreter(model)
        interpreter.allocate_tensors()
        details = interpreter.get_input_details()
        # The converter may order the inputs differently from the function's arguments: match by name.
        order = [arg_names.index(d["name"].split("serving_default_")[-1].split(":")[0]) for d in details]
        outputs_per_invoke = []
        for k, inputs in enumerate(invokes):
            for i, detail in enumerate(details):
                array = inputs[order[i]]
                if detail["dtype"] == np.bytes_ or array.dtype == object:
                    interpreter.set_tensor(detail["index"], array)
                    strings = [v.decode() for v in array.reshape(-1)]
                    (folder / f"input_{k}_{i}.json").write_text(json.dumps(strings, ensure_ascii=False) + "\n")
                    continue
                array = np.asarray(array, dtype=detail["dtype"])
                if tuple(array.shape) != tuple(detail["shape"]):
                    raise SystemExit(f"{name}: input {i} shape {array.shape} differs from {detail['shape']}")
                interpreter.set_tensor(detail["index"], array)
                np.save(folder / f"input_{k}_{i}.npy", array)
            interpreter.invoke()
            outs = [np.array(interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()]
            for o, array in enumerate(outs):
                if array.dtype == object or array.dtype.kind == "S":
                    strings = [v.decode() for v in array.reshape(-1)]
                    (folder / f"output_{k}_{o}.json").write_text(json.dumps(strings, ensure_ascii=False) + "\n")
                else:
                    np.save(folder / f"output_{k}_{o}.npy", array)
            outputs_per_invoke.append(len(outs))
        ops, _ = list_operators(model)
        entries.append({
            "name": name, "operators": sorted(set(ops)), "invokes": len(invokes),
            "inputs": len(details), "outputs": outputs_per_invoke[0],
        })
        print(f"{name}: {sorted(set(ops))}")
    manifest = {
        "about": "Made by tools/make_control_flow_models.py (TensorFlow converter); goldens from ai-edge-litert 2.3.0 "
        "built-in kernels, invokes in a row on one interpreter.",
        "cases": entries,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
