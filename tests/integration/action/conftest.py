"""The fake GitHub API for these tests; any request GitHub would reject fails the test.

In its own folder so it cannot collide with the tier's shared conftest.py.
"""

from collections.abc import Iterator

import pytest

from support.fake_fixture import fake_github_fixture
from support.fake_github import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    yield from fake_github_fixture()
