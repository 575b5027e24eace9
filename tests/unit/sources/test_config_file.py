"""The configuration file's strict schema: what it takes, and one line (`file:line: …`, exit 2)
for anything else."""

from __future__ import annotations

import pytest

from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.config_file import CONFIG_MAX_BYTES, KEYS, parse_config

PATH = ".github/swiftpm-guard.yml"

EXECUTORCH = """\
# Shared by every guard step of apple.yml, apple-perf.yml and build-presets.yml.
template-ref: swiftpm
frameworks-from: .github/workflows/apple.yml:upload-frameworks-ios:FRAMEWORKS
plain-expressions: needs.set-version.outputs.version
frameworks-ref: [main, release/*]
author: PyTorch Bot <pytorchbot@users.noreply.github.com>
accept-static: true
verify-urls: false
verify-zips: auto
"""


def _parse(text: str):
    return parse_config(text.encode(), path=PATH, where="origin/main")


def test_the_executorch_settings_read_as_the_inputs_would_spell_them():
    found = _parse(EXECUTORCH)
    assert found.as_inputs() == {
        "template-ref": "swiftpm",
        "frameworks-from": ".github/workflows/apple.yml:upload-frameworks-ios:FRAMEWORKS",
        "plain-expressions": "needs.set-version.outputs.version",
        "frameworks-ref": "main\nrelease/*",
        "author": "PyTorch Bot <pytorchbot@users.noreply.github.com>",
        "accept-static": "true",
        "verify-urls": "false",
        "verify-zips": "auto",
    }
    assert found.lines["frameworks-ref"] == 5 and found.line_of("author") == f"{PATH}:6"


def test_a_list_a_block_and_words_on_one_line_are_the_same_list():
    block = _parse("frameworks-ref: |\n  main\n  release/*\n")
    words = _parse("frameworks-ref: main, release/*\n")
    listed = _parse("frameworks-ref:\n  - main\n  - release/*\n")
    assert block.values == words.values == listed.values == {"frameworks-ref": ("main",
                                                                                "release/*")}


@pytest.mark.parametrize("text", ["", "# nothing yet\n", "---\n", "~\n"])
def test_an_empty_file_sets_nothing(text):
    assert _parse(text).values == {}


@pytest.mark.parametrize(("text", "line", "says"), [
    # unknown key
    ("template-ref: swiftpm\ntemplate_ref: x\n", 2, "unknown setting 'template_ref'"),
    # never in a file: tokens and per-run inputs
    ("github-token: ghs_x\n", 1, "a token is never written in a file"),
    ("accept-static: true\nmode: publish\n", 2, "belongs to one run"),
    ("version: 1.2.3\n", 1, "belongs to one run"),
    ("swift: off\n", 1, "give it as the step's input"),
    # wrong type
    ("accept-static: yes\n", 1, "accept-static must be true or false, got 'yes'"),
    ("accept-static: 'true'\n", 1, "accept-static must be true or false"),
    ("\npr-comment: on\n", 2, "pr-comment must be true or false, got 'on'"),
    ("verify-zips: sometimes\n", 1, "verify-zips must be true or false or auto"),
    ("check-name: 5\n", 1, "check-name must be a non-empty string, got '5'"),
    ("template-ref: [a, b]\n", 1, "template-ref must be a non-empty string, got a list"),
    ("frameworks-ref:\n  - main\n  - {a: b}\n", 3, "must be a string or a list of strings"),
    ("frameworks-ref: []\n", 1, "frameworks-ref is empty"),
    # bad value
    ("\n\ntemplate-ref: 'a..b'\n", 3, "template-ref"),
    ("author: nobody\n", 1, "author 'nobody' must look like 'Name <email@host>'"),
    ("frameworks-from: apple.yml:build\n", 1, "WORKFLOW"),
    ("frameworks-from: ../apple.yml:build:FRAMEWORKS\n", 1, "frameworks-from workflow"),
    ("plain-expressions: 'format(x)'\n", 1, "plain-expressions 'format(x)' is not a context"),
    ("pr-conclusion: maybe\n", 1, "must be one of auto, neutral, failure; got 'maybe'"),
    ("branch-prefix: -x\n", 1, "branch-prefix '-x' cannot start a branch name"),
    ("base-url: ftp://host/\n", 1, "base-url"),
    ("\ndownload-growth-limit: lots\n", 2, "download-growth-limit 'lots' is not a share"),
    # the file itself
    ("- template-ref\n", 1, "a mapping of setting: value"),
    ("a: b: c\n", 1, "not YAML"),
    ("template-ref: x\ntemplate-ref: y\n", 2, "duplicate setting 'template-ref' (first on "
                                             "line 1)"),
    ("? [a]\n: b\n", 1, "a setting's name is a plain word"),
])
def test_each_refusal_is_one_line_naming_the_line(text, line, says):
    with pytest.raises(InputError) as caught:
        _parse(text)
    message = str(caught.value)
    assert message.startswith(f"{PATH}:{line}: "), message
    assert says in message, message
    assert "\n" not in message and caught.value.exit_code == 2


def test_bounded_and_utf8():
    with pytest.raises(InputError, match="larger than"):
        parse_config(b"#" * (CONFIG_MAX_BYTES + 1), path=PATH, where="x")
    with pytest.raises(InputError, match=rf"{PATH}:2: configuration file is not UTF-8"):
        parse_config(b"template-ref: a\n\xff: b\n", path=PATH, where="x")


def test_an_alias_bomb_costs_nothing():
    # compose keeps aliases as shared nodes; the schema takes no nesting, so nothing expands.
    bomb = "a: &a ['x','x']\n" + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, "
                                         f"*{chr(97 + i)}]\n" for i in range(20))
    with pytest.raises(InputError, match="unknown setting 'a'"):
        _parse(bomb)


def test_the_keys_are_inputs_of_the_action_and_never_a_token_or_a_run_s_own():
    from swiftpm_guard.action.settings import INPUTS

    assert set(KEYS) <= set(INPUTS)
    assert not set(KEYS) & {"github-token", "push-token", "mode", "version", "dry-run",
                            "allow-overwrite", "update", "check-run", "config"}


def test_the_example_in_adopting_md_is_a_valid_file():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "adopting.md").read_text()
    block = text.split("# .github/swiftpm-guard.yml (on main)", 1)[1].split("```", 1)[0]
    block = block.split("\n", 1)[1]  # after the comment line
    found = _parse(block)
    assert set(found.values) == {"template-ref", "frameworks-from", "plain-expressions",
                                 "frameworks-ref", "author", "accept-static"}
