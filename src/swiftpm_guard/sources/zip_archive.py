"""A framework zip, read with the standard library's `zipfile` and accepted only in the one
narrow shape real zip tools (ditto, Info-ZIP zip, zipfile) write; everything else is refused.

The guard does not model Info-ZIP's unzip (SwiftPM's extractor): it allows one shape unzip
extracts the same way everywhere, and refuses the rest, naming the zip and the entry.

The accepted shape:
- local headers from byte 0, then the central directory, then (zip64: its end record and
  locator, then) the end record, which ends the file: no bytes before, between or after, no
  comment; at most ZIP_MAX_ENTRIES entries in ZIP_DIRECTORY_MAX_BYTES of directory, judged
  from the end record before `zipfile` reads a byte of the directory;
- each entry stored or deflated, not encrypted, flags among ALLOWED_FLAGS, needing at most
  PKZIP 4.5, extra fields only of the ids in ALLOWED_EXTRA (central and local), its local
  header agreeing with the central one (name, method, flags; CRC and sizes unless a data
  descriptor follows), its data inside the file and overlapping no other entry;
- each name canonical (`name_problem`), so no two names unzip would put in one place differ
  as strings: a second entry of one name, of one name on a case-insensitive file system, or a
  file where a folder must be, is refused too.
Then the data: the small entries (every `Info.plist`, every symlink's target) and, with
`FullCheck` (the default when publishing), every entry's, inflated in bounded steps and
checked against its size and CRC, bounded in bytes and time.
The folder scan (sources/artifacts.py) runs all of it in a forked child (infra/bounded.py,
`contents_or_problem`) under a deadline and a memory cap.
"""

from __future__ import annotations

import os
import stat
import struct
import time
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from swiftpm_guard.core.zip_rules import Damage, ZipContents, ZipEntry
from swiftpm_guard.errors import ZipProblem
from swiftpm_guard.infra.fs import open_regular
from swiftpm_guard.limits import (
    ZIP_DIRECTORY_MAX_BYTES,
    ZIP_MAX_ENTRIES,
    ZIP_READ_SECONDS,
    ZIP_VERIFY_MAX_BYTES,
    ZIP_VERIFY_SECONDS,
)

_END = struct.Struct("<4s4H2LH")  # signature, disk, disk of the directory, entries here,
#                                   entries, directory size, directory offset, comment length
_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")
_LOCAL = struct.Struct("<4s5H3L2H")
_EXTRA = struct.Struct("<2H")
_UTF8 = 0x800
_DESCRIPTOR = 0x08
#: Deflate's option bits (1, 2), a data descriptor (3), UTF-8 names (11): what zip tools set.
ALLOWED_FLAGS = 0x0002 | 0x0004 | _DESCRIPTOR | _UTF8
#: Extra fields real zip tools write (ditto and Info-ZIP zip: UT, ux, Ux; zipfile: zip64;
#: Windows tools: NTFS). Anything else (0x7075 Unicode Path, 0x6375 Unicode Comment: names
#: unzip would use instead of the one we judge) is refused.
ALLOWED_EXTRA = {0x0001: "zip64", 0x000A: "NTFS", 0x5455: "extended timestamp",
                 0x5855: "Info-ZIP Unix (old)", 0x7875: "Info-ZIP Unix UID/GID"}
#: The methods SwiftPM's unzip extracts on every host, and all that archivers write for it.
METHODS = {0: "stored", 8: "deflate"}
#: unzip 6.0 implements PKZIP 4.5; an entry needing more is skipped.
NEEDED_MAX = 45
#: Systems ("version made by", high byte) whose Unix modes unzip 6.0 honours, so an S_IFLNK
#: entry from them becomes a symlink: VMS 2, Unix 3, Atari ST 5, BeOS 16, AtheOS 30 (measured).
LINK_HOSTS = frozenset({2, 3, 5, 16, 30})
METADATA_MAX_BYTES = 1 << 20
#: Info.plist entries read (the xcframework's, each bundle's: a few per slice).
METADATA_MAX_FILES = 512
#: The longest symlink target read (Linux's PATH_MAX less its NUL); a longer one is damage.
LINK_MAX_BYTES = 4095
#: Symlink entries whose targets are read; a real framework zip holds a few per bundle.
LINKS_MAX = 20_000
#: Entries that do not extract, per zip, before the full check stops looking.
DAMAGE_MAX = 50
_READ = 1 << 20
#: The child's deadline beyond the reading's own bounds (which end as findings, not kills).
_CHILD_SLACK_SECONDS = 60.0



@dataclass(frozen=True, slots=True)
class FullCheck:
    """Every entry's data inflated and checked against its size and CRC, as `unzip -t`
    does, at most `max_bytes` of declared data and `seconds` per zip."""

    max_bytes: int = ZIP_VERIFY_MAX_BYTES
    seconds: float = ZIP_VERIFY_SECONDS


@dataclass(frozen=True, slots=True)
class Directory:
    """Where the end record puts the central directory, and how many entries it holds."""

    count: int
    offset: int
    size: int
    end: int  # where the (zip64) end records begin: the directory must end there


def directory(fd: int, *, max_entries: int = ZIP_MAX_ENTRIES,
              max_bytes: int = ZIP_DIRECTORY_MAX_BYTES, comment: bool = False) -> Directory:
    """The end record at the very end of the file (`comment`: a comment may follow it), its
    counts judged before anything reads the directory."""
    size = os.fstat(fd).st_size
    tail_length = min(size, _END.size + (0xFFFF if comment else 0))
    tail = os.pread(fd, tail_length, size - tail_length)
    at = tail.rfind(b"PK\x05\x06", 0, max(0, len(tail) - _END.size + 4))
    if at < 0 or (not comment and at != 0):
        raise ZipProblem("no end record at the end of the file (not a zip, truncated, or "
                         "with a comment or bytes after it)")
    _sig, disk, cd_disk, _here, count, cd_size, cd_offset, comment_length = _END.unpack_from(
        tail, at)
    end = size - tail_length + at
    if disk or cd_disk:
        raise ZipProblem("a split (multi-disk) zip")
    if not comment and comment_length:
        raise ZipProblem("the end record has a comment; zip tools write none for frameworks")
    if 0xFFFFFFFF in (cd_size, cd_offset) or count == 0xFFFF:
        count, cd_size, cd_offset, end = _zip64(fd, end)
    if count > max_entries:
        raise ZipProblem(f"{count} entries, more than the {max_entries} a framework zip may "
                         "hold")
    if cd_size > max_bytes:
        raise ZipProblem(f"a central directory of {cd_size} bytes, more than the {max_bytes} "
                         "a framework zip may hold")
    return Directory(count, cd_offset, cd_size, end)


def _zip64(fd: int, end: int) -> tuple[int, int, int, int]:
    """The zip64 end record, right before its locator, right before the end record."""
    locator = os.pread(fd, _LOCATOR.size, max(0, end - _LOCATOR.size))
    if len(locator) < _LOCATOR.size or not locator.startswith(b"PK\x06\x07"):
        raise ZipProblem("the end record needs a zip64 record and there is none")
    record_at = _LOCATOR.unpack(locator)[2]
    record = os.pread(fd, _END64.size, record_at)
    if len(record) < _END64.size or not record.startswith(b"PK\x06\x06") or \
            record_at + _END64.size != end - _LOCATOR.size:
        raise ZipProblem("the zip64 end record is not right before its locator")
    fields = _END64.unpack(record)
    return fields[7], fields[8], fields[9], record_at


def name_problem(name: str, flags: int) -> str | None:
    """Why an entry name is not canonical (None: it is): relative, `/`-separated, no empty,
    `.` or `..` component, no backslash, printable, ASCII unless flagged UTF-8."""
    if not flags & _UTF8 and not name.isascii():
        return ("its name is not ASCII and not flagged UTF-8: unzip reads it in the host's "
                "code page")
    if not name.isprintable():
        return "its name holds a control or format character"
    if "\\" in name:
        return "its name holds a backslash"
    parts = name.removesuffix("/").split("/")
    if any(part in ("", ".", "..") for part in parts):
        return ("its name is not canonical (a leading `/`, an empty, `.` or `..` component): "
                "unzip places it elsewhere than it reads")
    return None


def read_zip_contents(source: Path | BinaryIO, *, full: FullCheck | None = None) -> ZipContents:
    """The entries, the ones refused and why, the metadata and symlink targets (CRC-checked),
    and with `full` every entry's data checked: from an open zip (the descriptor that was
    hashed, never a second open by name), or from a path opened the bounded way. In this
    process: `contents_or_problem` is the same in a child."""
    if isinstance(source, Path):
        with open_regular(source, display=str(source), what="zip") as stream:
            return _contents(stream.fileno(), full)
    return _contents(source.fileno(), full)


def child_seconds(full: FullCheck | None) -> float:
    """How long a child reading one zip may live before it is stopped."""
    return ZIP_READ_SECONDS + (full.seconds if full else 0) + _CHILD_SLACK_SECONDS


def contents_or_problem(fd: int, full: FullCheck | None) -> ZipContents | str:
    """What a bounded child answers: the contents, or why the zip is refused."""
    try:
        return _contents(fd, full)
    except ZipProblem as problem:
        return str(problem)


def _contents(fd: int, full: FullCheck | None) -> ZipContents:
    where = directory(fd)
    infos = _listing(fd, where)
    damaged: dict[int, str] = {}
    starts = _local_headers(fd, infos, where, damaged)
    for index, why in _clashes(infos):
        damaged.setdefault(index, why)
    data = _Data(fd, time.monotonic() + ZIP_READ_SECONDS)
    metadata, targets, read, unverified = _small_entries(infos, starts, damaged, data)
    if full is not None and unverified is None:
        unverified = _verify_all(infos, starts, data, full, damaged, read)
    entries = tuple(ZipEntry(info.filename, is_link(info), targets.get(i))
                    for i, info in enumerate(infos))
    return ZipContents(entries, metadata,
                       tuple(Damage(infos[i].filename, why) for i, why in sorted(damaged.items())),
                       unverified)


def _listing(fd: int, where: Directory) -> list[zipfile.ZipInfo]:
    """zipfile's reading of the directory, which must fill the file up to the end records."""
    if where.offset + where.size != where.end:
        raise ZipProblem(f"bytes between the central directory (ending at "
                         f"{where.offset + where.size}) and the end record (at {where.end}), "
                         "or a directory that overruns it")
    try:
        with os.fdopen(os.dup(fd), "rb") as stream, zipfile.ZipFile(stream) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, struct.error,
            NotImplementedError, UnicodeDecodeError) as error:
        raise ZipProblem(f"zipfile: {str(error)[:200]}") from None
    except OSError as error:
        raise ZipProblem(f"OSError: {error.strerror or error}") from None
    if len(infos) != where.count:
        raise ZipProblem(f"the end record says {where.count} entries, the central directory "
                         f"holds {len(infos)}")
    if infos and min(info.header_offset for info in infos) != 0:
        raise ZipProblem("bytes before the first local header (a prefix, or a self-extracting "
                         "stub): unzip reads such a zip another way")
    return infos


def is_link(info: zipfile.ZipInfo) -> bool:
    """Whether unzip extracts the entry as a symlink (its system's mode says S_IFLNK)."""
    return info.create_system in LINK_HOSTS and stat.S_ISLNK(info.external_attr >> 16)


def _header_problem(info: zipfile.ZipInfo) -> str | None:
    """Why the entry's central header is outside the accepted shape (None: it is inside)."""
    if info.orig_filename != info.filename:
        return "its name holds a NUL byte"
    why = name_problem(info.orig_filename, info.flag_bits)
    if why is not None:
        return why
    if info.compress_type not in METHODS:
        return (f"it is compressed with method {info.compress_type}; only stored and deflate "
                "are accepted (what SwiftPM's unzip extracts everywhere)")
    if info.flag_bits & ~ALLOWED_FLAGS:
        return (f"its flags {info.flag_bits:#06x} ask for more than stored or deflated data "
                "(encryption, patched data, masked headers)")
    if info.extract_version > NEEDED_MAX:
        return f"it needs PKZIP {info.extract_version} to extract; unzip 6.0 does 45"
    if info.comment:
        return "it carries a comment; zip tools write none for frameworks"
    if info.is_dir() and info.file_size:
        return "it is a folder entry, yet holds data"
    if info.compress_type == 0 and info.compress_size != info.file_size:
        return (f"it is stored, yet its sizes differ ({info.compress_size} stored, "
                f"{info.file_size} extracted)")
    return _extra_problem(info.extra, "central")


def _extra_problem(extra: bytes, which: str) -> str | None:
    at = 0
    while at < len(extra):
        if at + _EXTRA.size > len(extra):
            return f"its {which} extra field is cut short"
        kind, length = _EXTRA.unpack_from(extra, at)
        if kind not in ALLOWED_EXTRA:
            return (f"its {which} header carries extra field {kind:#06x}, not one zip tools "
                    f"write for frameworks ({', '.join(f'{k:#06x}' for k in ALLOWED_EXTRA)})")
        at += _EXTRA.size + length
    return None if at == len(extra) else f"its {which} extra field is cut short"


def _local_headers(fd: int, infos: list[zipfile.ZipInfo], where: Directory,
                   damaged: dict[int, str]) -> dict[int, int]:
    """Each entry's data offset, its local header checked against the central one; entries
    whose data would overlap the next entry or the directory are damaged."""
    starts: dict[int, int] = {}
    order = sorted(range(len(infos)), key=lambda i: infos[i].header_offset)
    for position, index in enumerate(order):
        info = infos[index]
        limit = (infos[order[position + 1]].header_offset if position + 1 < len(order)
                 else where.offset)
        why = _header_problem(info)
        if why is None:
            start, why = _local(fd, info)
            if why is None and start + info.compress_size > limit:
                why = "its data overlaps the next entry or the central directory"
            if why is None:
                starts[index] = start
        if why is not None:
            damaged[index] = why
    return starts


def _local(fd: int, info: zipfile.ZipInfo) -> tuple[int, str | None]:
    header = os.pread(fd, _LOCAL.size, info.header_offset)
    if len(header) < _LOCAL.size or not header.startswith(b"PK\x03\x04"):
        return 0, "no local header where the central directory says"
    _sig, _needed, flags, method, _time, _date, crc, compressed, size, name_length, \
        extra_length = _LOCAL.unpack(header)
    names = os.pread(fd, name_length + extra_length, info.header_offset + _LOCAL.size)
    raw = info.orig_filename.encode("utf-8" if info.flag_bits & _UTF8 else "cp437")
    if names[:name_length] != raw:
        return 0, "its local header names another file"
    if (flags, method) != (info.flag_bits, info.compress_type):
        return 0, "its local header's flags or method differ from the central directory's"
    local_extra = names[name_length:]
    why = _extra_problem(local_extra, "local")
    if why is not None:
        return 0, why
    if not flags & _DESCRIPTOR:
        if 0xFFFFFFFF in (compressed, size):
            size, compressed = _zip64_sizes(local_extra)
        if (crc, compressed, size) != (info.CRC, info.compress_size, info.file_size):
            return 0, "its local header's CRC or sizes differ from the central directory's"
    return info.header_offset + _LOCAL.size + name_length + extra_length, None


def _zip64_sizes(extra: bytes) -> tuple[int, int]:
    at = 0
    while at + _EXTRA.size <= len(extra):
        kind, length = _EXTRA.unpack_from(extra, at)
        if kind == 1 and length >= 16:
            return struct.unpack_from("<2Q", extra, at + _EXTRA.size)
        at += _EXTRA.size + length
    return -1, -1


def _clashes(infos: list[zipfile.ZipInfo]) -> Iterator[tuple[int, str]]:
    """Names unzip cannot place as they say: a second entry of one name, a file where other
    entries need a folder, names a case-insensitive file system (macOS's) takes for one."""
    folders: set[str] = set()
    for info in infos:
        parent = info.filename.rstrip("/").rpartition("/")[0]
        while parent and parent not in folders:
            folders.add(parent)
            parent = parent.rpartition("/")[0]
    seen: set[str] = set()
    folded: dict[str, str] = {}
    for index, info in enumerate(infos):
        name = info.filename
        if name in seen:
            yield index, "an earlier entry has the same name"
            continue
        seen.add(name)
        if not name.endswith("/") and name in folders:
            yield index, "it is a file, and other entries are inside a folder of that name"
            continue
        key = unicodedata.normalize("NFD", name).casefold()
        other = folded.setdefault(key, name)
        if other != name:
            yield index, (f"its name differs from {other[:200]!r} only in case or Unicode "
                          "form: on macOS's file system unzip stops to ask whether to replace "
                          "it")


def _small_entries(infos: list[zipfile.ZipInfo], starts: dict[int, int],
                   damaged: dict[int, str], data: _Data
                   ) -> tuple[dict[str, bytes], dict[int, str], set[int], str | None]:
    """Every Info.plist (the rules read the xcframework's) and every symlink's target, each
    read and checked."""
    metadata: dict[str, bytes] = {}
    targets: dict[int, str] = {}
    read: set[int] = set()
    try:
        for index, info in enumerate(infos):
            if index in damaged or info.is_dir():
                continue
            if is_link(info):
                if len(targets) >= LINKS_MAX:
                    return metadata, targets, read, (f"more than {LINKS_MAX} symlink entries; "
                                                     "the targets of the rest were not read")
                if info.file_size > LINK_MAX_BYTES:
                    damaged[index] = (f"it is a symlink whose target is {info.file_size} bytes "
                                      "long, longer than any path")
                    continue
                target = data.take(info, starts[index], index, damaged, keep=True)
                if target is not None:
                    targets[index] = target.split(b"\0", 1)[0].decode("utf-8", "replace")
                read.add(index)
            elif (info.filename.rpartition("/")[2] == "Info.plist"
                  and info.file_size <= METADATA_MAX_BYTES
                  and len(metadata) < METADATA_MAX_FILES):
                found = data.take(info, starts[index], index, damaged, keep=True)
                if found is not None:
                    metadata[info.filename] = found
                read.add(index)
    except _Late:
        return metadata, targets, read, (f"reading the metadata entries took longer than "
                                         f"{ZIP_READ_SECONDS:g} s")
    return metadata, targets, read, None


def _verify_all(infos: list[zipfile.ZipInfo], starts: dict[int, int], data: _Data,
                full: FullCheck, damaged: dict[int, str], read: set[int]) -> str | None:
    """Every entry not read yet, inflated and checked; why it stopped early, or None."""
    pending = [i for i in range(len(infos)) if i not in damaged and i not in read]
    total = sum(infos[i].file_size for i in pending)
    if total > full.max_bytes:
        return (f"its entries hold {total} bytes uncompressed, more than the {full.max_bytes} "
                "it decompresses per zip")
    data.deadline = time.monotonic() + full.seconds
    for done, index in enumerate(pending):
        if len(damaged) >= DAMAGE_MAX:
            return f"it stopped looking after {DAMAGE_MAX} entries that do not extract"
        try:
            data.take(infos[index], starts[index], index, damaged, keep=False)
        except _Late:
            return (f"it stopped after {full.seconds:g} s, {done} of {len(pending)} entries "
                    "verified")
    return None


class _Late(Exception):
    """The deadline passed while reading entry data."""


class _Bad(Exception):
    """The entry's data does not extract (the message says why)."""


class _Data:
    """Entry data read by offset from the descriptor and inflated in bounded steps: never a
    byte past an entry's declared size, never past the deadline. (zipfile's own reader cuts
    surplus output silently, which unzip counts against the CRC.)"""

    def __init__(self, fd: int, deadline: float) -> None:
        self._fd = fd
        self.deadline = deadline

    def take(self, info: zipfile.ZipInfo, start: int, index: int, damaged: dict[int, str], *,
             keep: bool) -> bytes | None:
        """The entry's data (b"" unless `keep`), or None when it does not extract (then
        `damaged[index]` says why)."""
        try:
            return self._read(info, start, keep)
        except _Bad as bad:
            damaged[index] = str(bad)
            return None
        except OSError as error:
            raise ZipProblem(f"OSError: {error.strerror or error}") from None

    def _read(self, info: zipfile.ZipInfo, start: int, keep: bool) -> bytes:
        inflater = zlib.decompressobj(-15) if info.compress_type == 8 else None
        pieces: list[bytes] = []
        size = crc = 0
        position, end = start, start + info.compress_size
        while position < end and not (inflater is not None and inflater.eof):
            if time.monotonic() > self.deadline:
                raise _Late
            chunk = os.pread(self._fd, min(_READ, end - position), position)
            if not chunk:
                raise _Bad("its data is cut short")
            position += len(chunk)
            while chunk and not (inflater is not None and inflater.eof):  # after: ignored
                piece, chunk = _inflate(inflater, chunk, info.file_size - size + 1)
                size += len(piece)
                if size > info.file_size:
                    raise _Bad(f"it extracts to more than the {info.file_size} bytes its "
                               "headers say")
                crc = zlib.crc32(piece, crc)
                if keep:
                    pieces.append(piece)
        if inflater is not None and not inflater.eof:
            raise _Bad("its deflate stream ends before its final block (cut short or damaged)")
        if size != info.file_size:
            raise _Bad(f"it extracts to {size} bytes; its headers say {info.file_size}")
        if crc != info.CRC:
            raise _Bad(f"its data's CRC-32 is {crc:08x}; its headers say {info.CRC:08x}")
        return b"".join(pieces)


def _inflate(inflater: zlib._Decompress | None, chunk: bytes, most: int) -> tuple[bytes, bytes]:
    """At most `most` (and _READ) bytes of output from `chunk`, and the input left over."""
    if inflater is None:
        return chunk[:_READ], chunk[_READ:]
    try:
        piece = inflater.decompress(chunk, min(most, _READ))
    except zlib.error as error:
        raise _Bad(f"its deflate stream is damaged (zlib: {str(error)[:120]})") from None
    if not piece and inflater.unconsumed_tail == chunk:
        raise _Bad("its deflate stream makes no progress")
    return piece, inflater.unconsumed_tail
