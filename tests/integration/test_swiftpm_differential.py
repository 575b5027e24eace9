"""The static reader against the real SwiftPM, on generated manifests (issue 24).

`support/swift_cases.py` generates binary-package manifests from a seed (conditions, line
endings and white space, string literals, directive placement, whole-manifest shapes);
`support/differential.py` reads each with `check --swift off` (and the core alone) and with
`swift package dump-package`. The invariant: wherever the static reader says consistent,
SwiftPM accepts the manifest and evaluates exactly the binary targets the reader asked for. It
may refuse. Consistent cases share manifests, eight to a
`dump-package`, so the whole run costs a minute or two on two cores; `benchmarks/swift_differential.py` runs longer.
"""

from __future__ import annotations

import pytest

from support import version_cases
from support.differential import (
    Outcome,
    describe,
    rendered,
    run,
    summary,
)
from support.swift_cases import generate, issue_24_cases

pytestmark = pytest.mark.slow

SEED = 24
CASES = 200
REFUSED_EVALUATED = 24  # refusals SwiftPM is asked about too (each costs a run of its own)
VERSION_CASES = 30  # template branches with version-specific manifests (a run each)


def test_the_static_reader_never_says_consistent_where_swiftpm_disagrees(swift, tmp_path):
    outcomes = run(generate(SEED, CASES), swift, tmp_path, refused_limit=REFUSED_EVALUATED)
    violations = [o for o in outcomes if o.violation]
    print(f"differential, seed {SEED}: {summary(outcomes)}")
    assert not violations, "\n\n".join(f"{o.violation}\n{describe(o)}" for o in violations)
    # Refusing everything would pass; the tier must test real claims.
    assert sum(o.static.consistent for o in outcomes) >= CASES // 4, summary(outcomes)


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
    assert "\r#else\r" in rendered([cases["lone CR"]])  # the text SwiftPM read


def test_every_manifest_swiftpm_reads_is_one_the_static_reader_checked(swift, tmp_path):
    """Template branches with `Package@swift-*.swift` templates and manifests beside the
    template: wherever `check` says consistent, the manifest SwiftPM reads is one it checked,
    declaring exactly the built targets with their checksums."""
    outcomes = version_cases.run(version_cases.generate(SEED, VERSION_CASES), swift, tmp_path)
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.kind] = counts.get(outcome.kind, 0) + 1
    print(f"version-specific, seed {SEED}: {counts}")
    violations = [o for o in outcomes if o.violation]
    assert not violations, "\n".join(f"{o.violation}\n{version_cases.describe(o)}"
                                      for o in violations)
    # SwiftPM 6.0.3 read what its rule (support/version_cases.py) says, case by case.
    wrong = [o for o in outcomes if o.swiftpm.ok and o.swiftpm.read != o.predicted]
    assert not wrong, "\n".join(f"predicted {o.predicted}: {version_cases.describe(o)}"
                                 for o in wrong)
    # The tier tests real claims, and real refusals of what SwiftPM 6.0.3 itself reads.
    assert counts.get("consistent-agreed", 0) >= VERSION_CASES // 6, counts
    read_variant = [o for o in outcomes if not o.static.consistent and o.swiftpm.ok
                    and o.swiftpm.read != "Package.swift"]
    assert len(read_variant) >= VERSION_CASES // 6, counts


#: Which manifest SwiftPM 6.0.3 reads (`dump-package`), by case of `fact_cases`.
READS = {
    "6.0 over Package.swift": "Package@swift-6.0.swift",
    "6 over Package.swift": "Package@swift-6.swift",
    "6.0.3 over 6.0": "Package@swift-6.0.3.swift",
    "6.0 over 6": "Package@swift-6.0.swift",
    "5.9 not newer than Package.swift": "Package.swift",
    "5.10 newer than Package.swift": "Package@swift-5.10.swift",
    "6.0.4 passed over": "Package.swift",
    "6.1 passed over": "Package.swift",
    "06 is 6": "Package@swift-06.swift",
}


def test_which_manifest_swiftpm_6_0_3_reads_and_that_each_is_checked(swift, tmp_path):
    """Each fact case has variants asking for `gamma`, which nobody built: the static reader
    refuses every one (any SwiftPM may read a variant), including those SwiftPM 6.0.3 passes
    over (6.0.4, 6.1: a newer SwiftPM reads them; 5.9: a 5.9 toolchain may)."""
    cases = version_cases.fact_cases()
    outcomes = dict(zip(cases, version_cases.run(list(cases.values()), swift, tmp_path),
                        strict=True))
    rows = [f"| {note} | {o.swiftpm.read if o.swiftpm.ok else o.swiftpm.error} | "
            f"{'consistent' if o.static.consistent else ', '.join(o.static.codes)} |"
            for note, o in outcomes.items()]
    print("\n".join(["| case | SwiftPM 6.0.3 reads | static |", "|---|---|---|", *rows]))
    assert {note: o.swiftpm.read for note, o in outcomes.items()} == READS
    assert all(o.predicted == READS[note] for note, o in outcomes.items())
    assert all(o.static.codes == ("unfilled-placeholder",) for o in outcomes.values())
