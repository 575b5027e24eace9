"""The action's settings: inputs and event, read from the runner's environment and validated
once, before any file is read or any request is made (a bad input is exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swiftpm_guard.action import inputs
from swiftpm_guard.action.event import Event
from swiftpm_guard.action.inputs import (
    MODES,
    PR_CONCLUSIONS,
    boolean,
    choice,
    lines_of,
    push_token_from,
    read_input,
    token_from,
    words_of,
)
from swiftpm_guard.core.git_names import DEFAULT_AUTHOR, check_token
from swiftpm_guard.core.publish_refs import validate_excluded, validate_ref_glob
from swiftpm_guard.core.urls import validate_base_url
from swiftpm_guard.errors import UsageError
from swiftpm_guard.sources.git_ref import relative_path, validate_ref
from swiftpm_guard.sources.git_repository import DEFAULT_PATTERN
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

#: `auto` publishes only on these; pushes, pull requests and merge queues only check.
PUBLISH_EVENTS = frozenset({"schedule", "workflow_dispatch"})


@dataclass(frozen=True, kw_only=True)
class ActionSettings:
    mode: str  # resolved: "check", "publish" or "audit"
    requested_mode: str
    template: str
    template_ref: str
    version: str | None
    artifacts: tuple[str, ...] = ()
    checksums: tuple[str, ...] = ()
    frameworks: str | None = None
    frameworks_from: tuple[WorkflowSpec, ...] = ()
    #: Refs (and globs: `release/*`) whose framework lists a template change is checked against.
    frameworks_refs: tuple[str, ...] = ()
    run_id: int | None = None
    artifact_name: str | None = None
    debug_suffix: str = "_debug"
    branch_prefix: str = "swiftpm-"
    check_name: str = "SwiftPM manifest"
    pr_conclusion: str = "neutral"  # resolved from `auto` by the event
    token: str | None = field(default=None, repr=False)
    #: Input push-token: for git only (pushing, reading the remote); else github-token.
    push_token: str | None = field(default=None, repr=False)
    #: Where publish may push from; empty: the default branch and release/*.
    publish_refs: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = (".github/",)
    update: bool = False
    verify_absent: bool = False
    absent_on_403: bool = False
    dry_run: bool = False
    event: Event
    workspace: Path
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    workflow_run_id: str | None = None
    output_file: Path | None = None
    summary_file: Path | None = None
    swift: str = "auto"
    author: str = DEFAULT_AUTHOR
    allow_overwrite: bool = False
    verify_urls: bool = False
    #: Input resolve: the swift that resolves a throwaway consumer, or None (no proof asked).
    resolve_swift: str | None = None
    base_url: str | None = None
    branches: str = DEFAULT_PATTERN

    def __post_init__(self) -> None:
        if not self.workspace.is_dir():
            raise UsageError(f"GITHUB_WORKSPACE {str(self.workspace)!r} is not a folder")
        if self.update and self.allow_overwrite:
            raise UsageError(
                "inputs update and allow-overwrite exclude each other: update adds a commit on "
                "top of the published tip, allow-overwrite replaces it"
            )
        if self.mode == "preflight" and self.version is None:
            raise UsageError("mode preflight needs input version (it names the branch)")
        if self.mode in ("audit", "preflight"):
            return  # read published branches (or a branch's absence), not a release's sources
        if not (
            self.artifacts
            or self.checksums
            or self.frameworks
            or self.frameworks_from
            or self.run_id is not None
        ):
            raise UsageError(
                "give at least one source input: artifacts, checksums, "
                "frameworks, frameworks-from or run-id (with artifact-name)"
            )
        if (self.run_id is None) != (self.artifact_name is None):
            raise UsageError("inputs run-id and artifact-name go together")
        if self.version is None and (
            self.mode == "publish" or self.artifacts or self.run_id is not None
        ):
            raise UsageError(
                "input version is required to publish or to check zips "
                "(their file names carry the version)"
            )
        if self.verify_urls and self.version is None:
            raise UsageError("input verify-urls needs input version (the zip URLs carry it)")

    @property
    def branch(self) -> str | None:
        """The branch this version publishes to."""
        return f"{self.branch_prefix}{self.version}" if self.version else None

    @property
    def details_url(self) -> str | None:
        if not self.workflow_run_id:
            return None
        return f"{self.server_url}/{self.event.repository}/actions/runs/{self.workflow_run_id}"

    @property
    def workspace_holds_template(self) -> bool:
        """A PR into (or a push to) the template branch: the template is in the workspace."""
        return self.event.branch == self.template_ref

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionSettings:
        def value(name: str) -> str:
            return read_input(env, name)

        event = Event.from_env(env)
        requested = choice("mode", value("mode"), MODES)
        mode = requested
        if requested == "auto":
            mode = "publish" if event.name in PUBLISH_EVENTS else "check"
        behaviour = _behaviour(value)
        behaviour["pr_conclusion"] = _pr_conclusion(
            behaviour["pr_conclusion"], event, value("template-ref")
        )
        return cls(
            mode=mode,
            requested_mode=requested,
            event=event,
            token=token_from(env),
            push_token=_push_token(env),
            **_sources(value),
            **_release(value),
            **behaviour,
            **_runner(env),
        )


def _push_token(env: Mapping[str, str]) -> str | None:
    """Input push-token, refused at once when it cannot be an HTTP header (whatever remote)."""
    token = push_token_from(env)
    return check_token(token, source="input push-token") if token is not None else None


def _pr_conclusion(requested: str, event: Event, template_ref: str) -> str:
    """`auto`: a PR into the template branch changes the template, so its errors fail it;
    elsewhere a template momentarily out of step must not redden unrelated PRs."""
    if requested != "auto":
        return requested
    return "failure" if event.is_pull_request and event.branch == template_ref else "neutral"


Value = Callable[[str], str]


def _sources(value: Value) -> dict[str, Any]:
    """Where the template and the built set come from."""
    frameworks = value("frameworks") or None
    if frameworks is not None and frameworks.startswith("@"):
        workspace_path(frameworks[1:], "input frameworks @file")
    specs = tuple(WorkflowSpec.parse(line) for line in lines_of(value("frameworks-from")))
    for spec in specs:
        relative_path(spec.path, "input frameworks-from workflow")
    refs = tuple(
        validate_ref_glob(r, "input frameworks-ref") if any(c in r for c in "*?")
        else validate_ref(r, "input frameworks-ref")
        for r in words_of(value("frameworks-ref"))
    )
    return {
        "template": relative_path(value("template"), "input template"),
        "template_ref": validate_ref(value("template-ref"), "input template-ref"),
        "artifacts": _paths(value, "artifacts"),
        "checksums": _paths(value, "checksums"),
        "frameworks": frameworks,
        "frameworks_from": specs,
        "frameworks_refs": refs,
        "run_id": inputs.run_id(value("run-id")),
        "artifact_name": inputs.artifact_name(value("artifact-name")),
    }


def _paths(value: Value, name: str) -> tuple[str, ...]:
    return tuple(workspace_path(p, f"input {name}") for p in lines_of(value(name)))


def workspace_path(path: str, what: str) -> str:
    """A path in the workspace; an absolute or `..` path is refused with what to do instead.

    A Docker action sees only the workspace (at /github/workspace), /github/home,
    /github/workflow and /github/file_commands: `$RUNNER_TEMP` and every other host folder
    are not mounted, so a file a previous step wrote there does not exist in here.
    """
    if path.startswith("/") or ".." in path.split("/"):
        raise UsageError(
            f"{what} {path!r} is outside the workspace: the action reads files only inside the "
            "workspace (as a Docker action it sees only the workspace, mounted at "
            "/github/workspace, and /github/home, /github/workflow and /github/file_commands; "
            "$RUNNER_TEMP and other runner folders are not mounted). "
            "Write or download the files into the workspace (e.g. actions/download-artifact "
            "with a relative path:) and give that relative path here, or give inputs run-id "
            "and artifact-name to read the run's artifact directly"
        )
    return relative_path(path, what)


def _release(value: Value) -> dict[str, Any]:
    """What is published: version, names, commit identity."""
    return {
        "version": inputs.version(value("version")),
        "debug_suffix": inputs.debug_suffix(value("debug-suffix")),
        "branch_prefix": inputs.branch_prefix(value("branch-prefix")),
        "author": inputs.author(value("author")),
        "branches": inputs.branches(value("branches")),
        "publish_refs": tuple(validate_ref_glob(p) for p in words_of(value("publish-refs"))),
        "exclude_paths": validate_excluded(words_of(value("exclude-paths"))),
    }


def _behaviour(value: Value) -> dict[str, Any]:
    """How the run behaves and reports."""
    base_url = value("base-url")
    return {
        "check_name": inputs.check_name(value("check-name")),
        "pr_conclusion": choice("pr-conclusion", value("pr-conclusion"), PR_CONCLUSIONS),
        "dry_run": boolean("dry-run", value("dry-run")),
        "swift": inputs.swift_option(value("swift")),
        "resolve_swift": inputs.resolve_swift(boolean("resolve", value("resolve")),
                                              inputs.swift_option(value("swift"))),
        "allow_overwrite": boolean("allow-overwrite", value("allow-overwrite")),
        "update": boolean("update", value("update")),
        "verify_absent": boolean("verify-absent", value("verify-absent")),
        "absent_on_403": boolean("absent-on-403", value("absent-on-403")),
        "verify_urls": boolean("verify-urls", value("verify-urls")),
        "base_url": validate_base_url(base_url, "input base-url") if base_url else None,
    }


def _runner(env: Mapping[str, str]) -> dict[str, Any]:
    """What the runner says about where this step runs and where its files go."""
    api_url = env.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
    server_url = env.get("GITHUB_SERVER_URL", "").strip() or "https://github.com"
    for name, url in (("GITHUB_API_URL", api_url), ("GITHUB_SERVER_URL", server_url)):
        if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
            raise UsageError(f"{name} {url!r} is not an http(s) URL")
    run = env.get("GITHUB_RUN_ID", "").strip()
    output, summary = env.get("GITHUB_OUTPUT"), env.get("GITHUB_STEP_SUMMARY")
    return {
        "workspace": Path(env.get("GITHUB_WORKSPACE", "").strip() or "."),
        "api_url": api_url.rstrip("/"),
        "server_url": server_url.rstrip("/"),
        "workflow_run_id": run if run.isdigit() else None,
        "output_file": Path(output) if output else None,
        "summary_file": Path(summary) if summary else None,
    }
