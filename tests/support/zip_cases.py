"""Seeded framework zips for the differential tier: the guard's zip rules against SwiftPM's resolve.

Each `ZipCase` is one binary target's zip: a real-shaped `<name>.xcframework` (support/release.py
`write_real_zip`: iOS static-library slices and a versioned macOS framework whose
`Versions/Current` and top-level items are symlinks) rewritten byte by byte
(support/zip_build.py) with one to three of these, from a seeded `random.Random`:

- every file deflated (the shape `zip -r` writes), or left stored;
- an entry compressed another way (bzip2, LZMA, zstd: real streams; method 99 or 6: raw bytes);
- a stored entry whose two sizes differ; a CRC both headers misstate; a CRC only the local
  header misstates; a version needed to extract above what unzip implements;
- a deflate stream with bytes flipped, cut short, or followed by junk; a deflated entry whose
  headers misstate its size;
- data descriptors; a duplicated entry, a name only case tells apart, a file where a folder must
  be;
- a symlink entry: absolute, `..` past the root, out of its bundle, through another link, in a
  loop, or well inside its bundle; made on Unix, Atari ST (unzip makes links for both) or MS-DOS
  and OS X (it does not).

The entry changed is the Info.plist (read by the default check), the library binary, a header,
the macOS bundle's own Info.plist or a link. `ZipCase.needs_full` says the damage is in data the
default check does not read (only `--verify-zips` can see it).
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from support.release import write_real_zip
from support.zip_build import (
    BZIP2,
    DEFLATED,
    LZMA,
    STORED,
    ZSTD,
    Member,
    build,
    compress,
    members_of,
)

#: The parts of a framework a change lands on.
PARTS = ("plist", "binary", "header", "bundle_plist")
#: Which of the parts the default check reads (metadata by name: every Info.plist).
READ_BY_DEFAULT = frozenset({"plist", "bundle_plist"})


@dataclass(frozen=True)
class ZipCase:
    ident: str  # the binary target's name, `z<N>_…`
    data: bytes
    changes: tuple[str, ...]  # what was done, in words
    needs_full: bool = False  # the damage is in data only --verify-zips reads


def _path(name: str, part: str) -> str:
    root = f"{name}.xcframework"
    return {
        "plist": f"{root}/Info.plist",
        "binary": f"{root}/ios-arm64/lib{name}.a",
        "header": f"{root}/ios-arm64/Headers/{name}.h",
        "bundle_plist": f"{root}/macos-arm64_x86_64/{name}.framework/Versions/A/Resources/"
                        "Info.plist",
    }[part]


def base_members(name: str, folder: Path, payload: int = 2048) -> list[Member]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-base.zip"
    write_real_zip(path, name, payload_size=payload)
    members = members_of(path)
    path.unlink()
    return members


Change = Callable[[random.Random, str, list[Member]], tuple[list[Member], str, bool]]


def _at(members: list[Member], path: str, **fields: object) -> list[Member]:
    return [replace(m, **fields) if m.name == path else m  # type: ignore[arg-type]
            for m in members]


def _member(members: list[Member], path: str) -> Member:
    return next(m for m in members if m.name == path)


def _part(rng: random.Random) -> str:
    return rng.choice(PARTS)


def deflate_all(rng: random.Random, name: str, members: list[Member]
                ) -> tuple[list[Member], str, bool]:
    # Only what no other change has touched: a payload or size set stays as it was said.
    return ([replace(m, method=DEFLATED) if not m.is_dir and not m.link and m.method == STORED
             and m.payload is None and m.size is None else m for m in members],
            "every file deflated", False)


def other_method(rng: random.Random, name: str, members: list[Member]
                 ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    method = rng.choice((BZIP2, LZMA, ZSTD, 99, 6))
    path = _path(name, part)
    member = _member(members, path)
    if method in (BZIP2, LZMA, ZSTD):
        changed = replace(member, method=method, payload=None)
    else:
        changed = replace(member, method=method, payload=member.data)
    return ([changed if m.name == path else m for m in members],
            f"{part} compressed with method {method}", False)


def stored_sizes(rng: random.Random, name: str, members: list[Member]
                 ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    path = _path(name, part)
    member = _member(members, path)
    delta = rng.choice((-3, -1, 1, 7))
    if rng.random() < 0.5:
        changed = replace(member, method=STORED, payload=member.data,
                          size=max(0, len(member.data) + delta))
        said = f"{part} stored, its uncompressed size off by {delta}"
    else:
        cut = member.data[:max(0, len(member.data) + min(delta, -1))]
        changed = replace(member, method=STORED, payload=cut, size=len(member.data))
        said = f"{part} stored with {len(member.data) - len(cut)} bytes fewer than it says"
    return [changed if m.name == path else m for m in members], said, False


def crc_both(rng: random.Random, name: str, members: list[Member]
             ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    path = _path(name, part)
    wrong = zlib.crc32(_member(members, path).data) ^ (1 << rng.randrange(32))
    return (_at(members, path, crc=wrong), f"{part}'s CRC misstated in both headers",
            part not in READ_BY_DEFAULT)


def crc_local(rng: random.Random, name: str, members: list[Member]
              ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    path = _path(name, part)
    wrong = zlib.crc32(_member(members, path).data) ^ 0xFFFF
    return _at(members, path, local_crc=wrong), f"{part}'s CRC misstated in its local header", False


def needed(rng: random.Random, name: str, members: list[Member]
           ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    version = rng.choice((20, 45, 46, 51, 63))
    return (_at(members, _path(name, part), needed=version),
            f"{part} needs version {version} to extract", False)


def deflate_stream(rng: random.Random, name: str, members: list[Member]
                   ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    path = _path(name, part)
    member = _member(members, path)
    stream = compress(member.data, DEFLATED)
    how = rng.choice(("flip", "flip", "cut", "junk", "size"))
    hidden = part not in READ_BY_DEFAULT
    if how == "flip":
        at = tuple(rng.randrange(len(stream)) for _ in range(rng.choice((1, 3))))
        changed = replace(member, method=DEFLATED, payload=stream, flip=at)
        said = f"{part}'s deflate stream with bytes flipped at {list(at)}"
    elif how == "cut":
        keep = rng.randrange(0, len(stream))
        changed = replace(member, method=DEFLATED, payload=stream[:keep])
        said = f"{part}'s deflate stream cut to {keep} of {len(stream)} bytes"
        hidden = hidden and keep > 0  # an empty deflate entry is refused from its headers
    elif how == "junk":
        changed = replace(member, method=DEFLATED, payload=stream + b"junk" * rng.randint(1, 4))
        said = f"{part}'s deflate stream followed by junk (SwiftPM's unzip ignores it)"
    else:
        changed = replace(member, method=DEFLATED, payload=stream,
                          size=len(member.data) + rng.choice((-2, 5)))
        said = f"{part} deflated with a misstated size (SwiftPM's unzip does not check it)"
    return [changed if m.name == path else m for m in members], said, hidden


def descriptors(rng: random.Random, name: str, members: list[Member]
                ) -> tuple[list[Member], str, bool]:
    return [replace(m, descriptor=True) for m in members], "data descriptors", False


def names(rng: random.Random, name: str, members: list[Member]
          ) -> tuple[list[Member], str, bool]:
    part = _part(rng)
    member = _member(members, _path(name, part))
    how = rng.choice(("duplicate", "case", "folder"))
    if how == "duplicate":
        return [*members, replace(member, data=member.data[::-1])], f"{part} twice", False
    if how == "case":
        upper = member.name.rsplit("/", 1)
        other = f"{upper[0]}/{upper[1].upper()}"
        return ([*members, replace(member, name=other)],
                f"{part} and a copy named {other.rsplit('/', 1)[1]!r}", False)
    return ([*members, Member(member.name + "/sub")],
            f"{part} is a file and a folder's name", False)


_BUNDLE = "macos-arm64_x86_64/{name}.framework"


def link(rng: random.Random, name: str, members: list[Member]
         ) -> tuple[list[Member], str, bool]:
    root = f"{name}.xcframework"
    bundle = f"{root}/{_BUNDLE.format(name=name)}"
    host = rng.choice((3, 3, 3, 5, 0, 19))
    how = rng.choice(("absolute", "up", "out_of_bundle", "through", "loop", "inside",
                      "current"))
    part = rng.choice(("plist", "binary", "header"))
    path = _path(name, part)
    if how == "absolute":
        # Not a folder for Info.plist: SwiftPM would search all of it (the whole machine).
        target = rng.choice(("/etc/passwd",) if part == "plist" else ("/etc/passwd", "/tmp",
                                                                      "/"))
    elif how == "up":
        target = "../" * (path.count("/") + rng.randint(0, 2)) + "etc/passwd"
    elif how == "out_of_bundle":
        path = f"{bundle}/Headers"
        target = "../../ios-arm64/Headers"
    elif how == "through":
        path = f"{bundle}/Escape"
        target = "Versions/Current/" + "../" * rng.randint(2, 5) + "x"
    elif how == "loop":
        path = f"{bundle}/Loop"
        extra = Member(f"{bundle}/Loop2", b"Loop", link=True, host=host)
        members = [*members, extra]
        target = "Loop2"
    elif how == "inside":
        path = f"{bundle}/Extra"
        target = "Versions/Current/Headers"
    else:  # Versions/Current itself retargeted
        path = f"{bundle}/Versions/Current"
        target = rng.choice(("A", "./A", "../Versions/A", "../../..", "/Versions/A"))
    member = Member(path, target.encode(), link=True, host=host)
    out = [m for m in members if m.name != path]
    out.append(member)
    return out, f"{path.removeprefix(root + '/')} a link (host {host}) to {target!r}", False


CHANGES: tuple[Change, ...] = (deflate_all, other_method, stored_sizes, crc_both, crc_local,
                               needed, deflate_stream, descriptors, names, link)
#: How often each is drawn, against CHANGES.
WEIGHTS = (3, 3, 2, 3, 1, 2, 4, 1, 2, 5)


def generate(seed: int, count: int, folder: Path) -> list[ZipCase]:
    rng = random.Random(seed)
    cases = []
    for number in range(count):
        name = f"z{seed}_{number}"
        members = base_members(name, folder, payload=rng.choice((64, 2048, 40_000)))
        said: list[str] = []
        hidden = False
        if rng.random() < 0.1:
            said.append("unchanged")
        else:
            for change in rng.choices(CHANGES, WEIGHTS, k=rng.choice((1, 1, 2, 3))):
                members, what, secret = change(rng, name, members)
                said.append(what)
                hidden = hidden or secret
        cases.append(ZipCase(name, build(members), tuple(said), hidden))
    return cases


def issue_24_cases(folder: Path) -> dict[str, ZipCase]:
    """The five zips issue 24 names (each damage in the library binary, which the default
    check does not read; the CRC and the deflate stream in Info.plist too, which it does) and
    the symlink out of the archive (the library Info.plist lists is a link to /etc/passwd),
    with one well-formed control."""
    def case(key: str, ident: str, edit: Callable[[list[Member], str], list[Member]],
             hidden: bool = False, part: str = "binary") -> ZipCase:
        members = base_members(ident, folder)
        return ZipCase(ident, build(edit(members, _path(ident, part))), (key,), hidden)

    def with_data(m: list[Member], path: str, **fields: object) -> list[Member]:
        return _at(m, path, data=bytes(range(256)) * 16, **fields)

    return {
        "well-formed (control)": case("control", "i_control", lambda m, p: m),
        "LZMA (method 14)": case("lzma", "i_lzma", lambda m, p: _at(m, p, method=LZMA)),
        "zstd (method 93)": case("zstd", "i_zstd", lambda m, p: _at(m, p, method=ZSTD)),
        "stored, sizes differ": case("stored", "i_stored",
                                     lambda m, p: _at(m, p, size=len(_member(m, p).data) + 1)),
        "CRC misstated in both headers": case(
            "crc", "i_crc", lambda m, p: _at(m, p, crc=zlib.crc32(_member(m, p).data) ^ 1),
            hidden=True),
        "corrupted deflate stream": case(
            "deflate", "i_deflate", lambda m, p: with_data(m, p, method=DEFLATED, flip=(40,)),
            hidden=True),
        "CRC misstated in both headers, of Info.plist": case(
            "crc", "i_crc_plist",
            lambda m, p: _at(m, p, crc=zlib.crc32(_member(m, p).data) ^ 1), part="plist"),
        "corrupted deflate stream, of Info.plist": case(
            "deflate", "i_deflate_plist",
            lambda m, p: _at(m, p, method=DEFLATED, flip=(40,)), part="plist"),
        "library is a link to /etc/passwd": case(
            "link", "i_link", lambda m, p: _at(m, p, link=True, data=b"/etc/passwd")),
    }


def moved_past(prefix: bytes, data: bytes) -> bytes:
    """`prefix` before the zip with every offset moved past it (a self-extracting archive)."""
    out = bytearray(prefix + data)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        struct.pack_into("<L", out, at + 42, struct.unpack_from("<L", out, at + 42)[0]
                         + len(prefix))
        at = out.find(b"PK\x01\x02", at + 46)
    end = out.rfind(b"PK\x05\x06")
    struct.pack_into("<L", out, end + 16, struct.unpack_from("<L", out, end + 16)[0]
                     + len(prefix))
    return bytes(out)


def issue_31_cases(folder: Path) -> dict[str, ZipCase]:
    """The zips issue 31 names, each outside the one shape the guard accepts: a second valid
    xcframework and an XCFramework Info.plist at the root (SwiftPM takes them), a Unicode Path
    extra field, `./` and `//` twins of a name, bytes before the first local header or before
    the end record, and a CRC both headers misstate (read only when every entry is)."""
    def case(key: str, ident: str, edit: Callable[[list[Member], str], list[Member] | bytes],
             hidden: bool = False) -> ZipCase:
        members = base_members(ident, folder)
        made = edit(members, _path(ident, "binary"))
        return ZipCase(ident, made if isinstance(made, bytes) else build(made), (key,), hidden)

    def second(m: list[Member], path: str) -> list[Member]:
        return [*base_members("extra", folder / "extra"), *m]

    def root_plist(m: list[Member], path: str) -> list[Member]:
        plist = _member(m, path.split("/", 1)[0] + "/Info.plist")
        return [replace(plist, name="Info.plist"), *m]

    def unicode_path(m: list[Member], path: str) -> list[Member]:
        other = path.rsplit("/", 1)[0] + "/other.a"
        body = b"\x01" + struct.pack("<L", zlib.crc32(path.encode())) + other.encode()
        return _at(m, path, extra=struct.pack("<2H", 0x7075, len(body)) + body)

    def twin(m: list[Member], path: str, name: str) -> list[Member]:
        return [*m, replace(_member(m, path), name=name)]

    def end_gap(m: list[Member], path: str) -> bytes:
        data = build(m)
        end = data.rfind(b"PK\x05\x06")
        return data[:end] + b"junk" + data[end:]

    return {
        "well-formed (control)": case("control", "j_control", lambda m, p: m),
        "a second valid xcframework": case("second", "j_second", second),
        "an XCFramework Info.plist at the root": case("root-plist", "j_root_plist", root_plist),
        "a Unicode Path extra field": case("unicode-path", "j_unicode_path", unicode_path),
        "`./` twin of a name": case("dot", "j_dot", lambda m, p: twin(m, p, f"./{p}")),
        "`//` twin of a name": case("slashes", "j_slashes",
                                    lambda m, p: twin(m, p, p.replace("/", "//", 1))),
        "bytes before the first local header": case(
            "prefix", "j_prefix", lambda m, p: moved_past(b"#!/bin/sh\nexit 0\n", build(m))),
        "bytes before the end record": case("end-gap", "j_end_gap", end_gap),
        "CRC misstated in both headers": case(
            "crc", "j_crc", lambda m, p: _at(m, p, crc=zlib.crc32(_member(m, p).data) ^ 1),
            hidden=True),
    }
