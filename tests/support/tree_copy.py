"""A copy of this working tree as a user's clone would hold it, for tests that commit and tag it.

What is left out is named exactly: a glob such as `*cache*` once dropped a source file
(`infra/result_cache.py`) and the image built from the copy lacked it. Local outputs of
`make demo` and builds are left out too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

LEFT_OUT = (".venv", ".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
            ".hypothesis", ".import_linter_cache", "demo-out", "dist", "build", "*.egg-info")


def copy_worktree(source: Path, destination: Path) -> Path:
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(*LEFT_OUT))
    return destination
