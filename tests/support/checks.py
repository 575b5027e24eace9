"""The check job on sources a test has already read (templates and artifacts as values)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from swiftpm_guard.core.model import Artifact, Finding, Template
from swiftpm_guard.jobs.check import CheckRequest, CheckResult, Sources, judge


def request_for(templates: Sequence[Template], version: str | None, **fields: Any
                ) -> CheckRequest:
    """A request whose sources are already read: only its options matter. Without SwiftPM
    by default, a static reading accepted (the callers test other things)."""
    return CheckRequest(templates=tuple(t.path for t in templates) or ("Package.swift",),
                        version=version, frameworks=("read-already",),
                        **{"swift": "off", "accept_static": True, **fields})


def evaluated(templates: Sequence[Template], artifacts: Sequence[Artifact],
              findings: Sequence[Finding] = (), *, version: str = "1.2.3",
              **fields: Any) -> CheckResult:
    return judge(Sources(tuple(templates), tuple(artifacts), tuple(findings)),
                    request_for(templates, version, **fields))
