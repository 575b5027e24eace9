"""Bad input to `audit`: one line, exit 2 (or 3 when git or the network fails), never a hang."""

import socket
import subprocess

import pytest

from support.published import STUB, BranchSpec, fast_import_stream, read_published_branches
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.audit import AuditOptions, audit
from swiftpm_guard.infra.git import Git


def make_repo(path, branches):
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    subprocess.run(
        ["git", "--git-dir", str(path), "fast-import", "--quiet"],
        input=fast_import_stream(branches, {}),
        check=True,
        timeout=60,
    )
    return path


@pytest.mark.parametrize(
    "pattern",
    [
        "-x",
        "--upload-pack=touch",
        "swiftpm-[ab",  # a character class left open (closed ones are globs)
        "../x",
        "a b",
        "",
        "swiftpm-*.lock",
        "/abs",
        "x\ny",
    ],
)
def test_bad_branch_globs_are_refused(tmp_path, capsys, pattern):
    repo = make_repo(tmp_path / "r.git", {"swiftpm-1.0.0": {"README": b"x"}})
    assert main(["audit", "--repo", str(repo), "--branches", pattern]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--branches" in err


@pytest.mark.parametrize(
    "repo",
    [
        "-uhoh",
        "ext::sh -c touch% /tmp/pwned",
        "ftp://host/x",
        "https://user:secret@example.invalid/r.git",
        "/nonexistent/repo",
    ],
)
def test_bad_repositories_are_refused(capsys, repo):
    assert main(["audit", "--repo", repo]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "secret" not in err


def test_a_folder_that_is_not_a_repository(tmp_path, capsys):
    assert main(["audit", "--repo", str(tmp_path)]) == 2
    assert "not a git repository" in capsys.readouterr().err


def test_unreachable_remote_is_infrastructure(capsys):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    assert main(["audit", "--repo", f"http://127.0.0.1:{port}/r.git"]) == 3
    assert "git ls-remote failed" in capsys.readouterr().err


def test_a_remote_that_never_answers_times_out(capsys):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # accepts connections in the kernel, never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/r.git"
        assert main(["audit", "--repo", url, "--git-timeout", "1"]) == 3
    assert "git ls-remote did not finish within 1 s" in capsys.readouterr().err


def test_huge_binary_and_odd_manifests_become_findings(tmp_path):
    good = BranchSpec("1.0.0").files()
    huge = dict(good, **{"Package.swift": b"// " + b"x" * (5 * 1024 * 1024)})
    binary = dict(good, **{"Package.swift": b'let version = "1.0.1"\n\xff\xfe'})
    nested = {
        k: v
        for k, v in BranchSpec("1.0.2").files().items()
        if not k.startswith(".Package.swift/executorch/")
    }
    nested[".Package.swift/executorch/Sources/deep/dummy.swift"] = STUB
    directory = {
        "Package.swift/inner.txt": b"x",
        **{k: v for k, v in good.items() if k != "Package.swift"},
    }
    repo = make_repo(
        tmp_path / "r.git",
        {
            "swiftpm-1.0.0": huge,
            "swiftpm-1.0.1": binary,
            "swiftpm-1.0.2": nested,
            "swiftpm-1.0.3": directory,
            "swiftpm-1.0.4": {"README.md": b"nothing\n"},
        },
    )
    report = audit(read_published_branches(str(repo), git=Git()), AuditOptions())
    messages = {b.branch: [(f.code, f.message) for f in b.findings] for b in report.branches}
    assert messages["swiftpm-1.0.0"][0][0] == "manifest-unreadable"
    assert "more than" in messages["swiftpm-1.0.0"][0][1]
    assert messages["swiftpm-1.0.1"] == [
        ("manifest-unreadable", "Package.swift is not UTF-8 (byte offset 22)")
    ]
    assert messages["swiftpm-1.0.2"] == []  # a source file deeper down still counts
    assert messages["swiftpm-1.0.3"][0][0] == "manifest-unreadable"
    assert messages["swiftpm-1.0.4"] == [("manifest-unreadable", "the branch has no Package.swift")]


def test_work_tree_repository_is_read_in_place(tmp_path):
    bare = make_repo(tmp_path / "r.git", {"swiftpm-1.0.0": BranchSpec("1.0.0").files()})
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", "--branch", "swiftpm-1.0.0", str(bare), str(clone)], check=True
    )
    # A clone has only its checked-out branch under refs/heads: that is what a path means.
    report = audit(read_published_branches(str(clone), git=Git()), AuditOptions())
    assert [b.branch for b in report.branches] == ["swiftpm-1.0.0"]
    assert report.consistent
