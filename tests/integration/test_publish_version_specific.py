"""publish, preflight and `check --template-ref` on a template branch that holds version-specific
manifests (issue 24): `Package@swift-6.0.swift` is what SwiftPM 6.0 reads instead of
`Package.swift`, so it is rendered, checked and pushed with it, or refused with exit 2."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from support.git_remote import commit_folder, git, refs, tree_files
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, template_text, write_template_branch
from support.zip_server import Route, serve_zips
from swiftpm_guard.cli.main import main

AUTHOR = "Release Bot <release-bot@example.invalid>"
BRANCH = "refs/heads/swiftpm-1.2.3"
VARIANT = "Package@swift-6.0.swift"
#: What only SwiftPM 6 consumers get: one more binary-only target.
EXTRA = (*BINARY_ONLY_KEYS, "pthreadpool")
def _template_branch(remote, files: dict[str, str], *, binary_only=EXTRA) -> str:
    """The template branch with these files beside Package.swift.template and its stubs."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "swiftpm"
        write_template_branch(folder, PRODUCT_KEYS, binary_only)
        for name, text in files.items():
            (folder / name).write_text(text)
        return commit_folder(remote.bare, "swiftpm", folder, "version-specific manifests")


def _publish(remote, release, capsys, *extra: str) -> tuple[int, str, str]:
    code = main(["publish", "--artifacts", str(release.artifacts), "--version", release.version,
                 "--repo", remote.url, "--author", AUTHOR, "--accept-static", *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def release(tmp_path):
    from support.release import write_release

    return write_release(tmp_path / "release", binary_only=EXTRA)


def _rendered(release, tmp_path) -> str:
    """This release's Package.swift as render writes it (what a verbatim copy would hold)."""
    out = tmp_path / "Package.swift"
    assert main(["render", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts), "--output", str(out), "--quiet",
                 "--accept-static"]) == 0
    return out.read_text()


def test_publish_renders_and_pushes_every_version_specific_template(remote, release, capsys,
                                                                    tmp_path):
    kept = _rendered(release, tmp_path)
    _template_branch(remote, {f"{VARIANT}.template": template_text(PRODUCT_KEYS, EXTRA),
                              "Package@swift-5.9.swift": kept})
    report = tmp_path / "report.json"
    code, _out, err = _publish(remote, release, capsys, "--json", str(report))
    assert code == 0, err
    published = json.loads(report.read_text())
    assert published["publish"]["manifests"] == ["Package.swift", VARIANT,
                                                 "Package@swift-5.9.swift"]
    assert [t["path"] for t in published["templates"]] == [
        "Package.swift.template", f"{VARIANT}.template", "Package@swift-5.9.swift"]
    files = tree_files(remote.bare, refs(remote.bare)[BRANCH])
    assert "Package.swift.template" not in files and f"{VARIANT}.template" not in files
    variant = files[VARIANT].decode()
    assert "__SHA256_" not in variant and 'let version = "1.2.3"' in variant
    for name in ("pthreadpool", "pthreadpool_debug", "executorch"):
        assert f'"{release.checksum_of[name]}"' in variant, name
    assert files["Package@swift-5.9.swift"] == kept.encode()  # as the template ref has it


def test_a_verbatim_manifest_keeps_its_blob_and_mode(remote, release, capsys, tmp_path):
    template = _template_branch(remote, {"Package@swift-5.9.swift": _rendered(release, tmp_path)})
    code, _out, err = _publish(remote, release, capsys)
    assert code == 0, err
    entry = git("ls-tree", refs(remote.bare)[BRANCH], "--", "Package@swift-5.9.swift",
                cwd=remote.bare)
    assert entry == git("ls-tree", template, "--", "Package@swift-5.9.swift", cwd=remote.bare)


def test_a_placeholder_left_in_a_plain_version_specific_manifest_is_refused(
        remote, release, capsys, spy):
    _template_branch(remote, {VARIANT: template_text(PRODUCT_KEYS, EXTRA)})
    code, _out, err = _publish(remote, release, capsys)
    assert code == 2
    line = err.strip().splitlines()[-1]  # the one error line, after what was read
    assert line.startswith(f"swiftpm-guard: error: {VARIANT}:5: '__VERSION__' (a placeholder) "
                           "is in a version-specific manifest")
    assert BRANCH not in refs(remote.bare)
    assert not [call for call in spy.calls() if call[:1] == ["push"]]


def test_an_unbuilt_name_in_the_version_specific_template_blocks_the_push(remote, release,
                                                                          capsys):
    _template_branch(remote, {f"{VARIANT}.template": template_text(
        PRODUCT_KEYS, (*EXTRA, "kleidiai"))})
    code, out, err = _publish(remote, release, capsys)
    assert code == 1, err
    assert f"{VARIANT}.template:" in out + err and "kleidiai" in out + err
    assert BRANCH not in refs(remote.bare)


def test_a_check_of_the_template_ref_reads_the_version_specific_ones_from_the_clone(
        remote, release, tmp_path):
    """The action's check on `main`: the template from `origin/swiftpm` of the workspace."""
    from swiftpm_guard.jobs.check import CheckRequest, check

    _template_branch(remote, {f"{VARIANT}.template": template_text(
        PRODUCT_KEYS, (*EXTRA, "kleidiai"))})
    clone = tmp_path / "clone"
    git("clone", "--quiet", str(remote.bare), str(clone))
    names = ",".join((*PRODUCT_KEYS, *EXTRA))
    result = check(CheckRequest(templates=("Package.swift.template",), version=None,
                                root=clone, template_ref="swiftpm", frameworks=(names,),
                                accept_static=True))
    assert {(f.code, f.subject, f.file) for f in result.report.findings
            if f.code != "needs-swiftpm"} == {
        ("unfilled-placeholder", "kleidiai", f"{VARIANT}.template"),
        ("unfilled-placeholder", "kleidiai_debug", f"{VARIANT}.template")}
    assert result.sources.ref_paths[f"{VARIANT}.template"] == "swiftpm"


def test_preflight_verify_absent_asks_for_the_version_specific_ones_zips_too(remote, release,
                                                                              capsys):
    _template_branch(remote, {f"{VARIANT}.template": template_text(
        PRODUCT_KEYS, (*EXTRA, "kleidiai"))})
    with serve_zips() as zips:
        zips.routes["/cdn/kleidiai-9.9.9.zip"] = Route(b"PK\x03\x04")
        code = main(["preflight", "--version", "9.9.9", "--repo", remote.url, "--verify-absent",
                     "--base-url", zips.url("cdn/"), "--url-timeout", "2", "--url-retries", "0"])
        err = capsys.readouterr().err
        assert code == 1, err
        assert "url-exists" in err and "kleidiai-9.9.9.zip" in err


def test_the_published_branch_passes_the_audit(remote, release, capsys, tmp_path):
    _template_branch(remote, {f"{VARIANT}.template": template_text(PRODUCT_KEYS, EXTRA)})
    assert _publish(remote, release, capsys)[0] == 0
    report = tmp_path / "audit.json"
    code = main(["audit", "--repo", str(remote.bare), "--json", str(report)])
    assert code == 0, capsys.readouterr().err
    [branch] = json.loads(report.read_text())["branches"]
    assert [f for f in branch["findings"] if f["severity"] == "error"] == []


def test_git_sees_the_same_tree_publish_built(remote, release, capsys):
    """The pushed tree is the template ref's, each template replaced by its manifest."""
    template = _template_branch(remote, {f"{VARIANT}.template": template_text(PRODUCT_KEYS,
                                                                               EXTRA)})
    assert _publish(remote, release, capsys)[0] == 0
    changed = git("diff", "--no-renames", "--name-status", template, refs(remote.bare)[BRANCH],
                  cwd=remote.bare).splitlines()
    assert sorted(changed) == sorted([
        "A\tPackage.swift", "D\tPackage.swift.template", f"A\t{VARIANT}",
        f"D\t{VARIANT}.template"])
