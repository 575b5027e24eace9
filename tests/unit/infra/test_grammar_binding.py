"""Grammars load from their binding alone (start-up: tree-sitter-bash's __init__ imports
importlib.resources and its train for a query we never read), the same grammar either way."""

from __future__ import annotations

import subprocess
import sys

import tree_sitter
import tree_sitter_bash

from swiftpm_guard.infra.grammar_binding import language

SCRIPT = b"FRAMEWORKS=( a b )\n"


def _tree(lang: object) -> str:
    return str(tree_sitter.Parser(tree_sitter.Language(lang)).parse(SCRIPT).root_node)


def test_the_binding_is_the_grammar_the_package_gives():
    ours, theirs = tree_sitter.Language(language("tree_sitter_bash")), \
        tree_sitter.Language(tree_sitter_bash.language())
    assert ours.node_kind_count == theirs.node_kind_count > 100
    assert _tree(language("tree_sitter_bash")) == _tree(tree_sitter_bash.language())


def test_loading_it_does_not_run_the_package_init():
    probe = ("import sys; from swiftpm_guard.infra.grammar_binding import language; "
             "language('tree_sitter_bash'); "
             "print('tree_sitter_bash' in sys.modules, 'importlib.resources' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_a_package_without_a_binding_file_is_imported_as_usual(tmp_path, monkeypatch):
    package = tmp_path / "fake_grammar"
    package.mkdir()
    (package / "__init__.py").write_text("def language():\n    return 'from __init__'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert language("fake_grammar") == "from __init__"
