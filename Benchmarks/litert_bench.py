#!/usr/bin/env python3
"""One LiteRT measurement in a fresh process: what `mlkit bench --json` measures, for LiteRT.

load_ms: from the model file to the end of allocate_tensors(); median/p90 of invoke(); peak RSS of
this process (Python + numpy + LiteRT). XNNPACK is LiteRT's default delegate and is on unless
--reference is given (then the built-in reference kernels run, as in the parity checks).
"""
import argparse
import json
import resource
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--reference", action="store_true", help="built-in kernels instead of XNNPACK")
    args = parser.parse_args()

    start = time.perf_counter()
    resolver = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES if args.reference else OpResolverType.AUTO
    interpreter = Interpreter(model_path=args.model, num_threads=args.threads, experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    load_ms = (time.perf_counter() - start) * 1000

    rng = np.random.default_rng(0)
    for detail in interpreter.get_input_details():
        dtype = detail["dtype"]
        if np.issubdtype(dtype, np.floating):
            value = rng.uniform(-1, 1, detail["shape"]).astype(dtype)
        else:
            info = np.iinfo(dtype)
            value = rng.integers(max(info.min, -128), min(info.max, 255), detail["shape"], endpoint=True).astype(dtype)
        interpreter.set_tensor(detail["index"], value)
    for _ in range(args.warmup):
        interpreter.invoke()
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        interpreter.invoke()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(json.dumps({
        "model": args.model, "threads": args.threads, "runs": args.runs, "load_ms": round(load_ms, 3),
        "median_ms": round(float(np.percentile(times, 50)), 4), "p90_ms": round(float(np.percentile(times, 90)), 4),
        "min_ms": round(times[0], 4), "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 3),
        "delegate": "reference" if args.reference else "xnnpack",
    }))


if __name__ == "__main__":
    main()
