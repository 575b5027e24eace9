"""The action's inputs and event, read from the runner's environment and validated once.

The runner passes `with:` inputs as `INPUT_<NAME>` with the name upper-cased and its hyphens
kept (`INPUT_TEMPLATE-REF`); other launchers turn them into underscores, so both are read.
Everything is checked here, before any file is read or any request is made: a bad input is a
one-line UsageError (exit 2) naming the input and the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swiftpm_guard.errors import InputError, UsageError
from swiftpm_guard.refs import DEFAULT_AUTHOR, Identity
from swiftpm_guard.settings import validate_version
from swiftpm_guard.sources.git_branches import DEFAULT_PATTERN, validate_pattern
from swiftpm_guard.sources.refs import relative_path, validate_ref
from swiftpm_guard.sources.workflow import WorkflowSpec
from swiftpm_guard.swiftpm import validate_swift_option
from swiftpm_guard.urls import validate_base_url

#: Every input with its default; action.yml declares the same names and defaults (tested).
INPUTS: dict[str, str] = {
    "mode": "auto",
    "template": "Package.swift.template",
    "template-ref": "swiftpm",
    "version": "",
    "artifacts": "",
    "checksums": "",
    "frameworks": "",
    "frameworks-from": "",
    "frameworks-ref": "",
    "run-id": "",
    "artifact-name": "",
    "debug-suffix": "_debug",
    "branch-prefix": "swiftpm-",
    "check-name": "SwiftPM manifest",
    "pr-conclusion": "neutral",
    "github-token": "",  # action.yml: ${{ github.token }}
    "dry-run": "false",
    "swift": "auto",
    "author": DEFAULT_AUTHOR,
    "allow-overwrite": "false",
    "verify-urls": "false",
    "base-url": "",
    "branches": DEFAULT_PATTERN,
}
#: Every output the action writes (action.yml declares the same, tested).
OUTPUTS = ("consistent", "products", "binary-targets", "report", "manifest", "branch", "pushed")
MODES = ("auto", "check", "publish", "audit")
PR_EVENTS = frozenset({"pull_request", "pull_request_target"})
#: `auto` publishes only on these; pushes, pull requests and merge queues only check.
PUBLISH_EVENTS = frozenset({"schedule", "workflow_dispatch"})
EVENT_MAX_BYTES = 32 * 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")
_PREFIX = re.compile(r"[A-Za-z0-9._/-]{0,100}")


def read_input(env: Mapping[str, str], name: str) -> str:
    """`INPUT_NAME-WITH-HYPHENS` (the runner) or `INPUT_NAME_WITH_UNDERSCORES`, else default."""
    upper = name.upper()
    for key in (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}"):
        value = env.get(key)
        if value is not None and value.strip():
            return value.strip()
    return INPUTS[name]


def token_from(env: Mapping[str, str]) -> str | None:
    return read_input(env, "github-token") or None


@dataclass(frozen=True, kw_only=True)
class Event:
    """What the action needs from `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH` and friends."""

    name: str
    repository: str
    sha: str
    ref: str = ""
    pr_number: int | None = None
    pr_head_sha: str | None = None
    pr_base_ref: str | None = None
    pr_head_repository: str | None = None
    default_branch: str | None = None

    @property
    def is_pull_request(self) -> bool:
        return self.name in PR_EVENTS and self.pr_head_sha is not None

    @property
    def head_sha(self) -> str:
        """The commit a check run belongs to: the PR's head, not its merge commit."""
        return self.pr_head_sha if self.is_pull_request and self.pr_head_sha else self.sha

    @property
    def branch(self) -> str | None:
        """The branch the workspace holds: a PR's base (its target), else the pushed branch."""
        if self.is_pull_request:
            return self.pr_base_ref
        return self.ref.removeprefix("refs/heads/") if self.ref.startswith("refs/heads/") else None

    @property
    def from_fork(self) -> bool:
        return self.pr_head_repository not in (None, self.repository)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Event:
        name = env.get("GITHUB_EVENT_NAME", "").strip()
        repository = env.get("GITHUB_REPOSITORY", "").strip()
        sha = env.get("GITHUB_SHA", "").strip()
        if not name:
            raise UsageError(
                "GITHUB_EVENT_NAME is not set: run this inside GitHub Actions "
                "(or use the `swiftpm-guard` CLI)"
            )
        if not _REPOSITORY.fullmatch(repository):
            raise UsageError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        if not _SHA.fullmatch(sha):
            raise UsageError(f"GITHUB_SHA {sha!r} is not a commit sha")
        payload = _payload(env.get("GITHUB_EVENT_PATH", ""))
        pull = payload.get("pull_request") if name in PR_EVENTS else None
        pull = pull if isinstance(pull, dict) else {}
        head, base = _dict(pull.get("head")), _dict(pull.get("base"))
        head_sha = head.get("sha")
        if pull and not (isinstance(head_sha, str) and _SHA.fullmatch(head_sha)):
            raise InputError(
                "pull_request.head.sha is missing or not a commit sha",
                file=env.get("GITHUB_EVENT_PATH"),
            )
        number = pull.get("number")
        return cls(
            name=name,
            repository=repository,
            sha=sha,
            ref=env.get("GITHUB_REF", "").strip(),
            pr_number=number if isinstance(number, int) else None,
            pr_head_sha=head_sha if pull else None,
            pr_base_ref=_str(base.get("ref")) or (env.get("GITHUB_BASE_REF") or None),
            pr_head_repository=_str(_dict(head.get("repo")).get("full_name")),
            default_branch=_str(_dict(payload.get("repository")).get("default_branch")),
        )


def _payload(path: str) -> dict[str, Any]:
    if not path:
        return {}
    try:
        with open(path, "rb") as stream:
            data = stream.read(EVENT_MAX_BYTES + 1)
    except OSError as error:
        raise InputError(f"cannot read the event payload: {error.strerror}", file=path) from None
    if len(data) > EVENT_MAX_BYTES:
        raise InputError("event payload is too large", file=path)
    try:
        payload = json.loads(data)
    except ValueError as error:
        raise InputError(f"event payload is not JSON: {error}", file=path) from None
    if not isinstance(payload, dict):
        raise InputError("event payload is not a JSON object", file=path)
    return payload


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _lines(value: str) -> tuple[str, ...]:
    """A multi-line input: one item per line; blank lines and `#` comments skipped."""
    return tuple(
        line.strip()
        for line in value.splitlines()
        if line.strip() and not line.strip().startswith("#")
    )


def _bool(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise UsageError(f"input {name} must be true or false, got {value!r}")
    return lowered == "true"


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UsageError(f"input {name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _swift(value: str) -> str:
    try:
        return validate_swift_option(value)
    except UsageError:
        raise UsageError(
            f"input swift {value!r} is not auto, off, or the path of an executable file"
        ) from None


def _author(value: str) -> str:
    """The commit identity for publishing: from this input, never from a git config."""
    try:
        return str(Identity.parse(value))
    except UsageError:
        raise UsageError(f"input author {value!r} must look like 'Name <email@host>'") from None


def _branches(value: str) -> str:
    try:
        return validate_pattern(value)
    except UsageError:
        raise UsageError(
            f"input branches {value!r} is not a branch glob (letters, digits, '._-+/', "
            "'*' and '?'; no '..', no leading '-')"
        ) from None


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
    frameworks_ref: str | None = None
    run_id: int | None = None
    artifact_name: str | None = None
    debug_suffix: str = "_debug"
    branch_prefix: str = "swiftpm-"
    check_name: str = "SwiftPM manifest"
    pr_conclusion: str = "neutral"
    token: str | None = field(default=None, repr=False)
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
    base_url: str | None = None
    branches: str = DEFAULT_PATTERN

    def __post_init__(self) -> None:
        if not self.workspace.is_dir():
            raise UsageError(f"GITHUB_WORKSPACE {str(self.workspace)!r} is not a folder")
        if self.mode == "audit":
            return  # reads published branches, not a release's sources
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
        requested = _choice("mode", value("mode"), MODES)
        mode = requested
        if requested == "auto":
            mode = "publish" if event.name in PUBLISH_EVENTS else "check"
        version = value("version") or None
        if version is not None:
            try:
                validate_version(version)
            except UsageError:
                raise UsageError(
                    f"input version {version!r} is not a safe version string "
                    "(letters, digits, '.', '_', '+', '-'; no '..')"
                ) from None
        frameworks = value("frameworks") or None
        if frameworks is not None and frameworks.startswith("@"):
            relative_path(frameworks[1:], "input frameworks @file")
        specs = tuple(WorkflowSpec.parse(line) for line in _lines(value("frameworks-from")))
        for spec in specs:
            relative_path(spec.path, "input frameworks-from workflow")
        run_id_text = value("run-id")
        if run_id_text and not run_id_text.isdigit():
            raise UsageError(f"input run-id must be a number, got {run_id_text!r}")
        artifact_name = value("artifact-name") or None
        if artifact_name is not None and (
            len(artifact_name) > 256 or re.search(r"[\x00-\x1f/\\]", artifact_name)
        ):
            raise UsageError(f"input artifact-name {artifact_name!r} is not an artifact name")
        suffix = value("debug-suffix")
        if not _SUFFIX.fullmatch(suffix):
            raise UsageError(f"input debug-suffix {suffix!r} is not [A-Za-z0-9_]*")
        prefix = value("branch-prefix")
        if not _PREFIX.fullmatch(prefix) or ".." in prefix or prefix.startswith(("-", "/")):
            raise UsageError(f"input branch-prefix {prefix!r} cannot start a branch name")
        check_name = value("check-name")
        if len(check_name) > 255 or re.search(r"[\x00-\x1f]", check_name):
            raise UsageError(
                f"input check-name {check_name[:80]!r} must be one line of at most 255 characters"
            )
        api_url = env.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
        server_url = env.get("GITHUB_SERVER_URL", "").strip() or "https://github.com"
        for name, url in (("GITHUB_API_URL", api_url), ("GITHUB_SERVER_URL", server_url)):
            if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
                raise UsageError(f"{name} {url!r} is not an http(s) URL")
        run = env.get("GITHUB_RUN_ID", "").strip()
        base_url = value("base-url") or None
        return cls(
            mode=mode,
            requested_mode=requested,
            template=relative_path(value("template"), "input template"),
            template_ref=validate_ref(value("template-ref"), "input template-ref"),
            version=version,
            artifacts=tuple(
                relative_path(p, "input artifacts") for p in _lines(value("artifacts"))
            ),
            checksums=tuple(
                relative_path(p, "input checksums") for p in _lines(value("checksums"))
            ),
            frameworks=frameworks,
            frameworks_from=specs,
            frameworks_ref=(
                validate_ref(value("frameworks-ref"), "input frameworks-ref")
                if value("frameworks-ref")
                else None
            ),
            run_id=int(run_id_text) if run_id_text else None,
            artifact_name=artifact_name,
            debug_suffix=suffix,
            branch_prefix=prefix,
            check_name=check_name,
            pr_conclusion=_choice("pr-conclusion", value("pr-conclusion"), ("neutral", "failure")),
            token=token_from(env),
            dry_run=_bool("dry-run", value("dry-run")),
            event=event,
            workspace=Path(env.get("GITHUB_WORKSPACE", "").strip() or "."),
            api_url=api_url.rstrip("/"),
            server_url=server_url.rstrip("/"),
            workflow_run_id=run if run.isdigit() else None,
            output_file=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            summary_file=(
                Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None
            ),
            swift=_swift(value("swift")),
            author=_author(value("author")),
            allow_overwrite=_bool("allow-overwrite", value("allow-overwrite")),
            verify_urls=_bool("verify-urls", value("verify-urls")),
            base_url=validate_base_url(base_url, "input base-url") if base_url else None,
            branches=_branches(value("branches")),
        )
