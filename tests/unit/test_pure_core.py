"""The core stays pure: no module of it imports the outside world (STYLE.md's rule, enforced)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "swiftpm_guard"
PURE = [
    "model", "placeholders", "manifest_shape", "render", "checks", "report", "swift_checks",
    "evaluation", "audit", "audit_report", "audit_output", "check_output", "package_diff",
    "published_manifest", "urls", "core/resolution", "core/zip_rules",
]
#: Modules that do I/O, talk to processes or the network, or read the environment.
FORBIDDEN = {"os", "subprocess", "socket", "shutil", "pathlib", "urllib", "http", "requests",
             "github", "docker", "tempfile", "multiprocessing"}


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", PURE)
def test_pure_module_imports_no_io(module):
    names = imported(PACKAGE / f"{module}.py")
    outside = {n for n in names if n.split(".")[0] in FORBIDDEN and n != "urllib.parse"}
    edges = {n for n in names if n.startswith(("swiftpm_guard.sources", "swiftpm_guard.sinks"))}
    assert not outside and not edges, (outside, edges)
