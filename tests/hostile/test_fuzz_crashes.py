"""Replay every input the fuzzers ever crashed on (fuzz/crashes/TARGET/*) and the seeds."""

import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
sys.path.insert(0, str(FUZZ))

import harness  # noqa: E402


def inputs():
    for kind in ("crashes", "seeds"):
        for path in sorted((FUZZ / kind).glob("*/*")):
            yield pytest.param(path.parent.name, path, id=f"{kind}/{path.parent.name}/{path.name}")


@pytest.mark.parametrize(("target", "path"), list(inputs()))
def test_replay(target, path):
    harness.TARGETS[target](path.read_bytes())


def test_there_is_something_to_replay():
    assert len(list(inputs())) >= 7
