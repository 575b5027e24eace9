"""Run the real SwiftPM on a rendered package (adapter: files, subprocesses, a result cache).

The package is the rendered manifest plus the stub folders, copied to a fresh temporary folder
named `package`. `swift package dump-package` and `swift package describe --type json` run there
at the same time, each on its own copy (SwiftPM locks its `.build` folder, so one copy would
serialise them), with `SWIFT_DETERMINISTIC_HASHING=1` and a throwaway HOME so no user
configuration leaks in. Neither command downloads binary targets or resolves dependencies; the
toolchain wrapper from `scripts/swift-toolchain.sh` additionally runs them with no network.

Evaluating a real-shaped manifest can cost tens of seconds of CPU in Swift's type checker, so
results are cached by a hash of everything SwiftPM sees: the manifest text, the stub tree and
the identity of the `swift` executable.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from swiftpm_guard.core.evaluation import (
    MANIFEST,
    PACKAGE_DIR,
    CommandResult,
    Evaluation,
    UnreadableOutput,
    interpret,
)
from swiftpm_guard.core.model import Rendered
from swiftpm_guard.errors import InfrastructureError, InputError
from swiftpm_guard.infra.fs import read_bytes
from swiftpm_guard.infra.result_cache import ResultCache

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
    """Everything SwiftPM will see: the manifest and the stub tree (dirs have `data=None`)."""

    manifest: str
    entries: tuple[tuple[str, bytes | None], ...] = ()

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
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        here = Path(dirpath)
        for name in dirnames:
            if not (here / name).is_symlink():
                entries.append((_relative(place, root, here / name), None))
        for name in sorted(filenames):
            path = here / name
            if path.is_symlink() or not path.is_file():
                continue  # nothing outside the stub tree gets copied in
            # Opened without following a link and without blocking: the file may have been
            # swapped for a link or a FIFO since the walk saw it. Capped at what is left.
            data = read_bytes(
                path,
                display=str(path),
                max_bytes=max(0, STUBS_MAX_BYTES - total),
                what="stub file",
                follow_symlinks=False,
            )
            total += len(data)
            entries.append((_relative(place, root, path), data))
        if total > STUBS_MAX_BYTES or len(entries) > STUBS_MAX_ENTRIES:
            raise InputError(
                f"stub folders hold more than {STUBS_MAX_BYTES} bytes or "
                f"{STUBS_MAX_ENTRIES} entries; not stubs",
                file=str(root),
            )
    return PackageFiles(rendered.text, tuple(entries))


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
            home = work / "home"
            home.mkdir()
            env = {**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1", "HOME": str(home)}
            runs = []
            for name, arguments in (("dump", _DUMP), ("describe", _DESCRIBE)):
                folder = work / name / PACKAGE_DIR
                package.write(folder)
                runs.append(([self.swift, *arguments], folder))
            with ThreadPoolExecutor(max_workers=2) as pool:
                futures = [pool.submit(self._run, argv, folder, env) for argv, folder in runs]
                dump, describe = (future.result() for future in futures)
            return dump, describe

    def _run(self, argv: Sequence[str], cwd: Path, env: dict[str, str]) -> CommandResult:
        code, stdout, stderr = run_swift(argv, cwd=cwd, env=env, timeout=self.timeout)
        return CommandResult(code, _decode(stdout), _decode(stderr))


def run_swift(argv: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float,
              merge_stderr: bool = False) -> tuple[int, bytes, bytes]:
    """`swift …` in a session of its own: exit code, stdout and stderr (empty when merged into
    stdout, for SwiftPM's lines in the order printed). Past `timeout` the whole process group
    is stopped; a failure to start, an overrun or a signal is InfrastructureError (exit 3)."""
    shown = " ".join(argv[1:])
    try:
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            start_new_session=True,  # so a timeout can stop swift's whole process group
        )
    except OSError as error:
        raise InfrastructureError(f"cannot run {argv[0]}: {error.strerror}") from None
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop_group(process)
        raise InfrastructureError(f"swift {shown} took longer than {timeout:.0f} s; stopped it"
                                  ) from None
    if process.returncode < 0:
        raise InfrastructureError(f"swift {shown} was killed by signal {-process.returncode}")
    return process.returncode, stdout, stderr or b""


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """TERM, then KILL, the process group; the toolchain wrapper cleans up on TERM."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.communicate(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue
