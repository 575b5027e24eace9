"""A release repository shaped like ExecuTorch's, for the action's end-to-end tests.

- `main`: `.github/workflows/apple.yml` whose FRAMEWORKS no longer lists `backend_mps`;
- `release/1.0`: the same workflow as it was when 1.0 shipped: it still builds `backend_mps`;
- `feature/faster-build`: a contributor's branch (a dispatch there must not publish);
- `swiftpm`: the template branch (template, stub folders, and its own pull-request workflow
  under `.github/`, which is where GitHub runs it from); its history removed `backend_mps`;
- `swiftpm-1.0.0`: published by the shell steps on the old template (`.github/` copied in), then
  fixed by hand: a reviewed "Update checksums" commit on top of the publish commit;
- `swiftpm-1.1.0`: published on the current template, untouched.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from support.actions_env import WORKFLOW, commit_all, git
from support.published import BranchSpec, checksum_for
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text, write_template_branch

REMOVED = "backend_mps"
LIVE_PRODUCTS = tuple(k for k in PRODUCT_KEYS if k != REMOVED)
LIVE_KEYS = [*LIVE_PRODUCTS, *BINARY_ONLY_KEYS]
RELEASE_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
TEMPLATE_WORKFLOW = ".github/workflows/swiftpm-pr.yml"
MAINTAINER = "Jane Maintainer <jane@example.org>"
FIXED_NAME = "kernels_llm"
FIXED_CHECKSUM = "f" * 64

TEMPLATE_PR_WORKFLOW = """\
name: swiftpm-pr
on:
  pull_request:
    branches: [swiftpm]
jobs:
  manifest:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
"""


@dataclass
class ExecuTorchOrigin:
    bare: Path
    main: str
    swiftpm: str
    release: str  # release/1.0
    feature: str  # feature/faster-build
    old_template: str  # the swiftpm commit 1.0.0 was published on
    publish_100: str  # the bot's publish commit of swiftpm-1.0.0
    hand_fix: str  # the reviewed commit on top of it: swiftpm-1.0.0's tip
    publish_110: str


def _publish_commit(seed: Path, template_commit: str, spec: BranchSpec, branch: str) -> str:
    """What the shell steps did: check out the template, render, commit, push."""
    git(seed, "checkout", "-q", "-b", branch, template_commit)
    (seed / "Package.swift.template").unlink()
    (seed / "Package.swift").write_text(spec.manifest())
    return commit_all(seed, spec.version)


def make_executorch(root: Path) -> ExecuTorchOrigin:
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q")
    (seed / "README.md").write_text("# executorch\n")
    (seed / WORKFLOW).parent.mkdir(parents=True)
    (seed / WORKFLOW).write_text(workflow_text(RELEASE_KEYS))
    shipped = commit_all(seed, "apple.yml as 1.0 shipped")
    git(seed, "branch", "release/1.0")
    release = shipped
    (seed / WORKFLOW).write_text(workflow_text(LIVE_KEYS))
    main = commit_all(seed, "Remove the MPS backend")
    git(seed, "checkout", "-q", "-b", "feature/faster-build")
    (seed / "README.md").write_text("# executorch\n\nfaster builds, maybe\n")
    feature = commit_all(seed, "try a faster build")

    git(seed, "checkout", "-q", "--orphan", "swiftpm")
    git(seed, "rm", "-rqf", ".")
    write_template_branch(seed, PRODUCT_KEYS)
    (seed / TEMPLATE_WORKFLOW).parent.mkdir(parents=True)
    (seed / TEMPLATE_WORKFLOW).write_text(TEMPLATE_PR_WORKFLOW)
    old_template = commit_all(seed, "template")
    publish_100 = _publish_commit(seed, old_template, BranchSpec("1.0.0"), "swiftpm-1.0.0")
    manifest = (seed / "Package.swift").read_text()
    wrong = checksum_for(FIXED_NAME, "1.0.0")
    (seed / "Package.swift").write_text(manifest.replace(wrong, FIXED_CHECKSUM))
    name, email = MAINTAINER[:-1].split(" <")
    git(seed, "-c", f"user.name={name}", "-c", f"user.email={email}", "add", "-A")
    git(seed, "-c", f"user.name={name}", "-c", f"user.email={email}", "commit", "-q",
        f"--author={MAINTAINER}", "-m", "Update checksums")
    hand_fix = git(seed, "rev-parse", "HEAD")

    git(seed, "checkout", "-q", "swiftpm")
    for stub in (seed / ".Package.swift").glob(f"{REMOVED}*"):
        shutil.rmtree(stub)
    write_template_branch(seed, LIVE_PRODUCTS)
    swiftpm = commit_all(seed, "Remove backend_mps")
    spec_110 = BranchSpec("1.1.0", products=LIVE_PRODUCTS)
    publish_110 = _publish_commit(seed, swiftpm, spec_110, "swiftpm-1.1.0")
    git(seed, "checkout", "-q", "main")

    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(seed), str(bare))
    return ExecuTorchOrigin(bare, main, swiftpm, release, feature, old_template, publish_100,
                            hand_fix, publish_110)
