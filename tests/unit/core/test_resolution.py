"""Reading `swift package resolve` output per binary target (core/resolution.py, pure).

The outputs are SwiftPM 6.0.3's own lines, as captured from the toolchain in
tests/integration/test_resolve_oracle.py (URLs shortened).
"""

from hypothesis import given
from hypothesis import strategies as st

from swiftpm_guard.core.model import Location, Severity
from swiftpm_guard.core.resolution import ResolveTarget, State, error_kind, findings, interpret

U = "https://127.0.0.1:8443/frameworks/"


def targets(*names: str) -> list[ResolveTarget]:
    return [ResolveTarget(n, f"{U}{n}-1.2.3.zip", "a" * 64, Location("Package.swift", i + 10))
            for i, n in enumerate(names)]


SUCCESS = f"""\
[1/1] Downloading {U}good-1.2.3.zip
Downloading binary artifact {U}good-1.2.3.zip
Downloading binary artifact {U}other-1.2.3.zip\r[2/2] Downloading {U}other-1.2.3.zip
Downloaded {U}good-1.2.3.zip (0.05s)
Downloaded {U}other-1.2.3.zip (0.06s)
"""

FAILURE = f"""\
Downloading binary artifact {U}good-1.2.3.zip
Downloading binary artifact {U}wrong-1.2.3.zip
Downloaded {U}good-1.2.3.zip (1.93s)
error: checksum of downloaded artifact of binary target 'wrong' (1ad1) does not match checksum specified by the manifest (0000)
Downloading binary artifact {U}late-1.2.3.zip
Downloading binary artifact {U}gone-1.2.3.zip
error: failed downloading '{U}gone-1.2.3.zip' which is required by binary target 'gone': badResponseStatusCode(404)
Downloading binary artifact {U}html-1.2.3.zip
error: invalid archive returned from '{U}html-1.2.3.zip' which is required by binary target 'html'
Downloading binary artifact {U}empty-1.2.3.zip
error: downloaded archive of binary target 'empty' from '{U}empty-1.2.3.zip' does not contain a binary artifact.
error: fatalError
"""


def test_a_clean_resolve_accepts_every_target_with_a_notice_each():
    wanted = targets("good", "other")
    resolution = interpret("Package.swift", wanted, 0, SUCCESS)
    assert resolution.ok
    assert [(t.name, t.state, t.downloaded) for t in resolution.targets] == [
        ("good", State.ACCEPTED, True), ("other", State.ACCEPTED, True)]
    found = findings(resolution, wanted)
    assert [(f.code, f.severity, f.subject, f.line) for f in found] == [
        ("resolved", Severity.NOTICE, "good", 10), ("resolved", Severity.NOTICE, "other", 11)]
    assert "verified its checksum and accepted the archive" in found[0].message


def test_each_failing_target_gets_swiftpms_exact_error_and_the_rest_are_accepted():
    wanted = targets("good", "wrong", "late", "gone", "html", "empty")
    resolution = interpret("Package.swift", wanted, 1, FAILURE)
    by_name = {t.name: t for t in resolution.targets}
    assert {n: (t.state, t.kind) for n, t in by_name.items()} == {
        "good": (State.ACCEPTED, None),
        # SwiftPM prints no "Downloaded" once anything failed, but it waits for every download.
        "late": (State.ACCEPTED, None),
        "wrong": (State.FAILED, "checksum"), "gone": (State.FAILED, "download"),
        "html": (State.FAILED, "invalid-archive"), "empty": (State.FAILED, "no-artifact"),
    }
    assert resolution.other_errors == ()  # "fatalError" says nothing of its own
    errors = {f.subject: f for f in findings(resolution, wanted) if f.severity is Severity.ERROR}
    assert set(errors) == {"wrong", "gone", "html", "empty"}
    assert all(f.code == "resolve-failed" for f in errors.values())
    assert errors["gone"].message.endswith("badResponseStatusCode(404)")
    assert errors["gone"].line == 13 and errors["gone"].file == "Package.swift"


def test_an_error_naming_no_target_leaves_the_unreached_ones_unproven():
    wanted = targets("good", "never")
    output = (f"Downloading binary artifact {U}good-1.2.3.zip\n"
              "error: 'dependency': Invalid manifest\n")
    resolution = interpret("Package.swift", wanted, 1, output)
    assert [t.state for t in resolution.targets] == [State.ACCEPTED, State.NOT_REACHED]
    (error,) = [f for f in findings(resolution, wanted) if f.severity is Severity.ERROR]
    assert error.code == "resolve-error"
    assert "Invalid manifest" in error.message and "not reached: never" in error.message


def test_a_url_no_target_computes_is_reported():
    wanted = targets("good")
    output = f"Downloading binary artifact {U}elsewhere.zip\nDownloaded {U}elsewhere.zip (0.1s)\n"
    resolution = interpret("Package.swift", wanted, 0, output)
    codes = [f.code for f in findings(resolution, wanted)]
    assert codes == ["resolved", "resolve-error"]
    assert resolution.unknown_urls == (f"{U}elsewhere.zip",)


def test_error_kinds_follow_swiftpms_wording():
    assert error_kind("failed extracting 'x' which is required by binary target 'a': y") == \
        "extract"
    assert error_kind("artifact of binary target 'a' has changed checksum; this is") == \
        "checksum-changed"
    assert error_kind("something new") == "other"


def test_a_compiler_error_in_the_manifest_carries_its_line():
    wanted = targets("good")
    output = ("error: Invalid manifest (compiled with: [\"/usr/bin/swiftc\", \"-L\", \"x\"])\n"
              "/tmp/swiftpm-guard.AB/package/dependency/Package.swift:37:28: error: use [:] to "
              "get an empty dictionary literal\n")
    resolution = interpret("Package.swift.template", wanted, 1, output)
    (error,) = [f for f in findings(resolution, wanted) if f.severity is Severity.ERROR]
    assert (error.file, error.line) == ("Package.swift.template", 37)
    assert "compiled with" not in error.message
    assert "use [:] to get an empty dictionary literal" in error.message


@given(st.text(), st.integers(min_value=0, max_value=255))
def test_any_output_gives_one_outcome_per_target(output, code):
    wanted = targets("a", "b")
    resolution = interpret("Package.swift", wanted, code, output)
    assert [t.name for t in resolution.targets] == ["a", "b"]
    assert all(f.code in {"resolved", "resolve-failed", "resolve-error"}
               for f in findings(resolution, wanted))
