"""The `fake_github` fixture body: a started fake that fails the test on any schema violation."""

from __future__ import annotations

from collections.abc import Iterator

from support.fake_github import FakeGitHub, running


def fake_github_fixture() -> Iterator[FakeGitHub]:
    with running() as fake:
        yield fake
    assert not fake.violations, "requests GitHub would reject:\n" + "\n".join(fake.violations)
