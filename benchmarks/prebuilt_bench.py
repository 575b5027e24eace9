"""Prebuilt image vs. Dockerfile: what one pull-request check costs a runner, start to exit.

    export DOCKER_HOST="$(bash scripts/container-engine.sh start)"
    .venv/bin/python benchmarks/prebuilt_bench.py [--runs 3] [--json OUT]

In one run, on the same machine and the same PR check (support/pr_check.py: a PR adding a
framework the template lacks, against the loopback GitHub fake, check run and annotations):

- built: what `runs.image: Dockerfile` makes every job do — `docker build` with no build
  cache (the base image present, as the runner's is after its own pull), then `docker run`;
- pulled: what `runs.image: docker://…@sha256:…` does — `docker pull` by digest from a
  registry on loopback (Debian's docker-registry) into an engine whose store is empty (a
  second dockerd; emptied again before every run), then `docker run`.

Also the image's size as the engine reports it (on the stand-in base from
scripts/container-engine.sh) and the compressed bytes the registry serves for it (config and
layers: what a pull downloads). Loopback makes the pull's transfer nearly free; on a hosted
runner GHCR serves at a few hundred MB/s, so add ~0.3 s per 100 MB compressed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import docker
import docker.errors

from support import fake_github
from support.container import API_VERSION, build_image, connect
from support.pr_check import pull_request_check
from support.registry import loopback_registry, private_engine

BUILT_TAG = "swiftpm-guard:bench-built"
REPOSITORY = "octo-org/swiftpm-guard"


def _mb(size: int) -> float:
    return round(size / 1e6, 1)


def _pr_check(client: docker.DockerClient, image: str, scratch: Path) -> float:
    """The container of one PR check, start to exit (seconds); fails loudly if it misbehaves."""
    with fake_github.running() as fake:
        scenario = pull_request_check(scratch, fake)
        started = time.monotonic()
        result = scenario.job.run(client, image)
        seconds = time.monotonic() - started
        if result.exit_code != 0 or fake.only_check_run()["conclusion"] != "neutral":
            raise SystemExit(f"prebuilt_bench: the PR check misbehaved: {result}")
    return seconds


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    client, message = connect()
    if client is None:
        print(f"prebuilt_bench: {message}", file=sys.stderr)
        return 2
    figures: dict[str, object] = {"engine": message, "runs": args.runs}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        built: dict[str, list[float]] = {"build": [], "run": [], "total": []}
        made: list[str] = []  # every image this script built, removed at the end by ID
        for run in range(args.runs):
            build = build_image(client, BUILT_TAG, nocache=True)
            made.append(build.image.id)
            seconds = _pr_check(client, BUILT_TAG, scratch / f"built{run}")
            built["build"].append(build.seconds)
            built["run"].append(seconds)
            built["total"].append(build.seconds + seconds)
        image = client.images.get(BUILT_TAG)
        figures["image_mb"] = _mb(image.attrs["Size"])
        base = image.history()[-1]
        figures["layers_mb"] = [{"mb": _mb(layer["Size"]), "step": layer["CreatedBy"][-60:]}
                                for layer in image.history() if layer["Size"]]
        figures["base_layer_mb"] = _mb(base["Size"])
        with loopback_registry(scratch / "registry") as registry, \
                private_engine(scratch / "engine") as empty:
            reference = f"{registry.host}/{REPOSITORY}:bench"
            image.tag(reference)
            client.images.push(reference)
            served = registry.manifest(REPOSITORY, "bench")
            figures["pushed_compressed_mb"] = _mb(served.compressed_bytes)
            pinned = f"{reference}@{served.digest}"
            other = docker.DockerClient(base_url=empty.host, version=API_VERSION, timeout=300)
            pulled: dict[str, list[float]] = {"pull": [], "run": [], "total": []}
            for run in range(args.runs):
                for leftover in other.images.list(all=True):
                    other.images.remove(leftover.id, force=True)
                started = time.monotonic()
                subprocess.run(["docker", "-H", empty.host, "pull", "-q", pinned], check=True,
                               capture_output=True, timeout=600)
                pull = time.monotonic() - started
                seconds = _pr_check(other, pinned, scratch / f"pulled{run}")
                pulled["pull"].append(pull)
                pulled["run"].append(seconds)
                pulled["total"].append(pull + seconds)
            other.close()
            client.images.remove(reference)
        client.images.remove(BUILT_TAG)
        for image_id in dict.fromkeys(made):
            with contextlib.suppress(docker.errors.ImageNotFound):
                client.images.remove(image_id)
    figures["built_s"] = {k: _summary(v) for k, v in built.items()}
    figures["pulled_s"] = {k: _summary(v) for k, v in pulled.items()}
    ratio = statistics.median(built["total"]) / statistics.median(pulled["total"])
    figures["built_over_pulled"] = round(ratio, 1)
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
