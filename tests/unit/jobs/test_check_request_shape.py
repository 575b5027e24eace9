"""CheckRequest is made by keyword and refuses a request that cannot run (exit 2)."""

from __future__ import annotations

import dataclasses

import pytest

from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.check import CheckRequest


def test_it_is_made_by_keyword_only_and_validated():
    request = CheckRequest(templates=("t",), version="1.2.3", frameworks=("a",))
    assert request.swift == "auto" and request.warn == frozenset()
    with pytest.raises(TypeError):
        CheckRequest(("t",), "1.2.3")  # type: ignore[misc]
    with pytest.raises(UsageError, match="give at least one source"):
        CheckRequest(templates=("t",), version="1.2.3")
    with pytest.raises(UsageError, match="--warn 'nope' is not a finding code"):
        CheckRequest(templates=("t",), version="1.2.3", frameworks=("a",),
                     warn=frozenset({"nope"}))


def test_a_changed_copy_is_validated_again():
    request = CheckRequest(templates=("t",), version="1.2.3", frameworks=("a",))
    changed = dataclasses.replace(request, swift="off")
    assert (changed.swift, changed.version) == ("off", "1.2.3")
    with pytest.raises(UsageError, match="render-timeout"):
        dataclasses.replace(request, render_seconds=0)


def test_without_a_version_it_compares_names_only():
    request = CheckRequest(templates=("t",), version=None, frameworks=("a",))
    assert request.options().version == "0.0.0"
