"""The released action, proved against a real registry: `scripts/release.sh` builds the image,
pushes it to an OCI registry on loopback (Debian's docker-registry) and pins the release
commit's action.yml to `docker://…:X.Y.Z@sha256:…`; the image is then pulled by exactly that
reference into an engine whose store is empty (a second dockerd) and run the way the runner
runs a `docker://` action — here a pull-request check against the fake GitHub API.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import docker
import pytest

import swiftpm_guard
from support import fake_github
from support.container import API_VERSION, REPO_ROOT
from support.pr_check import TOKEN, pull_request_check
from support.registry import Registry, private_engine
from support.scripts import date_release_section
from support.tree_copy import copy_worktree

pytestmark = pytest.mark.container

VERSION = swiftpm_guard.__version__
OWNER = "Octo-Org"  # GHCR owners may be mixed case; image names may not
REPOSITORY = "octo-org/swiftpm-guard"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


@dataclass(frozen=True)
class Released:
    clone: Path
    reference: str  # what action.yml says after docker://
    digest: str
    log: str


@pytest.fixture(scope="module")
def released(engine, release_built, registry: Registry, tmp_path_factory) -> Released:
    """scripts/release.sh on a clean clone of this tree, against the loopback registry (the
    shared engine's layer cache from the `release_built` fixture makes its build quick)."""
    clone = tmp_path_factory.mktemp("release") / "clone"
    copy_worktree(REPO_ROOT, clone)
    date_release_section(clone, VERSION)
    _git(clone, "init", "-q", "-b", "main")
    _git(clone, "add", "-A")
    _git(clone, "commit", "-qm", "source")
    native = f"linux/{engine.version()['Arch']}"  # Go's names, as --platform wants them
    done = subprocess.run(
        ["bash", str(clone / "scripts" / "release.sh"), VERSION, "--registry", registry.host,
         "--owner", OWNER, "--platforms", native],
        capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    match = re.search(r"^image: docker://(\S+@(sha256:[0-9a-f]{64}))$", done.stdout, re.M)
    assert match, done.stdout
    yield Released(clone, match.group(1), match.group(2), done.stdout + done.stderr)
    engine.images.remove(f"{registry.host}/{REPOSITORY}:{VERSION}")  # untag in the shared engine


@pytest.fixture(scope="module")
def empty_engine(tmp_path_factory):
    with private_engine(tmp_path_factory.mktemp("engine")) as started:
        client = docker.DockerClient(base_url=started.host, version=API_VERSION, timeout=300)
        try:
            yield client, started.host
        finally:
            client.close()


@pytest.fixture
def fake():
    with fake_github.running() as server:
        yield server
    assert not server.violations, "requests GitHub would reject:\n" + "\n".join(server.violations)


def test_release_pushes_the_image_and_pins_the_release_commit_to_its_digest(
    released: Released, registry: Registry, release_built
):
    assert released.reference == f"{registry.host}/{REPOSITORY}:{VERSION}@{released.digest}"
    served = registry.manifest(REPOSITORY, VERSION)
    assert served.digest == released.digest  # the registry's own digest of what was pushed
    assert served.compressed_bytes > 10_000_000
    clone = released.clone
    tag, major = f"v{VERSION}", f"v{VERSION.split('.')[0]}"
    release_commit = _git(clone, "rev-parse", f"{tag}^{{commit}}")
    assert _git(clone, "rev-parse", f"{major}^{{commit}}") == release_commit
    assert _git(clone, "rev-parse", f"{release_commit}^") == _git(clone, "rev-parse", "main")
    # Only action.yml differs from the source commit, and only its image line; main and the
    # work tree still build the Dockerfile.
    assert _git(clone, "diff", "--name-only", "main", tag) == "action.yml"
    pinned = _git(clone, "show", f"{tag}:action.yml")
    assert f"  image: docker://{released.reference}" in pinned.splitlines()
    assert "  image: Dockerfile" in (clone / "action.yml").read_text().splitlines()
    assert not _git(clone, "status", "--porcelain")
    check = subprocess.run(
        [sys.executable, str(clone / "scripts" / "pin_action.py"), "check", "/dev/stdin",
         VERSION], input=pinned + "\n", capture_output=True, text=True, timeout=60, check=False)
    assert check.returncode == 0, check.stderr
    # The pinned file is still a valid action for GitHub (its metadata schema, offline).
    schema_check = Path(sys.executable).parent / "check-jsonschema"
    pinned_file = clone.parent / "pinned-action.yml"
    pinned_file.write_text(pinned + "\n")
    valid = subprocess.run([str(schema_check), "--builtin-schema", "vendor.github-actions",
                            str(pinned_file)], capture_output=True, text=True, timeout=120,
                           check=False)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    # The image's config digest (its ID) survived the push: the registry holds what was built,
    # the Dockerfile's release target (one layer).
    local = release_built.image.client.images.get(f"{registry.host}/{REPOSITORY}:{VERSION}")
    assert local.id == release_built.image.id
    assert len(local.attrs["RootFS"]["Layers"]) == 1


def test_release_refuses_to_release_the_same_version_twice(released: Released, registry):
    again = subprocess.run(
        ["bash", str(released.clone / "scripts" / "release.sh"), VERSION, "--registry",
         registry.host, "--owner", OWNER, "--digest", released.digest],
        capture_output=True, text=True, timeout=60, check=False)
    assert again.returncode == 1 and "never re-tagged" in again.stderr, again.stderr


def test_pulled_by_digest_into_an_empty_store_it_runs_the_pull_request_check(
    released: Released, empty_engine, fake, tmp_path
):
    client, host = empty_engine
    assert client.images.list(all=True) == [], "the second engine's store is not empty"
    # What the runner does for `runs.image: docker://…`: `docker pull` the reference, then
    # `docker run` it with the step's mounts and environment.
    pulled = subprocess.run(["docker", "-H", host, "pull", released.reference],
                            capture_output=True, text=True, timeout=600, check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert released.digest in pulled.stdout
    image = client.images.get(released.reference)
    assert any(d.endswith(released.digest) for d in image.attrs["RepoDigests"])

    scenario = pull_request_check(tmp_path, fake)
    result = scenario.job.run(client, released.reference)

    assert result.exit_code == 0, result  # errors on a PR, pr-conclusion: neutral
    run = fake.only_check_run()
    assert run["head_sha"] == scenario.head and run["conclusion"] == "neutral"
    # A name and its debug twin on one line: one annotation.
    assert {a["title"] for a in fake.annotations[run["id"]]} == {
        "unclaimed-artifact: kernels_new, kernels_new_debug"}
    assert result.outputs["consistent"] == "false", result
    assert (scenario.job.workspace / result.outputs["report"]).is_file()
    for line in result.logs.splitlines():
        assert TOKEN not in line or line == f"::add-mask::{TOKEN}", line


def test_a_digest_the_registry_does_not_hold_is_not_pulled(released: Released, empty_engine):
    _client, host = empty_engine
    name = released.reference.split("@")[0]
    wrong = subprocess.run(["docker", "-H", host, "pull", f"{name}@sha256:{'0' * 64}"],
                           capture_output=True, text=True, timeout=120, check=False)
    assert wrong.returncode != 0
    assert "manifest unknown" in wrong.stderr or "not found" in wrong.stderr, wrong.stderr
