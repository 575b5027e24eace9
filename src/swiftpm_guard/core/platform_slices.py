"""Platform coverage: each binary target's XCFramework holds a library for every platform the
manifest declares, device and simulator, and none that needs a newer OS than declared (pure).

An app builds for a platform the manifest's `platforms:` declares; when the XCFramework has no
library for it (its `Info.plist`'s `AvailableLibraries`: `SupportedPlatform`,
`SupportedPlatformVariant`), or a library's minimum OS is above the manifest's, the consumer
fails at link time, long after the release was published.

What decides:
- the platforms are SwiftPM's (`dump-package`'s `platforms`): the text alone cannot say them
  exactly without modelling Swift (core.static_gate), so without SwiftPM nothing is compared;
- the libraries are the built zip's own `NAME.xcframework/Info.plist`; a zip not read (a
  checksums file, a declared name) says nothing;
- a library's minimum OS is the one its framework bundle's own `Info.plist` states:
  `MinimumOSVersion` (iOS, tvOS, watchOS, visionOS) or `LSMinimumSystemVersion` (macOS), as
  Apple's Information Property List reference defines them. A static library has no
  `Info.plist` (its minimum is in its Mach-O load commands, not read), and a Mac Catalyst
  bundle states a macOS version where the manifest's `.macCatalyst` is an iOS one: neither is
  compared.
"""

from __future__ import annotations

import plistlib
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from swiftpm_guard.core.model import Artifact, Finding, Severity, Slice
from swiftpm_guard.core.zip_rules import Library, ZipContents, decode_xcframework

MISSING = "missing-slice"
MINIMUM = "slice-minimum-os"


@dataclass(frozen=True, slots=True)
class Platform:
    """One entry of the evaluated manifest's `platforms:` (SwiftPM's `platformName`)."""

    name: str  # `ios`, `macos`, `maccatalyst`, `tvos`, `watchos`, `visionos`, …
    version: str  # `17.0`


@dataclass(frozen=True, slots=True)
class Need:
    """A library an app building for a platform links: its SupportedPlatform and variant."""

    platform: str
    variant: str | None
    shown: str


#: SwiftPM's platform name → how it is written, and the libraries an app building for it
#: links (device and simulator). Platforms without XCFramework libraries (Linux, …) need none.
NEEDS: dict[str, tuple[str, tuple[Need, ...]]] = {
    "ios": ("iOS", (Need("ios", None, "iOS device"), Need("ios", "simulator", "iOS Simulator"))),
    "tvos": ("tvOS", (Need("tvos", None, "tvOS device"),
                      Need("tvos", "simulator", "tvOS Simulator"))),
    "watchos": ("watchOS", (Need("watchos", None, "watchOS device"),
                            Need("watchos", "simulator", "watchOS Simulator"))),
    "visionos": ("visionOS", (Need("xros", None, "visionOS device"),
                              Need("xros", "simulator", "visionOS Simulator"))),
    "macos": ("macOS", (Need("macos", None, "macOS"),)),
    "maccatalyst": ("Mac Catalyst", (Need("ios", "maccatalyst", "Mac Catalyst"),)),
}
#: The key of a framework bundle's Info.plist stating its minimum OS, by SupportedPlatform
#: (Mac Catalyst, the `maccatalyst` variant, is left out: its number is macOS's).
_MINIMUM_KEYS = {"ios": "MinimumOSVersion", "tvos": "MinimumOSVersion",
                 "watchos": "MinimumOSVersion", "xros": "MinimumOSVersion",
                 "macos": "LSMinimumSystemVersion"}
_VERSION = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4}){0,2}")


# -- reading: the slices of a zip ---------------------------------------------------------------


def read_slices(contents: ZipContents, name: str) -> tuple[Slice, ...] | None:
    """The libraries `NAME.xcframework/Info.plist` lists, each with its bundle's minimum OS;
    None when there is no such metadata (zip-plist's finding says so)."""
    root = f"{name}.xcframework"
    data = contents.metadata.get(f"{root}/Info.plist")
    if data is None:
        return None
    decoded = decode_xcframework(data)
    if isinstance(decoded, str):
        return None
    links = {e.name.rstrip("/"): e.target for e in contents.entries if e.is_link and e.target}
    return tuple(_slice(contents, links, f"{root}/{library.identifier}/{library.path}", library)
                 for library in decoded)


def _slice(contents: ZipContents, links: dict[str, str], bundle: str,
           library: Library) -> Slice:
    key = _MINIMUM_KEYS.get(library.platform) if library.variant != "maccatalyst" else None
    minimum = where = None
    if key is not None and library.path.endswith(".framework"):
        for candidate in _bundle_plists(bundle, links):
            data = contents.metadata.get(candidate)
            stated = _stated(data, key) if data is not None else None
            if stated is not None:
                minimum, where = stated, candidate
                break
    return Slice(library.identifier, library.platform, library.variant, library.architectures,
                 library.path, minimum, where)


def _bundle_plists(bundle: str, links: dict[str, str]) -> list[str]:
    """Where a framework bundle keeps its Info.plist: at its top (iOS-style, shallow), or in
    `Resources/` of the version `Versions/Current` names (macOS-style, versioned)."""
    current = posixpath.normpath(f"{bundle}/Versions/"
                                 f"{links.get(f'{bundle}/Versions/Current', 'Current')}")
    return [f"{bundle}/Info.plist", f"{bundle}/Resources/Info.plist",
            f"{current}/Resources/Info.plist"]


def _stated(data: bytes, key: str) -> str | None:
    """The version string `key` holds in a bundle's Info.plist (XML or binary), if any."""
    try:
        value = plistlib.loads(data)
    except Exception:  # plistlib raises several unrelated types on bad input
        return None
    stated = value.get(key) if isinstance(value, dict) else None
    return stated if isinstance(stated, str) and _VERSION.fullmatch(stated) else None


# -- the rule -------------------------------------------------------------------------------------


def version_key(text: str) -> tuple[int, ...] | None:
    """`17`, `17.0`, `17.0.0` → (17, 0, 0); None for anything else."""
    if not _VERSION.fullmatch(text):
        return None
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def coverage_findings(target: str, platforms: Sequence[Platform], artifact: Artifact,
                      file: str, line: int | None = None) -> list[Finding]:
    """`missing-slice` for each library an app building for a declared platform links and the
    XCFramework lacks; `slice-minimum-os` for each library whose bundle needs a newer OS than
    the manifest declares. Nothing when the zip's libraries are not known."""
    if artifact.slices is None:
        return []
    zip_name = artifact.file_name or f"the {artifact.name} zip"
    root = f"{artifact.name}.xcframework"
    held = _listed([s.identifier for s in artifact.slices])
    found: list[Finding] = []
    for platform in platforms:
        shown, needs = NEEDS.get(platform.name, ("", ()))
        declared = version_key(platform.version)
        for need in needs:
            matching = [s for s in artifact.slices
                        if (s.platform, s.variant) == (need.platform, need.variant)]
            if not matching:
                variant = (f"SupportedPlatformVariant {need.variant}" if need.variant
                           else "no SupportedPlatformVariant")
                found.append(Finding(
                    MISSING, Severity.ERROR, target,
                    f"binary target '{target}' has no {need.shown} library in {zip_name}, yet "
                    f"the manifest declares {shown} {platform.version} (platforms:): an app "
                    f"building for {need.shown} fails to link; {root}/Info.plist lists no "
                    f"library with SupportedPlatform {need.platform} and {variant} (it holds "
                    f"{held})",
                    file, line))
            for piece in matching if need.variant != "maccatalyst" else ():  # macOS numbers
                needed = version_key(piece.minimum_os) if piece.minimum_os else None
                if declared is None or needed is None or needed <= declared:
                    continue
                found.append(Finding(
                    MINIMUM, Severity.ERROR, target,
                    f"binary target '{target}': library {_short(piece.identifier)} "
                    f"({need.shown}) in "
                    f"{zip_name} needs {shown} {piece.minimum_os}, above the "
                    f"{platform.version} the manifest declares (platforms:): an app deploying "
                    f"to {shown} {platform.version} fails to link it; {piece.minimum_from} "
                    f"says {_MINIMUM_KEYS.get(piece.platform, 'minimum OS')} "
                    f"{piece.minimum_os}",
                    file, line))
    return found


#: Library identifiers named in one message, and the characters shown of each: the zip's
#: Info.plist may list any number, of any length.
_SHOWN = 6
_IDENTIFIER_MAX = 80


def _short(identifier: str) -> str:
    return identifier if len(identifier) <= _IDENTIFIER_MAX else \
        identifier[:_IDENTIFIER_MAX - 1] + "…"


def _listed(identifiers: Sequence[str]) -> str:
    """`ios-arm64, macos-arm64_x86_64`, at most _SHOWN of them, then how many more."""
    if not identifiers:
        return "no library"
    shown = ", ".join(_short(i) for i in identifiers[:_SHOWN])
    rest = len(identifiers) - _SHOWN
    return shown + (f" and {rest} more" if rest > 0 else "")
