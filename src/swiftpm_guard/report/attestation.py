"""The job summary's attestation section (pure): how a consumer checks which run built the
bytes it downloaded (core.subjects)."""

from __future__ import annotations

from collections.abc import Sequence

from swiftpm_guard.core.subjects import SUBJECTS_MAX, verify_command
from swiftpm_guard.report.markdown import code


def summary_lines(repository: str, subjects: Sequence[tuple[str, str]], output: str) -> list[str]:
    """The job summary's section: how a consumer checks which run built these bytes."""
    if not subjects:
        return []
    first = next((name for _digest, name in subjects if name.endswith(".zip")), subjects[0][1])
    more = f" ({len(subjects)} subjects: {code(output)})" if len(subjects) > 1 else ""
    lines = ["#### Attestation", "",
             f"Subjects for `actions/attest-build-provenance` (`subject-checksums`){more}. "
             "After the attest step, a consumer checks a downloaded zip with:", "",
             "```sh", verify_command(repository, first), "```", ""]
    if len(subjects) > SUBJECTS_MAX:
        lines += [f"More than {SUBJECTS_MAX} subjects: the attest action takes at most "
                  f"{SUBJECTS_MAX} at once; split the file.", ""]
    return lines
