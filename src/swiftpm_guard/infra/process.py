"""The one way the package starts a program (git, swift): in a process group of its own, with a
wall-clock deadline and a cap on what it may print, and its whole group stopped at either.

A program we start may start others (git-remote-http, ssh, swift-frontend) that keep its pipes
open: so the group is killed, not the process, and after a kill our ends of the pipes are
closed rather than read to an end that an escaped helper could postpone forever.
"""

from __future__ import annotations

import contextlib
import os
import select
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from swiftpm_guard.errors import InfrastructureError, Overrun

#: Far above anything a command we run prints (a 32 MiB template export, SwiftPM's log).
OUTPUT_MAX_BYTES = 256 << 20
_CHUNK = 1 << 16
_PIPE_BUF = select.PIPE_BUF  # what a writable pipe takes without blocking


@dataclass(frozen=True, slots=True)
class Done:
    """How a program ended: its exit code (negative: the signal that killed it) and output
    (`stderr` empty when it was merged into `stdout`)."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes = b""


def run(argv: Sequence[str], *, env: Mapping[str, str], cwd: str | Path, timeout: float,
        stdin: bytes | None = None, merge_stderr: bool = False, grace: float = 0.0,
        max_output: int = OUTPUT_MAX_BYTES) -> Done:
    """`argv` in a new session with exactly `env`; never raises on the program's own failure.

    Past `timeout` seconds, or past `max_output` bytes printed, the group gets SIGTERM (when
    `grace` gives it that long to clean up) then SIGKILL, and Overrun is raised; a program that
    cannot be started is an InfrastructureError.
    """
    name = os.path.basename(argv[0])
    try:
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        raise InfrastructureError(f"cannot run {name}: {error.strerror or error}") from None
    with process:
        try:
            out, err = _exchange(process, name, stdin, timeout, max_output)
        except Overrun:
            _stop_group(process, grace)
            raise
        process.wait()
    return Done(tuple(argv), process.returncode, out, err)


def _exchange(process: subprocess.Popen[bytes], name: str, data: bytes | None,
              timeout: float, limit: int) -> tuple[bytes, bytes]:
    """Feed `data` to the program and read its output until both pipes close."""
    deadline = time.monotonic() + timeout
    chunks: dict[IO[bytes], list[bytes]] = {}
    with selectors.DefaultSelector() as selector:
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                chunks[stream] = []
                selector.register(stream, selectors.EVENT_READ)
        view = memoryview(data or b"")
        if process.stdin is not None:
            if view:
                selector.register(process.stdin, selectors.EVENT_WRITE)
            else:
                process.stdin.close()
        size = 0
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise Overrun(name, f"did not finish within {timeout:g} s", timeout=True)
            for key, _events in selector.select(left):
                stream = cast("IO[bytes]", key.fileobj)
                if stream is process.stdin:
                    view = _feed(selector, stream, view)
                    continue
                chunk = os.read(stream.fileno(), _CHUNK)
                if not chunk:
                    selector.unregister(stream)
                    stream.close()
                    continue
                size += len(chunk)
                if size > limit:
                    raise Overrun(name, f"printed more than {limit >> 20} MiB", timeout=False)
                chunks[stream].append(chunk)
    out = b"".join(chunks.get(process.stdout, [])) if process.stdout else b""
    err = b"".join(chunks.get(process.stderr, [])) if process.stderr else b""
    return out, err


def _feed(selector: selectors.BaseSelector, stdin: IO[bytes], view: memoryview) -> memoryview:
    """Write what the pipe takes now; close it when all is written or the reader left."""
    try:
        view = view[os.write(stdin.fileno(), view[:_PIPE_BUF]):]
    except BrokenPipeError:
        view = view[:0]
    if not view:
        selector.unregister(stdin)
        stdin.close()
    return view


def _stop_group(process: subprocess.Popen[bytes], grace: float) -> None:
    """TERM (when there is a `grace` period) then KILL the group; reap the leader."""
    steps = ((signal.SIGTERM, grace),) if grace > 0 else ()
    for sig, wait in (*steps, (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
