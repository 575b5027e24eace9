"""Read what the zip rules need: the central directory, and the few small metadata entries.

zipfile reads the central directory once; only entries whose base name is `Info.plist` or
`info.json` (what SwiftPM reads to find a binary artifact) are decompressed, each at most
METADATA_MAX_BYTES and at most METADATA_MAX_FILES of them. Framework binaries are never read.
"""

from __future__ import annotations

import posixpath
import stat
import zipfile
from pathlib import Path
from typing import IO

from swiftpm_guard.core.zip_rules import METADATA_NAMES, ZipContents, ZipEntry

METADATA_MAX_BYTES = 1 << 20
METADATA_MAX_FILES = 512
ENTRIES_MAX = 500_000


class UnreadableZip(Exception):
    """The bytes are not a zip zipfile can read (the message says why)."""


def read_zip_contents(source: Path | IO[bytes]) -> ZipContents:
    try:
        with zipfile.ZipFile(source) as archive:
            infos = archive.infolist()
            if len(infos) > ENTRIES_MAX:
                raise UnreadableZip(f"more than {ENTRIES_MAX} entries")
            entries = tuple(ZipEntry(i.filename, _is_link(i)) for i in infos)
            metadata: dict[str, bytes] = {}
            for info in infos:
                if len(metadata) >= METADATA_MAX_FILES:
                    break
                if (not info.is_dir() and posixpath.basename(info.filename).lower()
                        in METADATA_NAMES and info.file_size <= METADATA_MAX_BYTES):
                    with archive.open(info) as stream:
                        metadata[info.filename] = stream.read(METADATA_MAX_BYTES + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError,
            ValueError, EOFError) as error:
        raise UnreadableZip(f"{type(error).__name__}: {error}") from None
    return ZipContents(entries, metadata)


def _is_link(info: zipfile.ZipInfo) -> bool:
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)
