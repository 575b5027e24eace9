"""The zip rules against the real SwiftPM, on generated zips (issue 24).

`support/zip_cases.py` generates framework zips from a seed (methods, sizes, CRCs, version
needed, damaged streams, descriptors, names unzip cannot place, symlinks); `support/
zip_differential.py` judges each with the built-zip rules and `--verify-urls`, with and without
`--verify-zips`, and with one `swift package resolve` of a package holding them all as binary
targets over loopback HTTPS. The invariant: the guard never says consistent where SwiftPM
rejects the zip (by default, unless the damage is in data only `--verify-zips` reads). It may
refuse. One resolve answers for every case: the tier's cost is about half a minute.
"""

from __future__ import annotations

import time

import pytest

from support.zip_cases import generate, issue_24_cases, issue_31_cases
from support.zip_differential import ZipOutcome, describe, run, summary, swiftpm_said

pytestmark = pytest.mark.slow

SEED = 24
CASES = 72


def test_the_guard_never_says_consistent_where_swiftpm_rejects_the_zip(
        https, swift_net, test_ca, tmp_path):
    started = time.monotonic()
    cases = generate(SEED, CASES, tmp_path / "generated")
    outcomes = run(cases, https, swift_net, test_ca.ca_pem, tmp_path / "run")
    print(f"zip differential, seed {SEED}: {summary(outcomes)} "
          f"({time.monotonic() - started:.0f} s)")
    print("\n".join(describe(o) for o in outcomes))
    violations = [o for o in outcomes if o.violation]
    assert not violations, "\n".join(f"{o.violation}\n  {describe(o)}" for o in violations)
    kinds = [o.kind for o in outcomes]
    # Refusing everything would pass: the tier must test real claims both ways.
    assert kinds.count("consistent-agreed") >= CASES // 8, summary(outcomes)
    assert kinds.count("refused-rejected") >= CASES // 4, summary(outcomes)
    assert kinds.count("default-missed") >= 1, summary(outcomes)  # --verify-zips is tested


def _table(by_name: dict[str, ZipOutcome]) -> str:
    rows = ["| zip | SwiftPM `resolve` | guard (default) | guard (`--verify-zips`) |",
            "|---|---|---|---|"]
    for name, outcome in by_name.items():
        rows.append(f"| {name} | {swiftpm_said(outcome.swiftpm)} | {outcome.default.said()} "
                    f"| {outcome.full.said()} |")
    return "\n".join(rows)


def test_issue_24s_five_zips_and_the_link_out_of_the_archive(https, swift_net, test_ca,
                                                             tmp_path):
    cases = issue_24_cases(tmp_path / "cases")
    outcomes = run(list(cases.values()), https, swift_net, test_ca.ca_pem, tmp_path / "run")
    by_name = dict(zip(cases, outcomes, strict=True))
    print(_table(by_name))
    for name, outcome in by_name.items():
        assert outcome.violation is None, (name, outcome.violation)
        said = swiftpm_said(outcome.swiftpm)
        if outcome.case.changes == ("control",):
            assert said == "accepts" and outcome.default.consistent and outcome.full.consistent
        elif outcome.case.changes == ("link",):
            # SwiftPM makes the link and reads only Info.plist: it accepts; the guard does not.
            assert said == "accepts", name
            assert outcome.default.local == ("zip-link",) == outcome.full.local, name
            assert outcome.default.hosted == "zip-link" == outcome.full.hosted, name
        else:
            assert said.startswith("rejects (invalid-archive)"), (name, said)
            assert "zip-layout" in outcome.full.local and outcome.full.hosted == "url-not-zip"
            if outcome.case.needs_full:  # damage in the data of an entry the rules do not read
                assert outcome.default.consistent, name
            else:
                assert outcome.default == outcome.full, name


def test_issue_31s_zips_outside_the_accepted_shape(https, swift_net, test_ca, tmp_path):
    """Every zip is refused naming its entry; where SwiftPM's unzip reads the zip another
    way, SwiftPM rejects it too; where it accepts (a second xcframework, a root Info.plist),
    it would take another folder than `NAME.xcframework` as the target."""
    cases = issue_31_cases(tmp_path / "cases")
    outcomes = run(list(cases.values()), https, swift_net, test_ca.ca_pem, tmp_path / "run")
    by_name = dict(zip(cases, outcomes, strict=True))
    print(_table(by_name))
    for name, outcome in by_name.items():
        assert outcome.violation is None, (name, outcome.violation)
        key = outcome.case.changes[0]
        if key == "control":
            assert outcome.accepted and outcome.full.consistent, name
            continue
        assert "zip-layout" in outcome.full.local, (name, outcome.full)
        assert outcome.full.hosted in ("url-not-zip", "url-no-artifact"), (name, outcome.full)
        assert outcome.default.consistent is outcome.case.needs_full, name
        if key in ("dot", "slashes", "end-gap", "crc"):  # unzip reads these another way
            assert not outcome.accepted, (name, swiftpm_said(outcome.swiftpm))
