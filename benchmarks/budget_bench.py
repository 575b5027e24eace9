"""The two start-up budgets, on the paths users run, measured in one interleaved run:

- the CLI `swiftpm-guard check` on the bundled example (20 placeholders, the workflow's
  FRAMEWORKS array, checksums.txt) within 10 times the interpreter's bare start (`python -c pass`);
- the action's own path, `entrypoint.py` on a pull request against the loopback GitHub fake
  (template branch read from the clone, the check run posted), no slower than the package as
  it was at `--baseline REV` (default: the last release before the redesign, bdf5fc9).

    .venv/bin/python benchmarks/budget_bench.py [--runs 15] [--baseline REV]

Every process is timed by a blocking wait4 (timing.run_exact); the sides alternate in every
round so each meets the same load. Only the timed process is counted, not the set-up.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import run_exact, src_at  # noqa: E402

from support.actions_env import (  # noqa: E402
    FRAMEWORKS_FROM,
    REPOSITORY,
    Origin,
    clone,
    make_origin,
    pull_request_payload,
    runner_env,
)
from support.fake_github import running  # noqa: E402

EXAMPLE = ROOT / "examples" / "release"
CHECK = ["-m", "swiftpm_guard", "check", "--template", "swiftpm/Package.swift.template",
         "--version", "1.0.0", "--checksums", "checksums.txt",
         "--frameworks-from", "workflow/apple.yml:build-frameworks:FRAMEWORKS", "-q"]
CLI_BUDGET = 10.0
#: Without `swift` the example's check reports needs-swiftpm (exit 1): the same start-up and work.
CHECKED = (0, 1)


def pull_request_check(scratch: Path, fake_url: str, src: Path
                       ) -> tuple[Callable[[], float], Origin]:
    """A runner's pull-request step for one checkout, run by `src`'s entrypoint."""
    origin = make_origin(scratch / "remote")
    workspace = clone(origin, "main", scratch / "workspace")
    payload = pull_request_payload(number=1, head_sha=origin.main, head_ref="x",
                                   base_ref="main", base_sha=origin.main)
    step = runner_env(scratch, api_url=fake_url, workspace=workspace,
                      event_name="pull_request", payload=payload, sha=origin.main,
                      ref="refs/pull/1/merge",
                      inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": "ghs_bench"})
    env = {**step.env, "PYTHONPATH": str(src)}
    entry = ROOT / "entrypoint.py"

    def once() -> float:
        for output in (step.output_file, step.summary_file):
            output.write_text("")
        return run_exact([sys.executable, str(entry)], cwd=workspace, env=env,
                         ok=(0,), timeout=120).seconds

    return once, origin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", default="bdf5fc9", metavar="REV")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "src", quiet=1)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="budget-bench.") as scratch, running() as fake:
        tmp = Path(scratch)
        old_src = src_at(args.baseline, tmp / "baseline", compiled=True)
        fake.add_token("ghs_bench")
        current, origin = pull_request_check(tmp / "now", fake.url, ROOT / "src")
        fake.add_repo(REPOSITORY, git_dir=origin.bare)  # each side reads its own clone's origin
        before, _origin = pull_request_check(tmp / "before", fake.url, old_src)
        sides: dict[str, Callable[[], float]] = {
            "python -c pass (the interpreter's bare start)":
                lambda: run_exact([sys.executable, "-c", "pass"], env=env).seconds,
            "swiftpm-guard check (CLI, bundled example)":
                lambda: run_exact([sys.executable, *CHECK], cwd=EXAMPLE, env=env,
                                  ok=CHECKED).seconds,
            f"swiftpm-guard check at {args.baseline}":
                lambda: run_exact([sys.executable, *CHECK], cwd=EXAMPLE, ok=CHECKED,
                                  env={**env, "PYTHONPATH": str(old_src)}).seconds,
            "entrypoint.py, pull request, check run posted": current,
            f"entrypoint.py at {args.baseline}": before,
        }
        seconds: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, measure in sides.items():
                seconds[name].append(measure())
        assert not fake.violations, fake.violations
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    names = list(sides)
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, {args.runs} interleaved "
          "rounds, wait4 timing")
    print(f"{'what':<52} {'median':>8} {'min':>8}")
    for name in names:
        print(f"{name:<52} {medians[name]:>7.3f}s {min(seconds[name]):>7.3f}s")
    cli = medians[names[1]] / medians[names[0]]
    action = medians[names[3]] / medians[names[4]]
    print(f"budget: CLI check / bare start = {cli:.1f}x (at most {CLI_BUDGET:g}x): "
          f"{'met' if cli <= CLI_BUDGET else 'NOT met'}")
    print(f"budget: action path / {args.baseline}'s = {action:.2f}x (at most 1x): "
          f"{'met' if action <= 1.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
