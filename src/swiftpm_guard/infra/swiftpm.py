"""The real SwiftPM: which `swift` runs, evaluating a rendered package, and resolving a throwaway
consumer of it, with results cached on disk.

`dump-package` and `describe --type json` run at the same time, each on its own copy of the
package (the manifest plus the stub folders: SwiftPM locks `.build`), with a throwaway HOME;
neither downloads. A real manifest can cost tens of seconds in Swift's type checker, so results
are cached by a hash of everything SwiftPM sees and the `swift` executable's identity. `resolve`
has a consumer depend on the package by path, so SwiftPM downloads, verifies and unpacks every
binary target as on an app's machine; a cache hit does not download again (`--verify-urls`
always does).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import tempfile
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swiftpm_guard.core import resolution
from swiftpm_guard.core.model import Rendered
from swiftpm_guard.core.resolution import Resolution, ResolveTarget
from swiftpm_guard.core.swiftpm_evaluation import (
    MANIFEST,
    PACKAGE_DIR,
    CommandResult,
    Evaluation,
    interpret,
)
from swiftpm_guard.errors import (
    InfrastructureError,
    InputError,
    Overrun,
    UnreadableOutput,
    UsageError,
)
from swiftpm_guard.infra import process
from swiftpm_guard.infra.fs import open_regular, read_bytes, walk
from swiftpm_guard.limits import TREE_MAX_DEPTH


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


#: Generous: the real manifest took ~45 s of CPU, and CI shares two cores.
DEFAULT_TIMEOUT = 900.0
#: Stub folders hold one tiny file each; anything far bigger is not a stub tree.
STUBS_MAX_BYTES = 16 * 1024 * 1024
STUBS_MAX_ENTRIES = 10_000
_CACHE_FORMAT = "swiftpm-guard-swiftpm-cache-1"
_DUMP = ("package", "dump-package")
_DESCRIBE = ("package", "describe", "--type", "json")


@dataclass(frozen=True, slots=True)
class PackageFiles:
    """Everything SwiftPM will see: the manifest and the stub tree (dirs have `data=None`).
    `stub_root` is where the stub tree sits in the package (its entries' first folder)."""

    manifest: str
    entries: tuple[tuple[str, bytes | None], ...] = ()
    stub_root: str | None = None

    def digest(self) -> str:
        hasher = hashlib.sha256()
        hasher.update(self.manifest.encode("utf-8"))
        for relative, data in self.entries:
            hasher.update(b"\0d\0" if data is None else b"\0f\0")
            hasher.update(relative.encode("utf-8"))
            if data is not None:
                hasher.update(hashlib.sha256(data).digest())
        return hasher.hexdigest()

    def write(self, root: Path) -> None:
        root.mkdir(parents=True)
        (root / MANIFEST).write_text(self.manifest, encoding="utf-8")
        for relative, data in self.entries:
            target = root / relative
            if data is None:
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)


@dataclass(frozen=True, slots=True)
class Run:
    evaluation: Evaluation
    seconds: float
    cached: bool


def package_files(rendered: Rendered) -> PackageFiles:
    """The rendered manifest plus the template's stub tree, read from disk."""
    template = rendered.template
    if template.stubs_dir is None:
        return PackageFiles(rendered.text)
    root = Path(template.stubs_dir)
    place = _stub_place(Path(template.path).parent, root)
    if template.stubs_path is not None and template.stubs_path != template.stubs_dir:
        # Shown by its path in a ref, read from a scratch folder: the files come from disk,
        # their place in the package from the paths as shown.
        root = Path(template.stubs_path)
        place = posixpath.relpath(template.stubs_dir, posixpath.dirname(template.path) or ".")
    entries: list[tuple[str, bytes | None]] = [(place, None)]
    total = 0
    for here, dirnames, filenames in walk(root, max_depth=TREE_MAX_DEPTH, display=str(root),
                                          what="stub folder"):
        for name in dirnames:
            entries.append((_relative(place, root, here / name), None))
        for name in filenames:
            path = here / name
            if path.is_symlink() or not path.is_file():
                continue  # nothing outside the stub tree gets copied in
            # Opened without following a link and without blocking: the file may have been
            # swapped for a link or a FIFO since the walk saw it. Capped at what is left.
            data = read_bytes(path, display=str(path), max_bytes=max(0, STUBS_MAX_BYTES - total),
                              what="stub file", follow_symlinks=False)
            total += len(data)
            entries.append((_relative(place, root, path), data))
        if total > STUBS_MAX_BYTES or len(entries) > STUBS_MAX_ENTRIES:
            raise InputError(
                f"stub folders hold more than {STUBS_MAX_BYTES} bytes or "
                f"{STUBS_MAX_ENTRIES} entries; not stubs",
                file=str(root),
            )
    return PackageFiles(rendered.text, tuple(entries), stub_root=place)


def _stub_place(template_dir: Path, stubs: Path) -> str:
    """Where the stub root sits in the package: as beside the template, else by its name."""
    try:
        relative = stubs.resolve().relative_to(template_dir.resolve())
    except ValueError:
        return stubs.resolve().name
    return relative.as_posix() if relative.parts else stubs.resolve().name


def _relative(place: str, root: Path, path: Path) -> str:
    return f"{place}/{path.relative_to(root).as_posix()}"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "swiftpm-guard" / "swiftpm"


class SwiftPM:
    """One `swift` executable, a cache folder and a time limit per command."""

    def __init__(
        self, swift: str, *, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.swift = swift
        self.cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
        self.cache = ResultCache(self.cache_dir, _CACHE_FORMAT)
        self.timeout = timeout

    def evaluate(self, package: PackageFiles) -> Run:
        started = time.monotonic()
        key = self.cache.key(self.swift, package.digest())
        cached = self._load(key)
        if cached is not None:
            dump, describe = cached
            return Run(self._interpret(dump, describe), time.monotonic() - started, True)
        dump, describe = self._run_both(package)
        evaluation = self._interpret(dump, describe)
        self.cache.store(key, {"dump": dump.as_dict(), "describe": describe.as_dict()})
        return Run(evaluation, time.monotonic() - started, False)

    def _interpret(self, dump: CommandResult, describe: CommandResult) -> Evaluation:
        try:
            return interpret(dump, describe)
        except UnreadableOutput as error:
            raise InfrastructureError(f"{self.swift}: {error}") from None

    def _load(self, key: str) -> tuple[CommandResult, CommandResult] | None:
        data = self.cache.load(key)
        if data is None:
            return None
        try:
            return CommandResult.from_dict(data["dump"]), CommandResult.from_dict(data["describe"])
        except (ValueError, KeyError, TypeError):
            return None  # a damaged entry is simply a miss

    def _run_both(self, package: PackageFiles) -> tuple[CommandResult, CommandResult]:
        with tempfile.TemporaryDirectory(prefix="swiftpm-guard.") as scratch:
            work = Path(scratch)
            env = _evaluation_env(work / "home")
            runs = []
            for name, arguments in (("dump", _DUMP), ("describe", _DESCRIBE)):
                folder = work / name / PACKAGE_DIR
                package.write(folder)
                runs.append(([self.swift, *arguments], folder))
            with ThreadPoolExecutor(max_workers=2) as pool:
                futures = [pool.submit(self._run, argv, folder, env) for argv, folder in runs]
                dump, describe = (future.result() for future in futures)
            return dump, describe

    def dump(self, folder: Path) -> CommandResult:
        """`dump-package` of the package in `folder` as it stands (no copy, no cache): what a
        checkout evaluates to."""
        with tempfile.TemporaryDirectory(prefix="swiftpm-guard-home.") as home:
            return self._run([self.swift, *_DUMP], folder, _evaluation_env(Path(home)))

    def _run(self, argv: Sequence[str], cwd: Path, env: dict[str, str]) -> CommandResult:
        code, stdout, stderr = run_swift(argv, cwd=cwd, env=env, timeout=self.timeout)
        return CommandResult(code, _decode(stdout), _decode(stderr))


#: The only variables a swift we start sees, by exact name. A manifest is code SwiftPM compiles
#: and runs, so it must never see the job's environment (the tokens, `INPUT_*`, `GITHUB_*`),
#: and the job must not steer the toolchain (`SWIFT_DRIVER_*_EXEC` names the programs swift
#: runs): where the tools are, the locale, the throwaway HOME, deterministic hashing, the Xcode
#: a macOS runner selected (`DEVELOPER_DIR`, `TOOLCHAINS`) and our wrapper's two.
_SWIFT_ENV = frozenset({"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "DEVELOPER_DIR",
                        "TOOLCHAINS", "SWIFT_DETERMINISTIC_HASHING", "SWIFTPM_GUARD_CA_FILE",
                        "SWIFTPM_GUARD_LIST_ARTIFACTS"})


def swift_environment(env: Mapping[str, str]) -> dict[str, str]:
    """`env` less everything not allow-listed for a swift process (see _SWIFT_ENV)."""
    return {name: value for name, value in env.items() if name in _SWIFT_ENV}


def _evaluation_env(home: Path) -> dict[str, str]:
    """What an evaluating swift gets: a throwaway HOME (made here) and deterministic hashing."""
    home.mkdir(exist_ok=True)
    return {**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1", "HOME": str(home)}


def run_swift(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float,
              merge_stderr: bool = False) -> tuple[int, bytes, bytes]:
    """`swift …` with only the allow-listed part of `env` (infra.process: a group of its own,
    stopped whole past `timeout`, TERM first so the toolchain wrapper cleans up): exit code,
    stdout and stderr (empty when merged into stdout, for SwiftPM's lines in the order
    printed). A failure to start, an overrun or a signal is InfrastructureError (exit 3)."""
    shown = " ".join(argv[1:])
    try:
        done = process.run(argv, cwd=cwd, env=swift_environment(env), timeout=timeout,
                           merge_stderr=merge_stderr, grace=5.0)
    except Overrun as overrun:
        if not overrun.timeout:
            raise
        raise InfrastructureError(f"swift {shown} took longer than {timeout:.0f} s; stopped it"
                                  ) from None
    if done.returncode < 0:
        raise InfrastructureError(f"swift {shown} was killed by signal {-done.returncode}")
    return done.returncode, done.stdout, done.stderr


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


#: SwiftPM prints a line or two per target; far more is not worth keeping.
OUTPUT_MAX_CHARS = 4 * 1024 * 1024
_RESOLVE_CACHE_FORMAT = "swiftpm-guard-resolve-cache-1"
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
        # The bounded open: `--swift` names any path, a FIFO included.
        with open_regular(swift, display=swift, what="swift") as stream:
            head = stream.read(4096)
    except InputError:
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
        self.cache = ResultCache(self.cache_dir, _RESOLVE_CACHE_FORMAT)
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
        return ResolveRun(resolution.interpret(manifest, targets, code, output),
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
