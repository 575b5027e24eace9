"""The action image's costs, as a runner pays them: size, build times, start-to-exit.

    export DOCKER_HOST="$(bash scripts/container-engine.sh start)"
    .venv/bin/python benchmarks/image_bench.py [--runs 5] [--json OUT]

- size: the image as the engine reports it (base layers included), and the base alone;
- cold build: base image present, no build cache (`--no-cache`): what a hosted runner pays on
  every job, downloads from the Debian mirror and PyPI included;
- warm rebuild: the layer cache present and one source file changed (only our code's layers
  rebuild), and with nothing changed;
- start-to-exit: `docker run` of `swiftpm-guard check` on a release in the real shape
  (9 product keys + 1 binary-only key, 20 zips), mounted and configured as the runner does;
  the median of --runs. When entrypoint.py and action.yml exist, the same for the action
  itself (mode check on a push event, a real clone with the template branch on its origin).

Builds run on the machine's shared cores; the figures vary by a few seconds between runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.container import (
    REPO_ROOT,
    RunnerJob,
    action_inputs,
    build_image,
    connect,
    release_clone,
)
from support.release import write_release

BENCH_TAG = "swiftpm-guard:bench"
#: What .dockerignore lets into the context; a copy of it gets the one-file change.
CONTEXT = ("Dockerfile", ".dockerignore", "requirements.lock", "entrypoint.py", "src")


def _mb(size: int) -> float:
    return round(size / 1e6, 1)


def _base_name() -> str:
    for line in (REPO_ROOT / "Dockerfile").read_text().splitlines():
        if line.upper().startswith("FROM "):
            return line.split()[1]
    raise SystemExit("Dockerfile has no FROM line")


def _changed_context(into: Path) -> Path:
    for name in CONTEXT:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, into / name)
    init = into / "src" / "swiftpm_guard" / "__init__.py"
    init.write_text(init.read_text() + f"# bench {time.time_ns()}\n")
    return into


def _timed_build(client, path: Path, *, nocache: bool) -> float:
    started = time.monotonic()
    client.images.build(
        path=str(path), tag=BENCH_TAG, rm=True, forcerm=True, pull=False,
        network_mode="host", nocache=nocache,
    )
    return time.monotonic() - started


def _time_action(client, runs: int) -> dict[str, object]:
    """The action's own entrypoint, mode check on a push, no token (no API calls to make)."""
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(runs):
            job = RunnerJob(Path(scratch) / f"action{run}", event_name="push")
            job.sha, origin = release_clone(job.workspace, Path(scratch) / f"repo{run}")
            job.extra_volumes = {str(origin): str(origin)}
            job.event = {"ref": "refs/heads/main", "after": job.sha}
            job.inputs = action_inputs(REPO_ROOT / "action.yml", {
                "mode": "check", "version": "1.2.3", "checksums": "checksums.txt",
                "frameworks-from": ".github/workflows/apple.yml:build-frameworks:FRAMEWORKS",
            })
            result = job.run(client, BENCH_TAG)
            if result.exit_code != 0:
                return {"error": repr(result)[-2000:]}
            times.append(result.seconds)
    return {"median": round(statistics.median(times), 2), "min": round(min(times), 2),
            "max": round(max(times), 2), "runs": runs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="container runs to time")
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = parser.parse_args()
    client, message = connect()
    if client is None:
        print(f"image_bench: {message}", file=sys.stderr)
        return 2
    figures: dict[str, object] = {"engine": message}
    base = client.images.get(_base_name())
    figures["base_image"] = _base_name()
    figures["base_mb"] = _mb(base.attrs["Size"])

    cold = build_image(client, BENCH_TAG, nocache=True)
    figures["cold_build_s"] = round(cold.seconds, 1)
    image = client.images.get(BENCH_TAG)
    figures["image_mb"] = _mb(image.attrs["Size"])
    figures["layers_mb"] = [
        {"mb": _mb(layer["Size"]), "step": layer["CreatedBy"][-70:]}
        for layer in image.history() if layer["Size"]
    ]
    with tempfile.TemporaryDirectory() as scratch:
        figures["warm_rebuild_code_change_s"] = round(
            _timed_build(client, _changed_context(Path(scratch)), nocache=False), 1)
    figures["warm_rebuild_no_change_s"] = round(
        _timed_build(client, REPO_ROOT, nocache=False), 1)
    # The last build left the repository's code in BENCH_TAG again: time that image.

    times = []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(args.runs):
            job = RunnerJob(Path(scratch) / f"job{run}")
            write_release(job.workspace, version="1.2.3")
            result = job.run(client, BENCH_TAG, entrypoint=["/usr/local/bin/swiftpm-guard"],
                             command=["check", "--template", "swiftpm/Package.swift.template",
                                      "--version", "1.2.3", "--artifacts", "artifacts",
                                      "--json", "report.json"])
            if result.exit_code != 0:
                print(f"image_bench: the check failed: {result}", file=sys.stderr)
                return 1
            times.append(result.seconds)
    figures["start_to_exit_check_s"] = {
        "median": round(statistics.median(times), 2),
        "min": round(min(times), 2),
        "max": round(max(times), 2),
        "runs": args.runs,
    }
    if (REPO_ROOT / "entrypoint.py").exists() and (REPO_ROOT / "action.yml").exists():
        figures["start_to_exit_action_push_check_s"] = _time_action(client, args.runs)
    client.images.remove(BENCH_TAG, noprune=False)
    client.close()

    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
