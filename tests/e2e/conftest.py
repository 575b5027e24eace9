from collections.abc import Iterator

import pytest

from support.fake_fixture import fake_github_fixture
from support.fake_github import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    yield from fake_github_fixture()
