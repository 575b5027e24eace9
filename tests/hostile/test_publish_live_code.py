"""publish never pushes a manifest whose package is not live code (issue 13).

The template branch of a real bare remote is given templates whose package, placeholders or
checksums a comment or string swallows; `publish --swift off` must find `not-live-code`, exit 1
and push nothing (the `git` spy sees no push and the remote gains no branch).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from support.git_remote import commit_folder, make_spy, make_template_remote, refs
from support.release import write_release, write_template_branch
from swiftpm_guard.cli.main import main

BRANCH = "refs/heads/swiftpm-1.2.3"
BREAKS = {
    "unterminated-comment": ("let package = Package(", "/*\nlet package = Package("),
    "package-in-a-string": ("let package = Package(", 'let s = """\nlet package = Package('),
    "checksums-commented": ('"sha256": "__SHA256_executorch__"',
                            '// "sha256": "__SHA256_executorch__"'),
}


@pytest.mark.parametrize("kind", sorted(BREAKS))
def test_publish_pushes_nothing_when_the_package_is_not_live(tmp_path: Path, monkeypatch,
                                                             capsys, kind):
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    spy = make_spy(tmp_path, monkeypatch)
    bare = make_template_remote(tmp_path / "remote")
    old, new = BREAKS[kind]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "swiftpm"
        template = write_template_branch(folder)
        text = template.read_text()
        assert old in text
        template.write_text(text.replace(old, new))
        commit_folder(bare, "swiftpm", folder, f"broken: {kind}")
    release = write_release(tmp_path / "built")
    code = main(["publish", "--artifacts", str(release.artifacts), "--version", "1.2.3",
                 "--repo", str(bare), "--author", "Bot <bot@example.invalid>",
                 "--swift", "off", "--accept-static"])
    _out, err = capsys.readouterr()
    assert code == 1, err
    assert "not-live-code" in err
    assert BRANCH not in refs(bare)
    assert [c for c in spy.calls() if c[:1] == ["push"]] == []
