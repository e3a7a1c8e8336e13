#!/usr/bin/env python3
"""Lists the operators a .tflite flatbuffer really contains (all subgraphs).

    python3 tools/tflite_ops.py MODEL [MODEL ...]

Prints, per model, each operator with its count, and which operators have a fused activation
("CONV_2D+RELU6"). Reads the flatbuffer with the schema module that ships with ai-edge-litert,
so it needs no TensorFlow. Custom operators are listed as "CUSTOM:<custom_code>".
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ai_edge_litert import schema_py_generated as schema

_BUILTIN_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
_ACTIVATION_NAMES = {v: k for k, v in vars(schema.ActivationFunctionType).items() if not k.startswith("_")}


def _model(content: bytes) -> "schema.ModelT":
    if len(content) < 8 or content[4:8] != b"TFL3":
        raise ValueError("not a TFLite flatbuffer (file identifier TFL3 missing)")
    return schema.ModelT.InitFromPackedBuf(bytearray(content), 0)


def operator_name(code: "schema.OperatorCodeT") -> str:
    """The builtin name of an operator code, reading both the old int8 and the new int32 field."""
    value = max(int(code.builtinCode), int(code.deprecatedBuiltinCode))
    name = _BUILTIN_NAMES.get(value, f"BUILTIN_{value}")
    if name == "CUSTOM":
        custom = code.customCode.decode() if isinstance(code.customCode, bytes) else code.customCode
        return f"CUSTOM:{custom}"
    return name


def list_operators(content: bytes) -> tuple[list[str], list[str]]:
    """Returns (operator names in execution order, "OP+ACTIVATION" for each fused activation)."""
    model = _model(content)
    names = [operator_name(code) for code in model.operatorCodes or []]
    ops: list[str] = []
    fused: list[str] = []
    for subgraph in model.subgraphs or []:
        for op in subgraph.operators or []:
            name = names[op.opcodeIndex]
            ops.append(name)
            activation = getattr(op.builtinOptions, "fusedActivationFunction", 0)
            if activation:
                fused.append(f"{name}+{_ACTIVATION_NAMES.get(activation, activation)}")
    return ops, fused


def operator_counts(content: bytes) -> Counter:
    """Operator name -> number of uses over all subgraphs."""
    return Counter(list_operators(content)[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="List the operators in .tflite models.")
    parser.add_argument("models", nargs="+", type=Path, help=".tflite files")
    args = parser.parse_args(argv)
    for path in args.models:
        ops, fused = list_operators(path.read_bytes())
        print(path)
        for name, count in sorted(Counter(ops).items()):
            print(f"  {name:32} {count}")
        for name, count in sorted(Counter(fused).items()):
            print(f"  fused {name:26} {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
