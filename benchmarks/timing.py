"""Shared measuring helpers for the benchmarks: wall time and kernel-measured peak RSS, and the
source tree of an earlier commit to compare with."""

from __future__ import annotations

import compileall
import os
import subprocess
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Mapping
from io import BytesIO
from pathlib import Path
from typing import NamedTuple


class Timed(NamedTuple):
    seconds: float  # wall, from start to the kernel reporting the exit
    cpu_seconds: float  # user + system, the process and the children it waited for
    max_rss_kib: int


def run_exact(argv: list[str], *, ok: Collection[int] = (0,), cwd: Path | None = None,
              env: Mapping[str, str] | None = None, timeout: float = 600.0) -> Timed:
    """One process, timed by a blocking wait4: exact to the microsecond.

    Not `subprocess.run(timeout=…)`: with a timeout its wait polls with sleeps that double up
    to 50 ms, so a 12 ms process is seen to end at ~16 ms and a 90 ms one at ~114 ms. The
    timeout here is a timer that kills the process, off the measured path.
    """
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a chatty child never blocks
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors, cwd=cwd,
                                   env=None if env is None else dict(env))
        watchdog = threading.Timer(timeout, process.kill)
        watchdog.start()
        try:
            _pid, status, usage = os.wait4(process.pid, 0)
        finally:
            watchdog.cancel()
        elapsed = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in ok:
            errors.seek(0)
            message = errors.read()[-2000:].decode(errors="replace")
            raise SystemExit(f"{argv[0]} failed ({code}): {message}")
    return Timed(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def run_timed(argv: list[str], ok: Collection[int] = (0,)) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process, as the kernel reports it (wait4)."""
    timed = run_exact(argv, ok=ok)
    return timed.seconds, timed.max_rss_kib


def run_parallel(commands: list[list[str]]) -> tuple[float, int]:
    """Wall seconds for processes started together (no RSS: reported as 0)."""
    return run_together(commands).seconds, 0


def run_together(commands: list[list[str]]) -> Timed:
    """Processes started together: wall seconds until the last ends, their CPU seconds
    summed (no RSS: reported as 0)."""
    start = time.perf_counter()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    cpu = 0.0
    for process in processes:
        _pid, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
        if process.returncode != 0:
            raise SystemExit(f"{process.args} failed")
    return Timed(time.perf_counter() - start, cpu, 0)


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


def src_at(rev: str, into: Path, *, compiled: bool = False) -> Path:
    """`src/` of commit `rev` (of the repository holding this file), written under `into`;
    the folder to put on PYTHONPATH. `compiled`: byte-compiled too, as an installed tree is."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", rev, "src"],
                             check=True, capture_output=True, timeout=120).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    if compiled:
        compileall.compile_dir(into / "src", quiet=1)
    return into / "src"
