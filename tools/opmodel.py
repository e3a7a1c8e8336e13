"""Single-operator TFLite models written straight from the FlatBuffer schema.

A case names one builtin (or custom) operator, its input tensors (run-time inputs with seeded random
values, or constants), its output tensors' types and its options; `build` turns it into the bytes of
a `.tflite` file with the schema module that ships with ai-edge-litert (no TensorFlow needed).

    from opmodel import Case, inp, const, out
    Case("equal_int32", "EQUAL", [inp("int32", [2, 3]), inp("int32", [2, 3])], [out("bool")])
    Case("sum_keep", "SUM", [inp("float32", [2, 3]), const("int32", [1], [1])], [out("float32")],
         options=("ReducerOptions", {"keepDims": True}))

Output shapes may be left empty: `make_op_models.py` runs the model in LiteRT once, then rebuilds
it with the shapes LiteRT computed, so the committed model declares what the runtime produces.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Sequence

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema

DTYPES: dict[str, tuple[int, Any]] = {
    "float32": (schema.TensorType.FLOAT32, np.float32),
    "float16": (schema.TensorType.FLOAT16, np.float16),
    "float64": (schema.TensorType.FLOAT64, np.float64),
    "int8": (schema.TensorType.INT8, np.int8),
    "int4": (schema.TensorType.INT4, np.int8),  # values -8..7, stored two per byte (low nibble first)
    "uint8": (schema.TensorType.UINT8, np.uint8),
    "int16": (schema.TensorType.INT16, np.int16),
    "uint16": (schema.TensorType.UINT16, np.uint16),
    "int32": (schema.TensorType.INT32, np.int32),
    "uint32": (schema.TensorType.UINT32, np.uint32),
    "uint64": (schema.TensorType.UINT64, np.uint64),
    "int64": (schema.TensorType.INT64, np.int64),
    "bool": (schema.TensorType.BOOL, np.bool_),
    "complex64": (schema.TensorType.COMPLEX64, np.complex64),
    "complex128": (schema.TensorType.COMPLEX128, np.complex128),
    "string": (schema.TensorType.STRING, np.bytes_),
}

BUILTINS: dict[str, int] = {k: v for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
OPTION_TYPES: dict[str, int] = {k: v for k, v in vars(schema.BuiltinOptions).items() if not k.startswith("_")}
OPTION2_TYPES: dict[str, int] = {k: v for k, v in vars(schema.BuiltinOptions2).items() if not k.startswith("_")}


@dataclass
class TensorSpec:
    """One tensor of a case: dtype, shape, and either constant values or how to draw random ones."""

    dtype: str
    shape: list[int]
    values: Any = None  # constant data, or fixed run-time input data
    const: bool = False
    low: float | None = None  # range of random run-time values (inclusive for integers)
    high: float | None = None
    scale: float | list[float] | None = None
    zero_point: int | list[int] | None = None
    axis: int = 0
    unique: bool = False  # random values without repeats (TOPK ties, ...)
    variable: bool = False  # a state tensor the operator updates (LSTM/RNN state): zeros, not a graph input
    sparsity: Any = None  # a schema.SparsityParametersT for a sparse constant (DENSIFY)

    def array(self, rng: np.random.Generator) -> np.ndarray:
        """The tensor's values: the given ones, or seeded random ones of its dtype."""
        np_type = DTYPES[self.dtype][1]
        if self.values is not None:
            if self.sparsity is not None:  # only the stored values of a sparse constant
                return np.asarray(self.values, dtype=np_type).ravel()
            return np.asarray(self.values, dtype=np_type).reshape(self.shape)
        count = int(np.prod(self.shape)) if self.shape else 1
        if self.dtype.startswith("complex"):
            low = -3.0 if self.low is None else self.low
            high = 3.0 if self.high is None else self.high
            real = rng.uniform(low, high, size=self.shape)
            imag = rng.uniform(low, high, size=self.shape)
            return (real + 1j * imag).astype(np_type)
        if self.dtype == "string":
            raise ValueError("string tensors need values=")
        if self.dtype == "bool":
            return rng.integers(0, 2, size=self.shape).astype(np.bool_)
        if self.dtype.startswith("float"):
            low = -3.0 if self.low is None else self.low
            high = 3.0 if self.high is None else self.high
            if self.unique:
                values = np.linspace(low, high, count)
                rng.shuffle(values)
                return values.reshape(self.shape).astype(np_type)
            return rng.uniform(low, high, size=self.shape).astype(np_type)
        info = np.iinfo(np_type)
        low = max(info.min, -10 if self.low is None else int(self.low)) if info.min < 0 else max(0, int(self.low or 0))
        high = min(info.max, 10 if self.high is None else int(self.high))
        if self.dtype in ("int8", "uint8", "int16") and self.low is None and self.high is None:
            low, high = int(info.min), int(info.max)
            if self.dtype == "int16":
                low, high = -3000, 3000
        if self.unique:
            values = rng.permutation(np.arange(low, low + count, dtype=np.int64))
            return values.reshape(self.shape).astype(np_type)
        return rng.integers(low, high + 1, size=self.shape, dtype=np.int64).astype(np_type)


def inp(dtype: str, shape: Sequence[int], values: Any = None, **kw: Any) -> TensorSpec:
    """A run-time input (random unless `values` is given)."""
    return TensorSpec(dtype, list(shape), values=values, **kw)


def const(dtype: str, shape: Sequence[int], values: Any, **kw: Any) -> TensorSpec:
    """A constant tensor stored in the model."""
    return TensorSpec(dtype, list(shape), values=values, const=True, **kw)


def var(dtype: str, shape: Sequence[int], **kw: Any) -> TensorSpec:
    """A variable tensor (an RNN / LSTM / SVDF state): `is_variable`, no buffer data, not a graph input."""
    return TensorSpec(dtype, list(shape), variable=True, **kw)


# Another name for `var` (the recurrent cases say "state").
state = var


def out(dtype: str, shape: Sequence[int] = (), **kw: Any) -> TensorSpec:
    """An output; its shape is filled in from LiteRT's answer when left empty."""
    return TensorSpec(dtype, list(shape), **kw)


@dataclass
class Case:
    name: str
    op: str  # builtin name ("EQUAL") or "CUSTOM:<code>"
    inputs: list[TensorSpec | None]  # None: an omitted optional operand (index -1)
    outputs: list[TensorSpec]
    options: tuple[str, dict[str, Any]] | None = None
    # the second options union (`builtin_options_2`, StableHLO operators): ("StablehloPadOptions", {...})
    options2: tuple[str, dict[str, Any]] | None = None
    # further one-operator subgraphs (indices 1, 2, ...: reduction bodies, branches); each one's
    # tensors are its operator's inputs (constants stay constants) and outputs, with declared shapes
    subgraphs: list["Case"] = field(default_factory=list)
    version: int = 1
    custom_options: bytes | None = None
    tolerance: float = 1e-5
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # Operator intermediates (integer LSTM's gate scales): tensors named intermediate_<i>, no data.
    intermediates: list[TensorSpec] = field(default_factory=list)

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(zlib.crc32(self.name.encode()))

    def input_arrays(self) -> list[np.ndarray]:
        """Values of the run-time inputs, in input order (deterministic per case name)."""
        rng = self.rng()
        return [t.array(rng) for t in self.inputs if t is not None and not t.const and not t.variable]


def string_buffer(strings: Sequence[bytes]) -> bytes:
    """TFLite's string tensor layout: count, count + 1 int32 offsets from the start, the bytes."""
    header = 4 * (len(strings) + 2)
    offsets, at = [], header
    for item in strings:
        offsets.append(at)
        at += len(item)
    offsets.append(at)
    return np.asarray([len(strings)] + offsets, dtype="<i4").tobytes() + b"".join(strings)
def _pack_int4(values: np.ndarray) -> np.ndarray:
    """Two signed 4-bit values per byte, the first in the low nibble (LiteRT's int4 layout)."""
    v = np.asarray(values, dtype=np.int8).ravel()
    if len(v) % 2:
        v = np.append(v, np.int8(0))
    return ((v[0::2] & 0xF) | ((v[1::2] & 0xF) << 4)).astype(np.uint8)


def _quantization(spec: TensorSpec) -> "schema.QuantizationParametersT | None":
    if spec.scale is None:
        return None
    q = schema.QuantizationParametersT()
    scales = spec.scale if isinstance(spec.scale, list) else [spec.scale]
    zeros = spec.zero_point if isinstance(spec.zero_point, list) else [spec.zero_point or 0] * len(scales)
    q.scale = [float(s) for s in scales]
    q.zeroPoint = [int(z) for z in zeros]
    q.quantizedDimension = spec.axis
    return q


def _options(name: str, values: dict[str, Any], types: dict[str, int] = OPTION_TYPES) -> tuple[int, Any]:
    if name not in types:
        raise ValueError(f"unknown options table {name}")
    table = getattr(schema, name + "T")()
    for key, value in values.items():
        if not hasattr(table, key):
            raise ValueError(f"{name} has no field {key}")
        setattr(table, key, value)
    return types[name], table


def build(case: Case, output_shapes: Sequence[Sequence[int]] | None = None) -> bytes:
    """The `.tflite` bytes of a one-operator model for `case` (plus `case.subgraphs`, if any)."""
    model = schema.ModelT()
    model.version = 3
    model.description = f"OpenMLKit single-operator case {case.name}"
    codes: list[schema.OperatorCodeT] = []
    code_index: dict[tuple[str, int], int] = {}
    buffers = [schema.BufferT()]
    rng = case.rng()

    def opcode(c: Case) -> int:
        if c.op == "NONE":
            return 0
        key = (c.op, c.version)
        if key in code_index:
            return code_index[key]
        code = schema.OperatorCodeT()
        if c.op.startswith("CUSTOM:"):
            code.builtinCode = schema.BuiltinOperator.CUSTOM
            code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
            code.customCode = c.op.split(":", 1)[1]
        else:
            value = BUILTINS[c.op]
            code.builtinCode = value
            code.deprecatedBuiltinCode = min(value, schema.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES)
        code.version = c.version
        codes.append(code)
        code_index[key] = len(codes) - 1
        return code_index[key]

    def subgraph(c: Case, shapes: Sequence[Sequence[int]] | None, name: str) -> schema.SubGraphT:
        tensors: list[schema.TensorT] = []
        graph_inputs: list[int] = []
        op_inputs: list[int] = []

        def add_tensor(spec: TensorSpec, tname: str, shape: Sequence[int]) -> int:
            t = schema.TensorT()
            t.name = tname
            t.type = DTYPES[spec.dtype][0]
            t.shape = list(shape)
            t.buffer = 0
            t.quantization = _quantization(spec)
            t.isVariable = spec.variable
            t.sparsity = spec.sparsity
            if spec.const:
                data = spec.array(rng)
                if spec.dtype == "int4":
                    data = _pack_int4(data)
                b = schema.BufferT()
                if spec.dtype == "string":
                    b.data = list(string_buffer([bytes(v) for v in data.reshape(-1)]))
                else:
                    b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8).tolist() or None
                buffers.append(b)
                t.buffer = len(buffers) - 1
            tensors.append(t)
            return len(tensors) - 1

        for i, spec in enumerate(c.inputs):
            if spec is None:
                op_inputs.append(-1)
                continue
            index = add_tensor(spec, f"input_{i}", spec.shape)
            op_inputs.append(index)
            if not spec.const and not spec.variable:
                graph_inputs.append(index)
        op_outputs = []
        for i, spec in enumerate(c.outputs):
            shape = shapes[i] if shapes is not None else spec.shape
            op_outputs.append(add_tensor(spec, f"output_{i}", shape))
        # Intermediate tensors (the integer LSTM's gate scales): `intermediates`, or `extra["intermediates"]`.
        listed = c.intermediates or c.extra.get("intermediates") or []
        op_intermediates = [add_tensor(spec, f"intermediate_{i}", spec.shape) for i, spec in enumerate(listed)]

        op = schema.OperatorT()
        op.opcodeIndex = opcode(c)
        op.inputs = op_inputs
        op.outputs = op_outputs
        if op_intermediates:
            op.intermediates = op_intermediates
        if c.options is not None:
            op.builtinOptionsType, op.builtinOptions = _options(*c.options)
        if c.options2 is not None:
            op.builtinOptions2Type, op.builtinOptions2 = _options(*c.options2, types=OPTION2_TYPES)
        if c.custom_options is not None:
            op.customOptions = list(c.custom_options)

        graph = schema.SubGraphT()
        graph.name = name
        graph.tensors = tensors
        graph.inputs = graph_inputs
        graph.outputs = op_outputs
        graph.operators = [op]
        if c.op == "NONE":  # a region without operators: it returns its last input (scatter's "update")
            graph.operators = []
            graph.outputs = [op_inputs[-1]]
        return graph

    graphs = [subgraph(case, output_shapes, "main")]
    for k, extra in enumerate(case.subgraphs):
        graphs.append(subgraph(extra, None, f"subgraph_{k + 1}"))
    model.operatorCodes = codes
    model.subgraphs = graphs
    model.buffers = buffers

    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())
