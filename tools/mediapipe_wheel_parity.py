#!/usr/bin/env python3
"""Whole-model references for the MediaPipe models inside the `mediapipe` pip wheel that use custom ops.

    python3 -m venv .venv-mp010
    .venv-mp010/bin/pip install --no-deps mediapipe==0.10.14
    .venv-mp010/bin/pip install "numpy<2" "protobuf>=4.25,<5" absl-py attrs flatbuffers ai-edge-litert==2.3.0
    .venv-mp010/bin/python tools/mediapipe_wheel_parity.py [--out /tmp/openmlkit-mediapipe-parity]
    OPENMLKIT_MEDIAPIPE_PARITY_DIR=/tmp/openmlkit-mediapipe-parity swift test --filter MediaPipeWheelParity

LiteRT (with or without XNNPACK) cannot run TransformLandmarks, TransformTensorBilinear or
Landmarks2TransformMatrix, so the reference for models using them is MediaPipe's own runtime: the
wheel's CalculatorGraph runs ImageToTensorCalculator → InferenceCalculator (TFLite's CPU kernels,
no delegate, with MediaPipe's TfLiteCustomOpResolverCalculator supplying the custom ops) and hands
back the input tensor and every output tensor as floats. The 1.x wheels ship no models; the 0.10
wheels carry the legacy solutions' models under mediapipe/modules/, among them
face_landmark_with_attention.tflite (Landmarks2TransformMatrix v2, TransformTensorBilinear v2,
TransformLandmarks v2) and the selfie segmentation models (Convolution2DTransposeBias).

The models are read from the installed wheel at run time and never copied: each output folder holds
`model_path.txt` (the wheel file's absolute path), `input_0.npy` and `output_<i>.npy`, outside the
repository by default. The image is a fixed synthetic pattern; parity does not need a face.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
from ai_edge_litert import schema_py_generated as schema

CUSTOM_OPS = {"MaxPoolingWithArgmax2D", "MaxUnpooling2D", "TransformLandmarks", "TransformTensorBilinear",
              "Landmarks2TransformMatrix", "Convolution2DTransposeBias"}


def wheel_root() -> Path:
    spec = importlib.util.find_spec("mediapipe")
    if spec is None or spec.origin is None:
        raise SystemExit("the mediapipe wheel is not installed in this Python")
    return Path(spec.origin).parent


def model_info(path: Path) -> tuple[set[str], list[list[int]], list[list[int]]]:
    """Custom ops used, input shapes and output shapes of a .tflite file."""
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(path.read_bytes(), 0))
    graph = model.subgraphs[0]
    used = {model.operatorCodes[op.opcodeIndex].customCode for op in graph.operators}
    customs = {c.decode() for c in used if c} & CUSTOM_OPS
    shape = lambda i: [int(d) for d in graph.tensors[i].shape]  # noqa: E731
    return customs, [shape(i) for i in graph.inputs], [shape(i) for i in graph.outputs]


def run_mediapipe(path: Path, height: int, width: int, outputs: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """The model's input tensor and outputs as MediaPipe's CPU inference computes them."""
    for name in ("cv2", "matplotlib", "matplotlib.pyplot"):  # only the wheel's drawing helpers import them
        sys.modules.setdefault(name, types.ModuleType(name))
    from mediapipe.python import packet_creator, packet_getter  # noqa: PLC0415
    from mediapipe.python._framework_bindings import calculator_graph, image_frame  # noqa: PLC0415

    names = [f"f{i}" for i in range(outputs)]
    config = f"""
input_stream: "image"
output_stream: "input_floats"
{chr(10).join(f'output_stream: "{n}"' for n in names)}
node {{ calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" output_stream: "TENSORS:input_tensors"
  options {{ [mediapipe.ImageToTensorCalculatorOptions.ext] {{ output_tensor_width: {width}
    output_tensor_height: {height} keep_aspect_ratio: false output_tensor_float_range {{ min: 0 max: 1 }} }} }} }}
node {{ calculator: "TfLiteCustomOpResolverCalculator" output_side_packet: "OP_RESOLVER:op_resolver" }}
node {{ calculator: "InferenceCalculator" input_stream: "TENSORS:input_tensors" output_stream: "TENSORS:output_tensors"
  input_side_packet: "OP_RESOLVER:op_resolver"
  options {{ [mediapipe.InferenceCalculatorOptions.ext] {{ model_path: "{path}" delegate {{ tflite {{}} }} }} }} }}
node {{ calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:input_tensors"
  output_stream: "FLOATS:input_floats" }}
node {{ calculator: "SplitTensorVectorCalculator" input_stream: "output_tensors"
  {" ".join(f'output_stream: "t{i}"' for i in range(outputs))}
  options {{ [mediapipe.SplitVectorCalculatorOptions.ext] {{
    {" ".join(f"ranges {{ begin: {i} end: {i + 1} }}" for i in range(outputs))} }} }} }}
{chr(10).join(f'node {{ calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:t{i}" '
              f'output_stream: "FLOATS:{n}" }}' for i, n in enumerate(names))}
"""
    graph = calculator_graph.CalculatorGraph(graph_config=config)
    results: dict[str, np.ndarray] = {}
    for name in ["input_floats", *names]:
        def keep(_stream: object, packet: object, n: str = name) -> None:
            results[n] = np.array(packet_getter.get_float_list(packet), np.float32)

        graph.observe_output_stream(name, keep)
    graph.start_run()
    yy, xx = np.mgrid[0:height, 0:width]
    rings = ((xx - width // 2) ** 2 + (yy - height // 2) ** 2) // 40 % 256
    image = np.stack([(xx * 1.3 + yy) % 256, (yy * 2 + 40) % 256, rings], -1).astype(np.uint8)
    frame = packet_creator.create_image_frame(image_format=image_frame.ImageFormat.SRGB, data=image)
    graph.add_packet_to_input_stream("image", frame.at(0))
    graph.close()
    return results["input_floats"], [results[n] for n in names]


def run_folders(root: Path) -> None:
    """`--run-dir`: runs `<case>/model.tflite` for every case folder and writes `output_<i>.npy` or `error.txt`.

    tools/make_custom_op_models.py uses this to get MediaPipe's own kernels' answers for single-op
    cases: it rewrites each case so its operands are constants and its only graph input is an unused
    `[1, 1, 1, 3]` image tensor, which is what this graph can feed.
    """
    for folder in sorted(p for p in root.iterdir() if (p / "model.tflite").exists()):
        _, inputs, outputs = model_info(folder / "model.tflite")
        try:
            _, height, width, _ = inputs[0]
            _, results = run_mediapipe(folder / "model.tflite", height, width, len(outputs))
            for i, (values, shape) in enumerate(zip(results, outputs)):
                np.save(folder / f"output_{i}.npy", values.reshape(shape))
        except Exception as error:  # recorded for the caller, which keeps going with other references
            (folder / "error.txt").write_text(" | ".join(str(error).splitlines()[:2])[:300])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("/tmp/openmlkit-mediapipe-parity"))
    parser.add_argument("--run-dir", type=Path, help="run the single-op case models in this folder instead")
    args = parser.parse_args()
    if args.run_dir:
        run_folders(args.run_dir)
        return
    root = wheel_root()
    found = 0
    for path in sorted(root.rglob("*.tflite")):
        customs, inputs, outputs = model_info(path)
        if not customs:
            continue
        if len(inputs) != 1 or len(inputs[0]) != 4 or inputs[0][3] != 3:
            print(f"{path.name}: uses {sorted(customs)}, but its input {inputs} is not one RGB image; skipped")
            continue
        _, height, width, _ = inputs[0]
        given, results = run_mediapipe(path, height, width, len(outputs))
        folder = args.out / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "model_path.txt").write_text(str(path.resolve()) + "\n")
        np.save(folder / "input_0.npy", given.reshape(inputs[0]))
        for i, (values, shape) in enumerate(zip(results, outputs)):
            np.save(folder / f"output_{i}.npy", values.reshape(shape))
        found += 1
        print(f"{path.relative_to(root)}: {sorted(customs)}; {len(outputs)} outputs written to {folder}")
    print(f"{found} wheel models with MediaPipe custom ops")


if __name__ == "__main__":
    main()
