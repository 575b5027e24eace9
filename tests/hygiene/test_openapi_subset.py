"""scripts/github-openapi-subset.py: cutting the fake GitHub's schema out of a full description.

The full description is not in the repository (13 MB), so a small synthetic one in the same
shape stands in: `$ref`s into every components section, media-type examples, Octokit keys,
path-level parameters, a discriminator mapping, operations that must be left out.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.openapi import SUBSET, Spec
from support.openapi_subset import OPERATIONS, SubsetError, cut, read_description, render

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "github-openapi-subset.py"
CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
CONTENTS = "/repos/{owner}/{repo}/contents/{path}"


def _full() -> dict[str, Any]:
    """A description shaped like GitHub's, with every operation the subset wants."""
    owner = {"$ref": "#/components/parameters/owner"}
    paths: dict[str, Any] = {}
    for method, path in OPERATIONS:
        paths.setdefault(path, {})[method] = {
            "operationId": f"{method} {path}",
            "tags": ["repos"],
            "parameters": [owner],
            "responses": {"200": {"$ref": "#/components/responses/ok"}},
            "x-octokit": {"changes": []},
        }
    paths[CHECK_RUNS]["post"].update(
        tags=["checks"],
        requestBody={
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/check-run~1create"},
                    "examples": {"default": {"$ref": "#/components/examples/big"}},
                }
            },
        },
    )
    # GitHub's contents GET carries a request body of examples only: it must go.
    paths[CONTENTS]["get"]["requestBody"] = {
        "content": {"application/json": {"examples": {"x": {"value": {"a": 1}}}}}
    }
    paths[CONTENTS]["get"]["responses"] = {
        "200": {
            "description": "ok",
            "content": {
                "application/json": {
                    "schema": {
                        "oneOf": [{"$ref": "#/components/schemas/content-file"}],
                        "discriminator": {
                            "propertyName": "type",
                            "mapping": {"file": "#/components/schemas/content-file"},
                        },
                    },
                    "examples": {"file": {"$ref": "#/components/examples/big"}},
                }
            },
        }
    }
    # A path-level parameter: every operation below it gets it.
    paths["/rate_limit"]["parameters"] = [{"name": "x", "in": "query", "schema": {"type": "string"}}]
    paths[CHECK_RUNS]["get"] = {"operationId": "not wanted", "responses": {}}
    paths["/gists"] = {"get": {"operationId": "gists/list", "tags": ["gists"], "responses": {}}}
    return {
        "openapi": "3.0.3",
        "info": {"version": "9.9.9", "title": "GitHub v3 REST API"},
        "tags": [{"name": "checks"}, {"name": "gists"}, {"name": "repos"}],
        "servers": [{"url": "https://api.example.invalid"}],
        "externalDocs": {"url": "https://docs.example.invalid/"},
        "paths": paths,
        "components": {
            "parameters": {"owner": {"name": "owner", "in": "path", "required": True,
                                     "schema": {"type": "string"}}},
            "responses": {"ok": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/simple"},
                "examples": {"default": {"$ref": "#/components/examples/big"}}}}}},
            "schemas": {
                "simple": {"type": "object", "required": ["id"],
                           "properties": {"id": {"type": "integer", "example": 42}}},
                "check-run/create": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"},
                                   "output": {"$ref": "#/components/schemas/simple"}}},
                "content-file": {"type": "object",
                                 "properties": {"type": {"type": "string"}}},
                "unused": {"type": "string"},
            },
            "examples": {"big": {"value": {"huge": "x" * 1000}}},
        },
    }


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for value in node.values() for k in _keys(value)}
    if isinstance(node, list):
        return {k for item in node for k in _keys(item)}
    return set()


def test_the_subset_holds_exactly_the_operations_with_every_ref_inlined():
    subset = cut(_full(), "synthetic")
    listed = [(m, p) for p, item in subset["paths"].items() for m in item]
    assert listed == list(OPERATIONS)
    assert "$ref" not in _keys(subset) and "x-octokit" not in _keys(subset)
    create = subset["paths"][CHECK_RUNS]["post"]
    schema = create["requestBody"]["content"]["application/json"]["schema"]
    assert schema["properties"]["output"]["properties"]["id"] == {"type": "integer", "example": 42}
    assert create["parameters"] == [
        {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}}
    ]
    assert "huge" not in json.dumps(subset)  # media-type examples gone, schema examples kept


def test_bodies_of_examples_only_go_and_path_parameters_are_folded_in():
    subset = cut(_full(), "synthetic")
    assert "requestBody" not in subset["paths"][CONTENTS]["get"]
    rate = subset["paths"]["/rate_limit"]["get"]
    assert [p["name"] for p in rate["parameters"]] == ["x", "owner"]
    assert "parameters" not in subset["paths"]["/rate_limit"]


def test_only_mapped_components_and_used_tags_are_kept():
    subset = cut(_full(), "synthetic")
    assert subset["components"] == {
        "schemas": {"content-file": {"type": "object", "properties": {"type": {"type": "string"}}}}
    }
    assert subset["tags"] == [{"name": "checks"}, {"name": "repos"}]
    assert subset["x-subset-source"] == "synthetic"
    assert list(subset) == [
        "openapi", "info", "tags", "servers", "externalDocs", "paths", "x-subset-source",
        "components",
    ]


def test_the_cut_is_what_the_fake_validates_with():
    spec = Spec(json.loads(render(cut(_full(), "synthetic"))))
    operation, params = spec.match("POST", "/repos/o/r/check-runs") or pytest.fail("no match")
    assert params == {"owner": "o", "repo": "r"}
    assert operation.validate_request(params, {}, b'{"name": "n"}', "application/json") == []
    assert operation.validate_request(params, {}, b'{"nam": 1}', "application/json")


def test_a_reference_cycle_is_refused_by_name():
    full = _full()
    full["components"]["schemas"]["simple"]["properties"]["self"] = {
        "$ref": "#/components/schemas/simple"
    }
    with pytest.raises(SubsetError, match=r"\$ref cycle.*#/components/schemas/simple"):
        cut(full, "synthetic")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["paths"].pop("/rate_limit"), "no operation GET /rate_limit"),
        (lambda d: d["components"]["schemas"].pop("simple"), "points at nothing"),
        (
            lambda d: d["paths"]["/rate_limit"]["get"].update(
                responses={"200": {"$ref": "other.json#/x"}}
            ),
            "not local",
        ),
    ],
)
def test_a_description_missing_what_is_needed_is_refused(change, message):
    full = copy.deepcopy(_full())
    change(full)
    with pytest.raises(SubsetError, match=message):
        cut(full, "synthetic")


def test_the_committed_subset_is_exactly_what_the_rules_produce():
    """Cutting the committed file again changes no byte: it holds the operations and nothing
    the rules would drop, so a regeneration from the full file differs only where GitHub did."""
    committed = SUBSET.read_text(encoding="utf-8")
    document = read_description(SUBSET)
    assert render(cut(document, document["x-subset-source"])) == committed


def _script(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_the_script_writes_the_subset_from_a_local_file(tmp_path):
    full = tmp_path / "api.github.com.json"
    full.write_text(json.dumps(_full()), encoding="utf-8")
    out = tmp_path / "out" / "openapi-subset.json"
    result = _script(full, "--output", out)
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}: {len(OPERATIONS)} operations" in result.stdout
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["x-subset-source"].startswith("Subset of api.github.com.json (info.version 9.9.9)")
    assert out.read_text(encoding="utf-8") == render(written)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ('{"openapi": "2.0", "paths": {}}', "not an OpenAPI 3 description"),
        ('{"openapi": "3.0.3", "paths": {}}', "no operation POST /repos/{owner}/{repo}/check-runs"),
    ],
)
def test_the_script_refuses_bad_input_in_one_line_and_writes_nothing(tmp_path, content, message):
    full = tmp_path / "full.json"
    full.write_text(content, encoding="utf-8")
    out = tmp_path / "openapi-subset.json"
    result = _script(full, "--output", out)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr and not out.exists()
    assert list(tmp_path.iterdir()) == [full]


def test_the_script_names_a_missing_file(tmp_path):
    result = _script(tmp_path / "absent.json", "--output", tmp_path / "o.json")
    assert result.returncode == 2 and "absent.json: cannot read" in result.stderr
