"""Frozen values that flow from sources through checks to the report, and to the sinks.

Nothing here does I/O; sources build these, checks read them, sinks send them. Change one with
`dataclasses.replace`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

#: What SwiftPM and the placeholder syntax allow in a binary target name.
NAME_RE = re.compile(r"[A-Za-z0-9_]+")
#: SwiftPM compares checksums as strings: only lowercase hex of length 64 matches.
SHA256_RE = re.compile(r"[0-9a-f]{64}")


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"  # informational: what was proven, or what is worth knowing


class Role(enum.StrEnum):
    """What a checksum placeholder becomes in the evaluated manifest."""

    PRODUCT = "product"  # library product + wrapper target with a stub folder
    BINARY_ONLY = "binary-only"  # binary target nobody exposes as a product; no stub
    UNKNOWN = "unknown"  # the template text does not tell


@dataclass(frozen=True, slots=True)
class Location:
    file: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    subject: str
    message: str
    file: str | None = None
    line: int | None = None
    #: The ref whose files gave it (a release line), when that is not the checked-out one.
    ref: str | None = None
    #: What to change where, in words, when the check can say.
    fix: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "severity": str(self.severity), "subject": self.subject,
                "file": self.file, "line": self.line, "message": self.message, "ref": self.ref,
                "fix": self.fix}


@dataclass(frozen=True, slots=True)
class Slice:
    """One library of a built XCFramework, as its `Info.plist` lists it (`AvailableLibraries`),
    with the minimum OS its own bundle's `Info.plist` states (None: not stated, or a static
    library, whose minimum is only in its Mach-O load commands, which the guard does not read)."""

    identifier: str  # LibraryIdentifier: `ios-arm64_x86_64-simulator`
    platform: str  # SupportedPlatform: `ios`, `macos`, `tvos`, `watchos`, `xros`
    variant: str | None  # SupportedPlatformVariant: `simulator`, `maccatalyst`, or none
    architectures: tuple[str, ...]
    path: str = ""  # LibraryPath: `X.framework`, `libX.a`
    minimum_os: str | None = None
    minimum_from: str | None = None  # the Info.plist (in the zip) that stated it


@dataclass(frozen=True, slots=True)
class Artifact:
    """One built (or declared) binary: a name and, when known, its SHA-256.

    `sha256 is None` means declared without a checksum (a PR's framework list).
    `version` is the version carried by the file name, when the source had one.
    """

    name: str
    sha256: str | None
    origin: Location
    file_name: str | None = None
    version: str | None = None
    #: Which kind of source named it, when the reader knew better than its shape shows
    #: (`"workflow"` for a `frameworks-from` array); see `origin_kind`.
    source: str | None = None
    #: The zip's size in bytes, when a built zip was read (what a consumer downloads for it).
    size: int | None = None
    #: The libraries its XCFramework holds, when a built zip was read and its Info.plist
    #: decoded (None: not known, as from a checksums file or a declared name).
    slices: tuple[Slice, ...] | None = None

    @property
    def origin_kind(self) -> str:
        """`zip`, `checksums`, `declared` or `workflow`: where the name (and checksum) came from."""
        if self.source is not None:
            return self.source
        if self.sha256 is None:
            return "declared"
        if self.origin.line is None and self.file_name is not None:
            return "zip"
        return "checksums"


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One occurrence of `__SHA256_<name>__` (or a name a Jinja template read)."""

    name: str
    location: Location
    role: Role = Role.UNKNOWN


@dataclass(frozen=True, slots=True)
class Stub:
    """A stub folder beside the template: `.Package.swift/<product>/`."""

    name: str
    location: Location  # the folder, relative as the user gave it
    has_sources: bool


@dataclass(frozen=True, slots=True)
class Template:
    """A template file's text and what it asks for."""

    path: str
    text: str
    flavour: str  # "placeholder" or "jinja"
    stubs: tuple[Stub, ...] = ()
    stubs_dir: str | None = None
    #: Where the stub folders are on disk, when that is not `stubs_dir` (a template read from
    #: a ref is shown by its path in the ref but sits in a scratch folder).
    stubs_path: str | None = None
    #: A version-specific manifest the template ref holds as is (`Package@swift-6.0.swift`):
    #: published unrendered, so checked as it is (core.manifest_files).
    verbatim: bool = False


@dataclass(frozen=True, slots=True)
class Rendered:
    """A template after substitution: text plus what the substitution saw."""

    template: Template
    text: str
    placeholders: tuple[Placeholder, ...]
    version_used: bool
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True, slots=True)
class TemplateSummary:
    path: str
    placeholders: tuple[str, ...]
    products: int | None
    binary_targets: int | None


@dataclass(frozen=True, slots=True)
class SwiftStatus:
    """Whether the real SwiftPM evaluated the manifests, and if not, why not."""

    used: bool
    reason: str
    seconds: float | None = None
    cached: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"used": self.used, "reason": self.reason, "seconds": self.seconds,
                "cached": self.cached}


@dataclass(frozen=True, slots=True)
class HostedStats:
    """What `--verify-urls` did: URLs fetched, how many served the promised zip, bytes, time."""

    urls: int
    verified: int
    bytes: int
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {"urls": self.urls, "verified": self.verified, "bytes": self.bytes,
                "seconds": round(self.seconds, 3)}

    def sentence(self) -> str:
        size = f"{self.bytes / 1e6:.1f} MB" if self.bytes >= 100_000 else f"{self.bytes} bytes"
        return (f"{self.urls} zip URLs fetched, {self.verified} verified "
                f"({size} in {self.seconds:.1f} s)")


@dataclass(frozen=True, slots=True)
class DownloadWeight:
    """What a consumer downloads: SwiftPM fetches every binary target of a package, used or
    not (release and debug twins alike), so the release's weight is the sum of them all.
    `bytes` is None when no size is known (names only, a checksums file); `previous_bytes`
    when the previous published version's served sizes were not fetched (`previous_note`
    says why)."""

    bytes: int | None
    zips: int
    measured: str  # "built zips" or "served" (the bytes --verify-urls fetched)
    unsized: tuple[str, ...] = ()  # names asked for whose size is not known
    previous_version: str | None = None
    previous_bytes: int | None = None
    previous_note: str | None = None
    limit: str | None = None  # the growth limit as given (`25%`, `500MB`)

    @property
    def change(self) -> int | None:
        if self.bytes is None or self.previous_bytes is None:
            return None
        return self.bytes - self.previous_bytes

    def as_dict(self) -> dict[str, object]:
        return {"bytes": self.bytes, "zips": self.zips, "measured": self.measured,
                "unsized": list(self.unsized), "previous_version": self.previous_version,
                "previous_bytes": self.previous_bytes, "previous_note": self.previous_note,
                "change": self.change, "limit": self.limit}


@dataclass(frozen=True, slots=True)
class Report:
    version: str
    templates: tuple[TemplateSummary, ...]
    placeholders: tuple[str, ...]
    built: tuple[str, ...]
    unfilled: tuple[str, ...]
    unclaimed: tuple[str, ...]
    products: int | None
    binary_targets: int | None
    counts_source: str | None
    findings: tuple[Finding, ...] = ()
    swiftpm: SwiftStatus | None = None
    #: The merged built set, sorted by name: checksums and where each name came from.
    artifacts: tuple[Artifact, ...] = ()
    #: Set when `--verify-urls` ran.
    hosted: HostedStats | None = None
    #: What a consumer downloads, when a version was checked.
    weight: DownloadWeight | None = None

    @property
    def declared(self) -> tuple[str, ...]:
        """Names only declared (a framework list or workflow array): nothing was built."""
        return tuple(a.name for a in self.artifacts if a.sha256 is None)

    @property
    def consistent(self) -> bool:
        return not any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def proof(self) -> str:
        """`swiftpm` when SwiftPM evaluated the manifests, else `static` (unproven)."""
        return "swiftpm" if self.swiftpm is not None and self.swiftpm.used else "static"


@dataclass(frozen=True, slots=True)
class ReleaseLine:
    """One release line a template change was checked against: its ref, the findings its
    framework lists gave, how many names they declare (debug twins included), whether it still
    publishes and when it last did; or why it was skipped."""

    ref: str
    findings: tuple[Finding, ...] = ()
    names: int = 0
    active: bool = True
    last_published: str | None = None
    skipped: str | None = None


@dataclass(frozen=True, slots=True)
class Phrase:
    """A sentence for people with its values marked: `parts` alternate our words and values
    (values at odd positions), so a report shows each value as a code span and a log as is."""

    parts: tuple[str, ...]

    @classmethod
    def of(cls, *parts: str) -> Phrase:
        return cls(tuple(parts))

    def plain(self) -> str:
        return "".join(self.parts)


# -- what a check run carries, within GitHub's limits ------------------------------------------

TITLE_MAX = 255
SUMMARY_MAX = TEXT_MAX = 65535
MESSAGE_MAX_BYTES = 64 * 1024 - 1
ANNOTATIONS_PER_REQUEST = 50
#: 20 requests at most; findings past this are listed in the text instead.
ANNOTATIONS_MAX = 1000
CONCLUSIONS = ("success", "failure", "neutral")


@dataclass(frozen=True, slots=True)
class Annotation:
    path: str
    line: int
    level: str  # the Checks API's word: "failure" or "warning" ("error" is rejected)
    title: str
    message: str

    def as_api(self) -> dict[str, object]:
        return {
            "path": self.path,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": self.level,
            "title": self.title,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class CheckRunOutput:
    conclusion: str
    title: str
    summary: str
    text: str | None
    annotations: tuple[Annotation, ...]
    cut: tuple[str, ...] = ()

    def batches(self) -> list[tuple[Annotation, ...]]:
        """Annotations in requests of at most 50: the create, then one edit per batch."""
        step = ANNOTATIONS_PER_REQUEST
        return [self.annotations[i : i + step] for i in range(0, len(self.annotations), step)]


#: Every finding code, with what it means. `--warn CODE` accepts exactly these.
CODES: dict[str, str] = {
    "unfilled-placeholder": "the template asks for a name no source provides",
    "unclaimed-artifact": "a built name whose base name no template asks for",
    "missing-checksum": "a name is declared (a FRAMEWORKS line) but was not built: render, "
    "publish, and check with a version and zips refuse it",
    "missing-stub": "a product has no stub folder",
    "empty-stub": "a product's stub folder holds no source file",
    "orphan-stub": "a stub folder belongs to no product",
    "unknown-role": "audit: a published manifest does not show whether a name is a product "
    "(warning)",
    "stray-file": "a file, not a folder, in the stub root (warning)",
    "stub-symlink": "the stub root or a stub folder is a symbolic link out of the template's "
    "folder (not followed)",
    "bad-checksum": "a checksum is not 64 lowercase hex digits",
    "conflicting-artifact": "one name, two different checksums",
    "version-mismatch": "a zip's file name carries another version",
    "bad-version": "audit: a branch name carries no X.Y.Z or X.Y.Z.YYYYMMDD (or "
    "--version-pattern) version; a --version of another shape is bad usage (exit 2)",
    "missing-version": "the template never uses __VERSION__ (warning)",
    "malformed-placeholder": "a near-miss such as __SHA256_x_ or __VERSION",
    "zip-layout": "a zip is not in the one shape accepted: its root holds anything but "
    "<name>.xcframework/ (a second xcframework, a root Info.plist, __MACOSX/), or an entry is "
    "refused (a name not canonical, an extra field zip tools do not write, a method other than "
    "stored or deflate, a local header unlike its central entry, a bad CRC or deflate stream), "
    "or the file is (bytes before, between or after its records, too many entries)",
    "swift-error": "SwiftPM rejects the rendered package (its message, with the manifest line)",
    "needs-swiftpm": "without SwiftPM: the manifest's verdict needs evaluating Swift (one per "
    "manifest; a warning with --accept-static, which leaves it unproven), or the text has another "
    "Package initialisation or `.init(` than `let package = Package(` (an error whatever "
    "--accept-static says)",
    "tools-version": "the first line is not `// swift-tools-version:X.Y[.Z]` with 5.3 <= X.Y.Z "
    "<= 6.0 (nothing before or after it)",
    "url": "a binary target URL is not https, not .zip, or lacks the version or its own name",
    "checksum-mismatch": "SwiftPM evaluates a binary target's checksum to another than the one "
    "of the built zip its URL names, or the URL names a zip nobody built (or a "
    "version-specific manifest published as it is states another checksum)",
    "placeholder-left": "a rendered or published manifest still holds a placeholder",
    "duplicate-checksum": "audit: one checksum published under two different names",
    "reused-checksum": "audit: one name's checksum published again for another version",
    "branch-version": "audit: the manifest's version differs from the one in the branch name",
    "manifest-unreadable": "audit: a branch's Package.swift is missing, too large or not UTF-8",
    "unrecognised-manifest": "audit: no checksum recognised in the manifest (warning)",
    "edited-after-publish": "audit: a branch's tip is not its publish commit (its subject is not "
    "the version): edited after publishing (warning)",
    "url-missing": "--verify-urls: a binary target URL answers 404 or 410",
    "url-error": "--verify-urls: other HTTP status, TLS or network error, or timeout (retried)",
    "url-checksum": "--verify-urls: the served bytes do not hash to the manifest's checksum",
    "url-not-zip": "--verify-urls: the URL serves something that is not a zip (an HTML page)",
    "url-no-artifact": "--verify-urls: the zip holds no XCFramework (or artifact bundle) "
    "metadata SwiftPM can read: 'does not contain a binary artifact'",
    "url-exists": "--verify-absent: a zip URL of this version already exists",
    "zip-plist": "a zip's <name>.xcframework/Info.plist is missing or not XCFramework metadata",
    "zip-library-missing": "a library path the xcframework's Info.plist lists is not in the zip",
    "missing-slice": "with SwiftPM: a binary target's XCFramework has no library for a "
    "platform (device or simulator) the manifest's platforms: declares, so an app building "
    "for it fails to link",
    "slice-minimum-os": "with SwiftPM: a library of a binary target's XCFramework states a "
    "minimum OS (its framework's Info.plist) above the one the manifest's platforms: declares",
    "zip-symlinks": "a macOS framework in a zip stores copies where its symlinks belong",
    "zip-link": "a symlink entry whose target, resolved in the archive, leaves it or its "
    "framework bundle (an absolute path, .. past the root)",
    "zip-unverified": "--verify-zips: a zip's entries could not all be verified within the "
    "bound (16 GiB uncompressed, 300 s per zip)",
    "zip-signature": "some zips of a folder are code-signed and others not (notice)",
    "resolve-failed": "resolve: the real SwiftPM rejects a binary target (its exact error)",
    "resolve-error": "resolve: swift package resolve failed naming no target, or fetched an "
    "unexpected URL",
    "resolved": "resolve: SwiftPM downloaded a binary target, verified it and accepted it "
    "(notice)",
    "published-tree": "publish: the commit built would hold a .gitattributes or .gitmodules, a "
    "submodule, or a root name outside plain ASCII (what git or SwiftPM could read otherwise)",
    "unchecked-manifest": "publish: a root file SwiftPM may read as the manifest was never "
    "rendered or checked (a root Package.swift when the template sits in a folder)",
    "commit-proof": "publish: a clone of the commit built, or SwiftPM's evaluation of it, is "
    "not what the check judged",
    "download-growth": "the bytes a consumer downloads (every binary target, debug twins "
    "included) grew past --download-growth-limit since the previous published version (a "
    "notice when that version's size is not known)",
    "branch-exists": "publish: the swiftpm-<version> branch is already on the remote (or appeared "
    "while publishing); published versions are never rewritten without --allow-overwrite",
}
