"""`--frameworks-from WORKFLOW.yml:JOB:VAR`: which workflow, job and bash array to read.

Apart from the reader (`sources.workflow`, which imports PyYAML) so that naming a workflow
costs nothing: the command line parses these before it starts reading them in a child.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from swiftpm_guard.errors import InputError

_VAR_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JOB_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class WorkflowSpec(NamedTuple):
    path: str
    job: str
    var: str

    @classmethod
    def parse(cls, spec: str) -> WorkflowSpec:
        """`WORKFLOW.yml:JOB:VAR` (the path may itself hold colons)."""
        parts = spec.rsplit(":", 2)
        if len(parts) != 3 or not all(parts):
            raise InputError(f"--frameworks-from expects WORKFLOW.yml:JOB:VAR, got {spec!r}")
        path, job, var = parts
        if not _JOB_RE.fullmatch(job):
            raise InputError(f"job id {job!r} is not a valid workflow job id")
        if not _VAR_RE.fullmatch(var):
            raise InputError(f"{var!r} is not a bash variable name")
        return cls(path, job, var)
