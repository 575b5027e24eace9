"""What to change where: a fix line on each two-way finding, naming the file and line to
edit and, when the clone's history says for sure, the template commit that introduced the
line or, for a name no template asks for any more, the one that removed it (its subject
carries the pull request number, `… (#13401)`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from swiftpm_guard.core.checks import base_name
from swiftpm_guard.core.model import Finding
from swiftpm_guard.core.option_names import option

if TYPE_CHECKING:
    from collections.abc import Callable

    from swiftpm_guard.jobs.check import CheckRequest, Sources
    from swiftpm_guard.sources.refs import Blame, Checkout

    _Introduced = Callable[[str, int], str]
    _Removed = Callable[[str], str]

#: git blame runs at most this many times per check (one per distinct template line).
BLAME_MAX = 40
_PR = re.compile(r"\(#([0-9]{1,7})\)\s*$")


def with_fixes(findings: Sequence[Finding], request: CheckRequest, sources: Sources,
               checkout: Checkout | None, builder: str | None = None) -> tuple[Finding, ...]:
    """Each finding with its fix line; `builder` is the branch whose lists built the names."""
    blames: dict[tuple[str | None, str, int], Blame | None] = {}
    removals: dict[str, Blame | None] = {}

    def introduced(file: str, line: int) -> str:
        if checkout is None:
            return ""
        ref = sources.ref_paths.get(file)
        key = (ref, file, line)
        if key not in blames and len(blames) < BLAME_MAX:
            blames[key] = checkout.blame(ref, file, line)
        found = blames.get(key)
        if found is None:
            return ""
        return f" (the line came with {found.commit[:10]} “{found.subject}”{_pr(found)})"

    def removed(name: str) -> str:
        """` (the template dropped it with 0123456789 “Remove backend_mps (#9002)”)`."""
        template = next((t for t in sources.templates if t.flavour != "jinja"), None)
        if checkout is None or template is None:
            return ""
        if name not in removals and len(blames) + len(removals) < BLAME_MAX:
            removals[name] = checkout.removal(sources.ref_paths.get(template.path),
                                              template.path, f"__SHA256_{name}__")
        found = removals.get(name)
        if found is None:
            return ""
        return (f" (the template dropped it with {found.commit[:10]} “{found.subject}”"
                f"{_pr(found)})")

    return tuple(replace(f, fix=_fix(f, request, sources, (introduced, removed), builder)
                         or f.fix)
                 for f in findings)


def _pr(found: Blame) -> str:
    pr = _PR.search(found.subject)
    return f", PR #{pr.group(1)}" if pr else ""


def _fix(finding: Finding, request: CheckRequest, sources: Sources,
         history: tuple[_Introduced, _Removed], builder: str | None) -> str | None:
    introduced, removed = history
    name = base_name(finding.subject, request.debug_suffix)
    template = request.templates[0]
    lists = " or ".join(f"{spec.var} in {spec.path} (job {spec.job})"
                        for spec in request.frameworks_from) or "the sources"
    where = _where(finding, sources)
    if finding.code == "unfilled-placeholder" and finding.file and finding.line:
        on = finding.ref or builder
        return (f"build {name} (add it to {lists}{' on ' + on if on else ''}), or stop asking for "
                f"it at {where}{introduced(finding.file, finding.line)}")
    if finding.code == "unclaimed-artifact":
        return (f"add {name}'s product and binary target to {template}, or stop building it"
                f"{' at ' + where if where else ''}{removed(finding.subject)}")
    if finding.code == "missing-checksum":
        made = f"{finding.subject}-{request.version}.zip" if request.version else finding.subject
        declared = (f"{lists}{' at ' + where if where else ''}" if request.frameworks_from
                    else f"the declared names ({option('frameworks')})")
        return (f"make the build produce {made} (its build log says why it did not), or drop "
                f"{name} from {declared} and from the template; upload nothing of this build "
                "until then")
    if finding.code == "missing-stub":
        return f"add a stub folder for {name} holding one source file, beside {template}"
    return None


def _where(finding: Finding, sources: Sources) -> str:
    from swiftpm_guard.jobs.placement import shown_place

    if not finding.file:
        return ""
    return shown_place(finding, sources.ref_paths) or \
        f"{finding.file}{f':{finding.line}' if finding.line else ''}"
