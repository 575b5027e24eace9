"""Whether this run may publish: its ref must be one `publish-refs` names.

`mode: auto` publishes on `workflow_dispatch` from whatever branch it is dispatched on; a
dispatch on a feature branch would claim that day's version branch, and the real nightly then
fails with `branch-exists`. So publishing happens only from the refs `publish-refs` names
(default: the repository's default branch and `release/*`); anywhere else publish and auto
only check, and the log, the summary and the outputs say so.
"""

from __future__ import annotations

from swiftpm_guard.action.gather import default_branch
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.publish_refs import DEFAULT_BRANCH, DEFAULT_PUBLISH_GLOBS, ref_matches
from swiftpm_guard.infra.github import GitHubSession


def _shown(settings: ActionSettings) -> str:
    if settings.publish_refs:
        return " ".join(settings.publish_refs)
    return f"{DEFAULT_BRANCH} and {' '.join(DEFAULT_PUBLISH_GLOBS)}"


def refused(settings: ActionSettings, github: GitHubSession) -> str | None:
    """None when this run's ref may publish, else the reason (for log, summary and outputs)."""
    ref = settings.event.ref
    if settings.publish_refs:
        if ref_matches(ref, settings.publish_refs):
            return None
    else:
        if settings.event.name == "schedule":
            return None  # scheduled workflows run on the default branch, by GitHub's rule
        if ref_matches(ref, DEFAULT_PUBLISH_GLOBS):
            return None
        if ref.startswith("refs/heads/") and ref.removeprefix("refs/heads/") == default_branch(
            settings, github
        ):
            return None
    return (
        f"`{ref or '(GITHUB_REF not set)'}` is not a ref publish-refs allows "
        f"({_shown(settings)}): checked only, nothing is pushed"
    )
