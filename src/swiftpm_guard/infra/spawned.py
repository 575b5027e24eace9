"""Bounded children where there is no fork (Windows runners, with the composite action): a
spawned interpreter runs the function, so it must be importable by name. Slower to start,
bounded the same way but for the memory cap (RLIMIT_AS is POSIX)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from swiftpm_guard.infra.child_reply import Ended, ended_from, reply_for

#: How long a child that has answered may take to exit before it is killed.
EXIT_GRACE_SECONDS = 5.0


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
        reply: bytes | None = None
        try:
            left = max(0.0, self._deadline - time.monotonic())
            reply = self._receiver.recv_bytes() if self._receiver.poll(left) else None
        except EOFError:
            reply = b""
        finally:
            # As for a forked child: one that answered may exit; one that did not is killed.
            self.cancel_process(grace=EXIT_GRACE_SECONDS if reply is not None else 0.0)
        self._ended = ended_from(reply, lambda: f"died (exit status {self._process.exitcode})")
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


def _spawned_main(sender: Any, function: Callable[..., Any], args: tuple[Any, ...],
                  memory_bytes: int) -> None:
    sender.send_bytes(reply_for(function, args, memory_bytes))
    sender.close()
