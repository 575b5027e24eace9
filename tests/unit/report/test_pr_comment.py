"""The pull-request comment's body, marker and digest (report/pr_comment.py)."""

from __future__ import annotations

from swiftpm_guard.report.pr_comment import comment, guard_key, marker_of

GIST = ("#### Findings\n\n"
        "- **error** kernels\\_torchao: the template asks for it; main does not build it — "
        "`Package.swift.template:98`\n"
        "  `unfilled-placeholder` placeholder '`__SHA256_kernels_torchao__`' has no checksum\n")


def _comment(**changes):
    values = {"check_name": "SwiftPM manifest", "template": "Package.swift.template",
              "conclusion": "failure",
              "title": "kernels_torchao: the template asks for it; main does not build it",
              "gist": GIST, "check_run_url": "https://github.invalid/o/r/runs/7"}
    values.update(changes)
    return comment(**values)


def test_the_body_is_marker_heading_conclusion_gist_and_footer_byte_for_byte():
    made = _comment()
    assert made.body == (
        f"<!-- swiftpm-guard pr-comment key={made.key} findings={made.digest} -->\n"
        "### ❌ SwiftPM manifest: kernels\\_torchao: the template asks for it; main does not "
        "build it\n"
        "\n"
        "Conclusion **failure** for `Package.swift.template` · "
        "[the check run](<https://github.invalid/o/r/runs/7>)\n"
        "\n"
        f"{GIST.rstrip()}\n"
        "\n"
        "<sub>swiftpm-guard edits this comment in place when its findings change.</sub>\n")
    assert marker_of(made.body) == (made.key, made.digest)
    assert made.ours(made.body) is True and made.current(made.body) is True


def test_the_key_tells_two_guards_of_one_repository_apart():
    first = _comment()
    assert first.key == guard_key("SwiftPM manifest", "Package.swift.template")
    other_template = _comment(template="Other.swift.template")
    other_check = _comment(check_name="SwiftPM manifest (nightly)")
    assert len({first.key, other_template.key, other_check.key}) == 3
    assert first.ours(other_template.body) is False and other_check.ours(first.body) is False


def test_the_digest_follows_the_findings_and_not_the_check_run_address():
    first = _comment()
    assert _comment(check_run_url="https://github.invalid/o/r/runs/8").digest == first.digest
    assert _comment(check_run_url=None).digest == first.digest
    assert _comment(gist=GIST.replace("98", "99")).digest != first.digest
    assert _comment(conclusion="neutral").digest != first.digest
    assert _comment(title="consistent").digest != first.digest


def test_without_a_check_run_there_is_no_link_and_success_has_its_mark():
    made = _comment(check_run_url=None, conclusion="success", title="consistent",
                    gist="#### Findings\n\nNone.\n")
    lines = made.body.split("\n")
    assert lines[1] == "### ✅ SwiftPM manifest: consistent"
    assert lines[3] == "Conclusion **success** for `Package.swift.template`"


def test_a_hostile_check_name_cannot_close_the_marker_or_add_markup():
    made = _comment(check_name="x --> <img src=y> @team")
    assert made.body.split("\n")[0].count("-->") == 1
    assert "x --\\> \\<img src=y\\> \\@team: " in made.body
    assert marker_of(made.body) == (made.key, made.digest)


def test_only_a_marker_opening_the_body_counts():
    made = _comment()
    assert marker_of("quoted:\n" + made.body) is None
    assert marker_of(" " + made.body) is None
    assert marker_of("<!-- swiftpm-guard pr-comment key=XYZ findings=1 -->") is None
    assert made.ours("plain comment") is False


def test_current_ignores_only_the_check_run_address():
    first = _comment()
    rerun = _comment(check_run_url="https://github.invalid/o/r/runs/8")
    assert first.current(rerun.body) and rerun.current(first.body)
    assert first.current(_comment(check_run_url=None).body)
    assert not first.current(_comment(gist=GIST + "- more\n").body)


def test_a_copied_marker_over_other_words_is_ours_but_not_current():
    """Someone can copy the marker (its key and digest are computable) over a body that
    says something else: it is found, and then edited, never left standing."""
    made = _comment()
    marker, _rest = made.body.split("\n", 1)
    forged = marker + "\n### ✅ SwiftPM manifest: consistent\n"
    assert made.ours(forged) is True and made.current(forged) is False


def test_a_gist_longer_than_a_comment_holds_is_cut_at_a_line_and_says_so():
    long_gist = "#### Findings\n\n" + "".join(f"- **error** problem {i}\n" for i in range(5000))
    made = _comment(gist=long_gist)
    assert len(made.body) < 65_536  # what GitHub takes at most
    assert "> cut: the findings are longer than a comment holds" in made.body
    kept = [line for line in made.body.split("\n") if line.startswith("- **error** problem ")]
    assert kept and all(line == f"- **error** problem {i}" for i, line in enumerate(kept))
