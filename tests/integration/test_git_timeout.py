"""A remote that never answers: git is stopped at the timeout, helpers included (exit 3)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from swiftpm_guard.errors import InfrastructureError
from swiftpm_guard.jobs.preflight import PreflightRequest, preflight


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in argv:
            found.append(argv)
    return found


def test_a_silent_remote_times_out_and_leaves_no_git_helper(monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    with socket.socket() as listener:
        # Listening but never accepting: the kernel completes the handshake, nobody answers.
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/silent.git"
        start = time.monotonic()
        with pytest.raises(InfrastructureError, match="did not finish within 2 s"):
            preflight(PreflightRequest(version="1.2.3", repo=url, git_timeout=2))
        assert time.monotonic() - start < 30
        deadline = time.monotonic() + 5
        while _processes_mentioning(url) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_mentioning(url) == []
