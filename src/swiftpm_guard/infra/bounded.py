"""Run a function in a forked child with a deadline and a memory cap, and say how it ended.

Grammar libraries written in C can crash (a segfault takes the whole process with it) or go
quadratic on hostile input, and a PR's Jinja template can loop for hours. In a child, a crash
is an exit status and a runaway is a kill; the caller gets a value either way and decides what
it means (a finding, a bad-input error).

A bare `os.fork` and a pipe, not multiprocessing: a check forks twice (bash, Swift), and
multiprocessing's import and process bookkeeping cost more than the parses themselves; the child
here also never flushes the parent's buffered output, never runs its atexit handlers, and never
returns into the parent's stack.
"""

from __future__ import annotations

import faulthandler
import os
import select
import signal
import time
from collections.abc import Callable
from typing import Any, Generic, NamedTuple, TypeVar

from swiftpm_guard.errors import GuardError

T = TypeVar("T")

DEFAULT_MEMORY_BYTES = 1 << 30
#: A reply is what our own code computed from capped input; more than this is a runaway.
MAX_REPLY_BYTES = 256 << 20
#: How long a child that has answered may take to exit before it is killed.
EXIT_GRACE_SECONDS = 5.0


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


class Bounded(NamedTuple, Generic[T]):
    """`value` when the child finished; else `failure` says why in a few words."""

    value: T | None
    failure: str | None = None


def run_bounded(function: Callable[..., T], *args: Any, seconds: float,
                memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Bounded[T]:
    """`function(*args)` in a forked child: its result, or why there is none.

    The result travels back pickled, so keep it to plain data and frozen values.
    """
    ended = call_in_child(function, args, seconds=seconds, memory_bytes=memory_bytes)
    if ended.kind == "ok":
        return Bounded(ended.payload)
    return Bounded(None, describe(ended, seconds=seconds, memory_bytes=memory_bytes))


def describe(ended: Ended, *, seconds: float, memory_bytes: int) -> str:
    """A few words on why a child gave no result ("did not finish within 10 s")."""
    if ended.kind == "timeout":
        return f"did not finish within {seconds:g} s"
    if ended.kind == "memory":
        return f"needed more than {memory_bytes >> 20} MiB"
    if ended.kind == "recursion":
        return "nested too deeply"
    if ended.kind == "guard":
        return f"failed ({ended.payload[0]})"
    if ended.kind == "raised":
        return f"failed ({ended.payload})"
    return str(ended.payload)


def call_in_child(function: Callable[..., Any], args: tuple[Any, ...], *, seconds: float,
                  memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Ended:
    """Fork, run `function(*args)` in the child under the caps, and say how it ended."""
    return start_in_child(function, args, seconds=seconds, memory_bytes=memory_bytes).wait()


def start_in_child(function: Callable[..., Any], args: tuple[Any, ...], *, seconds: float,
                   memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Child:
    """Fork now and run `function(*args)` in the child; `wait()` for how it ended.

    The deadline counts from now. Started before the parent's own slow work (its imports),
    the child's work runs beside it on another core instead of after it. Where there is no
    fork (Windows runners, with the composite action) the child is a spawned interpreter.
    """
    if not hasattr(os, "fork"):
        return Spawned(function, args, seconds=seconds, memory_bytes=memory_bytes)
    read_fd, write_fd = os.pipe()
    deadline = time.monotonic() + seconds
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _serve(write_fd, function, args, memory_bytes)
    os.close(write_fd)
    return Running(pid, read_fd, deadline)


class Running:
    """A child started by `start_in_child`: wait for it once, or cancel it (kill, reap)."""

    def __init__(self, pid: int, channel: int, deadline: float) -> None:
        self._pid = pid
        self._channel = channel
        self._deadline = deadline
        self._ended: Ended | None = None

    def wait(self) -> Ended:
        """How the child ended; at the deadline it is killed and the answer is `timeout`."""
        if self._ended is not None:
            return self._ended
        import pickle  # only when a child is made: pickle is not cheap to import

        reply: bytes | None = None
        try:
            reply = _read_reply(self._channel, self._deadline)
        finally:
            # A child that answered is exiting; one that did not (deadline, our own
            # interrupt) is killed at once.
            status = self._finish(EXIT_GRACE_SECONDS if reply is not None else 0.0)
        if reply is None:
            self._ended = Ended("timeout")
        elif reply is _OVERSIZE:
            self._ended = Ended("raised",
                                f"answered with more than {MAX_REPLY_BYTES >> 20} MiB")
        elif not reply:
            self._ended = Ended("died", _death(status))
        else:
            self._ended = Ended(*pickle.loads(reply))
        return self._ended

    def cancel(self) -> None:
        """Kill the child if it has not been waited for (nothing is left running)."""
        if self._ended is None and self._channel >= 0:
            self._finish(0.0)
            self._ended = Ended("timeout")

    def _finish(self, grace: float) -> int:
        os.close(self._channel)
        self._channel = -1
        return _reap(self._pid, grace)


class Spawned:
    """`Running` where there is no fork: a fresh interpreter (multiprocessing's spawn) runs
    the function, so it must be importable by name; slower to start, bounded the same way
    (but for the memory cap, which needs RLIMIT_AS)."""

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], *, seconds: float,
                 memory_bytes: int) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._receiver, sender = context.Pipe(duplex=False)
        self._deadline = time.monotonic() + seconds
        self._process = context.Process(target=_spawned_main,
                                        args=(sender, function, args, memory_bytes), daemon=True)
        self._process.start()
        sender.close()
        self._ended: Ended | None = None

    def wait(self) -> Ended:
        if self._ended is not None:
            return self._ended
        import pickle

        reply: bytes | None = None
        try:
            left = max(0.0, self._deadline - time.monotonic())
            reply = self._receiver.recv_bytes() if self._receiver.poll(left) else None
        except EOFError:
            reply = b""
        finally:
            # As for a forked child: one that answered may exit; one that did not is killed.
            self.cancel_process(grace=EXIT_GRACE_SECONDS if reply is not None else 0.0)
        if reply is None:
            self._ended = Ended("timeout")
        elif not reply:
            self._ended = Ended("died", f"died (exit status {self._process.exitcode})")
        else:
            self._ended = Ended(*pickle.loads(reply))
        return self._ended

    def cancel(self) -> None:
        if self._ended is None:
            self.cancel_process(grace=0.0)
            self._ended = Ended("timeout")

    def cancel_process(self, *, grace: float) -> None:
        self._receiver.close()
        self._process.join(grace)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(EXIT_GRACE_SECONDS)


#: A started child, forked or spawned.
Child = Running | Spawned


def _spawned_main(sender: Any, function: Callable[..., Any], args: tuple[Any, ...],
                  memory_bytes: int) -> None:
    sender.send_bytes(_reply(function, args, memory_bytes))
    sender.close()


def _serve(channel: int, function: Callable[..., Any], args: tuple[Any, ...],
           memory_bytes: int) -> None:
    """The child's whole life: run, write one pickled reply, `_exit` whatever happens."""
    code = 0
    try:
        # A crash here is an answer for the parent; no "Fatal Python error" dump in the log.
        faulthandler.disable()
        _write_all(channel, _reply(function, args, memory_bytes))
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _reply(function: Callable[..., Any], args: tuple[Any, ...], memory_bytes: int) -> bytes:
    import pickle

    try:
        _cap_memory(memory_bytes)
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


def _cap_memory(memory_bytes: int) -> None:
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


def _write_all(channel: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(channel, view):]
    os.close(channel)


#: What `_read_reply` returns for a reply over MAX_REPLY_BYTES (compared by identity).
_OVERSIZE = b"\0oversize"


def _read_reply(channel: int, deadline: float) -> bytes | None:
    """Everything the child wrote, up to end of file; None when the deadline passed first."""
    poller = select.poll()
    poller.register(channel, select.POLLIN)
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            return None
        chunk = os.read(channel, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            return _OVERSIZE
        chunks.append(chunk)


def _reap(pid: int, grace: float) -> int:
    """The child's wait status, killing it if it has not exited within `grace` seconds."""
    stop = time.monotonic() + grace
    pause = 0.00005  # an answered child exits within microseconds; a wedged one is waited out
    while time.monotonic() < stop:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
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
