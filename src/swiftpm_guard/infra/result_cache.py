"""Results of slow tools (SwiftPM's evaluation, a consumer's resolve) kept on disk by key.

A key is the hash of the entry format, the tool's identity (real path, size, modification
time: another toolchain may judge differently) and what was asked. A missing or damaged entry
is a miss; an entry that cannot be written costs only time next run. Entries are written
atomically, so parallel runs never read half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


class ResultCache:
    def __init__(self, folder: Path, entry_format: str) -> None:
        self.folder = folder
        self.entry_format = entry_format

    def key(self, tool: str, *parts: str) -> str:
        real = os.path.realpath(tool)
        try:
            info = os.stat(real)
            identity = f"{real}\0{info.st_size}\0{info.st_mtime_ns}"
        except OSError:
            identity = real
        hasher = hashlib.sha256(f"{self.entry_format}\0{identity}".encode())
        for part in parts:
            hasher.update(f"\0{part}".encode())
        return hasher.hexdigest()

    def load(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != self.entry_format:
            return None
        return data

    def store(self, key: str, data: dict[str, Any]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{key}.", dir=self.folder)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({**data, "format": self.entry_format}, stream)
            os.replace(temporary, self.folder / f"{key}.json")
        except OSError:
            return
