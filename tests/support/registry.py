"""A real OCI registry on loopback, and a second, empty container engine to pull into.

`loopback_registry(root)` runs Debian's `docker-registry` (the CNCF distribution server) with
its own config file: listening on 127.0.0.1 at a free port, blobs under `root`, no auth, no
TLS. dockerd treats 127.0.0.0/8 as an insecure registry by default, so plain HTTP works
without touching any daemon configuration.

`private_engine(root)` starts a second `dockerd` with its own data root, exec root and socket:
an engine store that holds nothing, so a pull into it really downloads every layer (the
shared engine already has them all, from the build). Both are stopped by the PID they were
started with, and every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REGISTRY_BINARY = "docker-registry"
MANIFEST_TYPES = ", ".join((
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
))


def registry_missing() -> str | None:
    """Why no registry can be started here, or None."""
    if shutil.which(REGISTRY_BINARY) is None:
        return "Debian's docker-registry is not installed (apt-get install docker-registry)"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _config(storage: Path, port: int) -> str:
    # JSON is YAML: the registry reads this as its config.yml.
    return json.dumps({
        "version": 0.1,
        "log": {"level": "warn", "accesslog": {"disabled": True}},
        "storage": {"filesystem": {"rootdirectory": str(storage)}, "delete": {"enabled": True}},
        "http": {"addr": f"127.0.0.1:{port}"},
    }, indent=2)


@dataclass(frozen=True)
class Manifest:
    digest: str
    media_type: str
    #: The compressed bytes a pull downloads: config blob plus every layer blob.
    compressed_bytes: int
    platforms: tuple[str, ...]


@dataclass(frozen=True)
class Registry:
    host: str  # "127.0.0.1:PORT", what image references start with
    process: subprocess.Popen[bytes]
    log: Path

    def _get(self, path: str, *, accept: str = MANIFEST_TYPES) -> tuple[bytes, dict[str, str]]:
        request = urllib.request.Request(f"http://{self.host}{path}", headers={"Accept": accept})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read(), dict(response.headers)

    def manifest(self, repository: str, reference: str) -> Manifest:
        """What the registry serves for `repository:reference`, the digest as it computes it."""
        body, headers = self._get(f"/v2/{repository}/manifests/{reference}")
        document = json.loads(body)
        media_type = document.get("mediaType") or headers.get("Content-Type", "")
        digest = headers["Docker-Content-Digest"]
        if "manifests" in document:  # an index: one manifest per platform
            platforms, total = [], 0
            for entry in document["manifests"]:
                platform = entry.get("platform", {})
                if platform.get("os") == "unknown":  # buildx's attestation manifests
                    continue
                platforms.append(f"{platform.get('os')}/{platform.get('architecture')}")
                total += self.manifest(repository, entry["digest"]).compressed_bytes
            return Manifest(digest, media_type, total, tuple(platforms))
        size = document["config"]["size"] + sum(layer["size"] for layer in document["layers"])
        config, _ = self._get(f"/v2/{repository}/blobs/{document['config']['digest']}",
                              accept="*/*")
        image = json.loads(config)
        platform = f"{image.get('os')}/{image.get('architecture')}"
        return Manifest(digest, media_type, size, (platform,))


def _wait_http(url: str, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {seconds:.0f}s")


def _stop(process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextlib.contextmanager
def loopback_registry(root: Path) -> Iterator[Registry]:
    """The registry on 127.0.0.1 with its storage in `root`; stopped on exit."""
    problem = registry_missing()
    if problem:
        raise RuntimeError(problem)
    root.mkdir(parents=True, exist_ok=True)
    for _attempt in range(3):  # the port may be taken between probing and binding
        port = free_port()
        config = root / "config.yml"
        config.write_text(_config(root / "storage", port))
        log = root / "registry.log"
        with log.open("ab") as sink:
            process = subprocess.Popen(
                [REGISTRY_BINARY, "serve", str(config)],
                stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, start_new_session=True,
            )
        try:
            _wait_http(f"http://127.0.0.1:{port}/v2/", process, 20)
        except RuntimeError as error:
            _stop(process)
            problem = f"docker-registry on port {port}: {error}; log: {log.read_text()[-1500:]}"
            continue
        try:
            yield Registry(f"127.0.0.1:{port}", process, log)
        finally:
            _stop(process)
        return
    raise RuntimeError(problem)


@dataclass(frozen=True)
class PrivateEngine:
    host: str  # a DOCKER_HOST value
    pid: int


def _answers(host: str) -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    done = subprocess.run([docker, "-H", host, "version", "--format", "{{.Server.Version}}"],
                          capture_output=True, timeout=10, check=False)
    return done.returncode == 0


@contextlib.contextmanager
def private_engine(data_root: Path, *, keep_store: bool = False) -> Iterator[PrivateEngine]:
    """A second dockerd whose image store starts empty; stopped (by its PID) on exit.

    The store is removed on exit unless `keep_store`: a benchmark keeps every run's store
    until all runs are timed, so that no timed run also pays for deleting the last one's files
    (see benchmarks/prebuilt_bench.py).

    Configured like scripts/container-engine.sh's engine (no bridge, host iptables untouched),
    but with everything of its own. Its socket and exec root live under a short /tmp folder:
    containerd's sockets must fit in a unix socket path (108 bytes).
    """
    dockerd = shutil.which("dockerd")
    if dockerd is None:
        raise RuntimeError("dockerd is not installed")
    run = Path(tempfile.mkdtemp(prefix="sg-engine-"))
    data_root.mkdir(parents=True, exist_ok=True)
    (run / "daemon.json").write_text("{}\n")
    host = f"unix://{run}/engine.sock"
    log = run / "dockerd.log"
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [dockerd, "--config-file", str(run / "daemon.json"), "--host", host,
             "--data-root", str(data_root), "--exec-root", str(run / "exec"),
             "--pidfile", str(run / "dockerd.pid"), "--bridge=none", "--iptables=false",
             "--ip-forward=false", "--ip-masq=false", "--log-level=warn"],
            stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while not _answers(host):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the private dockerd did not answer: {log.read_text()[-1500:]}")
            time.sleep(0.3)
        yield PrivateEngine(host, process.pid)
    finally:
        _stop(process, seconds=60)
        netns = run / "exec" / "netns" / "default"
        if os.path.ismount(netns):
            subprocess.run(["umount", str(netns)], timeout=30, check=False)
        shutil.rmtree(run, ignore_errors=True)
        if not keep_store:
            # Layers are owned by root and may hold odd permissions; a failure leaves tmp only.
            shutil.rmtree(data_root, ignore_errors=True)
