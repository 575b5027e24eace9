"""The run's closing line about tiers (support/tiers.py) says what happened, never more."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.tiers import Outcome, summary_line, tier_of

TESTS = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("path", "fixtures", "markers", "tier"),
    [
        ("tests/unit/test_x.py", [], [], "unit"),
        ("tests/hygiene/test_docs.py", [], [], "hygiene"),
        ("tests/hostile/test_corpus.py", ["tmp_path"], [], "hostile"),
        ("tests/integration/test_publish_remote.py", ["remote"], [], "integration"),
        ("tests/integration/test_swiftpm.py", ["swift", "tmp_path"], ["slow"], "swiftpm"),
        ("tests/unit/test_syntax.py", ["swift"], [], "swiftpm"),
        ("tests/e2e/entrypoint/test_action_publish.py", ["fake_github"], [], "e2e-entrypoint"),
        ("tests/e2e/test_runner_support.py", [], [], "e2e-support"),
        ("tests/e2e/test_container_cli.py", ["image"], ["container"], "container"),
        ("tests/test_top.py", [], [], "other"),
    ],
)
def test_each_test_gets_the_tier_of_what_it_needs(path, fixtures, markers, tier):
    assert tier_of(path, fixtures, markers) == tier


def _outcome(outcome: str, reason: str = "") -> Outcome:
    made = Outcome()
    made.add(outcome, reason)
    return made


def test_a_tier_whose_every_test_skipped_is_listed_as_skipped_with_its_reason():
    tiers = {"u1": "unit", "u2": "unit", "s1": "swiftpm", "s2": "swiftpm"}
    outcomes = {
        "u1": _outcome("passed"),
        "u2": _outcome("skipped", "needs root"),
        "s1": _outcome("skipped", "NO SWIFT TOOLCHAIN: build one"),
        "s2": _outcome("skipped", "NO SWIFT TOOLCHAIN: build one"),
    }
    line = summary_line(tiers, outcomes)
    assert line.startswith("tiers: ran unit (1 passed, 1 skipped); ")
    assert "skipped swiftpm (2 skipped: NO SWIFT TOOLCHAIN: build one)" in line
    assert line.endswith(
        "not selected hygiene, hostile, integration, e2e-entrypoint, e2e-support, container"
    )


def test_the_worst_outcome_of_a_test_counts_and_unrun_tests_are_said():
    outcome = Outcome()
    for phase in ("passed", "error"):  # passed, then its teardown failed
        outcome.add(phase)
    tiers = {"a": "integration", "b": "integration", "c": "hostile", "d": "swiftpm", "e": "swiftpm"}
    line = summary_line(tiers, {"a": outcome, "d": _outcome("skipped", "no swift")})
    # Nothing of swiftpm executed, so it is skipped even though the run stopped before one test.
    assert line == (
        "tiers: ran integration (1 error, 1 not run); skipped hostile (1 not run: the run "
        "stopped first), swiftpm (1 skipped, 1 not run: no swift); not selected unit, "
        "hygiene, e2e-entrypoint, e2e-support, container"
    )


def test_long_reasons_are_clipped_to_keep_one_line():
    reason = "x" * 500 + "\nsecond line"
    line = summary_line({"c": "container"}, {"c": _outcome("skipped", reason)})
    assert "\n" not in line and len(line) < 200 and line.count("…") == 1


CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import pytest
from support.tiers import TierSummary

def pytest_configure(config):
    config.addinivalue_line("markers", "container: needs an engine")
    config.pluginmanager.register(TierSummary(), "tiers")

@pytest.fixture
def swift():
    pytest.skip("NO SWIFT TOOLCHAIN here")
"""


def test_a_real_run_ends_with_the_line(tmp_path):
    files = {
        "tests/conftest.py": CONFTEST,
        "tests/unit/test_u.py": "def test_a():\n    pass\n\ndef test_b():\n    pass\n",
        "tests/hygiene/test_y.py": "def test_y():\n    pass\n",
        "tests/integration/test_s.py": "def test_s(swift):\n    pass\n",
        "tests/hostile/test_h.py": "def test_h():\n    assert 1 == 2\n",
        "tests/e2e/test_c.py": (
            "import pytest\n\n@pytest.mark.container\n"
            "def test_c():\n    pytest.skip('no engine')\n"
        ),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -ra -p no:cacheprovider\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "tests"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 1, result.stdout
    assert lines[-1].startswith("1 failed, 3 passed, 2 skipped")
    assert lines[-2] == (
        "tiers: ran unit (2 passed), hygiene (1 passed), hostile (1 failed); skipped swiftpm (1 skipped: NO SWIFT "
        "TOOLCHAIN here), container (1 skipped: no engine); not selected integration, "
        "e2e-entrypoint, e2e-support"
    )
