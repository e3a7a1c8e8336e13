#!/usr/bin/env python3
"""Side-by-side benchmark: OpenMLKit (`mlkit bench`) against LiteRT with XNNPACK, same run.

For every model and thread count, the two runtimes are measured alternately, each in a fresh
process, `--rounds` times; the table shows the median over rounds of each figure and the ratio
ours/LiteRT. The result, with a description of the machine, is written to BENCHMARKS.md (never
edit that file by hand; run this again).

    .venv/bin/python Benchmarks/side_by_side.py --mlkit .build/release/mlkit

The float MobileNetV2 is made by Benchmarks/make_bench_models.py (TensorFlow, .venv-tf).

`--set real` runs every real model instead: ../shared/models, the published models that
tools/fetch_wheel_models.py takes out of PyPI wheels (out/wheel_models), the dynamic-range variants
Benchmarks/make_hybrid_models.py makes of some float ones (out/bench_real), any other .tflite
under out/bench_real, and the models inside the MediaPipe wheel when `.venv-mp010` has it installed
(face, hand, palm, pose, iris, selfie segmentation; those that need MediaPipe's custom operators
are skipped with the reason, since LiteRT alone cannot run them); it prints the table and the median ratio per thread count and writes nothing
unless --output is given, and then only its own marked section of that file. `--callgrind` adds, at one thread, each runtime's instructions per invoke
(valgrind's count, the difference between 1 and 1 + N invokes, divided by N: immune to the load
of other processes, unlike the times).
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
WHEEL_MODELS = ROOT / "out/wheel_models"
REAL_EXTRA = ROOT / "out/bench_real"
MEDIAPIPE = ROOT / ".venv-mp010"


def real_models() -> list[tuple[str, Path]]:
    """Every real model on this machine (see the module doc), labelled by file name."""
    paths = sorted(SHARED.glob("*.tflite")) + sorted(SHARED.glob("*/*.tflite"))
    paths += sorted(WHEEL_MODELS.glob("*.tflite")) + sorted(REAL_EXTRA.glob("*.tflite"))
    models = [(p.name if p.parent in (SHARED, WHEEL_MODELS, REAL_EXTRA) else f"{p.parent.name}/{p.name}", p)
              for p in paths]
    models += [(f"mediapipe/{p.name}", p) for p in sorted(MEDIAPIPE.glob("lib/python*/site-packages/mediapipe/modules/*/*.tflite"))]
    return models


def instructions(command: list[str]) -> int:
    """Instructions valgrind counts for `command` (all threads)."""
    out = ROOT / "out" / "callgrind.tmp"
    out.parent.mkdir(exist_ok=True)
    result = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + command,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"callgrind {' '.join(command)} failed: {result.stderr.strip()[-500:]}")
    for line in out.read_text().splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")


def per_invoke_instructions(command: list[str], extra: int) -> float:
    """Instructions of one invoke: (1 + extra invokes) minus 1 invoke, over extra."""
    base = ["--threads", "1", "--warmup", "0", "--runs"]
    one = instructions(command + base + ["1"])
    more = instructions(command + base + [str(1 + extra)])
    return (more - one) / extra


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
    parser.add_argument("--output", default=None, help="default BENCHMARKS.md (the default set only)")
    parser.add_argument("--set", choices=["default", "real"], default="default", help="which models")
    parser.add_argument("--callgrind", type=int, default=0, metavar="N",
                        help="also count instructions per invoke over N invokes at 1 thread (valgrind)")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args()

    threads = [int(t) for t in args.threads.split(",")]
    if args.output is None and args.set == "default":
        args.output = str(ROOT / "BENCHMARKS.md")
    if args.output is None:
        args.no_write = True
    models = MODELS if args.set == "default" else real_models()
    rows = []
    counts = {}
    skipped: list[str] = []
    for label, path in models:
        if args.only and args.only not in label and args.only not in path.name:
            continue
        if not path.exists():
            print(f"skip {label}: {path} is missing", file=sys.stderr)
            rows.append((label, None, None, None))
            continue
        try:
            run_json([sys.executable, str(ROOT / "Benchmarks/litert_bench.py"), str(path), "--runs", "1", "--warmup", "0"])
        except RuntimeError as error:
            print(f"skip {label}: LiteRT cannot run it ({str(error)[-200:]})", file=sys.stderr)
            skipped.append(label)
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
        if args.callgrind:
            # valgrind 3.19 cannot read the DWARF 5 that Swift emits: count a copy without debug info.
            stripped = ROOT / "out" / "mlkit-stripped"
            if not stripped.exists() or stripped.stat().st_mtime < Path(args.mlkit).stat().st_mtime:
                subprocess.run(["objcopy", "--strip-debug", args.mlkit, str(stripped)], check=True)
            ours_i = per_invoke_instructions([str(stripped), "bench", str(path), "--json"], args.callgrind)
            theirs_i = per_invoke_instructions(
                [sys.executable, str(ROOT / "Benchmarks/litert_bench.py"), str(path)], args.callgrind)
            counts[label] = (ours_i, theirs_i)
            print(f"{label}: instructions per invoke ours {ours_i / 1e6:.2f} M, LiteRT {theirs_i / 1e6:.2f} M, "
                  f"ratio {ours_i / theirs_i:.2f}", file=sys.stderr)

    def ms(value: float) -> str:
        """Milliseconds, with a tenth of a microsecond below 0.1 ms (tiny models' ratios need it)."""
        return f"{value:.2f}" if value >= 0.1 else f"{value:.4f}"

    lines = ["| model | threads | ours median ms | LiteRT median ms | ratio | ours p90 | LiteRT p90 | ours load ms | LiteRT load ms | load ratio | ours peak MB | LiteRT peak MB | mem ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, t, o, l in rows:
        if o is None:
            lines.append(f"| {label} | – | missing | | | | | | | | | | |")
            continue
        lines.append(
            f"| {label} | {t} | {ms(o['median_ms'])} | {ms(l['median_ms'])} | **{o['median_ms'] / l['median_ms']:.2f}** | "
            f"{ms(o['p90_ms'])} | {ms(l['p90_ms'])} | {o['load_ms']:.1f} | {l['load_ms']:.1f} | {o['load_ms'] / l['load_ms']:.2f} | "
            f"{o['peak_rss_mb']:.1f} | {l['peak_rss_mb']:.1f} | {o['peak_rss_mb'] / l['peak_rss_mb']:.2f} |")
    for t in threads:
        ratios = [o["median_ms"] / l["median_ms"] for _, tt, o, l in rows if o is not None and tt == t]
        if ratios:
            over = sum(r > 1.5 for r in ratios)
            lines.append(f"| **median of {len(ratios)} models** | {t} | | | **{statistics.median(ratios):.2f}** "
                         f"| | | | | | | | |")
            print(f"threads {t}: median ratio {statistics.median(ratios):.2f} over {len(ratios)} models, "
                  f"{over} over 1.5, max {max(ratios):.2f}", file=sys.stderr)
    if counts:
        lines += ["", "| model | ours instructions per invoke (M) | LiteRT (M) | ratio |", "|---|---|---|---|"]
        for label, (a, b) in counts.items():
            lines.append(f"| {label} | {a / 1e6:.2f} | {b / 1e6:.2f} | **{a / b:.2f}** |")
        ratios = [a / b for a, b in counts.values()]
        lines.append(f"| **median of {len(ratios)} models** | | | **{statistics.median(ratios):.2f}** |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    if args.set == "real":
        write_real_section(Path(args.output), table, args, skipped, threads, rows)
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
    # Other runs keep their own marked sections of the file (`--set real`, Benchmarks/hub_vs_nginx.py).
    output = Path(args.output)
    if output.exists():
        old = output.read_text()
        for name in ("real-models", "hub-vs-nginx"):
            start, end = old.find(f"<!-- {name}:start -->"), old.find(f"<!-- {name}:end -->")
            if start >= 0 and end > start:
                text = text.rstrip("\n") + "\n\n" + old[start:end + len(f"<!-- {name}:end -->")] + "\n"
    output.write_text(text)
    print(f"wrote {args.output}", file=sys.stderr)


def write_real_section(output: Path, table: str, args, skipped: list[str], threads: list[int], rows) -> None:
    """Replaces (or appends) the real-model section of `output`, leaving the rest of the file."""
    summary = []
    for t in threads:
        ratios = [o["median_ms"] / l["median_ms"] for _, tt, o, l in rows if o is not None and tt == t]
        if ratios:
            summary.append(f"{t} thread{'s' if t > 1 else ''}: median ratio **{statistics.median(ratios):.2f}** over "
                           f"{len(ratios)} models, {sum(r > 1.5 for r in ratios)} over 1.5, max {max(ratios):.2f}")
    section = f"""<!-- real-models:start -->
## Real published models

`Benchmarks/side_by_side.py --set real` on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: every
model in ../shared/models, the models taken out of PyPI wheels by tools/fetch_wheel_models.py, the
dynamic-range variants Benchmarks/make_hybrid_models.py makes of some float ones, and the models
inside the MediaPipe 0.10.14 wheel. Machine: {machine()}. The same method as above, with
{args.rounds} round(s), {args.runs} timed invokes and {args.load_rounds} extra load-only pairs per model.
Models of a few microseconds are dominated by each runtime's fixed cost per invoke (LiteRT's is
called from Python here, which adds to its figure, not ours).

{chr(10).join("- " + line for line in summary)}
{"" if not skipped else chr(10) + "Not run (LiteRT alone cannot run them): " + ", ".join(skipped) + "." + chr(10)}
{table}
<!-- real-models:end -->
"""
    old = output.read_text() if output.exists() else ""
    start, end = old.find("<!-- real-models:start -->"), old.find("<!-- real-models:end -->")
    if start >= 0 and end > start:
        text = old[:start] + section.rstrip("\n") + old[end + len("<!-- real-models:end -->"):]
    else:
        hub = old.find("<!-- hub-vs-nginx:start -->")
        text = (old[:hub] + section + "\n" + old[hub:]) if hub >= 0 else old.rstrip("\n") + "\n\n" + section
    output.write_text(text)
    print(f"wrote the real-model section of {output}", file=sys.stderr)


if __name__ == "__main__":
    main()
