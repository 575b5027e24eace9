"""What SwiftPM said about one rendered package, as values (pure: text in, values out).

`swift package dump-package` prints the evaluated manifest as JSON: every product and target
with the URL and checksum the Swift code computed. `swift package describe --type json` loads
the package graph too, so it also fails on a target path that does not exist (a missing stub).
When either fails, its stderr holds SwiftPM's or the compiler's messages; we keep each error
with the manifest line when the compiler gives one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from swiftpm_guard.core.text_lines import split_lines

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
    """The evaluated manifest (empty when SwiftPM rejected it) and SwiftPM's errors."""

    products: tuple[EvaluatedProduct, ...]
    targets: tuple[EvaluatedTarget, ...]
    diagnostics: tuple[Diagnostic, ...]

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
        return Evaluation((), (), _diagnostics(dump))
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
            diagnostic = Diagnostic(
                message=_clean(compiler.group("message")),
                subject=MANIFEST,
                line=int(compiler.group("line")) if in_manifest else None,
                column=int(compiler.group("column")) if in_manifest else None,
            )
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
        data = json.loads(text)
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
    return EvaluatedTarget(
        name=str(data["name"]),
        kind=str(data.get("type") or "regular"),
        url=_optional(data.get("url")),
        checksum=_optional(data.get("checksum")),
        path=_optional(data.get("path")),
        dependencies=tuple(_dependency_names(data.get("dependencies") or ())),
    )


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
