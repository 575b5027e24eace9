"""Run the real `swift package resolve` as a consumer would (adapter: files, a subprocess, a cache).

A throwaway consumer package depends on the rendered manifest by path (`dependency/`, with the
stub folders beside it, exactly what `swift package dump-package` sees); resolving it makes
SwiftPM download every binary target, verify its checksum and look inside the archive, as on a
consumer's machine. HOME is a fresh folder so no SwiftPM cache or configuration of this machine
answers for the network. Output (stdout and stderr in order) and exit code are kept raw; the
reading is core/resolution.py.

Results are cached by the manifest and stub tree's hash, every target's URL and checksum, and
the `swift` executable's identity. A cache hit does not download again: a zip re-uploaded
after a cached success is caught by `--verify-urls` (which always downloads) or by resolving
with a fresh cache folder.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from swiftpm_guard.core.resolution import Resolution, ResolveTarget, interpret
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.result_cache import ResultCache
from swiftpm_guard.infra.swiftpm import PackageFiles, default_cache_dir, run_swift

DEFAULT_TIMEOUT = 900.0
#: SwiftPM prints a line or two per target; far more is not worth keeping.
OUTPUT_MAX_CHARS = 4 * 1024 * 1024
_CACHE_FORMAT = "swiftpm-guard-resolve-cache-1"
CONSUMER_MANIFEST = """\
// swift-tools-version:5.9
// A consumer of the package under test, written by swiftpm-guard: resolving it downloads
// every binary target of the dependency exactly as an app's resolve would.
import PackageDescription

let package = Package(
  name: "swiftpm-guard-consumer",
  dependencies: [.package(path: "dependency")],
  targets: []
)
"""
#: Read by the toolchain wrapper `bin/swift-net` of scripts/swift-toolchain.sh (a real swift
#: ignores it): a PEM the run trusts besides the system's CAs.
CA_ENV = "SWIFTPM_GUARD_CA_FILE"
#: What the network-less evaluation wrapper says of itself (scripts/swift-toolchain.sh).
_OFFLINE_WRAPPER = b"swiftpm-guard trixie chroot: network unshared"


@dataclass(frozen=True, slots=True)
class ResolveRun:
    resolution: Resolution
    seconds: float
    cached: bool


def default_resolve_cache_dir() -> Path:
    return default_cache_dir().parent / "resolve"


def _refuse_offline_wrapper(swift: str) -> None:
    """The evaluation wrapper has no network: every download would fail, blamed on targets."""
    try:
        with open(swift, "rb") as stream:
            head = stream.read(4096)
    except OSError:
        return  # not readable here: running it will say what is wrong
    if _OFFLINE_WRAPPER in head:
        twin = Path(swift).with_name("swift-net")
        raise UsageError(f"{swift} runs SwiftPM without a network; resolve needs a swift that "
                         f"can download, e.g. {twin} (scripts/swift-toolchain.sh --resolver)")


class Resolver:
    """One `swift` that can reach the zips' hosts, a cache folder, a time limit, a CA file."""

    def __init__(self, swift: str, *, cache_dir: Path | None = None,
                 timeout: float = DEFAULT_TIMEOUT, ca_file: Path | None = None) -> None:
        _refuse_offline_wrapper(swift)
        self.swift = swift
        self.cache_dir = cache_dir if cache_dir is not None else default_resolve_cache_dir()
        self.cache = ResultCache(self.cache_dir, _CACHE_FORMAT)
        self.timeout = timeout
        self.ca_file = ca_file

    def resolve(self, manifest: str, package: PackageFiles,
                targets: Sequence[ResolveTarget]) -> ResolveRun:
        started = time.monotonic()
        asked = [f"{t.name}\0{t.url}\0{t.checksum}" for t in sorted(targets, key=lambda t: t.name)]
        key = self.cache.key(self.swift, package.digest(), *asked)
        stored = self._load(key)
        cached = stored is not None
        if stored is None:
            stored = self._run(package)
            self.cache.store(key, {"exit_code": stored[0], "output": stored[1]})
        code, output = stored
        return ResolveRun(interpret(manifest, targets, code, output),
                          time.monotonic() - started, cached)

    def _load(self, key: str) -> tuple[int, str] | None:
        data = self.cache.load(key)
        try:
            return None if data is None else (int(data["exit_code"]), str(data["output"]))
        except (ValueError, KeyError, TypeError):
            return None  # a damaged entry is a miss

    def _run(self, package: PackageFiles) -> tuple[int, str]:
        with tempfile.TemporaryDirectory(prefix="swiftpm-guard-resolve.") as scratch:
            work = Path(scratch)
            consumer = work / "consumer"
            package.write(consumer / "dependency")
            (consumer / "Package.swift").write_text(CONSUMER_MANIFEST, encoding="utf-8")
            home = work / "home"
            home.mkdir()
            env = {**os.environ, "HOME": str(home)}
            if self.ca_file is not None:
                env[CA_ENV] = str(self.ca_file)
            return self._execute([self.swift, "package", "resolve"], consumer, env)

    def _execute(self, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
        code, stdout, _ = run_swift(argv, cwd=cwd, env=env, timeout=self.timeout,
                                    merge_stderr=True)
        return code, stdout.decode("utf-8", errors="replace")[-OUTPUT_MAX_CHARS:]
