"""Prebuilt image vs. Dockerfile: what one pull-request check costs a runner, start to exit.

    export DOCKER_HOST="$(bash scripts/container-engine.sh start)"
    .venv/bin/python benchmarks/prebuilt_bench.py [--runs 3] [--json OUT]

In one run, on the same machine and the same PR check (support/pr_check.py: a PR adding a
framework the template lacks, against the loopback GitHub fake, check run and annotations):

- built: what `runs.image: Dockerfile` makes every job do on a fresh runner — pull the base
  image (from the same loopback registry), `docker build` with no build cache (apt and PyPI
  from this machine's mirrors) of the default target, which is the `runtime` stage (the
  runner's BuildKit builds only that stage; this engine's legacy builder is told
  `--target runtime` to do the same), then `docker run`;
- pulled: what `runs.image: docker://…@sha256:…` does — `docker pull` by digest from a
  registry on loopback (Debian's docker-registry) of the `release` target that releases
  push (the same files less what the `pruned` stage removes, in one layer), then
  `docker run`;
- pulled, runtime image: the same pull and run of the `runtime` target (five layers, nothing
  pruned: what releases pushed before the release target), to show what that target buys;
- `--against REV` (e.g. `--against main`): the same pull and run of REV's `release` target,
  built from `git archive REV` on REV's own stand-in base (its scripts/container-engine.sh
  imports it when missing), with its size and compressed bytes: the image before a change to
  the Dockerfile (issue 31: bookworm without SwiftPM, then trixie with it).
Each run of each side gets an engine of its own whose store is a new, empty folder, as a
fresh runner has; all stores are removed only after the last run, so no timed run also pays
for deleting the last one's files (which this benchmark did before). File creation on this
machine is erratic besides: one `tar -x` of the base layer's 4,216 entries took from 0.24 s
to 3.9 s within minutes (all of it kernel time; the VM hands freed memory back to its host),
which is why a figure here is a median of alternating runs. The filesystem is synced before
each side starts. The sides alternate, so they meet the same load from other work.
`--no-pigz` keeps dockerd from decompressing with `unpigz` when it is installed
(MOBY_DISABLE_PIGZ), as on a runner without it; the figures say which way it ran.

Also the image's size as the engine reports it (on the stand-in base from
scripts/container-engine.sh), the compressed bytes the registry serves for it (config and
layers: what a pull downloads), each run's totals and the load average at start and end (the
machine is shared: other work moves every figure). Loopback makes the pull's transfer nearly
free; on a hosted runner GHCR serves at a few hundred MB/s, so add ~0.3 s per 100 MB
compressed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import docker
import docker.errors
from docker.models.images import Image

from support import fake_github
from support.container import API_VERSION, REPO_ROOT, build_image, connect
from support.pr_check import pull_request_check
from support.registry import Registry, loopback_registry, private_engine

BUILT_TAG = "swiftpm-guard:bench-built"  # only ever in the second engine
PUBLISH_TAG = "swiftpm-guard:bench-publish"
RUNTIME_TAG = "swiftpm-guard:bench-runtime"  # the runtime target, for its size
AGAINST_TAG = "swiftpm-guard:bench-against"  # --against REV's release target
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


def _base_name() -> str:
    for line in (REPO_ROOT / "Dockerfile").read_text().splitlines():
        if line.upper().startswith("FROM "):
            return line.split()[1]
    raise SystemExit("Dockerfile has no FROM line")


@contextlib.contextmanager
def _fresh_engine(store: Path) -> Iterator[tuple[str, docker.DockerClient]]:
    """An engine on a new, empty store, the disk synced before it is handed out."""
    with private_engine(store, keep_store=True) as engine:
        client = docker.DockerClient(base_url=engine.host, version=API_VERSION, timeout=300)
        try:
            os.sync()  # the last run's writes are not this run's cost
            yield engine.host, client
        finally:
            client.close()


def _push(client: docker.DockerClient, registry: Registry, image: Image,
          tag: str) -> tuple[str, float]:
    """Push `image` as REPOSITORY:tag; its reference by digest and its compressed MB."""
    reference = f"{registry.host}/{REPOSITORY}:{tag}"
    image.tag(reference)
    client.images.push(reference)
    served = registry.manifest(REPOSITORY, tag)
    return f"{reference}@{served.digest}", _mb(served.compressed_bytes)


def _time_pulled(side: dict[str, list[float]], pinned: str, scratch: Path) -> None:
    """Pull `pinned` into a fresh engine and run the PR check from it."""
    with _fresh_engine(scratch.with_name(scratch.name + "-store")) as (host, other):
        pull = _pull(host, pinned)
        seconds = _pr_check(other, pinned, scratch)
    side["pull"].append(pull)
    side["run"].append(seconds)
    side["total"].append(pull + seconds)


def _time_built(side: dict[str, list[float]], base_name: str, base_reference: str,
                scratch: Path) -> None:
    """Pull the base into a fresh engine, build the Dockerfile there, run the PR check."""
    with _fresh_engine(scratch.with_name(scratch.name + "-store")) as (host, other):
        base_pull = _pull(host, base_reference)
        other.images.get(base_reference).tag(base_name)
        build = build_image(other, BUILT_TAG, nocache=True)
        seconds = _pr_check(other, BUILT_TAG, scratch)
    side["base_pull"].append(base_pull)
    side["build"].append(build.seconds)
    side["run"].append(seconds)
    side["total"].append(base_pull + build.seconds + seconds)


def _pull(host: str, reference: str) -> float:
    """`docker pull`, as the runner runs it; seconds."""
    started = time.monotonic()
    subprocess.run(["docker", "-H", host, "pull", "-q", reference], check=True,
                   capture_output=True, timeout=600)
    return time.monotonic() - started


def _against(client: docker.DockerClient, rev: str, into: Path) -> tuple[Image, float]:
    """REV's `release` target, built from `git archive REV` on REV's own base; build seconds."""
    archive = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", "--format=tar", rev],
                             check=True, capture_output=True, timeout=120).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    subprocess.run(["bash", str(into / "scripts" / "container-engine.sh"), "base"], check=True,
                   capture_output=True, timeout=1200)
    started = time.monotonic()
    image, _ = client.images.build(path=str(into), tag=AGAINST_TAG, rm=True, forcerm=True,
                                   pull=False, network_mode="host", target="release")
    return image, time.monotonic() - started


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--against", metavar="REV",
                        help="also pull and run this commit's release image (e.g. main)")
    parser.add_argument("--no-pigz", action="store_true",
                        help="dockerd decompresses with Go's gzip even where unpigz is installed")
    args = parser.parse_args()
    if args.no_pigz:
        os.environ["MOBY_DISABLE_PIGZ"] = "1"  # read by the private dockerd started below
    client, message = connect()
    if client is None:
        print(f"prebuilt_bench: {message}", file=sys.stderr)
        return 2
    figures: dict[str, object] = {"engine": message, "runs": args.runs}
    figures["dockerd_decompresses_with"] = (
        "unpigz" if shutil.which("unpigz") and not args.no_pigz else "Go's compress/gzip")
    figures["load_average_at_start"] = [round(x, 2) for x in os.getloadavg()]
    # The images to publish: built once in the shared engine (its layer cache makes it quick).
    image = build_image(client, PUBLISH_TAG, target="release").image
    runtime = build_image(client, RUNTIME_TAG).image
    figures["image_mb"] = _mb(image.attrs["Size"])
    figures["runtime_image_mb"] = _mb(runtime.attrs["Size"])
    base_name = _base_name()
    figures["base_mb"] = _mb(client.images.get(base_name).attrs["Size"])
    built: dict[str, list[float]] = {"base_pull": [], "build": [], "run": [], "total": []}
    pulled: dict[str, list[float]] = {"pull": [], "run": [], "total": []}
    layered: dict[str, list[float]] = {"pull": [], "run": [], "total": []}
    before: dict[str, list[float]] = {"pull": [], "run": [], "total": []}
    against_figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        against = None
        if args.against:
            against, seconds = _against(client, args.against, scratch / "against")
            against_figures.update(rev=args.against, image_mb=_mb(against.attrs["Size"]),
                                   build_s_with_layer_cache=round(seconds, 1))
        with loopback_registry(scratch / "registry") as registry:
            pinned, figures["pushed_compressed_mb"] = _push(client, registry, image, "bench")
            runtime_pinned, figures["runtime_pushed_compressed_mb"] = _push(
                client, registry, runtime, "bench-runtime")
            against_pinned = ""
            if against is not None:
                against_pinned, compressed = _push(client, registry, against, "bench-against")
                against_figures["pushed_compressed_mb"] = compressed
            base_reference = f"{registry.host}/library/{base_name}"
            client.images.get(base_name).tag(base_reference)
            client.images.push(base_reference)
            figures["base_compressed_mb"] = _mb(
                registry.manifest("library/" + base_name.split(":")[0],
                                  base_name.split(":")[1]).compressed_bytes)
            try:
                for run in range(args.runs):  # interleaved: all meet the same load
                    _time_pulled(pulled, pinned, scratch / f"pulled{run}")
                    _time_built(built, base_name, base_reference, scratch / f"built{run}")
                    _time_pulled(layered, runtime_pinned, scratch / f"layered{run}")
                    if against_pinned:
                        _time_pulled(before, against_pinned, scratch / f"against{run}")
            finally:
                for reference in (pinned, runtime_pinned, against_pinned):
                    if reference:
                        client.images.remove(reference.split("@")[0])
                client.images.remove(base_reference)
    client.images.remove(PUBLISH_TAG)  # untags; the layers stay in the build cache
    client.images.remove(RUNTIME_TAG)
    if args.against:
        client.images.remove(AGAINST_TAG)
        against_figures["pulled_s"] = {k: _summary(v) for k, v in before.items()}
        figures["against"] = against_figures
    figures["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    figures["built_s"] = {k: _summary(v) for k, v in built.items()}
    figures["pulled_s"] = {k: _summary(v) for k, v in pulled.items()}
    figures["pulled_runtime_image_s"] = {k: _summary(v) for k, v in layered.items()}
    figures["per_run_total_s"] = {name: [round(v, 2) for v in side["total"]] for name, side in
                                  (("built", built), ("pulled", pulled),
                                   ("pulled_runtime_image", layered))}
    figures["per_run_built_over_pulled"] = [
        round(b / p, 2) for b, p in zip(built["total"], pulled["total"], strict=True)]
    ratio = statistics.median(built["total"]) / statistics.median(pulled["total"])
    figures["built_over_pulled"] = round(ratio, 1)
    figures["runtime_image_pull_over_release_pull"] = round(
        statistics.median(layered["total"]) / statistics.median(pulled["total"]), 2)
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
