"""A zip archive read as SwiftPM's extractor would meet it, bounded in work and memory.

`ZipReader` streams the central directory (1 MiB chunks, parsed as it streams, at most
ZIP_MAX_ENTRIES entries) and checks every entry against its local header: at its offset, the
same name, method, flags and (without a data descriptor) CRC and sizes, its data before the
central directory. An extractor walks the local headers, so a zip whose directory lists entries
that are not really there is no built framework, whatever its listing says. Nothing is
decompressed there. `read_zip_contents` then reads what the zip rules need from the same open
file: the end record first (count and directory size judged before anything is listed), then the
entry names and the few small metadata entries (`Info.plist`, `info.json`), each capped; one
that does not extract is a DamagedEntry, never a zlib.error."""

from __future__ import annotations

import os
import posixpath
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from swiftpm_guard.core.zip_rules import METADATA_NAMES, ZipContents, ZipEntry
from swiftpm_guard.infra.fs import open_regular
from swiftpm_guard.limits import ZIP_DIRECTORY_MAX_BYTES, ZIP_MAX_ENTRIES

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
        for entry in sorted(batch, key=lambda e: e.offset):
            self._check_local(entry)
        yield from batch

    def _window_bytes(self, offset: int, length: int) -> bytes:
        start = offset - self._window_start
        if start < 0 or start + length > len(self._window):
            limit = self._cd_offset
            self._window_start = offset
            self._window = self._read(offset, max(0, min(max(_WINDOW, length), limit - offset)))
            start = 0
        return self._window[start:start + length]

    def _check_local(self, entry: Entry) -> None:
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
        data_end = entry.offset + _LOCAL.size + name_len + extra_len + entry.compressed
        if data_end > self._cd_offset:
            raise ZipProblem(f"{where}: its data runs into the central directory (truncated?)")


def _entry(fields: tuple[int, ...], raw_name: bytes, extra: bytes) -> Entry:
    flags, method, crc = fields[3], fields[4], fields[7]
    compressed, size, offset = fields[8], fields[9], fields[16]
    compressed, size, offset = _zip64_fields(extra, compressed, size, offset)
    name = raw_name.decode("utf-8" if flags & _UTF8 else "cp437", "replace")
    return Entry(name, raw_name, flags, method, crc, compressed, size, offset)


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


class UnreadableZip(Exception):
    """The bytes are not a zip zipfile can read (the message says why)."""


class DamagedEntry(UnreadableZip):
    """The directory reads, but a metadata entry does not extract (a damaged deflate stream, a
    CRC that differs): SwiftPM's unzip fails on it."""


def read_zip_contents(source: Path | BinaryIO) -> ZipContents:
    """The entry names and the small metadata entries, read from an open zip (the descriptor
    that was hashed: never a second open by name), or from a path opened the bounded way."""
    if isinstance(source, Path):
        with open_regular(source, display=str(source), what="zip") as stream:
            return _contents(stream)
    return _contents(source)


def _contents(stream: BinaryIO) -> ZipContents:
    _judge_end_record(stream)
    stream.seek(0)
    try:
        with zipfile.ZipFile(stream) as archive:
            infos = archive.infolist()
            entries = tuple(ZipEntry(i.filename, _is_link(i)) for i in infos)
            metadata: dict[str, bytes] = {}
            for info in infos:
                if len(metadata) >= METADATA_MAX_FILES:
                    break
                if (not info.is_dir() and posixpath.basename(info.filename).lower()
                        in METADATA_NAMES and info.file_size <= METADATA_MAX_BYTES):
                    metadata[info.filename] = _extract(archive, info)
    except DamagedEntry:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError,
            ValueError, EOFError, zlib.error, struct.error) as error:
        raise UnreadableZip(f"{type(error).__name__}: {error}") from None
    return ZipContents(entries, metadata)


def _judge_end_record(stream: BinaryIO) -> None:
    """The entry count and the central directory's size, from the end record, before zipfile
    reads (and keeps) every entry: a million claimed entries cost nothing here."""
    try:
        reader = ZipReader(stream.fileno())
    except ZipProblem as error:
        raise UnreadableZip(str(error)) from None
    except OSError as error:
        raise UnreadableZip(f"OSError: {error.strerror or error}") from None
    if reader.directory_size > ZIP_DIRECTORY_MAX_BYTES:
        raise UnreadableZip(f"a central directory of {reader.directory_size} bytes, more than "
                            f"the {ZIP_DIRECTORY_MAX_BYTES} a framework zip may hold")


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One metadata entry's bytes, at most METADATA_MAX_BYTES + 1; DamagedEntry when its data
    does not decompress or check (zlib.error, a bad CRC, an unsupported method)."""
    try:
        with archive.open(info) as member:
            return member.read(METADATA_MAX_BYTES + 1)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error,
            struct.error, OSError, ValueError) as error:
        shown = info.filename[:120]
        raise DamagedEntry(f"entry {shown!r} does not extract ({type(error).__name__}: "
                           f"{str(error)[:200]})") from None


def _is_link(info: zipfile.ZipInfo) -> bool:
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)
