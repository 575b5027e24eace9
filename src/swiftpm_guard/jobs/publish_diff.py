"""What a dry run would change: the published branch it is compared with, read from git (its
tip's manifests and stub folders, and the history that says which template commit built it),
against what this run rendered (`core.package_diff` does the comparing).

The template commit behind a published branch is the parent of its publish commit: the newest
first-parent commit whose subject is the version, past any hand fixes. A commit `--update`
made is not on the template branch; it names its template commit in a `Template-Commit:`
trailer instead (older ones do not, and are walked past).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from swiftpm_guard.core.manifest_files import manifest_of
from swiftpm_guard.core.model import Rendered
from swiftpm_guard.core.names import short_branch
from swiftpm_guard.core.package_diff import (
    PackageDiff,
    TemplateCommit,
    choose_base,
    compare,
    nothing_to_compare,
    read_package,
)
from swiftpm_guard.errors import GitError, InputError
from swiftpm_guard.infra.git import TreeEntry
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES
from swiftpm_guard.sinks.git_push import ScratchRepo
from swiftpm_guard.sources.template import STUB_DIRS

#: How much of a published branch's history is fetched to find its publish commit: hand
#: fixes and updates are few; a branch edited more than this says so instead.
HISTORY_DEPTH = 16
#: The trailer an `--update` commit carries, naming the template commit its tree came from.
TEMPLATE_TRAILER = "Template-Commit"
#: What the body of an `--update` commit says (also of those made before the trailer).
UPDATE_MARK = "Updated by swiftpm-guard publish --update"
_TRAILER = re.compile(rf"^{TEMPLATE_TRAILER}: ([0-9a-f]{{40}})$", re.MULTILINE)


def compare_with_published(repo: ScratchRepo, refs: Mapping[str, str], *, branch: str,
                           prefix: str, version: str, templates: Sequence[str],
                           rendered: Sequence[Rendered],
                           template_commit: str) -> tuple[PackageDiff | None, str | None]:
    """The change against the branch `choose_base` picks, or why there is none."""
    base = choose_base(refs, prefix, version, branch)
    if base is None:
        return None, nothing_to_compare(version)
    name = short_branch(base.ref)
    tip = repo.fetch(base.ref, depth=HISTORY_DEPTH)
    entries = repo.tree(tip)
    texts, problem = _manifests(repo, entries, templates, name)
    if problem is not None:
        return None, problem
    old = read_package(texts, _stub_names(entries, templates))
    new = read_package((r.text for r in rendered),
                       (stub.name for r in rendered for stub in r.template.stubs))
    built, note = built_from(repo, tip, name.removeprefix(prefix))
    now = TemplateCommit(template_commit, _subject(repo, template_commit))
    return compare(base, old, new, template_now=now, template_base=built,
                   template_base_note=note), None


def _manifests(repo: ScratchRepo, entries: Sequence[TreeEntry], templates: Sequence[str],
               name: str) -> tuple[list[str], str | None]:
    """The texts of the manifests the templates become, as the branch holds them."""
    wanted = [manifest_of(t) for t in templates]
    found = [e for e in entries if e.path in wanted and e.kind == "blob"]
    if not found:
        return [], f"{name} holds no {wanted[0]} to compare with"
    if any((e.size or 0) > TEMPLATE_MAX_BYTES for e in found):
        return [], f"{name}'s manifest is larger than {TEMPLATE_MAX_BYTES} bytes; not compared"
    blobs = repo.blobs([e.sha for e in found])
    return [blobs[e.sha].decode("utf-8", "replace") for e in found], None


def _stub_names(entries: Sequence[TreeEntry], templates: Sequence[str]) -> set[str]:
    """The stub folders beside the manifests (`.Package.swift/<name>/…`)."""
    roots = [posixpath.join(posixpath.dirname(t), d) + "/" for t in templates for d in STUB_DIRS]
    names: set[str] = set()
    for entry in entries:
        for root in roots:
            rest = entry.path.removeprefix(root) if entry.path.startswith(root) else ""
            if "/" in rest:
                names.add(rest.split("/", 1)[0])
    return names


def built_from(repo: ScratchRepo, tip: str, version: str
               ) -> tuple[TemplateCommit | None, str | None]:
    """The template commit a published branch was built from, or why it is not known."""
    log = repo.run(["log", "--first-parent", f"--max-count={HISTORY_DEPTH}", "-z",
                    "--format=%H%x1f%P%x1f%B", tip]).stdout.decode("utf-8", "replace")
    for record in log.split("\0"):
        if "\x1f" not in record:
            continue
        sha, parents, body = record.strip("\n").split("\x1f", 2)
        trailer = _TRAILER.search(body)
        if trailer is not None:
            return TemplateCommit(trailer[1], _subject(repo, trailer[1], fetch=True)), None
        if body.partition("\n")[0].strip() != version or UPDATE_MARK in body:
            continue  # a hand fix, or an update that does not name its template
        if not parents.split():
            return None, f"the parent of its publish commit {sha[:12]} was not fetched"
        parent = parents.split()[0]
        return TemplateCommit(parent, _subject(repo, parent)), None
    return None, f"no publish commit (subject {version}) in its last {HISTORY_DEPTH} commits"


def _subject(repo: ScratchRepo, commit: str, *, fetch: bool = False) -> str | None:
    """A commit's subject; `fetch`: ask the remote for it first when it is not here."""
    shown = repo.run(["log", "-1", "--format=%s", commit, "--"], check=False)
    if shown.returncode != 0 and fetch:
        try:
            repo.fetch(commit, depth=1)
        except (GitError, InputError):
            return None
        shown = repo.run(["log", "-1", "--format=%s", commit, "--"], check=False)
    return shown.stdout.decode("utf-8", "replace").strip() if shown.returncode == 0 else None
