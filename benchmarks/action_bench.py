"""How long the CLI check and the action take, and what PyGithub costs at start-up.

    .venv/bin/python benchmarks/action_bench.py [--runs N]

Prints medians of N fresh processes: `swiftpm-guard check` on the bundled 20-placeholder
release (it must not import PyGithub), the bare imports, and `entrypoint.py` for a pull
request against the loopback GitHub fake (git fetch of the template branch, one check run).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def _timed(command: list[str], **kwargs) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return elapsed


def _median(label: str, runs: int, command: list[str], **kwargs) -> None:
    times = [_timed(command, **kwargs) for _ in range(runs)]
    print(
        f"{label:<52} median {statistics.median(times) * 1000:7.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, n={runs})"
    )


def _action_run(runs: int) -> None:
    from support.actions_env import (
        FRAMEWORKS_FROM,
        REPOSITORY,
        clone,
        make_origin,
        pull_request_payload,
        runner_env,
    )
    from support.fake_github import running

    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as scratch, running() as fake:
            tmp = Path(scratch)
            origin = make_origin(tmp / "remote")
            fake.add_repo(REPOSITORY, git_dir=origin.bare)
            fake.add_token("ghs_bench")
            workspace = clone(origin, "main", tmp / "workspace")
            payload = pull_request_payload(
                number=1, head_sha=origin.main, head_ref="x", base_ref="main", base_sha=origin.main
            )
            step = runner_env(
                tmp,
                api_url=fake.url,
                workspace=workspace,
                event_name="pull_request",
                payload=payload,
                sha=origin.main,
                ref="refs/pull/1/merge",
                inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": "ghs_bench"},
            )
            times.append(
                _timed([sys.executable, str(ROOT / "entrypoint.py")], env=step.env, cwd=workspace)
            )
            assert not fake.violations, fake.violations
    print(
        f"{'entrypoint.py, pull_request, fake API':<52} median "
        f"{statistics.median(times) * 1000:7.0f} ms (n={runs})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    release = ROOT / "examples" / "release"
    _median("python -c pass", runs, [sys.executable, "-c", "pass"])
    _median(
        "import swiftpm_guard.cli.main",
        runs,
        [sys.executable, "-c", "import swiftpm_guard.cli.main"],
    )
    _median(
        "import swiftpm_guard.action.main (no PyGithub yet)",
        runs,
        [sys.executable, "-c", "import swiftpm_guard.action.main"],
    )
    _median("import github (PyGithub)", runs, [sys.executable, "-c", "import github"])
    _median(
        "swiftpm-guard check, 20 placeholders, 20 zips",
        runs,
        [
            sys.executable,
            "-m",
            "swiftpm_guard",
            "check",
            "--template",
            "swiftpm/Package.swift.template",
            "--version",
            "1.0.0",
            "--artifacts",
            "artifacts",
            "--quiet",
        ],
        cwd=release,
    )
    _action_run(runs)


if __name__ == "__main__":
    main()
