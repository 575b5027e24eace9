"""A clone carries everything its tests and tools read: nothing beside or above it is looked at.

Two checks, because either alone misses cases: the paths the test-support modules actually
hold once imported (what `../shared` lookups produced), and the source text of tests, scripts,
benchmarks, fuzzing and CI for ways of reaching a parent folder (what a new lookup would add).
A third keeps package registries' host names out of committed files, by hash, so this file
names none either.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

import support
from support.openapi import SUBSET, schema_path

ROOT = Path(__file__).resolve().parents[2]
#: Where tests and tools live; each is read as text and checked line by line.
SCANNED = ("tests", "scripts", "benchmarks", "fuzz", ".ci", ".github", "Makefile", "Dockerfile")
TEXT_SUFFIXES = {".py", ".sh", ".md", ".yml", ".yaml", ".toml", ".cfg", ".ini", ".txt", ""}
#: This file spells the patterns it looks for.
SELF = Path(__file__).resolve()


def _inside(path: Path) -> bool:
    return path.resolve().is_relative_to(ROOT)


def _support_paths() -> list[tuple[str, Path]]:
    """Every Path (or collection of Paths) a test-support module holds at module level."""
    found: list[tuple[str, Path]] = []
    for info in pkgutil.iter_modules(support.__path__):
        module = importlib.import_module(f"support.{info.name}")
        for name, value in vars(module).items():
            values = value if isinstance(value, tuple | list | set | frozenset) else (value,)
            found += [(f"support.{info.name}.{name}", v) for v in values if isinstance(v, Path)]
    return found


def test_test_support_paths_resolve_inside_the_repository():
    paths = _support_paths()
    assert "support.openapi.SUBSET" in {name for name, _ in paths}  # the scan sees constants
    outside = [f"{name} = {path}" for name, path in paths if not _inside(ROOT / path)]
    assert outside == []


def test_the_schema_is_read_from_the_repository_only():
    assert schema_path() == SUBSET and SUBSET.is_file()
    assert SUBSET.relative_to(ROOT).parts[:2] == ("tests", "support")


def _scanned_files() -> list[Path]:
    files: list[Path] = []
    for entry in SCANNED:
        top = ROOT / entry
        candidates = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in candidates:
            parts = set(path.relative_to(ROOT).parts)
            if (
                path.is_file()
                and path.resolve() != SELF
                and path.suffix in TEXT_SUFFIXES
                and not parts & {"__pycache__", ".hypothesis", "crashes"}
            ):
                files.append(path)
    return files


#: Reaching for a folder beside or above the clone, in any of the languages used here.
PARENT_REFERENCES = re.compile(
    r"\.\./shared"  # the old lookup
    r"|shared/github" r"-api"  # (split so this file does not match its own pattern)
    r"|[\"']shared[\"']"  # Path("shared") / ...
    r"|\.parents\b(?!\s*\[)"  # walking every ancestor
    r"|os\.pardir"
    r"|/\s*[\"']\.\.[\"']"  # ROOT / ".."
)
#: `Path(__file__)[.resolve()].parents[N]` or `.parent.parent...`: checked against the file.
FILE_ANCESTOR = re.compile(
    r"Path\(__file__\)(?:\.resolve\(\))?(?:\.parents\[(\d+)\]|((?:\.parent\b)+))"
)
#: `$(dirname "$0")/..` and the BASH_SOURCE spelling, in shell scripts and CI.
SHELL_UP = re.compile(r"dirname \"\$(?:0|\{BASH_SOURCE\[0\]\})\"\)((?:/\.\.)+)")


def _escapes(path: Path, line: str) -> str | None:
    """Why `line` of `path` reaches outside the repository, or None."""
    if PARENT_REFERENCES.search(line):
        return "refers to a parent folder"
    for match in FILE_ANCESTOR.finditer(line):
        depth = int(match.group(1)) if match.group(1) else match.group(2).count(".parent") - 1
        if depth >= len(path.parents) or not _inside(path.parents[depth]):
            return f"Path(__file__) ancestor {depth} is outside the repository"
    for match in SHELL_UP.finditer(line):
        target = path.parent.joinpath(*[".."] * match.group(1).count(".."))
        if not _inside(target):
            return "dirname/.. climbs out of the repository"
    return None


def test_tests_and_tools_never_reach_above_the_repository():
    problems = []
    files = _scanned_files()
    assert any(f.name == "openapi.py" for f in files) and any(f.name == "run" for f in files)
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            why = _escapes(path, line)
            if why:
                problems.append(f"{path.relative_to(ROOT)}:{number}: {why}: {line.strip()}")
    assert problems == []


@pytest.mark.parametrize(
    "line",
    [
        'SUBSET = Path("shared") / "github-api" / "openapi-subset.json"',
        "for folder in [repo.parent, *repo.parent.parents]:",
        'ROOT = Path(__file__).resolve().parents[3]',
        "ROOT = Path(__file__).parent.parent.parent.parent",
        'cd "$(dirname "$0")/../../.."',
        'data = ROOT / ".." / "data"',
    ],
)
def test_the_scan_catches_each_way_out(line):
    assert _escapes(ROOT / "tests" / "unit" / "x.py", line) is not None


@pytest.mark.parametrize(
    "line",
    [
        "ROOT = Path(__file__).resolve().parents[2]",
        "ROOT = Path(__file__).resolve().parent.parent",
        "path.mkdir(parents=True)",
        '"--version", "../x"',  # hostile input, not a path the tests read
    ],
)
def test_the_scan_lets_the_repository_root_through(line):
    assert _escapes(ROOT / "tests" / "unit" / "x.py", line) is None


#: sha256 of package registries' and their usual mirrors' host names (Python, Debian, Ubuntu,
#: npm, container registries, Go, Rust, Ruby, Maven, conda, Swift), so this file names none.
#: Not listed: GitHub's container registry, which is where releases are *published* (the
#: release workflow pushes the image there); nothing is installed from it.
#: Add one with: python -c "import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())" HOST
REGISTRY_HOSTS = {
    "c027b42befa553dec87640b7f87f40642023f2773faeef069e8a8baa2441cfcf",
    "a0f007d863a0ed19c5bd996ef6eaab194af2f1ac685c0f71a75270a0366f8983",
    "4db460c55b85212e50a70cadcb10c5fc3c32382ed9896a3730423469d2e05619",
    "789e46d79514e28093cabe2bb4a0798266f584b0e508ef269ebabb6e57859290",
    "e680c440a2e92079ab1bf7a927e8d3920f1bcd173c0487e28e020110b2e59efc",
    "4a8b734fb5be77bc1ea26f7e3d94c83cea4cbd290d3f70f6a4a38b6af2bae501",
    "0206ab7f1f15f8fbafa80e65481da73e5788f90bee7300e183b1ee96b61cc2fa",
    "7b6ddbcb6334c1de172646cae1e9becadd97dd2a30227f214874a621628cf41a",
    "c899567ee906851741bf7f3bde17a33777859ff9f53ff54d6f0ea54cf31ad636",
    "c2b35955576ffa710bfb7c4e5de8141335829cb1333377cbaf7daaeff9647b35",
    "70cca582c4895337b234bb640fa2c13c72816d8ea4f6d8f679607a2e9c414ccb",
    "e83cc4bcd94e4ed54ac0180a4accddaca7dfd0e8668b2e758274eecf9f83743a",
    "5e9dacd3577946a29e209210ba0c1bd2c9e299e33083865577af5ad129e4e20e",
    "3ca29e55be4befa48f875d24c27f9bed32fe06588819ed6264084b6670a1ebb0",
    "89389784c68edf233a8f96462261d7f2edef2da9d66cd40138ed446219c77e4a",
    "62f256676f138898cceaf949b873418772bcd271961225c6de34f6443d2c6ccb",
    "00a7dc5a0cc388586b8665846e7d8ae94a6dd096f2aa1aa3b4aab4ac484f998a",
    "a4aa2ac280bb8d1a0ce7a1be5a7bfb10292b49fe9435ad5cff19f421f3c70e41",
    "d6d7019ca9fcbf07c769e445342515ef0c92e4f18a96adbb3bf6460f5b0ba17f",
    "271dacc9f4d0caf8ff708d7751532df465f1b6bf192cc169e6afc639faed6894",
    "dcb6cc3991f9799eecfd71952439eb200a2b09fee01d033df9954a197ef8c574",
    "0dc11026ac75c015aaa1deafff4a7a54ef6d0cf6b3c7f9b1d2c8f3502929aa9e",
    "70bb4000cd2fab03af01fed086c6bf3c2c970f8b8b8001c311028ec3b80e775a",
    "15bdb44dafa6843b1e260ba626cb18b8d49581827a759b8102812b61cc522c83",
    "317d2d52829b78129d2c9e43d001899f0c8d30968bae00b848a47154df56b0ca",
    "43c04ed1dabe979b9c552549bf0ab023abd3e1cc6d5ff7f42cfa2296b0973a67",
    "71741fe2460a615058687c4585f665af5e825968e51a512ffb14c6f2684a397d",
    "1ba4e37997a2e986efa6cd844e43fd25b9e816359d31612baa9c18b71e3b5294",
    "e514b0d3b0562f54b6622ba95659592c26a4f6473677346ffba9e876eee160ef",
    "2e97613f5a81eaa4f8a58f552a005713c0c8f333e026efb7771ad28429532374",
    "9da5f32d964125123cc368f231b473bea59307f811c7b9b2e731601e586b82b5",
}
HOST_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+")


#: Not part of the project when the tree is not a git checkout (an unpacked sdist, say).
_GENERATED = {".git", ".venv", "__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache",
              ".ruff_cache", "build", "dist"}


def _committed() -> list[Path]:
    if not (ROOT / ".git").exists():
        return [p for p in ROOT.rglob("*") if not _GENERATED & set(p.relative_to(ROOT).parts)]
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"],
        capture_output=True, timeout=30, check=True,
    ).stdout.decode("utf-8", "replace")
    return [ROOT / name for name in listed.split("\0") if name]


def test_no_committed_file_names_a_package_registry_host():
    named = []
    for path in _committed():
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        named += [f"{path.relative_to(ROOT)}: {host[:4]}…" for host in _registry_hosts(text)]
    assert named == [], "committed files name package-registry hosts; use the configuration"


def _registry_hosts(text: str) -> set[str]:
    """The registry host names in `text`, also as the tail of a longer name (`x.<host>`)."""
    found = set()
    for token in set(HOST_TOKEN.findall(text.lower())):
        labels = token.split(".")
        for start in range(len(labels) - 1):
            name = ".".join(labels[start:])
            if hashlib.sha256(name.encode()).hexdigest() in REGISTRY_HOSTS:
                found.add(name)
    return found


def test_the_host_scan_recognises_a_registry_and_ignores_others():
    index = ".".join(["pypi", "org"])  # spelled in pieces: this file must not name it
    assert _registry_hosts(f"--index-url https://{index}/simple and mirror.{index}") == {index}
    assert _registry_hosts("https://api.github.com/ and docker.io, the Debian package") == set()
    assert len(REGISTRY_HOSTS) >= 30


def test_the_caches_a_test_run_fills_are_not_under_the_users_home(tmp_path_factory):
    """`make test` wrote swiftpm-guard's SwiftPM and resolve caches under ~/.cache (issue 33):
    conftest.py points XDG_CACHE_HOME into pytest's temporary folder for the session."""
    import os
    import pwd

    from swiftpm_guard.infra.swiftpm import default_cache_dir, default_resolve_cache_dir

    home = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    base = tmp_path_factory.getbasetemp().resolve()
    for folder in (default_cache_dir(), default_resolve_cache_dir()):
        assert folder.resolve().is_relative_to(base), folder
        assert not folder.resolve().is_relative_to(home) or home.is_relative_to(base), folder
