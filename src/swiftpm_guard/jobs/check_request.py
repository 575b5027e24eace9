"""What the check job is asked: one frozen, validated request, built by the CLI or the action."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.model import CODES, Artifact, Finding
from swiftpm_guard.core.versions import check_against_pattern, validate_version
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.prepared import Prepared
from swiftpm_guard.infra.swift_locate import validate_swift_option
from swiftpm_guard.sources.workflow_ahead import ReadAhead
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")


class ReadSources(NamedTuple):
    """Sources a caller has already read into values, shown by the names it chose.

    The action reads the workspace, other refs of the repository and a run's artifact itself,
    so that findings name repository paths (and annotations land on workflow lines); it hands
    the result to `publish` here instead of as paths to read again.
    """

    artifacts: tuple[Artifact, ...]
    findings: tuple[Finding, ...] = ()


class _Fields(NamedTuple):
    templates: tuple[Path, ...]
    version: str
    artifacts: tuple[Path, ...] = ()
    checksums: tuple[Path, ...] = ()
    frameworks: tuple[str, ...] = ()
    frameworks_from: tuple[WorkflowSpec, ...] = ()
    stubs_dir: Path | None = None
    debug_suffix: str = "_debug"
    version_pattern: str = DEFAULT_VERSION_PATTERN
    warn: frozenset[str] = frozenset()
    #: Deadline for rendering one Jinja template in its isolated child process.
    render_seconds: float = 20.0
    swift: str = "auto"  # auto | off | PATH of a swift executable
    swift_cache: Path | None = None
    #: Sources already read by the caller; gathered together with the paths above.
    read: ReadSources | None = None
    #: The `frameworks_from` workflows, already being read in child processes (the CLI starts
    #: them before it imports the check); when None, the check reads them itself.
    read_ahead: ReadAhead | None = None
    #: A child that has loaded tree-sitter-swift already (the CLI starts it early), for the
    #: syntax check when there is no SwiftPM; when None, that check forks its own.
    syntax_child: Prepared | None = None


_DEFAULT = _Fields._field_defaults


class CheckRequest(_Fields):
    """A check's whole request, validated when made (exit 2 for bad usage).

    A NamedTuple like the values it carries (see core.model for why); `__new__` takes keywords
    only, with the defaults of the fields above, and refuses a request that cannot be run.
    """

    __slots__ = ()

    def __new__(  # one keyword per field, as the CLI and the action name them
        cls, *, templates: tuple[Path, ...], version: str,
        artifacts: tuple[Path, ...] = _DEFAULT["artifacts"],
        checksums: tuple[Path, ...] = _DEFAULT["checksums"],
        frameworks: tuple[str, ...] = _DEFAULT["frameworks"],
        frameworks_from: tuple[WorkflowSpec, ...] = _DEFAULT["frameworks_from"],
        stubs_dir: Path | None = _DEFAULT["stubs_dir"],
        debug_suffix: str = _DEFAULT["debug_suffix"],
        version_pattern: str = _DEFAULT["version_pattern"],
        warn: frozenset[str] = _DEFAULT["warn"],
        render_seconds: float = _DEFAULT["render_seconds"],
        swift: str = _DEFAULT["swift"],
        swift_cache: Path | None = _DEFAULT["swift_cache"],
        read: ReadSources | None = _DEFAULT["read"],
        read_ahead: ReadAhead | None = _DEFAULT["read_ahead"],
        syntax_child: Prepared | None = _DEFAULT["syntax_child"],
    ) -> CheckRequest:
        request = super().__new__(
            cls, templates=templates, version=version, artifacts=artifacts,
            checksums=checksums, frameworks=frameworks, frameworks_from=frameworks_from,
            stubs_dir=stubs_dir, debug_suffix=debug_suffix, version_pattern=version_pattern,
            warn=warn, render_seconds=render_seconds, swift=swift, swift_cache=swift_cache,
            read=read, read_ahead=read_ahead, syntax_child=syntax_child)
        request._validate()
        return request

    def _validate(self) -> None:
        if not self.templates:
            raise UsageError("give at least one --template")
        if not (self.artifacts or self.checksums or self.frameworks or self.frameworks_from
                or self.read is not None):
            raise UsageError("give at least one source: --artifacts, --checksums, "
                             "--frameworks or --frameworks-from")
        validate_version(self.version)
        if not _SUFFIX.fullmatch(self.debug_suffix):
            raise UsageError(f"--debug-suffix {self.debug_suffix!r} is not [A-Za-z0-9_]*")
        check_against_pattern(self.version, self.version_pattern,
                              custom_pattern=self.version_pattern != DEFAULT_VERSION_PATTERN)
        if not 0 < self.render_seconds <= 600:
            raise UsageError(f"--render-timeout {self.render_seconds} is not in (0, 600]")
        validate_swift_option(self.swift)
        unknown = sorted(self.warn - CODES.keys())
        if unknown:
            raise UsageError(f"--warn {unknown[0]!r} is not a finding code "
                             f"(codes: {', '.join(CODES)})")
