"""The built set, from a folder of zips, a checksums file or a declared list of names."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path
from typing import TYPE_CHECKING

from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.model import NAME_RE, Artifact, Finding, Location, Severity, Slice
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.fs import (
    display_name,
    is_directory,
    open_regular,
    path_exists,
    read_text,
    resolved,
)
from swiftpm_guard.limits import (
    ARTIFACT_MAX_BYTES,
    CHECKSUMS_MAX_BYTES,
    HASH_SECONDS,
    LIST_MAX_BYTES,
)

if TYPE_CHECKING:  # the zip reader and the bounded child load only when there are zips
    from swiftpm_guard.core.zip_rules import ZipContents
    from swiftpm_guard.infra.bounded import Ended
    from swiftpm_guard.sources.zip_archive import FullCheck

#: `<name>-<version>.zip`: names never hold a hyphen, so the first one splits.
ZIP_NAME_RE = re.compile(r"(?P<name>[A-Za-z0-9_]+)-(?P<version>[^/\\]+)\.zip")
_HEX64 = re.compile(r"[0-9A-Fa-f]{64}")
#: Read and hashed at a time (64 KiB to 1 MiB cost alike, within 5% of openssl; 4 MiB more).
_CHUNK = 1024 * 1024


def sha256_file(path: Path) -> str:
    """SHA-256 of a regular file, streaming in fixed-size chunks (constant memory)."""
    shown = str(path)
    with open_regular(path, display=shown, what="file") as stream:
        return _sha256_stream(stream, shown, time.monotonic() + HASH_SECONDS)


def _sha256_stream(stream: BufferedReader, shown: str, deadline: float) -> str:
    """The stream's SHA-256, refused at once past the size cap (its size on the descriptor;
    a file still growing is stopped at the cap) and stopped at `deadline`."""
    import hashlib  # here, like the pool and the zip reader: a checksums file needs none

    _refuse_over_cap(os.fstat(stream.fileno()).st_size, shown)
    digest = hashlib.sha256()
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    total = 0
    while size := stream.readinto(buffer):
        digest.update(view[:size])
        total += size
        _refuse_over_cap(total, shown)
        if time.monotonic() > deadline:
            raise InputError(f"hashing the zips took longer than {HASH_SECONDS:g} s; stopped "
                             f"after {total} bytes of this one", file=shown)
    return digest.hexdigest()


def _refuse_over_cap(size: int, shown: str) -> None:
    if size > ARTIFACT_MAX_BYTES:
        raise InputError(f"zip is {size} bytes, more than the {ARTIFACT_MAX_BYTES} bytes a built "
                         "zip may have; not hashed", file=shown)


@dataclass(slots=True)
class _Scanned:
    """One zip: its artifact (None when its name is not one) and its findings."""

    artifact: Artifact | None
    findings: list[Finding]


def scan_artifact_dir(folder: Path, *, display: str | None = None, workers: int | None = None,
                      verify: bool = False) -> tuple[list[Artifact], list[Finding]]:
    """Hash every `*.zip` in `folder` (not recursive) and judge it from the descriptor it was
    hashed from (zip_rules.content_findings): each zip read once, in its own bounded child,
    `workers` (one per CPU) side by side; with `verify` every entry's data too
    (zip_archive.FullCheck)."""
    shown = display or str(folder)
    if not is_directory(folder, display=shown, what="artifact folder"):
        raise InputError("artifact folder not found", file=shown)
    root = resolved(folder, display=shown, what="artifact folder")
    zips = sorted(_zip_entries(folder, root, shown))
    if not zips:
        raise InputError("artifact folder holds no *.zip files", file=shown)
    scanned = _scan(zips, shown, workers or min(len(zips), os.cpu_count() or 1), verify)
    artifacts = [z.artifact for z in scanned if z.artifact is not None]
    return artifacts, [f for z in scanned for f in z.findings]


def _scan(zips: list[Path], shown: str, workers: int, verify: bool) -> list[_Scanned]:
    from contextlib import ExitStack

    from swiftpm_guard.infra.bounded import run_bounded_each
    from swiftpm_guard.sources.zip_archive import FullCheck, child_seconds

    full = FullCheck() if verify else None
    deadline = time.monotonic() + HASH_SECONDS
    # The bounded child's own deadline covers the hashing left and the reading after it.
    seconds = HASH_SECONDS + child_seconds(full)
    named: list[tuple[int, str, re.Match[str]]] = []
    scanned: list[_Scanned] = []
    for path in zips:
        where = f"{shown}/{display_name(path.name)}"
        match = ZIP_NAME_RE.fullmatch(path.name)
        if match is None:
            scanned.append(_Scanned(None, [_layout(display_name(path.name), where,
                                                   "file name is not <name>-<version>.zip")]))
        else:
            named.append((len(scanned), where, match))
            scanned.append(_Scanned(None, []))
    opened: dict[int, tuple[ExitStack, BufferedReader]] = {}

    def calls() -> Iterator[tuple[Callable[..., object], tuple[object, ...]]]:
        # Opened here, as each child starts: a descriptor per running child, no more.
        for number, (at, where, _match) in enumerate(named):
            with ExitStack() as stack:
                stream = stack.enter_context(open_regular(zips[at], display=where, what="zip"))
                opened[number] = (stack.pop_all(), stream)
            yield _hash_and_read, (stream, where, deadline, full)

    refused: dict[int, Exception] = {}  # the hashing refused these (cap, deadline)
    children = run_bounded_each(calls(), seconds=seconds, workers=workers)
    try:
        for number, ended in children:
            at, where, match = named[number]
            stack, stream = opened.pop(number)
            with stack:  # closes it; a read failing here is an InputError naming it
                if ended.kind == "guard":
                    refused[number] = ended.error or InputError(ended.detail)
                else:
                    scanned[at] = _scanned(ended, stream, match, where, deadline, seconds)
    finally:
        children.close()  # the children still running are stopped
        for stack, _stream in opened.values():
            stack.close()
    if refused:
        raise refused[min(refused)]  # the first zip's, whichever child ended first
    return scanned


def _hash_and_read(stream: BufferedReader, shown: str, deadline: float,
                   full: FullCheck | None) -> tuple[str, int, ZipContents | str]:
    """In the child: the zip's SHA-256 and size, then its contents (or why it is refused) read
    from the same descriptor, so the bytes hashed are the bytes judged, and no name is opened
    again."""
    from swiftpm_guard.sources.zip_archive import contents_or_problem

    checksum = _sha256_stream(stream, shown, deadline)
    size = os.fstat(stream.fileno()).st_size  # the bytes hashed: what a consumer fetches
    return checksum, size, contents_or_problem(stream.fileno(), full)


def _scanned(ended: Ended[tuple[str, int, ZipContents | str]], stream: BufferedReader,
             match: re.Match[str], shown: str, deadline: float, seconds: float) -> _Scanned:
    if ended.kind == "ok" and ended.value is not None:
        checksum, size, contents = ended.value
    else:  # the reading ran away (the hashing cannot): hashed here, judged unreadable
        stream.seek(0)
        checksum = _sha256_stream(stream, shown, deadline)
        size = os.fstat(stream.fileno()).st_size
        contents = f"reading it {ended.failure(seconds)}"
    name = match.group("name")
    findings, slices = _judged(contents, name, shown)
    artifact = Artifact(name=name, sha256=checksum, origin=Location(shown),
                        file_name=display_name(match.group(0)),
                        version=display_name(match.group("version")), size=size, slices=slices)
    return _Scanned(artifact, findings)


def _judged(contents: ZipContents | str, name: str, shown: str
            ) -> tuple[list[Finding], tuple[Slice, ...] | None]:
    """The zip's content findings, and the libraries its XCFramework holds."""
    if isinstance(contents, str):
        return [_layout(name, shown, f"not a zip in the shape the guard accepts (SwiftPM's "
                                     f"unzip may read it another way, or refuse it): {contents}")
                ], None
    # Only with zips: the rules read plists and zip directories, modules a list needs not load.
    from swiftpm_guard.core.platform_slices import read_slices
    from swiftpm_guard.core.zip_rules import content_findings

    return content_findings(contents, shown, name), read_slices(contents, name)


def _zip_entries(folder: Path, root: Path, shown: str) -> list[Path]:
    try:
        with os.scandir(folder) as listing:
            entries = [e for e in listing if e.name.endswith(".zip")]
    except OSError as error:
        raise InputError(f"cannot list the artifact folder: {error.strerror}", file=shown) \
            from None
    paths: list[Path] = []
    for entry in entries:
        path = Path(entry.path)
        where = f"{shown}/{display_name(entry.name)}"
        if entry.is_symlink() and not resolved(path, display=where, what="zip").is_relative_to(
            root
        ):
            raise InputError(f"symlink '{display_name(entry.name)}' points outside the artifact "
                             "folder",
                             file=shown)
        # Folders named *.zip and dangling links are not archives (what they were meant to
        # be counts as not built); anything else that is not a regular file (a FIFO, a
        # device) is refused when it is opened, never waited on.
        if path_exists(path, display=where, what="zip") and not is_directory(
            path, display=where, what="zip"
        ):
            _refuse_over_cap(_size(path), where)  # before any zip is hashed
            paths.append(path)
    return paths


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # gone or unreadable meanwhile: opening it says which


def _layout(subject: str, shown: str, message: str) -> Finding:
    return Finding(code="zip-layout", severity=Severity.ERROR, subject=subject,
                   message=message, file=shown)


def parse_checksums(text: str, *, file: str) -> list[Artifact]:
    """`<name> <sha256>` lines (the upload step) or `<sha256>  <name>-<version>.zip` (sha256sum).

    Blank lines and `#` comments are skipped; any other shape is an InputError naming the line.
    A value of the wrong length or case is kept as is: the checks report it as `bad-checksum`.
    """
    artifacts: list[Artifact] = []
    for number, raw in enumerate(split_lines(text.removeprefix("\ufeff")), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        artifacts.append(_checksum_line(line, file, number))
    return artifacts


def _checksum_line(line: str, file: str, number: int) -> Artifact:
    where = Location(file, number)
    fields = line.split()
    if len(fields) == 2 and _HEX64.fullmatch(fields[0]):
        # sha256sum prints "<hex>  <file>", or "<hex> *<file>" in binary mode. (A framework
        # named by 64 hex digits is not a thing; such a line is always sha256sum's.)
        file_name = fields[1].removeprefix("*")
        match = ZIP_NAME_RE.fullmatch(file_name)
        if match is None:
            raise InputError(f"'{file_name}' is not <name>-<version>.zip", file=file,
                             line=number)
        return Artifact(name=match.group("name"), sha256=fields[0], origin=where,
                        file_name=file_name, version=match.group("version"))
    if len(fields) == 2 and NAME_RE.fullmatch(fields[0]):
        return Artifact(name=fields[0], sha256=fields[1], origin=where)
    shown = line if len(line) <= 80 else line[:77] + "..."
    raise InputError(f"expected '<name> <sha256>' or '<sha256>  <name>-<version>.zip', got "
                     f"{shown!r}", file=file, line=number)


def read_checksums(path: Path, *, display: str | None = None) -> list[Artifact]:
    shown = display or str(path)
    text = read_text(path, display=shown, max_bytes=CHECKSUMS_MAX_BYTES, what="checksums file")
    artifacts = parse_checksums(text, file=shown)
    if not artifacts:
        raise InputError("checksums file lists no artifacts", file=shown)
    return artifacts


@dataclass(frozen=True, slots=True)
class DeclaredName:
    """A framework base name from a list or a workflow, with where it was written."""

    name: str
    origin: Location


def expand_declared(names: Iterable[DeclaredName], debug_suffix: str,
                    source: str | None = None) -> list[Artifact]:
    """Each declared base name means the release zip and its debug twin, checksums unknown.

    `source="workflow"` marks names read from a workflow's array (reports say where from).
    """
    artifacts: list[Artifact] = []
    for declared in names:
        for name in (declared.name, declared.name + debug_suffix):
            artifacts.append(Artifact(name=name, sha256=None, origin=declared.origin,
                                      source=source))
    return artifacts


def parse_name_list(text: str, *, file: str) -> list[DeclaredName]:
    """Names separated by commas, whitespace or newlines; `#` starts a comment."""
    names: list[DeclaredName] = []
    for number, raw in enumerate(split_lines(text.removeprefix("\ufeff")), start=1):
        for item in re.split(r"[,\s]+", raw.split("#", 1)[0]):
            if not item:
                continue
            if not NAME_RE.fullmatch(item):
                raise InputError(f"framework name {item!r} is not [A-Za-z0-9_]+", file=file,
                                 line=number)
            names.append(DeclaredName(item, Location(file, number)))
    return names


def read_declared(spec: str, *, label: str = option("frameworks"),
                  path: Path | None = None) -> list[DeclaredName]:
    """`a,b,c` (shown as `label`) or `@FILE` (read from `path`, else FILE itself)."""
    if spec.startswith("@"):
        shown = spec[1:]
        text = read_text(path or Path(shown), display=shown, max_bytes=LIST_MAX_BYTES,
                         what="framework list")
        names = parse_name_list(text, file=shown)
        source = shown
    else:
        names = [DeclaredName(n.name, Location(label)) for n in parse_name_list(spec, file=label)]
        source = label
    if not names:
        raise InputError("no framework names given", file=source)
    return names


# -- what each built zip holds (the zip rules per artifact) ------------------------------------


def scan_zip_folder(folder: Path, *, display: str | None = None, verify: bool = False
                    ) -> tuple[list[Artifact], list[Finding]]:
    """The zips of `folder` as artifacts, with the layout and content findings of each; with
    `verify` (`--verify-zips`), every entry's data checked too."""
    artifacts, judged = scan_artifact_dir(folder, display=display, verify=verify)
    signatures = [f for f in judged if f.code == "zip-signature"]
    findings = [f for f in judged if f.code != "zip-signature"]
    mixed = signature_summary(signatures, display or str(folder))
    return artifacts, [*findings, *([mixed] if mixed else [])]


def signature_summary(notices: Sequence[Finding], folder: str) -> Finding | None:
    """One notice for the folder when some zips are code-signed and others are not (a build
    that lost signing on some frameworks); all or none signed is the release's own choice and
    says nothing. A signature broken by flattened symlinks is `zip-symlinks`' business."""
    unsigned = sorted(f.file.rsplit("/", 1)[-1] for f in notices
                      if f.file and "not code-signed" in f.message)
    if not unsigned or len(unsigned) == len(notices):
        return None
    shown = ", ".join(unsigned[:5]) + (", …" if len(unsigned) > 5 else "")
    message = (f"{len(unsigned)} of {len(notices)} zips carry no code signature "
               f"(_CodeSignature/) while the others do: {shown}")
    return Finding(code="zip-signature", severity=Severity.NOTICE, subject=folder,
                   message=message, file=folder)
