"""The action's `evaluate_loaded` and the CLI's `evaluate` must reach the same report."""

from __future__ import annotations

import pytest

from support.release import write_release
from swiftpm_guard.core.checks import CheckOptions
from swiftpm_guard.jobs.check import evaluate, evaluate_loaded, gather_artifacts
from swiftpm_guard.jobs.check_request import CheckRequest
from swiftpm_guard.sources.template import load_template


@pytest.mark.parametrize("built", [None, ["executorch", "backend_coreml", "kernels_new"]])
def test_same_report_as_evaluate(tmp_path, built):
    release = write_release(tmp_path / "r", version="1.2.3", built=built)
    settings = CheckRequest(
        templates=(release.template,),
        version="1.2.3",
        artifacts=(release.artifacts,),
        checksums=(release.checksums,),
        swift="off",
    )
    expected = evaluate(settings)
    artifacts, findings = gather_artifacts(settings)
    template, stub_findings = load_template(release.template)
    options = CheckOptions(
        version="1.2.3",
        debug_suffix=settings.debug_suffix,
        version_pattern=settings.version_pattern,
        warn=settings.warn,
    )
    loaded = evaluate_loaded([template], artifacts, findings + stub_findings, options, swift="off")
    assert loaded.report == expected.report and loaded.built == expected.built
    assert [r.text for r in loaded.rendered] == [r.text for r in expected.rendered]
