#!/usr/bin/env python3
"""Two ModelHub replicas behind nginx, one of them killed under load: nothing may be lost.

    python3 tools/hub_replicas_test.py --mlkit .build/release/mlkit --models ../shared/models

Starts PostgreSQL (.ci/postgres-start) unless OPENMLKIT_TEST_POSTGRES_URL is set, makes a fresh
database, runs two `mlkit hub serve` replicas (own --data each, one shared --blobs, the same
--database) and nginx on loopback as their load balancer (Benchmarks/nginx/hub_replicas_lb.conf.in).
Then, at the same time: 1,000 downloads through nginx (each body's SHA-256 checked against the
catalogue) and 50 publishes of models of mixed sizes under three names, while one replica is
SIGKILLed and restarted on the same --data and port. Clients retry connection errors and 5xx
answers with a short backoff, as an app would.

Checks afterwards: every download finished with the right bytes; both replicas list the same
catalogue, each name's versions numbered 1..n, every one downloadable with its SHA-256; once
the orphan grace period has passed, the blob directory holds exactly the catalogued blobs; the
access log shows the client address nginx forwarded; a second hub on a running replica's --data
exits at once. Standard library only; every wait is bounded; every process started here is killed
(by process group) on the way out. The last line is `replicas: N passed, M failed`.
"""
import argparse
import hashlib
import http.client
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LB_TEMPLATE = ROOT / "Benchmarks" / "nginx" / "hub_replicas_lb.conf.in"
ADMIN_TOKEN = "replicas-admin-" + uuid.uuid4().hex
APP_KEY = "replicas-app-" + uuid.uuid4().hex
ORPHAN_GRACE = 5
NAMES = ["alpha", "beta", "gamma"]
# Downloaders connect from this loopback address; the hubs only see nginx (127.0.0.1), so this
# address in a hub's access log can only have come from X-Forwarded-For.
CLIENT_ADDRESS = "127.0.0.2"
BANNER = re.compile(r"ModelHub listening on http://([0-9.]+):(\d+)")
ACCESS_LINE = re.compile(
    r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) (\S+) ([A-Z]+) (/\S*) (\d{3}) (\d+) B (\d+(?:\.\d+)?) ms(?: .*)?$")
# Small to large, so some publishes are quick and some are cut off by the kill.
PUBLISH_FILES = [
    "stop_sign_int8.tflite",
    "tflite_support_dilated_conv_metadata.tflite",
    "mediapipe_face_detection_short_range_fp16.tflite",
    "mediapipe_selfie_segmentation_fp16.tflite",
    "mobilenet_v1_0.25_128_quant.tflite",
    "mobilenet_v2_1.0_224_quant.tflite",
]
INITIAL_FILE = "mobilenet_v1_0.25_128_quant.tflite"
RETRYABLE = (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError, OSError)


def log(message: str) -> None:
    print(message, flush=True)


class Results:
    """Named checks, printed as they are decided."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        log(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
        return ok


class Processes:
    """Every child started here, each in its own process group, killed on the way out."""

    def __init__(self) -> None:
        self.children: list[subprocess.Popen] = []

    def start(self, command: list[str], stdout, stderr) -> subprocess.Popen:
        # SIGTERM waits until the child is on the list: else it could be started and never killed.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            process = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
            self.children.append(process)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        return process

    @staticmethod
    def kill(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        if process.poll() is None:
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def stop_all(self) -> None:
        for process in reversed(self.children):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for process in self.children:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill(process)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_psql() -> str:
    found = shutil.which("psql")
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))
    if not candidates:
        raise RuntimeError("psql not found (install postgresql-client)")
    return str(candidates[-1])


class Postgres:
    """The test server (started here unless the environment names one) and a fresh database."""

    def __init__(self) -> None:
        self.started_dir: str | None = None
        self.base_url = os.environ.get("OPENMLKIT_TEST_POSTGRES_URL", "")
        self.database = f"hub_replicas_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        self.url = ""

    def start(self) -> None:
        if not self.base_url:
            script = ROOT / ".ci" / "postgres-start"
            out = subprocess.run([str(script)], capture_output=True, text=True, timeout=240)
            if out.returncode != 0:
                raise RuntimeError(f"postgres-start failed: {out.stderr.strip()[-2000:]}")
            line = out.stdout.strip().splitlines()[-1]
            values = dict(part.split("=", 1) for part in shlex.split(line)[1:])
            self.base_url = values["OPENMLKIT_TEST_POSTGRES_URL"]
            self.started_dir = values["OPENMLKIT_TEST_POSTGRES_DIR"]
        self.psql(f'CREATE DATABASE "{self.database}"')
        parts = urllib.parse.urlsplit(self.base_url)
        self.url = urllib.parse.urlunsplit(parts._replace(path="/" + self.database))

    def psql(self, sql: str) -> None:
        out = subprocess.run([find_psql(), self.base_url, "-v", "ON_ERROR_STOP=1", "-qc", sql],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError(f"psql {sql!r}: {out.stderr.strip()}")

    def stop(self) -> None:
        """Drops the database or stops the server started here; safe to call twice."""
        started_dir, self.started_dir = self.started_dir, None
        url, self.url = self.url, ""
        if started_dir:
            subprocess.run([str(ROOT / ".ci" / "postgres-stop"), started_dir], capture_output=True, timeout=120)
        elif url:
            try:
                self.psql(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            except Exception as error:  # noqa: BLE001 - clean-up is best effort
                log(f"note: could not drop {self.database}: {error}")


class Replica:
    """One `mlkit hub serve`; its stdout (the access log) is appended to one file across restarts."""

    def __init__(self, label: str, mlkit: str, work: Path, blobs: Path, database: str, processes: Processes):
        self.label = label
        self.mlkit = mlkit
        self.data = work / f"data-{label}"
        self.blobs = blobs
        self.database = database
        self.processes = processes
        self.log_path = work / f"hub-{label}.log"
        self.err_path = work / f"hub-{label}.err"
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def command(self, port: int) -> list[str]:
        return [self.mlkit, "hub", "serve", "--data", str(self.data), "--blobs", str(self.blobs),
                "--database", self.database, "--port", str(port), "--admin-token", ADMIN_TOKEN,
                "--app-key", APP_KEY, "--trusted-proxy", "127.0.0.1", "--orphan-grace", str(ORPHAN_GRACE),
                "--reconcile-interval", "1"]

    def start(self, timeout: float = 60) -> None:
        with open(self.log_path, "ab") as out, open(self.err_path, "ab") as err:
            self.process = self.processes.start(self.command(self.port), out, err)
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            banners = BANNER.findall(self.log_path.read_text(errors="replace"))
            if len(banners) >= self.starts:
                self.port = int(banners[-1][1])
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"replica {self.label} did not start: {self.err_path.read_text(errors='replace')[-2000:]}")

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class SourceAddressHandler(urllib.request.HTTPHandler):
    """Connects from CLIENT_ADDRESS (any 127/8 address is local on Linux)."""

    def http_open(self, req):
        return self.do_open(lambda host, **kw: http.client.HTTPConnection(
            host, source_address=(CLIENT_ADDRESS, 0), **kw), req)


def source_address_usable() -> bool:
    try:
        with socket.socket() as s:
            s.bind((CLIENT_ADDRESS, 0))
        return True
    except OSError:
        return False


class Client:
    """HTTP through nginx with an app's retry policy: connection errors and 5xx are retried."""

    def __init__(self, base: str, use_source: bool):
        self.base = base
        self.opener = urllib.request.build_opener(SourceAddressHandler) if use_source else urllib.request.build_opener()

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
                deadline_s: float = 60, timeout: float = 30) -> tuple[int, bytes, int]:
        """(status, body, retries). Raises RuntimeError when the deadline passes or on a 4xx."""
        retries = 0
        deadline = time.monotonic() + deadline_s
        last = ""
        while True:
            req = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
            try:
                with self.opener.open(req, timeout=timeout) as response:
                    return response.status, response.read(), retries
            except urllib.error.HTTPError as error:
                payload = error.read()
                if error.code < 500:
                    raise RuntimeError(f"{method} {path}: {error.code} {payload[:300]!r}") from None
                last = f"{error.code} {payload[:200]!r}"
            except RETRYABLE as error:
                last = f"{type(error).__name__}: {error}"
            retries += 1
            if time.monotonic() > deadline:
                raise RuntimeError(f"{method} {path}: gave up after {retries} tries, last: {last}")
            time.sleep(min(0.5, 0.05 * retries) * (0.5 + random.random()))


class Load:
    """The concurrent downloads and publishes, and what they saw."""

    def __init__(self, client: Client, models: Path, downloads: int, publishes: int, duration: float):
        self.client = client
        self.duration = duration
        self.began = time.monotonic()
        self.publishes_in_flight = 0
        self.downloads_in_flight = 0
        self.models = models
        self.lock = threading.Lock()
        self.known: dict[str, dict[int, str]] = {}  # name -> version -> sha256, from answers
        self.published_digests: dict[str, set[str]] = {name: set() for name in NAMES}
        self.downloads_target = downloads
        self.downloads_started = 0
        self.downloads_ok = 0
        self.downloads_failed: list[str] = []
        self.download_retries = 0
        self.download_bytes = 0
        self.publish_queue = list(range(publishes))
        self.publishes_ok = 0
        self.publishes_failed: list[str] = []
        self.publish_retries = 0

    def learn(self, name: str, version: dict) -> None:
        with self.lock:
            self.known.setdefault(name, {})[int(version["version"])] = version["sha256"]

    def publish_one(self, index: int) -> None:
        name = NAMES[index % len(NAMES)]
        path = self.models / PUBLISH_FILES[(index * 7 + index // 3) % len(PUBLISH_FILES)]
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        with self.lock:
            self.published_digests[name].add(digest)
        headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/octet-stream",
                   "X-Model-SHA256": digest}
        try:
            status, body, retries = self.client.request("POST", f"/v1/models/{name}/versions", data, headers,
                                                        deadline_s=60, timeout=60)
            version = json.loads(body)
            with self.lock:
                self.publish_retries += retries
            if status != 201 or version.get("sha256") != digest:
                raise RuntimeError(f"publish {name} answered {status} {body[:200]!r}")
            self.learn(name, version)
            with self.lock:
                self.publishes_ok += 1
        except Exception as error:  # noqa: BLE001 - every failure is reported
            with self.lock:
                self.publishes_failed.append(f"{name} {path.name}: {error}")

    def wait_for_turn(self, index: int, count: int) -> None:
        """Spreads the requests evenly over the load's duration, so the kill lands among them."""
        delay = self.began + self.duration * index / max(1, count) - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    def publisher(self) -> None:
        while True:
            with self.lock:
                if not self.publish_queue:
                    return
                index = self.publish_queue.pop(0)
                total = len(self.publish_queue) + index + 1
            self.wait_for_turn(index, total)
            with self.lock:
                self.publishes_in_flight += 1
            try:
                self.publish_one(index)
            finally:
                with self.lock:
                    self.publishes_in_flight -= 1

    def download_one(self, rng: random.Random) -> None:
        with self.lock:
            names = sorted(self.known)
        name = rng.choice(names)
        app = {"X-App-Key": APP_KEY}
        if rng.random() < 0.5:
            _, body, retries = self.client.request("GET", f"/v1/models/{name}/latest", headers=app)
            latest = json.loads(body)
            self.learn(name, latest)
            version, expected = int(latest["version"]), latest["sha256"]
        else:
            retries = 0
            with self.lock:
                version, expected = rng.choice(sorted(self.known[name].items()))
        path = f"/v1/models/{name}/versions/{version}/download"
        # A body cut short by the kill is retried in request(); a complete body with other bytes fails.
        status, body, more = self.client.request("GET", path, headers=app)
        retries += more
        digest = hashlib.sha256(body).hexdigest()
        if digest != expected:
            raise RuntimeError(f"{path}: {status}, {len(body)} bytes with SHA-256 {digest}, catalogue says {expected}")
        with self.lock:
            self.downloads_ok += 1
            self.download_retries += retries
            self.download_bytes += len(body)

    def downloader(self, seed: int) -> None:
        rng = random.Random(seed)
        while True:
            with self.lock:
                if self.downloads_started >= self.downloads_target:
                    return
                index = self.downloads_started
                self.downloads_started += 1
            self.wait_for_turn(index, self.downloads_target)
            with self.lock:
                self.downloads_in_flight += 1
            try:
                self.download_one(rng)
            except Exception as error:  # noqa: BLE001 - every failure is reported
                with self.lock:
                    self.downloads_failed.append(str(error))
            finally:
                with self.lock:
                    self.downloads_in_flight -= 1


def catalogue(mlkit: str, server: str) -> dict[str, list[dict]]:
    out = subprocess.run([mlkit, "hub", "list", "--server", server, "--token", ADMIN_TOKEN, "--json"],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise RuntimeError(f"hub list --server {server}: {out.stderr.strip()}")
    models = json.loads(out.stdout)["models"]
    return {m["name"]: sorted(({"version": v["version"], "size": v["size"], "sha256": v["sha256"]}
                               for v in m["versions"]), key=lambda v: v["version"]) for m in models}


def blob_files(blobs: Path) -> list[Path]:
    return sorted(p for p in blobs.iterdir() if p.is_file())


def start_nginx(processes: Processes, work: Path, port_a: int, port_b: int) -> tuple[subprocess.Popen, int]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    for attempt in range(5):
        port = free_port()
        conf = LB_TEMPLATE.read_text()
        for key, value in {"@USER@": "user root;" if os.geteuid() == 0 else "", "@TMP@": str(work),
                           "@PORT_A@": str(port_a), "@PORT_B@": str(port_b), "@PORT@": str(port)}.items():
            conf = conf.replace(key, value)
        (work / "nginx.conf").write_text(conf)
        err = open(work / "nginx.stderr", "ab")
        process = processes.start([nginx, "-p", str(work), "-e", str(work / "nginx-error.log"),
                                   "-c", str(work / "nginx.conf")], subprocess.DEVNULL, err)
        err.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=2) as r:
                    if r.status == 200:
                        return process, port
            except RETRYABLE:
                time.sleep(0.1)
        Processes.kill(process)
        log(f"note: nginx on port {port} did not come up (attempt {attempt + 1})")
    raise RuntimeError(f"nginx did not start: {(work / 'nginx-error.log').read_text(errors='replace')[-2000:]}")


def ensure_nginx() -> None:
    if shutil.which("nginx") or Path("/usr/sbin/nginx").exists():
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, timeout=300, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "nginx-light"], check=True, timeout=300, env=env)


def run(args, results: Results, processes: Processes, postgres: "Postgres", work: Path) -> None:
    began = time.monotonic()
    mlkit = str(Path(args.mlkit).resolve())
    models = Path(args.models).resolve()
    missing = [f for f in PUBLISH_FILES if not (models / f).exists()]
    if missing:
        raise RuntimeError(f"models missing from {models}: {', '.join(missing)}")
    ensure_nginx()

    try:
        postgres.start()
        log(f"database {postgres.database}")
        blobs = work / "blobs"
        blobs.mkdir()
        a = Replica("a", mlkit, work, blobs, postgres.url, processes)
        b = Replica("b", mlkit, work, blobs, postgres.url, processes)
        a.start()
        b.start()
        log(f"replicas on {a.port} and {b.port}")
        nginx, port = start_nginx(processes, work, a.port, b.port)
        base = f"http://127.0.0.1:{port}"
        log(f"nginx on {port}")
        use_source = source_address_usable()

        # The initial model goes through nginx with the CLI.
        out = subprocess.run([mlkit, "hub", "publish", NAMES[0], str(models / INITIAL_FILE), "--server", base,
                              "--token", ADMIN_TOKEN], capture_output=True, text=True, timeout=60)
        results.check("initial publish through nginx", out.returncode == 0 and "version 1" in out.stdout,
                      (out.stdout + out.stderr).strip())
        client = Client(base, use_source)
        load = Load(client, models, args.downloads, args.publishes, args.duration)
        _, body, _ = client.request("GET", f"/v1/models/{NAMES[0]}/latest", headers={"X-App-Key": APP_KEY})
        load.learn(NAMES[0], json.loads(body))
        load.published_digests[NAMES[0]].add(hashlib.sha256((models / INITIAL_FILE).read_bytes()).hexdigest())

        load.began = load_began = time.monotonic()
        threads = [threading.Thread(target=load.downloader, args=(i,), daemon=True) for i in range(args.download_threads)]
        threads += [threading.Thread(target=load.publisher, daemon=True) for _ in range(2)]
        for t in threads:
            t.start()

        # Kill replica b half-way through, preferably while it is receiving an upload (a file in
        # its staging directory), else while any publish is in flight.
        time.sleep(args.duration / 2)
        prefer_until = time.monotonic() + 4
        while time.monotonic() < prefer_until:
            if any((b.data / "staging").iterdir()):
                break
            with load.lock:
                if load.publishes_in_flight and time.monotonic() > prefer_until - 1:
                    break
            time.sleep(0.002)
        uploading = any((b.data / "staging").iterdir())
        with load.lock:
            at = (load.downloads_ok, load.publishes_ok, load.downloads_in_flight, load.publishes_in_flight)
        Processes.kill(b.process)
        killed_at = time.monotonic() - load_began
        log(f"SIGKILLed replica b at {killed_at:.1f} s ({at[0]} downloads and {at[1]} publishes done, "
            f"{at[2]} and {at[3]} in flight{', b receiving an upload' if uploading else ''})")
        time.sleep(1.0)
        restarted = True
        try:
            b.start(timeout=30)
        except RuntimeError as error:
            restarted = False
            log(str(error))
        results.check("replica b restarted on the same --data and port", restarted and b.port == int(
            BANNER.findall(b.log_path.read_text())[0][1]), f"port {b.port}")

        for t in threads:
            t.join(timeout=max(1, 200 - (time.monotonic() - began)))
        hung = sum(t.is_alive() for t in threads)
        load_elapsed = time.monotonic() - load_began
        results.check("load finished in time", hung == 0, f"{hung} client threads still running" if hung else "")

        with load.lock:
            results.check(f"{args.downloads} downloads verified", load.downloads_ok == args.downloads
                          and not load.downloads_failed,
                          f"{load.downloads_ok} ok, {len(load.downloads_failed)} failed"
                          + (f"; first: {load.downloads_failed[0]}" if load.downloads_failed else ""))
            results.check(f"{args.publishes} publishes answered", load.publishes_ok == args.publishes
                          and not load.publishes_failed,
                          f"{load.publishes_ok} ok, {len(load.publishes_failed)} failed"
                          + (f"; first: {load.publishes_failed[0]}" if load.publishes_failed else ""))

        # Both replicas must tell the same story, and it must be gap-free.
        cat_a = catalogue(mlkit, a.url())
        cat_b = catalogue(mlkit, b.url())
        results.check("both replicas list the same catalogue", cat_a == cat_b)
        versions_per_name = {name: len(cat_a.get(name, [])) for name in NAMES}
        numbering = all([v["version"] for v in cat_a.get(name, [])] == list(range(1, n + 1))
                        for name, n in versions_per_name.items())
        results.check("versions numbered 1..n, no gaps or duplicates", numbering and set(cat_a) == set(NAMES),
                      str({name: [v["version"] for v in vs] for name, vs in cat_a.items()}))
        acknowledged = all(cat_a.get(name, []) and
                           any(v["version"] == number and v["sha256"] == digest for v in cat_a[name])
                           for name, seen in load.known.items() for number, digest in seen.items())
        results.check("every acknowledged version is catalogued", acknowledged)
        foreign = [f"{name} v{v['version']}" for name, vs in cat_a.items() for v in vs
                   if v["sha256"] not in load.published_digests.get(name, set())]
        results.check("every catalogued version is a file that was published under its name", not foreign,
                      ", ".join(foreign[:5]))
        total_versions = sum(versions_per_name.values())
        extra = total_versions - 1 - load.publishes_ok

        bad = []
        for name, vs in cat_a.items():
            for v in vs:
                try:
                    _, body, _ = client.request("GET", f"/v1/models/{name}/versions/{v['version']}/download",
                                                headers={"X-App-Key": APP_KEY})
                    if hashlib.sha256(body).hexdigest() != v["sha256"] or len(body) != v["size"]:
                        bad.append(f"{name} v{v['version']}: wrong bytes")
                except RuntimeError as error:
                    bad.append(f"{name} v{v['version']}: {error}")
        results.check(f"all {total_versions} catalogued versions download with their SHA-256", not bad, "; ".join(bad[:5]))

        # Orphans: files no version refers to. The reconciler may remove them once they are older
        # than the grace period; every referenced blob must stay.
        # A blob no version refers to, as a crash between storing and cataloguing leaves one.
        planted = blobs / str(uuid.uuid4())
        planted.write_bytes(os.urandom(4096))
        orphans_before = len(blob_files(blobs)) - total_versions
        # Every blob is now at most a moment old: wait out the grace period and a few reconcile
        # intervals, then up to 6 s more for the count to settle.
        settle_from = time.monotonic() + ORPHAN_GRACE + 3
        while time.monotonic() < settle_from + 6:
            if time.monotonic() >= settle_from and len(blob_files(blobs)) == total_versions:
                break
            time.sleep(0.25)
        files = blob_files(blobs)
        orphans_after = len(files) - total_versions
        file_digests = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in files)
        catalogued_digests = sorted(v["sha256"] for vs in cat_a.values() for v in vs)
        results.check("after the grace period the blobs are exactly the catalogued ones",
                      file_digests == catalogued_digests and not planted.exists(),
                      f"{len(files)} files, {total_versions} versions, planted orphan "
                      f"{'still there' if planted.exists() else 'removed'}")
        counted = 0
        try:
            out = subprocess.run([mlkit, "hub", "list", "--server", a.url(), "--token", ADMIN_TOKEN, "--json"],
                                 capture_output=True, text=True, timeout=30)
            counted = sum(v.get("downloads", 0) for m in json.loads(out.stdout)["models"] for v in m["versions"])
        except (ValueError, KeyError, subprocess.SubprocessError):
            pass
        staging = [p for r in (a, b) for p in (r.data / "staging").glob("*")]
        results.check("no uploads left in staging", not staging, ", ".join(str(p) for p in staging[:3]))

        # Access log of the replica that was never killed.
        lines = [line for line in a.log_path.read_text(errors="replace").splitlines() if line.strip()]
        entries = [line for line in lines if not BANNER.search(line)]
        unparsed = [line for line in entries if not ACCESS_LINE.match(line)]
        clients = {ACCESS_LINE.match(line).group(2) for line in entries if ACCESS_LINE.match(line)}
        downloads_logged = sum(1 for line in entries if "/download 200 " in line)
        expected_client = CLIENT_ADDRESS if use_source else "127.0.0.1"
        results.check("surviving replica's access log parses", entries and not unparsed,
                      f"{len(entries)} lines, {downloads_logged} downloads"
                      + (f"; unparsed: {unparsed[0]!r}" if unparsed else ""))
        results.check("access log shows the forwarded client address", expected_client in clients,
                      f"clients {sorted(clients)}")

        # A second hub on a running replica's --data must refuse at once.
        t0 = time.monotonic()
        try:
            second = subprocess.run(a.command(free_port()), capture_output=True, text=True, timeout=5)
            elapsed = time.monotonic() - t0
            said = (second.stdout + second.stderr).strip()
            results.check("second hub on the same --data exits non-zero within 5 s",
                          second.returncode != 0 and "in use" in said, f"exit {second.returncode} after "
                          f"{elapsed:.2f} s: {said[-200:]}")
        except subprocess.TimeoutExpired:
            results.check("second hub on the same --data exits non-zero within 5 s", False, "still running after 5 s")

        after_restart = b.log_path.read_text(errors="replace").split("ModelHub listening on")[-1].splitlines()[1:]
        served = sum(1 for line in after_restart if ACCESS_LINE.match(line))
        results.check("restarted replica b served requests again", served > 0, f"{served} requests")
        results.check("nginx stayed up", nginx.poll() is None)
        results.check("replica a stayed up", a.process.poll() is None)

        log(f"downloads ok: {load.downloads_ok}/{args.downloads} ({load.download_bytes / 1e6:.1f} MB), "
            f"retries needed: {load.download_retries}")
        log(f"publishes ok: {load.publishes_ok}/{args.publishes}, retries needed: {load.publish_retries}, "
            f"extra versions from retried publishes: {extra}")
        log("versions per name: " + ", ".join(f"{n}={c}" for n, c in versions_per_name.items()))
        nginx_errors = (work / "nginx-error.log").read_text(errors="replace") if (work / "nginx-error.log").exists() else ""
        log(f"nginx upstream errors (nginx retried or cut the answer): "
            f"{sum(1 for line in nginx_errors.splitlines() if 'upstream' in line)}")
        log(f"downloads counted by the catalogue: {counted} of {load.downloads_ok + total_versions} completed "
            "(counts are batched; a killed replica loses its unsaved batch)")
        log(f"orphans before reconciliation: {orphans_before}, after: {orphans_after}")
        log(f"kill at {killed_at:.1f} s; load {load_elapsed:.1f} s; elapsed {time.monotonic() - began:.1f} s")
    finally:
        processes.stop_all()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mlkit", required=True, help="the mlkit binary")
    parser.add_argument("--models", required=True, help="directory with the real models (../shared/models)")
    parser.add_argument("--downloads", type=int, default=1000)
    parser.add_argument("--publishes", type=int, default=50)
    parser.add_argument("--download-threads", type=int, default=6)
    parser.add_argument("--duration", type=float, default=20, help="seconds the load is spread over")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs) for a look")
    args = parser.parse_args()

    results = Results()
    processes = Processes()
    postgres = Postgres()
    work = Path(tempfile.mkdtemp(prefix="hub-replicas-"))
    os.chmod(work, 0o755)

    def give_up() -> None:
        log("FAIL watchdog: still running after 280 s")
        processes.stop_all()
        postgres.stop()
        log(f"replicas: {results.passed} passed, {results.failed + 1} failed")
        os._exit(1)

    # A CI timeout's SIGTERM unwinds through the finally blocks below, which kill every child.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    watchdog = threading.Timer(280, give_up)
    watchdog.daemon = True
    watchdog.start()
    try:
        run(args, results, processes, postgres, work)
    except Exception as error:  # noqa: BLE001 - reported as a failed check
        results.check("run", False, f"{type(error).__name__}: {error}")
    finally:
        watchdog.cancel()
        processes.stop_all()
        postgres.stop()
        if args.keep or results.failed:
            log(f"logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    log(f"replicas: {results.passed} passed, {results.failed} failed")
    return 0 if results.failed == 0 and results.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
