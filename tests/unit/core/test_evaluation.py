"""Reading SwiftPM's output: JSON from dump-package, errors from stderr (pure)."""

import json

import pytest

from swiftpm_guard.core.swiftpm_evaluation import CommandResult, interpret
from swiftpm_guard.errors import UnreadableOutput

OK_DESCRIBE = CommandResult(0, "{}", "")


def dump_json(*targets: dict, products: tuple[dict, ...] = ()) -> str:
    return json.dumps({"name": "release", "products": list(products), "targets": list(targets)})


def test_dump_gives_products_and_binary_targets_with_url_and_checksum():
    text = dump_json(
        {
            "name": "a",
            "type": "binary",
            "url": "https://x/a-1.zip",
            "checksum": "c" * 64,
            "dependencies": [],
        },
        {
            "name": "a_with_dependencies",
            "type": "regular",
            "path": ".Package.swift/a",
            "dependencies": [
                {"target": ["a", None]},
                {"byName": ["b", None]},
                {"product": ["p", "pkg", None, None]},
            ],
        },
        products=({"name": "a", "targets": ["a_with_dependencies"], "type": {"library": []}},),
    )
    evaluation = interpret(CommandResult(0, text, ""), OK_DESCRIBE)

    assert evaluation.ok
    assert [p.name for p in evaluation.products] == ["a"]
    [binary] = evaluation.binary_targets
    assert (binary.name, binary.url, binary.checksum) == ("a", "https://x/a-1.zip", "c" * 64)
    wrapper = evaluation.targets[1]
    assert wrapper.kind == "regular" and wrapper.dependencies == ("a", "b")


def test_compiler_errors_keep_manifest_line_and_drop_notes_noise_and_temp_paths():
    stderr = "\n".join(
        [
            'error: \'package\': Invalid manifest (compiled with: ["/usr/bin/swiftc", "-o", "x"])',
            "/tmp/swiftpm-guard.ab12/package/Package.swift:104:23: note: to match this opening '('",
            "104 | let package = Package(((",
            "    |                       `- note: to match this opening '('",
            "/tmp/sg.ab/package/Package.swift:105:9: error: unterminated string literal",
            "    |         `- error: unterminated string literal",
            "/tmp/sg.ab/package/Package.swift:105:9: error: unterminated string literal",
            'error: invalid manifests at [<AbsolutePath:"/tmp/swiftpm-guard.ab12/package">]',
        ]
    )
    evaluation = interpret(CommandResult(1, "", stderr), OK_DESCRIBE)

    assert not evaluation.ok and evaluation.products == ()
    [diagnostic] = evaluation.diagnostics
    assert (diagnostic.line, diagnostic.column) == (105, 9)
    assert diagnostic.message == "unterminated string literal"
    assert diagnostic.subject == "Package.swift"


def test_swiftpm_errors_name_their_subject():
    stderr = (
        "error: 'package': invalid URL scheme for binary target 'threadpool'; valid schemes "
        "are: 'https'\n"
        "error: 'package': target 'ghost' referenced in product 'g' could not be found; valid "
        "targets are: 'a'\n"
        "error: 'package': duplicate target named 'x'\n"
        "error: fatalError\n"
    )
    evaluation = interpret(CommandResult(1, "", stderr), OK_DESCRIBE)

    assert [(d.subject, d.line) for d in evaluation.diagnostics] == [
        ("threadpool", None),
        ("ghost", None),
        ("x", None),
    ]
    assert evaluation.diagnostics[0].message.startswith("invalid URL scheme")


def test_describe_failure_after_a_good_dump_keeps_the_evaluation():
    dump = CommandResult(
        0, dump_json({"name": "a", "type": "binary", "url": "u", "checksum": "c"}), ""
    )
    describe = CommandResult(
        1, "", "error: invalid custom path '.Package.swift/a' for target 'a_with_dependencies'\n"
    )
    evaluation = interpret(dump, describe)

    assert not evaluation.ok
    assert [t.name for t in evaluation.targets] == ["a"]
    [diagnostic] = evaluation.diagnostics
    assert diagnostic.subject == "a_with_dependencies"


def test_long_messages_are_cut():
    stderr = "error: 'package': target 'a' is bad: " + "x" * 5000 + "\n"
    [diagnostic] = interpret(CommandResult(1, "", stderr), OK_DESCRIBE).diagnostics
    assert len(diagnostic.message) == 400 and diagnostic.message.endswith("…")


@pytest.mark.parametrize(
    ("dump", "says"),
    [
        (CommandResult(1, "", "Segmentation fault\n"), "no error we can read: Segmentation fault"),
        (CommandResult(0, "not json", ""), "no manifest JSON"),
        (CommandResult(0, '{"products": []}', ""), "no manifest JSON"),
    ],
)
def test_output_that_is_neither_result_nor_error_is_unreadable(dump, says):
    with pytest.raises(UnreadableOutput, match=says):
        interpret(dump, OK_DESCRIBE)
