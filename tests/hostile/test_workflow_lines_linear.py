"""Line lookups in a `run: |` script cost a bisection, never a rescan (issue 25: 8,000 names in
a folded scalar took 15 s, 16,000 hit the 60 s deadline; since issue 31 a script over several
lines is read only as a literal block).

Each read runs in a fresh process under a deadline well above the linear time and well below
the quadratic one, so a regression fails by timeout instead of slowing the suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

NAMES = 12000
DEADLINE = 10
READ = """
import sys
from swiftpm_guard.sources.workflow import frameworks_in_workflow
text = sys.stdin.read()
found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
rows = text.split("\\n")
assert all(rows[d.origin.line - 1].strip() == d.name for d in found)
print(len(found))
"""


def workflow() -> str:
    names = "\n".join(f"          n{i}" for i in range(NAMES))
    return (f"jobs:\n  build:\n    steps:\n      - run: |\n          FRAMEWORKS=(\n"
            f"{names}\n          )\n")


def test_twelve_thousand_names_map_to_their_lines_in_linear_time():
    try:
        done = subprocess.run([sys.executable, "-c", READ], input=workflow(),
                              capture_output=True, text=True, timeout=DEADLINE, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{NAMES} names in a literal block took over {DEADLINE} s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(NAMES)
