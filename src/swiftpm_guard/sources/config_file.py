"""The configuration file (`.github/swiftpm-guard.yml`): the settings every guard step of a
repository repeats, written once.

A strict schema: a mapping of setting names (the action's input names) to a string, a boolean
or a list of strings. An unknown key, a wrong type or a bad value is one line naming the
file's line (`InputError`, exit 2). Read with PyYAML's node graph (`compose`), so every value
keeps its line; tokens and per-run inputs (`mode`, `version`, the sources of one build) are
refused: they belong to the step, not to the repository.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from swiftpm_guard.core.names import (
    Identity,
    WorkflowSpec,
    repo_path,
    validate_excluded,
    validate_plain_expression,
    validate_ref,
    validate_ref_glob,
    validate_ref_or_glob,
)
from swiftpm_guard.core.urls import validate_base_url
from swiftpm_guard.core.weight import parse_limit
from swiftpm_guard.errors import InputError, UsageError

if TYPE_CHECKING:
    import yaml

#: Where the action and the CLI look for it when no path is named.
DEFAULT_CONFIG_PATH = ".github/swiftpm-guard.yml"
#: A real one is a few hundred bytes.
CONFIG_MAX_BYTES = 64 * 1024

_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")
_PREFIX = re.compile(r"[A-Za-z0-9._/-]{0,100}")


def _each(check: Callable[[str], object]) -> Callable[[tuple[str, ...]], None]:
    def every(items: tuple[str, ...]) -> None:
        for item in items:
            check(item)
    return every


def _workflow(line: str) -> None:
    repo_path(WorkflowSpec.parse(line).path, "frameworks-from workflow")


def _suffix(value: str) -> None:
    if not _SUFFIX.fullmatch(value):
        raise UsageError(f"debug-suffix {value!r} is not [A-Za-z0-9_]*")


def _prefix(value: str) -> None:
    if not _PREFIX.fullmatch(value) or ".." in value or value.startswith(("-", "/")):
        raise UsageError(f"branch-prefix {value!r} cannot start a branch name")


def _check_name(value: str) -> None:
    if len(value) > 255 or re.search(r"[\x00-\x1f]", value):
        raise UsageError("check-name must be one line of at most 255 characters")


def _one_of(*allowed: str) -> Callable[[str], None]:
    def check(value: str) -> None:
        if value not in allowed:
            raise UsageError(f"must be one of {', '.join(allowed)}; got {value!r}")
    return check


def _author(value: str) -> None:
    try:
        Identity.parse(value)
    except UsageError:
        raise UsageError(f"author {value!r} must look like 'Name <email@host>'") from None


@dataclass(frozen=True, slots=True)
class _Key:
    kind: str  # "str", "bool", "lines" (one item per line) or "words"
    check: Callable[..., object] = lambda _value: None
    #: A string also allowed for a "bool" key (verify-zips: auto).
    also: tuple[str, ...] = ()


#: Every setting the file may hold: the action's inputs that are the same in every step of a
#: repository. The CLI applies those it has an option for (cli/config.py).
KEYS: dict[str, _Key] = {
    "template": _Key("str", lambda v: repo_path(v, "template")),
    "template-ref": _Key("str", lambda v: validate_ref(v, "template-ref")),
    "frameworks-from": _Key("lines", _each(_workflow)),
    "plain-expressions": _Key("words", _each(
        lambda v: validate_plain_expression(v, "plain-expressions"))),
    "frameworks-ref": _Key("words", _each(lambda v: validate_ref_or_glob(v, "frameworks-ref"))),
    "active-refs": _Key("words", _each(lambda v: validate_ref_or_glob(v, "active-refs"))),
    "debug-suffix": _Key("str", _suffix),
    "branch-prefix": _Key("str", _prefix),
    "check-name": _Key("str", _check_name),
    "pr-conclusion": _Key("str", _one_of("auto", "neutral", "failure")),
    "publish-refs": _Key("words", _each(lambda v: validate_ref_glob(v, "publish-refs"))),
    "exclude-paths": _Key("words", lambda v: validate_excluded(v, "exclude-paths")),
    "author": _Key("str", _author),
    "accept-static": _Key("bool"),
    "verify-urls": _Key("bool"),
    "verify-zips": _Key("bool", also=("auto",)),
    "verify-absent": _Key("bool"),
    "absent-on-403": _Key("bool"),
    "pr-comment": _Key("bool"),
    "base-url": _Key("str", lambda v: validate_base_url(v, "base-url")),
    "download-growth-limit": _Key("str", lambda v: parse_limit(v, "download-growth-limit")),
    "branches": _Key("str", lambda v: validate_ref_glob(v, "branches")),
}

#: Inputs the file may not hold, and why (the message says where they go instead).
REFUSED: dict[str, str] = {
    **dict.fromkeys(("github-token", "push-token"), "a token is never written in a file"),
    **dict.fromkeys(("mode", "version", "artifacts", "checksums", "frameworks", "run-id",
                     "artifact-name", "check-run", "dry-run", "update", "allow-overwrite"),
                    "it belongs to one run: give it as the step's input"),
    **dict.fromkeys(("swift", "resolve"),
                    "where SwiftPM runs is the step's runner: give it as the step's input"),
    "config": "the file cannot name another one",
}

Value = str | bool | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """The settings a configuration file holds, with the line each is on."""

    path: str  # as shown in messages
    where: str  # where it was read ("origin/main", "the working tree")
    values: Mapping[str, Value] = field(default_factory=dict)
    lines: Mapping[str, int] = field(default_factory=dict)

    def as_inputs(self) -> dict[str, str]:
        """Each setting as the action's input would spell it."""
        return {key: _as_input(value) for key, value in self.values.items()}

    def line_of(self, key: str) -> str:
        return f"{self.path}:{self.lines[key]}"


def _as_input(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "\n".join(value)
    return value


def parse_config(data: bytes, *, path: str, where: str) -> ConfigFile:
    """The settings in `data`, validated; InputError (`path:line: …`) on anything else."""
    import yaml  # only when there is a file: PyYAML is a third of the CLI's start-up

    if len(data) > CONFIG_MAX_BYTES:
        raise InputError(f"configuration file is larger than {CONFIG_MAX_BYTES} bytes", file=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError("configuration file is not UTF-8", file=path, line=line) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise InputError(f"not YAML: {error.problem or error.context}", file=path,
                         line=mark.line + 1 if mark is not None else None) from None
    except yaml.YAMLError as error:
        raise InputError(f"not YAML: {error}", file=path) from None
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag.endswith(":null")):
        return ConfigFile(path, where)
    if not isinstance(root, yaml.MappingNode):
        raise InputError("a configuration file is a mapping of setting: value", file=path,
                         line=root.start_mark.line + 1)
    values: dict[str, Value] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in root.value:
        line = key_node.start_mark.line + 1
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str) or not key_node.tag.endswith(":str"):
            raise InputError("a setting's name is a plain word", file=path, line=line)
        if key in values:
            raise InputError(f"duplicate setting {key!r} (first on line {lines[key]})",
                             file=path, line=line)
        values[key] = _value(key, value_node, path, line)
        lines[key] = line
    return ConfigFile(path, where, values, lines)


def _value(key: str, node: yaml.Node, path: str, line: int) -> Value:
    spec = KEYS.get(key)
    if spec is None:
        why = REFUSED.get(key)
        if why is not None:
            raise InputError(f"setting {key!r} cannot be in the configuration file: {why}",
                             file=path, line=line)
        raise InputError(f"unknown setting {_shown(key)} (the file takes: "
                         f"{', '.join(KEYS)})", file=path, line=line)
    line = node.start_mark.line + 1
    value = _typed(key, spec, node, path, line)
    try:
        spec.check(value)
    except (UsageError, InputError) as error:
        raise InputError(str(error), file=path, line=line) from None
    return value


def _typed(key: str, spec: _Key, node: yaml.Node, path: str, line: int) -> Value:
    """The node as the key's type, or one line saying what was expected."""
    scalar = _scalar(node)
    if spec.kind == "bool":
        if node.tag.endswith(":bool") and scalar in ("true", "false"):
            return scalar == "true"
        if scalar is not None and scalar in spec.also:
            return scalar
        choices = " or ".join(("true", "false", *spec.also))
        raise InputError(f"{key} must be {choices}, got {_shown(scalar)}", file=path, line=line)
    if spec.kind == "str":
        if scalar is None or not node.tag.endswith(":str") or not scalar.strip():
            raise InputError(f"{key} must be a non-empty string, got {_shown(scalar)}",
                             file=path, line=line)
        return scalar.strip()
    items = _items(key, node, path, line)
    if spec.kind == "words":
        items = tuple(w for item in items for w in re.split(r"[\s,]+", item) if w)
    if not items:
        raise InputError(f"{key} is empty: leave it out instead", file=path, line=line)
    return items


def _items(key: str, node: yaml.Node, path: str, line: int) -> tuple[str, ...]:
    """A list of strings, or one string holding one item per line."""
    import yaml  # loaded by parse_config, the only caller

    nodes = node.value if isinstance(node, yaml.SequenceNode) else [node]
    items = []
    for item in nodes:
        text = _scalar(item)
        if text is None or not item.tag.endswith(":str"):
            raise InputError(f"{key} must be a string or a list of strings, got "
                             f"{_shown(text)}", file=path, line=item.start_mark.line + 1)
        items += [part.strip() for part in text.splitlines()
                  if part.strip() and not part.strip().startswith("#")]
    return tuple(items)


def _scalar(node: yaml.Node) -> str | None:
    import yaml  # loaded by parse_config, the only caller

    return node.value if isinstance(node, yaml.ScalarNode) else None


def _shown(value: str | None) -> str:
    if value is None:
        return "a list or a mapping"
    return repr(value if len(value) <= 80 else value[:77] + "...")
