"""AuditReport → JSON, Markdown and console lines (pure).

The JSON shape is a public interface: `{"consistent", "branches": [{"branch", "version",
"findings": [{"code", "severity", "subject", "file", "line", "message"}]}]}`.
The Markdown groups runs of consecutive branches that share the same problem, because a
broken template breaks every nightly until someone notices ("8 nightlies, … : 2 placeholders
left" says more than eight identical sections).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from swiftpm_guard.core.audit import (
    KEEPING_RULES,
    NIGHTLY_RE,
    AuditReport,
    BranchAudit,
    Protection,
)
from swiftpm_guard.core.model import Finding, Phrase
from swiftpm_guard.report import markdown as md
from swiftpm_guard.report import mermaid
from swiftpm_guard.report.check import SCHEMA_VERSION, TOOL, finding_line, finding_order
from swiftpm_guard.workflow_commands import neutralise

#: How a count of findings of one code reads: (one, many).
_PHRASES: dict[str, tuple[str, str]] = {
    "placeholder-left": ("placeholder left", "placeholders left"),
    "malformed-placeholder": ("near-miss placeholder left", "near-miss placeholders left"),
    "bad-checksum": ("checksum not 64 lowercase hex", "checksums not 64 lowercase hex"),
    "missing-stub": ("stub folder missing", "stub folders missing"),
    "empty-stub": ("empty stub folder", "empty stub folders"),
    "orphan-stub": ("orphan stub folder", "orphan stub folders"),
    "stray-file": ("stray file in the stub root", "stray files in the stub root"),
    "stub-symlink": ("stub folder linking out of the tree", "stub folders linking out of the tree"),
    "duplicate-checksum": ("checksum also published under another name",
                           "checksums also published under other names"),
    "reused-checksum": ("checksum also published for another version",
                        "checksums also published for other versions"),
    "branch-version": ("manifest version differs from the branch name",
                       "manifest versions differ from the branch name"),
    "bad-version": ("branch name carries no valid version", "branch names carry no valid version"),
    "manifest-unreadable": ("manifest unreadable", "manifests unreadable"),
    "edited-after-publish": ("tip edited after publishing", "tips edited after publishing"),
    "unrecognised-manifest": ("manifest without recognisable checksums",
                              "manifests without recognisable checksums"),
    "missing-version": ("manifest without a version", "manifests without a version"),
    "unknown-role": ("target of unknown role", "targets of unknown role"),
    "url-missing": ("zip URL missing", "zip URLs missing"),
    "url-error": ("zip URL failing", "zip URLs failing"),
    "url-checksum": ("served zip differs from its checksum",
                     "served zips differ from their checksums"),
    "url-not-zip": ("URL serving something that is not a zip",
                    "URLs serving something that is not a zip"),
}
_MAX_SUBJECTS = 4
#: Past this many groups the timeline counts the sound branches instead of listing them.
TIMELINE_MAX_GROUPS = 60


def to_dict(report: AuditReport) -> dict[str, object]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "audit",
        "tool": dict(TOOL),
        "consistent": report.consistent,
        "source": report.source or None,
        "pattern": report.pattern or None,
        "branches": [
            {"branch": b.branch, "version": b.version,
             "findings": [f.as_dict() for f in sorted(b.findings, key=finding_order)],
             "tip": b.tip.as_dict() if b.tip else None}
            for b in report.branches
        ],
        "verify_urls": report.hosted.as_dict() if report.hosted else None,
        "protection": _protection_dict(report.protection) if report.protection else None,
    }


def _protection_dict(protection: Protection) -> dict[str, object]:
    return {"asked": list(protection.asked), "covered": list(protection.covered),
            "missing": list(protection.missing), "rulesets": list(protection.rulesets),
            "unknown": protection.unknown, "published": protection.published,
            "uncovered": list(protection.uncovered)}


def to_json(report: AuditReport) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def console_line(branch: str, finding: Finding) -> str:
    """`branch:file:line: severity: code: message`."""
    where = f"{branch}:{finding.file}" if finding.file else branch
    if finding.line:
        where += f":{finding.line}"
    return neutralise(f"{where}: {finding.severity}: {finding.code}: {finding.message}")


def counts(report: AuditReport) -> str:
    """`633 branches, 8 with errors, 3 with warnings only`: the same words in the verdict, the
    check run's title and the Markdown."""
    errors = sum(b.has_errors for b in report.branches)
    warned = sum(bool(b.findings) and not b.has_errors for b in report.branches)
    return (f"{len(report.branches)} branches, {errors} with errors, {warned} with warnings "
            "only")


def verdict(report: AuditReport) -> str:
    state = "consistent" if report.consistent else "NOT consistent"
    hosted = f"; {report.hosted.sentence()}" if report.hosted else ""
    return f"swiftpm-guard audit: {state}: {counts(report)}{hosted}"


@dataclass(frozen=True, slots=True)
class Group:
    """A run of consecutive branches (by version) of one kind with the same problem."""

    kind: str  # "nightly", "release" or "branch"
    branches: tuple[BranchAudit, ...]
    signature: tuple[tuple[str, str, str], ...]  # (severity, code, subject), sorted

    @property
    def label(self) -> str:
        count, first, last = len(self.branches), self.branches[0], self.branches[-1]
        if self.kind == "nightly":
            start, end = _date(first.version), _date(last.version)
            if count == 1:
                return f"nightly {start}"
            shown = end[5:] if end[:4] == start[:4] else end
            return f"{count} nightlies, {start} … {shown}"
        noun = ("release", "releases") if self.kind == "release" else ("branch", "branches")
        if count == 1:
            return f"{noun[0]} {first.version or first.branch}"
        return (f"{count} {noun[1]}, {first.version or first.branch} … "
                f"{last.version or last.branch}")

    @property
    def problem(self) -> str:
        if not self.signature:
            return "sound"
        subjects: dict[str, list[str]] = {}
        severity: dict[str, str] = {}
        for sev, code, subject in self.signature:
            subjects.setdefault(code, []).append(subject)
            severity.setdefault(code, sev)
        parts = []
        order = sorted(subjects, key=lambda c: (severity[c] != "error", c))
        for code in order:
            names = subjects[code]
            shown = md.text(code)
            one, many = _PHRASES.get(code, (f"{shown} finding", f"{shown} findings"))
            parts.append(f"{len(names)} {one if len(names) == 1 else many}")
        return ", ".join(parts)

    @property
    def subjects(self) -> list[str]:
        return list(dict.fromkeys(subject for _sev, _code, subject in self.signature))


def _date(version: str | None) -> str:
    match = NIGHTLY_RE.fullmatch(version or "")
    if match is None:
        return version or "?"
    date = match.group("date")
    return f"{date[:4]}-{date[4:6]}-{date[6:]}"


def _kind(branch: BranchAudit) -> str:
    if branch.version is None:
        return "branch"
    return "nightly" if NIGHTLY_RE.fullmatch(branch.version) else "release"


def _signature(branch: BranchAudit) -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted({(str(f.severity), f.code, f.subject) for f in branch.findings}))


def groups(report: AuditReport) -> list[Group]:
    """Consecutive branches with the same kind and the same set of (code, subject)."""
    found: list[Group] = []
    for branch in report.branches:
        kind, signature = _kind(branch), _signature(branch)
        last = found[-1] if found else None
        if last is not None and last.kind == kind and last.signature == signature:
            found[-1] = Group(kind, (*last.branches, branch), signature)
        else:
            found.append(Group(kind, (branch,), signature))
    return found


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(md.code(n) for n in names[:_MAX_SUBJECTS])
    return shown + (f" and {len(names) - _MAX_SUBJECTS} more" if len(names) > _MAX_SUBJECTS
                    else "")


def _timeline(all_groups: Sequence[Group], sound_groups: bool) -> list[str]:
    """One line per group; the sound ones counted instead when not wanted, or when there are
    so many groups that the problems would drown (GitHub cuts a summary at 65535 bytes)."""
    lines: list[str] = []
    sound = sum(len(g.branches) for g in all_groups if not g.signature)
    sound_groups = sound_groups and len(all_groups) <= TIMELINE_MAX_GROUPS
    for group in all_groups:
        if not group.signature and not sound_groups:
            continue
        span = md.code(group.branches[0].branch)
        if len(group.branches) > 1:
            span += f" … {md.code(group.branches[-1].branch)}"
        if group.signature:
            lines.append(f"- **{md.text(group.label)}: {group.problem}** "
                         f"({_names(group.subjects)}) — {span}")
        else:
            lines.append(f"- {md.text(group.label)}: sound — {span}")
    if sound and not sound_groups:
        lines.append(f"- {sound} sound branches (every branch is in the JSON report)")
    return lines


def to_markdown(report: AuditReport, *, sound_groups: bool = True) -> str:
    """A short timeline of groups, then each problem group's findings (from its first branch).

    Without `sound_groups` the timeline lists only the groups with problems and counts the
    rest (the job summary beside a check run that carries the timeline). Every branch's tip
    is in the JSON report and the log, not here: a row per branch is hundreds of rows."""
    title = "consistent" if report.consistent else "**not consistent**"
    source = f" of {md.code(report.source)}" if report.source else ""
    pattern = f" ({md.code(report.pattern)})" if report.pattern else ""
    lines = [f"### SwiftPM audit{source}{pattern}: {title}", "",
             f"{md.text(counts(report))}.", ""]
    if report.hosted is not None:
        lines += [f"Hosted zips (verify-urls): {md.text(report.hosted.sentence())}.", ""]
    all_groups = groups(report)
    lines += _timeline(all_groups, sound_groups)
    lines += ["", picture(report, all_groups).rstrip("\n")]
    problems = [g for g in all_groups if g.signature]
    if problems:
        lines += ["", "#### Findings", ""]
    for group in problems:
        first = group.branches[0]
        others = len(group.branches) - 1
        same = f" (the same in the {others} other branches of this run)" if others > 1 else \
            " (the same in the next branch)" if others == 1 else ""
        lines += [f"**{md.text(group.label)}** — {md.code(first.branch)}{same}:", ""]
        lines += [finding_line(f) for f in sorted(first.findings, key=finding_order)]
        lines.append("")
    lines += repair_markdown(report)
    if report.protection is not None:
        lines += ["", "#### Branch protection", "", *protection_markdown(report)]
    if any(b.tip is not None for b in report.branches):
        lines += ["", "Each branch's tip commit, author and date: the JSON report "
                  "(`branches[].tip`) and the log."]
    return "\n".join(lines).rstrip("\n") + "\n"


#: Codes a republish cannot mend: what is wrong is the hosted zip, not the branch.
_HOSTED = frozenset({"url-missing", "url-error", "url-checksum", "url-not-zip"})


def repair(report: AuditReport) -> list[Phrase]:
    """How to repair what the audit found (empty when nothing is wrong): republish with
    `update`, never `allow-overwrite`, and what to tell consumers."""
    broken = [b.branch for b in report.branches if b.has_errors]
    edited = [b.branch for b in report.branches
              if any(f.code == "edited-after-publish" for f in b.findings)]
    hosted = [b.branch for b in report.branches if any(f.code in _HOSTED for f in b.findings)]
    said = []
    if broken:
        said.append(Phrase.of(
            "Republish each broken branch (", *_some(broken), _more(broken) + ") with ",
            "update", " (input ", "update: true", ", CLI ", "publish --update",
            "): a new commit on top of its tip, the manifest rendered again from the template "
            "and that version's zips; a dry run first shows what changes. Never ",
            "allow-overwrite", ": apps pin published commits in Package.resolved, and a "
            "rewritten branch loses the commit they pinned."))
        said.append(Phrase.of(
            "Tell consumers: apps that follow the branch get the fix with ",
            "swift package update", "; apps whose Package.resolved pins the broken commit keep "
            "failing until they update; name the fixed commit in the release notes."))
    if edited:
        said.append(Phrase.of(
            "Edited by hand after publishing (", *_some(edited),
            _more(edited) + "): review the edit; to bring the branch back to what the "
            "template renders, republish with ", "update",
            ", which keeps the edit in the history."))
    if hosted:
        said.append(Phrase.of(
            "Hosted zips (", *_some(hosted),
            _more(hosted) + "): the manifest pins their checksums, so upload again exactly the "
            "zip the manifest names; a rebuilt zip needs a new version, or a republish with ",
            "update", " naming its new checksum."))
    return said


def _some(branches: Sequence[str]) -> tuple[str, ...]:
    """Phrase parts naming up to three branches: values, the words between, ending on a value;
    `_more` starts the next word."""
    parts: list[str] = []
    for branch in branches[:3]:
        parts += [", ", branch]
    return tuple(parts[1:])


def _more(branches: Sequence[str]) -> str:
    return f" and {len(branches) - 3} more" if len(branches) > 3 else ""


def repair_markdown(report: AuditReport) -> list[str]:
    said = repair(report)
    if not said:
        return []
    return ["", "#### How to repair", "", *(f"- {md.phrase(line)}" for line in said)]


def tip_line(branch: BranchAudit) -> str | None:
    """`swiftpm-1.0.0: tip 0123456789ab by Name <email> on 2025-01-01T00:00:00+00:00 ("…")`."""
    tip = branch.tip
    if tip is None:
        return None
    return (f"{branch.branch}: tip {tip.commit[:12]} by {tip.author} on {tip.date} "
            f"(\"{tip.subject[:80]}\")")


def repair_lines(report: AuditReport) -> list[str]:
    """The repair advice for a log: `repair: …` lines."""
    return [neutralise(f"repair: {line.plain()}") for line in repair(report)]


# -- the picture: a Mermaid timeline of the published versions ----------------------------------

#: At most this many periods in the picture: past it, runs of sound groups become one period,
#: then the rest is counted (the list above and the JSON report have every branch).
PICTURE_MAX_PERIODS = 30
_STATUS = {"error": "broken", "warning": "warnings only", "": "sound"}
#: Light enough for dark label text, told apart without reading: red, amber, green, grey.
_COLOURS = {"broken": "#ffb4b4", "warnings only": "#ffe08a", "sound": "#b8e6c4",
            "more": "#d8dce0"}


def _status(group: Group) -> str:
    severities = {sev for sev, _code, _subject in group.signature}
    return _STATUS["error" if "error" in severities else "warning" if severities else ""]


def _periods(all_groups: Sequence[Group]) -> list[tuple[str, mermaid.Period]]:
    """(status, period) per group; consecutive sound groups merged when there are too many."""
    merge = len(all_groups) > PICTURE_MAX_PERIODS
    found: list[tuple[str, list[Group]]] = []
    for group in all_groups:
        status = _status(group)
        if merge and status == "sound" and found and found[-1][0] == "sound":
            found[-1][1].append(group)
        else:
            found.append((status, [group]))
    periods = []
    for status, run in found:
        if len(run) == 1:
            group = run[0]
            periods.append((status, mermaid.Period(group.label, (group.problem,))))
            continue
        count = sum(len(g.branches) for g in run)
        first, last = run[0].branches[0], run[-1].branches[-1]
        periods.append((status, mermaid.Period(
            f"{count} branches, {first.version or first.branch} … {last.version or last.branch}",
            ("sound",))))
    if len(periods) > PICTURE_MAX_PERIODS:
        rest = len(periods) - PICTURE_MAX_PERIODS + 1
        periods = [*periods[:PICTURE_MAX_PERIODS - 1],
                   ("more", mermaid.Period(f"and {rest} more", ("in the list above",)))]
    return periods


def picture(report: AuditReport, all_groups: Sequence[Group] | None = None) -> str:
    """The published versions in order as a Mermaid timeline, GitHub draws it in a summary:
    a section per run of broken, warned or sound groups, so the broken ones stand out."""
    runs: list[tuple[str, list[mermaid.Period]]] = []
    for status, period in _periods(groups(report) if all_groups is None else all_groups):
        if runs and runs[-1][0] == status:
            runs[-1][1].append(period)
        else:
            runs.append((status, [period]))
    seen: dict[str, int] = {}
    sections = []
    for status, periods in runs:
        # Mermaid merges sections of one name: the second run of a status is numbered.
        seen[status] = seen.get(status, 0) + 1
        name = status if seen[status] == 1 else f"{status} ({seen[status]})"
        sections.append(mermaid.Section(name, tuple(periods), _COLOURS[status]))
    return mermaid.timeline(f"{report.pattern or 'published'} branches by version", sections)


# -- branch protection: which ruleset rules keep the published branches -------------------------

#: What a rule left out lets anyone with write access do.
_OPEN_TO = {"deletion": "delete a published branch",
            "non_fast_forward": "force-push over a published branch",
            "creation": "create a branch under a version before its publish job does"}
_RULE_WORDS = {"deletion": "deletion", "non_fast_forward": "force-push (non-fast-forward)",
               "creation": "creation"}


def ruleset_body(pattern: str) -> str:
    """A ruleset for `POST /repos/{owner}/{repo}/rulesets` that keeps the published
    branches: no deletion, no force-push, creation only by bypass actors."""
    return json.dumps({
        "name": "published SwiftPM branches", "target": "branch", "enforcement": "active",
        "conditions": {"ref_name": {"include": [f"refs/heads/{pattern}"], "exclude": []}},
        "rules": [{"type": rule} for rule in KEEPING_RULES],
    }, indent=2)


def _asked_words(protection: Protection, name: Callable[[str], str] = str) -> str:
    """`swiftpm-1.0.0, swiftpm-2.0.0`; past three, `all 40: first … last`, or for a sample
    `200 of 350, evenly spaced: first … last`."""
    asked = protection.asked
    if len(asked) <= 3 and not protection.sampled:
        return ", ".join(name(b) for b in asked)
    ends = f"{name(asked[0])} … {name(asked[-1])}"
    if protection.sampled:
        return f"{len(asked)} of {protection.published}, evenly spaced: {ends}"
    return f"all {len(asked)}: {ends}"


def _uncovered_words(protection: Protection, name: Callable[[str], str] = str) -> str:
    """When only some branches asked lack a rule: which (a pattern that skips them)."""
    uncovered = protection.uncovered
    if not uncovered or len(uncovered) == len(protection.asked):
        return ""
    shown = ", ".join(name(b) for b in uncovered[:5])
    more = f" and {len(uncovered) - 5} more" if len(uncovered) > 5 else ""
    verb = "lacks" if len(uncovered) == 1 else "lack"
    return (f"; {len(uncovered)} of the {len(protection.asked)} branches asked {verb} it "
            f"({shown}{more}): a ruleset's pattern skips them")


def protection_sentence(protection: Protection) -> str:
    """One plain line for a log, the verdict's neighbour."""
    if protection.unknown is not None:
        return ("could not tell whether a ruleset protects the published branches: "
                f"{protection.unknown}")
    asked = _asked_words(protection)
    if not protection.missing:
        rulesets = ", ".join(str(r) for r in protection.rulesets) or "?"
        return (f"a ruleset protects the published branches ({asked}): deletion, force-push "
                f"and creation restricted (ruleset {rulesets})")
    missing = ", ".join(_RULE_WORDS[r] for r in protection.missing)
    return (f"the published branches ({asked}) are open to {missing}: no active ruleset "
            f"restricts it{_uncovered_words(protection)}")


def protection_markdown(report: AuditReport) -> list[str]:
    """The branch protection section's lines: covered, open, or could not tell; and how."""
    protection = report.protection
    if protection is None:
        return []
    pattern = report.pattern or "swiftpm-*"
    if protection.unknown is not None:
        return [f"Could not tell whether a ruleset protects the published branches: "
                f"{md.text(protection.unknown)}. A token that can read the repository "
                "(metadata: read) can read the rules that apply to a branch."]
    asked = _asked_words(protection, md.code)
    rows = [f"- {'✅' if rule in protection.covered else '❌'} {_RULE_WORDS[rule]} "
            f"({md.code(rule)})" for rule in KEEPING_RULES]
    if not protection.missing:
        rulesets = ", ".join(str(r) for r in protection.rulesets)
        return [f"Active rulesets (ruleset {rulesets}) keep the published branches "
                f"({asked} asked):", "", *rows]
    can = " or ".join(_OPEN_TO[rule] for rule in protection.missing)
    extend = (f" (or add the rules marked ❌ to ruleset {protection.rulesets[0]})"
              if len(protection.rulesets) == 1 else "")
    return [
        f"**The published branches are not fully protected** ({asked} asked): anyone with "
        f"write access can {can}{_uncovered_words(protection, md.code)}; apps pin these "
        "branches' commits in Package.resolved.",
        "", *rows, "",
        f"How to add a ruleset{extend}: Settings → Rules → Rulesets → New branch ruleset, "
        f"target {md.code('refs/heads/' + pattern)}, enforcement Active, with Restrict "
        "creations, Restrict deletions and Block force pushes; or with the GitHub CLI in the "
        "clone:",
        "", "```sh", "gh api --method POST 'repos/{owner}/{repo}/rulesets' --input - <<'JSON'",
        ruleset_body(pattern), "JSON", "```", "",
        "With creation restricted only the ruleset's bypass actors create matching branches: "
        "give the identity that publishes (a GitHub App or deploy key) bypass, or leave "
        "creation out.",
    ]
