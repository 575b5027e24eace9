"""What SwiftPM said about one rendered package, and that checked against the built set (pure).

`swift package dump-package` prints the evaluated manifest as JSON: every product and target
with the URL and checksum the Swift code computed. `swift package describe --type json` loads
the package graph too, so it also fails on a target path that does not exist (a missing stub).
When either fails, its stderr holds SwiftPM's or the compiler's messages; each error is kept
with the manifest line when the compiler gives one.

Once SwiftPM has evaluated every manifest, the counts and the two-way comparison come from its
products and binary targets, not from the text: unfilled is a binary target SwiftPM declares
whose name nobody built; unclaimed a built name whose base name is no evaluated binary target's."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from swiftpm_guard.core import json_depth, swiftpm_roles
from swiftpm_guard.core.checks import CheckOptions, apply_warn, base_name
from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.model import (
    SHA256_RE,
    Artifact,
    Finding,
    Rendered,
    Report,
    Severity,
    SwiftStatus,
    TemplateSummary,
)
from swiftpm_guard.core.render import manifest_line

#: A copied package lives in a folder of this name, so SwiftPM calls it 'package' in messages.
PACKAGE_DIR = "package"
MANIFEST = "Package.swift"
_MESSAGE_MAX = 400

# `/tmp/x/package/Package.swift:104:23: error: missing argument label 'name:' in call`
_COMPILER = re.compile(
    r"^(?P<file>\S[^:]*):(?P<line>[0-9]+):(?P<column>[0-9]+): (?P<level>error|warning): "
    r"(?P<message>.*)$"
)
# `error: 'package': invalid URL scheme for binary target 'x'; valid schemes are: 'https'`
_SWIFTPM = re.compile(r"^error: (?:'[^']*': )?(?P<message>.*)$")
# Lines that only announce errors printed elsewhere, or repeat the compiler's command line.
_NOISE = re.compile(r"^(?:Invalid manifest \(compiled with|invalid manifests at |fatalError$)")
# The first name SwiftPM quotes after `target`/`product`: what the message is about.
_SUBJECT = re.compile(r"\b(?:target|product)(?: named)? '([^']+)'")
# Our temporary copy's path inside a message, e.g. `/tmp/swiftpm-guard.x/package/`.
_TEMP_PATH = re.compile(r"(?:/[^/\s'\"]+)*/" + PACKAGE_DIR + r"/")


@dataclass(frozen=True, slots=True)
class CommandResult:
    """One finished `swift package …` run."""

    returncode: int
    stdout: str
    stderr: str

    def as_dict(self) -> dict[str, object]:
        return {"returncode": self.returncode, "stdout": self.stdout, "stderr": self.stderr}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CommandResult:
        return cls(int(data["returncode"]), str(data["stdout"]), str(data["stderr"]))


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error SwiftPM or the compiler printed; `line` is the rendered manifest's line."""

    message: str
    subject: str
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True, slots=True)
class EvaluatedTarget:
    name: str
    kind: str  # SwiftPM's target type: "binary", "regular", …
    url: str | None = None
    checksum: str | None = None
    path: str | None = None
    dependencies: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EvaluatedProduct:
    name: str
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The evaluated manifest (empty when SwiftPM rejected it) and SwiftPM's errors.

    `dumped`: `dump-package` evaluated the manifest, so its products and targets are SwiftPM's
    answer even when `describe` then failed to load the package (a missing stub folder)."""

    products: tuple[EvaluatedProduct, ...]
    targets: tuple[EvaluatedTarget, ...]
    diagnostics: tuple[Diagnostic, ...]
    dumped: bool = True

    @property
    def ok(self) -> bool:
        return not self.diagnostics

    @property
    def binary_targets(self) -> tuple[EvaluatedTarget, ...]:
        return tuple(t for t in self.targets if t.kind == "binary")


class UnreadableOutput(ValueError):
    """SwiftPM exited in a way that is neither a result nor an error we can read."""


def interpret(dump: CommandResult, describe: CommandResult) -> Evaluation:
    """Both runs → one Evaluation; raises UnreadableOutput when neither makes sense."""
    if dump.returncode != 0:
        return Evaluation((), (), _diagnostics(dump), dumped=False)
    products, targets = _parse_dump(dump.stdout)
    diagnostics = _diagnostics(describe) if describe.returncode != 0 else ()
    return Evaluation(products, targets, diagnostics)


def _diagnostics(result: CommandResult) -> tuple[Diagnostic, ...]:
    found: dict[tuple[str, int | None], Diagnostic] = {}
    for raw in split_lines(result.stderr):
        line = raw.rstrip()
        compiler = _COMPILER.match(line)
        if compiler:
            if compiler.group("level") != "error":
                continue
            in_manifest = compiler.group("file").rsplit("/", 1)[-1] == MANIFEST
            diagnostic = Diagnostic(message=_clean(compiler.group("message")), subject=MANIFEST,
                                    line=int(compiler.group("line")) if in_manifest else None,
                                    column=int(compiler.group("column")) if in_manifest else None)
        else:
            swiftpm = _SWIFTPM.match(line)
            if not swiftpm or _NOISE.match(swiftpm.group("message")):
                continue
            message = _clean(swiftpm.group("message"))
            subject = _SUBJECT.search(message)
            diagnostic = Diagnostic(message, subject.group(1) if subject else MANIFEST)
        found.setdefault((diagnostic.message, diagnostic.line), diagnostic)
    if not found:
        tail = " | ".join(split_lines(result.stderr.strip())[-3:]) or "no output"
        raise UnreadableOutput(
            f"swift exited with {result.returncode} and no error we can read: {tail[:_MESSAGE_MAX]}"
        )
    return tuple(found.values())


def _clean(message: str) -> str:
    message = _TEMP_PATH.sub("", message).strip()
    if len(message) > _MESSAGE_MAX:
        message = message[: _MESSAGE_MAX - 1] + "…"
    return message


def _parse_dump(text: str) -> tuple[tuple[EvaluatedProduct, ...], tuple[EvaluatedTarget, ...]]:
    try:
        data = json_depth.loads(text)
        products = tuple(
            EvaluatedProduct(str(p["name"]), tuple(str(t) for t in p.get("targets") or ()))
            for p in data["products"]
        )
        targets = tuple(_target(t) for t in data["targets"])
    except (ValueError, KeyError, TypeError) as error:
        raise UnreadableOutput(
            f"dump-package printed no manifest JSON we can read: {type(error).__name__}: {error}"
        ) from None
    return products, targets


def _target(data: dict[str, Any]) -> EvaluatedTarget:
    return EvaluatedTarget(name=str(data["name"]), kind=str(data.get("type") or "regular"),
                           url=_optional(data.get("url")),
                           checksum=_optional(data.get("checksum")),
                           path=_optional(data.get("path")),
                           dependencies=tuple(_dependency_names(data.get("dependencies") or ())))


def _optional(value: object) -> str | None:
    return None if value is None else str(value)


def _dependency_names(dependencies: Any) -> list[str]:
    """`{"target": ["x", null]}` / `{"byName": ["x", null]}` → "x"; products are skipped."""
    names: list[str] = []
    for dependency in dependencies:
        for kind in ("target", "byName"):
            value = dependency.get(kind) if isinstance(dependency, dict) else None
            if isinstance(value, list) and value and isinstance(value[0], str):
                names.append(value[0])
    return names


#: Findings the evaluation recomputes; the static ones are dropped once SwiftPM has spoken:
#: the two-way comparison, what the static reading derived from its guessed roles, and
#: checksums it could not see reach the package.
_REPLACED = (frozenset({"unfilled-placeholder", "unclaimed-artifact", "unread-checksum"})
             | swiftpm_roles.ROLE_CODES)
_TOKEN = re.compile(r"__SHA256_([A-Za-z0-9_]+)__")
# SwiftPM refuses these URLs before it prints anything we could check ourselves.
_URL_REFUSED = re.compile(r"(?:invalid URL scheme|unsupported extension) for binary target ")


def diagnostic_findings(rendered: Rendered, diagnostics: Sequence[Diagnostic]) -> list[Finding]:
    """`swift-error` per SwiftPM error; `url` when SwiftPM itself refuses a binary target URL."""
    findings = []
    for diagnostic in diagnostics:
        line, note = manifest_line(rendered, diagnostic.line)
        where = f"{diagnostic.line}:{diagnostic.column}: " if diagnostic.line else ""
        code = "url" if _URL_REFUSED.match(diagnostic.message) else "swift-error"
        findings.append(
            Finding(
                code=code,
                severity=Severity.ERROR,
                subject=diagnostic.subject,
                file=rendered.template.path,
                line=line,
                message=f"SwiftPM rejects the manifest: {where}{diagnostic.message}{note}",
            )
        )
    return findings


def url_problems(target: EvaluatedTarget, version: str) -> list[str]:
    """Why a binary target's URL cannot be this release's zip of this target (empty: fine)."""
    from swiftpm_guard.core.urls import other_release

    if target.url is None:
        return ["it has no URL (a local path ships nothing)"]
    parts = urlsplit(target.url)
    problems = []
    if parts.scheme != "https":
        problems.append(f"scheme is '{parts.scheme}', not https")
    if not parts.path.endswith(".zip"):
        problems.append("it does not end in .zip")
    if not re.search(rf"(?<![0-9.]){re.escape(version)}(?![0-9]|\.[0-9])", target.url):
        problems.append(f"it does not contain the version {version}")
    elsewhere = other_release(target.url, version)
    if elsewhere is not None:
        problems.append(elsewhere)
    file_name = parts.path.rsplit("/", 1)[-1]
    if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(target.name)}(?![A-Za-z0-9_])", file_name):
        problems.append(f"its file name '{file_name}' does not name the target")
    return problems


def target_findings(
    rendered: Rendered, evaluation: Evaluation, built: Mapping[str, Artifact], version: str
) -> list[Finding]:
    """`url`, `bad-checksum` and `checksum-mismatch` on the values SwiftPM evaluated."""
    path = rendered.template.path
    findings: list[Finding] = []
    for target in evaluation.binary_targets:
        problems = url_problems(target, version)
        if problems:
            findings.append(
                _finding(
                    "url",
                    target.name,
                    path,
                    f"binary target '{target.name}' URL {target.url!r}: {'; '.join(problems)}",
                )
            )
        findings += _checksum_findings(target, built, path)
    return findings


def _checksum_findings(
    target: EvaluatedTarget, built: Mapping[str, Artifact], path: str
) -> list[Finding]:
    if target.url is None:
        return []  # a local binary target has no checksum
    checksum = target.checksum or ""
    token = _TOKEN.fullmatch(checksum)
    declared = built.get(token.group(1)) if token else None
    if declared is not None and declared.sha256 is None:
        return []  # a name declared without a checksum (a PR's list) keeps its placeholder
    if not SHA256_RE.fullmatch(checksum):
        return [
            _finding(
                "bad-checksum",
                target.name,
                path,
                f"SwiftPM evaluates the checksum of '{target.name}' to {checksum[:80]!r}, not 64 "
                "lowercase hex digits; it parses, but every consumer fails to resolve",
            )
        ]
    artifact = built.get(target.name)
    if artifact is not None and artifact.sha256 is not None and artifact.sha256 != checksum:
        owner = [n for n, a in built.items() if a.sha256 == checksum]
        whose = f"the checksum of '{owner[0]}'" if owner else "no built artifact's checksum"
        return [
            _finding(
                "checksum-mismatch",
                target.name,
                path,
                f"SwiftPM evaluates the checksum of '{target.name}' to {whose}, not "
                f"{artifact.sha256}",
            )
        ]
    return []


def two_way(evaluations: Sequence[tuple[Rendered, Evaluation]], built: Mapping[str, Artifact],
            debug_suffix: str) -> tuple[list[str], list[str], list[Finding]]:
    """Unfilled and unclaimed names from the evaluated binary targets, with their findings."""
    declared: dict[str, str] = {}
    asked: dict[str, int | None] = {}  # where the text asked for the name, when it did
    for rendered, evaluation in evaluations:
        for target in evaluation.binary_targets:
            declared.setdefault(target.name, rendered.template.path)
        for placeholder in rendered.placeholders:
            asked.setdefault(placeholder.name, placeholder.location.line)
    unfilled = sorted(n for n in declared if n not in built)
    claimed = {base_name(n, debug_suffix) for n in declared}
    unclaimed = sorted(n for n in built if base_name(n, debug_suffix) not in claimed)
    findings = [
        replace(_finding(
            "unfilled-placeholder",
            name,
            declared[name],
            f"SwiftPM evaluates binary target '{name}' but no source built it; its checksum "
            "cannot be right and every consumer fails to resolve",
        ), line=asked.get(name))
        for name in unfilled
    ]
    for name in unclaimed:
        origin = built[name].origin
        findings.append(
            Finding(
                code="unclaimed-artifact",
                severity=Severity.ERROR,
                subject=name,
                file=origin.file,
                line=origin.line,
                message=f"'{name}' was built but SwiftPM evaluates no binary target "
                f"'{base_name(name, debug_suffix)}'; publishing stays blocked until it does "
                "(published, the product would vanish)",
            )
        )
    return unfilled, unclaimed, findings


def apply_evaluations(report: Report, evaluated: Sequence[tuple[Rendered, Evaluation]],
                      built: Mapping[str, Artifact], options: CheckOptions,
                      status: SwiftStatus, *,
                      stub_roots: Mapping[str, str] | None = None) -> Report:
    """The static report, with SwiftPM's errors added and, when it evaluated every manifest
    (`dump-package` answered, even if `describe` then failed), its answer in place of the
    text's: the counts, the two-way comparison, the roles and stub folders, and where the
    static reading differs from it (`static-disagrees`). `stub_roots` maps a template's path
    to where its stub folders sat in the package SwiftPM read (else `swiftpm_roles.stub_root`)."""
    findings: list[Finding] = []
    for rendered, evaluation in evaluated:
        findings += diagnostic_findings(rendered, evaluation.diagnostics)
        findings += target_findings(rendered, evaluation, built, options.version)
    if not evaluated or not all(e.dumped for _r, e in evaluated):
        return replace(report, swiftpm=status,
                               findings=report.findings + _warn(findings, options))
    unfilled, unclaimed, two_way_findings = two_way(evaluated, built, options.debug_suffix)
    findings += two_way_findings
    for rendered, evaluation in evaluated:
        root = (stub_roots or {}).get(rendered.template.path) or \
            swiftpm_roles.stub_root(rendered.template)
        findings += swiftpm_roles.stub_findings(rendered, evaluation, root)
        findings += swiftpm_roles.disagreements(rendered, evaluation, root)
    kept = tuple(f for f in report.findings if f.code not in _REPLACED)
    counts = {r.template.path: e for r, e in evaluated}
    templates = tuple(_summary(t, counts.get(t.path)) for t in report.templates)
    primary = evaluated[0][1]
    return replace(report, templates=templates, unfilled=tuple(unfilled),
                   unclaimed=tuple(unclaimed), products=len(primary.products),
                   binary_targets=len(primary.binary_targets), counts_source="swiftpm",
                   swiftpm=status, findings=kept + _warn(findings, options))


def _summary(summary: TemplateSummary, evaluation: Evaluation | None) -> TemplateSummary:
    if evaluation is None:
        return summary
    return replace(summary, products=len(evaluation.products),
                            binary_targets=len(evaluation.binary_targets))


def _finding(code: str, subject: str, file: str, message: str) -> Finding:
    return Finding(code=code, severity=Severity.ERROR, subject=subject, message=message, file=file)


def _warn(findings: list[Finding], options: CheckOptions) -> tuple[Finding, ...]:
    return tuple(apply_warn(findings, options.warn))
