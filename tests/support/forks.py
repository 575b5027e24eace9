"""Which children a test forked, and whether every one of them has been reaped.

`os.waitpid(-1, …)` cannot tell: other tests' helpers (multiprocessing's resource tracker,
say) live on in the same process. A recorder on `os.fork` can.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


class Forks:
    def __init__(self) -> None:
        self.pids: list[int] = []

    def all_reaped(self) -> bool:
        """True when no child forked since the fixture began is left unreaped (or running)."""
        for pid in self.pids:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                continue  # reaped already, as it must be
            return False
        return True


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Forks]:
    recorder = Forks()
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            recorder.pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    yield recorder
