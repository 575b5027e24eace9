"""Cut the subset the fake GitHub validates against out of GitHub's full REST API description.

The full description is ~13 MB and full of `$ref`s; the fake needs 16 operations with every
schema in place. The rules (the README in `github-openapi/` says why):

- only the operations in OPERATIONS, in that order; path-level parameters folded into each;
- every local `$ref` inlined (OpenAPI 3.0 ignores a reference's siblings, so do we);
- media-type `examples` dropped (most of the size), and with them a media type left without a
  schema, and a request body left without a media type; schema-level `example` values stay,
  because `support.openapi.synthesize` uses them;
- Octokit's `x-octokit` keys dropped, so the npm copy of the description cuts the same way;
- `components.schemas` only for the names a discriminator `mapping` points at, inlined too,
  so those mappings still resolve; `tags` only for the tags the operations use.

Only a local file is read (`scripts/github-openapi-subset.py FULL.json`); nothing is fetched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

#: (method, path template): what the fake GitHub serves, in the order the subset lists them.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("post", "/repos/{owner}/{repo}/check-runs"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"),
    ("get", "/repos/{owner}/{repo}/git/ref/{ref}"),
    ("get", "/repos/{owner}/{repo}/git/matching-refs/{ref}"),
    ("get", "/repos/{owner}/{repo}/branches/{branch}"),
    ("get", "/repos/{owner}/{repo}/rules/branches/{branch}"),
    ("get", "/repos/{owner}/{repo}/contents/{path}"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"),
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/rate_limit"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("get", "/user"),
)
#: GitHub's full description is ~13 MB; anything far bigger is not one.
MAX_BYTES = 64 * 1024 * 1024
#: Top-level keys copied as they are, in this order, around `paths`.
_HEAD = ("openapi", "info", "tags", "servers", "externalDocs")
_SCHEMAS = "#/components/schemas/"


class SubsetError(ValueError):
    """The input is not a description this can cut; the message is one line naming why."""


def read_description(path: Path) -> dict[str, Any]:
    """The full description from a local file, size-capped and checked for the keys we use."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise SubsetError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_BYTES:
        raise SubsetError(f"{path}: larger than {MAX_BYTES} bytes; not a REST API description")
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise SubsetError(f"{path}: not JSON: {error}") from None
    if not isinstance(document, dict) or not str(document.get("openapi", "")).startswith("3."):
        raise SubsetError(f"{path}: not an OpenAPI 3 description (no `openapi: 3.x` key)")
    if not isinstance(document.get("paths"), dict):
        raise SubsetError(f"{path}: has no `paths` object")
    return document


def _pointer(document: Mapping[str, Any], ref: str) -> Any:
    """The node a local JSON pointer (`#/a/b~1c`) names."""
    if not ref.startswith("#/"):
        raise SubsetError(f"$ref {ref!r} is not local to the file; only `#/...` is supported")
    node: Any = document
    for raw in ref[2:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            raise SubsetError(f"$ref {ref!r} points at nothing")
    return node


def _inline(node: Any, document: Mapping[str, Any], trail: tuple[str, ...] = ()) -> Any:
    """`node` with every `$ref` replaced by a copy of its target; a cycle is refused."""
    if isinstance(node, list):
        return [_inline(item, document, trail) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in trail:
            raise SubsetError(f"$ref cycle, cannot inline: {' -> '.join((*trail, ref))}")
        return _inline(_pointer(document, ref), document, (*trail, ref))
    return {
        key: _inline(value, document, trail) for key, value in node.items() if key != "x-octokit"
    }


def _drop_examples(content: Mapping[str, Any]) -> dict[str, Any]:
    """Media types without `examples`; a media type left without a schema is left out."""
    kept: dict[str, Any] = {}
    for media_type, media in content.items():
        if not isinstance(media, dict):
            continue
        trimmed = {key: value for key, value in media.items() if key != "examples"}
        if "schema" in trimmed:
            kept[media_type] = trimmed
    return kept


def _trim(operation: dict[str, Any]) -> dict[str, Any]:
    body = operation.get("requestBody")
    if isinstance(body, dict) and isinstance(body.get("content"), dict):
        content = _drop_examples(body["content"])
        if content:
            operation["requestBody"] = {**body, "content": content}
        else:
            del operation["requestBody"]  # GitHub's contents GET has one of examples only
    responses = operation.get("responses")
    for code, response in (responses.items() if isinstance(responses, dict) else ()):
        if isinstance(response, dict) and isinstance(response.get("content"), dict):
            responses[code] = {**response, "content": _drop_examples(response["content"])}
    parameters = operation.get("parameters")
    for index, parameter in enumerate(parameters if isinstance(parameters, list) else ()):
        if isinstance(parameter, dict) and isinstance(parameter.get("content"), dict):
            parameters[index] = {**parameter, "content": _drop_examples(parameter["content"])}
    return operation


def _with_path_parameters(item: Mapping[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    """Path-level parameters belong to every operation below them unless it redefines one."""
    shared = item.get("parameters")
    if not isinstance(shared, list) or not shared:
        return operation
    own = [p for p in operation.get("parameters", []) if isinstance(p, dict)]
    names = {(p.get("name"), p.get("in")) for p in own}
    inherited = [
        p for p in shared if isinstance(p, dict) and (p.get("name"), p.get("in")) not in names
    ]
    return {**operation, "parameters": [*inherited, *own]}


def _operation(document: Mapping[str, Any], method: str, path: str) -> dict[str, Any]:
    item = document["paths"].get(path)
    if not isinstance(item, dict) or not isinstance(item.get(method), dict):
        raise SubsetError(f"the description has no operation {method.upper()} {path}")
    item = _inline(item, document)
    return _trim(_with_path_parameters(item, item[method]))


def _mappings(node: Any) -> Iterator[str]:
    """Every discriminator mapping target anywhere below `node`."""
    if isinstance(node, list):
        for item in node:
            yield from _mappings(item)
    elif isinstance(node, dict):
        discriminator = node.get("discriminator")
        mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
        if isinstance(mapping, dict):
            yield from (target for target in mapping.values() if isinstance(target, str))
        for value in node.values():
            yield from _mappings(value)


def cut(document: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The subset of `document`: the rules in this module's docstring; `source` says whence."""
    paths: dict[str, dict[str, Any]] = {}
    for method, path in OPERATIONS:
        paths.setdefault(path, {})[method] = _operation(document, method, path)
    used_tags = {t for item in paths.values() for op in item.values() for t in op.get("tags", [])}
    subset: dict[str, Any] = {}
    for key in _HEAD:
        if key == "tags" and isinstance(document.get("tags"), list):
            subset["tags"] = [
                t for t in document["tags"] if isinstance(t, dict) and t.get("name") in used_tags
            ]
        elif key in document:
            subset[key] = _inline(document[key], document)
    subset["paths"] = paths
    subset["x-subset-source"] = source
    schemas = {
        target.removeprefix(_SCHEMAS): _inline(_pointer(document, target), document, (target,))
        for target in sorted(set(_mappings(paths)))
        if target.startswith(_SCHEMAS)
    }
    if schemas:
        subset["components"] = {"schemas": schemas}
    return subset


def render(subset: Mapping[str, Any]) -> str:
    """One line of compact JSON, as committed (keeps the diff of a regeneration readable)."""
    return json.dumps(subset, ensure_ascii=False, separators=(",", ":")) + "\n"


def default_source(path: Path, document: Mapping[str, Any]) -> str:
    version = document.get("info", {}).get("version", "unknown")
    return (
        f"Subset of {path.name} (info.version {version}) cut by scripts/github-openapi-subset.py: "
        f"{len(OPERATIONS)} operations, all $refs inlined, media-type examples dropped."
    )


def write_atomically(target: Path, text: str) -> None:
    """Whole file or nothing: a failed run leaves the committed subset as it was."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def regenerate(full: Path, output: Path, source: str | None = None) -> int:
    """Cut `full` into `output`; returns the number of bytes written."""
    document = read_description(full)
    text = render(cut(document, source or default_source(full, document)))
    write_atomically(output, text)
    return len(text.encode("utf-8"))


def main(argv: Sequence[str], default_output: Path) -> int:
    """The script's CLI: bad input is one line on stderr and exit 2, and nothing is written."""
    parser = argparse.ArgumentParser(
        prog="github-openapi-subset.py",
        description="Cut the fake GitHub's schema subset out of a local copy of GitHub's full "
        "REST API description (descriptions/api.github.com/api.github.com.json).",
    )
    parser.add_argument("full", type=Path, help="the full description, a local JSON file")
    parser.add_argument("--output", type=Path, default=default_output, help="default: %(default)s")
    parser.add_argument("--source", help="the x-subset-source note (default: names the input)")
    args = parser.parse_args(argv)
    try:
        size = regenerate(args.full, args.output, args.source)
    except SubsetError as error:
        print(f"github-openapi-subset: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}: {len(OPERATIONS)} operations, {size} bytes")
    return 0
