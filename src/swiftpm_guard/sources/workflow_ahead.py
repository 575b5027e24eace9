"""Read the `--frameworks-from` workflows in child processes started before the check's own
work, so PyYAML and tree-sitter-bash load and parse there, on another core, while this process
imports what the check needs.

Each workflow is read by the function the check would call (`read_workflow_frameworks`), in
one child under a deadline and a memory cap; `names()` gives what it returned or raises what
it raised, so a bad workflow is the same one line at the same point of the check as if it had
been read here. Only a crash or a stall of the grammar reads differently: the child itself
dies or is stopped, and the line says the reader did. Nothing is written: a child that is not
needed is killed by `close()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from swiftpm_guard.errors import GuardError, InputError
from swiftpm_guard.infra.bounded import DEFAULT_MEMORY_BYTES, Child, describe, start_in_child
from swiftpm_guard.infra.child_reply import Ended
from swiftpm_guard.limits import WORKFLOW_READ_SECONDS
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

if TYPE_CHECKING:
    from swiftpm_guard.sources.artifacts import DeclaredName


def _read(spec: WorkflowSpec) -> list[DeclaredName]:
    """In the child: read the workflow as the check would (its bash parse in a grandchild)."""
    from swiftpm_guard.sources.workflow import read_workflow_frameworks

    return read_workflow_frameworks(spec)


class ReadAhead:
    """One child per workflow spec, started at construction; use as a context manager."""

    def __init__(self, specs: Sequence[WorkflowSpec], *,
                 seconds: float = WORKFLOW_READ_SECONDS) -> None:
        self.specs = tuple(specs)
        self._seconds = seconds
        self._children: list[Child] = []
        try:
            for spec in self.specs:
                self._children.append(start_in_child(_read, (spec,), seconds=seconds))
        except BaseException:
            self.close()
            raise

    def names(self) -> list[list[DeclaredName]]:
        """Each spec's declared names, in order; raises the error its read raised."""
        return [self._names(spec, child.wait())
                for spec, child in zip(self.specs, self._children, strict=True)]

    def _names(self, spec: WorkflowSpec, ended: Ended) -> list[DeclaredName]:
        if ended.kind == "ok":
            names: list[DeclaredName] = ended.payload
            return names
        if ended.kind == "guard":
            message, _file, _line, error = ended.payload
            if isinstance(error, GuardError):
                raise error
            raise InputError(message)
        why = describe(ended, seconds=self._seconds, memory_bytes=DEFAULT_MEMORY_BYTES)
        raise InputError(f"could not read the workflow: its reader (PyYAML, then "
                         f"tree-sitter-bash on the job's scripts) {why}", file=spec.path)

    def close(self) -> None:
        for child in self._children:
            child.cancel()

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
