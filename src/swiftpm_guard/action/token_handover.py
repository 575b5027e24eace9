"""The tokens leave the process environment before anything runs (issue 32, defence in depth).

The runner hands the action its inputs as environment variables, tokens included, and every
process started with that environment, or able to read `/proc/<pid>/environ` of this one (a
manifest SwiftPM compiles and runs is such code), would see them. So the entry point, when the
environment holds a token input, re-executes itself without those variables and hands them
over on a pipe it wrote and closed before the exec: the new process reads them once, into
memory, and its own environment block never held them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

from swiftpm_guard.errors import UsageError

#: The token inputs, in every spelling the runner or a job could give them.
_TOKEN_INPUTS = ("GITHUB-TOKEN", "GITHUB_TOKEN", "PUSH-TOKEN", "PUSH_TOKEN")
TOKEN_VARIABLES = frozenset(f"INPUT_{name}" for name in _TOKEN_INPUTS)
#: Names the pipe's descriptor for the re-executed process.
FD_VARIABLE = "SWIFTPM_GUARD_TOKENS_FD"
#: Far above any real token, far below a pipe's buffer: the write never blocks.
MAX_BYTES = 16 * 1024


def tokens_in(env: Mapping[str, str]) -> dict[str, str]:
    """The token input variables `env` holds."""
    return {name: value for name, value in env.items() if name in TOKEN_VARIABLES}


def reexec_without_tokens() -> None:
    """Re-execute this program (same interpreter and flags) without the token variables,
    handing them over on a pipe; return only when the environment holds none."""
    tokens = tokens_in(os.environ)
    if not tokens:
        return
    data = json.dumps(tokens).encode("utf-8")
    if len(data) > MAX_BYTES:
        raise UsageError(f"the token inputs hold more than {MAX_BYTES} bytes; not tokens")
    reader, writer = os.pipe()
    os.write(writer, data)
    os.close(writer)
    os.set_inheritable(reader, True)
    env = {name: value for name, value in os.environ.items() if name not in tokens}
    env[FD_VARIABLE] = str(reader)
    os.execve(sys.executable, sys.orig_argv, env)


def handed_over() -> dict[str, str]:
    """The token variables the process before the exec handed over (empty when none were).

    Only a pipe already holding all of its data and closed at the other end is read, without
    blocking: a descriptor number a job put in the environment is not ours and yields nothing.
    """
    number = os.environ.pop(FD_VARIABLE, None)
    if number is None or not number.isdigit() or tokens_in(os.environ):
        return {}
    fd = int(number)
    if fd <= 2:
        return {}  # never ours: the pipe is opened after the standard streams
    try:
        os.set_blocking(fd, False)
        data = _read_to_end(fd)
    except OSError:
        return {}
    finally:
        _close(fd)
    try:
        tokens = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    if not isinstance(tokens, dict):
        return {}
    return {str(k): str(v) for k, v in tokens.items() if k in TOKEN_VARIABLES}


def _read_to_end(fd: int) -> bytes | None:
    """Everything up to end of file, or None when the data is not all there yet."""
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = os.read(fd, MAX_BYTES + 1)
        except BlockingIOError:
            return None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_BYTES:
            return None
        chunks.append(chunk)


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        return
