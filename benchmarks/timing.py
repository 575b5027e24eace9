"""Shared measuring helpers for the benchmarks: wall time and kernel-measured peak RSS."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Collection
from pathlib import Path


def run_timed(argv: list[str], ok: Collection[int] = (0,)) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process, as the kernel reports it (wait4)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        message = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{argv[0]} failed ({code}): {message[-2000:]}")
    return elapsed, usage.ru_maxrss


def run_parallel(commands: list[list[str]]) -> tuple[float, int]:
    """Wall seconds for processes started together (no RSS: reported as 0)."""
    start = time.perf_counter()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    for process in processes:
        if process.wait() != 0:
            raise SystemExit(f"{process.args} failed")
    return time.perf_counter() - start, 0


def warm(paths: list[Path]) -> None:
    """Read every file once so each tool meets the same warm page cache."""
    for path in paths:
        with path.open("rb") as stream:
            while stream.read(8 << 20):
                pass


def best(repeat: int, measure: Callable[[], tuple[float, int]]) -> tuple[float, int]:
    """Fastest wall time and largest peak RSS over `repeat` runs."""
    results = [measure() for _ in range(repeat)]
    return min(r[0] for r in results), max(r[1] for r in results)
