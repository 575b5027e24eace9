"""Every report kind, rendered as GitHub renders it (CommonMark + GFM tables, markdown-it-py),
shows every name, placeholder and path exactly: the check Markdown (`--markdown`, job summary,
check-run summary), the check-run text, the audit Markdown and the publish sections.
Names are drawn by hypothesis from hostile characters (underscores, `<name>`, `*`, backticks,
pipes), beyond what sources accept, so the Markdown never relies on their validation.
"""

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from support.markdown import rendered_text, table_rows, to_html
from support.published import BranchSpec
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names
from swiftpm_guard.core.audit import (
    AuditOptions,
    ManifestFile,
    PublishedBranch,
    audit,
    with_findings,
)
from swiftpm_guard.core.model import (
    ANNOTATIONS_MAX,
    SUMMARY_MAX,
    Artifact,
    Finding,
    HostedStats,
    Location,
    Report,
    Severity,
    Stub,
)
from swiftpm_guard.report import audit as audit_report
from swiftpm_guard.report.check import to_markdown, verdict
from swiftpm_guard.report.check_run import build_output
from swiftpm_guard.report.publish import publish_markdown, publish_section

NAME = st.text(alphabet=st.sampled_from("ab_Z9<>*`|\\[]&~$@ #."), min_size=1, max_size=16).filter(
    lambda s: s.strip(" ") == s)
HOSTILE = ["__SHA256_kernels_torchao__", "<name>", "a*b*c", "x`y", "p|q", "__VERSION__"]


def branch_of(spec: BranchSpec) -> PublishedBranch:
    stubs = tuple(Stub(n, Location(f".Package.swift/{n}"), True)
                  for n in all_names(spec.products))
    return PublishedBranch(spec.branch_name, "0" * 40,
                           (ManifestFile("Package.swift", spec.manifest()),),
                           ".Package.swift", stubs)


def _report(asked, built, declared=(), findings=(), version="1.2.3"):
    artifacts = [Artifact(n, "a" * 64, Location(f"dist/{n}-1.2.3.zip"), f"{n}-1.2.3.zip")
                 for n in built]
    artifacts += [Artifact(n, None, Location(".github/workflows/apple.yml", 7), source="workflow")
                  for n in declared]
    names = sorted({a.name for a in artifacts})
    return Report(
        version=version, templates=(), placeholders=tuple(sorted(set(asked))),
        built=tuple(names), unfilled=tuple(sorted(set(asked) - set(names))),
        unclaimed=(), products=None, binary_targets=len(set(asked)), counts_source="static",
        findings=tuple(findings), artifacts=tuple(sorted(artifacts, key=lambda a: a.name)),
    )


def _finding(name, file="Package.swift.template", line=3):
    return Finding("unfilled-placeholder", Severity.ERROR, name,
                   f"the template asks for '{name}' but __SHA256_{name}__ <name> is *unset*",
                   file, line)


def _cells(markdown):
    return {row[0] for row in table_rows(markdown)}


@settings(max_examples=60, deadline=None)
@given(st.lists(NAME, min_size=1, max_size=6, unique=True),
       st.lists(NAME, max_size=6, unique=True))
def test_check_markdown_shows_every_name_and_message(asked, built):
    findings = [_finding(n, file=f"tmpl/{n}.swift") for n in asked if n not in built]
    report = _report(asked, built, findings=findings)
    markdown = to_markdown(report)
    shown = rendered_text(markdown)
    for name in {*asked, *built}:
        assert name in _cells(markdown), (name, markdown)
    for finding in findings:
        assert finding.message in shown
        assert f"{finding.file}:{finding.line}" in shown
    rows = table_rows(markdown)
    assert rows[0] == ["name", "asked by a template", "built", "note"]  # every column headed


def test_problems_come_first_and_sound_rows_are_folded():
    asked = ["ok_a", "ok_b", "gone"]
    markdown = to_markdown(_report(asked, ["ok_a", "ok_b", "ok_a_debug", "extra"],
                                   findings=[_finding("gone")]))
    rows = [r for r in table_rows(markdown) if r[0] != "name"]
    names = [r[0] for r in rows]
    assert names[:2] == ["extra", "gone"]  # the two problems, before any sound row
    assert set(names[2:]) == {"ok_a", "ok_b", "ok_a_debug"}
    before, folded = markdown.split("<details>", 1)
    assert "ok_a" not in before and "gone" in before and "ok_a" in folded
    assert "3 more names, asked for and built (no problem)" in rendered_text(markdown)
    brief = to_markdown(_report(asked, ["ok_a", "ok_b", "ok_a_debug", "extra"]),
                        sound_rows=False)
    assert "<details>" not in brief and "ok_b" not in rendered_text(brief)


def test_declared_names_are_not_called_built():
    report = _report(["a", "a_debug"], [], declared=["a", "a_debug"], version="")
    line = verdict(report)
    assert "2 asked, 0 built, 2 declared (not built)" in line
    assert " for " not in line and "no version" not in line
    markdown = to_markdown(report)
    rows = table_rows(markdown)[1:]
    assert len(rows) == 2 and all(row[2] == "declared" for row in rows)
    assert rendered_text(markdown).startswith("\nSwiftPM manifest: consistent")


def test_branch_exists_alone_is_said_as_such():
    exists = Finding("branch-exists", Severity.ERROR, "swiftpm-1.2.3", "already there")
    report = _report(["a"], ["a"], findings=[exists])
    assert "already published (branch-exists" in verdict(report)
    assert "NOT consistent" not in verdict(report)
    assert "already published" in rendered_text(to_markdown(report))
    other = _report(["a"], ["a"], findings=[exists, _finding("b")])
    assert "NOT consistent" in verdict(other)


def test_verify_urls_stats_in_markdown_and_verdict():
    report = _report(["a"], ["a"])
    report = dataclasses.replace(report,
        hosted=HostedStats(urls=20, verified=20, bytes=2_400_000, seconds=1.25))
    assert "20 zip URLs fetched, 20 verified (2.4 MB in 1.2 s)" in verdict(report)
    assert "20 zip URLs fetched, 20 verified" in rendered_text(to_markdown(report))


def test_check_run_summary_and_text_show_names_exactly():
    many = [_finding(f"n_{i}__x", line=i + 1) for i in range(ANNOTATIONS_MAX + 3)]
    report = _report([f.subject for f in many] + HOSTILE, HOSTILE, findings=many)
    markdown = to_markdown(report)
    output = build_output(report, markdown, conclusion="failure",
                          locate=lambda f: (f.file or "x", f.line or 1))
    # The summary is cut at GitHub's limit, and the hostile names (rows before the cut) are
    # still shown exactly, each in its own cell.
    assert "… cut: " in output.summary and len(output.summary) <= SUMMARY_MAX
    assert set(HOSTILE) <= _cells(output.summary)
    assert output.text is not None
    text = rendered_text(output.text)
    for finding in many[ANNOTATIONS_MAX:]:
        assert finding.message in text and finding.subject in text


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=1, max_size=4, unique=True))
def test_audit_markdown_shows_every_branch_subject_and_message(subjects):
    built = [k for k in (*PRODUCT_KEYS, *BINARY_ONLY_KEYS) if k != "kernels_llm"]
    specs = [BranchSpec("1.0.0", built=built), BranchSpec("1.0.1")]
    report = audit([branch_of(s) for s in specs], AuditOptions(), source="repo_a__b",
                   pattern="swiftpm-*")
    extra = {"swiftpm-1.0.0": [Finding("stray-file", Severity.WARNING, s, f"'{s}' is <odd>",
                                       f".Package.swift/{s}") for s in subjects]}
    report = with_findings(report, extra, frozenset())
    shown = rendered_text(audit_report.to_markdown(report))
    assert "repo_a__b" in shown and "swiftpm-*" in shown
    assert "'__SHA256_kernels_llm__' is still in the published manifest" in shown
    for subject in subjects:
        assert f"'{subject}' is <odd>" in shown and f".Package.swift/{subject}" in shown


def _result(skipped=None, pushed=True):
    return {"branch": "swiftpm-1.2.3_rc__x", "pushed": pushed, "commit": "c0ffee" * 6,
            "manifests": (("Package.swift", "let x = \"```\"\n// __SHA256_a__ <b>\n"),),
            "snippet": '.package(url: "https://h/o_r__x.git", branch: "swiftpm-1.2.3_rc__x")',
            "skipped": skipped}


def _action_section(result: dict, dry_run: bool) -> str:
    return publish_section(**result, remote="https://h/o_r__x.git", replaced=None,
                           updated_from=None, excluded=(), dry_run=dry_run, diff=["same"])


def _cli_section(result: dict) -> str:
    return publish_markdown(branch=result["branch"], pushed=result["pushed"],
                            commit=result["commit"], skipped=result["skipped"], excluded=(),
                            diff=None, snippet=result["snippet"])


def test_publish_sections_show_branch_commit_manifest_and_snippet():
    result = _result()
    for markdown in (_action_section(result, dry_run=True), _cli_section(result)):
        shown = rendered_text(markdown)
        assert "swiftpm-1.2.3_rc__x" in shown and result["snippet"] in shown
        assert result["commit"] in shown
    dry = rendered_text(_action_section(result, dry_run=True))
    assert "// __SHA256_a__ <b>" in dry and 'let x = "```"' in dry
    skipped = _result(skipped="branch __swiftpm-1.2.3__ exists <here>", pushed=False)
    assert "branch __swiftpm-1.2.3__ exists <here>" in rendered_text(
        _action_section(skipped, dry_run=False))


def test_a_summary_cut_inside_the_folded_rows_still_shows_the_cut_note():
    names = [f"name_{i:05}" for i in range(3000)]  # ~100 KB of sound rows: past 65535
    report = _report(names, names)
    output = build_output(report, to_markdown(report), conclusion="success",
                          locate=lambda f: ("x", 1))
    assert len(output.summary) <= SUMMARY_MAX
    assert output.summary.count("<details>") == output.summary.count("</details>") == 1
    shown = rendered_text(output.summary)
    assert "… cut:" in shown and "lines not shown (summary limit: 65535 characters)" in shown
    html_text = to_html(output.summary)
    assert html_text.index("</details>") < html_text.index("… cut:")
