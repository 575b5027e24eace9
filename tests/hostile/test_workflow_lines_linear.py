"""Line lookups in folded and quoted `run:` scripts cost a prefix walk, never a rescan (issue
25: 8,000 names in a folded scalar took 15 s, 16,000 hit the 60 s deadline).

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


def workflow(style: str) -> str:
    names = "\n".join(f"          n{i}" for i in range(NAMES))
    if style == ">":
        return (f"jobs:\n  build:\n    steps:\n      - run: >\n          FRAMEWORKS=(\n"
                f"{names}\n          )\n")
    return (f"jobs:\n  build:\n    steps:\n      - run: {style}FRAMEWORKS=(\n{names}\n"
            f"          ){style}\n")


@pytest.mark.parametrize("style", [">", '"', "'"], ids=["folded", "double", "single"])
def test_twelve_thousand_names_map_to_their_lines_in_linear_time(style):
    try:
        done = subprocess.run([sys.executable, "-c", READ], input=workflow(style),
                              capture_output=True, text=True, timeout=DEADLINE, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{NAMES} names in a {style} scalar took over {DEADLINE} s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(NAMES)
