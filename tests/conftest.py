import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.forks import forks  # noqa: F401  (the fixture, by name)
from support.release import Release, write_release
from support.report_schemas import (  # noqa: F401  (hooks and fixture, by name)
    pytest_sessionfinish,
    pytest_terminal_summary,
    validate_written_reports,
)
from support.tiers import TierSummary


def pytest_configure(config: pytest.Config) -> None:
    # The run's last lines say which tiers ran and which were skipped (support/tiers.py).
    config.pluginmanager.register(TierSummary(), "swiftpm-guard-tiers")


@pytest.fixture
def release(tmp_path: Path) -> Release:
    return write_release(tmp_path / "release")
