"""A published branch's tip commit, and whether it is still the publish commit (pure).

The publish commit's subject is the version it published (the shell steps and `publish` both
write exactly that). A tip with any other subject was added after publishing: a reviewed
"Update checksums" by a maintainer is legitimate but invisible otherwise, and an
`--allow-overwrite` would throw it away, while `publish --update` builds on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from swiftpm_guard.core.model import Finding, Severity


@dataclass(frozen=True, slots=True)
class TipCommit:
    """A branch's tip commit as git records it (read from the commit object)."""

    commit: str
    author: str  # "Name <email>"
    date: str  # the author date, ISO 8601 with its offset
    subject: str  # the message's first line

    def as_dict(self) -> dict[str, str]:
        return {"commit": self.commit, "author": self.author, "date": self.date,
                "subject": self.subject}


def tip_findings(tip: TipCommit | None, branch: str, version: str | None,
                 manifest_version: str | None) -> list[Finding]:
    """`edited-after-publish` (a warning) when the tip's subject is neither the branch's
    version nor the manifest's (when those differ, `branch-version` already says so)."""
    if tip is None or version is None or tip.subject in (version, manifest_version):
        return []
    return [Finding(
        code="edited-after-publish", severity=Severity.WARNING, subject=branch,
        message=f"the tip {tip.commit[:12]} (\"{tip.subject[:80]}\", {tip.author}, {tip.date}) "
        f"is not the publish commit of {version}: the branch was edited after publishing. "
        "Review the edit; to republish on top of it use publish --update, never "
        "--allow-overwrite",
    )]
