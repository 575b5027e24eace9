import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.forks import forks  # noqa: F401  (the fixture, by name)
from support.release import Release, write_release
from support.report_schemas import (  # noqa: F401  (hooks and fixture, by name)
    pytest_sessionfinish,
    pytest_terminal_summary,
    validate_written_reports,
)
from support.runner_job import Job
from support.tiers import TierSummary

if TYPE_CHECKING:  # the fake (and jsonschema) only where a test asks for it
    from support.fake_github import FakeGitHub


def pytest_configure(config: pytest.Config) -> None:
    # The run's last lines say which tiers ran and which were skipped (support/tiers.py).
    config.pluginmanager.register(TierSummary(), "swiftpm-guard-tiers")


@pytest.fixture(scope="session", autouse=True)
def caches_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Nothing under the user's home: swiftpm-guard's SwiftPM and resolve caches default to
    $XDG_CACHE_HOME (else ~/.cache), and a test that runs the CLI without --swift-cache would
    fill the real one. The session's own, under pytest's temporary folder."""
    cache = tmp_path_factory.mktemp("xdg-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(cache)
    yield cache
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture
def release(tmp_path: Path) -> Release:
    return write_release(tmp_path / "release")


@pytest.fixture
def runner(tmp_path: Path, fake_github: "FakeGitHub") -> Job:
    """The steps of one job on the runner, against the test's fake GitHub API
    (support/runner_job.py): `runner.run(workspace, event, payload, sha=…, inputs=…)`."""
    return Job(tmp_path / "job", fake_github.url)
