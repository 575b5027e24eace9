"""Zips broken the ways an extractor notices and a listing does not, and zips of many entries.

`many_entries_zip` writes stored, empty entries straight as bytes (zipfile takes minutes for
millions): local headers (optional), the central directory, zip64 records when needed, and an
end record whose entry count may lie.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

LOCAL = struct.Struct("<4s5H3L2H")
CENTRAL = struct.Struct("<4s6H3L5H2L")


def central_offset(data: bytes) -> int:
    """Where the central directory starts (from the classic end record)."""
    at = data.rfind(b"PK\x05\x06")
    return struct.unpack_from("<L", data, at + 16)[0]


def zero_local_headers(path: Path) -> None:
    """Every byte before the central directory set to zero: a listing still reads fine."""
    data = path.read_bytes()
    cd = central_offset(data)
    path.write_bytes(bytes(cd) + data[cd:])


def central_directory_only(path: Path) -> None:
    """Only the central directory and the end record, moved to the start of the file."""
    data = path.read_bytes()
    cd = central_offset(data)
    tail = bytearray(data[cd:])
    at = tail.rfind(b"PK\x05\x06")
    struct.pack_into("<L", tail, at + 16, 0)
    path.write_bytes(bytes(tail))


def patch_local(path: Path, entry: int, **fields: int | bytes) -> None:
    """Change fields of the `entry`-th local header (name=, method=, crc=, compressed=, size=)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        offset = archive.infolist()[entry].header_offset
    sig, version, flags, method, time, date, crc, comp, size, nlen, xlen = LOCAL.unpack_from(
        data, offset)
    method = int(fields.get("method", method))  # type: ignore[arg-type]
    crc = int(fields.get("crc", crc))  # type: ignore[arg-type]
    comp = int(fields.get("compressed", comp))  # type: ignore[arg-type]
    size = int(fields.get("size", size))  # type: ignore[arg-type]
    LOCAL.pack_into(data, offset, sig, version, flags, method, time, date, crc, comp, size,
                    nlen, xlen)
    if "name" in fields:
        name = fields["name"]
        assert isinstance(name, bytes) and len(name) == nlen
        data[offset + LOCAL.size:offset + LOCAL.size + nlen] = name
    path.write_bytes(bytes(data))


def many_entries_zip(path: Path, name: str, count: int, *, claimed: int | None = None,
                     local: bool = True) -> None:
    """`count` empty stored entries `<name>.xcframework/f<i>`; the end record says `claimed`."""
    with path.open("wb") as out:
        offsets = []
        position = 0
        if local:
            chunk = []
            for i in range(count):
                entry = f"{name}.xcframework/f{i}".encode()
                offsets.append(position)
                record = LOCAL.pack(b"PK\x03\x04", 20, 0, 0, 0, 0x21, 0, 0, 0, len(entry), 0)
                chunk.append(record + entry)
                position += len(record) + len(entry)
                if len(chunk) == 65536:
                    out.write(b"".join(chunk))
                    chunk = []
            out.write(b"".join(chunk))
        cd_offset = position
        chunk = []
        for i in range(count):
            entry = f"{name}.xcframework/f{i}".encode()
            offset = offsets[i] if local else 0
            chunk.append(CENTRAL.pack(b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0,
                                      len(entry), 0, 0, 0, 0, 0, offset) + entry)
            position += CENTRAL.size + len(entry)
            if len(chunk) == 65536:
                out.write(b"".join(chunk))
                chunk = []
        out.write(b"".join(chunk))
        cd_size = position - cd_offset
        total = count if claimed is None else claimed
        if total > 0xFFFF or cd_offset > 0xFFFFFFFF:
            zip64_at = position
            out.write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, total, total,
                                  cd_size, cd_offset))
            out.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, zip64_at, 1))
            out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF,
                                  0xFFFFFFFF, 0xFFFFFFFF, 0))
        else:
            out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, total, total, cd_size,
                                  cd_offset, 0))
