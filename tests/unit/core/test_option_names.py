"""An option named in a message by its key; each front end spells it, and only it: text from
elsewhere in the same message (a commit subject `--allow-overwrite`) stays as it is."""

from __future__ import annotations

import pytest

from swiftpm_guard.action.settings import spoken
from swiftpm_guard.cli.options import spelled
from swiftpm_guard.core.audit import TipCommit, tip_findings
from swiftpm_guard.core.option_names import option, spell, spell_bytes


def _edited(subject: str) -> str:
    tip = TipCommit("a" * 40, "Jane <jane@example.org>", "2025-02-03T04:05:06+00:00", subject)
    [finding] = tip_findings(tip, "swiftpm-1.0.0", "1.0.0", "1.0.0")
    return finding.message


def test_each_front_end_spells_the_option_and_leaves_the_subject_alone():
    message = _edited("--allow-overwrite")
    assert spoken(message) == (
        'the tip aaaaaaaaaaaa ("--allow-overwrite", Jane <jane@example.org>, '
        "2025-02-03T04:05:06+00:00) is not the publish commit of 1.0.0: the branch was edited "
        "after publishing. Review the edit; to republish on top of it use input update, never "
        "input allow-overwrite")
    assert spelled(message) == (
        'the tip aaaaaaaaaaaa ("--allow-overwrite", Jane <jane@example.org>, '
        "2025-02-03T04:05:06+00:00) is not the publish commit of 1.0.0: the branch was edited "
        "after publishing. Review the edit; to republish on top of it use --update, never "
        "--allow-overwrite")


def test_the_cli_spells_a_key_as_its_flag_where_they_differ():
    assert spelled(f"{option('active-refs')} names them") == "--active-ref names them"
    assert spelled(option("exclude-paths")) == "--exclude"
    assert spelled(option("plain-expressions")) == "--plain-expression"
    assert spoken(f"{option('active-refs')} names them") == "input active-refs names them"


def test_text_that_looks_like_a_flag_is_never_spelled():
    for text in ("pass --allow-overwrite deliberately", "a--swift b", "`--active-ref`",
                 "input update"):
        assert spoken(text) == text and spelled(text) == text


def test_a_marker_cut_in_half_is_dropped_and_only_keys_are_options():
    half = option("verify-urls")[:-1]
    assert spell(f"with {half}", str.upper) == "with verify-urls"
    for bad in ("Verify", "--x", "a b", ""):
        with pytest.raises(ValueError):
            option(bad)


def test_a_report_file_is_spelled_and_other_bytes_kept():
    data = f"{option('swift')} auto\n".encode()
    assert spell_bytes(data, lambda key: f"input {key}") == b"input swift auto\n"
    binary = b"\xff\xfe" + option("swift").encode()
    assert spell_bytes(binary, lambda key: key) == binary
