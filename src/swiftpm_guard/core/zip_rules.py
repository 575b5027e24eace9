"""What a framework zip must hold for SwiftPM and Xcode, judged from its entry list (pure).

The reading (sources/zip_archive.py) refuses any zip outside one narrow shape; what it refuses
per entry arrives as `Damage`, symlink entries with the target they hold. This module judges
the rest. The root of `NAME-<version>.zip` holds exactly one folder, `NAME.xcframework/`, and
nothing else, and its `Info.plist` is XCFramework metadata: SwiftPM's own search (the first
folder, from the top down, with valid metadata) then can only pick `NAME.xcframework`, so the
guard needs no model of it.
"""

from __future__ import annotations

import plistlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.core.option_names import option

_REQUIRED = ("LibraryIdentifier", "LibraryPath", "SupportedPlatform")
_OPTIONAL = ("HeadersPath", "SupportedPlatformVariant")


@dataclass(frozen=True, slots=True)
class ZipEntry:
    name: str  # as stored; folders end in "/"
    is_link: bool = False  # a symlink unzip creates (S_IFLNK from a system whose modes it reads)
    target: str | None = None  # a link's target as stored (None: not read)

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")


@dataclass(frozen=True, slots=True)
class Damage:
    """One entry SwiftPM's unzip cannot extract, and why (its method, sizes, CRC, stream)."""

    entry: str
    why: str


@dataclass(frozen=True, slots=True)
class ZipContents:
    """A zip's entries and the metadata files' bytes (by entry name; absent if too large), the
    entries that do not extract, and why the full check (if asked) did not finish."""

    entries: tuple[ZipEntry, ...]
    metadata: Mapping[str, bytes]
    damaged: tuple[Damage, ...] = ()
    unverified: str | None = None


@dataclass(frozen=True, slots=True)
class Library:
    identifier: str
    path: str
    platform: str
    variant: str | None = None
    architectures: tuple[str, ...] = ()


def decode_xcframework(data: bytes) -> tuple[Library, ...] | str:
    """XCFramework metadata as SwiftPM's PropertyListDecoder needs it; else why not."""
    try:
        value = plistlib.loads(data)
    except Exception as error:  # plistlib raises several unrelated types on bad input
        return f"not a property list ({type(error).__name__})"
    if not isinstance(value, dict) or not isinstance(value.get("AvailableLibraries"), list):
        return "no AvailableLibraries array"
    libraries = []
    for number, item in enumerate(value["AvailableLibraries"]):
        if not isinstance(item, dict):
            return f"AvailableLibraries[{number}] is not a dictionary"
        for key in _REQUIRED:
            if not isinstance(item.get(key), str):
                return f"AvailableLibraries[{number}] has no string {key}"
        architectures = item.get("SupportedArchitectures")
        if not isinstance(architectures, list) or not all(isinstance(a, str)
                                                          for a in architectures):
            return f"AvailableLibraries[{number}] has no SupportedArchitectures list"
        for key in _OPTIONAL:
            if key in item and not isinstance(item[key], str):
                return f"AvailableLibraries[{number}] {key} is not a string"
        libraries.append(Library(item["LibraryIdentifier"], item["LibraryPath"],
                                 item["SupportedPlatform"], item.get("SupportedPlatformVariant"),
                                 tuple(architectures)))
    return tuple(libraries)


def folders(contents: ZipContents) -> set[str]:
    """Every folder unzip creates ("" is the root), stored or implied by a path."""
    found = {""}
    for entry in contents.entries:
        path = entry.name.rstrip("/")
        parent = path if entry.is_dir else posixpath.dirname(path)
        while parent and parent not in found:
            found.add(parent)
            parent = posixpath.dirname(parent)
    return found


def strays(contents: ZipContents, name: str) -> list[str]:
    """Entries outside `NAME.xcframework/`, the one thing a framework zip's root may hold."""
    inside = f"{name}.xcframework/"
    return [e.name for e in contents.entries if not e.name.startswith(inside)]


def root_findings(contents: ZipContents, file: str, name: str) -> list[Finding]:
    """`zip-layout` for each entry beside `NAME.xcframework/` (a second xcframework, a root
    `Info.plist`, `__MACOSX/`: SwiftPM could take it as the target), or for none there."""
    root = f"{name}.xcframework/"
    found = [_finding("zip-layout", file, entry,
                      f"{entry} is beside {root} at the zip's root: a framework zip holds "
                      f"{root} and nothing else, or SwiftPM may take another folder as the "
                      f"target; zip only {root} (`ditto -c -k --keepParent {root.rstrip('/')} "
                      "…`, or `zip -ry -X`)")
             for entry in strays(contents, name)]
    if len(found) == len(contents.entries):
        found.insert(0, _finding("zip-layout", file, root,
                                 f"no {root} at the zip's root: SwiftPM cannot map it to the "
                                 "target"))
    return _capped(found, "zip-layout", file, "entries are beside the xcframework")


def shape_problem(contents: ZipContents) -> str | None:
    """Why a downloaded zip is not one `X.xcframework/` folder with XCFramework metadata and
    nothing beside it (None: it is)."""
    tops = sorted({e.name.split("/", 1)[0] for e in contents.entries})
    if len(tops) != 1 or not tops[0].endswith(".xcframework"):
        shown = ", ".join(tops[:5]) + (", …" if len(tops) > 5 else "")
        return (f"its root holds {shown or 'nothing'}, not exactly one X.xcframework folder "
                "(SwiftPM may take any of them as the target)")
    (root,) = tops
    stray = strays(contents, root.removesuffix(".xcframework"))
    if stray:
        return f"{stray[0]} is a file at its root, not the folder {root}/"
    plist = contents.metadata.get(f"{root}/Info.plist")
    if plist is None:
        return f"{root}/Info.plist is missing or unreadable"
    decoded = decode_xcframework(plist)
    return f"{root}/Info.plist is not XCFramework metadata ({decoded})" \
        if isinstance(decoded, str) else None


def _finding(code: str, file: str, entry: str, message: str,
             severity: Severity = Severity.ERROR) -> Finding:
    # The entry is the subject: the file is the zip, the entry is where in it.
    return Finding(code, severity, entry, message, file)


def plist_findings(contents: ZipContents, file: str, name: str) -> list[Finding]:
    """`<name>.xcframework/Info.plist` readable, decodable, every library path present."""
    root = f"{name}.xcframework"
    plist_name = f"{root}/Info.plist"
    data = contents.metadata.get(plist_name)
    names = {e.name.rstrip("/") for e in contents.entries}
    if data is None:
        if root not in folders(contents) or any(d.entry == plist_name
                                                for d in contents.damaged):
            return []  # no such root, or it does not extract: zip-layout's finding already
        linked = any(e.is_link and e.name == plist_name for e in contents.entries)
        why = ("is a symlink (SwiftPM reads through it; the guard does not follow it)"
               if linked else "is too large to read" if plist_name in names else "is missing")
        return [_finding("zip-plist", file, plist_name,
                         f"{plist_name} {why}: SwiftPM finds no binary artifact in this zip")]
    decoded = decode_xcframework(data)
    if isinstance(decoded, str):
        return [_finding("zip-plist", file, plist_name,
                         f"{plist_name} is not XCFramework metadata ({decoded}): SwiftPM "
                         "finds no binary artifact in this zip")]
    every = folders(contents) | names
    found = []
    for library in decoded:
        path = f"{root}/{library.identifier}/{library.path}"
        if path.rstrip("/") not in every:
            found.append(_finding(
                "zip-library-missing", file, path,
                f"{plist_name} lists {library.identifier}/{library.path} "
                f"({library.platform}) but the zip holds no {path}: Xcode fails to build "
                "for that platform"))
    return found


def symlink_findings(contents: ZipContents, file: str) -> list[Finding]:
    """A versioned (macOS) framework keeps Versions/Current and its top-level items as links.

    `zip -r` without `-y` stores copies instead: the bundle then has two of everything and
    its code signature no longer verifies.
    """
    by_name = {e.name.rstrip("/"): e for e in contents.entries}
    every = folders(contents) | set(by_name)
    found = []
    for bundle in sorted(f for f in every if f.endswith(".framework") and f in folders(contents)):
        versions = f"{bundle}/Versions"
        if versions not in every:
            continue  # a shallow (iOS) bundle: no links expected
        expected = [f"{versions}/Current"] if f"{versions}/Current" in every else []
        expected += sorted(p for p in every if posixpath.dirname(p) == bundle and p != versions)
        for path in expected:
            entry = by_name.get(path)
            if entry is not None and entry.is_link:
                continue
            found.append(_finding(
                "zip-symlinks", file, path,
                f"{path} is stored as a copy, not a symlink: the framework bundle is "
                "flattened (zip without -y), so code signing and Xcode's embedding fail"))
    return found


def signature_findings(contents: ZipContents, file: str) -> list[Finding]:
    """Informational: whether the xcframework carries a code signature."""
    signed = sorted({e.name.split("_CodeSignature/", 1)[0] + "_CodeSignature/"
                     for e in contents.entries if "_CodeSignature/" in e.name})
    if signed:
        return [_finding("zip-signature", file, signed[0],
                         f"code-signed: {', '.join(signed[:3])}", Severity.NOTICE)]
    return [_finding("zip-signature", file, posixpath.basename(file),
                     "not code-signed (no _CodeSignature/ in the zip)", Severity.NOTICE)]


#: Links followed while resolving one target before it counts as a loop (Linux's MAXSYMLINKS).
LINK_HOPS = 40
#: Findings of one kind per zip; the rest are counted in one more.
_SHOWN = 10
#: The folders a link must stay inside, innermost first: its framework bundle, else its
#: XCFramework or artifact bundle, else the archive.
_BUNDLES = (".framework", ".xcframework", ".artifactbundle")


def link_boundary(name: str) -> str:
    """The folder a link entry at `name` must resolve inside ("" is the archive's root)."""
    parents = name.rstrip("/").split("/")[:-1]
    for suffix in _BUNDLES:
        for at in range(len(parents) - 1, -1, -1):
            if parents[at].endswith(suffix):
                return "/".join(parents[:at + 1])
    return ""


def resolve_link(name: str, target: str, links: Mapping[str, str]) -> tuple[str | None, str]:
    """Where the link at `name` holding `target` leads once extracted, every path component
    followed through the archive's other links (`links`: entry name → target) as the file
    system would: (the path inside the archive, "") or (None, how it leaves the archive)."""
    if target.startswith("/"):
        return None, "an absolute path"
    stack: list[str] = []
    pending = [*name.rstrip("/").split("/")[:-1], *target.split("/")]
    pending.reverse()  # a stack: the next component last
    hops = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not stack:
                return None, "above the archive's root"
            stack.pop()
            continue
        stack.append(part)
        through = links.get("/".join(stack))
        if through is None:
            continue
        hops += 1
        if hops > LINK_HOPS:
            return None, f"more than {LINK_HOPS} links deep (a loop)"
        if through.startswith("/"):
            return None, f"through {'/'.join(stack)}, a link to an absolute path"
        stack.pop()
        pending += reversed(through.split("/"))
    return "/".join(stack), ""


def link_findings(contents: ZipContents, file: str) -> list[Finding]:
    """`zip-link` for each symlink entry whose target, resolved as the extracted tree resolves
    it, leaves the archive (an absolute path, `..` past the root) or its framework bundle."""
    links = {e.name.rstrip("/"): e.target for e in contents.entries
             if e.is_link and e.target}
    found: list[Finding] = []
    for name, target in links.items():
        shown = target[:200]
        resolved, how = resolve_link(name, target, links)
        if resolved is None:
            found.append(_finding(
                "zip-link", file, name,
                f"{name} is a symlink to {shown!r}, which leaves the archive ({how}): unzip "
                "extracts it as it is, so SwiftPM and Xcode read or copy whatever the "
                "consumer's machine has there"))
            continue
        boundary = link_boundary(name)
        if boundary and resolved != boundary and not resolved.startswith(boundary + "/"):
            found.append(_finding(
                "zip-link", file, name,
                f"{name} is a symlink to {shown!r}, which resolves to {resolved[:200]!r}, "
                f"outside {boundary}: the bundle does not hold what the link names, so a "
                "copy of the bundle (Xcode's embedding) carries a dangling link"))
    return _capped(found, "zip-link", file, "symlink entries leave the archive or their bundle")


def damage_findings(contents: ZipContents, file: str) -> list[Finding]:
    """`zip-layout` for each entry refused (outside the accepted shape, or its data does not
    extract: SwiftPM's unzip would read it another way, or refuse the zip), naming it."""
    found = [_finding("zip-layout", file, d.entry,
                      f"{d.entry} is refused: {d.why}; rebuild the zip with ditto or zip -ry")
             for d in contents.damaged]
    return _capped(found, "zip-layout", file, "entries are refused")


def unverified_findings(contents: ZipContents, file: str) -> list[Finding]:
    """`zip-unverified` when the full check (`--verify-zips`) stopped at its bound."""
    if contents.unverified is None:
        return []
    return [_finding("zip-unverified", file, posixpath.basename(file),
                     f"{option('verify-zips')} could not verify every entry: "
                     f"{contents.unverified}; SwiftPM's unzip tests every entry, so whether it "
                     "accepts this zip is not known")]


def _capped(found: list[Finding], code: str, file: str, what: str) -> list[Finding]:
    if len(found) <= _SHOWN:
        return found
    rest = len(found) - _SHOWN
    return [*found[:_SHOWN], _finding(code, file, posixpath.basename(file),
                                      f"{rest} more {what} (the first {_SHOWN} are shown)")]


def extraction_problem(contents: ZipContents) -> str | None:
    """Why SwiftPM cannot extract this zip, in one sentence, or None (for --verify-urls)."""
    if not contents.damaged:
        return None
    first = contents.damaged[0]
    more = len(contents.damaged) - 1
    return f"{first.entry}: {first.why}" + (f" (and {more} more entries)" if more else "")


def content_findings(contents: ZipContents, file: str, name: str) -> list[Finding]:
    """Every rule above for the zip of binary target `name`."""
    return [*root_findings(contents, file, name), *damage_findings(contents, file),
            *unverified_findings(contents, file),
            *plist_findings(contents, file, name), *link_findings(contents, file),
            *symlink_findings(contents, file),
            *signature_findings(contents, file)]
