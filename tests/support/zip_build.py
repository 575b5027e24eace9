"""Zips written byte by byte, every header field ours to choose (issue 24).

`Member` is one entry as it should appear in both headers: its data and method, and any field
that should lie (the CRC, the sizes, one header's CRC only), a symlink, the host that made it,
the version needed to extract, a data descriptor, bytes of its compressed stream flipped.
`build` lays the members out as an archiver would: local header, data (and descriptor), then
the central directory and the end record. Methods are really compressed: 0 stored, 8 raw
deflate, 12 bzip2, 14 LZMA (zipfile's framing: version, properties, raw LZMA1), 93 a zstd frame
of raw blocks (valid zstd; no compressor needed). `members_of` reads a zip that `zipfile`
wrote (support/release.py) back into members, so a real-shaped framework can be broken one
entry at a time.
"""

from __future__ import annotations

import bz2
import lzma
import stat
import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

LOCAL = struct.Struct("<4s5H3L2H")
CENTRAL = struct.Struct("<4s6H3L5H2L")
END = struct.Struct("<4s4H2LH")
STORED, DEFLATED, BZIP2, LZMA, ZSTD = 0, 8, 12, 14, 93
_NEEDED = {STORED: 10, DEFLATED: 20, BZIP2: 46, LZMA: 63, ZSTD: 63}
_DOS_TIME, _DOS_DATE = 0, 0x5A21  # 2025-01-01 00:00


@dataclass(frozen=True)
class Member:
    name: str
    data: bytes = b""
    method: int = STORED
    link: bool = False  # a Unix symlink: `data` is its target
    host: int = 3  # the "version made by" system: 3 Unix, 0 MS-DOS, 19 OS X
    crc: int | None = None  # the CRC both headers state (None: the data's own)
    local_crc: int | None = None  # the local header's alone (None: as the central's)
    size: int | None = None  # the uncompressed size both headers state
    compressed_size: int | None = None  # the compressed size both headers state
    needed: int | None = None  # version needed to extract (None: the method's)
    descriptor: bool = False  # sizes and CRC after the data (flag bit 3), zero in the local
    flip: tuple[int, ...] = ()  # offsets into the compressed stream to XOR with 0x55
    payload: bytes | None = None  # the compressed stream as stored (None: compress `data`)
    extra: bytes = b""  # extra fields, in both headers

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")


def compress(data: bytes, method: int) -> bytes:
    if method == STORED:
        return data
    if method == DEFLATED:
        packer = zlib.compressobj(6, zlib.DEFLATED, -15)
        return packer.compress(data) + packer.flush()
    if method == BZIP2:
        return bz2.compress(data)
    if method == LZMA:
        filters = [{"id": lzma.FILTER_LZMA1, "preset": 6}]
        props = lzma._encode_filter_properties(filters[0])  # type: ignore[attr-defined]
        raw = lzma.compress(data, format=lzma.FORMAT_RAW, filters=filters)
        return struct.pack("<BBH", 9, 4, len(props)) + props + raw
    if method == ZSTD:
        return zstd_frame(data)
    raise ValueError(f"no compressor for method {method}")


def zstd_frame(data: bytes) -> bytes:
    """A valid Zstandard frame holding `data` in raw blocks: magic, a single-segment header
    with an 8-byte content size, then blocks of at most 128 KiB (the last one flagged)."""
    out = bytearray(struct.pack("<LB", 0xFD2FB528, 0b11100000) + struct.pack("<Q", len(data)))
    pieces = [data[i:i + (128 << 10)] for i in range(0, len(data), 128 << 10)] or [b""]
    for number, piece in enumerate(pieces):
        last = number == len(pieces) - 1
        header = (len(piece) << 3) | int(last)  # block type 0: raw
        out += header.to_bytes(3, "little") + piece
    return bytes(out)


def _mode(member: Member) -> int:
    if member.is_dir:
        return ((stat.S_IFDIR | 0o755) << 16) | 0x10
    if member.link:
        return (stat.S_IFLNK | 0o755) << 16
    return (stat.S_IFREG | 0o644) << 16


def build(members: Sequence[Member]) -> bytes:
    out = bytearray()
    central = bytearray()
    for member in members:
        payload = member.payload if member.payload is not None else compress(member.data,
                                                                           member.method)
        if member.flip:
            damaged = bytearray(payload)
            for at in member.flip:
                damaged[at % len(damaged)] ^= 0x55
            payload = bytes(damaged)
        crc = zlib.crc32(member.data) if member.crc is None else member.crc
        local_crc = crc if member.local_crc is None else member.local_crc
        size = len(member.data) if member.size is None else member.size
        compressed = len(payload) if member.compressed_size is None else member.compressed_size
        needed = member.needed if member.needed is not None else _NEEDED.get(member.method, 20)
        flags = 0x800 | (0x08 if member.descriptor else 0)
        name = member.name.encode()
        offset = len(out)
        if member.descriptor:
            out += LOCAL.pack(b"PK\x03\x04", needed, flags, member.method, _DOS_TIME, _DOS_DATE,
                              0, 0, 0, len(name), len(member.extra))
        else:
            out += LOCAL.pack(b"PK\x03\x04", needed, flags, member.method, _DOS_TIME, _DOS_DATE,
                              local_crc, compressed, size, len(name), len(member.extra))
        out += name + member.extra + payload
        if member.descriptor:
            out += struct.pack("<4s3L", b"PK\x07\x08", local_crc, compressed, size)
        made_by = (member.host << 8) | 30
        central += CENTRAL.pack(b"PK\x01\x02", made_by, needed, flags, member.method, _DOS_TIME,
                                _DOS_DATE, crc, compressed, size, len(name), len(member.extra),
                                0, 0, 0, _mode(member), offset) + name + member.extra
    cd_offset = len(out)
    out += central
    out += END.pack(b"PK\x05\x06", 0, 0, len(members), len(members), len(central), cd_offset, 0)
    return bytes(out)


def members_of(path: Path) -> list[Member]:
    """A zip `zipfile` can read, as members (each kept stored, as written)."""
    found = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            link = info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)
            found.append(Member(info.filename, archive.read(info), link=link))
    return found


def changed(members: Sequence[Member], name: str, **fields: object) -> list[Member]:
    """The members with the one named `name` changed (`fields` as in Member)."""
    assert any(m.name == name for m in members), name
    return [replace(m, **fields) if m.name == name else m  # type: ignore[arg-type]
            for m in members]
