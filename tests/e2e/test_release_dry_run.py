"""`scripts/release.sh --dry-run` end to end, on a committed copy of this tree as a user's
repository: the image built and pushed to a real OCI registry on loopback (the session's
docker-registry), the release commit and tags made in the dry run's scratch origin, the sdist
and wheel uploaded by twine to the loopback package index, the release notes written. Checked
from the outside: the digest pinned in the release commit's action.yml is the one the registry
itself serves, vX.Y.Z and vX name that commit, the index serves the built wheel, and the user's
repository and the engine are left as they were.

Quick by reuse: the build runs on the stand-in base image and the layer cache the tier's other
builds left (the Dockerfile's `release` target, as test_prebuilt_image.py builds it), and the
layers are already in the session's registry under another owner, so the push mounts them.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import docker.errors
import pytest

import swiftpm_guard
from support.container import REPO_ROOT
from support.registry import Registry
from support.scripts import date_release_section, load
from support.tree_copy import copy_worktree

pytestmark = pytest.mark.container

VERSION = swiftpm_guard.__version__
TAG, MAJOR = f"v{VERSION}", f"v{VERSION.split('.')[0]}"
OWNER = "Dry-Run-Org"
REPOSITORY = "dry-run-org/swiftpm-guard"
WHEEL, SDIST = f"swiftpm_guard-{VERSION}-py3-none-any.whl", f"swiftpm_guard-{VERSION}.tar.gz"
IDENTITY = {"GIT_AUTHOR_NAME": "Maintainer", "GIT_AUTHOR_EMAIL": "maintainer@example.invalid",
            "GIT_COMMITTER_NAME": "Maintainer", "GIT_COMMITTER_EMAIL": "maintainer@example.invalid"}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=60, check=True, env={**os.environ, **IDENTITY})
    return done.stdout.strip()


@dataclass(frozen=True)
class DryRun:
    repo: Path  # the user's repository the dry run releases from
    head: str
    work: Path  # the dry run's --workdir
    output: str
    seconds: float


def _user_repository(root: Path) -> Path:
    repo = root / "swiftpm-guard"
    copy_worktree(REPO_ROOT, repo)
    date_release_section(repo, VERSION)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "source")
    return repo


def _dry_run(repo: Path, *args: str, timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(repo / "scripts" / "release.sh"), "--dry-run", VERSION, "--owner", OWNER,
         "--python", sys.executable, *args],
        capture_output=True, text=True, timeout=timeout, check=False,
        env={**os.environ, **IDENTITY})


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    running = load("local_index").serve(tmp_path_factory.mktemp("index"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def dry_run(engine, registry: Registry, index, tmp_path_factory) -> DryRun:
    repo = _user_repository(tmp_path_factory.mktemp("user"))
    work = tmp_path_factory.mktemp("dry-run-work")
    started = time.monotonic()
    done = _dry_run(repo, "--registry", registry.host, "--index", index.url,
                    "--workdir", str(work))
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    return DryRun(repo, _git(repo, "rev-parse", "HEAD"), work, done.stdout, seconds)


def _pinned_reference(run: DryRun) -> str:
    action = _git(run.work / "origin.git", "show", f"{TAG}:action.yml")
    images = re.findall(r"^  image: docker://(\S+)$", action, re.M)
    assert len(images) == 1, action
    return images[0]


def test_every_step_is_printed_in_order(dry_run: DryRun):
    positions = [dry_run.output.index(f"\n[{n}/11] ") for n in range(1, 12)]
    assert positions == sorted(positions)
    assert f"dry run of {VERSION} passed:" in dry_run.output
    assert "nothing leaves loopback" in dry_run.output


def test_the_pinned_digest_is_the_one_the_registry_serves(dry_run: DryRun, registry: Registry):
    reference = _pinned_reference(dry_run)
    name, digest = reference.split("@")
    assert name == f"{registry.host}/{REPOSITORY}:{VERSION}"
    served = registry.manifest(REPOSITORY, VERSION)
    assert served.digest == digest  # the registry's own Docker-Content-Digest
    assert served.compressed_bytes > 10_000_000
    assert f"  image     {reference}\n" in dry_run.output


def test_the_tags_name_the_release_commit_on_the_source(dry_run: DryRun):
    origin = dry_run.work / "origin.git"
    release_commit = _git(origin, "rev-parse", f"{TAG}^{{commit}}")
    assert _git(origin, "rev-parse", f"{MAJOR}^{{commit}}") == release_commit
    assert _git(origin, "rev-parse", f"{release_commit}^") == dry_run.head
    assert _git(origin, "diff", "--name-only", dry_run.head, release_commit) == "action.yml"
    assert _git(origin, "rev-parse", "main") == dry_run.head  # no branch moved
    assert _git(origin, "cat-file", "-t", TAG) == "tag"  # annotated, naming the image
    assert f"image: docker://{_pinned_reference(dry_run)}" in _git(
        origin, "tag", "-l", "--format=%(contents)", TAG)
    assert f"{MAJOR} moved from nothing to the release commit {release_commit[:7]}" in (
        dry_run.output)


def test_the_index_serves_the_built_wheel_and_sdist(dry_run: DryRun, index):
    built = {f.name: f.read_bytes() for f in (dry_run.work / "dist").iterdir()}
    assert set(built) == {WHEEL, SDIST}
    listed = dict(index.files("swiftpm-guard"))
    assert listed == {name: hashlib.sha256(data).hexdigest() for name, data in built.items()}
    with urllib.request.urlopen(f"{index.url}/simple/swiftpm-guard/", timeout=10) as response:
        page = response.read().decode()
    assert f"{WHEEL}#sha256={listed[WHEEL]}" in page
    with urllib.request.urlopen(f"{index.url}/packages/swiftpm-guard/{WHEEL}",
                                timeout=30) as response:
        served = response.read()
    assert served == built[WHEEL]
    with zipfile.ZipFile(io.BytesIO(served)) as wheel:
        metadata = wheel.read(f"swiftpm_guard-{VERSION}.dist-info/METADATA").decode()
    assert f"\nVersion: {VERSION}\n" in metadata
    assert "pip download got" in dry_run.output


def test_the_release_notes_are_the_changelog_section_and_the_image(dry_run: DryRun):
    changelog = load("changelog")
    section = changelog.release_notes((dry_run.repo / "CHANGELOG.md").read_text(), VERSION)
    notes = (dry_run.work / "release-notes.md").read_text()
    assert notes == changelog.with_image(section.body, _pinned_reference(dry_run))


def test_the_users_repository_and_the_engine_are_left_alone(dry_run: DryRun, engine,
                                                            registry: Registry):
    repo = dry_run.repo
    assert _git(repo, "tag") == ""
    assert _git(repo, "rev-parse", "HEAD") == dry_run.head
    assert _git(repo, "status", "--porcelain") == ""
    assert _git(repo, "remote") == ""
    with pytest.raises(docker.errors.ImageNotFound):
        engine.images.get(f"{registry.host}/{REPOSITORY}:{VERSION}")


def test_a_tree_that_is_not_committed_is_refused_before_anything_is_built(
    engine, tmp_path_factory
):
    repo = _user_repository(tmp_path_factory.mktemp("dirty"))
    (repo / "action.yml").write_text((repo / "action.yml").read_text() + "# edited\n")
    done = _dry_run(repo, timeout=120)
    assert done.returncode == 1
    assert "the work tree is not clean" in done.stdout + done.stderr
    assert "[2/11]" not in done.stdout
