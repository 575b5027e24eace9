"""What a framework zip must hold for SwiftPM and Xcode, judged from its entry list (pure).

The reading (the central directory and the few small metadata entries) is
sources/zip_contents.py; this module only judges. `derive_artifacts` is SwiftPM's own search
(Swift 6.0, Workspace+BinaryArtifacts.swift): after unzipping, the first folder, from the
top down, holding an `Info.plist` that decodes as XCFramework metadata (or an `info.json`
that reads as an artifact bundle's) is the artifact; the folder's name does not matter. No
such folder: "does not contain a binary artifact", for every consumer.
"""

from __future__ import annotations

import plistlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from swiftpm_guard.core import json_depth
from swiftpm_guard.core.model import Finding, Severity

#: Metadata files SwiftPM reads, compared by lower-cased base name as SwiftPM does.
METADATA_NAMES = frozenset({"info.plist", "info.json"})
_REQUIRED = ("LibraryIdentifier", "LibraryPath", "SupportedPlatform")
_OPTIONAL = ("HeadersPath", "SupportedPlatformVariant")


@dataclass(frozen=True, slots=True)
class ZipEntry:
    name: str  # as stored; folders end in "/"
    is_link: bool = False  # a Unix symlink (external_attr file type S_IFLNK)

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")


@dataclass(frozen=True, slots=True)
class ZipContents:
    """A zip's entries and the metadata files' bytes (by entry name; absent if too large)."""

    entries: tuple[ZipEntry, ...]
    metadata: Mapping[str, bytes]


@dataclass(frozen=True, slots=True)
class Library:
    identifier: str
    path: str
    platform: str


@dataclass(frozen=True, slots=True)
class Artifact:
    folder: str  # "" for the zip's root, else "X.xcframework" (no trailing slash)
    kind: str  # "xcframework" or "artifactbundle"
    libraries: tuple[Library, ...] = ()


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
                                 item["SupportedPlatform"]))
    return tuple(libraries)


def _is_artifact_bundle(data: bytes) -> bool:
    """An approximation of SwiftPM's ArtifactsArchiveMetadata: schemaVersion and artifacts."""
    try:
        value = json_depth.loads(data)  # nested past the cap: not a bundle's metadata
    except (ValueError, UnicodeDecodeError):
        return False
    return (isinstance(value, dict) and isinstance(value.get("schemaVersion"), str)
            and isinstance(value.get("artifacts"), dict))


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


def _metadata_in(contents: ZipContents, folder: str) -> dict[str, bytes]:
    prefix = f"{folder}/" if folder else ""
    found: dict[str, bytes] = {}
    for name, data in contents.metadata.items():
        if posixpath.dirname(name) == folder.rstrip("/") and name.startswith(prefix):
            found[posixpath.basename(name).lower()] = data
    return found


def artifact_at(contents: ZipContents, folder: str) -> Artifact | None:
    metadata = _metadata_in(contents, folder)
    plist = metadata.get("info.plist")
    if plist is not None:
        decoded = decode_xcframework(plist)
        if not isinstance(decoded, str):
            return Artifact(folder, "xcframework", decoded)
    bundle = metadata.get("info.json")
    if bundle is not None and _is_artifact_bundle(bundle):
        return Artifact(folder, "artifactbundle")
    return None


def derive_artifacts(contents: ZipContents) -> list[Artifact]:
    """SwiftPM's search: a folder that is an artifact ends the search below it."""
    every = folders(contents)
    children: dict[str, list[str]] = {}
    for folder in every - {""}:
        children.setdefault(posixpath.dirname(folder), []).append(folder)
    found: list[Artifact] = []
    pending = [""]
    while pending:
        folder = pending.pop(0)
        artifact = artifact_at(contents, folder)
        if artifact is not None:
            found.append(artifact)
            continue
        pending += sorted(children.get(folder, []))
    return found


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
        if root not in folders(contents):
            return []  # no such root: zip-layout's finding already
        why = "is too large to read" if plist_name in names else "is missing"
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


def mixed_findings(contents: ZipContents, file: str) -> list[Finding]:
    tops = {e.name.split("/", 1)[0] for e in contents.entries}
    frameworks = sorted(t for t in tops if t.endswith(".xcframework"))
    bundles = sorted(t for t in tops if t.endswith(".artifactbundle"))
    if frameworks and bundles:
        return [_finding("zip-mixed", file, bundles[0],
                         f"the zip holds both {frameworks[0]} and {bundles[0]}: SwiftPM takes "
                         "only one of them as the binary target")]
    return []


def signature_findings(contents: ZipContents, file: str) -> list[Finding]:
    """Informational: whether the xcframework carries a code signature."""
    signed = sorted({e.name.split("_CodeSignature/", 1)[0] + "_CodeSignature/"
                     for e in contents.entries if "_CodeSignature/" in e.name})
    if signed:
        return [_finding("zip-signature", file, signed[0],
                         f"code-signed: {', '.join(signed[:3])}", Severity.NOTICE)]
    return [_finding("zip-signature", file, posixpath.basename(file),
                     "not code-signed (no _CodeSignature/ in the zip)", Severity.NOTICE)]


def content_findings(contents: ZipContents, file: str, name: str) -> list[Finding]:
    """Every rule above for the zip of binary target `name`."""
    return [*plist_findings(contents, file, name), *symlink_findings(contents, file),
            *mixed_findings(contents, file), *signature_findings(contents, file)]
