#!/usr/bin/env python3
"""Fixtures for RandomOperatorTests (RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL).

    .venv/bin/python tools/make_random_fixtures.py

Writes `Tests/TFLiteRuntimeTests/Fixtures/random_ops/`:
- `unseeded_<op>.tflite`: seeds 0 and 0, where LiteRT draws fresh seeds, so only shape, range and
  distribution can be tested;
- `seeded_<op>.tflite` with `seeded_<op>_invoke<k>.npy`: LiteRT's outputs of three invokes of one
  interpreter (the generator moves on with every invoke).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import opmodel  # noqa: E402
from litert_common import make_interpreter  # noqa: E402
from opmodel import Case, const, out  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "Tests/TFLiteRuntimeTests/Fixtures/random_ops"


def models(seed: int, seed2: int) -> dict[str, Case]:
    options = ("RandomOptions", {"seed": seed, "seed2": seed2})
    return {
        "uniform": Case("u", "RANDOM_UNIFORM", [const("int32", [2], [100, 50])], [out("float32", [100, 50])],
                        options=options),
        "normal": Case("n", "RANDOM_STANDARD_NORMAL", [const("int32", [2], [100, 51])], [out("float32", [100, 51])],
                       options=options),
        "multinomial": Case("m", "MULTINOMIAL", [const("float32", [2, 4], [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]),
                                                 const("int32", [], 4000)], [out("int64", [2, 4000])],
                            options=options),
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, case in models(0, 0).items():
        (OUT / f"unseeded_{name}.tflite").write_bytes(opmodel.build(case))
    for name, case in models(17, 29).items():
        model = opmodel.build(case)
        (OUT / f"seeded_{name}.tflite").write_bytes(model)
        interpreter = make_interpreter(model)
        interpreter.allocate_tensors()
        detail = interpreter.get_output_details()[0]
        for k in range(3):
            interpreter.invoke()
            np.save(OUT / f"seeded_{name}_invoke{k}.npy", np.array(interpreter.get_tensor(detail["index"])))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
