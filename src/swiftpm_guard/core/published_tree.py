"""What the published commit's tree may hold (pure): the rules publish applies to the commit it
built, before the proof clones it and before anything is pushed.

A consumer gets the tree through git and SwiftPM, so whatever lets either of them change what is
read is refused, never interpreted: `.gitattributes` (re-encodings, eol, filters) and
`.gitmodules` anywhere, gitlinks (submodules), and root names outside a plain ASCII allow-list
(a file system or SwiftPM could read them otherwise: SwiftPM's `\\d` takes Unicode digits, a
case-insensitive disk takes `package.swift` for `Package.swift`). Every root file SwiftPM could
take for a manifest must be one the check rendered or read as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Set

from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.core.option_names import option

#: Root names: ASCII letters, digits, `.`, `_`, `-`; `@` only in a version-specific manifest.
_ROOT_NAME = re.compile(r"[A-Za-z0-9._-]+|Package@swift-[0-9]+(?:\.[0-9]+)*\.swift")
#: Files git reads from the tree itself and that change what a clone holds.
_GIT_FILES = frozenset({".gitattributes", ".gitmodules"})
GITLINK = "160000"


def tree_findings(entries: Iterable[tuple[str, str]], checked: Set[str]) -> list[Finding]:
    """Error findings for the tree `entries` ((path, mode) as `git ls-tree -r` lists them);
    `checked` holds the manifest paths the check rendered or read as they are."""
    found: list[Finding] = []
    roots: dict[str, None] = {}
    for path, mode in entries:
        name = path.rsplit("/", 1)[-1]
        if name.casefold() in _GIT_FILES:
            found.append(_refuse(path, f"git reads {name} from the published tree and changes "
                                       "what a consumer's clone holds (encodings, line ends, "
                                       "filters, submodules)", "remove it from the template ref"))
        elif mode == GITLINK:
            found.append(_refuse(path, "a submodule (gitlink) is not part of what a consumer "
                                       "gets from the branch", "remove it from the template ref"))
        roots.setdefault(path.split("/", 1)[0])
    for root in roots:
        found += _root_findings(root, checked)
    return found


def _root_findings(name: str, checked: Set[str]) -> list[Finding]:
    if not _ROOT_NAME.fullmatch(name):
        return [_refuse(name, "a root name outside ASCII letters, digits, '.', '_' and '-' (and "
                              "'@' only in Package@swift-<digits and dots>.swift) may be read "
                              "differently by a file system or by SwiftPM",
                        "rename it or move it into a folder")]
    folded = name.casefold()
    if (folded == "package.swift" or folded.startswith("package@swift")) and name not in checked:
        return [Finding(code="unchecked-manifest", severity=Severity.ERROR, subject=name,
                        file=name,
                        message=f"SwiftPM may read the root {name} as the package's manifest, "
                                "and the check never rendered or read it: consumers would get "
                                "an unchecked manifest; remove it from the template ref, or "
                                f"name its template with {option('template')}")]
    return []


def _refuse(path: str, why: str, fix: str) -> Finding:
    return Finding(code="published-tree", severity=Severity.ERROR, subject=path, file=path,
                   message=f"the published commit would hold {path!r}: {why}; {fix}")
