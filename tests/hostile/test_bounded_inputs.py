"""Unusable paths fail at once with one line naming the input: never a hang, never a traceback.

Each case runs the CLI in a fresh process under a deadline, so a FIFO that blocks `open()`
fails the test by timeout instead of hanging the suite. A FIFO, a device or a directory where a
file is expected, a symlink loop, a name longer than the file system allows and a workflow
nested too deeply for the YAML reader: exit 2, one line on stderr, naming the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support.release import Release
from support.runner_job import Job
from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.artifacts import sha256_file

DEADLINE = 20
LONG = "n" * 300  # one component over NAME_MAX (255)


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "swiftpm_guard", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"swiftpm-guard {' '.join(args)} blocked for {DEADLINE} s")


@pytest.fixture
def place(release: Release) -> Path:
    """The release's folder with hostile entries beside it."""
    root = release.root
    os.mkfifo(root / "fifo")
    (root / "loop-a").symlink_to("loop-b")
    (root / "loop-b").symlink_to("loop-a")
    (root / "folder").mkdir()
    return root


def _template(release: Release) -> str:
    return str(release.template.relative_to(release.root))


def _checksums(release: Release) -> str:
    return str(release.checksums.relative_to(release.root))


CASES = {
    # id: (build argv from (template, checksums), the path the line must name, what it says)
    "template-fifo": (lambda t, c: ["--template", "fifo", "--checksums", c], "fifo", "FIFO"),
    "template-device": (
        lambda t, c: ["--template", "/dev/zero", "--checksums", c],
        "/dev/zero",
        "character device",
    ),
    "template-loop": (lambda t, c: ["--template", "loop-a", "--checksums", c], "loop-a", "loop"),
    "template-long-name": (
        lambda t, c: ["--template", LONG + ".template", "--checksums", c],
        LONG,
        "too long",
    ),
    "checksums-fifo": (lambda t, c: ["--template", t, "--checksums", "fifo"], "fifo", "FIFO"),
    "checksums-folder": (
        lambda t, c: ["--template", t, "--checksums", "folder"],
        "folder",
        "directory",
    ),
    "checksums-loop": (lambda t, c: ["--template", t, "--checksums", "loop-a"], "loop-a", "loop"),
    "checksums-long-name": (
        lambda t, c: ["--template", t, "--checksums", LONG],
        LONG,
        "too long",
    ),
    "list-fifo": (lambda t, c: ["--template", t, "--frameworks", "@fifo"], "fifo", "FIFO"),
    "list-loop": (lambda t, c: ["--template", t, "--frameworks", "@loop-a"], "loop-a", "loop"),
    "list-long-name": (
        lambda t, c: ["--template", t, "--frameworks", "@" + LONG],
        LONG,
        "too long",
    ),
    "workflow-fifo": (
        lambda t, c: ["--template", t, "--frameworks-from", "fifo:build:FRAMEWORKS"],
        "fifo",
        "FIFO",
    ),
    "workflow-long-name": (
        lambda t, c: ["--template", t, "--frameworks-from", f"{LONG}.yml:build:FRAMEWORKS"],
        LONG,
        "too long",
    ),
    "artifacts-long-name": (lambda t, c: ["--template", t, "--artifacts", LONG], LONG, "too long"),
    "artifacts-loop": (lambda t, c: ["--template", t, "--artifacts", "loop-a"], "loop-a", ""),
    "stubs-long-name": (
        lambda t, c: ["--template", t, "--checksums", c, "--stubs-dir", LONG],
        LONG,
        "too long",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_unusable_path_is_one_line_and_exit_2(
    place: Path, release: Release, case: str
) -> None:
    build, named, says = CASES[case]
    argv = build(_template(release), _checksums(release))
    done = run_cli(place, "check", "--version", release.version, *argv)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    line = done.stderr
    assert line.startswith("swiftpm-guard: error:"), line
    assert named in line and says in line, line


@pytest.mark.parametrize("kind", ["fifo", "loop"])
def test_a_zip_that_is_not_a_regular_file_is_refused(release: Release, kind: str) -> None:
    name = f"executorch-{release.version}.zip"
    target = release.artifacts / name
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(name)  # points at itself
    done = run_cli(
        release.root,
        "check",
        "--template",
        _template(release),
        "--version",
        release.version,
        "--artifacts",
        "artifacts",
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and name in done.stderr, done.stderr


def test_a_workflow_nested_too_deeply_is_one_line(release: Release) -> None:
    workflow = release.root / "deep.yml"
    workflow.write_text("jobs:\n  build:\n    steps: " + "[" * 50_000 + "\n")
    done = run_cli(
        release.root,
        "check",
        "--template",
        _template(release),
        "--version",
        release.version,
        "--frameworks-from",
        "deep.yml:build:FRAMEWORKS",
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "deep.yml" in done.stderr, done.stderr
    assert "Recursion" not in done.stderr


def _finishes(function, *args) -> BaseException | None:
    """Run `function(*args)` in a thread; the test fails if it does not return in time."""
    outcome: list[BaseException | None] = []

    def body() -> None:
        try:
            function(*args)
            outcome.append(None)
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if thread.is_alive():
        # Unblock the thread's open() so the daemon thread ends: open the FIFO for writing.
        for path in args:
            if isinstance(path, Path) and path.is_fifo():
                with open(path, "wb"):
                    pass
        pytest.fail(f"{function.__name__} blocked on a FIFO")
    return outcome[0]


def test_a_file_swapped_for_a_fifo_after_listing_never_blocks(tmp_path: Path) -> None:
    """What the listing saw a moment ago does not matter: the descriptor is checked."""
    from swiftpm_guard.infra.fs import open_regular, read_text

    path = tmp_path / "executorch-1.2.3.zip"
    os.mkfifo(path)
    for call in (
        lambda p: sha256_file(p),
        lambda p: read_text(p, display="x.zip", max_bytes=10, what="zip"),
        lambda p: open_regular(p, display="x.zip", what="zip").__enter__(),
    ):
        error = _finishes(call, path)
        assert isinstance(error, InputError) and "FIFO" in str(error), error


def _add_to_stub_root(bare: Path, name: str) -> None:
    """A blob called `name` in the template ref's stub root, written with plumbing only (a
    work tree could not hold it: that is the point)."""
    from support.git_remote import git

    tip = git("rev-parse", "refs/heads/swiftpm", cwd=bare).strip()
    blob = git("hash-object", "-w", "--stdin", cwd=bare, input=b"// stub\n").strip()
    stubs = git("ls-tree", f"{tip}:.Package.swift", cwd=bare)
    stubs_tree = git(
        "mktree", cwd=bare, input=(stubs + f"100644 blob {blob}\t{name}\n").encode()
    ).strip()
    top = [
        line if not line.endswith("\t.Package.swift") else f"040000 tree {stubs_tree}\t.Package.swift"
        for line in git("ls-tree", tip, cwd=bare).splitlines()
    ]
    tree = git("mktree", cwd=bare, input=("\n".join(top) + "\n").encode()).strip()
    commit = git("commit-tree", tree, "-p", tip, "-m", "long name", cwd=bare).strip()
    git("update-ref", "refs/heads/swiftpm", commit, cwd=bare)


def test_a_name_too_long_for_the_file_system_in_the_template_ref_is_one_line(
    tmp_path: Path, release: Release, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.git_remote import make_template_remote, refs

    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    bare = make_template_remote(tmp_path / "remotes")
    _add_to_stub_root(bare, "x" * 300 + ".swift")
    done = run_cli(
        release.root,
        "publish",
        "--accept-static",  # no SwiftPM in this tier: a static proof
        "--artifacts",
        "artifacts",
        "--version",
        release.version,
        "--repo",
        str(bare),
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[-1].startswith("swiftpm-guard: error:") and "too long" in lines[-1], lines
    assert all(not line.startswith(("Traceback", "  File")) for line in lines)
    assert "refs/heads/swiftpm-1.2.3" not in refs(bare)


def test_materializing_a_name_too_long_is_bad_input(tmp_path: Path) -> None:
    from swiftpm_guard.sources.refs import RefEntry, materialize

    with pytest.raises(InputError) as raised:
        materialize([RefEntry(".Package.swift/" + "y" * 300, "file")], tmp_path)
    assert "too long" in str(raised.value)


def test_a_zip_name_that_is_not_utf8_is_reported_not_a_crash(
    release: Release, tmp_path: Path
) -> None:
    """An undecodable byte in a file name reaches the JSON report, Markdown and the log."""
    raw = os.path.join(os.fsencode(release.artifacts), b"\xff\xfe-1.2.3.zip")
    with open(raw, "wb") as stream:
        stream.write(b"PK\x05\x06" + bytes(18))
    done = run_cli(
        release.root,
        "check",
        "--template",
        _template(release),
        "--version",
        release.version,
        "--artifacts",
        "artifacts",
        "--json",
        str(tmp_path / "r.json"),
        "--markdown",
        str(tmp_path / "r.md"),
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "\ufffd\ufffd-1.2.3.zip" in (tmp_path / "r.json").read_text(encoding="utf-8")


def test_inside_the_workspace_refuses_loops_long_names_and_escapes(tmp_path: Path) -> None:
    from swiftpm_guard.infra.fs import inside

    (tmp_path / "loop-a").symlink_to("loop-b")
    (tmp_path / "loop-b").symlink_to("loop-a")
    (tmp_path / "out").symlink_to("/etc")
    (tmp_path / "ok").mkdir()
    assert inside(tmp_path, "ok") == (tmp_path / "ok").resolve()
    # (A name too long passes here: the open that follows names it, see above.)
    for relative, says in (("loop-a", "loop"), ("out", "outside")):
        with pytest.raises(InputError) as raised:
            inside(tmp_path, relative)
        assert says in str(raised.value) and str(raised.value).startswith(relative[:20])


@pytest.mark.parametrize("inputs", [{"artifacts": "loop-a"}, {"frameworks": "@loop-a"},
                                    {"checksums": "loop-a"}], ids=["artifacts", "list", "checksums"])
def test_the_action_reports_a_symlink_loop_input_as_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inputs: dict[str, str]
) -> None:
    from support.actions_env import REPOSITORY, clone, make_origin, push_payload
    from support.fake_fixture import fake_github_fixture
    from swiftpm_guard.action import main as action
    from swiftpm_guard.infra.github import RetryPolicy

    for fake in fake_github_fixture():
        origin = make_origin(tmp_path / "remote")
        fake.add_repo(REPOSITORY, git_dir=origin.bare)
        fake.add_token("ghs_loopToken0123456789")
        workspace = clone(origin, "main", tmp_path / "workspace")
        (workspace / "loop-a").symlink_to("loop-b")
        (workspace / "loop-b").symlink_to("loop-a")
        (tmp_path / "step").mkdir()
        step = Job(tmp_path / "step", fake.url).step(
            workspace, "push",
            push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
            sha=origin.main,
            inputs={"github-token": "ghs_loopToken0123456789", "version": "1.2.3", **inputs})
        code = action.main(step.env, policy=RetryPolicy(attempts=1, request_timeout=5,
                                                        seconds_between_writes=None))
        out = capsys.readouterr().out
        assert code == 2, out
        assert "::error title=swiftpm-guard::loop-a: path is a symbolic link loop" in out
