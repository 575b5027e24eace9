"""Real git remotes for the publish tests: a bare repository holding a template branch.

Test-side git runs with the system and global config ignored and a fixed identity, so the
machine's own git setup cannot change what the tests see.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, write_template_branch

GIT_TIMEOUT = 60
#: Resolved once, before any test puts the spy first on PATH: test-side git is never logged.
GIT = shutil.which("git") or "git"


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "Fixture",
            "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
            "GIT_COMMITTER_NAME": "Fixture",
            "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
            "GIT_TERMINAL_PROMPT": "0",
        }
    )
    return env


def git(*args: str, cwd: Path | None = None, input: bytes | None = None) -> str:
    result = subprocess.run(
        [GIT, *args],
        cwd=cwd,
        env=git_env(),
        input=input,
        capture_output=True,
        timeout=GIT_TIMEOUT,
        check=False,
    )
    if result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {result.stderr.decode()}")
    return result.stdout.decode()


def make_bare(path: Path) -> Path:
    """A bare repository that accepts pushes over smart HTTP and keeps a reflog of every ref."""
    git("init", "--quiet", "--bare", str(path))
    git("config", "http.receivepack", "true", cwd=path)
    git("config", "core.logAllRefUpdates", "always", cwd=path)
    return path


def commit_folder(bare: Path, branch: str, folder: Path, message: str) -> str:
    """Commit `folder`'s files as the new tip of `branch` (on top of it when it exists)."""
    with tempfile.TemporaryDirectory() as tmp:
        index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        env = {**git_env(), **index, "GIT_WORK_TREE": str(folder), "GIT_DIR": str(bare)}

        def run(*args: str) -> str:
            return (
                subprocess.run(
                    [GIT, *args], env=env, capture_output=True, check=True, timeout=GIT_TIMEOUT
                )
                .stdout.decode()
                .strip()
            )

        run("add", "--all", "--force", ".")
        tree = run("write-tree")
        parent = refs(bare).get(f"refs/heads/{branch}")
        commit = run("commit-tree", tree, "-m", message, *(["-p", parent] if parent else []))
        run("update-ref", f"refs/heads/{branch}", commit)
        return commit


def make_template_remote(
    root: Path,
    *,
    products: Sequence[str] = PRODUCT_KEYS,
    binary_only: Sequence[str] = BINARY_ONLY_KEYS,
    branch: str = "swiftpm",
) -> Path:
    """`root/origin.git` with `branch` holding Package.swift.template, stubs and a README."""
    bare = make_bare(root / "origin.git")
    update_template(bare, products=products, binary_only=binary_only, branch=branch)
    return bare


def update_template(
    bare: Path,
    *,
    products: Sequence[str] = PRODUCT_KEYS,
    binary_only: Sequence[str] = BINARY_ONLY_KEYS,
    branch: str = "swiftpm",
) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "swiftpm"
        write_template_branch(folder, products, binary_only)
        (folder / "README.md").write_text("The SwiftPM template branch.\n")
        return commit_folder(bare, branch, folder, f"template: {', '.join(products)}")


def refs(bare: Path) -> dict[str, str]:
    out = git("for-each-ref", "--format=%(refname) %(objectname)", cwd=bare)
    return dict(line.split(" ", 1) for line in out.splitlines())


def reflog(bare: Path, ref: str) -> list[str]:
    out = git("reflog", "show", "--format=%H", ref, "--", cwd=bare)
    return out.split()


def tree_files(bare: Path, commit: str) -> dict[str, bytes]:
    """Every file of `commit` with its content."""
    names = git("ls-tree", "-r", "-z", "--name-only", commit, cwd=bare).split("\0")
    return {
        name: subprocess.run(
            [GIT, "cat-file", "blob", f"{commit}:{name}"],
            cwd=bare,
            env=git_env(),
            capture_output=True,
            check=True,
            timeout=GIT_TIMEOUT,
        ).stdout
        for name in names
        if name
    }


def commit_message(bare: Path, commit: str) -> str:
    return git("log", "-1", "--format=%B", commit, cwd=bare)


def install_git_spy(folder: Path) -> Path:
    """A `git` that logs its argv (one JSON list a line) to $SPY_GIT_LOG, then runs git.

    With $SPY_GIT_BARRIER set, a `git push` first waits (bounded) until $SPY_GIT_PARTIES
    pushes are waiting, so racing publishers really race at the push, not earlier.

    The tool gives git an allow-listed environment (no SPY_* variables), so the settings are
    also read from `settings.json` beside the spy (`Spy.configure`), which wins.
    """
    real = GIT
    folder.mkdir(parents=True, exist_ok=True)
    spy = folder / "git"
    spy.write_text(f"""#!{sys.executable} -IS
import json, os, sys, time
settings = dict(os.environ)
try:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "settings.json")) as f:
        settings.update(json.load(f))
except FileNotFoundError:
    pass
log = settings.get("SPY_GIT_LOG")
if log:
    with open(log, "a") as stream:
        stream.write(json.dumps(sys.argv[1:]) + "\\n")
barrier = settings.get("SPY_GIT_BARRIER")
if barrier and "push" in sys.argv[1:]:
    open(os.path.join(barrier, str(os.getpid())), "w").close()
    deadline = time.monotonic() + 60
    while (len(os.listdir(barrier)) < int(settings["SPY_GIT_PARTIES"])
           and time.monotonic() < deadline):
        time.sleep(0.01)
os.execv({real!r}, [{real!r}, *sys.argv[1:]])
""")
    spy.chmod(0o755)
    return folder


@dataclass
class Spy:
    env: dict[str, str]  # environment for a tool subprocess: PATH starts with the spy
    log: Path
    folder: Path | None = None

    def configure(self, **settings: str) -> None:
        """SPY_GIT_* settings every spied git reads, whatever environment it was given."""
        assert self.folder is not None
        path = self.folder / "settings.json"
        known = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**known, **settings}))

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


def make_spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Every git the tool runs is logged (argv only); in-process runs see it through PATH."""
    folder = install_git_spy(tmp_path / "spy")
    log = tmp_path / "git-calls.jsonl"
    path = f"{folder}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    monkeypatch.setenv("PATH", path)
    monkeypatch.setenv("SPY_GIT_LOG", str(log))
    spy = Spy(env={**os.environ, "PATH": path, "SPY_GIT_LOG": str(log)}, log=log, folder=folder)
    spy.configure(SPY_GIT_LOG=str(log))
    return spy
