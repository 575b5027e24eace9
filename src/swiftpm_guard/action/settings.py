"""The action's settings: inputs and event, read from the runner's environment and validated
once, before any file is read or any request is made (a bad input is exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.action.event import Event
from swiftpm_guard.action.inputs import (
    MODES,
    author,
    boolean,
    branches,
    choice,
    lines_of,
    read_input,
    swift_option,
    token_from,
)
from swiftpm_guard.core.git_names import DEFAULT_AUTHOR
from swiftpm_guard.core.urls import validate_base_url
from swiftpm_guard.core.versions import validate_version
from swiftpm_guard.errors import UsageError
from swiftpm_guard.sources.git_branches import DEFAULT_PATTERN
from swiftpm_guard.sources.git_ref import relative_path, validate_ref
from swiftpm_guard.sources.workflow import WorkflowSpec

#: `auto` publishes only on these; pushes, pull requests and merge queues only check.
PUBLISH_EVENTS = frozenset({"schedule", "workflow_dispatch"})
_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")
_PREFIX = re.compile(r"[A-Za-z0-9._/-]{0,100}")


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
        requested = choice("mode", value("mode"), MODES)
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
        specs = tuple(WorkflowSpec.parse(line) for line in lines_of(value("frameworks-from")))
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
                relative_path(p, "input artifacts") for p in lines_of(value("artifacts"))
            ),
            checksums=tuple(
                relative_path(p, "input checksums") for p in lines_of(value("checksums"))
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
            pr_conclusion=choice("pr-conclusion", value("pr-conclusion"), ("neutral", "failure")),
            token=token_from(env),
            dry_run=boolean("dry-run", value("dry-run")),
            event=event,
            workspace=Path(env.get("GITHUB_WORKSPACE", "").strip() or "."),
            api_url=api_url.rstrip("/"),
            server_url=server_url.rstrip("/"),
            workflow_run_id=run if run.isdigit() else None,
            output_file=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            summary_file=(
                Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None
            ),
            swift=swift_option(value("swift")),
            author=author(value("author")),
            allow_overwrite=boolean("allow-overwrite", value("allow-overwrite")),
            verify_urls=boolean("verify-urls", value("verify-urls")),
            base_url=validate_base_url(base_url, "input base-url") if base_url else None,
            branches=branches(value("branches")),
        )
