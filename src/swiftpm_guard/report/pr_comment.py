"""The pull-request comment: the check's gist where reviewers read, one per guard (pure).

The first line is a hidden marker, `<!-- swiftpm-guard pr-comment key=K findings=D -->`: K
names the guard (its check name and template), so two guards in one repository keep one
comment each; D is a digest of what the comment says about the findings, so a run whose
findings did not change leaves the comment alone (when its text is also what this run would
write: a copied marker does not pin someone else's words). Both are hex: nothing a check name
or a finding holds can end the HTML comment early.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from swiftpm_guard.report.markdown import code, text

#: GitHub refuses a comment body over 65536 characters; the gist is cut well before.
_GIST_MAX = 60_000
_MARKER = re.compile(
    r"<!-- swiftpm-guard pr-comment key=([0-9a-f]{16}) findings=([0-9a-f]{16}) -->")
_RUN_LINK = re.compile(r" · \[the check run\]\(<[^>\n]*>\)$", re.MULTILINE)
_VERDICT = {"success": "✅", "neutral": "⚪", "failure": "❌"}


@dataclass(frozen=True, slots=True)
class Comment:
    key: str  # which guard: the marker's key
    digest: str  # what it says about the findings
    body: str  # the whole comment, marker first

    def ours(self, body: str) -> bool:
        """Whether `body` is this guard's comment (its marker, with this key)."""
        marker = marker_of(body)
        return marker is not None and marker[0] == self.key

    def current(self, body: str) -> bool:
        """Whether `body` already says this: the same digest and, so that a comment someone
        wrote with a copied marker cannot pass for it, the same text but the check run's
        address (a new run with the same findings is no reason to notify anyone)."""
        marker = marker_of(body)
        return (marker == (self.key, self.digest)
                and _RUN_LINK.sub("", body) == _RUN_LINK.sub("", self.body))


def _hex(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def guard_key(check_name: str, template: str) -> str:
    """One guard of a repository: its check run's name and the template it checks."""
    return _hex("guard", check_name, template)


def marker_of(body: str) -> tuple[str, str] | None:
    """(key, digest) of a comment this tool wrote: the marker must open its first line."""
    found = _MARKER.match(body)
    return (found.group(1), found.group(2)) if found else None


def comment(*, check_name: str, template: str, conclusion: str, title: str, gist: str,
            check_run_url: str | None) -> Comment:
    """The comment for one run. `gist` is Markdown already (the findings, each problem once);
    the check run's address is left out of the digest: a new run with the same findings is
    no reason to notify anyone."""
    if len(gist) > _GIST_MAX:
        gist = gist[:_GIST_MAX].rsplit("\n", 1)[0] + (
            "\n\n> cut: the findings are longer than a comment holds; the check run and the "
            "job summary have them all\n")
    key = guard_key(check_name, template)
    digest = _hex("findings", conclusion, title, gist)
    where = f" · [the check run](<{check_run_url}>)" if check_run_url else ""
    icon = f"{_VERDICT[conclusion]} " if conclusion in _VERDICT else ""
    lines = [
        f"<!-- swiftpm-guard pr-comment key={key} findings={digest} -->",
        f"### {icon}{text(check_name)}: {text(title)}",
        "",
        f"Conclusion **{text(conclusion)}** for {code(template)}{where}",
        "",
        gist.rstrip("\n"),
        "",
        "<sub>swiftpm-guard edits this comment in place when its findings change.</sub>",
        "",
    ]
    return Comment(key, digest, "\n".join(lines))
