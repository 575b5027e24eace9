"""The action's settings: inputs and event, read from the runner's environment and validated
once, before any file is read or any request is made (a bad input is exit 2).

The runner passes `with:` inputs as `INPUT_<NAME>` with the name upper-cased and its hyphens
kept (`INPUT_TEMPLATE-REF`), every declared input, empty ones too; the underscore spelling
(other launchers, the composite action) is read only where the hyphenated one is absent
(`read_input`). A bad input is a one-line UsageError naming the input and the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from swiftpm_guard.action.event import Event
from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.names import (
    DEFAULT_AUTHOR,
    MODES,
    Identity,
    WorkflowSpec,
    check_token,
    check_version_shape,
    parse_id,
    repo_path,
    validate_excluded,
    validate_plain_expression,
    validate_ref,
    validate_ref_glob,
    validate_ref_or_glob,
    validate_version,
)
from swiftpm_guard.core.names import DEFAULT_BRANCH_GLOB as DEFAULT_PATTERN
from swiftpm_guard.core.option_names import spell
from swiftpm_guard.core.urls import validate_base_url, validate_proxy
from swiftpm_guard.core.weight import GrowthLimit, parse_limit
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.swiftpm_proof import locate_swift, validate_swift_option

#: `auto` publishes only on these; pushes, pull requests and merge queues only check.
PUBLISH_EVENTS = frozenset({"schedule", "workflow_dispatch"})


@dataclass(frozen=True, kw_only=True)
class ActionSettings:
    mode: str  # resolved: "check", "publish" or "audit"
    template: str
    template_ref: str
    version: str | None
    artifacts: tuple[str, ...] = ()
    checksums: tuple[str, ...] = ()
    frameworks: str | None = None
    frameworks_from: tuple[WorkflowSpec, ...] = ()
    #: Refs (and globs: `release/*`) whose framework lists a template change is checked against.
    frameworks_refs: tuple[str, ...] = ()
    active_refs: tuple[str, ...] = ()
    run_id: int | None = None
    artifact_name: str | None = None
    debug_suffix: str = "_debug"
    branch_prefix: str = "swiftpm-"
    check_name: str = "SwiftPM manifest"
    #: `create`, `none`, or the id of an earlier step's check run to update.
    check_run: str = "create"
    #: On pull requests with errors: `auto` (failure when the change brings one), or fixed.
    pr_conclusion: str = "auto"
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
    #: Input accept-static: without SwiftPM, what only SwiftPM decides is a warning.
    accept_static: bool = False
    author: str = DEFAULT_AUTHOR
    allow_overwrite: bool = False
    verify_urls: bool = False
    #: Input verify-zips: every entry of every zip (built, and downloaded with verify-urls)
    #: decompressed and checked, as SwiftPM's unzip tests it (auto: when publishing).
    verify_zips: bool = False
    #: Input resolve: the swift that resolves a throwaway consumer, or None (no proof asked).
    resolve_swift: str | None = None
    base_url: str | None = None
    #: Input download-growth-limit: growth of what a consumer downloads past it is a finding.
    download_limit: GrowthLimit | None = None
    branches: str = DEFAULT_PATTERN
    #: Input config: the configuration file's path at the default branch ("" its default
    #: path, "none" no file); main.py reads it before these settings are made.
    config: str = ""
    #: Input proxy: the only proxy the API, the downloads and git go through (never one the
    #: job's environment names).
    proxy: str | None = None
    #: Input pr-comment: the check's gist as one comment per pull request, edited in place.
    pr_comment: bool = False

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
    def from_env(cls, env: Mapping[str, str],
                 config: Mapping[str, str] | None = None) -> ActionSettings:
        """`config`: the configuration file's settings, each used where its input is empty."""
        def value(name: str) -> str:
            return read_input(env, name, (config or {}).get(name))

        event = Event.from_env(env)
        mode = choice("mode", value("mode"), MODES)
        if mode == "auto":
            mode = "publish" if event.name in PUBLISH_EVENTS else "check"
        behaviour = _behaviour(value)
        zips = value("verify-zips")  # auto: every entry's data is verified when publishing
        behaviour["verify_zips"] = (mode == "publish" if zips.lower() == "auto"
                                    else boolean("verify-zips", zips))
        return cls(mode=mode, event=event, token=_github_token(env),
                   push_token=_push_token(env), **_sources(value), **_release(value), **behaviour,
                   **_runner(env), config=config_input(env))


def _github_token(env: Mapping[str, str]) -> str | None:
    """Input github-token, refused at once like push-token when it cannot be an HTTP header:
    one line that never quotes it (a line break or a non-Latin-1 character)."""
    token = token_from(env)
    return check_token(token, source="input github-token") if token is not None else None


def _push_token(env: Mapping[str, str]) -> str | None:
    """Input push-token, refused at once when it cannot be an HTTP header (whatever remote)."""
    token = push_token_from(env)
    return check_token(token, source="input push-token") if token is not None else None


Value = Callable[[str], str]


def _sources(value: Value) -> dict[str, Any]:
    """Where the template and the built set come from."""
    frameworks = value("frameworks") or None
    if frameworks is not None and frameworks.startswith("@"):
        workspace_path(frameworks[1:], "input frameworks @file")
    plain = frozenset(validate_plain_expression(e, "input plain-expressions")
                      for e in words_of(value("plain-expressions")))
    specs = tuple(replace(WorkflowSpec.parse(line), plain=plain)
                  for line in lines_of(value("frameworks-from")))
    for spec in specs:
        repo_path(spec.path, "input frameworks-from workflow")
    refs = tuple(validate_ref_or_glob(r, "input frameworks-ref")
                 for r in words_of(value("frameworks-ref")))
    return {
        "template": repo_path(value("template"), "input template"),
        "template_ref": validate_ref(value("template-ref"), "input template-ref"),
        "artifacts": _paths(value, "artifacts"),
        "checksums": _paths(value, "checksums"),
        "frameworks": frameworks,
        "frameworks_from": specs,
        "frameworks_refs": refs,
        "active_refs": tuple(validate_ref_or_glob(r, "input active-refs")
                             for r in words_of(value("active-refs"))),
        "run_id": run_id(value("run-id")),
        "artifact_name": artifact_name(value("artifact-name")),
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
    return repo_path(path, what)


def _release(value: Value) -> dict[str, Any]:
    """What is published: version, names, commit identity."""
    return {
        "version": version(value("version")),
        "debug_suffix": debug_suffix(value("debug-suffix")),
        "branch_prefix": branch_prefix(value("branch-prefix")),
        "author": author(value("author")),
        "branches": validate_ref_glob(value("branches"), "input branches"),
        "publish_refs": tuple(validate_ref_glob(p) for p in words_of(value("publish-refs"))),
        "exclude_paths": validate_excluded(words_of(value("exclude-paths"))),
    }


def _behaviour(value: Value) -> dict[str, Any]:
    """How the run behaves and reports."""
    base_url = value("base-url")
    return {
        "check_name": check_name(value("check-name")),
        "check_run": check_run(value("check-run")),
        "pr_conclusion": choice("pr-conclusion", value("pr-conclusion"), PR_CONCLUSIONS),
        "dry_run": boolean("dry-run", value("dry-run")),
        "swift": swift_option(value("swift")),
        "accept_static": boolean("accept-static", value("accept-static")),
        "resolve_swift": resolve_swift(boolean("resolve", value("resolve")),
                                              swift_option(value("swift"))),
        "allow_overwrite": boolean("allow-overwrite", value("allow-overwrite")),
        "update": boolean("update", value("update")),
        "verify_absent": boolean("verify-absent", value("verify-absent")),
        "absent_on_403": boolean("absent-on-403", value("absent-on-403")),
        "verify_urls": boolean("verify-urls", value("verify-urls")),
        "base_url": validate_base_url(base_url, "input base-url") if base_url else None,
        "download_limit": (parse_limit(value("download-growth-limit"),
                                       "input download-growth-limit")
                           if value("download-growth-limit") else None),
        "proxy": validate_proxy(value("proxy"), "input proxy") if value("proxy") else None,
        "pr_comment": boolean("pr-comment", value("pr-comment")),
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
    "active-refs": "",
    "plain-expressions": "",
    "run-id": "",
    "artifact-name": "",
    "debug-suffix": "_debug",
    "branch-prefix": "swiftpm-",
    "check-name": "SwiftPM manifest",
    "check-run": "create",
    "pr-conclusion": "auto",
    "github-token": "",  # action.yml: ${{ github.token }}
    "push-token": "",
    "publish-refs": "",  # empty: the repository's default branch and release/*
    "exclude-paths": ".github/",
    "update": "false",
    "verify-absent": "false",
    "absent-on-403": "false",
    "dry-run": "false",
    "swift": "auto",
    "accept-static": "false",
    "author": DEFAULT_AUTHOR,
    "allow-overwrite": "false",
    "verify-urls": "false",
    "verify-zips": "auto",
    "resolve": "false",
    "base-url": "",
    "download-growth-limit": "",
    "branches": DEFAULT_PATTERN,
    "config": "",  # empty: .github/swiftpm-guard.yml at the default branch, if there
    "proxy": "",
    "pr-comment": "false",
}
PR_CONCLUSIONS = ("auto", "neutral", "failure")

def read_input(env: Mapping[str, str], name: str, default: str | None = None) -> str:
    """`INPUT_NAME-WITH-HYPHENS` (the runner); when empty, `default` (the configuration
    file's), else the input's own default.

    The runner passes every declared input, empty ones too, and never the underscore
    spelling, which a job's environment can hold (GITHUB_ENV): `INPUT_NAME_WITH_UNDERSCORES`
    is read only when the hyphenated variable is absent (other launchers; the composite
    action, whose step sets every input by that name: `composite_inputs`).
    """
    key = f"INPUT_{name.upper()}"
    value = env.get(key)
    if value is None:
        value = env.get(key.replace("-", "_"))
    given = (value or "").strip()
    if given:
        return given
    return INPUTS[name] if default is None else default


def composite_inputs(env: Mapping[str, str]) -> dict[str, str]:
    """`env` as the composite action's step sees it, less every hyphenated `INPUT_*`: that
    step sets each input by its underscore name, so a hyphenated one can only be the job's
    (GITHUB_ENV) and must not win over the step's own."""
    return {key: value for key, value in env.items()
            if not (key.startswith("INPUT_") and "-" in key)}


def check_inputs(env: Mapping[str, str]) -> None:
    """Every input the step gives, each validated on its own (exit 2), before the
    configuration file is read; how they combine is judged once the file's are known."""
    def value(name: str) -> str:
        return read_input(env, name)

    _github_token(env)
    _push_token(env)
    Event.from_env(env)
    _sources(value)
    _release(value)
    _behaviour(value)
    _runner(env)
    config_input(env)


def config_input(env: Mapping[str, str]) -> str:
    """Input config, validated: "" (the default path), "none" or a path in the repository."""
    from swiftpm_guard.jobs.config import validate_config_option

    return validate_config_option(read_input(env, "config"), "input config")


def api_url_from(env: Mapping[str, str]) -> str:
    """GITHUB_API_URL, validated (needed before the settings: the configuration file may be
    read through the API)."""
    return str(_runner(env)["api_url"])


def proxy_from(env: Mapping[str, str]) -> str | None:
    """Input proxy, validated (needed before the settings, for the same reason)."""
    proxy = read_input(env, "proxy")
    return validate_proxy(proxy, "input proxy") if proxy else None


def token_from(env: Mapping[str, str]) -> str | None:
    return read_input(env, "github-token") or None


def push_token_from(env: Mapping[str, str]) -> str | None:
    """Input push-token: used only by git (a PAT cannot create check runs)."""
    return read_input(env, "push-token") or None


def words_of(value: str) -> tuple[str, ...]:
    """An input listing items separated by spaces, commas or newlines; `#` comments skipped."""
    return tuple(
        word
        for line in lines_of(value)
        for word in re.split(r"[\s,]+", line)
        if word
    )


def lines_of(value: str) -> tuple[str, ...]:
    """A multi-line input: one item per line; blank lines and `#` comments skipped."""
    return tuple(
        line.strip()
        for line in split_lines(value)
        if line.strip() and not line.strip().startswith("#")
    )


def boolean(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise UsageError(f"input {name} must be true or false, got {value!r}")
    return lowered == "true"


def choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UsageError(f"input {name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def swift_option(value: str) -> str:
    try:
        return validate_swift_option(value)
    except UsageError:
        raise UsageError(
            f"input swift {value!r} is not auto, off, or the path of an executable file"
        ) from None


def author(value: str) -> str:
    """The commit identity for publishing: from this input, never from a git config."""
    try:
        return str(Identity.parse(value))
    except UsageError:
        raise UsageError(f"input author {value!r} must look like 'Name <email@host>'") from None


_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")
_PREFIX = re.compile(r"[A-Za-z0-9._/-]{0,100}")


def version(value: str) -> str | None:
    if not value:
        return None
    try:
        validate_version(value)
    except UsageError:
        raise UsageError(
            f"input version {value!r} is not a safe version string "
            "(letters, digits, '.', '_', '+', '-'; no '..')"
        ) from None
    # `v1.1.0` is what `github.ref_name` gives on a tag: bad usage with a hint, not a finding.
    return check_version_shape(value, DEFAULT_VERSION_PATTERN, option="input version",
                               pattern_option=None)


def run_id(value: str) -> int | None:
    return parse_id(value, what="input run-id") if value else None


def artifact_name(value: str) -> str | None:
    if value and (len(value) > 256 or re.search(r"[\x00-\x1f/\\]", value)):
        raise UsageError(f"input artifact-name {value!r} is not an artifact name")
    return value or None


def debug_suffix(value: str) -> str:
    if not _SUFFIX.fullmatch(value):
        raise UsageError(f"input debug-suffix {value!r} is not [A-Za-z0-9_]*")
    return value


def branch_prefix(value: str) -> str:
    if not _PREFIX.fullmatch(value) or ".." in value or value.startswith(("-", "/")):
        raise UsageError(f"input branch-prefix {value!r} cannot start a branch name")
    return value


def check_run(value: str) -> str:
    """`create`, `none`, or an earlier step's `check-run-id` (digits) to update."""
    if value in ("create", "none") or re.fullmatch(r"[1-9][0-9]{0,18}", value):
        return value
    raise UsageError(f"input check-run {value!r} is not create, none or a check run id (the "
                     "check-run-id output of an earlier step)")


def check_name(value: str) -> str:
    if len(value) > 255 or re.search(r"[\x00-\x1f]", value):
        raise UsageError(
            f"input check-name {value[:80]!r} must be one line of at most 255 characters"
        )
    return value


def resolve_swift(enabled: bool, swift: str) -> str | None:
    """Input resolve: the swift that resolves a consumer (the one input swift finds), or None.

    Without a swift `resolve: true` is bad input, said at once, not a proof silently skipped.
    The Docker action's image has one (entrypoint.py); the composite action on macOS has Xcode's.
    """
    if not enabled:
        return None
    found, why = locate_swift(swift)
    if found is None:
        raise UsageError(f"input resolve needs a swift on the runner ({why}): use the composite "
                         "action where Xcode or a Swift toolchain is installed, or give input "
                         "swift the path of one")
    return found

def spoken(text: str) -> str:
    """The options our words name (core.option_names), as the action's reader sets them:
    `input verify-urls`; one without an input (a CLI-only option) by its key."""
    return spell(text, spoken_key)


def spoken_key(key: str) -> str:
    return f"input {key}" if key in INPUTS else f"option {key}"
