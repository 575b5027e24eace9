"""What a consumer gets: SwiftPM's own `swift package resolve` output, read per binary target.

The lines matched are SwiftPM's (Swift 6.0, Workspace/Diagnostics.swift and
Commands/CommandWorkspaceDelegate.swift): "Downloading binary artifact URL", "Downloaded URL"
(after the checksum and the archive passed) and errors naming "binary target 'NAME'". Failed:
an error names the target. Accepted: the resolve succeeded, or "Downloaded" was said for its
URL, or its download started and no error names it (SwiftPM stops saying "Downloaded" once a
target failed, but names each failure). Otherwise: not reached.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.model import Finding, Location, Severity

_DOWNLOADING = re.compile(r"^(?:Downloading|Fetching) binary artifact (\S+)(?: from cache)?\s*$")
_DOWNLOADED = re.compile(r"^(?:Downloaded|Fetched) (\S+) (?:from cache )?\([0-9.]+s\)\s*$")
_ERROR = re.compile(r"^(?:.*?: )?error: (.*)$")
_TARGET = re.compile(r"binary target '([A-Za-z0-9_]+)'")
#: A compiler error in the dependency's manifest: the rendered manifest's own line.
_MANIFEST_LINE = re.compile(r"/dependency/Package\.swift:([0-9]+):[0-9]+: error: ")
#: SwiftPM's summary line after per-target errors: says nothing of its own.
_NOISE = frozenset({"fatalError"})
#: SwiftPM appends the whole swiftc command line to "Invalid manifest"; the cause follows it.
_COMPILED_WITH = re.compile(r" \(compiled with: .*\)$")
#: How SwiftPM words each stage's failure, most specific first.
_KINDS = (
    ("checksum", re.compile(r"^checksum of downloaded artifact")),
    ("download", re.compile(r"^failed downloading ")),
    ("invalid-archive", re.compile(r"^(invalid archive returned from|failed validating archive)")),
    ("extract", re.compile(r"^failed extracting ")),
    ("no-artifact", re.compile(r"does not contain a binary artifact")),
    ("checksum-changed", re.compile(r"has changed checksum")),
)


class State(enum.StrEnum):
    ACCEPTED = "accepted"  # downloaded, checksum verified, archive accepted
    FAILED = "failed"  # SwiftPM named the target in an error
    NOT_REACHED = "not-reached"  # the resolve failed before SwiftPM said anything of it


@dataclass(frozen=True, slots=True)
class ResolveTarget:
    """One binary target the consumer will download: where from, and what it must hash to."""

    name: str
    url: str
    checksum: str | None
    location: Location


@dataclass(frozen=True, slots=True)
class TargetOutcome:
    name: str
    url: str
    state: State
    downloaded: bool  # SwiftPM started downloading it
    errors: tuple[str, ...] = ()  # SwiftPM's own error lines naming it
    kind: str | None = None  # checksum, download, invalid-archive, extract, no-artifact, other

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "url": self.url, "state": str(self.state),
                "downloaded": self.downloaded, "errors": list(self.errors), "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Resolution:
    """SwiftPM's verdict on one rendered manifest."""

    manifest: str  # the manifest's path, for findings
    exit_code: int
    targets: tuple[TargetOutcome, ...]
    other_errors: tuple[str, ...] = ()  # errors naming no binary target (a manifest error)
    unknown_urls: tuple[str, ...] = ()  # URLs SwiftPM downloaded that no target computes
    error_line: int | None = None  # the manifest line of the first compiler error, if any

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and all(t.state is State.ACCEPTED for t in self.targets)


def error_kind(message: str) -> str:
    for kind, pattern in _KINDS:
        if pattern.search(message):
            return kind
    return "other"


def interpret(manifest: str, targets: Sequence[ResolveTarget], exit_code: int,
              output: str) -> Resolution:
    """One outcome per target from `swift package resolve`'s exit code and combined output."""
    by_url = {t.url: t.name for t in targets}
    started: set[str] = set()
    finished: set[str] = set()
    errors: dict[str, list[str]] = {t.name: [] for t in targets}
    other: list[str] = []
    unknown: list[str] = []
    error_line: int | None = None
    for line in _lines(output):
        if match := _DOWNLOADING.match(line):
            _note(match.group(1), by_url, started, unknown)
        elif match := _DOWNLOADED.match(line):
            _note(match.group(1), by_url, finished, unknown)
        elif match := _ERROR.match(line):
            message = _COMPILED_WITH.sub("", match.group(1).strip())
            named = _TARGET.search(message)
            if named and named.group(1) in errors:
                errors[named.group(1)].append(message)
            elif message not in _NOISE:
                other.append(message)
                at = _MANIFEST_LINE.search(line)
                if at is not None and error_line is None:
                    error_line = int(at.group(1))
    outcomes = tuple(_outcome(t, exit_code, started, finished, errors[t.name]) for t in targets)
    return Resolution(manifest, exit_code, outcomes, tuple(dict.fromkeys(other)),
                      tuple(dict.fromkeys(unknown)), error_line)


def _lines(output: str) -> list[str]:
    # SwiftPM redraws its progress bar with carriage returns; every piece is a line of its own.
    return [piece.strip() for line in split_lines(output) for piece in line.split("\r")]


def _note(url: str, by_url: dict[str, str], seen: set[str], unknown: list[str]) -> None:
    name = by_url.get(url)
    if name is None:
        unknown.append(url)
    else:
        seen.add(name)


def _outcome(target: ResolveTarget, exit_code: int, started: set[str], finished: set[str],
             errors: list[str]) -> TargetOutcome:
    downloaded = target.name in started or target.name in finished
    if errors:
        return TargetOutcome(target.name, target.url, State.FAILED, downloaded,
                             tuple(dict.fromkeys(errors)), error_kind(errors[0]))
    if target.name in finished or target.name in started or exit_code == 0:
        return TargetOutcome(target.name, target.url, State.ACCEPTED, downloaded)
    return TargetOutcome(target.name, target.url, State.NOT_REACHED, downloaded)


def findings(resolution: Resolution, targets: Sequence[ResolveTarget]) -> list[Finding]:
    """`resolve-failed` per target SwiftPM rejected (its exact words); `resolve-error` when
    the resolve failed for reasons naming no target, or left targets unproven; `resolved`
    (notice) per target a consumer will get."""
    where = {t.name: t.location for t in targets}
    found: list[Finding] = []
    for outcome in resolution.targets:
        location = where.get(outcome.name, Location(resolution.manifest))
        if outcome.state is State.FAILED:
            found.append(Finding(
                "resolve-failed", Severity.ERROR, outcome.name,
                f"SwiftPM cannot resolve binary target '{outcome.name}': "
                + "; ".join(outcome.errors), location.file, location.line))
        elif outcome.state is State.ACCEPTED:
            found.append(Finding(
                "resolved", Severity.NOTICE, outcome.name,
                f"SwiftPM downloaded {outcome.url}, verified its checksum and accepted the "
                "archive", location.file, location.line))
    unproven = [o.name for o in resolution.targets if o.state is State.NOT_REACHED]
    if resolution.exit_code != 0 and (resolution.other_errors or unproven):
        said = "; ".join(resolution.other_errors) or f"exit code {resolution.exit_code}"
        tail = f" (not reached: {', '.join(unproven)})" if unproven else ""
        found.append(Finding("resolve-error", Severity.ERROR, resolution.manifest,
                             f"swift package resolve failed: {said}{tail}",
                             resolution.manifest, resolution.error_line))
    for url in resolution.unknown_urls:
        found.append(Finding("resolve-error", Severity.ERROR, url,
                             f"SwiftPM downloaded {url}, which no binary target's computed URL "
                             "names (is --url-template right?)", resolution.manifest))
    return found
