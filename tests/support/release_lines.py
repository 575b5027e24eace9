"""A release history shaped like ExecuTorch's real one, for the release-line tests (issue 23).

- `main`: FRAMEWORKS without `backend_mps`, the version passed in as ExecuTorch does it
  (`VERSION="${{ needs.set-version.outputs.version }}"` inside the reusable workflow's script);
- `release/0.1`: from before the Apple workflow existed (no `apple.yml`);
- `release/0.4`: an old line that still builds `backend_mps`; it last published
  `swiftpm-0.4.0`, on 2024-11-05;
- `release/1.4`: the newest line, the same list as `main`;
- `release/1.4-full-wheel-torch-dependency`: a topic branch under `release/`, with an
  `apple.yml` whose job is named otherwise;
- `swiftpm`: the template branch; its template asks for `main`'s products, each line brought
  by a commit whose subject carries a pull request number.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from support.actions_env import WORKFLOW, commit_all, git
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text, write_template_branch

DROPPED = "backend_mps"
LIVE_PRODUCTS = tuple(k for k in PRODUCT_KEYS if k != DROPPED)
LIVE_KEYS = (*LIVE_PRODUCTS, *BINARY_ONLY_KEYS)
OLD_KEYS = (*PRODUCT_KEYS, *BINARY_ONLY_KEYS)
TOPIC = "release/1.4-full-wheel-torch-dependency"
EXPRESSION = "needs.set-version.outputs.version"
OLD_PUBLISHED = "swiftpm-0.4.0"
OLD_DAY = "2024-11-05"
#: What makes release/1.4 the line that still publishes: it published the newest version.
NEW_PUBLISHED = "swiftpm-1.4.0"
NEW_DAY = "2025-06-20"


def executorch_workflow(keys: tuple[str, ...]) -> str:
    """ExecuTorch's shape: the version comes from another job, through an expression."""
    return workflow_text(keys).replace('VERSION="$(date +%Y%m%d)"',
                                       'VERSION="${{ ' + EXPRESSION + ' }}"')


@dataclass
class History:
    bare: Path
    main: str
    swiftpm: str


def _dated_commit(seed: Path, message: str, day: str) -> str:
    git(seed, "add", "-A")
    stamp = f"{day}T12:00:00+00:00"
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = stamp
    try:
        git(seed, "commit", "-q", "-m", message)
    finally:
        del os.environ["GIT_COMMITTER_DATE"], os.environ["GIT_AUTHOR_DATE"]
    return git(seed, "rev-parse", "HEAD")


def make_history(root: Path) -> History:
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q")
    (seed / "README.md").write_text("# executorch\n")
    commit_all(seed, "Initial commit")
    git(seed, "branch", "release/0.1")  # no Apple workflow yet
    (seed / WORKFLOW).parent.mkdir(parents=True)
    (seed / WORKFLOW).write_text(executorch_workflow(OLD_KEYS))
    commit_all(seed, "Apple frameworks workflow (#2413)")
    git(seed, "branch", "release/0.4")
    (seed / WORKFLOW).write_text(executorch_workflow(LIVE_KEYS))
    main = commit_all(seed, f"Remove {DROPPED} (#9001)")
    git(seed, "branch", "release/1.4")
    git(seed, "checkout", "-q", "-b", TOPIC)
    (seed / WORKFLOW).write_text(
        executorch_workflow(LIVE_KEYS).replace("build-frameworks:", "build-wheels:"))
    commit_all(seed, "Full wheel torch dependency")
    git(seed, "checkout", "-q", "main")

    git(seed, "checkout", "-q", "--orphan", OLD_PUBLISHED)
    git(seed, "rm", "-rqf", ".")
    (seed / "Package.swift").write_text("// swift-tools-version:5.9\n// 0.4.0\n")
    _dated_commit(seed, "0.4.0", OLD_DAY)

    git(seed, "checkout", "-q", "--orphan", NEW_PUBLISHED)
    git(seed, "rm", "-rqf", ".")
    (seed / "Package.swift").write_text("// swift-tools-version:5.9\n// 1.4.0\n")
    _dated_commit(seed, "1.4.0", NEW_DAY)

    git(seed, "checkout", "-q", "--orphan", "swiftpm")
    git(seed, "rm", "-rqf", ".")
    write_template_branch(seed, LIVE_PRODUCTS)
    swiftpm = commit_all(seed, "Swift package template (#4242)")
    git(seed, "checkout", "-q", "main")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(seed), str(bare))
    return History(bare, main, swiftpm)


#: Old lines of the drift history: each still builds backend_mps and not yet the LLM kernels.
OLD_LINES = tuple(f"release/0.{minor}" for minor in range(2, 8))
NEWER = ("kernels_llm", "kernels_torchao")
DRIFT_OLD_KEYS = tuple(k for k in OLD_KEYS if k not in NEWER)


def make_drift_history(root: Path, old_lines: tuple[str, ...] = OLD_LINES) -> History:
    """ExecuTorch after the MPS removal, with many old lines (issue 33): `release/0.2` to `0.7`
    each build backend_mps and lack the newer kernels, each last published on its day;
    `release/1.4` and `main` build the live list; the template asks for main's products."""
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q")
    (seed / "README.md").write_text("# executorch\n")
    (seed / WORKFLOW).parent.mkdir(parents=True)
    (seed / WORKFLOW).write_text(executorch_workflow(DRIFT_OLD_KEYS))
    commit_all(seed, "Apple frameworks workflow (#2413)")
    for line in old_lines:
        git(seed, "branch", line)
    (seed / WORKFLOW).write_text(executorch_workflow(LIVE_KEYS))
    main = commit_all(seed, f"Remove {DROPPED} (#9001)")
    git(seed, "branch", "release/1.4")
    for index, line in enumerate(old_lines):
        version = line.rsplit("/", 1)[-1]
        git(seed, "checkout", "-q", "--orphan", f"swiftpm-{version}.0")
        git(seed, "rm", "-rqf", ".")
        (seed / "Package.swift").write_text(f"// swift-tools-version:5.9\n// {version}.0\n")
        _dated_commit(seed, f"{version}.0", f"2024-0{1 + index}-05")
    # release/1.4 published last: what publishes is read from what was published (issue 32).
    git(seed, "checkout", "-q", "--orphan", NEW_PUBLISHED)
    git(seed, "rm", "-rqf", ".")
    (seed / "Package.swift").write_text("// swift-tools-version:5.9\n// 1.4.0\n")
    _dated_commit(seed, "1.4.0", NEW_DAY)
    git(seed, "checkout", "-q", "--orphan", "swiftpm")
    git(seed, "rm", "-rqf", ".")
    write_template_branch(seed, PRODUCT_KEYS)
    commit_all(seed, "Swift package template (#4242)")
    for stub in (seed / ".Package.swift").glob(f"{DROPPED}*"):
        import shutil

        shutil.rmtree(stub)
    write_template_branch(seed, LIVE_PRODUCTS)
    swiftpm = commit_all(seed, f"Remove {DROPPED} from the template (#9002)")
    git(seed, "checkout", "-q", "main")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(seed), str(bare))
    return History(bare, main, swiftpm)
