#!/usr/bin/env python3
"""Thread scaling: 1 against 2 threads, ours and LiteRT (XNNPACK), alternating in one run.

For every model, each round runs every runtime at 1 and then 2 threads, each in a fresh process
(the runtimes alternate, so a burst of load from other processes hits all of them alike). Per
runtime and model it prints the median over rounds of: the median invoke time at 1 and 2
threads, the speedup (1-thread median / 2-thread median, per round), and p90/median at 2 threads.

    python Benchmarks/thread_scaling.py --ours new='.build/release/mlkit bench {model} --json' \
        --ours old='/path/to/old/mlkit bench {model} --json' [--busy-cpu 1]

`--busy-cpu N` runs a busy loop pinned to CPU N (taskset) for the whole run: one slower vCPU.
`--model PATH` (repeatable) measures those models instead of side_by_side.py's benchmark set.
"""
import argparse
import json
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The benchmark set and the JSON runner are side_by_side.py's, so the two tools measure the same models.
from side_by_side import MODELS, ROOT, run_json  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", action="append", default=[], metavar="NAME=COMMAND",
                        help="a command printing `mlkit bench --json`'s line; {model} is the model path")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="substring of the model names to run")
    parser.add_argument("--busy-cpu", type=int, help="pin a busy loop to this CPU for the whole run")
    parser.add_argument("--model", action="append", default=[], type=Path, metavar="PATH",
                        help="measure this .tflite instead of the benchmark set (repeatable)")
    args = parser.parse_args()

    runtimes = [("LiteRT", [sys.executable, str(ROOT / "Benchmarks/litert_bench.py"), "{model}"])]
    for spec in args.ours:
        name, command = spec.split("=", 1)
        runtimes.append((name, shlex.split(command)))
    busy = None
    if args.busy_cpu is not None:
        busy = subprocess.Popen(["taskset", "-c", str(args.busy_cpu), sys.executable, "-c", "while True: pass"])
    try:
        print("| model | runtime | median ms, 1 thread | median ms, 2 threads | speedup | p90/median, 2 threads |")
        print("|---|---|---|---|---|---|")
        models = [(path.name, path) for path in args.model] if args.model else MODELS
        for label, path in models:
            if args.only and args.only not in label and args.only not in path.name:
                continue
            if not path.exists():
                print(f"skip {label}: {path} is missing", file=sys.stderr)
                continue
            results = {name: [] for name, _ in runtimes}
            for _ in range(args.rounds):
                for name, template in runtimes:
                    pair = []
                    for threads in (1, 2):
                        command = [part.replace("{model}", str(path)) for part in template]
                        command += ["--threads", str(threads), "--runs", str(args.runs), "--warmup", str(args.warmup)]
                        pair.append(run_json(command))
                    results[name].append(pair)
            for name, _ in runtimes:
                rounds = results[name]
                one = statistics.median(r[0]["median_ms"] for r in rounds)
                two = statistics.median(r[1]["median_ms"] for r in rounds)
                speedup = statistics.median(r[0]["median_ms"] / r[1]["median_ms"] for r in rounds)
                spread = statistics.median(r[1]["p90_ms"] / r[1]["median_ms"] for r in rounds)
                print(f"| {label} | {name} | {one:.2f} | {two:.2f} | {speedup:.2f} | {spread:.2f} |", flush=True)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


if __name__ == "__main__":
    main()
