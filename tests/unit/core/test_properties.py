"""Properties of render over generated templates and artifact sets (hypothesis)."""

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swiftpm_guard.cli.main import main
from swiftpm_guard.core.render import scan, substitute
from swiftpm_guard.sources.artifacts import parse_checksums

NAMES = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=8).filter(
    lambda n: not n.startswith("_") and not n.endswith("_") and "__" not in n
)
# No quote, backslash, slash or pound: filler stays plain text around the placeholders.
FILLER = st.text(alphabet="".join(c for c in string.printable if c not in '_"\\/#'),
                 max_size=40)
HEXES = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@st.composite
def template_and_built(draw):
    asked = draw(st.lists(NAMES, max_size=6, unique=True))
    built = draw(st.dictionaries(NAMES, HEXES, min_size=1, max_size=6))
    pieces = [draw(FILLER), '"__VERSION__"']
    for name in asked:
        pieces += [draw(FILLER), f'"__SHA256_{name}__"']
    pieces.append(draw(FILLER))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    # The static gate's exact rules hold (tools-version line, one `let package = Package(`);
    # the rest is accepted as a static reading, a warning.
    pieces.insert(0, "// swift-tools-version:5.9" + newline + "let package = Package(")
    return newline.join(pieces) + draw(st.sampled_from(["", newline])), asked, built


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=template_and_built())
def test_render_writes_complete_manifest_or_nothing(tmp_path_factory, case):
    text, asked, built = case
    root = tmp_path_factory.mktemp("p")
    template = root / "Package.swift.template"
    template.write_bytes(text.encode())
    (root / ".Package.swift").mkdir()  # no stub folders: nothing for the text to decide
    sums = root / "sums.txt"
    sums.write_text("".join(f"{n} {c}\n" for n, c in built.items()))
    out = root / "Package.swift"
    code = main(["render", "--template", str(template), "--version", "1.0.0",
                 "--checksums", str(sums), "--output", str(out), "-q",
                 "--swift", "off", "--accept-static"])
    consistent = set(asked) == set(built)  # both ways, by exact name
    assert code == (0 if consistent else 1)
    if code == 0:
        manifest = out.read_bytes().decode()
        assert not [t for t in scan(manifest) if t.kind != "malformed"]
        assert all(c in manifest for c in built.values())
        # Byte-exact: exactly what pure substitution produces.
        assert manifest == substitute(text, "1.0.0", built)
    else:
        assert not out.exists()


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_checksums_parser_never_crashes(text):
    try:
        parse_checksums(text, file="f")
    except Exception as error:  # only our one-line InputError may escape
        assert type(error).__name__ == "InputError"
        assert "\n" not in str(error)
