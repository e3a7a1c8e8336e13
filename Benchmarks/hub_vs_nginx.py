#!/usr/bin/env python3
"""ModelHub downloads against nginx serving the same file statically, side by side, same run.

    python3 Benchmarks/hub_vs_nginx.py --mlkit .build/release/mlkit

For each file (a ~3.6 MB and a ~10 KB model from ../shared/models) the hub and nginx are measured
alternately with wrk (`-t2 -c50 -d10s` unless told otherwise), `--rounds` times each; the table
shows the median requests/s. The hub runs as in production: its real download route with an app
key (wrk sends `X-App-Key`), its access log on (standard output to a file), metrics on (always),
its default SQLite catalogue. nginx (Benchmarks/nginx/static.conf.in) serves copies of the same
bytes at the same URL paths, with sendfile and its access log on. Both listen on loopback and
share the machine with wrk. The result replaces the section between the hub-vs-nginx markers in
BENCHMARKS.md (the rest of the file is left alone).

nginx and wrk are installed with apt-get when missing.
"""
import argparse
import datetime
import hashlib
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATIC_TEMPLATE = ROOT / "Benchmarks" / "nginx" / "static.conf.in"
START = "<!-- hub-vs-nginx:start -->"
END = "<!-- hub-vs-nginx:end -->"
APP_KEY = "bench-app-" + uuid.uuid4().hex
ADMIN_TOKEN = "bench-admin-" + uuid.uuid4().hex
FILES = [("big", "mobilenet_v2_1.0_224_quant.tflite"), ("small", "stop_sign_int8.tflite")]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_tools() -> None:
    wanted = {"nginx": "nginx-light", "wrk": "wrk"}
    missing = [package for binary, package in wanted.items()
               if not (shutil.which(binary) or Path(f"/usr/sbin/{binary}").exists())]
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, timeout=600, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq"] + missing, check=True, timeout=600, env=env)


def start(command: list[str], stdout, stderr) -> subprocess.Popen:
    return subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, start_new_session=True)


def stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


def get(url: str, headers: dict | None = None) -> bytes:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=30) as response:
        return response.read()


def start_hub(mlkit: str, work: Path) -> tuple[subprocess.Popen, int, Path]:
    access_log = work / "hub-access.log"
    with open(access_log, "wb") as out, open(work / "hub.err", "wb") as err:
        hub = start([mlkit, "hub", "serve", "--data", str(work / "hub-data"), "--port", "0", "--admin-token",
                     ADMIN_TOKEN, "--app-key", APP_KEY], out, err)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and hub.poll() is None:
        found = re.search(r"ModelHub listening on http://[0-9.]+:(\d+)", access_log.read_text(errors="replace"))
        if found:
            return hub, int(found.group(1)), access_log
        time.sleep(0.05)
    stop(hub)
    raise RuntimeError(f"the hub did not start: {(work / 'hub.err').read_text(errors='replace')[-2000:]}")


def start_nginx(work: Path) -> tuple[subprocess.Popen, int]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    for _ in range(5):
        port = free_port()
        conf = STATIC_TEMPLATE.read_text()
        for key, value in {"@USER@": "user root;" if os.geteuid() == 0 else "", "@TMP@": str(work),
                           "@PORT@": str(port)}.items():
            conf = conf.replace(key, value)
        (work / "nginx.conf").write_text(conf)
        with open(work / "nginx.stderr", "ab") as err:
            process = start([nginx, "-p", str(work), "-e", str(work / "nginx-error.log"), "-c",
                             str(work / "nginx.conf")], subprocess.DEVNULL, err)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return process, port
            except OSError:
                time.sleep(0.1)
        stop(process)
    raise RuntimeError(f"nginx did not start: {(work / 'nginx-error.log').read_text(errors='replace')[-2000:]}")


def wrk(url: str, args, headers: list[str]) -> dict:
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}", "--latency"]
    for header in headers:
        command += ["-H", header]
    out = subprocess.run(command + [url], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"wrk failed: {out.stderr.strip()}")
    text = out.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    p50 = re.search(r"\s50%\s+(\S+)", text)
    p99 = re.search(r"\s99%\s+(\S+)", text)
    return {"rps": rps, "requests": requests, "non2xx": int(bad.group(1)) if bad else 0,
            "socket_errors": sum(int(g) for g in errors.groups()) if errors else 0,
            "p50": p50.group(1) if p50 else "?", "p99": p99.group(1) if p99 else "?"}


def machine() -> tuple[str, str]:
    cpu, flags = "unknown CPU", []
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
            if line.startswith("Flags:"):
                flags = line.split(":", 1)[1].split()
    except (OSError, subprocess.SubprocessError):
        pass
    simd = [f for f in ["avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni"] if f in flags]
    return cpu, (" ".join(simd) if simd else "no AVX2/AVX-512")


def write_section(output: Path, section: str) -> None:
    text = output.read_text() if output.exists() else ""
    block = f"{START}\n{section.rstrip()}\n{END}"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    output.write_text(text)


def version_of(tool: list[str]) -> str:
    try:
        out = subprocess.run(tool, capture_output=True, text=True, timeout=10)
        return (out.stdout + out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mlkit", default=str(ROOT / ".build/release/mlkit"))
    parser.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--no-write", action="store_true", help="print the section, leave BENCHMARKS.md alone")
    args = parser.parse_args()

    models = Path(args.models)
    files = [(name, models / file) for name, file in FILES]
    missing = [str(p) for _, p in files if not p.exists()]
    if missing:
        log(f"missing models: {', '.join(missing)}")
        return 1
    ensure_tools()
    mlkit = str(Path(args.mlkit).absolute())

    work = Path(tempfile.mkdtemp(prefix="hub-vs-nginx-"))
    os.chmod(work, 0o755)
    hub = nginx = None
    rows = []
    try:
        hub, hub_port, access_log = start_hub(mlkit, work)
        nginx, nginx_port = start_nginx(work)
        for name, path in files:
            data = path.read_bytes()
            request = urllib.request.Request(f"http://127.0.0.1:{hub_port}/v1/models/{name}/versions", data=data,
                                             method="POST", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
            with urllib.request.urlopen(request, timeout=60) as response:
                if response.status != 201:
                    raise RuntimeError(f"publishing {path.name}: {response.status}")
            route = f"/v1/models/{name}/versions/1/download"
            static = work / "static" / route.lstrip("/")
            static.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, static)
            digest = hashlib.sha256(data).hexdigest()
            for server, port in (("hub", hub_port), ("nginx", nginx_port)):
                body = get(f"http://127.0.0.1:{port}{route}", {"X-App-Key": APP_KEY})
                if hashlib.sha256(body).hexdigest() != digest:
                    raise RuntimeError(f"{server} serves other bytes for {route}")

        header = [f"X-App-Key: {APP_KEY}"]
        for name, path in files:
            size = path.stat().st_size
            route = f"/v1/models/{name}/versions/1/download"
            runs = {"hub": [], "nginx": []}
            for round_ in range(args.rounds):
                # Alternate which goes first, so neither always gets the warmer machine.
                order = [("hub", hub_port), ("nginx", nginx_port)]
                if round_ % 2:
                    order.reverse()
                for server, port in order:
                    result = wrk(f"http://127.0.0.1:{port}{route}", args, header)
                    if result["non2xx"] or result["socket_errors"]:
                        raise RuntimeError(f"{server} {path.name}: {result['non2xx']} non-2xx answers, "
                                           f"{result['socket_errors']} socket errors")
                    runs[server].append(result)
                    log(f"{path.name} round {round_ + 1} {server}: {result['rps']:.0f} req/s "
                        f"({result['requests']} requests, p50 {result['p50']}, p99 {result['p99']})")
            hub_rps = statistics.median(r["rps"] for r in runs["hub"])
            nginx_rps = statistics.median(r["rps"] for r in runs["nginx"])
            # Latencies of the median round (by requests/s).
            hub_mid = sorted(runs["hub"], key=lambda r: r["rps"])[len(runs["hub"]) // 2]
            nginx_mid = sorted(runs["nginx"], key=lambda r: r["rps"])[len(runs["nginx"]) // 2]
            rows.append((path.name, size, hub_rps, nginx_rps, f"{hub_mid['p50']} / {hub_mid['p99']}",
                         f"{nginx_mid['p50']} / {nginx_mid['p99']}",
                         [r["rps"] for r in runs["hub"]], [r["rps"] for r in runs["nginx"]]))

        logged = sum(1 for line in access_log.read_text(errors="replace").splitlines() if " GET " in line)
        if hub.poll() is not None or nginx.poll() is not None:
            raise RuntimeError("a server died during the benchmark")
    finally:
        stop(hub)
        stop(nginx)

    cpu, simd = machine()
    date = datetime.date.today().isoformat()
    shown = os.path.relpath(mlkit, ROOT) if Path(mlkit).is_relative_to(ROOT) else mlkit
    command = (f"python3 Benchmarks/hub_vs_nginx.py --mlkit {shown} --threads {args.threads} "
               f"--connections {args.connections} --duration {args.duration} --rounds {args.rounds}")
    lines = [
        "## ModelHub downloads vs nginx",
        "",
        f"`wrk -t{args.threads} -c{args.connections} -d{args.duration}` on one model download URL, the hub "
        f"(`mlkit hub serve`, release build, app key sent as `X-App-Key`, access log to a file, metrics on, "
        f"SQLite catalogue) and nginx ({version_of(['nginx', '-v'])}, the same bytes as a static file, "
        f"`sendfile on`, access log on) measured alternately, {args.rounds} rounds each; median requests/s. "
        f"Everything on loopback on one machine: {cpu}, {os.cpu_count()} logical CPUs ({simd}); "
        f"wrk, the server and the kernel share those CPUs. MB/s is 10^6 bytes of body per second; latencies "
        f"are wrk's, from the median round.",
        "",
        "| file | size | hub req/s | nginx req/s | hub / nginx | hub MB/s | nginx MB/s | hub p50 / p99 | nginx p50 / p99 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, size, hub_rps, nginx_rps, hub_latency, nginx_latency, _, _ in rows:
        lines.append(f"| {name} | {size:,} B | {hub_rps:,.0f} | {nginx_rps:,.0f} | **{hub_rps / nginx_rps:.2f}** | "
                     f"{hub_rps * size / 1e6:,.0f} | {nginx_rps * size / 1e6:,.0f} | {hub_latency} | {nginx_latency} |")
    lines += [
        "",
        "Rounds (req/s): " + "; ".join(
            f"{name}: hub {', '.join(f'{x:.0f}' for x in h)}, nginx {', '.join(f'{x:.0f}' for x in n)}"
            for name, _, _, _, _, _, h, n in rows) + f". The hub logged {logged:,} GET lines.",
        "",
        f"Measured {date} with `{command}`.",
    ]
    section = "\n".join(lines) + "\n"
    print(section)
    if not args.no_write:
        write_section(Path(args.output), section)
        log(f"wrote the section to {args.output}")
    if os.environ.get("KEEP_WORK"):
        log(f"work directory kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
