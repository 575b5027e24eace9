"""What a step hands back to the runner: outputs, the job summary, workflow commands, masks.

Formats follow the runner's own rules (actions/toolkit): command data escapes `%`, CR and LF;
property values also escape `:` and `,`. Multi-line outputs use a heredoc whose delimiter is
random, so a value can never end the block early and smuggle in another output.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from swiftpm_guard.core.model import Annotation
from swiftpm_guard.errors import InputError

#: The runner shows this many annotations per level per step; the rest must be aggregated.
ANNOTATIONS_PER_LEVEL = 10
#: The job summary of one step must stay below 1 MiB.
SUMMARY_MAX_BYTES = 1024 * 1024 - 1024
_COMMAND_LEVEL = {"failure": "error", "warning": "warning", "notice": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, properties: Mapping[str, str | int] | None = None) -> str:
    """`::name key=value,…::message`, escaped as the runner unescapes it."""
    # The runner trims the property list and drops `key=` with nothing after it: send values
    # trimmed and leave out empty ones, so what runs is exactly what was meant.
    values = {key: str(value).strip() for key, value in (properties or {}).items()}
    props = ",".join(f"{key}={escape_property(value)}" for key, value in values.items() if value)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def mask(secret: str) -> list[str]:
    """`::add-mask::` for every line of a secret (the runner masks line by line), its data
    escaped as the runner unescapes it: raw, `ghs_a%25b` would mask `ghs_a%b`, not itself."""
    return [f"::add-mask::{escape_data(line)}" for line in secret.splitlines() if line.strip()]


def annotation_commands(annotations: Sequence[Annotation]) -> list[str]:
    """One `::error`/`::warning` per annotation; past 10 per level, one that lists the rest."""
    lines: list[str] = []
    for level in ("failure", "warning", "notice"):
        chosen = [a for a in annotations if a.level == level]
        name = _COMMAND_LEVEL[level]
        shown = (
            chosen if len(chosen) <= ANNOTATIONS_PER_LEVEL else chosen[: ANNOTATIONS_PER_LEVEL - 1]
        )
        for item in shown:
            lines.append(
                command(  # no path: a job-level annotation (a file of no line to mark)
                    name, item.message, {"file": item.path, "line": item.line if item.path
                                         else "", "title": item.title}
                )
            )
        rest = chosen[len(shown) :]
        if rest:
            listed = "\n".join(f"{a.path}:{a.line}: {a.title}: {a.message}" for a in rest)
            lines.append(
                command(
                    name,
                    listed,
                    {
                        "title": f"swiftpm-guard: {len(rest)} more {name}s (the runner shows "
                        f"{ANNOTATIONS_PER_LEVEL} per level)",
                    },
                )
            )
    return lines


def format_outputs(values: Mapping[str, str], delimiter: Callable[[], str] | None = None) -> str:
    """`name=value` lines, or heredocs with a fresh random delimiter for multi-line values."""
    make = delimiter or (lambda: f"ghadelimiter_{secrets.token_hex(16)}")
    chunks: list[str] = []
    for name, value in values.items():
        if "\n" not in value and "\r" not in value:
            chunks.append(f"{name}={value}\n")
            continue
        marker = make()
        while marker in value:
            marker = make()
        chunks.append(f"{name}<<{marker}\n{value}\n{marker}\n")
    return "".join(chunks)


def _append(path: Path, text: str, what: str) -> None:
    from swiftpm_guard.sinks.files import append_text

    append_text(path, text, what)


def write_outputs(path: Path, values: Mapping[str, str]) -> None:
    _append(path, format_outputs(values), "step outputs file")


def append_summary(path: Path, markdown: str) -> bool:
    """Append to the job summary, cut to stay below 1 MiB; True when something was cut."""
    try:
        used = path.stat().st_size
    except FileNotFoundError:
        used = 0
    budget = SUMMARY_MAX_BYTES - used
    data = markdown.encode("utf-8")
    cut = len(data) > budget
    if cut:
        note = (
            f"\n\n… cut: the job summary must stay below 1 MiB; "
            f"{len(data)} bytes did not fit. The JSON report has everything.\n"
        )
        keep = max(0, budget - len(note.encode()))
        head = data[:keep].decode("utf-8", "ignore")
        if "\n" in head:
            head = head[: head.rindex("\n")]
        markdown = head + note if keep else ""
    _append(path, markdown, "job summary")
    return cut


def report_push(output_file: Path | None, summary_file: Path | None, *, branch: str, commit: str,
                remote: str, summary: str) -> list[str]:
    """Record a push that happened, at once, whatever fails later; lines for the log back.

    A push cannot be taken back, so it is reported before anything else can fail: the step
    outputs `pushed=true` and `branch` (written again later with the rest; the runner keeps
    the last value), a line in the job summary, and a `::notice` naming branch and commit.
    A sink that fails does not stop the others; its failure is one more log line.
    """
    lines = [
        command(
            "notice",
            f"pushed {branch} at {commit} to {remote}",
            {"title": "swiftpm-guard"},
        )
    ]
    if output_file is not None:
        try:
            write_outputs(output_file, {"pushed": "true", "branch": branch})
        except InputError as error:
            lines.append(command("warning", f"{error}", {"title": "swiftpm-guard"}))
    if summary_file is not None:
        try:
            append_summary(summary_file, summary)
        except InputError as error:
            lines.append(command("warning", f"{error}", {"title": "swiftpm-guard"}))
    return lines
