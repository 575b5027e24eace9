"""The core and the report layer stay pure: no module of them imports the outside world
(STYLE.md's rule, enforced for every module in the two packages, present and future)."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "swiftpm_guard"
PURE = sorted(
    path.relative_to(PACKAGE).as_posix()
    for layer in ("core", "report")
    for path in (PACKAGE / layer).glob("*.py")
)
#: Modules that do I/O, talk to processes or the network, or read the environment.
FORBIDDEN = {"os", "subprocess", "socket", "shutil", "pathlib", "urllib", "http", "requests",
             "github", "docker", "tempfile", "multiprocessing", "io", "glob"}
#: What a pure module may import of this package: the core, and the shared errors and limits
#: (with the two pure text guards errors itself applies to every message: redact, and
#: workflow_commands).
ALLOWED = (
    "swiftpm_guard.core",
    "swiftpm_guard.errors",
    "swiftpm_guard.limits",
    "swiftpm_guard.redact",
    "swiftpm_guard.workflow_commands",
)


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            # PurePosixPath and friends only compute on strings: they touch no file system.
            pure = node.module == "pathlib" and all(a.name.startswith("Pure") for a in node.names)
            names.add("pure-pathlib" if pure else node.module)
    return names


def test_both_layers_are_found():
    assert "core/model.py" in PURE and "report/check.py" in PURE


@pytest.mark.parametrize("module", PURE)
def test_pure_module_imports_no_io(module):
    names = imported(PACKAGE / module)
    outside = {n for n in names if n.split(".")[0] in FORBIDDEN and n != "urllib.parse"}
    own = ALLOWED + (("swiftpm_guard.report",) if module.startswith("report/") else ())
    # The package root holds only `__version__` (the reports name the tool that wrote them).
    edges = {n for n in names if n.startswith("swiftpm_guard") and not n.startswith(own)
             and n != "swiftpm_guard"}
    assert not outside and not edges, (outside, edges)


ROOT = PACKAGE.parents[1]


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), "--no-cache"], cwd=tree, capture_output=True, text=True,
                          timeout=300, check=False,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree / "src")})


def test_a_front_end_that_reads_a_source_itself_breaks_the_contract(tmp_path):
    """The front ends reach sources and infra only through jobs: import-linter, as `make
    lint` runs it, fails on a copy of the package whose action imports a source."""
    tree = tmp_path / "tree"
    shutil.copytree(PACKAGE, tree / "src" / "swiftpm_guard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree)
    assert _lint_imports(tree).returncode == 0
    modes = tree / "src" / "swiftpm_guard" / "action" / "modes.py"
    modes.write_text(modes.read_text() + "\nfrom swiftpm_guard.sources import artifacts\n")
    broken = _lint_imports(tree)
    assert broken.returncode != 0
    assert "swiftpm_guard.action is not allowed to import swiftpm_guard.sources" in broken.stdout
