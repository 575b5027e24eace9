"""Run generated cases (support/swift_cases.py) through the static reader and the real SwiftPM.

The static reader is `swiftpm-guard check --swift off`, in this process, given exactly the
names it reads the template as asking for (`--frameworks`): no error is its claim that the
manifest is consistent and declares those binary targets. (One error is not counted: a
placeholder in a branch `#if` compiles out, which says the reader knows the branch is dead.) SwiftPM is `swift package
dump-package` on the same rendered text. The invariant: wherever the static reader says
consistent, SwiftPM accepts the manifest and evaluates exactly those binary targets (and no
products). Refusing is allowed; the outcome counts those refusals SwiftPM would have accepted.

Cases the static reader calls consistent share manifests (`batch` fragments of one tools
version, each naming its targets `c<N>_…`): one `dump-package` answers for all of them, and a
rejected batch is split into single runs so the culprit is named. Refused cases run alone,
up to `refused_limit` of them (they are the likeliest to be rejected, which would sink a batch).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import subprocess
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from support.swift_cases import Case, template_text
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.checks import CheckOptions, check
from swiftpm_guard.core.model import Artifact, Location, Severity, Template
from swiftpm_guard.core.render import render
from swiftpm_guard.core.swift_lexer import lex

VERSION = "1.0.0"


@dataclass(frozen=True)
class Static:
    """What the static reading says: `cli` is `check --swift off` (tree-sitter-swift included),
    `core` the core's reading alone (render, the checks, the lexer's problems)."""

    cli: bool
    core: bool
    asked: frozenset[str]
    codes: tuple[str, ...]

    @property
    def consistent(self) -> bool:
        return self.cli or self.core


@dataclass(frozen=True)
class Evaluated:
    ok: bool
    targets: frozenset[str]  # binary targets
    products: frozenset[str]
    error: str = ""


@dataclass(frozen=True)
class Outcome:
    case: Case
    static: Static
    swiftpm: Evaluated | None  # None: not run (a refused case past the limit)

    @property
    def violation(self) -> str | None:
        """Why this outcome breaks the invariant, or None."""
        if not self.static.consistent:
            return None
        if self.swiftpm is None:
            return "consistent but never evaluated by SwiftPM"
        if not self.swiftpm.ok:
            return f"SwiftPM rejects it: {self.swiftpm.error}"
        if self.swiftpm.targets != self.static.asked or self.swiftpm.products:
            return (f"SwiftPM evaluates targets {sorted(self.swiftpm.targets)} and products "
                    f"{sorted(self.swiftpm.products)}; the static reader asked for "
                    f"{sorted(self.static.asked)}")
        return None

    @property
    def kind(self) -> str:
        """consistent-agreed, refused-accepted (a refusal SwiftPM would not need),
        refused-rejected, refused-unevaluated, or violation."""
        if self.violation:
            return "violation"
        if self.static.consistent:
            return "consistent-agreed"
        if self.swiftpm is None:
            return "refused-unevaluated"
        return "refused-accepted" if self.swiftpm.ok else "refused-rejected"


def prefix(case: Case) -> str:
    first = case.names[0]
    return first[:first.index("_") + 1]


def static_reading(case: Case, folder: Path) -> Static:
    """`check --swift off` on the case alone, given the names it reads the case as asking for."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "Package.swift.template"
    text = template_text([case])
    path.write_bytes(text.encode())
    template = Template(path=str(path), text=text, flavour="placeholder")
    asked = frozenset(p.name for p in render(template, VERSION, {}).placeholders)
    if not asked:
        return Static(False, False, asked, ("asks-for-nothing",))
    report = folder / "report.json"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(["check", "--template", str(path), "--version", VERSION, "--frameworks",
              ",".join(sorted(asked)), "--swift", "off", "--json", str(report), "--quiet"])
    errors = [f for f in json.loads(report.read_text())["findings"]
              if f["severity"] == "error" and not _lint(f)]
    core = _core_errors(template, asked)
    codes = tuple(sorted({f["code"] for f in errors} | set(core)))
    return Static(not errors, not core, asked, codes)


def _core_errors(template: Template, asked: frozenset[str]) -> list[str]:
    """The error codes of the core's own reading: the checks, and the lexer's problems (what
    the syntax fallback reports before tree-sitter-swift runs)."""
    built = [Artifact(name, None, Location("--frameworks")) for name in sorted(asked)]
    item = render(template, VERSION, {})
    report = check([item], built, CheckOptions(version=VERSION))
    codes = [f.code for f in report.findings if f.severity is Severity.ERROR
             and not _lint(f.as_dict())]  # type: ignore[arg-type]
    return codes + ["swift-syntax"] * bool(lex(item.text).problems)


def _lint(finding: dict[str, str]) -> bool:
    """A placeholder in a branch `#if` compiles out is an error that claims nothing about what
    SwiftPM evaluates (it asks for no name, and the reader says so): not a refusal here."""
    return finding["code"] == "not-live-code" and finding["subject"].startswith("__SHA256_") \
        and "a block that #if compiles out" in finding["message"]


def rendered(cases: Sequence[Case]) -> str:
    text = template_text(list(cases))
    return render(Template(path="Package.swift", text=text, flavour="placeholder"), VERSION,
                  {}).text


def evaluate(text: str, swift: str, folder: Path, cache: Path | None = None) -> Evaluated:
    """`swift package dump-package` on one manifest (answers cached by its text's hash)."""
    key = hashlib.sha256(text.encode()).hexdigest()
    cached = None if cache is None else cache / f"{key}.json"
    if cached is not None and cached.exists():
        data = json.loads(cached.read_text())
        return Evaluated(data["ok"], frozenset(data["targets"]), frozenset(data["products"]),
                         data["error"])
    package = folder / key[:16]
    package.mkdir(parents=True, exist_ok=True)
    (package / "Package.swift").write_bytes(text.encode())
    done = subprocess.run([swift, "package", "--package-path", str(package), "dump-package"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode:
        lines = done.stderr.splitlines()
        errors = [line.split("Package.swift")[-1] for line in lines
                  if re.search(r"Package\.swift:\d+:\d+: error:", line)]
        errors += [line for line in lines if line.startswith("error:")]
        result = Evaluated(False, frozenset(), frozenset(),
                           (errors or [done.stderr.strip()[-200:]])[0])
    else:
        dumped = json.loads(done.stdout)
        result = Evaluated(True, frozenset(t["name"] for t in dumped["targets"]
                                           if t["type"] == "binary"),
                           frozenset(p["name"] for p in dumped["products"]))
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps({"ok": result.ok, "targets": sorted(result.targets),
                                      "products": sorted(result.products),
                                      "error": result.error}))
    return result


def _split(batch: Sequence[Case], evaluated: Evaluated) -> dict[str, Evaluated]:
    return {c.ident: Evaluated(True, frozenset(t for t in evaluated.targets
                                               if t.startswith(prefix(c))),
                               frozenset(p for p in evaluated.products if p.startswith(prefix(c))))
            for c in batch}


def _run_batch(batch: Sequence[Case], swift: str, folder: Path,
               cache: Path | None) -> dict[str, Evaluated]:
    evaluated = evaluate(rendered(batch), swift, folder, cache)
    if evaluated.ok:
        return _split(batch, evaluated)
    if len(batch) == 1:
        return {batch[0].ident: evaluated}
    answers: dict[str, Evaluated] = {}
    for case in batch:
        answers.update(_run_batch([case], swift, folder, cache))
    return answers


def _batches(cases: Iterable[Case], size: int) -> list[list[Case]]:
    by_tools: dict[str, list[Case]] = {}
    for case in cases:
        by_tools.setdefault(case.tools, []).append(case)
    return [group[i:i + size] for group in by_tools.values() for i in range(0, len(group), size)]


def run(cases: Sequence[Case], swift: str, folder: Path, *, batch: int = 8, jobs: int = 2,
        refused_limit: int | None = None, cache: Path | None = None) -> list[Outcome]:
    statics = {c.ident: static_reading(c, folder / "static" / c.ident) for c in cases}
    consistent = [c for c in cases if statics[c.ident].consistent]
    refused = [c for c in cases if not statics[c.ident].consistent]
    if refused_limit is not None:
        refused = refused[:refused_limit]
    work = _batches((c for c in consistent if not c.whole), batch)
    work += [[c] for c in consistent if c.whole] + [[c] for c in refused]
    answers: dict[str, Evaluated] = {}
    with ThreadPoolExecutor(jobs) as pool:
        for found in pool.map(lambda b: _run_batch(b, swift, folder / "swiftpm", cache), work):
            answers.update(found)
    return [Outcome(c, statics[c.ident], answers.get(c.ident)) for c in cases]


def summary(outcomes: Sequence[Outcome]) -> str:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.kind] = counts.get(outcome.kind, 0) + 1
    return ", ".join(f"{kind}: {n}" for kind, n in sorted(counts.items()))


def describe(outcome: Outcome) -> str:
    static = outcome.static
    swiftpm = outcome.swiftpm
    said = "not run" if swiftpm is None else (
        f"accepts, targets {sorted(swiftpm.targets)}" if swiftpm.ok else
        f"rejects: {swiftpm.error}")
    verdict = (f"consistent (cli {static.cli}, core {static.core})" if static.consistent
               else "refuses " + ",".join(static.codes))
    return (f"{outcome.case.ident} ({outcome.case.note or outcome.case.tools}): static "
            f"{verdict}, "
            f"asks {sorted(static.asked)}; SwiftPM {said}\n{template_text([outcome.case])!r}")


