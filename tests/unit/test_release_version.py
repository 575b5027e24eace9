"""The version lives in one place; the changelog, the package metadata and the tags agree."""

import re
import shutil
import subprocess
from importlib.metadata import version as installed_version
from pathlib import Path

import swiftpm_guard

ROOT = Path(__file__).resolve().parents[2]


def changelog_versions() -> list[str]:
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)


def test_code_changelog_and_metadata_agree():
    assert changelog_versions()[0] == swiftpm_guard.__version__
    assert installed_version("swiftpm-guard") == swiftpm_guard.__version__


def test_release_script_tags_and_moves_the_major(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(".venv", ".git", "*cache*"))
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True, timeout=60)
    subprocess.run([*git, "add", "-A"], check=True, timeout=60)
    subprocess.run([*git, "commit", "-qm", "x"], check=True, timeout=60)
    script = [str(clone / "scripts" / "release.sh")]
    env = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.invalid", "HOME": str(tmp_path)}
    wrong = subprocess.run([*script, "9.9.9"], capture_output=True, text=True, env=env, timeout=60)
    assert wrong.returncode == 1 and "CHANGELOG.md says" in wrong.stderr
    ok = subprocess.run([*script, swiftpm_guard.__version__], capture_output=True, text=True,
                        env=env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    tags = subprocess.run([*git, "tag"], capture_output=True, text=True, check=True, timeout=60)
    major = "v" + swiftpm_guard.__version__.split(".")[0]
    assert set(tags.stdout.split()) == {f"v{swiftpm_guard.__version__}", major}
    again = subprocess.run([*script, swiftpm_guard.__version__], capture_output=True, text=True,
                           env=env, timeout=60)
    assert again.returncode == 1 and "never re-tagged" in again.stderr
