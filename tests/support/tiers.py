"""One line at the end of a run saying which test tiers ran and which were skipped.

pytest's own last line ("900 passed, 50 skipped") cannot say that the 50 were the whole
SwiftPM tier. Each collected test is given a tier when collection ends; each report's outcome is
counted against it; the line is built from those counts only, so it cannot claim a tier ran
when none of its tests did.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import pytest

#: In the order the line lists them.
TIERS = ("unit", "hygiene", "hostile", "integration", "e2e-entrypoint", "e2e-support", "swiftpm",
         "container")
#: Worst first: a test that failed in teardown after passing counts as an error.
_RANK = ("error", "failed", "passed", "xfailed", "xpassed", "skipped")
_REASON_CHARS = 60


def tier_of(path: str, fixtures: Iterable[str], markers: Iterable[str]) -> str:
    """The tier of one test, from its path relative to the rootdir, fixtures and markers."""
    if "container" in markers:
        return "container"
    if "swift" in fixtures:
        return "swiftpm"
    parts = PurePosixPath(path).parts
    folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
    if folder == "e2e":
        return "e2e-entrypoint" if parts[2] == "entrypoint" else "e2e-support"
    return folder if folder in TIERS else "other"


def classify(item: pytest.Item) -> str:
    markers = {mark.name for mark in item.iter_markers()}
    return tier_of(item.nodeid.split("::")[0], getattr(item, "fixturenames", ()), markers)


@dataclass
class Outcome:
    """What happened to one test: its worst outcome, and the reason if it was skipped."""

    outcome: str = "skipped"
    reason: str = ""
    seen: bool = False

    def add(self, outcome: str, reason: str = "") -> None:
        if not self.seen or _RANK.index(outcome) < _RANK.index(self.outcome):
            self.outcome, self.reason, self.seen = outcome, reason, True


@dataclass(eq=False)  # pluggy keeps plugins in sets: hashed by identity
class TierSummary:
    """A pytest plugin (registered by tests/conftest.py): tiers at collection, outcomes as
    reported, the line in the terminal summary."""

    tiers: dict[str, str] = field(default_factory=dict)  # nodeid → tier
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # After deselection (-k, -m): only what this run means to run.
        self.tiers = {item.nodeid: classify(item) for item in session.items}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.record(report)

    # The outermost wrapper, so the line comes after the short summary of skip reasons, just
    # above pytest's own counts, where it is read.
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter
    ) -> Generator[None, None, None]:
        yield
        if self.tiers:
            terminalreporter.write_line(self.line())

    def record(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.tiers:
            return  # not one of this session's items
        outcome = _outcome(report)
        if outcome is not None:
            reason = _skip_reason(report) if outcome == "skipped" else ""
            self.outcomes.setdefault(report.nodeid, Outcome()).add(outcome, reason)

    def line(self) -> str:
        return summary_line(self.tiers, self.outcomes)


def _outcome(report: pytest.TestReport) -> str | None:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    if report.skipped:
        return "skipped"
    # A passed setup or teardown says nothing; only the call itself passing counts.
    return "passed" if report.when == "call" else None


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def summary_line(tiers: Mapping[str, str], outcomes: Mapping[str, Outcome]) -> str:
    """`tiers: ran A (…), B (…); skipped C (n skipped: reason); not selected D`."""
    counts: dict[str, Counter[str]] = {}
    reasons: dict[str, Counter[str]] = {}
    for nodeid, tier in tiers.items():
        result = outcomes.get(nodeid)
        counts.setdefault(tier, Counter())[result.outcome if result else "not run"] += 1
        if result and result.outcome == "skipped":
            reasons.setdefault(tier, Counter())[result.reason] += 1
    ran, skipped = [], []
    for tier in (*TIERS, "other"):
        tally = counts.get(tier)
        if not tally:
            continue
        described = ", ".join(f"{tally[o]} {o}" for o in (*_RANK, "not run") if tally[o])
        if tally["skipped"] + tally["not run"] < sum(tally.values()):
            ran.append(f"{tier} ({described})")  # at least one of its tests executed
        elif tally["skipped"]:
            reason = reasons[tier].most_common(1)[0][0]
            skipped.append(f"{tier} ({described}: {_clip(reason)})")
        else:
            skipped.append(f"{tier} ({described}: the run stopped first)")
    absent = [tier for tier in TIERS if tier not in counts]
    parts = [f"ran {', '.join(ran) or 'none'}"]
    if skipped:
        parts.append(f"skipped {', '.join(skipped)}")
    if absent:
        parts.append(f"not selected {', '.join(absent)}")
    return "tiers: " + "; ".join(parts)
