"""GitHub's published OpenAPI subset, made usable for validating requests and responses.

The subset is kept in the repository, `tests/support/github-openapi/openapi-subset.json` (where
it comes from and how it is cut: the README beside it). Its schemas are OpenAPI 3.0 objects: `nullable` is not JSON Schema, so we rewrite it into
`type: [..., "null"]` before handing the schema to `jsonschema`.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema

#: The in-repo copy, and only it: tests never look beside or above the clone for files.
SUBSET = Path(__file__).resolve().parent / "github-openapi" / "openapi-subset.json"
#: Path parameters that may hold slashes (`contents/dir/file`, `git/ref/heads/a/b`).
_GREEDY = {"path", "ref"}
#: Path parameters GitHub lets a client leave empty: `GET …/contents/` is the root folder
#: ("If you omit the path parameter, you will receive the contents of the repository's root
#: directory", GitHub's REST reference for repository contents).
_OPTIONAL = {"path"}


def schema_path() -> Path:
    """The subset's path in this checkout; a clone without it is broken, so say so plainly."""
    if not SUBSET.is_file():
        raise FileNotFoundError(
            f"GitHub's OpenAPI subset is missing from the checkout: {SUBSET} "
            "(it is committed; restore it with git, or regenerate it as its README says)"
        )
    return SUBSET


def json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema → JSON Schema: `nullable: true` becomes an explicit `null`."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: json_schema(value) for key, value in node.items()}
    # Only the keyword (a boolean); inside `properties` "nullable" may name a property.
    nullable = isinstance(out.get("nullable"), bool) and out.pop("nullable")
    if nullable:
        if "type" in out:
            kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*kinds, "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


_FORMATS = jsonschema.FormatChecker(formats=())


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if isinstance(value, str):
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


def _validator(schema: Any) -> jsonschema.Draft4Validator:
    return jsonschema.Draft4Validator(json_schema(schema), format_checker=_FORMATS)


def _errors(schema: Any, instance: Any, what: str) -> list[str]:
    found = sorted(_validator(schema).iter_errors(instance), key=lambda e: list(e.path))
    return [f"{what}: {'/'.join(map(str, e.path)) or '(root)'}: {_describe(e)}" for e in found]


def _describe(error: jsonschema.ValidationError) -> str:
    """The message, or for a huge instance the rule it broke (the message starts with it)."""
    if len(error.message) <= 300:
        return error.message
    return (
        f"{error.validator} {error.validator_value!r} violated by a {type(error.instance).__name__}"
    )


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    spec: Mapping[str, Any]
    pattern: re.Pattern[str]

    @property
    def operation_id(self) -> str:
        return str(self.spec.get("operationId", f"{self.method} {self.template}"))

    def parameters(self, where: str) -> list[Mapping[str, Any]]:
        return [p for p in self.spec.get("parameters", []) if p.get("in") == where]

    def validate_request(
        self,
        path_params: Mapping[str, str],
        query: Mapping[str, list[str]],
        body: bytes,
        content_type: str,
    ) -> list[str]:
        problems: list[str] = []
        for param in self.parameters("path"):
            name = param["name"]
            problems += _check_value(param, path_params.get(name), f"path parameter {name}")
        declared = {p["name"]: p for p in self.parameters("query")}
        for name, values in query.items():
            if name not in declared:
                problems.append(f"query parameter {name!r} is not in the schema")
            elif len(values) != 1:
                problems.append(f"query parameter {name!r} given {len(values)} times")
            else:
                problems += _check_value(declared[name], values[0], f"query parameter {name}")
        for name, param in declared.items():
            if param.get("required") and name not in query:
                problems.append(f"required query parameter {name!r} is missing")
        problems += self._validate_body(body, content_type)
        return problems

    def _validate_body(self, body: bytes, content_type: str) -> list[str]:
        request_body = self.spec.get("requestBody")
        if request_body is None:
            return (
                [f"{self.method} sends a body ({len(body)} bytes); the schema has none"]
                if body
                else []
            )
        if not body:
            return ["request body missing"] if request_body.get("required") else []
        if not content_type.startswith("application/json"):
            return [f"request body content type {content_type!r}, expected application/json"]
        try:
            document = json.loads(body)
        except ValueError as error:
            return [f"request body is not JSON: {error}"]
        schema = request_body["content"]["application/json"]["schema"]
        return _errors(schema, document, "request body")

    def response_schema(self, status: int) -> Any | None:
        response = self.spec.get("responses", {}).get(str(status))
        if response is None:
            return None
        content = response.get("content", {})
        media = content.get("application/json")
        return None if media is None else media.get("schema")


def _check_value(param: Mapping[str, Any], raw: str | None, what: str) -> list[str]:
    if raw is None:
        return [f"{what} is missing"] if param.get("required") else []
    schema = param.get("schema", {})
    kind = schema.get("type")
    value: Any = raw
    if kind == "integer":
        if not re.fullmatch(r"-?[0-9]+", raw):
            return [f"{what}: {raw!r} is not an integer"]
        value = int(raw)
    elif kind == "boolean":
        if raw not in ("true", "false"):
            return [f"{what}: {raw!r} is not a boolean"]
        value = raw == "true"
    return _errors(schema, value, what)


def _parameter(name: str) -> str:
    if name in _GREEDY:
        return ".*" if name in _OPTIONAL else ".+"
    return "[^/]+"


class Spec:
    """The operations of the subset, matched by method and concrete path."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.operations: list[Operation] = []
        for template, item in document["paths"].items():
            regex = re.sub(
                r"\\{([a-z_]+)\\}",
                lambda m: f"(?P<{m.group(1)}>{_parameter(m.group(1))})",
                re.escape(template),
            )
            for method, spec in item.items():
                if method == "parameters":
                    continue
                self.operations.append(Operation(method.upper(), template, spec, re.compile(regex)))
        # Literal segments beat parameters: try the templates with most fixed text first.
        self.operations.sort(key=lambda op: -len(re.sub(r"\{[^}]+\}", "", op.template)))

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        for operation in self.operations:
            if operation.method != method:
                continue
            found = operation.pattern.fullmatch(path)
            if found is not None:
                return operation, {k: unquote(v) for k, v in found.groupdict().items()}
        return None


@cache
def load_spec(path: Path | None = None) -> Spec:
    return Spec(json.loads((path or schema_path()).read_text(encoding="utf-8")))


def synthesize(schema: Any) -> Any:
    """A minimal instance of `schema`: required fields only, nullable ones null.

    The fake overlays its real state on this, so every response carries every field
    GitHub promises without us hand-writing the 75 required fields of a repository.
    """
    if not isinstance(schema, dict):
        return None
    if schema.get("nullable"):
        return None
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = synthesize(part)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return synthesize(schema[key][0])
    if "example" in schema and not isinstance(schema["example"], dict | list):
        return copy.deepcopy(schema["example"])
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: synthesize(properties.get(name, {})) for name in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "date-time":
            return "2025-01-01T00:00:00Z"
        if fmt == "uri":
            return "https://example.invalid/"
        return ""
    if kind in ("integer", "number"):
        return max(0, schema.get("minimum", 0))
    if kind == "boolean":
        return False
    return None


def overlay(base: Any, extra: Mapping[str, Any]) -> Any:
    """Deep-merge `extra` into a synthesized object (dicts merge, everything else replaces)."""
    result = dict(base) if isinstance(base, dict) else {}
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(result.get(key), dict):
            result[key] = overlay(result[key], value)
        else:
            result[key] = value
    return result


def response_errors(operation: Operation, status: int, body: Any) -> list[str]:
    schema = operation.response_schema(status)
    if schema is None:
        return []
    return _errors(schema, body, f"response {status}")
