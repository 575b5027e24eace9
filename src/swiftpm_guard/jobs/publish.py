"""Publish `swiftpm-<version>`: check both ways, then push one commit, create-only.

In order, each step only when the ones before allow it: the request validates everything that
reaches git (exit 2 before any git runs); the release's sources are read; one `ls-remote` sees
the branch, the template ref and the branches of the same X.Y line (an existing branch is
`branch-exists`); the template ref is fetched and its templates and stubs checked with those
sources exactly as `check` does; nothing is pushed on an error finding, a dry run (which also
compares with a published branch: `jobs.publish_diff`) or an event that never publishes; else one
commit on top of the template ref (templates renamed to their manifests and rendered), pushed
with a lease on the branch's absence (`allow_overwrite`: on the commit seen; `update`: a new
commit on top), never a force. A rejected push whose branch is there now is a lost race.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from swiftpm_guard.core.manifest_files import ManifestSet, manifest_of, manifest_set
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.core.names import (
    DEFAULT_AUTHOR,
    DEFAULT_BRANCH,
    DEFAULT_BRANCH_PREFIX,
    DEFAULT_EXCLUDED,
    DEFAULT_PUBLISH_GLOBS,
    DEFAULT_TEMPLATE_REF,
    Identity,
    Remote,
    branch_ref,
    check_token,
    is_excluded,
    manifest_path,
    ref_matches,
    short_branch,
    template_ref,
    tree_path,
    validate_excluded,
)
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.package_diff import PackageDiff, comparison_patterns, consumer_snippet
from swiftpm_guard.errors import GitError, InputError, UsageError
from swiftpm_guard.infra.git import TreeEntry
from swiftpm_guard.infra.swift_locate import locate_swift
from swiftpm_guard.jobs.adapters import QUIET, Adapters
from swiftpm_guard.jobs.check import (
    CheckRequest,
    CheckResult,
    Sources,
    checkout_of,
    evaluate,
    gathered_from,
    read_artifacts,
)
from swiftpm_guard.jobs.commit_proof import Checked, Consumer, Proof, prove_commit
from swiftpm_guard.jobs.publish_diff import TEMPLATE_TRAILER, UPDATE_MARK, compare_with_published
from swiftpm_guard.jobs.resolve import resolve_targets
from swiftpm_guard.jobs.weight import scratch_published
from swiftpm_guard.sinks.git_push import (
    NETWORK_TIMEOUT,
    PushStatus,
    ScratchRepo,
    commit_onto,
    tree_of,
)
from swiftpm_guard.sources.refs import Checkout
from swiftpm_guard.sources.template import load_exported, wanted

#: The only events that publish, whatever the mode says: no pull request's code runs in them
#: (an allow-list: `issue_comment`, `pull_request_target`, `merge_group`… all can carry one). A
#: `workflow_run` publishes only when the run that triggered it was one of these, in this
#: repository: a fork's pull_request run may have built the zips it hands over.
PUBLISH_EVENTS = ("push", "workflow_dispatch", "schedule", "release")


def event_refusal(event: str | None, triggered_by: str | None = None, *,
                  from_fork: bool = False) -> str | None:
    """Why a run of `event` never publishes, or None when it may. No event: not in GitHub
    Actions (a developer's own run). `triggered_by`: a workflow_run's triggering event."""
    if event is None or event in PUBLISH_EVENTS:
        return None
    allowed = ", ".join(PUBLISH_EVENTS)
    if event == "workflow_run":
        if triggered_by in PUBLISH_EVENTS and not from_fork:
            return None
        origin = f"a fork's `{triggered_by}`" if from_fork else f"`{triggered_by or 'unknown'}`"
        return (f"mode publish on a `workflow_run` event triggered by {origin}: checked only, "
                f"nothing is pushed (that run may have built a pull request's code); publish "
                f"from a workflow_run of a {allowed} run, or from one of those events")
    return (f"mode publish on a `{event}` event: checked only, nothing is pushed (only {allowed} "
            "and a workflow_run of one of those publish: a pull request's code can reach "
            "every other event); publish from one of those, e.g. a workflow_dispatch")

Log = Callable[[str], None]


def check_remote_token(remote: Remote, token: str | None, source: str) -> None:
    """A token goes only to http(s) remotes, as a header, and never over plain http."""
    if token is None or remote.kind != "http":
        return
    check_token(token, source=source)
    if not remote.secure:
        raise UsageError(f"refusing to send {source} over plain http to {remote.origin}; use https")


@dataclass(frozen=True, kw_only=True)
class PublishRequest:
    #: The release's sources; its templates are paths inside `template_ref` on the remote.
    check: CheckRequest
    repo: str
    template_ref: str = DEFAULT_TEMPLATE_REF
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    dry_run: bool = False
    allow_overwrite: bool = False
    author: str = DEFAULT_AUTHOR
    token: str | None = field(default=None, repr=False)
    token_source: str = "the token"
    #: The GitHub event that triggered the run; only PUBLISH_EVENTS push (`event_refusal`).
    event: str | None = None
    #: A workflow_run's: the event of the run that triggered it, and whether that was a fork's.
    triggered_by: str | None = None
    from_fork: bool = False
    #: What consumers put in `.package(url:)`; default: the remote itself.
    package_url: str | None = None
    git_timeout: float = NETWORK_TIMEOUT
    #: Tree paths (a trailing `/`: a folder) of the template ref left out of the published
    #: commit: a workflow on a published branch would run there.
    exclude: tuple[str, ...] = DEFAULT_EXCLUDED
    #: An existing branch gets a new commit on top of its tip, leased on that tip (never a
    #: rewrite); an absent one is created as usual.
    update: bool = False

    remote: Remote = field(init=False, repr=False)
    version: str = field(init=False)
    branch: str = field(init=False)  # full ref, refs/heads/<prefix><version>
    template: str = field(init=False)  # full ref of the template
    templates: tuple[str, ...] = field(init=False)  # paths inside the template ref
    identity: Identity = field(init=False)

    def __post_init__(self) -> None:
        check = self.check
        if check.version is None:
            raise UsageError(f"publishing needs {option('version')} (it names the branch)")
        if check.stubs_dir is not None:
            raise UsageError(
                "publish reads stub folders from the template ref; --stubs-dir does not apply"
            )
        if "branch-exists" in check.warn:
            raise UsageError(
                "--warn branch-exists is not allowed: republish an existing version with "
                f"{option('update')} (a commit on top); {option('allow-overwrite')} replaces it, a "
                "last resort"
            )
        templates = tuple(tree_path(path) for path in check.templates)
        manifests = [manifest_path(t) for t in templates]
        if len(set(manifests)) != len(manifests):
            raise UsageError(f"two {option('template')} paths would produce the same manifest")
        remote = Remote.parse(self.repo, cwd=os.getcwd())
        check_remote_token(remote, self.token, self.token_source)
        if self.package_url is not None:
            Remote.parse(self.package_url, cwd=os.getcwd())
        if self.update and self.allow_overwrite:
            raise UsageError(
                f"{option('update')} and {option('allow-overwrite')} exclude each other: "
                f"{option('update')} adds a commit on top of the published tip, "
                f"{option('allow-overwrite')} replaces it"
            )
        object.__setattr__(self, "exclude",
                           validate_excluded(self.exclude, option("exclude-paths")))
        if not 0 < self.git_timeout <= 3600:
            raise UsageError("--git-timeout must be between 0 and 3600 seconds")
        derived = {
            # A published manifest needs every checksum (a check needs them when it has a
            # version and zips: CheckRequest.builds).
            "check": replace(check, require_checksums=True),
            "remote": remote,
            "version": check.version,
            "branch": branch_ref(self.branch_prefix, check.version),
            "template": template_ref(self.template_ref),
            "templates": templates,
            "identity": Identity.parse(self.author),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True, slots=True)
class PublishResult:
    checked: CheckResult
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
    excluded: tuple[str, ...] = ()  # template-ref paths left out of the published tree
    updated_from: str | None = None  # --update: the published tip the new commit is on
    #: How the commit was proven before the push (None: nothing was built or proven).
    proof: Proof | None = None
    #: The template-ref paths rendered (replaced by their manifests in the published tree),
    #: and the version-specific manifests checked and published as the template ref has them.
    templates: tuple[str, ...] = ()
    verbatim: tuple[str, ...] = ()

    def rendered_files(self) -> dict[str, bytes]:
        """What the publish commit adds: every rendered manifest (the verbatim ones are in
        the template ref's tree already, byte for byte and mode for mode)."""
        return {path: text.encode("utf-8") for path, text in self.manifests
                if path not in self.verbatim}

    @property
    def report(self) -> Report:
        return self.checked.report

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
            "excluded": list(self.excluded),
            "updated_from": self.updated_from,
            "proof": self.proof.how if self.proof else None,
            "proof_steps": [s.as_dict() for s in self.proof.steps] if self.proof else [],
        }


#: What to do about a published version's branch, safest first: a new commit on top keeps
#: every revision apps pinned; replacing the tip breaks them.
REPUBLISH = (f"republish this version with {option('update')} (a new commit on top of the "
             "published tip: every revision apps pinned stays), or publish a new version; "
             f"{option('allow-overwrite')} replaces the tip apps may have pinned: a last resort, "
             "only when no one can have resolved it")


def branch_exists(branch: str, message: str, severity: Severity = Severity.ERROR, *,
                  fix: str | None = None) -> Finding:
    """The `branch-exists` finding (an error unless overwriting was asked for)."""
    return Finding(code="branch-exists", severity=severity, subject=branch, message=message,
                   fix=fix)


def local_remote_exists(remote: Remote) -> None:
    local = remote.local_path
    if local is not None and not os.path.isdir(local):
        raise InputError("remote repository folder not found", file=local)


# -- whether this run may publish --------------------------------------------------------------


def refusal(check: CheckRequest, adapters: Adapters, *, event: str, ref: str,
            publish_refs: tuple[str, ...], triggered_by: str | None = None,
            from_fork: bool = False) -> str | None:
    """Why a run asked to publish only checks: an event that never publishes, or a ref that
    `publish-refs` (default: the default branch and `release/*`) does not allow. A dispatch on a
    feature branch would otherwise claim that day's version branch."""
    why = event_refusal(event, triggered_by, from_fork=from_fork)
    if why is not None:
        return why
    if publish_refs:
        if ref_matches(ref, publish_refs):
            return None
        shown = " ".join(publish_refs)
    else:
        if event == "schedule":
            return None  # scheduled workflows run on the default branch, by GitHub's rule
        if ref_matches(ref, DEFAULT_PUBLISH_GLOBS):
            return None
        if ref.startswith("refs/heads/") and \
                ref.removeprefix("refs/heads/") == checkout_of(check, adapters).default_branch():
            return None
        shown = f"{DEFAULT_BRANCH} and {' '.join(DEFAULT_PUBLISH_GLOBS)}"
    return (f"`{ref or '(GITHUB_REF not set)'}` is not a ref publish-refs allows ({shown}): "
            "checked only, nothing is pushed")


# -- publishing --------------------------------------------------------------------------------


def publish(request: PublishRequest, adapters: Adapters = QUIET, *,
            ready: Callable[[], None] = lambda: None) -> PublishResult:
    """Check, then (when allowed) push one commit create-only. Raises only for bad input (2)
    and broken infrastructure (3); findings, including a lost race, are in the report.

    The release's own sources are read first, then `ready()` runs (the front end checks that
    every place it will write to works: a push cannot be taken back), then git.
    """
    say = adapters.log
    swift = _swift_for_proof(request)
    local_remote_exists(request.remote)
    checkout = checkout_of(request.check, adapters)
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-publish-") as tmp:
        work = Path(tmp)
        read = read_artifacts(request.check, checkout, work / "sources")
        ready()
        repo = ScratchRepo(
            work / "repo.git",
            request.remote,
            token=request.token,
            git=adapters.git,
            identity=request.identity,
            network_timeout=request.git_timeout,
            token_source=request.token_source,
        ).init()
        refs = _look(repo, request, say)
        result = _check(repo, request, refs, work, (checkout, read), adapters)
        if request.dry_run:
            found, note = compare_with_published(
                repo, refs, branch=request.branch, prefix=request.branch_prefix,
                version=request.version, templates=result.templates + result.verbatim,
                rendered=result.checked.rendered, template_commit=result.template_commit)
            result = replace(result, diff=found, diff_note=note)
        skipped = _skip_reason(request, result.report)
        if skipped is not None:
            say(f"not pushing {result.branch}: {skipped}")
            return replace(result, skipped=skipped)
        return _push(repo, request, result, (swift, work), say)


def manifests_at(repo: ScratchRepo, commit: str, templates: tuple[str, ...]
                 ) -> tuple[ManifestSet, list[TreeEntry]]:
    """The named templates and the version-specific templates and manifests beside them in
    `commit` (core.manifest_files), and the commit's whole tree."""
    entries = repo.tree(commit)
    return manifest_set(templates, ((e.path, e.what) for e in entries)), entries


def _skip_reason(request: PublishRequest, report: Report) -> str | None:
    if not report.consistent:
        return "error findings"
    if request.dry_run:
        return "dry run"
    if not _event_publishes(request):
        return f"'{request.event}' events never publish"
    return None


def _event_publishes(request: PublishRequest) -> bool:
    return event_refusal(request.event, request.triggered_by, from_fork=request.from_fork) is None


def _look(repo: ScratchRepo, request: PublishRequest, say: Log) -> dict[str, str]:
    """One ls-remote: the branch, the template ref and the branches of the same X.Y.Z and
    X.Y line (what a dry run may compare with)."""
    patterns = [request.branch, request.template,
                *comparison_patterns(request.branch_prefix, request.version)]
    refs = repo.ls_remote(patterns)
    url = request.remote.url
    if request.template not in refs:
        raise InputError(f"template ref {request.template} is not on the remote {url}")
    seen = refs.get(request.branch)
    say(f"{short_branch(request.branch)}: {'at ' + seen[:12] if seen else 'absent'} on {url}")
    return refs


def _observed(request: PublishRequest, sha: str | None, url: str) -> list[Finding]:
    if sha is None or request.update:
        return []  # --update builds on an existing branch: being there is expected
    name = short_branch(request.branch)
    if request.allow_overwrite:
        return [branch_exists(name, f"'{name}' exists on {url} at {sha[:12]}; "
                                    f"{option('allow-overwrite')}: it will be replaced only if it "
                                    "is still at that commit when the push lands",
                                    Severity.WARNING)]
    return [branch_exists(name, f"'{name}' already exists on {url} at {sha[:12]}; apps pin "
                                "published versions, so it is never rewritten",
                          fix=REPUBLISH)]


def _check(repo: ScratchRepo, request: PublishRequest, refs: Mapping[str, str], work: Path,
           read_from: tuple[Checkout, Sources], adapters: Adapters) -> PublishResult:
    """Read the template ref into `work/tree` and run the full check on it."""
    say = adapters.log
    template_commit = repo.fetch(request.template, depth=1)
    say(f"template {short_branch(request.template)} at {template_commit[:12]}")
    tree = work / "tree"
    found, entries = manifests_at(repo, template_commit, request.templates)
    repo.export(template_commit, wanted(found.paths), tree)
    excluded = tuple(e.path for e in entries if is_excluded(e.path, request.exclude))
    if excluded:
        say(f"left out of the published tree: {', '.join(excluded)}")
    remote_commit = refs.get(request.branch)
    observed = _observed(request, remote_commit, request.remote.url)
    checkout, read = read_from
    templates, stub_findings = load_exported(tree, found)
    sources = Sources(templates=tuple(templates), artifacts=read.artifacts,
                      findings=(*observed, *read.findings, *stub_findings), reads=read.reads,
                      ref_paths={**read.ref_paths, **dict.fromkeys(
                          found.paths, short_branch(request.template))})
    # Exactly the check's evaluation (check refuses what publish refuses): only the sources
    # differ, the template ref being read from the remote this run pushes to.
    releases = scratch_published(repo) if request.check.verify_urls else None
    checked = evaluate(gathered_from(request.check, sources, checkout, releases), adapters)
    name = short_branch(request.branch)
    return PublishResult(
        checked=checked,
        branch=name,
        pushed=False,
        commit=None,
        template_commit=template_commit,
        remote_commit=remote_commit,
        manifests=tuple((manifest_of(r.template.path), r.text) for r in checked.rendered),
        templates=found.templates,
        verbatim=found.verbatim,
        snippet=consumer_snippet(request.package_url or request.remote.package_url(), name),
        excluded=excluded,
    )


def _swift_for_proof(request: PublishRequest) -> str | None:
    """The SwiftPM that proves the commit; without one a run that would push is refused
    (exit 2) unless the user accepts a static proof."""
    swift, why = locate_swift(request.check.swift)
    pushes = not request.dry_run and _event_publishes(request)
    if swift is None and pushes and not request.check.accept_static:
        raise UsageError(
            f"publish proves the commit it pushes with SwiftPM, and there is none ({why}): "
            "run on a runner with `swift` (macOS or ubuntu runners have it), use the action's "
            f"image (it carries SwiftPM), or pass {option('accept-static')} to publish on a "
            "static proof")
    return swift


def _prove(repo: ScratchRepo, request: PublishRequest, result: PublishResult,
           proving: tuple[str | None, Path], say: Log) -> PublishResult:
    """Judge the built commit as a consumer gets it; its findings stop the push."""
    swift, work = proving
    commit = str(result.commit)  # built by the caller just before
    files = result.rendered_files()
    if result.verbatim:  # published as the template ref has them: the blob is what was checked
        shas = {e.path: e.sha for e in repo.tree(commit) if e.path in result.verbatim}
        blobs = repo.blobs(list(shas.values()))
        files |= {path: blobs[sha] for path, sha in shas.items()}
    consumer, why_not = _consumer(request, result)
    checked = Checked(manifests=files, swift=swift, cache_dir=request.check.swift_cache,
                      rendered={manifest_of(r.template.path): r for r in result.checked.rendered},
                      consumer=consumer, why_not=why_not)
    proof = prove_commit(repo, commit, result.branch, checked, work / "proof")
    say(proof.line())
    result = replace(result, proof=proof)
    if not proof.findings:
        return result
    report = replace(result.report, findings=(*result.report.findings, *proof.findings))
    return replace(result, checked=replace(result.checked, report=report),
                   skipped="the commit's proof failed")


def _consumer(request: PublishRequest, result: PublishResult) -> tuple[Consumer | None, str]:
    """The consumer resolve of the commit, when a swift that may download is given and the
    binary targets' URLs are the real, verified ones; else None and why."""
    settings = request.check.resolve
    if settings is None:
        return None, f"no swift that may download was given ({option('resolve')}, --resolve-swift)"
    if not request.check.verify_urls:
        return None, ("downloads not proven: SwiftPM 6.0 applies no mirror to binary-target "
                      "URLs, so consumers resolve only when the URLs are verified (verify-urls)")
    built, urls = result.checked.built, request.check.urls
    targets = {t.url: t for r in result.checked.rendered
               for t in resolve_targets(r, built, request.version, urls)}
    fetched = (request.template, *([request.branch] if result.remote_commit else []))
    return Consumer(swift=settings.swift, targets=tuple(targets.values()),
                    version=request.version, timeout=settings.timeout,
                    ca_file=settings.ca_file, fetched=fetched), ""


def _push(repo: ScratchRepo, request: PublishRequest, result: PublishResult,
          proving: tuple[str | None, Path], say: Log) -> PublishResult:
    """Build the one commit, prove it and push it with a lease: on absence, or on the sha
    observed."""
    name, seen = result.branch, result.remote_commit
    if request.update and seen is not None:
        return _update(repo, request, result, seen, proving, say)
    commit = repo.commit(result.template_commit, remove=(*result.templates, *result.excluded),
                         add=result.rendered_files(), message=request.version)
    result = replace(result, commit=commit)
    if commit == seen:
        # Same tree, parent, message, identity and second: the remote already holds it.
        say(f"{name} already holds exactly {commit[:12]}; nothing to push")
        return replace(result, skipped="already published")
    result = _prove(repo, request, result, proving, say)
    if result.skipped is not None:
        say(f"not pushing {name}: {result.skipped}")
        return result
    expect = seen if request.allow_overwrite else None
    if expect is not None:
        say(f"{option('allow-overwrite')}: replacing {name} at {expect[:12]} with {commit[:12]}; "
            "lease on that commit, no force")
    pushed = repo.push(commit, request.branch, expect=expect)
    if pushed.status in (PushStatus.CREATED, PushStatus.UPDATED):
        say(f"pushed {name} at {commit[:12]} ({pushed.detail})")
        return replace(result, pushed=True, overwritten=expect is not None)
    return _lost(repo, request, result, pushed.detail)


def _update(repo: ScratchRepo, request: PublishRequest, result: PublishResult, seen: str,
            proving: tuple[str | None, Path], say: Log) -> PublishResult:
    """--update: a new commit on top of the published tip, leased on that tip.

    Its tree is what a fresh publish would hold; its parent is the tip, so every commit the
    branch had (a reviewed hand fix included) stays in its history and every revision a
    `Package.resolved` pins stays reachable. The subject is the version, like a publish commit.
    """
    tip = repo.fetch(request.branch, depth=1)
    commit = commit_onto(
        repo,
        result.template_commit,
        parent=tip,
        remove=(*result.templates, *result.excluded),
        add=result.rendered_files(),
        # The trailer names the template commit: the tip's parent is the old tip, so a later
        # dry run could not otherwise say which template built this tree.
        message=f"{request.version}\n\n{UPDATE_MARK} on top of {tip}.\n\n"
                f"{TEMPLATE_TRAILER}: {result.template_commit}",
    )
    result = replace(result, commit=commit, updated_from=tip)
    if tree_of(repo, commit) == tree_of(repo, tip):
        say(f"{result.branch} at {tip[:12]} already holds this tree; nothing to push")
        return replace(result, skipped="already up to date")
    result = _prove(repo, request, result, proving, say)
    if result.skipped is not None:
        say(f"not pushing {result.branch}: {result.skipped}")
        return result
    say(f"{option('update')}: {result.branch} at {tip[:12]} gets {commit[:12]} on top; lease on "
        "the tip")
    pushed = repo.push(commit, request.branch, expect=seen)
    if pushed.status in (PushStatus.CREATED, PushStatus.UPDATED):
        say(f"pushed {result.branch} at {commit[:12]} ({pushed.detail})")
        return replace(result, pushed=True)
    return _lost(repo, request, result, pushed.detail)


def _lost(repo: ScratchRepo, request: PublishRequest, result: PublishResult,
          detail: str) -> PublishResult:
    """The remote refused the push: the branch appeared or moved (race lost), or it said no."""
    now = repo.ls_remote([request.branch]).get(request.branch)
    leased = request.allow_overwrite or request.update
    if now is None or (leased and now == result.remote_commit):
        raise GitError(f"the remote refused the push of {result.branch}: {detail}")
    finding = branch_exists(
        result.branch,
        f"'{result.branch}' appeared on {request.remote.url} at {now[:12]} while this run was "
        f"publishing (race lost: {detail}); the remote was left as it is",
    )
    report = replace(result.report, findings=(*result.report.findings, finding))
    return replace(result, checked=replace(result.checked, report=report), skipped="race lost")

