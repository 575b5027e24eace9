"""Wall time of `entrypoint.py` in publish and audit mode, as the runner starts it.

    .venv/bin/python benchmarks/action_modes_bench.py [--runs N] [--branches N]

Each run is a fresh process against the loopback GitHub fake and a real origin (a bare repo by
path, or the same served over loopback smart HTTP with the token required): publish on
schedule (20 zips in the workspace, the branch pushed), the same as a dry run, and an audit of
`--branches` published branches. Only the entrypoint process is timed, not the set-up.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.action_repo import served  # noqa: E402
from support.actions_env import (  # noqa: E402
    REPOSITORY,
    Origin,
    git,
    make_origin,
    runner_env,
    schedule_payload,
)
from support.fake_github import running  # noqa: E402
from support.published import BranchSpec, build_repo, nightly_versions  # noqa: E402
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip  # noqa: E402

TOKEN = "ghs_benchToken0123456789"


def _entrypoint(step, workspace: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")],
        env=step.env,
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"exit {done.returncode}\n{done.stdout}{done.stderr}")
    return elapsed


def _publish(kind: str, dry_run: bool) -> Callable[[Path], float]:
    def once(tmp: Path) -> float:
        origin = make_origin(tmp / "remote")
        with running() as fake, served(kind, origin, tmp / "srv", TOKEN) as repo:
            fake.add_repo(REPOSITORY, git_dir=repo.bare)
            fake.add_token(TOKEN)
            workspace = repo.clone("main", tmp / "workspace")
            (workspace / "out").mkdir()
            for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
                write_zip(workspace / "out" / f"{name}-1.2.3.zip", name)
            step = repo.point(
                runner_env(
                    tmp,
                    api_url=fake.url,
                    workspace=workspace,
                    event_name="schedule",
                    payload=schedule_payload(),
                    sha=repo.origin.main,
                    ref="refs/heads/main",
                    inputs={
                        "version": "1.2.3",
                        "artifacts": "out",
                        "github-token": TOKEN,
                        "dry-run": "true" if dry_run else "false",
                    },
                )
            )
            return _entrypoint(step, workspace)

    return once


def _audit(kind: str, count: int) -> Callable[[Path], float]:
    def once(tmp: Path) -> float:
        specs = [BranchSpec(v) for v in nightly_versions(count)]
        bare = build_repo(tmp / "remote" / "origin.git", specs)
        origin = Origin(bare, git(bare, "rev-parse", "main"), git(bare, "rev-parse", "swiftpm"))
        with running() as fake, served(kind, origin, tmp / "srv", TOKEN) as repo:
            fake.add_repo(REPOSITORY, git_dir=repo.bare)
            fake.add_token(TOKEN)
            workspace = repo.clone("main", tmp / "workspace")
            step = repo.point(
                runner_env(
                    tmp,
                    api_url=fake.url,
                    workspace=workspace,
                    event_name="schedule",
                    payload=schedule_payload(),
                    sha=repo.origin.main,
                    ref="refs/heads/main",
                    inputs={"mode": "audit", "github-token": TOKEN},
                )
            )
            return _entrypoint(step, workspace)

    return once


def _report(label: str, runs: int, once: Callable[[Path], float]) -> None:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as scratch:
            times.append(once(Path(scratch)))
    print(
        f"{label:<48} median {statistics.median(times) * 1000:6.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, n={runs})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--branches", type=int, default=200)
    args = parser.parse_args()
    for kind in ("path", "http"):
        _report(f"publish (pushed), origin by {kind}", args.runs, _publish(kind, False))
        _report(f"publish dry-run, origin by {kind}", args.runs, _publish(kind, True))
        _report(
            f"audit of {args.branches} branches, origin by {kind}",
            args.runs,
            _audit(kind, args.branches),
        )


if __name__ == "__main__":
    main()
