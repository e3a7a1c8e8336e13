#!/usr/bin/env python3
"""Side-by-side benchmark: OpenMLKit (`mlkit bench`) against LiteRT with XNNPACK, same run.

For every model and thread count, the two runtimes are measured alternately, each in a fresh
process, `--rounds` times; the table shows the median over rounds of each figure and the ratio
ours/LiteRT. The result, with a description of the machine, is written to BENCHMARKS.md (never
edit that file by hand; run this again).

    .venv/bin/python Benchmarks/side_by_side.py --mlkit .build/release/mlkit

The float MobileNetV2 is made by Benchmarks/make_bench_models.py (TensorFlow, .venv-tf).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "models"
MODELS = [
    ("MobileNetV2 1.0 224 float (random weights)", ROOT / "out/bench/mobilenet_v2_1.0_224_float.tflite"),
    ("cup_model (float)", SHARED / "cup_model.tflite"),
    ("MobileNetV2 1.0 224 uint8", SHARED / "mobilenet_v2_1.0_224_quant.tflite"),
    ("TF2 MobileNetV2 1.0 224 int8", SHARED / "tf2_mobilenet_v2_1.0_224_ptq.tflite"),
    ("traffic_model (uint8 detector + LSTM)", SHARED / "traffic_model.tflite"),
]
FIELDS = ["load_ms", "median_ms", "p90_ms", "peak_rss_mb"]


def run_json(command: list[str]) -> dict:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        flags = next(l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("flags")).split()
        simd = " ".join(f for f in ["avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni"] if f in flags)
    except (OSError, StopIteration):
        simd = "?"
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    try:
        from importlib.metadata import version
        litert = version("ai-edge-litert")
    except Exception:
        litert = "?"
    return (f"{cpu}, {os.cpu_count()} logical CPUs ({simd}); {platform.system()} {platform.release()}; "
            f"{swift[0] if swift else 'swift ?'}; ai-edge-litert {litert}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlkit", default=str(ROOT / ".build/release/mlkit"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--load-rounds", type=int, default=9,
                        help="extra fresh processes per runtime that only load the model (load time is noisy)")
    parser.add_argument("--only", help="substring of the model names to run")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args()

    threads = [int(t) for t in args.threads.split(",")]
    rows = []
    for label, path in MODELS:
        if args.only and args.only not in label and args.only not in path.name:
            continue
        if not path.exists():
            print(f"skip {label}: {path} is missing", file=sys.stderr)
            rows.append((label, None, None, None))
            continue
        for t in threads:
            ours, theirs = [], []
            for _ in range(args.rounds):
                common = ["--threads", str(t), "--runs", str(args.runs), "--warmup", str(args.warmup)]
                theirs.append(run_json([sys.executable, str(ROOT / "Benchmarks/litert_bench.py"), str(path)] + common))
                ours.append(run_json([args.mlkit, "bench", str(path), "--json"] + common))
            # Load time varies more between processes than latency does: besides the rounds above,
            # fresh processes that load and invoke once, alternately.
            load_only = ["--threads", str(t), "--runs", "1", "--warmup", "0"]
            for _ in range(args.load_rounds):
                theirs.append({"load_ms": run_json([sys.executable, str(ROOT / "Benchmarks/litert_bench.py"), str(path)] + load_only)["load_ms"]})
                ours.append({"load_ms": run_json([args.mlkit, "bench", str(path), "--json"] + load_only)["load_ms"]})
            o = {f: statistics.median(r[f] for r in ours if f in r) for f in FIELDS}
            l = {f: statistics.median(r[f] for r in theirs if f in r) for f in FIELDS}
            rows.append((label, t, o, l))
            print(f"{label} t={t}: ours {o['median_ms']:.2f} ms, LiteRT {l['median_ms']:.2f} ms, "
                  f"ratio {o['median_ms'] / l['median_ms']:.2f}", file=sys.stderr)

    lines = ["| model | threads | ours median ms | LiteRT median ms | ratio | ours p90 | LiteRT p90 | ours load ms | LiteRT load ms | load ratio | ours peak MB | LiteRT peak MB | mem ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, t, o, l in rows:
        if o is None:
            lines.append(f"| {label} | – | missing | | | | | | | | | | |")
            continue
        lines.append(
            f"| {label} | {t} | {o['median_ms']:.2f} | {l['median_ms']:.2f} | **{o['median_ms'] / l['median_ms']:.2f}** | "
            f"{o['p90_ms']:.2f} | {l['p90_ms']:.2f} | {o['load_ms']:.1f} | {l['load_ms']:.1f} | {o['load_ms'] / l['load_ms']:.2f} | "
            f"{o['peak_rss_mb']:.1f} | {l['peak_rss_mb']:.1f} | {o['peak_rss_mb'] / l['peak_rss_mb']:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    text = f"""# Benchmarks: OpenMLKit against LiteRT (XNNPACK), side by side

Generated by `Benchmarks/side_by_side.py` on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC.
Do not edit by hand: run it again.

Machine: {machine()}.

Each figure is the median over {args.rounds} alternating rounds; each round runs LiteRT
(`Benchmarks/litert_bench.py`, Python, XNNPACK delegate on) and then `mlkit bench --json`, each in
a fresh process, with {args.warmup} warm-up and {args.runs} timed invokes at the same thread count on
seeded random inputs. Ratio = ours / LiteRT (lower is better for us). Load = file to the end of
`allocateTensors()`, the median over those rounds and {args.load_rounds} more alternating pairs of
fresh processes that only load the model and invoke it once. Peak memory is each process's peak resident set (LiteRT's includes the
Python interpreter and numpy; ours the Swift runtime).

{table}
"""
    # Other benchmarks keep their own marked sections of the file (Benchmarks/hub_vs_nginx.py).
    output = Path(args.output)
    if output.exists():
        old = output.read_text()
        start, end = old.find("<!-- hub-vs-nginx:start -->"), old.find("<!-- hub-vs-nginx:end -->")
        if start >= 0 and end > start:
            text = text.rstrip("\n") + "\n\n" + old[start:end + len("<!-- hub-vs-nginx:end -->")] + "\n"
    output.write_text(text)
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
