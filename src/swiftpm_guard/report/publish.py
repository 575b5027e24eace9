"""What publishing and preflight did, in Markdown and for the console (pure).

The action's sections speak of its inputs (`exclude-paths`, `allow-overwrite`); the CLI's
`--markdown` file is the shorter record of one command.
"""

from __future__ import annotations

from collections.abc import Sequence

from swiftpm_guard.core.model import Finding, Phrase
from swiftpm_guard.core.package_diff import PackageDiff, describe
from swiftpm_guard.report.markdown import code, fence, html, message, text
from swiftpm_guard.workflow_commands import neutralise


def diff_lines(diff: PackageDiff | None, note: str | None, debug_suffix: str = "") -> list[str]:
    """The dry run's comparison with a published branch (`core.package_diff.choose_base`), or
    why there is none; the subjects are someone else's text, so no workflow command."""
    return [neutralise(line) for line in (describe(diff, debug_suffix) if diff is not None
                                              else [str(note)])]


#: How a commit was proven before its push: "swiftpm" or "static", and each step's name, what
#: it showed and its seconds (jobs.commit_proof.Proof).
ProofShown = tuple[str, Sequence[tuple[str, str, float]]]


def proof_text(proof: ProofShown) -> str:
    """One sentence: what was proven about the commit before the push, and how."""
    how, steps = proof
    done = "; ".join(f"{name}: {what} ({seconds:.1f} s)" for name, what, seconds in steps)
    if how == "static":
        return (f"Proof: **static** (accept-static, no SwiftPM ran; what only SwiftPM can "
                f"evaluate is unproven): {text(done)}.")
    return f"Proof: **{how}**: {text(done)}."


def publish_section(*, branch: str, pushed: bool, commit: str | None, remote: str,
                    skipped: str | None, replaced: str | None, updated_from: str | None,
                    excluded: Sequence[str], dry_run: bool, diff: list[str],
                    manifests: Sequence[tuple[str, str]], snippet: str,
                    proof: ProofShown | None = None) -> str:
    """The action's summary and check-run section: state, diff, manifests, snippet."""
    if pushed:
        state = f"Pushed {code(branch)} at {code(str(commit))} to {code(remote)}."
        if replaced:
            state += f" It replaced {code(replaced)} (allow-overwrite)."
        if updated_from:
            state += f" It is a new commit on top of {code(updated_from)} (update)."
    else:
        state = f"{code(branch)} was **not pushed**: {text(str(skipped))}."
    lines = ["#### Publish", "", state, ""]
    if proof is not None:
        lines += [proof_text(proof), ""]
    if len(manifests) > 1:  # version-specific ones: SwiftPM reads one by its own version
        lines += ["Manifests, each rendered and checked (SwiftPM reads the one for its "
                  "version): " + ", ".join(code(path) for path, _text in manifests), ""]
    if excluded:
        lines += ["Left out of the published tree (input `exclude-paths`): "
                  + ", ".join(code(p) for p in excluded), ""]
    if dry_run:
        lines += ["What this publish changes in a published branch (products, binary targets, "
                  "checksums, template commit):", ""]
        lines += [*fence("\n".join(diff)), ""]
    if dry_run or not pushed:
        lines += draft_lines(manifests, "dry run" if dry_run else "draft, not pushed")
    if pushed or dry_run:
        lines += ["Consumers add:", "", *fence(snippet, "swift"), ""]
    return "\n".join(lines)


def draft_lines(manifests: Sequence[tuple[str, str]], label: str) -> list[str]:
    """Each rendered manifest, folded and fenced: what a run that does not publish would
    have published (placeholders left where a name was not built)."""
    lines: list[str] = []
    for path, manifest in manifests:
        lines += [f"<details><summary>{html(path)} ({html(label)})</summary>", "",
                  *fence(manifest, "swift"), "</details>", ""]
    return lines


def publish_markdown(*, branch: str, pushed: bool, commit: str | None, skipped: str | None,
                     excluded: Sequence[str], diff: PackageDiff | None, snippet: str,
                     debug_suffix: str = "", proof: ProofShown | None = None) -> str:
    """The CLI's `--markdown` section after the check's report."""
    state = (f"pushed {code(branch)} at {code(str(commit))}" if pushed
             else f"{code(branch)} not pushed: {text(str(skipped))}")
    lines = ["#### Publish", "", state, ""]
    if proof is not None:
        lines += [proof_text(proof), ""]
    if excluded:
        lines += ["Left out of the published tree: " + ", ".join(code(p) for p in excluded), ""]
    if diff is not None:
        lines += [*fence("\n".join(diff_lines(diff, None, debug_suffix))), ""]
    lines += fence(snippet, "swift")
    return "\n".join(lines) + "\n"


def pushed_summary(branch: str, commit: str, remote: str) -> str:
    """The line a push leaves in the job summary at once, whatever fails later."""
    return f"Pushed {code(branch)} at {code(commit)} to {code(remote)}.\n\n"


def failed_summary(error: str, *, wants_credentials: bool) -> str:
    """A failed push or fetch still says why in the job summary."""
    hint = ""
    if wants_credentials:
        hint = ("\n\nThe remote wants credentials: the token (input `push-token`, else "
                "`github-token`) goes only to the host GITHUB_SERVER_URL names, and pushing "
                "needs `permissions: contents: write`.")
    return f"#### Publish\n\nFailed, nothing was pushed: {text(error)}{hint}\n"


def read_from_ref(template: str, ref: str, commit: str, where: str) -> Phrase:
    """`template X from REF at COMMIT (where)`: what a publish built on."""
    return Phrase.of("template ", template, " from ", ref, " at ", commit[:12], f" ({where})")


def preflight_markdown(branch: str, url: str, findings: Sequence[Finding]) -> str:
    if not findings:
        return f"#### Preflight\n\n{code(branch)} is free on {code(url)}.\n"
    lines = ["#### Preflight", "", f"{code(branch)} is **not** free on {code(url)}:", ""]
    for finding in findings:
        lines.append(f"- {code(finding.code)}: {message(finding.message)}")
        if finding.fix:
            lines.append(f"  Next: {message(finding.fix)}")
    return "\n".join(lines) + "\n"


def preflight_log(findings: Sequence[Finding]) -> list[str]:
    """Each finding's console line and, under it, what to do next."""
    from swiftpm_guard.report.check import finding_lines

    return [line for finding in findings for line in finding_lines(finding)]


def dry_run_note(url: str) -> str:
    return f"> [!NOTE]\n> dry-run: nothing was pushed to {code(url)}\n"
