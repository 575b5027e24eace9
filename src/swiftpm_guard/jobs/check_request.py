"""What the check job is asked: one frozen, validated request, built by the CLI or the action."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.model import CODES, Artifact, Finding
from swiftpm_guard.core.versions import check_version_shape, validate_version
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.swift_locate import validate_swift_option
from swiftpm_guard.sources.workflow_ahead import ReadAhead
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")


@dataclass(frozen=True, slots=True)
class ReadSources:
    """Sources a caller has already read into values, shown by the names it chose.

    The action reads the workspace, other refs of the repository and a run's artifact itself,
    so that findings name repository paths (and annotations land on workflow lines); it hands
    the result to `publish` here instead of as paths to read again.
    """

    artifacts: tuple[Artifact, ...]
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CheckRequest:
    templates: tuple[Path, ...]
    version: str
    artifacts: tuple[Path, ...] = ()
    checksums: tuple[Path, ...] = ()
    frameworks: tuple[str, ...] = ()
    frameworks_from: tuple[WorkflowSpec, ...] = ()
    stubs_dir: Path | None = None
    debug_suffix: str = "_debug"
    version_pattern: str = DEFAULT_VERSION_PATTERN
    warn: frozenset[str] = field(default_factory=frozenset)
    #: Deadline for rendering one Jinja template in its isolated child process.
    render_seconds: float = 20.0
    swift: str = "auto"  # auto | off | PATH of a swift executable
    swift_cache: Path | None = None
    #: Sources already read by the caller; gathered together with the paths above.
    read: ReadSources | None = None
    #: The `frameworks_from` workflows, already being read in child processes (the CLI starts
    #: them before it imports the check); when None, the check reads them itself.
    read_ahead: ReadAhead | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.templates:
            raise UsageError("give at least one --template")
        if not (self.artifacts or self.checksums or self.frameworks or self.frameworks_from
                or self.read is not None):
            raise UsageError("give at least one source: --artifacts, --checksums, "
                             "--frameworks or --frameworks-from")
        validate_version(self.version)
        if not _SUFFIX.fullmatch(self.debug_suffix):
            raise UsageError(f"--debug-suffix {self.debug_suffix!r} is not [A-Za-z0-9_]*")
        try:
            re.compile(self.version_pattern)
        except re.error as error:
            raise UsageError(f"--version-pattern is not a regular expression: {error}") from None
        check_version_shape(self.version, self.version_pattern,
                            custom_pattern=self.version_pattern != DEFAULT_VERSION_PATTERN)
        if not 0 < self.render_seconds <= 600:
            raise UsageError(f"--render-timeout {self.render_seconds} is not in (0, 600]")
        validate_swift_option(self.swift)
        unknown = sorted(self.warn - CODES.keys())
        if unknown:
            raise UsageError(f"--warn {unknown[0]!r} is not a finding code "
                             f"(codes: {', '.join(CODES)})")
