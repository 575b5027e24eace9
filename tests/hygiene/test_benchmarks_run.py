"""Every benchmark still starts: its imports match the code (`--help` runs each one's
argparse after every import), so `make bench` cannot rot unnoticed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if p.name != "timing.py")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_benchmark_starts(script: Path):
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=BENCHMARKS,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
