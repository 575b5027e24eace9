"""The tree-sitter-swift fallback: syntax errors with line and column, nothing on good Swift."""

from support.release import template_text
from swiftpm_guard.core.model import Rendered, Template
from swiftpm_guard.infra.swift_syntax import available, syntax_findings


def rendered(text: str, flavour: str = "placeholder") -> Rendered:
    template = Template(path="Package.swift.template", text=text, flavour=flavour)
    return Rendered(template=template, text=text, placeholders=(), version_used=True)


def test_the_tree_sitter_wheels_are_installed():
    assert available()  # a dependency: without it the fallback would check nothing


def test_the_fixture_template_is_valid_swift():
    assert syntax_findings(rendered(template_text())) == []


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_an_unterminated_string_is_reported_where_the_broken_call_starts():
    text = template_text().replace('name: "release",', 'name: "release,')
    bad = line_of(text, 'name: "release,')
    call = line_of(text, "let package = Package(")

    findings = syntax_findings(rendered(text))

    # tree-sitter marks the smallest node it cannot finish: the call holding the string.
    assert findings and findings[0].code == "swift-syntax"
    assert call <= findings[0].line <= bad and findings[0].file == "Package.swift.template"
    assert f"at {findings[0].line}:" in findings[0].message


def test_columns_count_characters_not_bytes():
    text = 'let é = "ü"\nlet x = [1, 2\n'
    [finding] = syntax_findings(rendered(text))
    assert finding.line == 2 and "2:" in finding.subject


def test_a_jinja_manifest_line_is_only_a_note():
    [finding] = syntax_findings(rendered("let a = (\n", flavour="jinja"))
    assert finding.line is None and "of the rendered manifest" in finding.message
