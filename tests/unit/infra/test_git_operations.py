"""infra.git's operations: the one reader of ls-remote, rev-parse, ls-tree and cat-file output
(real git, a repository made here)."""

import subprocess
from pathlib import Path

import pytest

from swiftpm_guard.errors import GitFailed
from swiftpm_guard.infra.git import Git, TreeEntry, parse_tree
from swiftpm_guard.infra.process import Done


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Git, str]:
    work = tmp_path / "work"
    (work / "Stubs" / "Kit").mkdir(parents=True)
    (work / "Package.swift").write_text("// manifest\n")
    (work / "Stubs" / "Kit" / "dummy.swift").write_text("")
    (work / "link").symlink_to("Package.swift")
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.invalid",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.invalid",
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)
    git = Git(git_dir=str(work / ".git"))
    commit = git.rev_parse("main^{commit}", timeout=30)
    assert commit is not None
    return git, commit


def test_ls_tree_lists_kinds_sizes_and_paths(repo):
    git, commit = repo
    entries = git.ls_tree(commit, recursive=True, trees=True, sizes=True, timeout=30)
    by_path = {e.path: e for e in entries}
    assert sorted(by_path) == ["Package.swift", "Stubs", "Stubs/Kit", "Stubs/Kit/dummy.swift",
                               "link"]
    assert (by_path["Package.swift"].kind, by_path["Package.swift"].size) == ("blob", 12)
    assert [by_path[p].what for p in ("link", "Stubs", "Stubs/Kit/dummy.swift")] == [
        "symlink", "dir", "file"]
    assert git.ls_tree(commit, "Stubs/", timeout=30) == [by_path["Stubs/Kit"]]
    assert by_path["Stubs/Kit"].size is None


def test_cat_file_batches_read_objects_and_say_which_are_missing(repo):
    git, commit = repo
    manifest = git.rev_parse(f"{commit}:Package.swift", timeout=30)
    missing = "0" * 40
    found = git.objects([manifest, missing, f"{commit}^{{tree}}", manifest], timeout=30)
    assert found[manifest] == ("blob", b"// manifest\n") and found[missing] is None
    kind, data = found[f"{commit}^{{tree}}"]
    tree = parse_tree(data, 20)
    assert kind == "tree" and [(e.mode, e.kind, e.path) for e in tree] == [
        ("100644", "blob", "Package.swift"), ("40000", "tree", "Stubs"),
        ("120000", "blob", "link")]
    assert tree[0] == TreeEntry("100644", "blob", manifest, None, "Package.swift")
    assert git.sizes([manifest, missing], timeout=30) == {manifest: 12}
    assert git.rev_parse("no-such-ref", timeout=30) is None


def test_a_failing_git_is_its_last_error_line(repo, tmp_path):
    git, _commit = repo
    with pytest.raises(GitFailed) as failed:
        git.ls_remote(str(tmp_path / "nothing.git"), timeout=30)
    assert str(failed.value) == ("git ls-remote failed: fatal: Could not read from remote "
                                 "repository.")


def test_the_line_shown_hides_userinfo_headers_and_workflow_commands():
    git = Git(config=(("http.https://h.example.extraHeader", "Authorization: Basic c2VjcmV0"),))
    said = (b"hint: nothing\nfatal: strange hostname 'user:secret@h' "
            b"(Authorization: Basic c2VjcmV0) ::error::x\nand the repository exists.\n")
    line = git.last_line(Done(("git",), 128, b"", said), ["ssh://user:secret@h/x"])
    assert line == "fatal: strange hostname '***@h' (***) : :error: :x" and "::" not in line
