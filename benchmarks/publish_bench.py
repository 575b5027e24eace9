"""Wall time of one publish (ls-remote, fetch, check, commit, create-only push) and of one
preflight, against a bare repo by path and over loopback smart HTTP (git http-backend).

    .venv/bin/python benchmarks/publish_bench.py [--runs N]

Each run publishes a new nightly version of a real-shaped release (9 product keys + 1
binary-only key: 20 zips, 18 stub folders) through the library API, in-process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.git_http import git_http_server
from support.git_remote import make_template_remote
from support.release import write_release
from swiftpm_guard.jobs.check import CheckRequest
from swiftpm_guard.jobs.preflight import PreflightRequest, preflight
from swiftpm_guard.jobs.publish import PublishRequest, publish

TOKEN = "bench-token-0123456789"


def timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def bench(label: str, url: str, root: Path, runs: int) -> None:
    # Releases are written before the clock starts: only publishing is timed.
    pending = []
    for index in range(runs):
        version = f"1.2.3.2025{index:04d}"
        release = write_release(root / f"release-{version}", version=version)
        pending.append(
            CheckRequest(templates=("Package.swift.template",), version=version,
                         root=release.root, artifacts=("artifacts",))
        )

    def one_publish() -> None:
        result = publish(PublishRequest(check=pending.pop(), repo=url, token=TOKEN))
        if not result.pushed:
            raise SystemExit(f"{label}: not pushed: {result.skipped}")

    def one_preflight() -> None:
        preflight(PreflightRequest(version="9.9.9", repo=url, token=TOKEN))

    for name, action in (("publish", one_publish), ("preflight", one_preflight)):
        times = timed(action, runs)
        print(
            f"{label:<6} {name:<9} median {statistics.median(times) * 1000:7.1f} ms   "
            f"min {min(times) * 1000:7.1f} ms   max {max(times) * 1000:7.1f} ms   "
            f"({runs} runs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path_remote = make_template_remote(root / "path")
        bench("path", str(path_remote), root / "work-path", runs)
        http_remote = make_template_remote(root / "http")
        with git_http_server(http_remote.parent, token=TOKEN) as server:
            bench("http", server.url(http_remote.name), root / "work-http", runs)
            print(f"http requests served: {len(server.requests)}")


if __name__ == "__main__":
    main()
