#!/usr/bin/env python3
"""A one-operator model with a custom operator no runtime knows, for the custom-operator API test.

    .venv/bin/python tools/make_custom_api_fixture.py

Writes `Tests/TFLiteRuntimeTests/Fixtures/custom_api/scale_by.tflite`: input float32 [2, 3], the
custom operator `ScaleBy` (version 1) with FlexBuffer options {"scale": 2.5, "offset": 1, "name":
"demo", "axes": [0, 1]}, output float32. The test registers its own kernel for it.
"""

import sys
from pathlib import Path

from flatbuffers import flexbuffers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from opmodel import Case, build, inp, out  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
options = flexbuffers.Dumps({"scale": 2.5, "offset": 1, "name": "demo", "axes": [0, 1]})
case = Case("scale_by", "CUSTOM:ScaleBy", [inp("float32", [2, 3])], [out("float32", [2, 3])], custom_options=options)
folder = ROOT / "Tests/TFLiteRuntimeTests/Fixtures/custom_api"
folder.mkdir(parents=True, exist_ok=True)
(folder / "scale_by.tflite").write_bytes(build(case))
print(f"wrote {folder / 'scale_by.tflite'}")
