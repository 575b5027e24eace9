"""Regenerate examples/release/ (the bundled release `make demo` runs on).

The files are committed; tests/unit/action/test_examples.py regenerates them and compares bytes.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.release import write_release  # noqa: E402

VERSION = "1.0.0"


def build(target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    write_release(target, VERSION)


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "examples" / "release")
