"""One module per idea, each under 900 lines: a module that grows past it holds two
ideas and is split, not let grow."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "swiftpm_guard"
LIMIT = 900


def over_limit(root: Path, limit: int = LIMIT) -> dict[str, int]:
    """Every `.py` under `root` with more than `limit` lines, by its path under `root`."""
    sizes = {str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
             for path in sorted(root.rglob("*.py"))}
    return {name: lines for name, lines in sizes.items() if lines > limit}


def test_no_module_in_src_is_over_900_lines():
    assert len(list(SRC.rglob("*.py"))) > 50  # the package is where we look
    assert over_limit(SRC) == {}


def test_the_check_sees_a_module_over_the_limit(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "big.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "small.py").write_text("x = 1\n" * LIMIT)
    assert over_limit(tmp_path) == {"pkg/big.py": LIMIT + 1}
