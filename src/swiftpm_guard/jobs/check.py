"""The check job: read a release's sources, render every template, check both ways, prove the
manifest with SwiftPM (or gate it statically: core.static_gate), and on request fetch the
hosted zips and resolve a consumer. `swiftpm-guard check|render` and the action's check mode
run `check`; `publish` runs its two halves, `read_artifacts` and `evaluate`, on the templates
of the remote's template ref.

A template change can be checked against several release lines at once (`frameworks_refs`:
`main release/*`): each line's framework lists against the one template, the findings of all
of them in one report, each marked with its line unless every line shares it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from swiftpm_guard.core.checks import (
    DEFAULT_VERSION_PATTERN,
    CheckOptions,
    apply_warn,
    merge_artifacts,
)
from swiftpm_guard.core.checks import (
    check as check_rendered,
)
from swiftpm_guard.core.manifest_files import ManifestSet, manifest_of, render_verbatim
from swiftpm_guard.core.model import (
    CODES,
    Artifact,
    Finding,
    Phrase,
    ReleaseLine,
    Rendered,
    Report,
    Severity,
    Template,
)
from swiftpm_guard.core.names import (
    DEFAULT_BRANCH_PREFIX,
    WorkflowSpec,
    check_against_pattern,
    validate_version,
)
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.release_lines import (
    LineFindings,
    LinePlan,
    Publication,
    active_lines,
    is_glob,
    line_versions,
    merge,
    plan_lines,
    weigh,
)
from swiftpm_guard.core.render import render, scan
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.core.weight import GrowthLimit
from swiftpm_guard.errors import (
    GuardError,
    InfrastructureError,
    InputError,
    Missing,
    UsageError,
)
from swiftpm_guard.infra.bounded import call_isolated
from swiftpm_guard.infra.fs import inside
from swiftpm_guard.infra.swift_locate import validate_swift_option
from swiftpm_guard.jobs.adapters import QUIET, Adapters, noticed
from swiftpm_guard.jobs.fixes import with_fixes
from swiftpm_guard.jobs.placement import Placement, anchored, place, pull_request_into_main
from swiftpm_guard.jobs.swiftpm_proof import prove
from swiftpm_guard.jobs.weight import Published, checkout_published, with_weight
from swiftpm_guard.sources.artifacts import (
    expand_declared,
    read_checksums,
    read_declared,
    scan_zip_folder,
)
from swiftpm_guard.sources.template import load_template, manifests_beside

if TYPE_CHECKING:
    from swiftpm_guard.jobs.resolve import ResolveOutcome, ResolveSettings
    from swiftpm_guard.sources.refs import Checkout, Upstream

_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")
#: The version a check without one uses (a pull request compares names only).
NO_VERSION = "0.0.0"


@dataclass(frozen=True, slots=True)
class RunArtifact:
    """A workflow run's artifact holding the built zips (read through the Actions API)."""

    run_id: int
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRequest:
    """A check's whole request, validated when made (exit 2 for bad usage).

    Paths are relative to `root` (the CLI's working folder, the action's workspace) and shown
    as given; `confined` keeps them inside it. Templates come from `root`, or from
    `template_ref` of the repository there, each named `Package.swift` template with every
    version-specific template or manifest beside it (core.manifest_files); framework lists
    from `root`, or with `workflows_from_refs` from each of `frameworks_refs` (default: the
    default branch).
    """

    templates: tuple[str, ...]
    version: str | None  # None: names only, no version in the reports
    root: Path = Path(".")
    confined: bool = False
    template_ref: str | None = None
    stubs_dir: str | None = None
    artifacts: tuple[str, ...] = ()
    checksums: tuple[str, ...] = ()
    frameworks: tuple[str, ...] = ()
    frameworks_from: tuple[WorkflowSpec, ...] = ()
    workflows_from_refs: bool = False
    frameworks_refs: tuple[str, ...] = ()
    #: The release lines that still publish (refs or globs); default: the default branch and
    #: the newest release line. Findings on the others weigh as warnings.
    active_refs: tuple[str, ...] = ()
    branch_prefix: str = DEFAULT_BRANCH_PREFIX  # how published branches are named
    run_artifact: RunArtifact | None = None
    #: The branch the working tree holds and, on a pull request, the branch it goes into.
    workspace_branch: str | None = None
    base_ref: str | None = None
    default_branch: str | None = None
    debug_suffix: str = "_debug"
    version_pattern: str = DEFAULT_VERSION_PATTERN
    warn: frozenset[str] = frozenset()
    render_seconds: float = 20.0  # a Jinja template renders in a bounded child
    #: render and publish need every checksum; a check does when it `builds`
    require_checksums: bool = False
    swift: str = "auto"  # auto | off | PATH of a swift executable
    swift_cache: Path | None = None
    #: `--accept-static`: without SwiftPM, what only SwiftPM can decide is a warning (the
    #: report says the manifest is unproven) instead of an error.
    accept_static: bool = False
    urls: UrlSettings = field(default_factory=UrlSettings)  # how zip URLs are built
    verify_urls: bool = False
    resolve: ResolveSettings | None = None
    #: `--download-growth-limit`: growth of what a consumer downloads past it is a finding.
    download_limit: GrowthLimit | None = None
    #: The action's: the repository other refs are fetched from by URL (sources.refs), never
    #: the workspace clone's origin. None: the CLI, whose clone is the developer's own.
    upstream: Upstream | None = None

    def __post_init__(self) -> None:
        if not self.templates:
            raise UsageError(f"give at least one {option('template')}")
        if not (self.artifacts or self.checksums or self.frameworks or self.frameworks_from
                or self.run_artifact is not None):
            raise UsageError(f"give at least one source: {option('artifacts')}, "
                             f"{option('checksums')}, {option('frameworks')} or "
                             f"{option('frameworks-from')}")
        if self.version is not None:
            validate_version(self.version)
            check_against_pattern(self.version, self.version_pattern,
                                  custom_pattern=self.version_pattern != DEFAULT_VERSION_PATTERN)
        if not _SUFFIX.fullmatch(self.debug_suffix):
            raise UsageError(f"{option('debug-suffix')} {self.debug_suffix!r} is not [A-Za-z0-9_]*")
        if not 0 < self.render_seconds <= 600:
            raise UsageError(f"--render-timeout {self.render_seconds} is not in (0, 600]")
        validate_swift_option(self.swift)
        if "needs-swiftpm" in self.warn:  # one switch accepts a static reading, and says so
            raise UsageError("--warn needs-swiftpm: accept a static reading with "
                             f"{option('accept-static')} instead")
        unknown = sorted(self.warn - CODES.keys())
        if unknown:
            raise UsageError(f"--warn {unknown[0]!r} is not a finding code "
                             f"(codes: {', '.join(CODES)})")

    @property
    def builds(self) -> bool:
        """Whether this is a release's build: a version and zips (a folder, a checksums file,
        a run's artifact). Then every declared name must have been built, as publish needs:
        the check refuses what publish would refuse, before anything is uploaded."""
        return self.version is not None and bool(
            self.artifacts or self.checksums or self.run_artifact is not None)

    def options(self) -> CheckOptions:
        return CheckOptions(version=self.version or NO_VERSION, debug_suffix=self.debug_suffix,
                            version_pattern=self.version_pattern, warn=self.warn,
                            require_checksums=self.require_checksums or self.builds,
                            names_only=self.version is None,
                            accept_static=self.accept_static)

    @property
    def verify_zips(self) -> bool:
        """`--verify-zips`: every entry of every zip, built or hosted, decompressed and checked
        (bounded); one setting, the URL settings'."""
        return self.urls.verify_zips

    @property
    def reads_refs(self) -> bool:
        """Whether anything is read from another ref of the repository, or through its API."""
        return bool(self.template_ref or self.workflows_from_refs or self.base_ref
                    or self.run_artifact)

    def path(self, relative: str) -> Path:
        """Where a path the request names is: under `root`, inside it when `confined`."""
        return inside(self.root, relative) if self.confined else self.root / relative


@dataclass(frozen=True, slots=True)
class Sources:
    """Everything read for one check, before any check."""

    templates: tuple[Template, ...]
    artifacts: tuple[Artifact, ...]
    findings: tuple[Finding, ...] = ()
    reads: tuple[Phrase, ...] = ()  # what was read from where, in words
    #: Shown paths read from another ref of this repository → that ref. They are not in the
    #: checked-out tree, so no annotation goes on them.
    ref_paths: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CheckResult:
    report: Report
    rendered: tuple[Rendered, ...]
    #: name → artifact as merged from every source (what the checksums were filled from)
    built: Mapping[str, Artifact]
    sources: Sources
    placement: Placement = field(default_factory=Placement)
    lines: tuple[ReleaseLine, ...] = ()  # one per release line, when several were checked
    resolved: ResolveOutcome | None = None
    builder: str | None = None  # who built the names: `main` (for headlines)
    #: On a pull request: the findings its base branch has too, and that branch.
    existing: frozenset[Finding] = frozenset()
    base: str | None = None

    def complete_manifests(self) -> tuple[tuple[str, str], ...]:
        """(path, text) of every manifest, when the check has a version, passed and knew every
        checksum (a pull request's check knows none); else none."""
        if not self.rendered or not self.report.version or not self.report.consistent:
            return ()
        if any(t.kind == "checksum" for r in self.rendered for t in scan(r.text)):
            return ()
        return tuple((manifest_of(r.template.path), r.text) for r in self.rendered)


@dataclass(frozen=True, slots=True)
class Gathered:
    """Everything one check reads, read before anything is judged: the head's sources (with
    several release lines, each line's) and, on a pull request, its base's, read the same way.
    `evaluate` reads none of them again."""

    request: CheckRequest  # what was read for
    sources: Sources  # the head's; with several lines the first line's, with every line's reads
    checkout: Checkout  # the clone: where fix lines read the history
    builder: str | None = None  # who built the names: `main` (for headlines)
    lines: tuple[tuple[str, Sources], ...] = ()  # each release line read, in order
    skipped: tuple[ReleaseLine, ...] = ()
    active: frozenset[str] = frozenset()  # the lines that still publish
    published: Mapping[str, Publication] = field(default_factory=dict)
    base: Gathered | None = None  # the pull request's base (None: none, or unreadable)
    #: How the published branches are read, when `verify_urls` weighs the download against
    #: the previous version's (jobs.weight).
    releases: Published | None = None


def check(request: CheckRequest, adapters: Adapters = QUIET) -> CheckResult:
    """Read everything (`gather`), then judge it (`evaluate`); raises only for bad input and
    broken infrastructure. On a pull request what the base has already is `existing`."""
    import tempfile  # scratch for what other refs and the API hand over

    # Without refs to read: no log, no API session, but still the run's one git.
    checkout = checkout_of(request, adapters if request.reads_refs
                           else replace(QUIET, git=adapters.git))
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-") as scratch:
        # Templates read from a ref keep their stubs in `scratch`: judged while it is there.
        return evaluate(gather(request, checkout, Path(scratch), adapters), adapters)


def gather(request: CheckRequest, checkout: Checkout, scratch: Path,
           adapters: Adapters = QUIET) -> Gathered:
    """Every source the request names, read once: the head's (each release line's) and on a
    pull request the base's. What other refs hand over goes under `scratch`."""
    # The published branches are read through the front end's adapters, whatever else is.
    releases = checkout_published(checkout if request.reads_refs
                                  else checkout_of(request, adapters)) \
        if request.verify_urls else None
    if several_lines(request):
        gathered = replace(_gather_lines(request, checkout, scratch, noticed(adapters)),
                           releases=releases)
    else:
        ref = request.frameworks_refs[0] if request.frameworks_refs else None
        gathered = gathered_from(request, read_sources(request, checkout, scratch, ref),
                                 checkout, releases)
    if request.base_ref is None:
        return gathered
    return replace(gathered, base=_gather_base(request, checkout, scratch / "base", adapters))


def gathered_from(request: CheckRequest, sources: Sources, checkout: Checkout,
                  releases: Published | None = None) -> Gathered:
    """One set of sources as gathered (publish reads its templates from the remote)."""
    return Gathered(request, sources, checkout, builder=_builder(request, checkout, ()),
                    releases=releases)


def _gather_base(request: CheckRequest, checkout: Checkout, scratch: Path, adapters: Adapters
                 ) -> Gathered | None:
    """The pull request's base read the same way (`base_request`); None when there is nothing
    to compare or it cannot be read (then every finding counts as new)."""
    base = base_request(request)
    if base is None:
        return None
    scratch.mkdir()
    try:  # what the base skips was said for the head already: the log only
        return gather(base, checkout, scratch, replace(adapters, notice=None))
    except GuardError as error:
        also = ("; template-side annotations go on the array's first entry"
                if pull_request_into_main(request) else "")
        adapters.log(f"cannot read the base branch {request.base_ref!r} ({error}); every "
                     f"finding counts as new{also}")
        return None


def _builder(request: CheckRequest, checkout: Checkout, active_lines: Sequence[str]
             ) -> str | None:
    """Who built (or declared) the names, for headlines: `main does not build it`."""
    if active_lines:
        return active_lines[0]
    if request.frameworks_from and request.workflows_from_refs:
        return request.frameworks_refs[0] if request.frameworks_refs \
            else checkout.default_branch()
    return request.workspace_branch  # what the workspace's sources were built from


def evaluate(gathered: Gathered, adapters: Adapters = QUIET) -> CheckResult:
    """What gather read, judged: rendered, checked both ways, proven, the hosted zips fetched
    (on request), compared with the base, each finding's fix line and place. The one way
    there, for check and publish."""
    request = gathered.request
    result = _judged(gathered, adapters)
    known = _known_on_base(gathered, adapters)
    findings = with_fixes(result.report.findings, request, result.sources, gathered.checkout,
                          gathered.builder)
    # Matched after the fix lines are added: `existing` holds the findings as reported.
    existing = None if known is None else frozenset(f for f in findings if identity(f) in known)
    base = gathered.base.sources if gathered.base is not None else None
    return replace(result, report=replace(result.report, findings=findings),
                   builder=gathered.builder,
                   placement=place(findings, result.sources, request, base),
                   existing=existing or frozenset(),
                   base=request.base_ref if existing is not None else None)


def _judged(gathered: Gathered, adapters: Adapters) -> CheckResult:
    request = gathered.request
    result = _judge_lines(gathered) if gathered.lines else judge(gathered.sources, request)
    result = with_hosted(result, request, adapters)
    result = with_weight(result, request, adapters.log, gathered.releases)
    if request.version is None:  # names only: the reports say nothing about a version
        result = replace(result, report=replace(result.report, version=""))
    return result


def _known_on_base(gathered: Gathered, adapters: Adapters) -> set[tuple[object, ...]] | None:
    """What the pull request's base finds (`identity`): findings it has too are shown, but are
    not this change's doing. None when there is no base to compare with."""
    if gathered.base is None:
        return None
    try:
        before = _judged(gathered.base, replace(adapters, notice=None))
    except GuardError as error:
        adapters.log(f"cannot evaluate the base branch {gathered.request.base_ref!r} ({error}); "
                     "every finding counts as new")
        return None
    return {identity(f) for f in before.report.findings}


def base_request(request: CheckRequest) -> CheckRequest | None:
    """The same check on the pull request's base: the template from it (a pull request into
    the template branch) or the framework lists from it (into `main`); None when the change
    is in built zips or lists no ref holds."""
    base = request.base_ref
    assert base is not None
    # Only what the base decides: no fetching zips, no consumer, no third evaluation.
    quiet = replace(request, base_ref=None, verify_urls=False, resolve=None)
    if request.template_ref is None and request.workflows_from_refs:
        return replace(quiet, template_ref=base)
    if pull_request_into_main(request) and not (
            request.workflows_from_refs or request.artifacts or request.checksums
            or request.frameworks or request.run_artifact):
        return replace(quiet, workflows_from_refs=True, frameworks_refs=(base,))
    return None


def identity(finding: Finding) -> tuple[object, ...]:
    """What makes a finding the same one on the base: not its line, which edits move."""
    return (finding.code, finding.severity, finding.subject, finding.file, finding.ref)


def checkout_of(request: CheckRequest, adapters: Adapters) -> Checkout:
    """The repository the request's paths are in, read through the front end's adapters."""
    from swiftpm_guard.sources.refs import Checkout

    return Checkout(request.root, git=adapters.git, github=adapters.github,
                    default_branch=request.default_branch,
                    upstream=None if adapters.own_clone else request.upstream,
                    log=adapters.log)


def judge(sources: Sources, request: CheckRequest) -> CheckResult:
    """Render every template, check both ways and prove the manifests."""
    options = request.options()
    built, _conflicts = merge_artifacts(sources.artifacts)  # the check reports conflicts
    rendered = tuple(_render(t, options.version, built, request.render_seconds)
                     for t in sources.templates)
    report = check_rendered(rendered, sources.artifacts, options, sources.findings)
    report = prove(report, rendered, built, options, swift=request.swift,
                   cache_dir=request.swift_cache)
    report = replace(report, findings=anchored(report.findings, sources.artifacts))
    return CheckResult(report=report, rendered=rendered, built=built, sources=sources)


def with_hosted(result: CheckResult, request: CheckRequest, adapters: Adapters) -> CheckResult:
    """`verify_urls`: every zip the manifests name fetched; `resolve`: a consumer resolved."""
    version = request.version
    if version is None:
        return result
    report = result.report
    if request.verify_urls:
        from swiftpm_guard.jobs import verify_urls  # only when asked: it fetches over HTTP

        found, stats, unreachable = verify_urls.hosted(result.rendered, result.built, version,
                                                       request.urls, log=adapters.log)
        report = replace(report, findings=(*report.findings, *apply_warn(found, request.warn)),
                         hosted=stats)
        if unreachable:
            report = _unverified(report, unreachable)
    resolved = None
    if request.resolve is not None:
        if not report.consistent:
            # A manifest known broken (a placeholder left): SwiftPM could only repeat it.
            adapters.log("resolve: skipped, the check already has error findings")
        else:
            from swiftpm_guard.jobs.resolve import resolve_rendered

            resolved = resolve_rendered(result.rendered, result.built, version, request.resolve,
                                        request.urls)
            count = sum(len(r.targets) for r in resolved.resolutions)
            how = "cached" if resolved.cached else "swift package resolve"
            adapters.log(f"resolve: {count} binary targets in {resolved.seconds:.1f} s ({how})")
            report = replace(report, findings=(*report.findings,
                                               *apply_warn(resolved.findings, request.warn)))
    return replace(result, report=report, resolved=resolved)


def _unverified(report: Report, unreachable: list[tuple[str, str]]) -> Report:
    """Hosts that could not be reached say nothing about the release: with an error finding
    already refusing it, a notice beside that finding; else exit 3, could not verify."""
    from swiftpm_guard.jobs.verify_urls import could_not_verify

    said = could_not_verify(unreachable)
    if report.consistent:
        raise InfrastructureError(f"verify-urls: {said}; nothing was judged: re-run when the "
                                  f"host answers (or without {option('verify-urls')})")
    notice = Finding(code="url-error", severity=Severity.NOTICE, subject=unreachable[0][0],
                     message=f"{said}; the error findings above refuse this release anyway")
    return replace(report, findings=(*report.findings, notice))


def _render(template: Template, version: str, built: Mapping[str, Artifact],
            seconds: float) -> Rendered:
    """Jinja templates may come from a pull request: they render in a bounded child."""
    if template.verbatim:
        return render_verbatim(template, version, built)
    if template.flavour != "jinja":
        return render(template, version, built)
    return call_isolated(render, template, version, built, file=template.path, seconds=seconds)


# -- reading -------------------------------------------------------------------------------------


def read_sources(request: CheckRequest, checkout: Checkout, scratch: Path,
                 frameworks_ref: str | None = None) -> Sources:
    """The templates and every artifact source the request names, shown by the paths given."""
    return joined(_templates(request, checkout, scratch),
                  read_artifacts(request, checkout, scratch, frameworks_ref))


def joined(templates: Sources, artifacts: Sources) -> Sources:
    """The templates read and the artifacts read, as one set of sources."""
    return Sources(templates=templates.templates, artifacts=artifacts.artifacts,
                   findings=(*artifacts.findings, *templates.findings),
                   reads=(*templates.reads, *artifacts.reads),
                   ref_paths={**templates.ref_paths, **artifacts.ref_paths})


def _templates(request: CheckRequest, checkout: Checkout, scratch: Path) -> Sources:
    """The named templates and, beside a named `Package.swift` template, every version-specific
    template or manifest (core.manifest_files): each is a manifest some SwiftPM reads."""
    templates: list[Template] = []
    findings: list[Finding] = []
    if request.template_ref is None:
        stubs = request.path(request.stubs_dir) if request.stubs_dir else None
        named = tuple(str(Path(shown)) for shown in request.templates)
        found = manifests_beside(named, lambda folder: request.path(folder or "."))
        for shown in found.paths:
            template, loaded = load_template(request.path(shown), display=shown,
                                             stubs_dir=stubs, verbatim=shown in found.verbatim)
            templates.append(template)
            findings += loaded
        branch = request.workspace_branch
        where = Phrase.of("template ", request.templates[0], " from the workspace (", branch,
                          ")") if branch else Phrase.of("template ", request.templates[0],
                                                         " from the workspace")
        return Sources(tuple(templates), (), tuple(dict.fromkeys(findings)),
                       (where, *_beside(found, named)))
    from swiftpm_guard.sources.refs import load_template_from_ref, manifests_in_ref

    reader = checkout.reader(request.template_ref)
    found = manifests_in_ref(reader, request.templates)
    paths: dict[str, str] = {}
    for shown in found.paths:
        template, loaded = load_template_from_ref(reader, shown, scratch / "template-ref",
                                                  verbatim=shown in found.verbatim)
        templates.append(template)
        findings += loaded
        paths[template.path] = request.template_ref
        paths.update((stub.location.file, request.template_ref) for stub in template.stubs)
    where = Phrase.of("template ", request.templates[0], f" from {reader.where}")
    return Sources(tuple(templates), (), tuple(dict.fromkeys(findings)),
                   (where, *_beside(found, request.templates)), paths)


def _beside(found: ManifestSet, named: tuple[str, ...]) -> list[Phrase]:
    """The version-specific manifests read beside the named templates, in words."""
    extra = [path for path in found.paths if path not in named]
    if not extra:
        return []
    parts = ["version-specific manifests beside it: "]
    for path in extra:
        parts += [path, ", "]
    parts[-1] = " (SwiftPM may read one instead of Package.swift)"
    return [Phrase.of(*parts)]


def read_artifacts(request: CheckRequest, checkout: Checkout, scratch: Path,
                   frameworks_ref: str | None = None) -> Sources:
    """Every artifact source (not the templates): workflows, zips, checksums, lists, a run's
    artifact. A run's artifact is downloaded and unpacked under `scratch`."""
    artifacts: list[Artifact] = []
    findings: list[Finding] = []
    reads: list[Phrase] = []
    ref_paths: dict[str, str] = {}
    if request.frameworks_from and request.workflows_from_refs:
        from swiftpm_guard.sources.refs import read_workflow_from_ref

        ref = frameworks_ref or checkout.default_branch()
        reader = checkout.reader(ref)
        for spec in request.frameworks_from:
            names = read_workflow_from_ref(reader, spec, scratch / "frameworks-ref")
            artifacts += expand_declared(names, request.debug_suffix, "workflow")
            ref_paths.setdefault(spec.path, ref)
            reads.append(Phrase.of("framework list ", spec.path, f" from {reader.where}"))
    elif request.frameworks_from:
        from swiftpm_guard.sources.workflow import read_workflow_frameworks  # PyYAML: only here

        for spec in request.frameworks_from:
            request.path(spec.path)  # refused when it leaves a confined root
            names = read_workflow_frameworks(spec, root=request.root, display=spec.path)
            artifacts += expand_declared(names, request.debug_suffix, "workflow")
            reads.append(Phrase.of("framework list ", spec.path, " from the workspace"))
    for shown in request.artifacts:
        found, problems = scan_zip_folder(request.path(shown), display=str(Path(shown)),
                                          verify=request.verify_zips)
        artifacts += found
        findings += problems
    for shown in request.checksums:
        artifacts += read_checksums(request.path(shown), display=str(Path(shown)))
    for listed in request.frameworks:
        file = request.path(listed[1:]) if listed.startswith("@") else None
        declared = read_declared(listed, path=file)
        artifacts += expand_declared(declared, request.debug_suffix)
    if request.run_artifact is not None:
        found, problems, read = _run_artifact(request.run_artifact, checkout, scratch,
                                              request.verify_zips)
        artifacts += found
        findings += problems
        reads.append(read)
    return Sources(templates=(), artifacts=tuple(artifacts), findings=tuple(findings),
                   reads=tuple(reads), ref_paths=ref_paths)


def _run_artifact(run: RunArtifact, checkout: Checkout, scratch: Path, verify: bool = False
                  ) -> tuple[list[Artifact], list[Finding], Phrase]:
    from swiftpm_guard.sources.actions_api import download_artifact, extract_zips, find_artifact

    github = checkout.github
    if github is None or not github.token:
        raise UsageError("inputs run-id and artifact-name need a github-token to download")
    found = find_artifact(github.client, github.repository, run.run_id, run.name, github.policy)
    downloads = scratch / "downloads"
    downloads.mkdir(parents=True)
    archive = download_artifact(github.api_url, github.token, github.repository, found,
                                downloads, github.policy, proxy=github.proxy)
    display = f"{run.name}@run-{run.run_id}"
    folder = extract_zips(archive, scratch / "run-artifact", display=display)
    archive.unlink()
    artifacts, findings = scan_zip_folder(folder, display=display, verify=verify)
    said = Phrase.of(f"{len(artifacts)} zips from artifact ", run.name, f" of run {run.run_id}")
    return artifacts, findings, said


# -- release lines ---------------------------------------------------------------------------


def several_lines(request: CheckRequest) -> bool:
    """Whether the framework lists come from several release lines (a glob, or more refs)."""
    refs = request.frameworks_refs
    return bool(request.workflows_from_refs and request.frameworks_from
                and (len(refs) > 1 or any(is_glob(r) for r in refs)))


def _gather_lines(request: CheckRequest, checkout: Checkout, scratch: Path,
                  notice: Callable[[str], None]) -> Gathered:
    """The one template and each line's framework lists. A line without the workflow, the
    job or the array, or that no longer publishes and cannot be read, is skipped with a
    notice."""
    plan = _plan(request, checkout)
    template = _templates(request, checkout, scratch)
    read: list[tuple[str, Sources]] = []
    skipped = [ReleaseLine(branch, skipped=why) for branch, why in plan.skipped]
    published = _publications(plan.lines, request, checkout)
    active = active_lines(plan.lines, checkout.default_branch(), request.active_refs,
                          published, today=datetime.now(UTC).date())
    for index, ref in enumerate(plan.lines):
        folder = scratch / f"line-{index}"
        folder.mkdir()
        try:
            artifacts = read_artifacts(request, checkout, folder, ref)
        except Missing as missing:
            skipped.append(ReleaseLine(ref, skipped=f"{missing}; not checked"))
            continue
        except InputError as error:
            if ref in active:  # a line that still publishes must be read exactly
                raise InputError(f"{error} (frameworks-ref {ref})") from None
            # A line that no longer publishes cannot be fixed any more: said, not fatal.
            skipped.append(ReleaseLine(ref, skipped=f"its framework list cannot be read "
                                       f"exactly ({error}); not checked, as it no longer "
                                       "publishes"))
            continue
        read.append((ref, joined(template, artifacts)))
    for line in skipped:
        notice(f"frameworks-ref: {line.ref} skipped: {line.skipped}")
    if not any(ref in active for ref, _sources in read):
        why = "; ".join(f"{line.ref}: {line.skipped}" for line in skipped)
        raise InputError("frameworks-ref: no release line that still publishes is left to "
                         f"check ({why or 'none matched'})")
    reads = dict.fromkeys(phrase for _ref, sources in read for phrase in sources.reads)
    paths: dict[str, str] = {}
    for _ref, sources in reversed(read):  # a path every line has: named by the first
        paths.update(sources.ref_paths)
    return Gathered(request, replace(read[0][1], reads=tuple(reads), ref_paths=paths),
                    checkout, builder=_builder(request, checkout,
                                               [ref for ref, _s in read if ref in active]),
                    lines=tuple(read), skipped=tuple(skipped), active=frozenset(active),
                    published=published)


def _judge_lines(gathered: Gathered) -> CheckResult:
    """Each line's framework lists against the one template, the findings of all in one
    report; old lines' errors weigh as warnings."""
    active, published = gathered.active, gathered.published
    checked = [(ref, judge(sources, gathered.request)) for ref, sources in gathered.lines]
    weighed = [LineFindings(ref, result.report.findings, ref in active,
                            None if ref in active or ref not in published
                            else str(published[ref]))
               for ref, result in checked]
    first = checked[0][1]
    lines = tuple(ReleaseLine(line.ref, weigh(line),
                              len({a.name for a in result.sources.artifacts}),
                              active=line.active, last_published=line.last_published)
                  for line, (_ref, result) in zip(weighed, checked, strict=True))
    return replace(first, report=replace(first.report, findings=merge(weighed)),
                   sources=gathered.sources, lines=(*lines, *gathered.skipped))


def _plan(request: CheckRequest, checkout: Checkout) -> LinePlan:
    """The branches the patterns name; a named branch the remote does not have is a typo."""
    patterns = request.frameworks_refs
    listed = checkout.branches([*(p for p in patterns if is_glob(p)),
                                f"{request.branch_prefix}*"])
    absent = [p for p in patterns if not is_glob(p) and p not in listed]
    if listed and absent:
        raise UsageError(f"frameworks-ref {absent[0]!r} is not a branch of the remote")
    plan = plan_lines(patterns, listed)
    if plan.unmatched:  # a typo (`relese/*`) must not leave the check against main alone
        raise UsageError(f"frameworks-ref {plan.unmatched[0]!r} matches no branch of the "
                         "remote")
    return plan


def _publications(lines: Sequence[str], request: CheckRequest,
                  checkout: Checkout) -> dict[str, Publication]:
    """Each release line's newest published branch (`swiftpm-0.4.0`) and its day, for the
    lines that published anything: what decides which lines still publish."""
    listed = checkout.branches([f"{request.branch_prefix}*"])
    found: dict[str, Publication] = {}
    for line in lines:
        versions = line_versions(line, request.branch_prefix, listed)
        if versions:
            found[line] = Publication(versions[0], checkout.commit_day(versions[0]))
    return found
