"""CheckRequest is a NamedTuple made through a keyword-only, validating `__new__` (start-up
cost, see core.model): its keywords must stay exactly its fields, with the same defaults."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.check_request import CheckRequest


def test_the_constructor_names_every_field_with_its_default():
    parameters = dict(inspect.signature(CheckRequest.__new__).parameters)
    parameters.pop("cls")
    assert list(parameters) == list(CheckRequest._fields)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())
    defaults = {name: p.default for name, p in parameters.items()
                if p.default is not inspect.Parameter.empty}
    assert defaults == CheckRequest._field_defaults


def test_it_is_made_by_keyword_only_and_validated():
    request = CheckRequest(templates=(Path("t"),), version="1.2.3", frameworks=("a",))
    assert request.swift == "auto" and request.warn == frozenset()
    with pytest.raises(TypeError):
        CheckRequest((Path("t"),), "1.2.3")  # type: ignore[misc]
    with pytest.raises(UsageError, match="give at least one source"):
        CheckRequest(templates=(Path("t"),), version="1.2.3")
    with pytest.raises(UsageError, match="--warn 'nope' is not a finding code"):
        CheckRequest(templates=(Path("t"),), version="1.2.3", frameworks=("a",),
                     warn=frozenset({"nope"}))


def test_a_changed_copy_is_still_a_check_request():
    request = CheckRequest(templates=(Path("t"),), version="1.2.3", frameworks=("a",))
    changed = request._replace(swift="off")
    assert type(changed) is CheckRequest
    assert (changed.swift, changed.version) == ("off", "1.2.3")
