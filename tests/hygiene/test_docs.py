"""The docs stay true: generated pages match their generator, links and anchors resolve,
every command line parses with the CLI's own parser, every `uses:` snippet gives only inputs
the action has."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest
import yaml

from swiftpm_guard.cli.main import build_parser
from swiftpm_guard.core.model import CODES
from swiftpm_guard.errors import UsageError
from swiftpm_guard.report.code_guide import GUIDE

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
ACTION_INPUTS = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generator", ROOT / "scripts" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_are_what_their_generator_writes():
    for path, text in _generator().pages().items():
        assert path.is_file(), f"{path.relative_to(ROOT)} missing: run `make docs`"
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale: run `make docs`"


def test_every_finding_code_has_a_guide_entry_and_nothing_else_does():
    assert set(GUIDE) == set(CODES)
    assert {severity for severity, _change in GUIDE.values()} <= {"error", "warning", "notice"}


# -- links and anchors ------------------------------------------------------------------------

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(<?([^)>\s]+)>?\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors (lower case, punctuation dropped, spaces to hyphens, repeats
    numbered) and explicit `<a id>`s."""
    found: set[str] = set(re.findall(r'<a id="([^"]+)"', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", _FENCE.sub("", text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(page: Path):
    text = page.read_text()
    for target in _LINK.findall(_FENCE.sub("", text)):
        if re.match(r"[a-z]+:", target):
            continue  # absolute URLs are not checked offline
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.relative_to(ROOT)}: link to missing {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in _anchors(resolved.read_text()), \
                f"{page.relative_to(ROOT)}: no anchor #{anchor} in {resolved.relative_to(ROOT)}"


# -- snippets ---------------------------------------------------------------------------------

_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _blocks(kinds: set[str]) -> list[tuple[Path, str]]:
    return [(page, body) for page in PAGES for kind, body in _BLOCK.findall(page.read_text())
            if kind in kinds]


def _command_lines(body: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", body)
    return [line.strip().removeprefix("$ ") for line in joined.splitlines()
            if line.strip().removeprefix("$ ").startswith("swiftpm-guard ")]


def test_every_command_line_in_the_docs_parses():
    parser = build_parser()
    lines = [(page, line) for page, body in _blocks({"sh", "bash", "console", "shell"})
             for line in _command_lines(body)]
    assert lines, "no swiftpm-guard command line found in the docs"
    for page, line in lines:
        words = shlex.split(line.split(" #", 1)[0])[1:]
        words = [w for w in words if w not in ("|", "&&")]
        try:
            parser.parse_args(words)
        except UsageError as error:
            pytest.fail(f"{page.relative_to(ROOT)}: `{line}` is refused by the CLI: {error}")
        except SystemExit as error:  # --help and --version end here
            assert error.code == 0, f"{page.relative_to(ROOT)}: `{line}`"


def _uses_steps(node: object):
    if isinstance(node, dict):
        if "swiftpm-guard" in str(node.get("uses", "")) or node.get("uses") == "./":
            yield node
        for value in node.values():
            yield from _uses_steps(value)
    elif isinstance(node, list):
        for value in node:
            yield from _uses_steps(value)


def test_every_action_snippet_is_yaml_and_gives_only_real_inputs():
    found = 0
    for page, body in _blocks({"yaml", "yml"}):
        document = yaml.safe_load(body)
        for step in _uses_steps(document):
            found += 1
            unknown = set(step.get("with") or {}) - ACTION_INPUTS
            assert not unknown, f"{page.relative_to(ROOT)}: unknown inputs {sorted(unknown)}"
    assert found, "no `uses: …swiftpm-guard` snippet found in the docs"
