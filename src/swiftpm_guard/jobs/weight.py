"""The download-weight job: what a consumer of this release downloads (core.weight), and with
`--verify-urls` how that compares with the previous published version: its branch's
manifest read, every zip URL it names fetched, the served bytes summed. Check and publish
share it; each says how its published branches are read (`Published`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from swiftpm_guard.core.checks import apply_warn
from swiftpm_guard.core.model import DownloadWeight, HostedStats
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.subjects import published_path
from swiftpm_guard.core.weight import (
    growth_findings,
    previous_version,
    weigh,
    with_previous,
)
from swiftpm_guard.errors import GuardError
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES

if TYPE_CHECKING:
    from swiftpm_guard.jobs.check import CheckRequest, CheckResult
    from swiftpm_guard.sinks.git_push import ScratchRepo
    from swiftpm_guard.sources.refs import Checkout


@dataclass(frozen=True, slots=True)
class Published:
    """How published branches are read: their names, and one file's text at one of them
    (None when the branch does not hold it)."""

    branches: Callable[[str], list[str]]  # prefix → short branch names
    read: Callable[[str, str], str | None]  # (branch, path) → text


def with_weight(result: CheckResult, request: CheckRequest, log: Callable[[str], None],
                published: Published | None) -> CheckResult:
    """The report's download weight, and with a growth limit the `download-growth` finding.
    The previous version is looked up only with `--verify-urls` (its sizes are served)."""
    version = request.version
    if version is None:
        return result
    report = result.report
    weight = weigh(report.placeholders, result.built, report.hosted)
    limit = request.download_limit
    if request.verify_urls and published is not None:
        weight = _previous(weight, request, version, published, log)
    elif limit is not None:
        weight = with_previous(weight, None, None, "the previous version's served sizes are "
                                                   f"fetched with {option('verify-urls')}")
    weight = replace(weight, limit=limit.text if limit is not None else None)
    found = apply_warn(growth_findings(weight, limit, version), request.warn)
    report = replace(report, weight=weight, findings=(*report.findings, *found))
    return replace(result, report=report)


def _previous(weight: DownloadWeight, request: CheckRequest, version: str,
              published: Published, log: Callable[[str], None]) -> DownloadWeight:
    prefix = request.branch_prefix
    try:
        before = previous_version(published.branches(prefix), prefix, version)
    except GuardError as error:  # the weight is news, never the reason a check cannot run
        return with_previous(weight, None, None, f"published branches not listed ({error})")
    if before is None:
        return with_previous(weight, None, None, f"no version before {version} is published")
    path = published_path(request.templates[0])
    try:
        text = published.read(prefix + before, path)
    except GuardError as error:
        return with_previous(weight, before, None, f"{path} not read ({error})")
    if text is None:
        return with_previous(weight, before, None, f"{prefix}{before} holds no {path}")
    served, why = _served(text, path, before, request, log)
    return with_previous(weight, before, served, why)


def _served(text: str, path: str, version: str, request: CheckRequest,
            log: Callable[[str], None]) -> tuple[HostedStats | None, str | None]:
    """Every zip the previous manifest names, fetched: what its consumers download."""
    from swiftpm_guard.core.audit import read_published
    from swiftpm_guard.core.urls import zips_of_published
    from swiftpm_guard.sources.hosted import verify_reachable

    zips, problems = zips_of_published(read_published(text), path, version, request.urls)
    if problems:
        return None, problems[0]
    if not zips:
        return None, f"its {path} names no binary target"
    log(f"download weight: fetching {len(zips)} zip URLs of {version}")
    _results, stats, unreachable = verify_reachable(zips, request.urls)
    if unreachable:
        return None, f"{len(unreachable)} of its zip URLs could not be reached"
    return stats, None


def checkout_published(checkout: Checkout) -> Published:
    """The check's: the workspace clone's upstream (else the API)."""
    def branches(prefix: str) -> list[str]:
        return checkout.branches([f"{prefix}*"])

    def read(branch: str, path: str) -> str | None:
        from swiftpm_guard.errors import Missing

        try:
            data = checkout.reader(branch).read(path, max_bytes=TEMPLATE_MAX_BYTES,
                                                what="published manifest")
        except Missing:
            return None
        return data.decode("utf-8", "replace")

    return Published(branches, read)


def scratch_published(repo: ScratchRepo) -> Published:
    """Publish's: the remote it pushes to, through its scratch repository."""
    def branches(prefix: str) -> list[str]:
        refs = repo.ls_remote([f"refs/heads/{prefix}*"])
        return [ref.removeprefix("refs/heads/") for ref in refs]

    def read(branch: str, path: str) -> str | None:
        tip = repo.fetch(f"refs/heads/{branch}", depth=1)
        found = [e for e in repo.tree(tip) if e.path == path and e.kind == "blob"]
        if not found or (found[0].size or 0) > TEMPLATE_MAX_BYTES:
            return None
        return repo.blobs([found[0].sha])[found[0].sha].decode("utf-8", "replace")

    return Published(branches, read)
