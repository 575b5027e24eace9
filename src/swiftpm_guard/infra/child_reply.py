"""The child's side of a bounded call: run the function under the memory cap and turn
whatever happens into one pickled reply (`infra.bounded` is the parent's side).

Every way of failing is an answer (`Ended`), never a traceback on the parent's stderr: the
function's result, a GuardError to raise again, running out of memory or stack, or any other
exception by type and message.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple

from swiftpm_guard.errors import GuardError


class Ended(NamedTuple):
    """How a child ended: `kind` is one of

    - `ok`: `payload` is the function's result;
    - `guard`: it raised a GuardError; `payload` is (message, file, line, the error itself,
      or None when it cannot travel);
    - `memory`: it ran out of its memory cap; `recursion`: it nested too deeply;
    - `raised`: another exception; `payload` is "Type: message";
    - `timeout`: it did not answer within the deadline and was killed;
    - `died`: it exited without answering; `payload` says how ("crashed (SIGSEGV)").
    """

    kind: str
    payload: Any = None


def ended_from(reply: bytes | None, death: Callable[[], str]) -> Ended:
    """The parent's reading of what a child sent: None (the deadline passed first) is a
    timeout, nothing at all is a death (`death()` says how), else the pickled answer."""
    import pickle

    if reply is None:
        return Ended("timeout")
    if not reply:
        return Ended("died", death())
    kind, payload = pickle.loads(reply)
    return Ended(kind, payload)


def reply_for(function: Callable[..., Any], args: tuple[Any, ...], memory_bytes: int) -> bytes:
    import pickle

    try:
        cap_memory(memory_bytes)
        answer: tuple[str, Any] = ("ok", function(*args))
    except GuardError as error:
        answer = ("guard", (str(error), getattr(error, "file", None),
                            getattr(error, "line", None), _portable(error)))
    except MemoryError:
        answer = ("memory", None)
    except RecursionError:
        answer = ("recursion", None)
    except BaseException as error:  # any failure is an answer, never a traceback on stderr
        answer = ("raised", f"{type(error).__name__}: {error}".strip().rstrip(":"))
    try:
        return pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        return pickle.dumps(("raised", f"its result could not be sent back ({error})"))


def _portable(error: GuardError) -> GuardError | None:
    """The error itself when it survives pickling (the parent re-raises it as it was)."""
    import pickle

    try:
        copy = pickle.loads(pickle.dumps(error))
    except Exception:  # a subclass whose constructor pickle cannot call again
        return None
    return copy if type(copy) is type(error) and str(copy) == str(error) else None


def cap_memory(memory_bytes: int) -> None:
    """RLIMIT_AS at what the child holds now plus `memory_bytes`.

    Without /proc (macOS runners) there is no cheap way to read the address space, and macOS
    does not enforce RLIMIT_AS anyway: there the deadline alone bounds the child (and on
    Windows, which has no `resource` module at all).
    """
    try:
        import resource
    except ImportError:
        return
    try:
        with open("/proc/self/statm", "rb") as stream:
            used = int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return
    limit = used + memory_bytes
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)  # a child of a child: never above the cap it inherited
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def write_all(channel: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(channel, view):]
    os.close(channel)
