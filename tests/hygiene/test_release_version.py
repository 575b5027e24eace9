"""The version lives in one place; the changelog, the package metadata and the tags agree."""

import re
import subprocess
import sys
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest

import swiftpm_guard
from support.scripts import date_release_section
from support.tree_copy import copy_worktree

ROOT = Path(__file__).resolve().parents[2]


def changelog_versions() -> list[str]:
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)


def test_code_changelog_and_metadata_agree():
    assert changelog_versions()[0] == swiftpm_guard.__version__
    assert installed_version("swiftpm-guard") == swiftpm_guard.__version__


def _committed_copy(tmp_path: Path) -> tuple[list[str], list[str], dict[str, str]]:
    """A committed copy of this tree, release-day ready; its git command, script and env."""
    clone = tmp_path / "clone"
    copy_worktree(ROOT, clone)
    date_release_section(clone, swiftpm_guard.__version__)
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True, timeout=60)
    subprocess.run([*git, "add", "-A"], check=True, timeout=60)
    subprocess.run([*git, "commit", "-qm", "x"], check=True, timeout=60)
    env = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.invalid", "HOME": str(tmp_path)}
    return git, [str(clone / "scripts" / "release.sh")], env


def test_release_script_tags_the_source_and_leaves_the_major_to_the_workflow(tmp_path):
    """`@vX` moves only once the image is pinned (the workflow's pin job), never to a source
    commit whose image does not exist yet."""
    git, script, env = _committed_copy(tmp_path)
    version = swiftpm_guard.__version__
    wrong = subprocess.run([*script, "9.9.9"], capture_output=True, text=True, env=env, timeout=60)
    assert wrong.returncode == 1 and "__init__.py says" in wrong.stderr
    check = subprocess.run([*script, version, "--check"], capture_output=True, text=True,
                           env=env, timeout=60)
    assert check.returncode == 0 and "is ready to release" in check.stdout, check.stderr
    ok = subprocess.run([*script, version], capture_output=True, text=True, env=env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert f"push with: git push origin v{version}\n" in ok.stdout
    tags = subprocess.run([*git, "tag"], capture_output=True, text=True, check=True, timeout=60)
    assert tags.stdout.split() == [f"v{version}"]
    again = subprocess.run([*script, version], capture_output=True, text=True, env=env,
                           timeout=60)
    assert again.returncode == 1 and "never re-tagged" in again.stderr
    # The workflow's first job: the source tag on HEAD passes --check.
    tagged = subprocess.run([*script, version, "--check"], capture_output=True, text=True,
                            env=env, timeout=60)
    assert tagged.returncode == 0 and f"(v{version})" in tagged.stdout, tagged.stderr


def test_release_script_refuses_a_changelog_that_is_not_ready(tmp_path):
    git, script, env = _committed_copy(tmp_path)
    changelog = Path(git[2]) / "CHANGELOG.md"
    version = swiftpm_guard.__version__
    changelog.write_text(re.sub(rf"^## \[{re.escape(version)}\] - \S+$",
                                f"## [{version}] - YYYY-MM-DD", changelog.read_text(), flags=re.M))
    subprocess.run([*git, "commit", "-qam", "undated"], check=True, timeout=60)
    done = subprocess.run([*script, version, "--check"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 1 and "is not dated" in done.stderr, done.stderr


def _pin_action():
    """scripts/pin_action.py, loaded by path (scripts/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pin_action", ROOT / "scripts" / "pin_action.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DIGEST = "sha256:" + "ab" * 32


def test_action_image_and_package_version_agree():
    """On main runs.image is Dockerfile; on a release commit it is this version's image."""
    pin_action = _pin_action()
    text = (ROOT / "action.yml").read_text()
    assert pin_action.check(text, swiftpm_guard.__version__) is None
    image = pin_action.image_of(text)
    if image != "Dockerfile":  # a release commit: the tag names this very version
        assert f"/swiftpm-guard:{swiftpm_guard.__version__}@sha256:" in image


def test_pinning_changes_only_the_image_line_and_ties_it_to_the_version():
    pin_action = _pin_action()
    text = (ROOT / "action.yml").read_text()
    version = swiftpm_guard.__version__
    reference = f"ghcr.io/example-org/swiftpm-guard:{version}@{DIGEST}"
    pinned = pin_action.pin(text, reference)
    changed = [(a, b) for a, b in zip(text.splitlines(), pinned.splitlines(), strict=True)
               if a != b]
    assert changed == [("  image: Dockerfile", f"  image: docker://{reference}")]
    assert pin_action.image_of(pinned) == f"docker://{reference}"
    assert pin_action.check(pinned, version) is None
    assert "package version is 9.9.9" in pin_action.check(pinned, "9.9.9")
    with pytest.raises(ValueError, match="already pinned"):
        pin_action.pin(pinned, reference)


@pytest.mark.parametrize("reference", [
    "ghcr.io/example-org/swiftpm-guard:1.0.0",            # no digest: could move under users
    "ghcr.io/example-org/swiftpm-guard@" + DIGEST,        # no tag: nothing ties it to a version
    "ghcr.io/example-org/other:1.0.0@" + DIGEST,
    "ghcr.io/Example/swiftpm-guard:1.0.0@" + DIGEST,      # registries want lower case
    "ghcr.io/x/swiftpm-guard:1.0.0@sha256:" + "ab" * 31,
    "ghcr.io/x/swiftpm-guard:1.0.0@" + DIGEST + "\nruns: {}",
])
def test_pin_refuses_references_that_are_not_a_versioned_digest(reference):
    with pytest.raises(ValueError, match="is not"):
        _pin_action().pin((ROOT / "action.yml").read_text(), reference)


def test_check_names_an_image_that_is_neither(tmp_path):
    pin_action = _pin_action()
    text = (ROOT / "action.yml").read_text().replace(
        "image: Dockerfile", "image: docker://ghcr.io/x/swiftpm-guard:latest")
    assert "neither Dockerfile" in pin_action.check(text, swiftpm_guard.__version__)
    path = tmp_path / "action.yml"
    path.write_text(text)
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "pin_action.py"), "check",
                           str(path), swiftpm_guard.__version__],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("args, message", [
    (["--registry", "127.0.0.1:5000"], "go together"),
    (["--registry", "reg;rm -rf /", "--owner", "o"], "not a registry host"),
    (["--registry", "ghcr.io", "--owner", "a b"], "not a registry owner"),
    (["--registry", "ghcr.io", "--owner", "o", "--digest", "sha256:12"], "not sha256"),
    (["--registry", "ghcr.io", "--owner", "o", "--platforms", "windows/amd64"], "linux/<arch>"),
    (["--bogus"], "unknown option"),
    (["--check", "--owner", "o"], "--check takes no other option"),
    (["--registry", "r", "--owner", "o", "--push-only", "--from-tag"], "neither --digest"),
    (["--registry", "r", "--owner", "o", "--push-only", "--digest", "sha256:" + "a" * 64],
     "neither --digest"),
    (["--push-only"], "go together"),
])
def test_release_script_refuses_bad_image_options_before_doing_anything(args, message):
    done = subprocess.run(["bash", str(ROOT / "scripts" / "release.sh"), "1.0.0", *args],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
