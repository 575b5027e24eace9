"""Publish `swiftpm-<version>`: check both ways, then push one commit, create-only.

This is the API the CLI (`swiftpm-guard publish` / `preflight`) and the action's `publish`
mode call::

    from swiftpm_guard.publish import PublishRequest, publish
    result = publish(PublishRequest(settings=settings, repo=url, token=token,
                                    event=os.environ.get("GITHUB_EVENT_NAME")), log=print)
    result.pushed, result.branch, result.commit, result.report, result.exit_code

`settings` is the same `Settings` as for `check`, except that `settings.templates` are paths
*inside the template ref* (default `Package.swift.template`) and `stubs_dir` is None: the
template and its stub folders are read from the ref, not from the workspace.

The order, each step only when the ones before allow it:
1. `PublishRequest` validates everything that reaches git (version, branch prefix, template
   ref, template paths, remote, author, token): bad input is a UsageError, exit 2, before any
   git process runs.
2. One `ls-remote` for the branch, the template ref and the branches of the same X.Y.Z.
   An existing branch is a `branch-exists` error (a logged warning with `allow_overwrite`).
3. The template ref is fetched (depth 1); its template(s) and stub folders are exported to a
   temporary folder and go through the same sources → render → checks as `check`.
4. Nothing is pushed on any error finding, on `dry_run`, or on an event in `NO_PUSH_EVENTS`;
   `PublishResult.skipped` says why. A dry run also compares products and binary targets with
   the newest published branch of the same X.Y.Z.
5. One commit on top of the template ref: each template renamed to its manifest
   (`Package.swift.template` → `Package.swift`) and rendered, everything else (stubs) kept,
   message = the version; pushed with a lease on the branch's absence (`allow_overwrite`: on
   the sha observed in step 2), never a plain force. A rejected push is re-checked: if the
   branch is there now, it is `branch-exists` (race lost, exit 1) and the remote is untouched.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.errors import InputError, UsageError
from swiftpm_guard.model import Artifact, Finding, Report, Severity, Template
from swiftpm_guard.package_diff import (
    PackageDiff,
    consumer_snippet,
    diff,
    newest_sibling,
    package_names,
    release_part,
    sibling_patterns,
)
from swiftpm_guard.pipeline import Outcome, check_options, evaluate_loaded, gather_artifacts
from swiftpm_guard.refs import (
    DEFAULT_AUTHOR,
    DEFAULT_BRANCH_PREFIX,
    DEFAULT_TEMPLATE_REF,
    Identity,
    Remote,
    branch_ref,
    check_token,
    manifest_path,
    short_branch,
    template_ref,
    tree_path,
)
from swiftpm_guard.settings import Settings, validate_version
from swiftpm_guard.sinks.publish import NETWORK_TIMEOUT, GitError, PushStatus, ScratchRepo
from swiftpm_guard.sources.template import STUB_DIRS, load_template
from swiftpm_guard.urls import UrlSettings

#: Events that never publish, whatever the mode says: code under review is not a release.
NO_PUSH_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
        "merge_group",
    }
)

Log = Callable[[str], None]


def _check_token(remote: Remote, token: str | None, source: str) -> None:
    """A token goes only to http(s) remotes, as a header, and never over plain http."""
    if token is None or remote.kind != "http":
        return
    check_token(token, source=source)
    if not remote.secure:
        raise UsageError(f"refusing to send {source} over plain http to {remote.origin}; use https")


@dataclass(frozen=True, kw_only=True)
class PublishRequest:
    settings: Settings
    repo: str
    template_ref: str = DEFAULT_TEMPLATE_REF
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    dry_run: bool = False
    allow_overwrite: bool = False
    author: str = DEFAULT_AUTHOR
    token: str | None = field(default=None, repr=False)
    token_source: str = "the token"
    #: The GitHub event that triggered the run; an event in NO_PUSH_EVENTS never pushes.
    event: str | None = None
    #: What consumers put in `.package(url:)`; default: the remote itself.
    package_url: str | None = None
    git_timeout: float = NETWORK_TIMEOUT
    #: Download every zip the manifest points at and compare checksums before pushing.
    verify_urls: UrlSettings | None = None

    remote: Remote = field(init=False, repr=False)
    branch: str = field(init=False)  # full ref, refs/heads/<prefix><version>
    template: str = field(init=False)  # full ref of the template
    templates: tuple[str, ...] = field(init=False)  # paths inside the template ref
    identity: Identity = field(init=False)

    def __post_init__(self) -> None:
        settings = self.settings
        validate_version(settings.version)
        if settings.stubs_dir is not None:
            raise UsageError(
                "publish reads stub folders from the template ref; --stubs-dir does not apply"
            )
        if "branch-exists" in settings.warn:
            raise UsageError(
                "--warn branch-exists is not allowed: overwriting a published "
                "version needs the explicit --allow-overwrite"
            )
        templates = tuple(tree_path(path.as_posix()) for path in settings.templates)
        manifests = [manifest_path(t) for t in templates]
        if len(set(manifests)) != len(manifests):
            raise UsageError("two --template paths would produce the same manifest")
        remote = Remote.parse(self.repo)
        _check_token(remote, self.token, self.token_source)
        if self.package_url is not None:
            Remote.parse(self.package_url)
        if not 0 < self.git_timeout <= 3600:
            raise UsageError("--git-timeout must be between 0 and 3600 seconds")
        derived = {
            "remote": remote,
            "branch": branch_ref(self.branch_prefix, settings.version),
            "template": template_ref(self.template_ref),
            "templates": templates,
            "identity": Identity.parse(self.author),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True, slots=True)
class PublishResult:
    report: Report
    branch: str  # short name, e.g. swiftpm-1.2.3
    pushed: bool
    commit: str | None  # the commit built (None when nothing was built)
    template_commit: str
    remote_commit: str | None  # the branch on the remote when first asked (None: absent)
    manifests: tuple[tuple[str, str], ...]  # (path in the tree, rendered text)
    snippet: str
    skipped: str | None = None  # why nothing was pushed
    overwritten: bool = False
    diff: PackageDiff | None = None
    diff_note: str | None = None  # why there is no diff

    @property
    def exit_code(self) -> int:
        return 0 if self.report.consistent else 1

    def as_dict(self) -> dict[str, object]:
        return {
            "branch": self.branch,
            "pushed": self.pushed,
            "commit": self.commit,
            "template_commit": self.template_commit,
            "remote_commit": self.remote_commit,
            "overwritten": self.overwritten,
            "skipped": self.skipped,
            "manifests": [path for path, _text in self.manifests],
            "snippet": self.snippet,
            "diff": self.diff.as_dict() if self.diff else None,
            "diff_note": self.diff_note,
        }


def _branch_exists(branch: str, message: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code="branch-exists", severity=severity, subject=branch, message=message)


def _observed(request: PublishRequest, sha: str | None, url: str) -> list[Finding]:
    if sha is None:
        return []
    name = short_branch(request.branch)
    if request.allow_overwrite:
        return [
            _branch_exists(
                name,
                f"'{name}' exists on {url} at {sha[:12]}; "
                "--allow-overwrite: it will be replaced only if it is still at "
                "that commit when the push lands",
                Severity.WARNING,
            )
        ]
    return [
        _branch_exists(
            name,
            f"'{name}' already exists on {url} at {sha[:12]}; apps pin "
            "published versions, so it is never rewritten (publish a new "
            "version, or pass --allow-overwrite deliberately)",
        )
    ]


def _wanted(templates: Sequence[str]) -> Callable[[str], bool]:
    """The template files and every path under a stub folder beside one of them."""
    exact = set(templates)
    roots = tuple(
        posixpath.join(posixpath.dirname(t), d) + "/" for t in templates for d in STUB_DIRS
    )
    return lambda path: path in exact or path.startswith(roots)


def _evaluate(
    settings: Settings, root: Path, templates: Sequence[str], extra: Sequence[Finding]
) -> Outcome:
    """pipeline.evaluate for templates exported from a ref: shown by their path in the ref."""
    artifacts, findings = gather_artifacts(settings)
    loaded = []
    for path in templates:
        if not (root / path).is_file():
            raise InputError("not a file in the template ref", file=path)
        template, stub_findings = load_template(root / path, display=path)
        loaded.append(template)
        findings += stub_findings
    return _evaluate_loaded(settings, loaded, artifacts, [*extra, *findings])


def _evaluate_loaded(
    settings: Settings,
    templates: Sequence[Template],
    artifacts: Sequence[Artifact],
    findings: Sequence[Finding],
) -> Outcome:
    return evaluate_loaded(
        templates,
        artifacts,
        findings,
        check_options(settings, require_checksums=True),
        render_seconds=settings.render_seconds,
        swift=settings.swift,
        swift_cache=settings.swift_cache,
    )


def _with_hosted(outcome: Outcome, settings: Settings, options: UrlSettings) -> Outcome:
    """`--verify-urls`: every zip the manifest names must be served with its checksum."""
    from swiftpm_guard.cli_urls import apply_warn
    from swiftpm_guard.sources.hosted import verify_hosted
    from swiftpm_guard.urls import zips_of_rendered

    zips = zips_of_rendered(outcome.rendered, outcome.built, settings.version, options)
    found = apply_warn(verify_hosted(zips, options), settings.warn)
    report = dataclasses.replace(outcome.report, findings=(*outcome.report.findings, *found))
    return dataclasses.replace(outcome, report=report)


def _skip_reason(request: PublishRequest, report: Report) -> str | None:
    if not report.consistent:
        return "error findings"
    if request.dry_run:
        return "dry run"
    if request.event in NO_PUSH_EVENTS:
        return f"'{request.event}' events never publish"
    return None


def _compare(
    repo: ScratchRepo,
    refs: Mapping[str, str],
    request: PublishRequest,
    outcome: Outcome,
    work: Path,
) -> tuple[PackageDiff | None, str | None]:
    version = request.settings.version
    sibling = newest_sibling(refs, request.branch_prefix, version, exclude=request.branch)
    if sibling is None:
        return None, f"no other branch of {release_part(version)} on the remote to compare with"
    tip = repo.fetch(sibling, depth=2)
    # A published branch is one commit on top of the template branch it was made from, so its
    # parent still holds the template, placeholders and all.
    parent = repo.parent(tip)
    name = short_branch(sibling)
    if parent is None:
        return None, f"{name} has no parent commit holding its template"
    folder = work / "previous"
    repo.export(parent, _wanted(request.templates), folder)
    present = [t for t in request.templates if (folder / t).is_file()]
    if not present:
        return None, f"the parent of {name} holds no {request.templates[0]}"
    try:
        loaded = [load_template(folder / t, display=t)[0] for t in present]
        # Through the pipeline, so a Jinja template renders in its bounded child process;
        # only the names are needed, so SwiftPM is not asked.
        names_only = dataclasses.replace(request.settings, swift="off")
        rendered = _evaluate_loaded(names_only, loaded, [], []).rendered
    except InputError as error:
        return None, f"cannot read the template behind {name}: {error}"
    return diff(name, tip, package_names(rendered), package_names(outcome.rendered)), None


def _local_remote_exists(remote: Remote) -> None:
    local = remote.local_path
    if local is not None and not os.path.isdir(local):
        raise InputError("remote repository folder not found", file=local)


def publish(
    request: PublishRequest, *, environ: Mapping[str, str] | None = None, log: Log | None = None
) -> PublishResult:
    """Check, then (when allowed) push one commit create-only. Raises only for bad input (2)
    and broken infrastructure (3); findings, including a lost race, are in the report."""
    say = log or (lambda _line: None)
    _local_remote_exists(request.remote)
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-publish-") as tmp:
        work = Path(tmp)
        repo = ScratchRepo(
            work / "repo.git",
            request.remote,
            token=request.token,
            identity=request.identity,
            environ=environ,
            network_timeout=request.git_timeout,
            token_source=request.token_source,
        ).init()
        refs = _look(repo, request, say)
        result, outcome = _check(repo, request, refs, work, say)
        if request.dry_run:
            found, note = _compare(repo, refs, request, outcome, work)
            result = dataclasses.replace(result, diff=found, diff_note=note)
        skipped = _skip_reason(request, result.report)
        if skipped is not None:
            say(f"not pushing {result.branch}: {skipped}")
            return dataclasses.replace(result, skipped=skipped)
        return _push(repo, request, result, say)


def _look(repo: ScratchRepo, request: PublishRequest, say: Log) -> dict[str, str]:
    """One ls-remote: the branch, the template ref and the branches of the same X.Y.Z."""
    patterns = [
        request.branch,
        request.template,
        *sibling_patterns(request.branch_prefix, request.settings.version),
    ]
    refs = repo.ls_remote(patterns)
    url = request.remote.url
    if request.template not in refs:
        raise InputError(f"template ref {request.template} is not on the remote {url}")
    seen = refs.get(request.branch)
    say(f"{short_branch(request.branch)}: {'at ' + seen[:12] if seen else 'absent'} on {url}")
    return refs


def _check(
    repo: ScratchRepo, request: PublishRequest, refs: Mapping[str, str], work: Path, say: Log
) -> tuple[PublishResult, Outcome]:
    """Read the template ref into `work/tree` and run the full check on it."""
    template_commit = repo.fetch(request.template, depth=1)
    say(f"template {short_branch(request.template)} at {template_commit[:12]}")
    tree = work / "tree"
    repo.export(template_commit, _wanted(request.templates), tree)
    remote_commit = refs.get(request.branch)
    observed = _observed(request, remote_commit, request.remote.url)
    outcome = _evaluate(request.settings, tree, request.templates, observed)
    if request.verify_urls is not None:
        outcome = _with_hosted(outcome, request.settings, request.verify_urls)
    name = short_branch(request.branch)
    result = PublishResult(
        report=outcome.report,
        branch=name,
        pushed=False,
        commit=None,
        template_commit=template_commit,
        remote_commit=remote_commit,
        manifests=tuple(
            (manifest_path(t), r.text)
            for t, r in zip(request.templates, outcome.rendered, strict=True)
        ),
        snippet=consumer_snippet(request.package_url or request.remote.package_url(), name),
    )
    return result, outcome


def _push(
    repo: ScratchRepo, request: PublishRequest, result: PublishResult, say: Log
) -> PublishResult:
    """Build the one commit and push it with a lease: on absence, or on the sha observed."""
    name, seen = result.branch, result.remote_commit
    commit = repo.commit(
        result.template_commit,
        remove=request.templates,
        add={path: text.encode("utf-8") for path, text in result.manifests},
        message=request.settings.version,
    )
    result = dataclasses.replace(result, commit=commit)
    if commit == seen:
        # Same tree, parent, message, identity and second: the remote already holds it.
        say(f"{name} already holds exactly {commit[:12]}; nothing to push")
        return dataclasses.replace(result, skipped="already published")
    expect = seen if request.allow_overwrite else None
    if expect is not None:
        say(
            f"--allow-overwrite: replacing {name} at {expect[:12]} with {commit[:12]}; "
            "lease on that commit, no force"
        )
    pushed = repo.push(commit, request.branch, expect=expect)
    if pushed.status in (PushStatus.CREATED, PushStatus.UPDATED):
        say(f"pushed {name} at {commit[:12]} ({pushed.detail})")
        return dataclasses.replace(result, pushed=True, overwritten=expect is not None)
    return _lost(repo, request, result, pushed.detail, request.remote.url)


def _lost(
    repo: ScratchRepo, request: PublishRequest, result: PublishResult, detail: str, url: str
) -> PublishResult:
    """The remote refused the push: the branch appeared or moved (race lost), or it said no."""
    now = repo.ls_remote([request.branch]).get(request.branch)
    if now is None or (request.allow_overwrite and now == result.remote_commit):
        raise GitError(f"the remote refused the push of {result.branch}: {detail}")
    finding = _branch_exists(
        result.branch,
        f"'{result.branch}' appeared on {url} at {now[:12]} while this run was "
        f"publishing (race lost: {detail}); the remote was left as it is",
    )
    report = dataclasses.replace(result.report, findings=(*result.report.findings, finding))
    return dataclasses.replace(result, report=report, skipped="race lost")


@dataclass(frozen=True, kw_only=True)
class PreflightRequest:
    version: str
    repo: str
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    token: str | None = field(default=None, repr=False)
    token_source: str = "the token"
    git_timeout: float = NETWORK_TIMEOUT
    #: `--verify-absent`: none of this version's zip URLs may exist yet. The URLs come from
    #: the templates (paths inside `template_ref`), so those are read only in that case.
    verify_absent: UrlSettings | None = None
    template_ref: str = DEFAULT_TEMPLATE_REF
    templates: tuple[str, ...] = ("Package.swift.template",)

    remote: Remote = field(init=False, repr=False)
    branch: str = field(init=False)
    template: str = field(init=False)

    def __post_init__(self) -> None:
        validate_version(self.version)
        remote = Remote.parse(self.repo)
        _check_token(remote, self.token, self.token_source)
        for path in self.templates:
            tree_path(path)
        object.__setattr__(self, "remote", remote)
        object.__setattr__(self, "branch", branch_ref(self.branch_prefix, self.version))
        object.__setattr__(self, "template", template_ref(self.template_ref))


@dataclass(frozen=True, slots=True)
class PreflightResult:
    branch: str
    remote_commit: str | None
    findings: tuple[Finding, ...]

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0


def preflight(
    request: PreflightRequest, *, environ: Mapping[str, str] | None = None
) -> PreflightResult:
    """Is `<prefix><version>` free on the remote (and, with `verify_absent`, are its zip URLs
    free too)? A workflow runs this before uploading anything."""
    _local_remote_exists(request.remote)
    name = short_branch(request.branch)
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-preflight-") as tmp:
        repo = ScratchRepo(
            Path(tmp) / "repo.git",
            request.remote,
            token=request.token,
            environ=environ,
            network_timeout=request.git_timeout,
            token_source=request.token_source,
        ).init()
        sha = repo.ls_remote([request.branch]).get(request.branch)
        findings: list[Finding] = []
        if sha is not None:
            findings.append(
                _branch_exists(
                    name,
                    f"'{name}' already exists on {request.remote.url} at {sha[:12]}; do not "
                    "upload artifacts over a published version",
                )
            )
        if request.verify_absent is not None:
            findings += _absent(repo, request, request.verify_absent, Path(tmp) / "tree")
    return PreflightResult(branch=name, remote_commit=sha, findings=tuple(findings))


def _absent(
    repo: ScratchRepo, request: PreflightRequest, options: UrlSettings, tree: Path
) -> list[Finding]:
    """`url-exists` for each zip URL of this version that is already served."""
    from swiftpm_guard.cli_urls import zips_of_templates
    from swiftpm_guard.sources.hosted import verify_absent

    commit = repo.fetch(request.template, depth=1)
    repo.export(commit, _wanted(request.templates), tree)
    templates = []
    for path in request.templates:
        if not (tree / path).is_file():
            raise InputError("not a file in the template ref", file=path)
        templates.append(load_template(tree / path, display=path)[0])
    return verify_absent(zips_of_templates(templates, request.version, options), options)
