"""Issue 35: does a ruleset keep the published branches? `audit --rulesets` asks the fake GitHub
(every request and answer checked against GitHub's description of "Get rules for a branch")
about every published branch (an even sample past core.audit.ASK_MAX), and says what is covered, what is open and how
to add a ruleset; a token that may not read the rules is "could not tell", never an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from support.fake_fixture import fake_github_fixture
from support.fake_github import FakeGitHub, Ruleset
from support.markdown import rendered_text
from support.published import BranchSpec, build_repo
from swiftpm_guard.cli.main import main

REPO = "octo/pods"
TOKEN = "ghs_rulesetsToken0123456789"
VERSIONS = ("1.0.0", "1.1.0", "2.0.0")
ALL = ("deletion", "non_fast_forward", "creation")


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    yield from fake_github_fixture()


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    return build_repo(tmp_path_factory.mktemp("rulesets") / "origin.git",
                      [BranchSpec(v) for v in VERSIONS])


def _audit(published: Path, fake: FakeGitHub, tmp_path: Path, monkeypatch, capsys,
           *extra: str, token: str | None = TOKEN) -> tuple[int, dict, str, str]:
    if token is None:
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    else:
        monkeypatch.setenv("GITHUB_TOKEN", token)
    out_json, out_md = tmp_path / "audit.json", tmp_path / "audit.md"
    code = main(["audit", "--repo", str(published), "--rulesets", REPO, "--api-url", fake.url,
                 "--json", str(out_json), "--markdown", str(out_md), *extra])
    return code, json.loads(out_json.read_text()), out_md.read_text(), capsys.readouterr().err


def _asked(fake: FakeGitHub) -> list[str]:
    return [r.path.rsplit("/", 1)[-1] for r in fake.calls("repos/get-branch-rules")]


def test_a_ruleset_on_every_published_branch_covers_all_three(published, fake, tmp_path,
                                                               monkeypatch, capsys):
    fake.add_token(TOKEN)
    repo = fake.add_repo(REPO)
    repo.rulesets.append(Ruleset(42, ("refs/heads/swiftpm-*",), ALL))
    repo.rulesets.append(Ruleset(7, ("~DEFAULT_BRANCH",), ("deletion",)))  # main's: not ours
    code, report, markdown, err = _audit(published, fake, tmp_path, monkeypatch, capsys)
    assert code == 0
    branches = [f"swiftpm-{v}" for v in VERSIONS]
    assert report["protection"] == {
        "asked": branches, "covered": list(ALL), "missing": [], "rulesets": [42],
        "unknown": None, "published": 3, "uncovered": []}
    assert _asked(fake) == branches  # one call per published branch
    assert all(r.authorization == f"token {TOKEN}" for r in fake.calls("repos/get-branch-rules"))
    shown = rendered_text(markdown)
    assert "Active rulesets (ruleset 42) keep the published branches (swiftpm-1.0.0, " \
        "swiftpm-1.1.0, swiftpm-2.0.0 asked):" in shown
    assert "❌" not in markdown and markdown.count("✅") == 3
    assert "How to add a ruleset" not in markdown
    assert ("protection: a ruleset protects the published branches (swiftpm-1.0.0, "
            "swiftpm-1.1.0, swiftpm-2.0.0): deletion, force-push and creation restricted "
            "(ruleset 42)") in err
    assert TOKEN not in err and TOKEN not in markdown


def test_a_pattern_that_misses_the_newest_branch_leaves_it_open(published, fake, tmp_path,
                                                                 monkeypatch, capsys):
    fake.add_token(TOKEN)
    repo = fake.add_repo(REPO)
    repo.rulesets.append(Ruleset(5, ("refs/heads/swiftpm-1.*",), ALL))
    repo.rulesets.append(Ruleset(6, ("refs/heads/swiftpm-*",), ("deletion",)))
    # Evaluate mode reports but enforces nothing: GitHub leaves its rules out of the answer.
    repo.rulesets.append(Ruleset(8, ("refs/heads/swiftpm-*",), ALL, enforcement="evaluate"))
    code, report, markdown, err = _audit(published, fake, tmp_path, monkeypatch, capsys)
    assert code == 0  # protection is advice, not a broken branch
    assert report["protection"]["covered"] == ["deletion"]
    assert report["protection"]["missing"] == ["non_fast_forward", "creation"]
    assert report["protection"]["rulesets"] == [5, 6]
    assert report["protection"]["uncovered"] == ["swiftpm-2.0.0"]
    shown = rendered_text(markdown)
    assert "The published branches are not fully protected (swiftpm-1.0.0, swiftpm-1.1.0, " \
        "swiftpm-2.0.0 asked)" in shown
    assert "✅ deletion (deletion)" in shown
    assert "❌ force-push (non-fast-forward) (non_fast_forward)" in shown
    assert "❌ creation (creation)" in shown
    assert "target refs/heads/swiftpm-*, enforcement Active" in shown
    body = markdown.split("--input - <<'JSON'\n", 1)[1].split("\nJSON\n", 1)[0]
    assert json.loads(body) == {
        "name": "published SwiftPM branches", "target": "branch", "enforcement": "active",
        "conditions": {"ref_name": {"include": ["refs/heads/swiftpm-*"], "exclude": []}},
        "rules": [{"type": "deletion"}, {"type": "non_fast_forward"}, {"type": "creation"}]}
    assert ("protection: the published branches (swiftpm-1.0.0, swiftpm-1.1.0, swiftpm-2.0.0) "
            "are open to force-push (non-fast-forward), creation: no active ruleset restricts "
            "it; 1 of the 3 branches asked lacks it (swiftpm-2.0.0): a ruleset's pattern skips "
            "them") in err


def test_a_pattern_that_skips_a_branch_in_between_is_noticed(published, fake, tmp_path,
                                                              monkeypatch, capsys):
    fake.add_token(TOKEN)
    repo = fake.add_repo(REPO)
    repo.rulesets.append(Ruleset(42, ("refs/heads/swiftpm-*",), ALL,
                                 exclude=("refs/heads/swiftpm-1.1.*",)))
    code, report, markdown, err = _audit(published, fake, tmp_path, monkeypatch, capsys)
    assert code == 0
    assert report["protection"] == {
        "asked": [f"swiftpm-{v}" for v in VERSIONS], "covered": [], "missing": list(ALL),
        "rulesets": [], "unknown": None, "published": 3, "uncovered": ["swiftpm-1.1.0"]}
    assert "1 of the 3 branches asked lacks it (swiftpm-1.1.0): a ruleset's pattern skips " \
        "them" in rendered_text(markdown)
    assert "lacks it (swiftpm-1.1.0)" in err


def test_past_the_bound_an_even_sample_is_asked_and_said(published, fake, tmp_path,
                                                         monkeypatch, capsys):
    import swiftpm_guard.core.audit as core_audit

    monkeypatch.setattr(core_audit, "ASK_MAX", 2)
    fake.add_token(TOKEN)
    fake.add_repo(REPO).rulesets.append(Ruleset(42, ("refs/heads/swiftpm-*",), ALL))
    code, report, markdown, err = _audit(published, fake, tmp_path, monkeypatch, capsys)
    assert code == 0
    assert (report["protection"]["asked"], report["protection"]["published"]) == (
        ["swiftpm-1.0.0", "swiftpm-2.0.0"], 3)
    assert _asked(fake) == ["swiftpm-1.0.0", "swiftpm-2.0.0"]
    said = "2 of 3, evenly spaced: swiftpm-1.0.0 … swiftpm-2.0.0"
    assert f"protection: a ruleset protects the published branches ({said})" in err
    assert f"keep the published branches ({said} asked)" in rendered_text(markdown)


def test_the_suggested_ruleset_is_one_github_accepts():
    """The body the report suggests, against GitHub's schema for creating a ruleset (the
    subset keeps only what the fake serves, so the schema's shape is checked here by hand:
    its required keys and the rule types "Get rules for a branch" names)."""
    from support.openapi import load_spec
    from swiftpm_guard.report.audit import ruleset_body

    operation = next(op for op in load_spec().operations
                     if op.operation_id == "repos/get-branch-rules")
    item = operation.response_schema(200)["items"]
    body = json.loads(ruleset_body("swiftpm-*"))
    for rule in body["rules"]:
        answer = {**rule, "ruleset_source_type": "Repository", "ruleset_source": REPO,
                  "ruleset_id": 1}
        jsonschema.validate(answer, {"oneOf": item["oneOf"]})  # each is a rule GitHub knows
    assert {r["type"] for r in body["rules"]} == set(ALL)


@pytest.mark.parametrize("how", ["403", "404", "no token"])
def test_without_access_it_says_it_could_not_tell(published, fake, tmp_path, monkeypatch,
                                                  capsys, how):
    fake.add_token(TOKEN)
    repo = fake.add_repo(REPO if how != "404" else "octo/other")
    repo.rulesets.append(Ruleset(42, ("refs/heads/swiftpm-*",), ALL))
    if how == "403":
        fake.inject("repos/get-branch-rules", "not-accessible")
    code, report, markdown, err = _audit(published, fake, tmp_path, monkeypatch, capsys,
                                         token=None if how == "no token" else TOKEN)
    protection = report["protection"]
    if how == "no token":  # a public repository's rules need no token: the fake says so too
        assert protection["covered"] == list(ALL) and protection["unknown"] is None
        assert all(r.authorization is None for r in fake.calls("repos/get-branch-rules"))
        return
    assert code == 0, err
    status = {"403": "HTTP 403: Resource not accessible by integration",
              "404": "HTTP 404: Not Found"}[how]
    assert protection == {"asked": [f"swiftpm-{v}" for v in VERSIONS], "covered": [],
                          "missing": [], "rulesets": [], "published": 3, "uncovered": [],
                          "unknown": f"read the rules for branch swiftpm-1.0.0: {status}"}
    assert _asked(fake) == ["swiftpm-1.0.0"]  # the first refusal ends the asking
    assert ("Could not tell whether a ruleset protects the published branches: read the rules "
            f"for branch swiftpm-1.0.0: {status}.") in rendered_text(markdown)
    assert "protection: could not tell whether a ruleset protects the published branches" \
        in err
    # Not an error exit, nor an error line (PyGithub's own logging may speak in a test run).
    assert "swiftpm-guard: error" not in err


def test_without_rulesets_the_report_says_nothing_of_protection(published, tmp_path, capsys):
    out_json, out_md = tmp_path / "audit.json", tmp_path / "audit.md"
    assert main(["audit", "--repo", str(published), "--json", str(out_json),
                 "--markdown", str(out_md)]) == 0
    assert json.loads(out_json.read_text())["protection"] is None
    assert "Branch protection" not in out_md.read_text()
    assert "protection:" not in capsys.readouterr().err


@pytest.mark.parametrize(("args", "message"), [
    (["--rulesets", "octo"], "--rulesets 'octo' is not OWNER/NAME"),
    (["--rulesets", "octo/pods", "--api-url", "ftp://x"], "--api-url 'ftp://x' is not an "
                                                         "http(s) URL"),
])
def test_bad_rulesets_options_are_one_line(published, capsys, args, message):
    assert main(["audit", "--repo", str(published), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
