"""The release tooling under scripts/, imported by path (scripts/ is not a package), and the
one edit a maintainer makes to a copy of the tree before tagging it."""

from __future__ import annotations

import datetime
import functools
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@functools.cache
def load(name: str) -> ModuleType:
    """scripts/<name>.py as a module. scripts/ goes on sys.path first, as it is for the
    scripts themselves (release_dry_run imports changelog and local_index by name)."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def date_release_section(tree: Path, version: str) -> None:
    """What a maintainer does on release day: a `## [X.Y.Z]` CHANGELOG heading left undated
    (no date, or the `YYYY-MM-DD` placeholder) gets today's date. A dated one is left alone."""
    path = tree / "CHANGELOG.md"
    pattern = re.compile(rf"^## \[{re.escape(version)}\](?: - YYYY-MM-DD)?[ \t]*$", re.M)
    today = datetime.date.today().isoformat()
    path.write_text(pattern.sub(f"## [{version}] - {today}", path.read_text(encoding="utf-8"),
                                count=1), encoding="utf-8")
