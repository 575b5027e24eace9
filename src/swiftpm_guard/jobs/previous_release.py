"""A dry run's comparison: the products and binary targets this publish would offer against
those of the newest published branch of the same X.Y.Z.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from swiftpm_guard.core.git_names import short_branch
from swiftpm_guard.core.package_diff import (
    PackageDiff,
    diff,
    newest_sibling,
    package_names,
    release_part,
)
from swiftpm_guard.errors import InputError
from swiftpm_guard.jobs.check import Outcome, evaluate_read
from swiftpm_guard.jobs.publish_request import PublishRequest
from swiftpm_guard.jobs.release_tree import wanted
from swiftpm_guard.sinks.git_push import ScratchRepo
from swiftpm_guard.sources.template import load_template


def compare_with_previous(
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
    repo.export(parent, wanted(request.templates), folder)
    present = [t for t in request.templates if (folder / t).is_file()]
    if not present:
        return None, f"the parent of {name} holds no {request.templates[0]}"
    try:
        loaded = [load_template(folder / t, display=t)[0] for t in present]
        # Through the pipeline, so a Jinja template renders in its bounded child process;
        # only the names are needed, so SwiftPM is not asked.
        names_only = request.settings._replace(swift="off")
        rendered = evaluate_read(names_only, loaded, [], [], require_checksums=True).rendered
    except InputError as error:
        return None, f"cannot read the template behind {name}: {error}"
    return diff(name, tip, package_names(rendered), package_names(outcome.rendered)), None
