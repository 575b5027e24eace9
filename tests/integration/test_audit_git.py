"""The audit on a real git repository of 120 published branches, some broken in every way.

The repository is built with git fast-import in the real shape (tests/support/published.py)
and read by the audit as a local path, a file:// remote and a smart-HTTP loopback remote.
"""

import json
import subprocess

import pytest

from support.git_http import serve_git
from support.markdown import rendered_text
from support.published import (
    BranchSpec,
    build_repo,
    checksum_for,
    nightly_versions,
    read_published_branches,
)
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.audit import AuditOptions, audit
from swiftpm_guard.infra import process
from swiftpm_guard.infra.git import Git
from swiftpm_guard.report.audit import groups, to_markdown

NIGHTLIES = nightly_versions(115, start="20250509")  # 2025-05-09 … 2025-08-31
ALL_KEYS = (*PRODUCT_KEYS, *BINARY_ONLY_KEYS)


def nightly(date: str) -> str:
    return f"0.7.0.{date}"


def branch(version: str) -> str:
    return f"swiftpm-{version}"


def scenario() -> tuple[list[BranchSpec], set[tuple[str, str]], set[tuple[str, str]]]:
    """Branch specs, the (branch, code) errors they must yield, and the warnings."""
    specs = {v: BranchSpec(v) for v in NIGHTLIES}
    errors: set[tuple[str, str]] = set()

    def broken(spec: BranchSpec, *codes: str) -> None:
        specs[spec.version] = spec
        errors.update((spec.branch_name, code) for code in codes)

    # A product added to the template a week before the workflow built it: 8 nightlies.
    for day in range(19, 27):
        version = nightly(f"202508{day}")
        broken(BranchSpec(version, built=[k for k in ALL_KEYS if k != "kernels_llm"]),
               "placeholder-left")
    broken(BranchSpec(nightly("20250610"),
                      checksums={"executorch": checksum_for("executorch", "x").upper()}),
           "bad-checksum")
    broken(BranchSpec(nightly("20250611"),
                      checksums={"backend_coreml": checksum_for("backend_coreml", "y")[:63]}),
           "bad-checksum")
    broken(BranchSpec(nightly("20250620"),
                      stubs=[n for n in all_names(PRODUCT_KEYS) if n != "kernels_torchao_debug"]),
           "missing-stub")
    broken(BranchSpec(nightly("20250625"), empty_stubs=["kernels_custom"]), "empty-stub")
    broken(BranchSpec(nightly("20250701"),
                      products=[k for k in PRODUCT_KEYS if k != "backend_mps"],
                      stubs=all_names(PRODUCT_KEYS)), "orphan-stub")
    # A .DS_Store in the stub root is only a warning.
    specs[nightly("20250705")] = BranchSpec(
        nightly("20250705"), extra_files={".Package.swift/.DS_Store": b"\0\0\0\1Bud1"})
    # One checksum under two names (a pasted line), and under two versions (a stale list).
    same_branch = nightly("20250710")
    broken(BranchSpec(same_branch,
                      checksums={"backend_mps": checksum_for("backend_coreml", same_branch)}),
           "duplicate-checksum")
    broken(BranchSpec(nightly("20250715"), checksums={
        "executorch": checksum_for("executorch", nightly("20250714"))}), "reused-checksum")
    errors.add((branch(nightly("20250714")), "reused-checksum"))
    releases = [
        BranchSpec("0.6.0", stub_dir=".swift"),  # the older stub folder name: sound
        BranchSpec("0.7.0"),
    ]
    specs.update({s.version: s for s in releases})
    # A release branch that built an older framework set than the shared template.
    broken(BranchSpec("0.7.1", built=[k for k in ALL_KEYS if k != "threadpool"]),
           "placeholder-left")
    broken(BranchSpec("0.7.2", manifest_version="0.7.1"), "branch-version")
    broken(BranchSpec("latest"), "bad-version")
    warnings = {(branch(nightly("20250705")), "stray-file")}
    return list(specs.values()), errors, warnings


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    root = tmp_path_factory.mktemp("published")
    specs, errors, warnings = scenario()
    repo = build_repo(root / "repo.git", specs)
    return repo, specs, errors, warnings


def found(report, severity):
    return {(b.branch, f.code) for b in report.branches for f in b.findings
            if str(f.severity) == severity}


def test_audit_names_exactly_the_broken_branches(published):
    repo, specs, errors, warnings = published
    assert len(specs) >= 100
    branches = read_published_branches(str(repo), git=Git())
    # main, swiftpm (the template branch) and feature/swiftpm-x do not match swiftpm-*.
    assert sorted(b.name for b in branches) == sorted(s.branch_name for s in specs)
    report = audit(branches, AuditOptions())
    assert found(report, "error") == errors
    assert found(report, "warning") == warnings
    broken = {name for name, _code in errors | warnings}
    assert all(not b.findings for b in report.branches if b.branch not in broken)
    assert not report.consistent


def test_findings_name_the_subject_file_and_line(published):
    repo, *_ = published
    report = audit(read_published_branches(str(repo), git=Git()), AuditOptions())
    by_branch = {b.branch: b for b in report.branches}
    left = by_branch[branch(nightly("20250819"))].findings
    assert {(f.subject, f.file) for f in left} == {("kernels_llm", "Package.swift"),
                                                    ("kernels_llm_debug", "Package.swift")}
    assert all(f.line and f.line > 1 for f in left)
    orphans = by_branch[branch(nightly("20250701"))].findings
    assert {(f.subject, f.file) for f in orphans} == {
        ("backend_mps", ".Package.swift/backend_mps"),
        ("backend_mps_debug", ".Package.swift/backend_mps_debug")}
    missing = by_branch[branch(nightly("20250620"))].findings
    assert [(f.code, f.subject) for f in missing] == [("missing-stub", "kernels_torchao_debug")]
    pasted = by_branch[branch(nightly("20250710"))].findings
    assert {f.subject for f in pasted} == {"backend_mps", "backend_coreml"}
    stale = by_branch[branch(nightly("20250714"))].findings
    assert "swiftpm-0.7.0.20250715" in stale[0].message
    mismatch = by_branch["swiftpm-0.7.2"].findings
    assert [(f.code, f.subject) for f in mismatch] == [("branch-version", "0.7.1")]
    assert "0.7.1" in mismatch[0].message and "0.7.2" in mismatch[0].message
    assert by_branch["swiftpm-latest"].version is None
    assert by_branch["swiftpm-0.6.0"].findings == ()  # legacy `.swift/` stubs


def test_cli_json_and_grouped_markdown(published, tmp_path, capsys):
    repo, specs, errors, _warnings = published
    out_json, out_md = tmp_path / "audit.json", tmp_path / "audit.md"
    code = main(["audit", "--repo", str(repo), "--json", str(out_json),
                 "--markdown", str(out_md)])
    assert code == 1
    data = json.loads(out_json.read_text())
    # Keys are only ever added (schema 1.x); the report meets its shipped schema (conftest).
    assert [k for k in data if k in ("consistent", "branches")] == ["consistent", "branches"]
    assert data["kind"] == "audit" and data["source"] == str(repo)
    assert data["consistent"] is False
    assert len(data["branches"]) == len(specs)
    for entry in data["branches"]:
        assert list(entry) == ["branch", "version", "findings", "tip"]
        assert list(entry["tip"]) == ["commit", "author", "date", "subject"]
        for finding in entry["findings"]:
            assert list(finding) == ["code", "severity", "subject", "file", "line", "message",
                                     "ref", "fix"]
    flagged = {(e["branch"], f["code"]) for e in data["branches"] for f in e["findings"]
               if f["severity"] == "error"}
    assert flagged == errors
    names = [e["branch"] for e in data["branches"]]
    assert names.index("swiftpm-0.7.0") < names.index(branch(nightly("20250509")))
    markdown = out_md.read_text()
    assert ("**8 nightlies, 2025-08-19 … 08-26: 2 placeholders left** "
            "(`kernels_llm`, `kernels_llm_debug`)") in markdown
    assert "5 nightlies, 2025-08-27 … 08-31: sound" in markdown
    assert "**release 0.7.2: 1 manifest version differs from the branch name**" in markdown
    # As GitHub shows it: the placeholder keeps its underscores, nothing turns bold.
    shown = rendered_text(markdown)
    assert "'__SHA256_kernels_llm__' is still in the published manifest" in shown
    captured = capsys.readouterr()
    broken = len({name for name, _code in errors})
    assert f"120 branches, {broken} with errors, 1 with warnings only" in captured.out
    assert (f"{branch(nightly('20250620'))}:Package.swift:66: error: missing-stub: "
            "product 'kernels_torchao_debug' has no stub folder") in captured.err
    # Each branch's tip: commit, author, date and subject, before its findings.
    first = data["branches"][0]
    tip = first["tip"]
    assert tip["author"] == "Release Bot <bot@example.invalid>" and tip["date"].startswith("20")
    assert (f"{first['branch']}: tip {tip['commit'][:12]} by Release Bot "
            f"<bot@example.invalid> on {tip['date']} (\"{tip['subject']}\")") in captured.err
    # The Markdown counts as the console does, and leaves the 120 tips to the JSON.
    assert f"\n120 branches, {broken} with errors, 1 with warnings only.\n" in markdown
    assert "| branch | tip |" not in markdown


def test_markdown_groups_only_consecutive_runs(published):
    repo, *_ = published
    report = audit(read_published_branches(str(repo), git=Git()), AuditOptions())
    runs = groups(report)
    assert sum(len(g.branches) for g in runs) == len(report.branches)
    placeholder_runs = [g for g in runs if g.kind == "nightly"
                        and any(code == "placeholder-left" for _s, code, _n in g.signature)]
    assert [len(g.branches) for g in placeholder_runs] == [8]
    assert to_markdown(report).count("placeholders left") >= 2  # the run and release 0.7.1


def test_warn_downgrades_a_code_and_glob_selects(published, tmp_path):
    repo, *_ = published
    out = tmp_path / "a.json"
    assert main(["audit", "--repo", str(repo), "--branches", "swiftpm-0.7.0.202507??",
                 "--warn", "duplicate-checksum", "--warn", "reused-checksum",
                 "--warn", "orphan-stub",
                 "--json", str(out), "-q"]) == 0
    data = json.loads(out.read_text())
    assert all(e["branch"].startswith("swiftpm-0.7.0.202507") for e in data["branches"])
    assert len(data["branches"]) == 31
    severities = {f["severity"] for e in data["branches"] for f in e["findings"]}
    assert severities == {"warning"}


def test_remote_over_file_url_and_smart_http_reads_the_same(published, tmp_path):
    repo, *_ = published
    local = audit(read_published_branches(str(repo), git=Git()), AuditOptions())
    via_file = audit(read_published_branches(f"file://{repo}", git=Git()), AuditOptions())
    assert via_file.branches == local.branches
    with serve_git(repo.parent) as base:
        via_http = audit(read_published_branches(f"{base}{repo.name}", "swiftpm-0.7.?", git=Git()),
                         AuditOptions())
    assert [b.branch for b in via_http.branches] == [
        "swiftpm-0.7.0", "swiftpm-0.7.1", "swiftpm-0.7.2"]
    assert via_http.branches == tuple(b for b in local.branches if b.branch in {
        "swiftpm-0.7.0", "swiftpm-0.7.1", "swiftpm-0.7.2"})


def test_git_processes_do_not_grow_with_branches(published, monkeypatch):
    repo, *_ = published
    calls = []
    real = subprocess.Popen

    def counting(argv, *args, **kwargs):
        calls.append(argv)
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(process.subprocess, "Popen", counting)  # every process starts there
    read_published_branches(str(repo), "swiftpm-0.7.0.202506*", git=Git())
    few = len(calls)
    calls.clear()
    read_published_branches(str(repo), git=Git())
    assert len(calls) == few <= 6
    assert not any("checkout" in argv or "worktree" in argv for argv in calls)


def test_no_matching_branch_is_bad_input(published, capsys):
    repo, *_ = published
    assert main(["audit", "--repo", str(repo), "--branches", "release-*"]) == 2
    assert "no branch matches 'release-*'" in capsys.readouterr().err


def test_cli_spells_the_option_and_leaves_a_flag_like_subject_alone(tmp_path, capsys):
    from support.actions_env import git

    repo = build_repo(tmp_path / "origin.git", [BranchSpec("1.0.0")])
    tree = git(repo, "rev-parse", "swiftpm-1.0.0^{tree}")
    edit = git(repo, "commit-tree", tree, "-p", git(repo, "rev-parse", "swiftpm-1.0.0"),
               "-m", "--allow-overwrite")
    git(repo, "update-ref", "refs/heads/swiftpm-1.0.0", edit)
    out_json, out_md = tmp_path / "audit.json", tmp_path / "audit.md"
    assert main(["audit", "--repo", str(repo), "--json", str(out_json),
                 "--markdown", str(out_md)]) == 0
    advice = "Review the edit; to republish on top of it use --update, never --allow-overwrite"
    [line] = [text for text in capsys.readouterr().err.splitlines()
              if "edited-after-publish" in text]
    assert '("--allow-overwrite", ' in line and line.endswith(advice)
    [finding] = json.loads(out_json.read_text())["branches"][0]["findings"]
    assert '("--allow-overwrite", ' in finding["message"] and finding["message"].endswith(advice)
    assert "\ufdd0" not in out_md.read_text() and "--allow-overwrite" in out_md.read_text()
