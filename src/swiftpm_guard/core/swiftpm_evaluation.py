"""What SwiftPM said about one rendered package, and that checked against the built set (pure).

`swift package dump-package` prints the evaluated manifest as JSON: every product and target
with the URL and checksum the Swift code computed. `swift package describe --type json` loads
the package graph too, so it also fails on a target path that does not exist (a missing stub).
When either fails, its stderr holds SwiftPM's or the compiler's messages; each error is kept
with the manifest line when the compiler gives one.

Once SwiftPM has evaluated every manifest, the counts and the two-way comparison come from its
products and binary targets, not from the text, per manifest (a consumer reads one) and per
exact name: unfilled is a binary target a manifest declares whose name nobody built; unclaimed
a built name that is not one of a manifest's binary targets. Each binary target's checksum must
be the one of the built zip its URL names, which is what every consumer downloads."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote, urlsplit

from swiftpm_guard.core import json_depth, swiftpm_roles
from swiftpm_guard.core.checks import CheckOptions, apply_warn
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
from swiftpm_guard.core.platform_slices import Platform, coverage_findings
from swiftpm_guard.core.render import LEFT, manifest_line
from swiftpm_guard.errors import UnreadableOutput

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
    #: The manifest's `platforms:` as SwiftPM evaluated them (empty: none declared).
    platforms: tuple[Platform, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.diagnostics

    @property
    def binary_targets(self) -> tuple[EvaluatedTarget, ...]:
        return tuple(t for t in self.targets if t.kind == "binary")


def interpret(dump: CommandResult, describe: CommandResult) -> Evaluation:
    """Both runs → one Evaluation; raises UnreadableOutput when neither makes sense."""
    if dump.returncode != 0:
        return Evaluation((), (), _diagnostics(dump), dumped=False)
    products, targets, platforms = _parse_dump(dump.stdout)
    diagnostics = _diagnostics(describe) if describe.returncode != 0 else ()
    return Evaluation(products, targets, diagnostics, platforms=platforms)


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


def _parse_dump(text: str) -> tuple[tuple[EvaluatedProduct, ...], tuple[EvaluatedTarget, ...],
                                    tuple[Platform, ...]]:
    try:
        data = json_depth.loads(text)
        products = tuple(
            EvaluatedProduct(str(p["name"]), tuple(str(t) for t in p.get("targets") or ()))
            for p in data["products"]
        )
        targets = tuple(_target(t) for t in data["targets"])
        platforms = tuple(Platform(str(p["platformName"]), str(p["version"]))
                          for p in data.get("platforms") or ())
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise UnreadableOutput(
            f"dump-package printed no manifest JSON we can read: {type(error).__name__}: {error}"
        ) from None
    return products, targets, platforms


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


def zip_files(built: Mapping[str, Artifact], version: str, *,
              names_only: bool = False) -> dict[str, Artifact]:
    """Each built zip by its file name: the zip's own, else `<name>-<version>.zip` as the
    sources name them (a checksums line without one). Names only (no version given): every
    name's zip at that version, since the manifest was rendered with it."""
    files: dict[str, Artifact] = {}
    for name, artifact in built.items():
        own = None if names_only else artifact.file_name
        files.setdefault(own or f"{name}-{version}.zip", artifact)
    return files


def url_file(url: str) -> str:
    """The zip file name a binary target URL names: its path's last component, decoded."""
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def target_findings(rendered: Rendered, evaluation: Evaluation, built: Mapping[str, Artifact],
                    version: str, *, names_only: bool = False) -> list[Finding]:
    """`url`, `bad-checksum` and `checksum-mismatch` on the values SwiftPM evaluated."""
    path = rendered.template.path
    files = zip_files(built, version, names_only=names_only)
    # A placeholder the render already reports as left in the text is not also a bad checksum.
    left = {f.subject for f in rendered.findings if f.code == LEFT}
    asked = {p.name: p.location.line for p in reversed(rendered.placeholders)}
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
        if target.url is not None and (target.checksum or "") not in left:
            found = _checksum_findings(target, target.url, built, files, path,
                                       url_reported=bool(problems))
            findings += [replace(f, line=_checksum_line(target, asked)) for f in found]
    return findings


def slice_findings(rendered: Rendered, evaluation: Evaluation, built: Mapping[str, Artifact],
                   version: str, *, names_only: bool = False) -> list[Finding]:
    """Platform coverage (core.platform_slices) of the built zip each binary target's URL
    names, against the platforms SwiftPM evaluates: what every consumer downloads and links."""
    files = zip_files(built, version, names_only=names_only)
    asked = {p.name: p.location.line for p in reversed(rendered.placeholders)}
    findings: list[Finding] = []
    for target in evaluation.binary_targets:
        artifact = files.get(url_file(target.url)) if target.url is not None else None
        if artifact is not None:
            findings += coverage_findings(target.name, evaluation.platforms, artifact,
                                          rendered.template.path, _checksum_line(target, asked))
    return findings


def _checksum_line(target: EvaluatedTarget, asked: Mapping[str, int | None]) -> int | None:
    """The template line of the placeholder the checksum came from, else of the target's."""
    token = _TOKEN.fullmatch(target.checksum or "")
    return asked.get(token.group(1) if token else target.name) or asked.get(target.name)


def _checksum_findings(target: EvaluatedTarget, url: str, built: Mapping[str, Artifact],
                       files: Mapping[str, Artifact], path: str, *,
                       url_reported: bool = False) -> list[Finding]:
    """The checksum must be the one of the built zip the URL names: what SwiftPM downloads.
    A URL naming no built zip is said once: by `url` when that already refuses it."""
    checksum = target.checksum or ""
    token = _TOKEN.fullmatch(checksum)
    declared = built.get(token.group(1)) if token else None
    if declared is not None and declared.sha256 is None:
        return []  # a name declared without a checksum (a PR's list) keeps its placeholder
    if not SHA256_RE.fullmatch(checksum):
        if any(a.sha256 == checksum for a in built.values()):
            return []  # a source's bad value: the static check says so on the source's line
        return [
            _finding(
                "bad-checksum",
                target.name,
                path,
                f"SwiftPM evaluates the checksum of '{target.name}' to {checksum[:80]!r}, not 64 "
                "lowercase hex digits; it parses, but every consumer fails to resolve",
            )
        ]
    file = url_file(url)
    artifact = files.get(file)
    if (artifact is not None and artifact.sha256 in (None, checksum)) or \
            (artifact is None and url_reported):
        return []  # right, declared without a checksum, or the URL already refused
    owner = next((f for f, a in files.items() if a.sha256 == checksum), None)
    found = f"{checksum}, the checksum of {owner}" if owner else f"{checksum}, no built zip's"
    if artifact is None:
        why = (f"its URL names {file}, which nobody built (found {found}); every consumer "
               "downloads a zip this release does not hold")
    else:
        why = (f"its URL names {file}, whose checksum is {artifact.sha256}, but SwiftPM "
               f"evaluates {found}; every consumer fails the checksum")
    return [_finding("checksum-mismatch", target.name, path,
                     f"binary target '{target.name}': {why}")]


def two_way(evaluations: Sequence[tuple[Rendered, Evaluation]], built: Mapping[str, Artifact]
            ) -> tuple[list[str], list[str], list[Finding]]:
    """Per manifest and per exact name: every binary target it evaluates must be built
    (unfilled), every built name must be one of its binary targets (unclaimed). A consumer
    reads one manifest, so each stands on its own; a `_debug` twin claims only itself."""
    unfilled: set[str] = set()
    unclaimed: set[str] = set()
    findings: list[Finding] = []
    anywhere = {t.name for _r, e in evaluations for t in e.binary_targets}
    for rendered, evaluation in evaluations:
        path = rendered.template.path
        declared = {t.name for t in evaluation.binary_targets}
        asked = {p.name: p.location.line for p in reversed(rendered.placeholders)}
        for name in sorted(declared - built.keys()):
            unfilled.add(name)
            findings.append(replace(_finding(
                "unfilled-placeholder", name, path,
                f"SwiftPM evaluates binary target '{name}' but no source built it; its checksum "
                "cannot be right and every consumer fails to resolve",
            ), line=asked.get(name)))
        for name in sorted(built.keys() - declared):
            unclaimed.add(name)
            # No manifest has it: where the name was built or declared, as the static check
            # has it (jobs.placement.anchored moves it to the line that declares it); another
            # manifest has it: this manifest is what to change.
            origin = built[name].origin
            elsewhere = name in anywhere
            findings.append(replace(_finding(
                "unclaimed-artifact", name, path if elsewhere else origin.file,
                f"'{name}' was built ({origin.file}) but SwiftPM evaluates no binary target "
                f"'{name}' in {path}; publishing stays blocked until it does (a consumer "
                "SwiftPM reads this manifest for would lose the product)",
            ), line=None if elsewhere else origin.line))
    return sorted(unfilled), sorted(unclaimed), findings


def apply_evaluations(report: Report, evaluated: Sequence[tuple[Rendered, Evaluation]],
                      built: Mapping[str, Artifact], options: CheckOptions,
                      status: SwiftStatus, *,
                      stub_roots: Mapping[str, str] | None = None) -> Report:
    """The static report, with SwiftPM's errors added and, when it evaluated every manifest
    (`dump-package` answered, even if `describe` then failed), its answer in place of the
    text's: the counts, the two-way comparison, the roles and stub folders. `stub_roots` maps
    a template's path to where its stub folders sat in the package SwiftPM read (else
    `swiftpm_roles.stub_root`)."""
    findings: list[Finding] = []
    for rendered, evaluation in evaluated:
        findings += diagnostic_findings(rendered, evaluation.diagnostics)
        findings += target_findings(rendered, evaluation, built, options.version,
                                    names_only=options.names_only)
        findings += slice_findings(rendered, evaluation, built, options.version,
                                   names_only=options.names_only)
    if not evaluated or not all(e.dumped for _r, e in evaluated):
        return replace(report, swiftpm=status,
                               findings=report.findings + _warn(findings, options))
    unfilled, unclaimed, two_way_findings = two_way(evaluated, built)
    findings += two_way_findings
    for rendered, evaluation in evaluated:
        root = (stub_roots or {}).get(rendered.template.path) or \
            swiftpm_roles.stub_root(rendered.template)
        findings += swiftpm_roles.stub_findings(rendered, evaluation, root)
    kept = tuple(f for f in report.findings if f.code not in _REPLACED or
                 _left_unevaluated(f, evaluated))
    findings = list(_warn(findings, options))
    counts = {r.template.path: e for r, e in evaluated}
    templates = tuple(_summary(t, counts.get(t.path)) for t in report.templates)
    primary = evaluated[0][1]
    unfilled = sorted({*unfilled, *(f.subject for f in kept if f.code == "unfilled-placeholder")})
    return replace(report, templates=templates, unfilled=tuple(unfilled),
                   unclaimed=tuple(unclaimed), products=len(primary.products),
                   binary_targets=len(primary.binary_targets), counts_source="swiftpm",
                   swiftpm=status, findings=kept + _once(findings))


def _once(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """A name nobody built is one problem: its placeholder checksum is no second finding while
    `unfilled-placeholder` blocks (downgraded by `--warn`, the checksum still blocks)."""
    blocking = {(f.file, f.subject) for f in findings
                if f.code == "unfilled-placeholder" and f.severity is Severity.ERROR}
    return tuple(f for f in findings if not (
        f.code == "bad-checksum" and (f.file, f.subject) in blocking
        and f"'__SHA256_{f.subject}__'" in f.message))


def _left_unevaluated(finding: Finding, evaluated: Sequence[tuple[Rendered, Evaluation]]) -> bool:
    """A name the text asks for, nobody built and SwiftPM evaluates as no binary target of
    that manifest: its placeholder stays in the published text, so the static finding stays."""
    targets = {r.template.path: {t.name for t in e.binary_targets} for r, e in evaluated}
    return finding.code == "unfilled-placeholder" and finding.file in targets and \
        finding.subject not in targets[finding.file]


def _summary(summary: TemplateSummary, evaluation: Evaluation | None) -> TemplateSummary:
    if evaluation is None:
        return summary
    return replace(summary, products=len(evaluation.products),
                            binary_targets=len(evaluation.binary_targets))


def _finding(code: str, subject: str, file: str, message: str) -> Finding:
    return Finding(code=code, severity=Severity.ERROR, subject=subject, message=message, file=file)


def _warn(findings: list[Finding], options: CheckOptions) -> tuple[Finding, ...]:
    return tuple(apply_warn(findings, options.warn))
