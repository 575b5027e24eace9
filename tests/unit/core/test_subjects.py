"""Attestation subjects (core.subjects): the file actions/attest-build-provenance takes."""

import hashlib
import re

from swiftpm_guard.core.model import Artifact, Location
from swiftpm_guard.core.subjects import subject_lines, subjects_text, verify_command

#: The shasum format the action documents for subject-checksums: the hex digest, a space,
#: the mode flag (a space for text, `*` for binary), the file name.
SHASUM_LINE = re.compile(r"(?P<digest>[0-9a-f]{64}) (?P<mode>[ *])(?P<name>[^\n]+)")


def zip_artifact(name: str, digest: str) -> Artifact:
    return Artifact(name=name, sha256=digest, origin=Location(f"zips/{name}-1.3.0.zip"),
                    file_name=f"{name}-1.3.0.zip", version="1.3.0", size=10)


def test_one_line_per_zip_and_per_manifest_in_the_shasum_format():
    manifest = 'let package = Package(name: "x")\n'
    subjects = subject_lines(
        [zip_artifact("b", "b" * 64), zip_artifact("a", "a" * 64),
         Artifact(name="c", sha256="c" * 64, origin=Location("checksums.txt", 3)),  # no file
         Artifact(name="d", sha256=None, origin=Location("list", 1)),  # declared: no bytes
         Artifact(name="e", sha256="E" * 64, origin=Location("checksums.txt", 4))],  # malformed
        "1.3.0", [("Package.swift", manifest), ("Package@swift-6.0.swift", "other\n")])
    text = subjects_text(subjects)
    assert text == (f"{'a' * 64}  a-1.3.0.zip\n{'b' * 64}  b-1.3.0.zip\n"
                    f"{'c' * 64}  c-1.3.0.zip\n"
                    f"{hashlib.sha256(manifest.encode()).hexdigest()}  Package.swift\n"
                    f"{hashlib.sha256(b'other' + bytes([10])).hexdigest()}  "
                    "Package@swift-6.0.swift\n")
    for line in text.splitlines():
        match = SHASUM_LINE.fullmatch(line)
        assert match is not None and match["mode"] == " " and " " not in match["name"]
    assert subjects_text([]) == ""


def test_the_consumer_command():
    assert verify_command("octo/kit", "a-1.3.0.zip") == \
        "gh attestation verify a-1.3.0.zip --repo octo/kit"
    assert verify_command("octo/kit", "odd name.swift") == \
        "gh attestation verify 'odd name.swift' --repo octo/kit"
