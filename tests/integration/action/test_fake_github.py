"""The fake GitHub itself: it must reject what GitHub's schema rejects, and its own answers
must satisfy the schema, or the other tests prove nothing."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import jsonschema
import pytest
from github import GithubException

from support.actions_env import REPOSITORY, make_origin
from support.fake_github import running
from support.openapi import json_schema, load_spec, schema_path
from support.openapi_subset import OPERATIONS
from swiftpm_guard.infra.github import RetryPolicy, connect

TOKEN = "ghs_fakeSelfTest"
GOOD_ANNOTATION = {
    "path": "a.swift",
    "start_line": 1,
    "end_line": 1,
    "annotation_level": "failure",
    "message": "m",
}


def _client(fake):
    return connect(
        fake.url, TOKEN, RetryPolicy(attempts=1, request_timeout=5, seconds_between_writes=None)
    )


def test_the_schema_is_the_copy_inside_the_repository():
    path = schema_path()
    repo = Path(__file__).resolve().parents[3]
    assert path.relative_to(repo).as_posix() == "tests/support/github-openapi/openapi-subset.json"
    assert len(load_spec().operations) == len(OPERATIONS) == 16


def test_nullable_is_rewritten_into_json_schema():
    schema = json_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "nullable": True},
                "b": {"type": "string", "enum": ["x"], "nullable": True},
                "c": {"allOf": [{"type": "integer"}], "nullable": True},
                "nullable": {"type": "boolean"},  # a property *named* nullable stays a property
            },
        }
    )
    validator = jsonschema.Draft4Validator(schema)
    assert validator.is_valid({"a": None, "b": None, "c": None, "nullable": True})
    assert not validator.is_valid({"a": 1}) and not validator.is_valid({"nullable": None})


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {
                "output": {
                    "title": "t",
                    "summary": "s",
                    "annotations": [{**GOOD_ANNOTATION, "annotation_level": "error"}],
                }
            },
            "'error' is not one of ['notice', 'warning', 'failure']",
        ),
        ({"status": "completed"}, "request body"),  # completed needs a conclusion
        ({"conclusion": "green"}, "'green' is not one of"),
        (
            {"output": {"title": "t", "summary": "s", "annotations": [GOOD_ANNOTATION] * 51}},
            "maxItems 50 violated",
        ),
        ({"output": {"title": "t", "summary": "s" * 65536}}, "maxLength 65535 violated"),
        (
            {
                "output": {
                    "title": "t",
                    "summary": "s",
                    "annotations": [{**GOOD_ANNOTATION, "title": "x" * 256}],
                }
            },
            "title longer than 255",
        ),
        (
            {
                "output": {
                    "title": "t",
                    "summary": "s",
                    "annotations": [{**GOOD_ANNOTATION, "message": "x" * 65537}],
                }
            },
            "message larger than 64 KB",
        ),
        ({"output": {"title": "t"}}, "'summary' is a required property"),
    ],
)
def test_bad_check_run_bodies_are_rejected_and_recorded(change, expected):
    with running() as fake:
        fake.add_repo(REPOSITORY)
        fake.add_token(TOKEN)
        body = {"name": "n", "head_sha": "a" * 40, **change}
        with pytest.raises(GithubException) as raised:
            _client(fake).requester.requestJsonAndCheck(
                "POST", f"/repos/{REPOSITORY}/check-runs", input=body
            )
    assert raised.value.status == 422
    assert any(expected in v for v in fake.violations), fake.violations
    assert fake.check_runs == {}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (f"/repos/{REPOSITORY}/check-runs/abc/annotations", "is not an integer"),
        (f"/repos/{REPOSITORY}/actions/runs/1/artifacts?bogus=1", "'bogus' is not in the schema"),
        (f"/repos/{REPOSITORY}/actions/runs/1/artifacts?direction=up", "'up' is not one of"),
        (f"/repos/{REPOSITORY}/actions/runs/1/artifacts?page=1&page=2", "given 2 times"),
        (f"/repos/{REPOSITORY}/pulls", "no such operation"),
        (f"/repos/{REPOSITORY}/check-runs/1", "no such operation"),  # GET a check run: not used
    ],
)
def test_bad_paths_and_queries_are_recorded(path, expected):
    with running() as fake:
        fake.add_repo(REPOSITORY)
        connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
        connection.request("GET", path)
        with connection.getresponse() as response:
            status = response.status
            response.read()
        connection.close()
    assert status in (404, 422)
    assert any(expected in v for v in fake.violations), fake.violations


def test_a_body_on_a_get_is_recorded():
    with running() as fake:
        fake.add_repo(REPOSITORY)
        connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
        connection.request(
            "GET", f"/repos/{REPOSITORY}", body=b"{}", headers={"Content-Type": "application/json"}
        )
        with connection.getresponse() as response:
            assert response.status == 422
            response.read()
        connection.close()
    assert any("the schema has none" in v for v in fake.violations)


def test_every_operation_answers_in_the_shape_github_promises(tmp_path):
    origin = make_origin(tmp_path)
    with running() as fake:
        fake.add_repo(REPOSITORY, git_dir=origin.bare)
        fake.add_token(TOKEN)
        artifact = fake.add_artifact(REPOSITORY, 5, "frameworks", b"PK\x05\x06" + b"\0" * 18)
        requester = _client(fake).requester
        base = f"/repos/{REPOSITORY}"
        for path in [
            "/rate_limit",
            base,
            f"{base}/branches/main",
            f"{base}/git/ref/heads/main",
            f"{base}/git/matching-refs/heads/",
            f"{base}/contents/README.md",
            f"{base}/contents/.Package.swift?ref=swiftpm",
            f"{base}/actions/runs/5/artifacts",
        ]:
            requester.requestJsonAndCheck("GET", path)
        _headers, run = requester.requestJsonAndCheck(
            "POST",
            f"{base}/check-runs",
            input={"name": "n", "head_sha": "a" * 40, "status": "in_progress"},
        )
        requester.requestJsonAndCheck(
            "PATCH",
            f"{base}/check-runs/{run['id']}",
            input={
                "conclusion": "success",
                "output": {"title": "t", "summary": "s", "annotations": [GOOD_ANNOTATION]},
            },
        )
        _headers, listed = requester.requestJsonAndCheck(
            "GET", f"{base}/check-runs/{run['id']}/annotations"
        )
        connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
        connection.request(
            "GET",
            f"{base}/actions/artifacts/{artifact.id}/zip",
            headers={"Authorization": f"token {TOKEN}"},
        )
        with connection.getresponse() as response:
            response.read()
        connection.close()
        with pytest.raises(GithubException) as missing:
            requester.requestJsonAndCheck("GET", f"{base}/contents/nope.txt")
    assert fake.violations == []
    assert listed[0]["annotation_level"] == "failure" and listed[0]["path"] == "a.swift"
    assert fake.check_runs[run["id"]]["conclusion"] == "success"
    assert response.status == 302
    assert response.getheader("Location").startswith(f"http://localhost:{fake.port}/_blobs/")
    assert missing.value.status == 404
    assert json.dumps(fake.calls("repos/get")[0].query) == "{}"
