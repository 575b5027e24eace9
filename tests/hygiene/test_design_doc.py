"""docs/design.md stays true to the source tree: its module table has one row per module of
src/swiftpm_guard and no other, and every file, module or `module.attribute` it names exists.
The failure says which row to add or remove, so a new module is documented in the same change."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "swiftpm_guard"
DESIGN = ROOT / "docs" / "design.md"
PAGE = "docs/design.md"

_ROW = re.compile(r"^\| `([^`]+)` \|(.*)\|\s*$")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_PY_FILE = re.compile(r"(?<![\w/.-])([\w./-]*\w\.py)\b")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# What a dotted name in design.md may start with: the package, its layers and its top modules.
_ROOTS = {"swiftpm_guard"} | {
    path.stem if path.is_file() else path.name
    for path in PACKAGE.iterdir()
    if (path.is_dir() and (path / "__init__.py").is_file())
    or (path.suffix == ".py" and path.name != "__init__.py")
}


def _modules() -> dict[str, Path]:
    return {path.relative_to(PACKAGE).as_posix(): path for path in sorted(PACKAGE.rglob("*.py"))
            if path.name != "__init__.py"}


def _table(text: str) -> dict[str, int]:
    """The module table's rows: module path → line number on the page."""
    section = text.split("\n## Modules\n", 1)
    assert len(section) == 2, f"{PAGE} has no `## Modules` section"
    start = text[: len(section[0])].count("\n") + 2
    rows: dict[str, int] = {}
    for number, line in enumerate(section[1].splitlines(), start + 1):
        match = _ROW.match(line)
        if match:
            assert match[1] not in rows, f"{PAGE}:{number}: a second row for `{match[1]}`"
            rows[match[1]] = number
    return rows


def _role(path: Path) -> str:
    """The module docstring's first line: a starting point for the row's role."""
    docstring = ast.get_docstring(ast.parse(path.read_text())) or "ROLE"
    return docstring.split("\n", 1)[0].strip()


def test_the_module_table_has_one_row_per_module_and_no_other() -> None:
    modules = _modules()
    rows = _table(DESIGN.read_text())
    problems = [f"add the row  | `{name}` | {_role(path)} |"
                for name, path in modules.items() if name not in rows]
    problems += [f"remove the row for `{name}` (line {line}): no src/swiftpm_guard/{name}"
                 for name, line in rows.items() if name not in modules]
    assert not problems, (f"{PAGE}, `## Modules` table (one row per module; "
                          "write the role in a line):\n  " + "\n  ".join(problems))


def _file_exists(name: str) -> bool:
    return any((base / name).is_file() for base in (PACKAGE, ROOT))


def _resolves(dotted: str) -> bool:
    """`layer.module.attribute…`: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    if parts[0] != "swiftpm_guard":
        parts = ["swiftpm_guard", *parts]
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def _names(text: str) -> tuple[set[str], set[str]]:
    """The `.py` files the page names anywhere, and the dotted names it puts in code spans."""
    files = set(_PY_FILE.findall(text))
    dotted = {span for span in _CODE_SPAN.findall(text)
              if _DOTTED.fullmatch(span) and not span.endswith(".py")
              and span.split(".", 1)[0] in _ROOTS}
    return files, dotted


def test_every_file_module_and_attribute_the_page_names_exists() -> None:
    files, dotted = _names(DESIGN.read_text())
    problems = [f"`{name}`: no such file (under src/swiftpm_guard/ or the repository root)"
                for name in sorted(files) if not _file_exists(name)]
    problems += [f"`{name}`: no such module or attribute in swiftpm_guard"
                 for name in sorted(dotted) if not _resolves(name)]
    assert not problems, f"{PAGE} names what does not exist:\n  " + "\n  ".join(problems)


def test_the_checks_notice_what_they_are_meant_to() -> None:
    """The parsing above is what stands between the page and the tree: it must see a stale
    name, a missing row and an extra row."""
    files, dotted = _names("see `jobs/gone.py`, gone.py, `core.model.Nothing`, `core.nope`, "
                           "`core.model.CODES` and `e.g.` prose")
    assert files == {"jobs/gone.py", "gone.py"}
    assert dotted == {"core.model.Nothing", "core.nope", "core.model.CODES"}
    assert [name for name in sorted(dotted) if not _resolves(name)] == [
        "core.model.Nothing", "core.nope"]
    assert not _file_exists("jobs/gone.py")
    assert _file_exists("jobs/check.py") and _file_exists("entrypoint.py")
    rows = _table("# x\n\n## Modules\n\n| module | role |\n|---|---|\n| `a.py` | one |\n"
                  "| `b/c.py` | two |\n")
    assert rows == {"a.py": 7, "b/c.py": 8}
