"""PyYAML imported with its reader's character class compiled from the complement."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from swiftpm_guard.infra.pyyaml import COMPLEMENT_CLASS, READER_CLASS

EVERY_CODE_POINT = "".join(map(chr, range(sys.maxunicode + 1)))


def test_both_classes_match_exactly_the_same_code_points():
    stock = re.compile(READER_CLASS).findall(EVERY_CODE_POINT)
    complement = re.compile(COMPLEMENT_CLASS).findall(EVERY_CODE_POINT)
    assert len(EVERY_CODE_POINT) == 0x110000
    assert complement == stock
    # Not vacuous: the controls and surrogates are there, tab and NEL are not.
    assert "\x00" in stock and "\ud800" in stock and "\uffff" in stock
    assert "\t" not in stock and "\x85" not in stock and "\U0010ffff" not in stock


def test_the_class_is_spelled_as_the_installed_pyyaml_spells_it():
    """If PyYAML changes the pattern, the exchange stops silently: say so here instead."""
    import yaml.reader

    with open(yaml.reader.__file__, encoding="utf-8") as file:
        source = file.read()
    namespace: dict[str, object] = {}
    line = next(line for line in source.splitlines() if "NON_PRINTABLE = re.compile(" in line)
    exec(f"import re\n{line.strip()}", namespace)  # the file's own literal, evaluated
    assert namespace["NON_PRINTABLE"].pattern == READER_CLASS  # type: ignore[attr-defined]


def _in_a_fresh_interpreter(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_imported_through_it_the_reader_holds_the_complement_and_re_is_restored():
    out = _in_a_fresh_interpreter("""
        import re
        compile_before = re.compile
        from swiftpm_guard.infra.pyyaml import import_pyyaml, COMPLEMENT_CLASS
        yaml = import_pyyaml()
        print(yaml.reader.Reader.NON_PRINTABLE.pattern == COMPLEMENT_CLASS,
              re.compile is compile_before, import_pyyaml() is yaml)
    """)
    assert out == "True True True"


def test_the_workflow_reader_imports_pyyaml_through_it():
    out = _in_a_fresh_interpreter("""
        import swiftpm_guard.sources.workflow, yaml
        from swiftpm_guard.infra.pyyaml import COMPLEMENT_CLASS
        print(yaml.reader.Reader.NON_PRINTABLE.pattern == COMPLEMENT_CLASS)
    """)
    assert out == "True"


@pytest.mark.parametrize("text", ["a: b\x07\n", "a: \ud800\n", "k: \ufffe\n", "ok: é\U0001f600 x\n"])
def test_printable_text_and_its_errors_are_what_stock_pyyaml_gives(text):
    code = f"""
        import yaml
        try:
            print(repr(yaml.compose({text!r}, Loader=yaml.SafeLoader).value[0][1].value))
        except yaml.YAMLError as error:
            print(type(error).__name__, error)
    """
    stock = _in_a_fresh_interpreter(code)
    ours = _in_a_fresh_interpreter("from swiftpm_guard.infra.pyyaml import import_pyyaml\n"
                                   "import_pyyaml()\n" + textwrap.dedent(code))
    assert ours == stock
    assert ("special characters are not allowed" in stock) == (not text.startswith("ok"))
