"""The job summary's attestation section (report.attestation)."""

from swiftpm_guard.report.attestation import summary_lines


def test_the_summary_section_prints_the_consumer_command():
    subjects = [("a" * 64, "Package.swift"), ("b" * 64, "b-1.3.0.zip")]
    lines = summary_lines("octo/kit", subjects, ".swiftpm-guard/attestation-subjects.txt")
    assert lines == [
        "#### Attestation", "",
        "Subjects for `actions/attest-build-provenance` (`subject-checksums`) (2 subjects: "
        "`.swiftpm-guard/attestation-subjects.txt`). After the attest step, a consumer checks a "
        "downloaded zip with:", "",
        "```sh", "gh attestation verify b-1.3.0.zip --repo octo/kit", "```", ""]
    assert summary_lines("octo/kit", [], "x") == []
    many = [(f"{i:064x}", f"z{i}-1.0.0.zip") for i in range(1025)]
    assert "the attest action takes at most 1024" in "\n".join(summary_lines("o/r", many, "x"))
