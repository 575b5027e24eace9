from support.release import template_text
from swiftpm_guard.core.manifest_shape import ManifestShape, declarations
from swiftpm_guard.core.model import Role


def test_real_shape_products_and_binary_only_targets():
    text = template_text(["executorch"], ["threadpool"])
    shape = ManifestShape(text)
    assert shape.role_at(text.index("__SHA256_executorch__")) is Role.PRODUCT
    assert shape.role_at(text.index("__SHA256_executorch_debug__")) is Role.PRODUCT
    assert shape.role_at(text.index("__SHA256_threadpool__")) is Role.BINARY_ONLY
    assert shape.role_at(text.index("__VERSION__")) is Role.UNKNOWN


def test_brackets_inside_strings_and_comments_do_not_end_a_span():
    text = 'let products = [\n  "a]": "x", // ] )\n  /* ] */ "b": "__SHA256_b__",\n]\n'
    (decl,) = declarations(text)
    assert decl.name == "products"
    assert ManifestShape(text).role_at(text.index("__SHA256_b__")) is Role.PRODUCT


def test_unnamed_dictionary_gives_unknown_role():
    text = 'let things = ["a": "__SHA256_a__"]\n'
    assert ManifestShape(text).role_at(text.index("__SHA256_a__")) is Role.UNKNOWN


def test_unclosed_bracket_spans_to_end_without_hanging():
    text = 'let targets = deliverables([\n  "t": "__SHA256_t__",\n'
    assert ManifestShape(text).role_at(text.index("__SHA256_t__")) is Role.BINARY_ONLY
