from swiftpm_guard.core.lines import LineIndex
from swiftpm_guard.core.model import Artifact, Location, Template
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
    assert [index.line_of(i) for i in (0, 2, 4, 5, 7, 9)] == [1, 2, 2, 3, 3, 3]


# -- what is left in the rendered text ----------------------------------------------------------

def _render(text: str, flavour: str, built: dict):
    from swiftpm_guard.core.render import render

    template = Template(path=f"Package.swift.{'j2' if flavour == 'jinja' else 'template'}",
                        text=text, flavour=flavour)
    return render(template, "1.2.3", built)


def _left(rendered):
    return [(f.subject, f.line) for f in rendered.findings if f.code == "placeholder-left"]


SHA_A = "a" * 64
BUILT = {"a": Artifact("a", SHA_A, Location("sums")),
         "pr": Artifact("pr", None, Location("--frameworks"))}


def test_a_jinja_template_leaving_placeholder_text_is_reported_once_per_token():
    text = ('let v = "{{ version }}"\n'
            'let a = "__SHA256_a__"  // __SHA256_a__\n'
            '// for __VERSION__\n'
            'let glued = "v__VERSION__x"\n')
    rendered = _render(text, "jinja", BUILT)

    assert _left(rendered) == [("__SHA256_a__", None), ("__VERSION__", None),
                               ("v__VERSION__x", None)]
    [first, *_] = [f for f in rendered.findings if f.code == "placeholder-left"]
    assert "(line 2 of the rendered manifest)" in first.message


def test_what_another_finding_names_is_not_reported_again():
    # Asked but not built: the two-way rule says unfilled-placeholder. Declared without a
    # checksum (a PR's list): kept on purpose.
    jinja = _render('let x = "{{ checksums["ghost"] }}"\nlet p = "{{ checksums["pr"] }}"\n',
                    "jinja", BUILT)
    placeholders = _render('let v = "__VERSION__"\n// __SHA256_ghost__\n'
                           'let x = "__SHA256_nobody__"\n', "placeholder", BUILT)

    assert "__SHA256_ghost__" in jinja.text and "__SHA256_pr__" in jinja.text
    assert _left(jinja) == []
    assert "__SHA256_ghost__" in placeholders.text and _left(placeholders) == []
    # A placeholder asks wherever it stands (issue 31): both are unfilled, the two-way rule's.
    assert [p.name for p in placeholders.placeholders] == ["ghost", "nobody"]
    assert placeholders.findings == ()


def test_a_placeholder_glued_inside_a_word_of_a_placeholder_template_is_left():
    rendered = _render('let v = "__VERSION__"\nlet x = "y__SHA256_a__z"\n', "placeholder", BUILT)

    assert _left(rendered) == [("y__SHA256_a__z", 2)]
