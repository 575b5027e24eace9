"""Version-specific manifests for the differential tier (issue 24): template branches whose
`Package.swift.template` has `Package@swift-*.swift` templates and manifests beside it, run
through `check --swift off` and through the real SwiftPM.

A case is a template branch: `Package.swift.template`, then a few files beside it, each a
template (`Package@swift-6.0.swift.template`), a manifest kept as is (clean, stale, or with its
placeholders left), or a file whose name SwiftPM never reads as a manifest. Each file declares
binary targets and a package named after the file (`m<index>`), so `dump-package` says which
file SwiftPM read. The release builds `alpha` and `beta`; a file may also ask for `gamma`, which
nobody built.

The static side is `check --template Package.swift.template` on the branch as it is; its claim
(exit 0) is that every manifest some SwiftPM may read declares only built targets, with the
built checksums. The SwiftPM side is `dump-package` on the branch as publish leaves it
(templates rendered with the built checksums, manifests as they are). The invariant: wherever
the static side says consistent, SwiftPM accepts the package and the manifest it read is one
the static side checked, declaring exactly the built targets with their checksums.

`swiftpm_choice` is SwiftPM 6.0.3's rule for which manifest it reads; every case SwiftPM runs
checks it against what SwiftPM did, so the facts the rule encodes are re-proved each run.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import Artifact, Location, Template
from swiftpm_guard.core.render import render

VERSION = "1.0.0"
BUILT = ("alpha", "beta")
UNBUILT = "gamma"
#: The installed toolchain's version: `swift --version` says 6.0.3.
CURRENT = (6, 0, 3)
PRIMARY = "Package.swift.template"
#: Names beside the template: what SwiftPM 6.0.3 takes first (6.0.3, 6.0, 6), what it takes
#: when newer than Package.swift's tools version (5.9, 5.10, 06), what it passes over (6.0.4,
#: 6.1, 7) and names its pattern does not match (6.0.3.1, 6.0-beta).
SUFFIXES = ["6", "6.0", "6.0.3", "5.9", "5.10", "06", "6.0.4", "6.1", "7", "6.0.3.1", "6.0-beta"]
TOOLS = ["5.9", "5.10", "6.0"]
FORMS = ["template", "template", "clean", "stale", "placeholders"]


def checksum(name: str, build: str = "built") -> str:
    return hashlib.sha256(f"{build}:{name}".encode()).hexdigest()


@dataclass(frozen=True)
class File:
    name: str  # in the template branch
    tools: str
    names: tuple[str, ...]  # the binary targets it declares
    form: str  # template | clean | stale | placeholders (a manifest with them left)
    index: int

    @property
    def published(self) -> str:
        """Its name on the published branch: a template's manifest, anything else itself."""
        return self.name.removesuffix(".template") if self.form == "template" else self.name

    def text(self) -> str:
        literal = self.form in ("clean", "stale")
        build = "stale" if self.form == "stale" else "built"
        version = f'"{VERSION}"' if literal else '"__VERSION__"'

        def value(name: str) -> str:
            return f'"{checksum(name, build)}"' if literal else f'"__SHA256_{name}__"'

        targets = ",\n".join(
            f'  .binaryTarget(name: "{n}", url: "https://example.invalid/{n}-\\(version).zip", '
            f"checksum: {value(n)})" for n in self.names)
        return (f"// swift-tools-version:{self.tools}\nimport PackageDescription\n"
                f"let version = {version}\n"
                f'let package = Package(name: "m{self.index}", targets: [\n{targets}\n])\n')


@dataclass(frozen=True)
class VersionCase:
    ident: str
    files: tuple[File, ...]  # files[0] is Package.swift.template
    note: str = ""


def _file(rng: random.Random, index: int, suffix: str) -> File:
    form = rng.choice(FORMS)
    names = tuple(sorted(rng.sample([*BUILT, UNBUILT], rng.choice([1, 2, 2, 3]))))
    name = f"Package@swift-{suffix}.swift" + (".template" if form == "template" else "")
    return File(name, rng.choice(TOOLS), names, form, index)


def generate(seed: int, count: int) -> list[VersionCase]:
    """`count` template branches, the same for the same seed."""
    rng = random.Random(seed)
    cases = []
    for number in range(count):
        primary = File(PRIMARY, rng.choice(TOOLS), BUILT, "template", 0)
        suffixes = rng.sample(SUFFIXES, rng.choice([1, 1, 2, 3]))
        cases.append(VersionCase(f"versions-{number}", (primary, *(
            _file(rng, index, suffix) for index, suffix in enumerate(suffixes, 1)))))
    return cases


def fact_cases() -> dict[str, VersionCase]:
    """Which file SwiftPM 6.0.3 reads, one fact per case: each variant asks for `gamma`, so
    only a variant SwiftPM passes over leaves the branch consistent."""
    def case(note: str, primary_tools: str, *variants: tuple[str, str]) -> VersionCase:
        files = [File(PRIMARY, primary_tools, BUILT, "template", 0)]
        files += [File(f"Package@swift-{suffix}.swift.template", tools, (*BUILT, UNBUILT),
                       "template", index) for index, (suffix, tools) in enumerate(variants, 1)]
        return VersionCase(f"fact-{note}", tuple(files), note)

    facts = [
        case("6.0 over Package.swift", "6.0", ("6.0", "5.9")),
        case("6 over Package.swift", "5.9", ("6", "5.9")),
        case("6.0.3 over 6.0", "5.9", ("6.0.3", "5.9"), ("6.0", "5.9")),
        case("6.0 over 6", "5.9", ("6.0", "5.9"), ("6", "5.9")),
        case("5.9 not newer than Package.swift", "5.9", ("5.9", "5.9")),
        case("5.10 newer than Package.swift", "5.9", ("5.10", "5.10")),
        case("6.0.4 passed over", "5.9", ("6.0.4", "6.0")),
        case("6.1 passed over", "5.9", ("6.1", "6.0")),
        case("06 is 6", "5.9", ("06", "5.10")),
    ]
    return {c.note: c for c in facts}


def _version(file_name: str) -> tuple[int, int, int] | None:
    match = re.fullmatch(r"Package@swift-([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?\.swift",
                         file_name)
    if match is None:
        return None
    major, minor, patch = (int(part or 0) for part in match.groups())
    return major, minor, patch


def _tools(text: str) -> tuple[int, ...]:
    found = re.match(r"// swift-tools-version:([0-9.]+)", text)
    assert found is not None, text[:80]
    parts = tuple(int(p) for p in found.group(1).split("."))
    return parts + (0,) * (3 - len(parts))


def swiftpm_choice(published: dict[str, str], current: tuple[int, int, int] = CURRENT) -> str:
    """The manifest SwiftPM `current` reads in a package root holding `published` (name →
    text): `@swift-X.Y.Z`, `@swift-X.Y`, `@swift-X` of its own version first, whatever the
    tools versions; else the newest version-specific one not newer than itself, when its tools
    version is greater than Package.swift's; else Package.swift."""
    major, minor, patch = current
    for key in (f"{major}.{minor}.{patch}", f"{major}.{minor}", f"{major}"):
        if f"Package@swift-{key}.swift" in published:
            return f"Package@swift-{key}.swift"
    candidates = {v: name for name in published if (v := _version(name)) and v <= current}
    if not candidates:
        return "Package.swift"
    best = candidates[max(candidates)]
    if _tools(published[best]) > _tools(published["Package.swift"]):
        return best
    return "Package.swift"


# -- the two readings -------------------------------------------------------------------------


@dataclass(frozen=True)
class Static:
    exit_code: int
    codes: tuple[str, ...]
    error: str = ""  # the one line of an exit 2

    @property
    def consistent(self) -> bool:
        return self.exit_code == 0


@dataclass(frozen=True)
class Evaluated:
    ok: bool
    read: str | None  # the manifest SwiftPM read (from the package name), None on rejection
    targets: dict[str, str]  # binary target → checksum
    error: str = ""


@dataclass(frozen=True)
class Outcome:
    case: VersionCase
    static: Static
    swiftpm: Evaluated

    @property
    def predicted(self) -> str:
        return swiftpm_choice(published_tree(self.case))

    @property
    def violation(self) -> str | None:
        if not self.static.consistent:
            return None
        if not self.swiftpm.ok:
            return f"SwiftPM rejects it: {self.swiftpm.error}"
        read = next(f for f in self.case.files if f.published == self.swiftpm.read)
        expected = {name: checksum(name) for name in read.names}
        if self.swiftpm.targets != expected:
            return (f"SwiftPM read {self.swiftpm.read} and evaluates {self.swiftpm.targets}; "
                    f"the release built {sorted(BUILT)}")
        return None

    @property
    def kind(self) -> str:
        if self.violation:
            return "violation"
        if self.static.consistent:
            return "consistent-agreed"
        return "refused-accepted" if self.swiftpm.ok else "refused-rejected"


def _built() -> dict[str, Artifact]:
    return {n: Artifact(n, checksum(n), Location("checksums.txt")) for n in BUILT}


def published_tree(case: VersionCase) -> dict[str, str]:
    """The branch as publish leaves it: each template rendered under its manifest's name
    (by SwiftPM's pattern here, not the code under test's)."""
    tree = {}
    for file in case.files:
        text = file.text()
        if file.form == "template" and (file.index == 0 or _version(file.published)):
            rendered = render(Template(path=file.name, text=text, flavour="placeholder"),
                              VERSION, _built())
            tree["Package.swift" if file.index == 0 else file.published] = rendered.text
        else:  # a manifest kept as is, or a file SwiftPM never reads: published unchanged
            tree[file.name] = text
    return tree


def static_reading(case: VersionCase, folder: Path) -> Static:
    folder.mkdir(parents=True, exist_ok=True)
    for file in case.files:
        (folder / file.name).write_text(file.text())
    sums = folder / "checksums.txt"
    sums.write_text("".join(f"{n} {checksum(n)}\n" for n in BUILT))
    report = folder / "report.json"
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["check", "--template", str(folder / PRIMARY), "--version", VERSION,
                     "--checksums", str(sums), "--swift", "off", "--json", str(report),
                     "--quiet"])
    if code == 2:
        return Static(2, ("refused",), err.getvalue().strip().splitlines()[-1])
    findings = json.loads(report.read_text())["findings"]
    return Static(code, tuple(sorted({f["code"] for f in findings if f["severity"] == "error"})))


def evaluate(case: VersionCase, swift: str, folder: Path) -> Evaluated:
    package = folder / "package"
    package.mkdir(parents=True, exist_ok=True)
    for name, text in published_tree(case).items():
        (package / name).write_text(text)
    done = subprocess.run([swift, "package", "--package-path", str(package), "dump-package"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode:
        errors = [line for line in done.stderr.splitlines() if "error:" in line]
        return Evaluated(False, None, {}, (errors or [done.stderr.strip()[-200:]])[0])
    dumped = json.loads(done.stdout)
    index = int(dumped["name"].removeprefix("m"))
    read = next(f for f in case.files if f.index == index)
    targets = {t["name"]: t.get("checksum") or "" for t in dumped["targets"]
               if t["type"] == "binary"}
    return Evaluated(True, read.published, targets)


def run(cases: list[VersionCase], swift: str, folder: Path, *, jobs: int = 3) -> list[Outcome]:
    statics = [static_reading(c, folder / "static" / c.ident) for c in cases]
    with ThreadPoolExecutor(jobs) as pool:
        answers = list(pool.map(lambda c: evaluate(c, swift, folder / "swiftpm" / c.ident),
                                cases))
    return [Outcome(c, s, a) for c, s, a in zip(cases, statics, answers, strict=True)]


def describe(outcome: Outcome) -> str:
    files = ", ".join(f"{f.name} ({f.form}, tools {f.tools}, {'/'.join(f.names)})"
                      for f in outcome.case.files)
    static = "consistent" if outcome.static.consistent else \
        f"refuses ({', '.join(outcome.static.codes)})"
    swiftpm = (f"reads {outcome.swiftpm.read}, targets {sorted(outcome.swiftpm.targets)}"
               if outcome.swiftpm.ok else f"rejects: {outcome.swiftpm.error}")
    return f"{outcome.case.ident}: {files}; static {static}; SwiftPM {swiftpm}"
