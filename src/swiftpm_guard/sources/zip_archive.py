"""A zip archive read as SwiftPM's extractor would meet it, bounded in work and memory.

`ZipReader` streams the central directory (1 MiB chunks, parsed as it streams, at most
ZIP_MAX_ENTRIES entries) and checks every entry against its local header: at its offset, the
same name, method, flags and (without a data descriptor) CRC and sizes, its data before the
central directory. An extractor walks the local headers, so a zip whose directory lists entries
that are not really there is no built framework, whatever its listing says. Nothing is
decompressed there.

`read_zip_contents` then judges the zip as SwiftPM's extractor does, Info-ZIP's unzip 6.0
(`unzip -t`, then `unzip -d`, on Linux and macOS alike), from the same open file: the end
record first (count and directory size judged before anything is listed); each entry's headers
(only stored and deflate, a version unzip implements, a stored entry's two sizes equal, sizes
deflate can encode); names unzip cannot place (a second file of one name, a file where a
folder must be, names only case tells apart); then the data of the small entries the rules
read (`Info.plist`, `info.json`, every symlink's target), decompressed here in bounded steps
and checked against its size and CRC, and with `FullCheck` (`--verify-zips`) every entry's,
bounded in bytes and time. An entry that does not extract is a `Damage`, never a zlib.error.
"""

from __future__ import annotations

import os
import posixpath
import stat
import struct
import time
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from swiftpm_guard.core.zip_rules import METADATA_NAMES, Damage, ZipContents, ZipEntry
from swiftpm_guard.infra.fs import open_regular
from swiftpm_guard.limits import (
    ZIP_DIRECTORY_MAX_BYTES,
    ZIP_MAX_ENTRIES,
    ZIP_READ_SECONDS,
    ZIP_VERIFY_MAX_BYTES,
    ZIP_VERIFY_SECONDS,
)

_EOCD = struct.Struct("<4s4H2LH")  # signature, disks, disk of cd, entries here, entries, size,
#                                    offset, comment length
_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_LOCAL = struct.Struct("<4s5H3L2H")
_EOCD_SIG, _LOCATOR_SIG, _EOCD64_SIG = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"
_CENTRAL_SIG, _LOCAL_SIG = b"PK\x01\x02", b"PK\x03\x04"
_MAX_COMMENT = 0xFFFF
_CHUNK = 1 << 20
_WINDOW = 256 << 10
_BATCH = 4096
_DATA_DESCRIPTOR = 0x08
_UTF8 = 0x800
_ENCRYPTED = 0x01


class ZipProblem(Exception):
    """The zip cannot be read as SwiftPM would extract it (the message says where)."""


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    raw_name: bytes
    flags: int
    method: int
    crc: int
    compressed: int
    size: int
    offset: int
    made_by: int = 0  # "version made by": the system in the high byte
    needed: int = 0  # "version needed to extract", as the central directory states it
    external: int = 0  # external attributes: a Unix mode in the high 16 bits
    data_offset: int = 0  # where its data begins (after the local header), once checked


class ZipReader:
    """Reads one open zip file by descriptor; `entries()` yields each checked entry."""

    def __init__(self, fd: int, *, max_entries: int = ZIP_MAX_ENTRIES) -> None:
        self._fd = fd
        self._size = os.fstat(fd).st_size
        self._max = max_entries
        self._window_start = 0
        self._window = b""
        self.reads = 0  # preads issued, for the benchmark
        self.count, self._cd_offset, self._cd_size = self._end_record()

    @property
    def directory_size(self) -> int:
        """The central directory's size in bytes, as the end record states it."""
        return self._cd_size

    def _read(self, offset: int, length: int) -> bytes:
        self.reads += 1
        return os.pread(self._fd, length, offset)

    # -- the end of central directory record ------------------------------------------------

    def _end_record(self) -> tuple[int, int, int]:
        if self._size < _EOCD.size:
            raise ZipProblem(f"{self._size} bytes is too short for a zip")
        tail_length = min(self._size, _EOCD.size + _MAX_COMMENT + _LOCATOR.size)
        tail_start = self._size - tail_length
        tail = self._read(tail_start, tail_length)
        at = tail.rfind(_EOCD_SIG, 0, len(tail) - _EOCD.size + 4)
        if at < 0:
            raise ZipProblem("no end-of-central-directory record (not a zip, or truncated)")
        _sig, disk, cd_disk, _here, count, cd_size, cd_offset, _comment = _EOCD.unpack_from(
            tail, at)
        if disk or cd_disk:
            raise ZipProblem("a split (multi-disk) zip")
        eocd = tail_start + at
        if at >= _LOCATOR.size and tail[at - _LOCATOR.size:at - _LOCATOR.size + 4] == \
                _LOCATOR_SIG:
            count, cd_size, cd_offset, record_at = self._zip64(tail, at - _LOCATOR.size)
            eocd = min(eocd - _LOCATOR.size, record_at)
        if cd_offset + cd_size > eocd:
            raise ZipProblem(f"the central directory (offset {cd_offset}, {cd_size} bytes) runs "
                             f"past the end record at {eocd}")
        if count > self._max:
            raise ZipProblem(f"{count} entries, more than the {self._max} a framework zip may "
                             "hold")
        return count, cd_offset, cd_size

    def _zip64(self, tail: bytes, at: int) -> tuple[int, int, int, int]:
        _sig, _disk, offset, _disks = _LOCATOR.unpack_from(tail, at)
        record = self._read(offset, _EOCD64.size) if offset + _EOCD64.size <= self._size else b""
        if len(record) < _EOCD64.size or not record.startswith(_EOCD64_SIG):
            raise ZipProblem("the zip64 end record is missing where its locator points")
        fields = _EOCD64.unpack(record)
        return fields[7], fields[8], fields[9], offset

    # -- the central directory, streamed ------------------------------------------------------

    def _central(self) -> Iterator[Entry]:
        end = self._cd_offset + self._cd_size
        position = self._cd_offset
        buffer = b""
        base = position  # file offset of buffer[0]
        seen = 0
        while True:
            need = position - base + _CENTRAL.size
            if need > len(buffer) and base + len(buffer) < end:
                buffer, base = self._refill(buffer, base, position, end)
                continue
            if position >= end:
                break
            local = position - base
            if len(buffer) - local < _CENTRAL.size or \
                    buffer[local:local + 4] != _CENTRAL_SIG:
                raise ZipProblem(f"central directory entry {seen + 1} at offset {position} is "
                                 "damaged")
            fields = _CENTRAL.unpack_from(buffer, local)
            name_len, extra_len, comment_len = fields[10], fields[11], fields[12]
            record = _CENTRAL.size + name_len + extra_len + comment_len
            if position + record > end:
                raise ZipProblem(f"central directory entry {seen + 1} runs past the directory")
            if local + record > len(buffer):
                buffer, base = self._refill(buffer, base, position, end, record)
                continue
            seen += 1
            if seen > self._max:
                raise ZipProblem(f"more than {self._max} entries, the most a framework zip "
                                 "may hold")
            raw_name = buffer[local + _CENTRAL.size:local + _CENTRAL.size + name_len]
            extra = buffer[local + _CENTRAL.size + name_len:
                           local + _CENTRAL.size + name_len + extra_len]
            yield _entry(fields, raw_name, extra)
            position += record
        if seen != self.count:
            raise ZipProblem(f"the end record says {self.count} entries, the central "
                             f"directory holds {seen}")

    def _refill(self, buffer: bytes, base: int, position: int, end: int,
                at_least: int = 0) -> tuple[bytes, int]:
        keep = buffer[position - base:]
        length = min(max(_CHUNK, at_least), end - position - len(keep))
        more = self._read(position + len(keep), length) if length > 0 else b""
        if length > 0 and not more:
            raise ZipProblem("the central directory is cut short")
        return keep + more, position

    # -- local headers ------------------------------------------------------------------------

    def entries(self) -> Iterator[Entry]:
        """Every central-directory entry, each checked against its local header."""
        batch: list[Entry] = []
        for entry in self._central():
            batch.append(entry)
            if len(batch) == _BATCH:
                yield from self._checked(batch)
                batch = []
        yield from self._checked(batch)

    def _checked(self, batch: list[Entry]) -> Iterator[Entry]:
        starts = [0] * len(batch)
        for at in sorted(range(len(batch)), key=lambda i: batch[i].offset):
            starts[at] = self._check_local(batch[at])
        for entry, start in zip(batch, starts, strict=True):
            yield replace(entry, data_offset=start)

    def _window_bytes(self, offset: int, length: int) -> bytes:
        start = offset - self._window_start
        if start < 0 or start + length > len(self._window):
            limit = self._cd_offset
            self._window_start = offset
            self._window = self._read(offset, max(0, min(max(_WINDOW, length), limit - offset)))
            start = 0
        return self._window[start:start + length]

    def _check_local(self, entry: Entry) -> int:
        where = f"entry {entry.name[:80]!r}"
        if entry.offset + _LOCAL.size > self._cd_offset:
            raise ZipProblem(f"{where}: its local header offset {entry.offset} is not before "
                             "the central directory")
        header = self._window_bytes(entry.offset, _LOCAL.size)
        if not header.startswith(_LOCAL_SIG):
            raise ZipProblem(f"{where}: no local header at offset {entry.offset} (zeroed, or "
                             "only a central directory); an extractor cannot find the file")
        fields = _LOCAL.unpack(header)
        flags, method, crc = fields[2], fields[3], fields[6]
        compressed, size, name_len, extra_len = fields[7], fields[8], fields[9], fields[10]
        names = self._window_bytes(entry.offset + _LOCAL.size, name_len + extra_len)
        if names[:name_len] != entry.raw_name:
            shown = names[:name_len][:80].decode("utf-8", "replace")
            raise ZipProblem(f"{where}: the local header names {shown!r}")
        if method != entry.method:
            raise ZipProblem(f"{where}: the local header's compression method ({method}) "
                             f"differs from the central directory's ({entry.method})")
        if (flags | entry.flags) & _ENCRYPTED:
            raise ZipProblem(f"{where}: encrypted; SwiftPM cannot extract it")
        if not (flags | entry.flags) & _DATA_DESCRIPTOR:
            compressed, size = _zip64_sizes(names[name_len:], compressed, size)
            if (crc, compressed, size) != (entry.crc, entry.compressed, entry.size):
                raise ZipProblem(f"{where}: the local header's CRC or sizes differ from the "
                                 "central directory's")
        data_start: int = entry.offset + _LOCAL.size + name_len + extra_len
        if data_start + entry.compressed > self._cd_offset:
            raise ZipProblem(f"{where}: its data runs into the central directory (truncated?)")
        return data_start


def _entry(fields: tuple[int, ...], raw_name: bytes, extra: bytes) -> Entry:
    flags, method, crc = fields[3], fields[4], fields[7]
    compressed, size, offset = fields[8], fields[9], fields[16]
    compressed, size, offset = _zip64_fields(extra, compressed, size, offset)
    name = raw_name.decode("utf-8" if flags & _UTF8 else "cp437", "replace")
    return Entry(name, raw_name, flags, method, crc, compressed, size, offset,
                 made_by=fields[1], needed=fields[2], external=fields[15])


def _zip64_fields(extra: bytes, compressed: int, size: int, offset: int) -> tuple[int, int, int]:
    """Replace 0xFFFFFFFF fields from the zip64 extra field (id 1), in its fixed order."""
    if 0xFFFFFFFF not in (compressed, size, offset):
        return compressed, size, offset
    values = _zip64_values(extra)
    out = []
    for value in (size, compressed, offset):  # the extra field's order
        if value == 0xFFFFFFFF:
            if not values:
                raise ZipProblem("a zip64 field is missing from its extra field")
            value = values.pop(0)
        out.append(value)
    size, compressed, offset = out
    return compressed, size, offset


def _zip64_sizes(extra: bytes, compressed: int, size: int) -> tuple[int, int]:
    if 0xFFFFFFFF not in (compressed, size):
        return compressed, size
    values = _zip64_values(extra)
    if len(values) < 2:
        raise ZipProblem("a local header's zip64 sizes are missing")
    return values[1], values[0]


def _zip64_values(extra: bytes) -> list[int]:
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<2H", extra, at)
        if kind == 1:
            body = extra[at + 4:at + 4 + length]
            return [v for (v,) in struct.iter_unpack("<Q", body[:len(body) // 8 * 8])]
        at += 4 + length
    return []


METADATA_MAX_BYTES = 1 << 20
METADATA_MAX_FILES = 512
#: The longest symlink target read (Linux's PATH_MAX less its NUL); a longer one is damage.
LINK_MAX_BYTES = 4095
#: Symlink entries whose targets are read; a real framework zip holds a few per bundle.
LINKS_MAX = 20_000
#: Systems ("version made by", high byte) whose Unix modes Info-ZIP's unzip 6.0 honours, so an
#: S_IFLNK entry from them is extracted as a symlink: VMS 2, Unix 3, Atari ST 5, BeOS 16,
#: AtheOS 30. Measured against Debian's unzip 6.0 for every value 0 to 255 (OS X, 19, is not one).
LINK_HOSTS = frozenset({2, 3, 5, 16, 30})
#: The methods SwiftPM's unzip extracts on every host, and all that archivers write for it.
METHODS = {0: "stored", 8: "deflate"}
_METHOD_NAMES = {1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "LZMA",
                 93: "zstd", 95: "xz", 96: "JPEG", 97: "WavPack", 98: "PPMd",
                 99: "AES encryption"}
#: unzip 6.0 skips an entry (exit 81, "need PK compat. v6.3 (can do v4.6)") whose central
#: header needs a newer PKZIP than it implements: 4.5, or 4.6 where built with bzip2.
NEEDED_MAX = 45
#: Deflate's densest code: two 1-bit codes copy 258 bytes, 1032 bytes from each stored byte.
_DEFLATE_MOST = 1032
#: Entries named that do not extract, per zip, before the full check stops looking.
DAMAGE_MAX = 50
_READ = 1 << 20


@dataclass(frozen=True, slots=True)
class FullCheck:
    """The opt-in full check (`--verify-zips`): every entry's data decompressed and checked
    against its size and CRC, as `unzip -t` does, at most `max_bytes` of declared data and
    `seconds` per zip."""

    max_bytes: int = ZIP_VERIFY_MAX_BYTES
    seconds: float = ZIP_VERIFY_SECONDS


class UnreadableZip(Exception):
    """The bytes are not a zip SwiftPM's unzip can read (the message says why)."""


def read_zip_contents(source: Path | BinaryIO, *, full: FullCheck | None = None) -> ZipContents:
    """The entry names, the entries that do not extract and why, the small metadata entries
    and the symlinks' targets (each CRC-checked), and with `full` every entry's data: read
    from an open zip (the descriptor that was hashed: never a second open by name), or from a
    path opened the bounded way."""
    if isinstance(source, Path):
        with open_regular(source, display=str(source), what="zip") as stream:
            return _contents(stream, full)
    return _contents(source, full)


def is_link(entry: Entry) -> bool:
    """Whether unzip extracts the entry as a symlink (its system's mode says S_IFLNK)."""
    return entry.made_by >> 8 in LINK_HOSTS and stat.S_ISLNK(entry.external >> 16)


def header_problem(entry: Entry) -> str | None:
    """Why unzip cannot extract the entry, from its headers alone (None: they are fine)."""
    if entry.method not in METHODS:
        known = _METHOD_NAMES.get(entry.method)
        what = f"method {entry.method}" + (f" ({known})" if known else "")
        return (f"it is compressed with {what}; SwiftPM's unzip extracts only stored and "
                "deflate entries")
    needed = entry.needed & 0xFF
    if needed > NEEDED_MAX:
        return (f"its header needs PKZIP {needed // 10}.{needed % 10} to extract; unzip 6.0 "
                "implements 4.5 (4.6 with bzip2) and skips it")
    if entry.method == 0 and entry.compressed != entry.size:
        return (f"it is stored (not compressed), yet its headers say {entry.compressed} bytes "
                f"stored and {entry.size} extracted (unzip: 'ucsize <> csize for STORED "
                "entry')")
    if entry.method == 8 and entry.compressed == 0:
        return "it is deflated, yet holds no deflate stream at all (0 bytes stored)"
    if entry.method == 8 and entry.size > _DEFLATE_MOST * entry.compressed + 258:
        return (f"its headers say {entry.size} bytes from {entry.compressed} deflated, more "
                "than deflate can encode in that many: its sizes are false")
    return None


def _contents(stream: BinaryIO, full: FullCheck | None) -> ZipContents:
    reader = _judged_reader(stream)
    try:
        listed = list(reader.entries())
    except ZipProblem as error:
        raise UnreadableZip(str(error)) from None
    except OSError as error:
        raise UnreadableZip(f"OSError: {error.strerror or error}") from None
    damaged: dict[int, str] = {}
    for index, entry in enumerate(listed):
        why = header_problem(entry)
        if why is not None:
            damaged[index] = why
    for index, why in _clashes(listed):
        damaged.setdefault(index, why)
    data = _Data(stream.fileno(), time.monotonic() + ZIP_READ_SECONDS)
    metadata: dict[str, bytes] = {}
    targets: dict[int, str] = {}
    read: set[int] = set()
    unverified = None
    try:
        for index, entry in enumerate(listed):
            if index in damaged or entry.name.endswith("/"):
                continue
            if is_link(entry):
                if len(targets) >= LINKS_MAX:
                    unverified = (f"more than {LINKS_MAX} symlink entries; the targets of the "
                                  "rest were not read")
                    continue
                if entry.size > LINK_MAX_BYTES:
                    damaged[index] = (f"it is a symlink whose target is {entry.size} bytes "
                                      "long, longer than any path")
                    continue
                target = data.take(entry, index, damaged, keep=True)
                if target is not None:
                    targets[index] = target.split(b"\0", 1)[0].decode("utf-8", "replace")
                read.add(index)
            elif (posixpath.basename(entry.name).lower() in METADATA_NAMES
                  and entry.size <= METADATA_MAX_BYTES and len(metadata) < METADATA_MAX_FILES):
                found = data.take(entry, index, damaged, keep=True)
                if found is not None:
                    metadata[entry.name] = found
                read.add(index)
    except _Late:
        unverified = f"reading the metadata entries took longer than {ZIP_READ_SECONDS:g} s"
    if full is not None and unverified is None:
        unverified = _verify_all(listed, data, full, damaged, read)
    entries = tuple(ZipEntry(e.name, is_link(e), targets.get(i)) for i, e in enumerate(listed))
    return ZipContents(entries, metadata,
                       tuple(Damage(listed[i].name, why) for i, why in sorted(damaged.items())),
                       unverified)


def _verify_all(listed: list[Entry], data: _Data, full: FullCheck, damaged: dict[int, str],
                read: set[int]) -> str | None:
    """Every entry not read yet, decompressed and checked; why it stopped early, or None."""
    pending = [i for i in range(len(listed)) if i not in damaged and i not in read]
    total = sum(listed[i].size for i in pending)
    if total > full.max_bytes:
        return (f"its entries hold {total} bytes uncompressed, more than the {full.max_bytes} "
                "it decompresses per zip")
    data.deadline = time.monotonic() + full.seconds
    for done, index in enumerate(pending):
        if len(damaged) >= DAMAGE_MAX:
            return f"it stopped looking after {DAMAGE_MAX} entries that do not extract"
        try:
            data.take(listed[index], index, damaged, keep=False)
        except _Late:
            return (f"it stopped after {full.seconds:g} s, {done} of {len(pending)} entries "
                    "verified")
    return None


def _clashes(listed: list[Entry]) -> Iterator[tuple[int, str]]:
    """Entries unzip cannot put where their names say: a second file of one name (unzip asks
    whether to replace it, SwiftPM's extraction stops), a file where other entries need a
    folder, two names a case-insensitive file system (macOS's default) takes for one."""
    folders: set[str] = set()
    for entry in listed:
        parent = posixpath.dirname(entry.name.rstrip("/"))
        while parent and parent not in folders:
            folders.add(parent)
            parent = posixpath.dirname(parent)
    seen: dict[str, int] = {}
    folded: dict[str, str] = {}
    for index, entry in enumerate(listed):
        name = entry.name.rstrip("/")
        is_dir = entry.name.endswith("/")
        if name in seen and not (is_dir and listed[seen[name]].name.endswith("/")):
            yield index, ("an earlier entry has the same name: unzip stops to ask whether to "
                          "replace it, and SwiftPM's extraction fails")
            continue
        seen.setdefault(name, index)
        if is_dir:
            continue
        if name in folders:
            yield index, ("it is a file, and other entries are inside a folder of that name: "
                          "unzip cannot make the folder")
            continue
        key = unicodedata.normalize("NFD", name).casefold()
        other = folded.setdefault(key, name)
        if other != name:
            yield index, (f"its name differs from {other[:200]!r} only in case: on a "
                          "case-insensitive file system (macOS's default) unzip stops to ask "
                          "whether to replace it")


class _Late(Exception):
    """The deadline passed while reading entry data."""


class _Data:
    """Entry data read by offset from the descriptor, decompressed in bounded steps: never
    more than an entry's declared size, never past the deadline."""

    def __init__(self, fd: int, deadline: float) -> None:
        self._fd = fd
        self.deadline = deadline

    def take(self, entry: Entry, index: int, damaged: dict[int, str], *,
             keep: bool) -> bytes | None:
        """The entry's data (b"" unless `keep`), or None when it does not extract (then
        `damaged[index]` says why)."""
        try:
            return self._read(entry, keep)
        except _Bad as bad:
            damaged[index] = str(bad)
            return None
        except OSError as error:
            raise UnreadableZip(f"OSError: {error.strerror or error}") from None

    def _late(self) -> None:
        if time.monotonic() > self.deadline:
            raise _Late

    def _read(self, entry: Entry, keep: bool) -> bytes:
        self._late()
        sink = _Sink(entry.size, keep)
        inflater = zlib.decompressobj(-15) if entry.method == 8 else None
        position, end = entry.data_offset, entry.data_offset + entry.compressed
        while position < end:
            self._late()
            chunk = os.pread(self._fd, min(_READ, end - position), position)
            if not chunk:
                raise _Bad("its data is cut short")
            position += len(chunk)
            if inflater is None:
                sink.add(chunk)
                continue
            if _inflate(inflater, chunk, sink, self._late):
                break  # bytes after the stream's end: unzip ignores them
        if inflater is not None and not inflater.eof:
            raise _Bad("its deflate stream ends before its final block (cut short or "
                       "damaged; unzip: 'invalid compressed data to inflate')")
        if sink.size != entry.size:
            raise _Bad(f"it extracts to {sink.size} bytes; its headers say {entry.size}")
        if sink.crc != entry.crc:
            raise _Bad(f"its data's CRC-32 is {sink.crc:08x}; its headers say "
                       f"{entry.crc:08x} (unzip: 'bad CRC')")
        return sink.data()


class _Bad(Exception):
    """The entry's data does not extract (the message says why)."""


class _Sink:
    """Counts, checksums and (if kept) collects an entry's output; refuses a byte past its
    declared size, so a decompression bomb stops at once."""

    def __init__(self, limit: int, keep: bool) -> None:
        self._limit = limit
        self._keep = keep
        self._pieces: list[bytes] = []
        self.size = 0
        self.crc = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self._limit:
            raise _Bad(f"it extracts to more than the {self._limit} bytes its headers say")
        self.crc = zlib.crc32(piece, self.crc)
        if self._keep:
            self._pieces.append(piece)

    def data(self) -> bytes:
        return b"".join(self._pieces)


def _inflate(inflater: zlib._Decompress, chunk: bytes, sink: _Sink,
             late: Callable[[], None]) -> bool:
    """Feed one chunk, at most _READ bytes of output at a time; whether the stream ended."""
    buffer = chunk
    while True:
        try:
            piece = inflater.decompress(buffer, _READ)
        except zlib.error as error:
            raise _Bad(f"its deflate stream is damaged (zlib: {str(error)[:120]})") from None
        sink.add(piece)
        buffer = inflater.unconsumed_tail
        if inflater.eof:
            return True
        if not buffer and not piece:
            return False
        late()


def _judged_reader(stream: BinaryIO) -> ZipReader:
    """The reader, once the end record's entry count and directory size are judged: a million
    claimed entries cost nothing before they are refused."""
    try:
        reader = ZipReader(stream.fileno())
    except ZipProblem as error:
        raise UnreadableZip(str(error)) from None
    except OSError as error:
        raise UnreadableZip(f"OSError: {error.strerror or error}") from None
    if reader.directory_size > ZIP_DIRECTORY_MAX_BYTES:
        raise UnreadableZip(f"a central directory of {reader.directory_size} bytes, more than "
                            f"the {ZIP_DIRECTORY_MAX_BYTES} a framework zip may hold")
    return reader
