from __future__ import annotations

import json

import pytest

from support.actions_env import pull_request_payload
from swiftpm_guard.action.event import Event
from swiftpm_guard.action.settings import INPUTS, ActionSettings, read_input
from swiftpm_guard.errors import GuardError, UsageError

SHA = "1" * 40
HEAD = "2" * 40


def _env(tmp_path, event="push", payload=None, **inputs) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload or {}))
    env = {
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_SHA": SHA,
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_RUN_ID": "9",
        "INPUT_FRAMEWORKS": "a,b",
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def _settings(tmp_path, event="push", payload=None, **inputs) -> ActionSettings:
    return ActionSettings.from_env(_env(tmp_path, event, payload, **inputs))


def test_hyphens_as_the_runner_passes_them_and_underscores_as_others_do():
    assert read_input({"INPUT_TEMPLATE-REF": "rel"}, "template-ref") == "rel"
    assert read_input({"INPUT_TEMPLATE_REF": "rel"}, "template-ref") == "rel"
    assert read_input({"INPUT_TEMPLATE-REF": " "}, "template-ref") == "swiftpm"  # blank: default
    assert read_input({}, "check-name") == "SwiftPM manifest"


def test_the_underscore_spelling_is_read_only_where_the_runners_is_absent():
    """The runner passes every declared input, empty ones too (issue 32): an empty input
    never falls through to the job environment's underscore spelling."""
    job = {"INPUT_PUBLISH_REFS": "feature/*", "INPUT_PUSH_TOKEN": "ghp_fromTheJob"}
    assert read_input({**job, "INPUT_PUBLISH-REFS": ""}, "publish-refs") == ""
    assert read_input({**job, "INPUT_PUSH-TOKEN": ""}, "push-token") == ""
    assert read_input(job, "publish-refs") == "feature/*"  # other launchers


def test_proxy_is_host_and_port_only(tmp_path):
    assert _settings(tmp_path, proxy="http://proxy.internal:3128").proxy == \
        "http://proxy.internal:3128"
    assert _settings(tmp_path, proxy="https://[::1]:8443/").proxy == "https://[::1]:8443"
    with pytest.raises(UsageError, match=r"input proxy 'http://\*\*\*@p:1' is not"):
        _settings(tmp_path, proxy="http://u:secret@p:1")


def test_defaults(tmp_path):
    settings = _settings(tmp_path)
    assert settings.mode == "check"
    assert settings.template == "Package.swift.template" and settings.template_ref == "swiftpm"
    assert settings.pr_conclusion == "auto" and settings.dry_run is False
    assert settings.token is None and settings.branch is None
    assert settings.details_url == "https://github.com/o/r/actions/runs/9"
    assert settings.accept_static is False and settings.pr_comment is False
    assert set(INPUTS) == {
        "mode",
        "accept-static",
        "template",
        "template-ref",
        "version",
        "artifacts",
        "checksums",
        "frameworks",
        "frameworks-from",
        "plain-expressions",
        "frameworks-ref",
        "active-refs",
        "run-id",
        "artifact-name",
        "debug-suffix",
        "branch-prefix",
        "check-name",
        "check-run",
        "pr-conclusion",
        "pr-comment",
        "github-token",
        "dry-run",
        "swift",
        "author",
        "allow-overwrite",
        "verify-urls",
        "verify-zips",
        "resolve",
        "base-url",
        "download-growth-limit",
        "branches",
        "push-token",
        "publish-refs",
        "exclude-paths",
        "update",
        "verify-absent",
        "absent-on-403",
        "config",
        "proxy",
    }
    assert settings.proxy is None and settings.download_limit is None
    assert settings.push_token is None and settings.publish_refs == ()
    assert settings.exclude_paths == (".github/",) and settings.update is False
    assert settings.swift == "auto" and settings.allow_overwrite is False
    assert settings.author == (
        "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"
    )
    assert settings.verify_urls is False and settings.base_url is None
    assert settings.branches == "swiftpm-*"


def test_audit_mode_needs_no_source_and_no_version(tmp_path):
    env = _env(tmp_path, mode="audit", branches="swiftpm-1.*")
    del env["INPUT_FRAMEWORKS"]
    settings = ActionSettings.from_env(env)
    assert settings.mode == "audit" and settings.branches == "swiftpm-1.*"
    assert settings.version is None


def test_new_inputs_are_read(tmp_path):
    swift = tmp_path / "swift"
    swift.write_text("#!/bin/sh\n")
    swift.chmod(0o755)
    settings = _settings(
        tmp_path,
        version="1.0.0",
        swift=str(swift),
        author=" Release Bot <bot@example.org> ",
        **{"allow-overwrite": "true", "verify-urls": "true", "base-url": "https://cdn.example/x/"},
    )
    assert settings.swift == str(swift) and settings.author == "Release Bot <bot@example.org>"
    assert settings.allow_overwrite and settings.verify_urls
    assert settings.base_url == "https://cdn.example/x/"


@pytest.mark.parametrize(
    ("event", "mode"),
    [
        ("schedule", "publish"),
        ("workflow_dispatch", "publish"),
        ("push", "check"),
        ("pull_request", "check"),
        ("pull_request_target", "check"),
        ("merge_group", "check"),
    ],
)
def test_auto_publishes_only_on_schedule_and_dispatch(tmp_path, event, mode):
    payload = None
    if event.startswith("pull_request"):
        payload = pull_request_payload(
            number=1, head_sha=HEAD, head_ref="x", base_ref="main", base_sha=SHA
        )
    settings = _settings(tmp_path, event, payload, version="1.0.0")
    assert settings.mode == mode


def test_a_pull_requests_check_run_belongs_to_its_head_not_the_merge(tmp_path):
    payload = pull_request_payload(
        number=5,
        head_sha=HEAD,
        head_ref="feature",
        base_ref="main",
        base_sha=SHA,
        head_repo="fork/r",
    )
    settings = _settings(tmp_path, "pull_request", payload)
    event = settings.event
    assert event.is_pull_request and event.head_sha == HEAD and event.sha == SHA
    assert event.branch == "main" and event.pr_number == 5
    assert event.from_fork is True
    assert not settings.workspace_holds_template


def test_a_pull_request_into_the_template_branch_holds_the_template(tmp_path):
    payload = pull_request_payload(
        number=5, head_sha=HEAD, head_ref="x", base_ref="swiftpm", base_sha=SHA
    )
    assert _settings(tmp_path, "pull_request", payload).workspace_holds_template


def test_a_push_uses_github_sha(tmp_path):
    event = _settings(tmp_path).event
    assert event.head_sha == SHA and event.branch == "main" and not event.is_pull_request


def test_the_token_never_shows_in_repr(tmp_path):
    settings = _settings(tmp_path, **{"github-token": "ghs_secret"})
    assert settings.token == "ghs_secret" and "ghs_secret" not in repr(settings)


def test_multi_line_inputs(tmp_path):
    settings = _settings(
        tmp_path,
        version="1.0.0",
        artifacts="out/a\n\n# comment\nout/b\n",
        **{"frameworks-from": "w.yml:build:FRAMEWORKS\nx.yml:j:V"},
    )
    assert settings.artifacts == ("out/a", "out/b")
    assert [(s.path, s.job, s.var) for s in settings.frameworks_from] == [
        ("w.yml", "build", "FRAMEWORKS"),
        ("x.yml", "j", "V"),
    ]


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"mode": "deploy"}, "input mode must be one of auto, check, publish, audit, preflight; got 'deploy'"),
        ({"swift": "/no/swift"}, "input swift '/no/swift' is not auto, off, or the path of an"),
        ({"author": "nobody"}, "input author 'nobody' must look like 'Name <email@host>'"),
        ({"author": "A <a@b>\nX"}, "input author"),
        ({"allow-overwrite": "1"}, "input allow-overwrite must be true or false, got '1'"),
        ({"verify-urls": "on"}, "input verify-urls must be true or false, got 'on'"),
        ({"verify-urls": "true"}, "input verify-urls needs input version"),
        ({"base-url": "ftp://x/"}, "input base-url 'ftp://x/' is not an http(s) URL"),
        ({"base-url": "https://u:p@x/"}, "input base-url"),
        ({"branches": "--all"}, "input branches '--all' is not a branch glob"),
        ({"branches": "a..b"}, "input branches 'a..b' is not a branch glob"),
        ({"pr-conclusion": "success"}, "input pr-conclusion must be one of auto, neutral, failure"),
        ({"dry-run": "yes"}, "input dry-run must be true or false, got 'yes'"),
        ({"pr-comment": "on"}, "input pr-comment must be true or false, got 'on'"),
        ({"version": "1.0.0;rm -rf /"}, "input version '1.0.0;rm -rf /' is not a safe version"),
        ({"version": "../x"}, "input version '../x' is not a safe version"),
        # What github.ref_name gives on a tag: bad usage with a hint, not 21 findings.
        ({"version": "v1.1.0"}, "input version 'v1.1.0' is not X.Y.Z or X.Y.Z.YYYYMMDD; drop "
                                "the leading 'v': input version 1.1.0"),
        ({"version": "1.1"}, "input version '1.1' is not X.Y.Z or X.Y.Z.YYYYMMDD; give one"),
        ({"version": "1.1.0-rc1"}, "input version '1.1.0-rc1' is not X.Y.Z"),
        ({"template": "../etc/passwd"}, "input template '../etc/passwd' must be a relative path"),
        ({"template": "/abs/T"}, "input template '/abs/T' must be a relative path"),
        ({"template-ref": "-upload-pack=x"}, "input template-ref '-upload-pack=x' is not a valid"),
        ({"template-ref": "a..b"}, "is not a valid branch name"),
        ({"frameworks-ref": "x..y"}, "input frameworks-ref 'x..y' is not a valid branch name"),
        ({"run-id": "12abc"}, "input run-id must be a number, got '12abc'"),
        ({"run-id": "12"}, "inputs run-id and artifact-name go together"),
        ({"artifact-name": "../x", "run-id": "1"}, "input artifact-name '../x' is not"),
        ({"debug-suffix": "-dbg"}, "input debug-suffix '-dbg' is not [A-Za-z0-9_]*"),
        ({"branch-prefix": "--force"}, "input branch-prefix '--force' cannot start a branch"),
        ({"check-name": "a\nb"}, "input check-name 'a\\nb' must be one line"),
        ({"frameworks": "", "INPUT_X": ""}, "give at least one source input"),
        ({"mode": "publish"}, "input version is required to publish"),
        ({"artifacts": "out"}, "input version is required to publish or to check zips"),
        ({"frameworks-from": "w.yml:bad job:V"}, "job id 'bad job' is not a valid workflow job id"),
        ({"frameworks-from": "../w.yml:j:V"}, "input frameworks-from workflow '../w.yml' must be"),
        ({"frameworks": "@/etc/list"}, "input frameworks @file '/etc/list' is outside the workspace"),
    ],
)
def test_bad_inputs_are_one_line_exit_2(tmp_path, inputs, message):
    with pytest.raises(GuardError) as raised:
        _settings(tmp_path, **inputs)
    assert raised.value.exit_code == 2
    assert message in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GITHUB_EVENT_NAME": ""}, "GITHUB_EVENT_NAME is not set"),
        ({"GITHUB_REPOSITORY": "nope"}, "GITHUB_REPOSITORY 'nope' is not owner/name"),
        ({"GITHUB_SHA": "xyz"}, "GITHUB_SHA 'xyz' is not a commit sha"),
        ({"GITHUB_API_URL": "ftp://x"}, "GITHUB_API_URL 'ftp://x' is not an http(s) URL"),
        ({"GITHUB_WORKSPACE": "/no/such/dir"}, "GITHUB_WORKSPACE '/no/such/dir' is not a folder"),
    ],
)
def test_a_broken_runner_environment_is_exit_2(tmp_path, env, message):
    values = {**_env(tmp_path), **env}
    with pytest.raises(UsageError) as raised:
        ActionSettings.from_env(values)
    assert message in str(raised.value)


def test_a_broken_event_payload_names_the_file(tmp_path):
    env = _env(tmp_path, "pull_request")
    (tmp_path / "event.json").write_text("{not json")
    with pytest.raises(GuardError, match=r"event\.json: event payload is not JSON"):
        ActionSettings.from_env(env)
    (tmp_path / "event.json").write_text(json.dumps({"pull_request": {"head": {"sha": "zz"}}}))
    with pytest.raises(GuardError, match=r"pull_request\.head\.sha is missing or not a commit sha"):
        ActionSettings.from_env(env)


def test_event_without_payload_file(tmp_path):
    env = _env(tmp_path)
    del env["GITHUB_EVENT_PATH"]
    assert Event.from_env(env).default_branch is None


# -- issue 14: the defaults that must not let a bad release through ---------------------------


def _pr(tmp_path, base: str, **inputs) -> ActionSettings:
    payload = pull_request_payload(number=5, head_sha=HEAD, head_ref="feature", base_ref=base,
                                   base_sha=SHA)
    return _settings(tmp_path, "pull_request", payload, **inputs)


def test_pr_conclusion_stays_auto_until_the_base_is_known_and_takes_fixed_values(tmp_path):
    # `auto` is decided by what the pull request brings (report/check_run.conclusion_for).
    assert _pr(tmp_path, "swiftpm").pr_conclusion == "auto"
    assert _pr(tmp_path, "swiftpm", **{"pr-conclusion": "neutral"}).pr_conclusion == "neutral"
    assert _pr(tmp_path, "main", **{"pr-conclusion": "failure"}).pr_conclusion == "failure"
    with pytest.raises(UsageError, match="pr-conclusion"):
        _settings(tmp_path, **{"pr-conclusion": "green"})


def test_lists_and_exclusions_are_read_and_validated(tmp_path):
    settings = _settings(tmp_path, **{"frameworks-ref": "main release/*", "publish-refs":
                                      "main, release/*\nrefs/tags/v*", "exclude-paths": "none"})
    assert settings.frameworks_refs == ("main", "release/*")
    assert settings.publish_refs == ("main", "release/*", "refs/tags/v*")
    assert settings.exclude_paths == ()
    assert _settings(tmp_path, **{"exclude-paths": ".github/ docs/x.md"}).exclude_paths == (
        ".github/", "docs/x.md")
    for name, value in (("publish-refs", "--all"), ("exclude-paths", "../x"),
                        ("frameworks-ref", "a..b"), ("exclude-paths", "/etc")):
        with pytest.raises(UsageError, match=name):
            _settings(tmp_path, **{name: value})


def test_update_and_allow_overwrite_exclude_each_other(tmp_path):
    with pytest.raises(UsageError, match="update and allow-overwrite"):
        _settings(tmp_path, update="true", **{"allow-overwrite": "true"})


def test_a_file_under_runner_temp_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(UsageError) as caught:
        _settings(tmp_path, checksums="/home/runner/work/_temp/checksums.txt")
    message = str(caught.value)
    assert "input checksums '/home/runner/work/_temp/checksums.txt' is outside the workspace" in (
        message)
    assert "$RUNNER_TEMP" in message and "/github/workspace" in message
    assert "run-id and artifact-name" in message and "download" in message
    with pytest.raises(UsageError, match="outside the workspace"):
        _settings(tmp_path, artifacts="../dist")


def test_preflight_mode_needs_a_version_but_no_sources(tmp_path):
    env = _env(tmp_path, mode="preflight", version="1.2.3")
    del env["INPUT_FRAMEWORKS"]
    assert ActionSettings.from_env(env).mode == "preflight"
    del env["INPUT_VERSION"]
    with pytest.raises(UsageError, match="preflight needs input version"):
        ActionSettings.from_env(env)


def test_resolve_needs_a_swift_on_the_runner(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # the Docker action's image has no swift
    with pytest.raises(UsageError, match="input resolve needs a swift on the runner"):
        _settings(tmp_path, resolve="true")
    swift = tmp_path / "swift"
    swift.write_text("#!/bin/sh\n")
    swift.chmod(0o755)
    assert _settings(tmp_path, resolve="true").resolve_swift == str(swift)
    assert _settings(tmp_path).resolve_swift is None
