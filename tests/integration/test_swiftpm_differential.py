"""The static reader against the real SwiftPM, on generated manifests (issue 24).

`support/swift_cases.py` generates binary-package manifests from a seed (conditions, line
endings and white space, string literals, directive placement, whole-manifest shapes);
`support/differential.py` reads each with `check --swift off` (and the core alone) and with
`swift package dump-package`. The invariant: wherever the static reader says consistent,
SwiftPM accepts the manifest and evaluates exactly the binary targets the reader asked for. It
may refuse. And where SwiftPM evaluated a case, the check with SwiftPM flags `static-disagrees`
for exactly the names the two differ on. Consistent cases share manifests, eight to a `dump-package`, so the whole run costs
a minute or two on two cores; `benchmarks/swift_differential.py` runs longer.
"""

from __future__ import annotations

import pytest

from support.differential import (
    Outcome,
    comparison_violation,
    describe,
    disagreement_subjects,
    rendered,
    run,
    summary,
)
from support.swift_cases import generate, issue_24_cases

pytestmark = pytest.mark.slow

SEED = 24
CASES = 200
REFUSED_EVALUATED = 24  # refusals SwiftPM is asked about too (each costs a run of its own)


def test_the_static_reader_never_says_consistent_where_swiftpm_disagrees(swift, tmp_path):
    outcomes = run(generate(SEED, CASES), swift, tmp_path, refused_limit=REFUSED_EVALUATED)
    violations = [o for o in outcomes if o.violation]
    flagged = [o for o in outcomes if disagreement_subjects(o)]
    print(f"differential, seed {SEED}: {summary(outcomes)}; static-disagrees on "
          f"{len(flagged)} cases SwiftPM evaluated")
    assert not violations, "\n\n".join(f"{o.violation}\n{describe(o)}" for o in violations)
    # Refusing everything would pass; the tier must test real claims.
    assert sum(o.static.consistent for o in outcomes) >= CASES // 4, summary(outcomes)
    # With SwiftPM, the check says where the static reading is wrong: exactly there.
    wrong = [o for o in outcomes if comparison_violation(o)]
    assert not wrong, "\n\n".join(f"{comparison_violation(o)}\n{describe(o)}" for o in wrong)


def _table(outcomes: dict[str, Outcome]) -> str:
    rows = []
    for name, outcome in outcomes.items():
        swiftpm = outcome.swiftpm
        said = "rejects" if swiftpm is not None and not swiftpm.ok else \
            "not run" if swiftpm is None else ", ".join(sorted(swiftpm.targets))
        reader = "consistent: " + ", ".join(sorted(outcome.static.asked)) \
            if outcome.static.consistent else "refuses (" + ", ".join(outcome.static.codes) + ")"
        rows.append(f"| {name!r} | {said} | {reader} |")
    return "\n".join(rows)


def test_issue_24s_conditions_line_forms_and_rejected_manifests(swift, tmp_path):
    cases = issue_24_cases()
    outcomes = run(list(cases.values()), swift, tmp_path)
    by_name = dict(zip(cases, outcomes, strict=True))
    print(_table(by_name))
    for name, outcome in by_name.items():
        assert outcome.swiftpm is not None, name
        assert outcome.violation is None, (name, outcome.violation)
        if outcome.case.whole:  # the six manifests the compiler rejects
            assert not outcome.swiftpm.ok and not outcome.static.consistent, name
        else:  # SwiftPM compiles the #else: the reader reads just that
            prefix = outcome.case.names[0].split("_")[0] + "_"
            assert outcome.swiftpm.targets == {prefix + "base", prefix + "b"}, name
            assert outcome.static.core and outcome.static.asked == outcome.swiftpm.targets, name
            assert disagreement_subjects(outcome) == frozenset(), name
    assert "\r#else\r" in rendered([cases["lone CR"]])  # the text SwiftPM read
