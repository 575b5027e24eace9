from swiftpm_guard.core.lines import LineIndex
from swiftpm_guard.core.render import scan, substitute


def kinds(text):
    return [(t.kind, t.name or t.text) for t in scan(text)]


def test_finds_version_and_checksums_with_names():
    text = 'let v = "__VERSION__"\n"sha256": "__SHA256_backend_coreml_debug__",\n'
    assert kinds(text) == [("version", "__VERSION__"), ("checksum", "backend_coreml_debug")]


def test_whole_tokens_only_no_partial_matches():
    # `__SHA256_a__` must not be replaced inside the longer token `__SHA256_a__b__`.
    text = '"__SHA256_a__b__" "__SHA256_a__" x__SHA256_a__'
    assert [t.name for t in scan(text) if t.kind == "checksum"] == ["a__b", "a"]
    out = substitute(text, "1.0.0", {"a": "A" * 64})
    assert out == f'"__SHA256_a__b__" "{"A" * 64}" x__SHA256_a__'


def test_near_misses_are_reported():
    text = "__SHA256_x_ __VERSION _VERSION__ __sha256_x__ __SHA256x__ ____VERSION____ __SHA256___"
    found = kinds(text)
    assert ("malformed", "__SHA256_x_") in found
    assert ("malformed", "__VERSION") in found
    assert ("malformed", "_VERSION__") in found
    assert ("malformed", "__sha256_x__") in found
    assert ("malformed", "__SHA256x__") in found
    assert ("malformed", "____VERSION____") in found


def test_ordinary_identifiers_are_not_near_misses():
    text = "let version = SWIFT_VERSION; let sha256 = x; versionString; __dso_handle"
    assert kinds(text) == []


def test_dynamic_placeholder_is_malformed():
    # A template that builds the token at run time can never be filled by substitution.
    assert kinds('"__SHA256_\\(key)__"') == [("malformed", "__SHA256_")]


def test_substitute_keeps_every_other_byte():
    text = 'a\r\n"__VERSION__"\r\n"__SHA256_x__"\r\n"__SHA256_unknown__"'
    out = substitute(text, "2.0.0", {"x": "f" * 64})
    assert out == 'a\r\n"2.0.0"\r\n"' + "f" * 64 + '"\r\n"__SHA256_unknown__"'


def test_line_index_counts_newlines_as_git_and_github_do():
    # "\r\n" is one line end; a lone "\r" (or a form feed) is no line end for git or GitHub.
    index = LineIndex("a\nb\r\nc\rd\fe")
    assert [index.line_of(i) for i in (0, 2, 5, 7, 9)] == [1, 2, 3, 3, 3]
    assert index.offset_of(3) == 5
