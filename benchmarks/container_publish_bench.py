"""Container start-to-exit of the action publishing, as the runner runs it.

    export DOCKER_HOST="$(bash scripts/container-engine.sh start)"
    .venv/bin/python benchmarks/container_publish_bench.py [--runs N]

The image is the e2e tests' (`swiftpm-guard:e2e`, built from the repository, warm when the
layer cache holds it; the build is not timed). Each run is a fresh `RunnerJob` (uid-1001
workspace cloned from the origin, 20 zips, hostile PATH, INPUT_* with hyphens): publish on
schedule to a bare repository mounted by path, and to the same served over loopback smart HTTP
with the token required; the check run goes to the loopback GitHub fake. Only the container,
from `start` to its exit, is timed (`JobResult.seconds`); the median of --runs per remote.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.action_repo import served
from support.actions_env import REPOSITORY, make_origin, schedule_payload
from support.container import REPO_ROOT, RunnerJob, action_inputs, build_image, connect
from support.fake_github import running
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip

TOKEN = "ghs_benchToken0123456789"


def _publish_once(client, image, kind: str, tmp: Path) -> float:
    origin = make_origin(tmp / "remote")
    with running() as fake, served(kind, origin, tmp / "srv", TOKEN) as repo:
        fake.add_repo(REPOSITORY, git_dir=repo.bare)
        fake.add_token(TOKEN)
        job = RunnerJob(
            tmp / "job",
            event_name="schedule",
            event=schedule_payload(),
            repository=REPOSITORY,
            sha=repo.origin.main,
            api_url=fake.url,
            server_url=repo.server_url,
        )
        repo.clone("main", job.workspace)
        if kind == "path":
            job.extra_volumes = {str(repo.bare): str(repo.bare)}
        (job.workspace / "out").mkdir()
        for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
            write_zip(job.workspace / "out" / f"{name}-1.2.3.zip", name)
        job.inputs = action_inputs(
            REPO_ROOT / "action.yml", {"version": "1.2.3", "artifacts": "out"}, token=TOKEN
        )
        result = job.run(client, image)
        if result.exit_code != 0 or result.outputs.get("pushed") != "true":
            raise SystemExit(f"publish ({kind}) did not push: {result!r}")
        if fake.violations:
            raise SystemExit("\n".join(fake.violations))
        return result.seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="container runs per remote")
    args = parser.parse_args()
    client, message = connect()
    if client is None:
        print(f"container_publish_bench: {message}", file=sys.stderr)
        return 2
    image = build_image(client).image
    figures: dict[str, object] = {"engine": message}
    for kind in ("path", "http"):
        times = []
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as scratch:
                times.append(_publish_once(client, image, kind, Path(scratch) / str(run)))
        figures[f"start_to_exit_publish_{kind}_s"] = {
            "median": round(statistics.median(times), 2),
            "min": round(min(times), 2),
            "max": round(max(times), 2),
            "runs": args.runs,
        }
    client.close()
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
