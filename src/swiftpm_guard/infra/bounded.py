"""A function in a forked child, under a deadline and a memory cap, and how it ended as a value.

Grammar libraries written in C can crash or go quadratic on hostile text, and a pull request's
Jinja template can loop for hours: only a separate process can be stopped from outside. The
child sends back one pickled `Ended` and leaves through `os._exit`, so it never flushes the
parent's buffers, runs its exit handlers or returns into its stack. Several children may run
side by side (`run_bounded_each`: one zip each, as many as there are CPUs).
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from swiftpm_guard.errors import GuardError, InputError

T = TypeVar("T")

DEFAULT_MEMORY_BYTES = 1 << 30
#: A reply is what our own code computed from capped input; more than this is a runaway.
MAX_REPLY_BYTES = 256 << 20

Kind = Literal["ok", "guard", "memory", "recursion", "raised", "timeout", "died"]


@dataclass(frozen=True, slots=True)
class Ended(Generic[T]):
    """How a child ended: `ok` with `value`; `guard` with the GuardError it raised (`error`,
    when it survived pickling, and its text in `detail`); `memory`, `recursion`, `timeout`;
    `raised` another exception (`detail`: "Type: message"); `died` without answering
    (`detail`: "crashed (SIGSEGV)")."""

    kind: Kind
    value: T | None = None
    detail: str = ""
    error: GuardError | None = None
    line: int | None = None  # a GuardError's line

    def failure(self, seconds: float, memory_bytes: int = DEFAULT_MEMORY_BYTES) -> str:
        """A few words on why there is no value ("did not finish within 10 s")."""
        return {
            "timeout": f"did not finish within {seconds:g} s",
            "memory": f"needed more than {memory_bytes >> 20} MiB",
            "recursion": "nested too deeply",
            "guard": f"failed ({self.detail})",
            "raised": f"failed ({self.detail})",
        }.get(self.kind, self.detail)


def run_bounded(function: Callable[..., T], *args: Any, seconds: float,
                memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Ended[T]:
    """`function(*args)` in a forked child; how it ended. Keep the result plain data."""
    [(_index, ended)] = list(run_bounded_each([(function, args)], seconds=seconds, workers=1,
                                              memory_bytes=memory_bytes))
    return ended


def run_bounded_each(calls: Iterable[tuple[Callable[..., Any], tuple[Any, ...]]], *,
                     seconds: float, workers: int, memory_bytes: int = DEFAULT_MEMORY_BYTES
                     ) -> Generator[tuple[int, Ended[Any]], None, None]:
    """Each `(function, args)` in its own forked child, `workers` side by side, each under
    `seconds` from its start; `(position in calls, how it ended)` as each one ends. `calls`
    is read only when a child may start (so a caller can open a file per call just in time);
    children still running when the caller stops are killed. Call it with no other threads."""
    pending = enumerate(calls)
    running: dict[int, _Child] = {}  # by the read end of its pipe
    ended: list[tuple[int, Ended[Any]]] = []
    poller = select.poll()
    try:
        while True:
            while len(running) < workers and (call := next(pending, None)) is not None:
                index, (function, args) = call
                child = _start(index, function, args, seconds, memory_bytes)
                running[child.channel] = child
                poller.register(child.channel, select.POLLIN)
            yield from ended  # once the next children run: the caller's work overlaps theirs
            ended.clear()
            if not running:
                return
            left = min(child.deadline for child in running.values()) - time.monotonic()
            ready = [fd for fd, _event in poller.poll(max(left, 0) * 1000)] if left > 0 else []
            for child in list(running.values()):
                if child.channel in ready:
                    reply = child.read()
                elif time.monotonic() >= child.deadline:
                    reply = None
                else:
                    continue
                if reply is _MORE:
                    continue
                poller.unregister(child.channel)
                del running[child.channel]
                ended.append((child.index, child.end(reply)))
    finally:
        for child in running.values():
            child.end(None)


#: What `_Child.read` returns while the child's reply is still coming (compared by identity),
#: and for a reply over MAX_REPLY_BYTES.
_MORE = b"\0more"
_OVERSIZE = b"\0oversize"


@dataclass(slots=True)
class _Child:
    """One forked child: the read end of its pipe, its deadline and what it wrote so far."""

    index: int
    pid: int
    channel: int
    deadline: float
    chunks: list[bytes]
    size: int = 0

    def read(self) -> bytes:
        """What one read brings: _MORE while it writes, all it wrote at end of file."""
        chunk = os.read(self.channel, 1 << 20)
        if not chunk:
            return b"".join(self.chunks)
        self.size += len(chunk)
        if self.size > MAX_REPLY_BYTES:
            return _OVERSIZE
        self.chunks.append(chunk)
        return _MORE

    def end(self, reply: bytes | None) -> Ended[Any]:
        """How it ended, from its whole reply (None: it did not answer in time); reaped."""
        os.close(self.channel)
        if reply is None or reply is _OVERSIZE:
            _reap(self.pid, kill=True)
            if reply is None:
                return Ended("timeout")
            return Ended("raised",
                         detail=f"answered with more than {MAX_REPLY_BYTES >> 20} MiB")
        status = _reap(self.pid, kill=False)
        if not reply:
            return Ended("died", detail=_death(status))
        ended: Ended[Any] = pickle.loads(reply)
        return ended


def _start(index: int, function: Callable[..., Any], args: tuple[Any, ...], seconds: float,
           memory_bytes: int) -> _Child:
    read_fd, write_fd = os.pipe()
    deadline = time.monotonic() + seconds
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _serve(write_fd, function, args, memory_bytes)
    os.close(write_fd)
    return _Child(index, pid, read_fd, deadline, [])


def call_isolated(function: Callable[..., T], *args: Any, file: str, seconds: float,
                  memory_bytes: int = DEFAULT_MEMORY_BYTES) -> T:
    """`function(*args)` in a bounded child; an overrun or a failure is an InputError naming
    `file`, and a GuardError raised there is raised here with its text and line."""
    ended = run_bounded(function, *args, seconds=seconds, memory_bytes=memory_bytes)
    if ended.kind == "ok":
        return ended.value  # type: ignore[return-value]
    if ended.kind == "guard":
        raise _Relayed(ended.detail, ended.line)
    messages = {
        "timeout": f"rendering did not finish within {seconds:g} s; stopped it",
        "memory": f"rendering needed more than {memory_bytes >> 20} MiB; stopped it",
        "recursion": "rendering failed: RecursionError: nested too deeply",
        "raised": f"rendering failed: {ended.detail}",
    }
    raise InputError(messages.get(ended.kind, f"rendering {ended.detail}"), file=file)


class _Relayed(InputError):
    """An InputError raised in the child, raised again here with its text and line intact."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def _serve(channel: int, function: Callable[..., Any], args: tuple[Any, ...],
           memory_bytes: int) -> None:
    """The child's whole life: run, write one pickled `Ended`, `_exit` whatever happens."""
    code = 0
    try:
        faulthandler.disable()  # a crash is an answer for the parent, not a dump in the log
        _write_all(channel, _reply(function, args, memory_bytes))
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _reply(function: Callable[..., Any], args: tuple[Any, ...], memory_bytes: int) -> bytes:
    try:
        cap_memory(memory_bytes)
        ended: Ended[Any] = Ended("ok", function(*args))
    except GuardError as error:
        ended = Ended("guard", detail=str(error), error=_portable(error),
                      line=getattr(error, "line", None))
    except MemoryError:
        ended = Ended("memory")
    except RecursionError:
        ended = Ended("recursion")
    except BaseException as error:  # any failure is an answer, never a traceback on stderr
        ended = Ended("raised", detail=f"{type(error).__name__}: {error}".strip().rstrip(":"))
    try:
        return pickle.dumps(ended, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        return pickle.dumps(Ended("raised", detail=f"its result could not be sent back ({error})"))


def _portable(error: GuardError) -> GuardError | None:
    """The error itself when it survives pickling (the parent raises it again as it was)."""
    try:
        copy = pickle.loads(pickle.dumps(error))
    except Exception:  # a subclass whose constructor pickle cannot call again
        return None
    return copy if type(copy) is type(error) and str(copy) == str(error) else None


def cap_memory(memory_bytes: int) -> None:
    """RLIMIT_AS at what the child holds now plus `memory_bytes`.

    Without /proc (macOS runners) there is no cheap reading of the address space, and macOS
    does not enforce RLIMIT_AS anyway: there the deadline alone bounds the child.
    """
    import resource

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


def _write_all(channel: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(channel, view):]
    os.close(channel)


def _reap(pid: int, *, kill: bool) -> int:
    """The child's wait status; killed first when it did not answer in time. A child that
    closed its pipe has answered or died, and leaves at once through `os._exit`."""
    if kill:
        os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"crashed ({signal.Signals(number).name})"
        except ValueError:
            return f"crashed (signal {number})"
    return f"died (exit status {os.waitstatus_to_exitcode(status)})"
