"""Mermaid's own parser for tests, run offline with Node.js (tests/support/mermaid_parse.mjs).

Found through SWIFTPM_GUARD_MERMAID (the folder `scripts/mermaid-parser.sh` prints), else where
that script's `--check` says a completed install is; without one the tests that need it skip, saying how to enable
them, except when SWIFTPM_GUARD_REQUIRE_MERMAID=1 (CI sets it): then they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parent / "mermaid_parse.mjs"
INSTALLER = Path(__file__).resolve().parents[2] / "scripts" / "mermaid-parser.sh"
HOW = ("Mermaid parser not installed: run `bash scripts/mermaid-parser.sh` (npm, once per "
       "machine) or set SWIFTPM_GUARD_MERMAID to its folder")


@dataclass(frozen=True)
class Parsed:
    """What Mermaid made of one diagram; for a timeline, its parts as the renderer gets them."""

    ok: bool
    type: str | None = None
    error: str | None = None
    title: str | None = None
    #: What the block's init directive set, as Mermaid read it.
    config: dict[str, Any] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)
    #: {"section", "text", "events"} per period, in order.
    periods: list[dict[str, Any]] = field(default_factory=list)


def parser_dir() -> Path:
    """The parser's folder, or skip (fail under SWIFTPM_GUARD_REQUIRE_MERMAID=1)."""
    folder = os.environ.get("SWIFTPM_GUARD_MERMAID") or _installed()
    ready = bool(folder) and (Path(folder) / ".complete").is_file() \
        and shutil.which("node") is not None
    if not ready:
        if os.environ.get("SWIFTPM_GUARD_REQUIRE_MERMAID") == "1":
            pytest.fail(f"{HOW}. SWIFTPM_GUARD_REQUIRE_MERMAID=1 forbids skipping.")
        pytest.skip(HOW)
    return Path(folder)


def _installed() -> str:
    """The folder of a completed install at the script's default place, or ""."""
    done = subprocess.run(["bash", str(INSTALLER), "--check"], capture_output=True, text=True,
                          timeout=30, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def parse(*texts: str) -> list[Parsed]:
    """Each diagram text through `mermaid.parse`, in one Node.js process."""
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, str(SCRIPT), str(parser_dir())], input=json.dumps(texts),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return [Parsed(**item) for item in json.loads(done.stdout)]
