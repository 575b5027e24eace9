"""Without SwiftPM the text decides only what text decides exactly (core.static_gate, issue 31):
the names asked per exact name and per manifest, the tools-version line, one `let package =
Package(`; everything else is one `needs-swiftpm` per manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swiftpm_guard.cli.main import main
from swiftpm_guard.core.checks import CheckOptions, check
from swiftpm_guard.core.model import Artifact, Location, Rendered, Severity, Template
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.render import render
from swiftpm_guard.core.static_gate import needs_swiftpm, tools_version_findings

SHA = "a" * 64
HEADER = "// swift-tools-version:5.9\nimport PackageDescription\n"


def manifest(body: str, header: str = HEADER) -> str:
    return header + body


def rendered(text: str, path: str = "Package.swift.template") -> Rendered:
    return render(Template(path=path, text=text, flavour="placeholder"), "1.0.0", {})


def built(*names: str) -> list[Artifact]:
    return [Artifact(n, SHA, Location("checksums.txt", i + 1)) for i, n in enumerate(names)]


def unclaimed(report_findings: tuple, path: str | None = None) -> list[str]:
    return [f.subject for f in report_findings
            if f.code == "unclaimed-artifact" and (path is None or f.file == path)]


# -- (1) names asked: exact names, every manifest on its own ---------------------------------


def test_a_debug_twin_claims_only_itself():
    item = rendered(manifest('let package = Package(name: "p", targets: [.binaryTarget('
                             'name: "a_debug", url: "u", checksum: "__SHA256_a_debug__")])\n'))
    report = check([item], built("a", "a_debug"), CheckOptions(version="1.0.0"))

    assert report.unclaimed == ("a",) and unclaimed(report.findings) == ["a"]
    assert not report.consistent


def test_a_placeholder_in_a_comment_still_asks():
    item = rendered(manifest('// "__SHA256_a__"\nlet package = Package(name: "p")\n'))

    assert [p.name for p in item.placeholders] == ["a"]
    assert check([item], built("a"), CheckOptions(version="1.0.0")).unclaimed == ()


def test_each_manifest_of_a_package_must_claim_every_built_name():
    asks = 'let package = Package(name: "p") // {}\n'
    both = rendered(manifest(asks.format("__SHA256_a__ __SHA256_c__")), "swiftpm/Package.swift.template")
    six = rendered(manifest(asks.format("__SHA256_a__")), "swiftpm/Package@swift-6.0.swift.template")
    report = check([both, six], built("a", "c"), CheckOptions(version="1.0.0"))

    [missed] = [f for f in report.findings if f.code == "unclaimed-artifact"]
    assert (missed.subject, missed.file) == ("c", "swiftpm/Package@swift-6.0.swift.template")
    assert "swiftpm/Package.swift.template asks for it" in missed.message
    assert report.unclaimed == ("c",) and not report.consistent


def test_templates_in_other_folders_are_other_packages():
    one = rendered(manifest('let package = Package(name: "p") // __SHA256_a__\n'), "x/P.template")
    two = rendered(manifest('let package = Package(name: "p") // __SHA256_c__\n'), "y/P.template")

    assert check([one, two], built("a", "c"), CheckOptions(version="1.0.0")).consistent


# -- (2) the tools-version line ----------------------------------------------------------------

BAD_LINES = {
    "missing": "import PackageDescription",
    "bom": "\ufeff// swift-tools-version:5.9",
    "5.2": "// swift-tools-version:5.2",
    "99.0": "// swift-tools-version:99.0",
    "trailing text": "// swift-tools-version:5.9 foo",
    "6.0.1": "// swift-tools-version:6.0.1",
    "5.3 with a space": "// swift-tools-version: 5.3",
    "leading zero": "// swift-tools-version:05.9",
}
GOOD_LINES = ["// swift-tools-version:5.3", "// swift-tools-version:5.9",
              "// swift-tools-version: 5.10", "// swift-tools-version:6.0",
              "// swift-tools-version:6.0.0", "// swift-tools-version:5.9.2"]


@pytest.mark.parametrize("line", list(BAD_LINES.values()), ids=list(BAD_LINES))
def test_a_tools_version_line_supported_swiftpms_do_not_read_alike_is_an_error(line):
    item = rendered(manifest('let package = Package(name: "p")\n', header=line + "\n"))
    [finding] = tools_version_findings(item)

    assert (finding.code, finding.severity, finding.line) == ("tools-version", Severity.ERROR, 1)
    assert "\n" not in finding.message and finding.message.startswith("line 1 ")


@pytest.mark.parametrize("line", GOOD_LINES)
def test_a_plain_tools_version_line_in_range_passes(line):
    for end in ("\n", "\r\n"):
        assert tools_version_findings(rendered(f"{line}{end}let package = Package()\n")) == []


def test_the_check_reports_the_tools_version_whether_swiftpm_runs_or_not():
    item = rendered('import PackageDescription\nlet package = Package(name: "p")\n')
    report = check([item], [], CheckOptions(version="1.0.0", names_only=True))

    assert [f.code for f in report.findings if f.severity is Severity.ERROR] == ["tools-version"]


# -- (3) one `let package = Package(`, and (4) needs-swiftpm ---------------------------------

PLAIN = manifest('let package = Package(name: "p")\n')


@pytest.mark.parametrize(("body", "says"), [
    ('let package = Package(name: "p")\n_ = Package(name: "decoy")\n', "2 `Package(` calls"),
    ('let package = Package.init(name: "p")\n', "not `let package = Package(`"),
    ('let package: Package = .init(name: "p")\n', "no `Package(` call"),
    ('let package = Package(name: "p")\nlet x = Target.init(name: "y")\n', "`.init(` call"),
    ('var package = Package(name: "p")\n', "not `let package = Package(`"),
], ids=["decoy", "Package.init", "dot-init", "other init", "var"])
def test_another_package_initialisation_is_refused_whatever_accept_static_says(body, says):
    for accept in (False, True):
        finding = needs_swiftpm(rendered(manifest(body)), accept_static=accept)
        assert (finding.code, finding.severity) == ("needs-swiftpm", Severity.ERROR)
        assert says in finding.message and "cannot be accepted" in finding.message


def test_a_decoy_is_named_by_its_line():
    finding = needs_swiftpm(rendered(manifest(
        'let package = Package(name: "p")\n_ = Package(name: "decoy")\n')), accept_static=True)
    assert finding.line == 4


def test_any_other_manifest_needs_swiftpm_an_error_unless_a_static_reading_is_accepted():
    error = needs_swiftpm(rendered(PLAIN), accept_static=False)
    warning = needs_swiftpm(rendered(PLAIN), accept_static=True)

    assert (error.code, error.severity) == ("needs-swiftpm", Severity.ERROR)
    assert option("accept-static") in error.message
    assert (warning.code, warning.severity) == ("needs-swiftpm", Severity.WARNING)
    assert "unproven" in warning.message


# -- the check without SwiftPM, end to end ---------------------------------------------------

IF_FALSE = manifest('''var targets: [Target] = []
#if false
targets.append(.binaryTarget(name: "a", url: "https://example.com/a-__VERSION__.zip",
                             checksum: "__SHA256_a__"))
#endif
let package = Package(name: "p", targets: targets)
''')


def run_check(tmp_path: Path, text: str, *extra: str) -> tuple[int, dict]:
    template = tmp_path / "Package.swift.template"
    template.write_text(text)
    sums = tmp_path / "checksums.txt"
    sums.write_text(f"a {SHA}\n")
    out = tmp_path / "report.json"
    code = main(["check", "--template", str(template), "--version", "1.0.0", "--checksums",
                 str(sums), "--swift", "off", "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def test_if_false_around_a_placeholder_needs_swiftpm(tmp_path):
    code, report = run_check(tmp_path, IF_FALSE)

    assert code == 1 and report["proof"] == "static"
    [gate] = [f for f in report["findings"] if f["code"] == "needs-swiftpm"]
    assert gate["severity"] == "error"
    assert "cannot prove" in report["swiftpm"]["reason"]


def test_accept_static_makes_it_a_warning_and_says_unproven(tmp_path, capsys):
    markdown = tmp_path / "report.md"
    code, report = run_check(tmp_path, IF_FALSE, "--accept-static", "--markdown", str(markdown))

    assert code == 0 and report["consistent"] and report["proof"] == "static"
    assert [f["severity"] for f in report["findings"]] == ["warning"]
    assert "unproven" in report["swiftpm"]["reason"]
    assert "Proof: static, the manifests are unproven." in markdown.read_text()
    assert "proof: static (unproven)" in capsys.readouterr().out


def test_a_trailing_decoy_package_is_an_error_with_accept_static(tmp_path):
    code, report = run_check(tmp_path, IF_FALSE.replace("#if false\n", "").replace(
        "#endif\n", "") + '_ = Package(name: "decoy")\n', "--accept-static")

    assert code == 1
    [gate] = [f for f in report["findings"] if f["code"] == "needs-swiftpm"]
    assert gate["severity"] == "error" and "decoy" not in gate["message"]  # the text is not echoed


def test_warn_cannot_soften_needs_swiftpm(tmp_path, capsys):
    code = main(["check", "--template", "T", "--frameworks", "a", "--swift", "off",
                 "--warn", "needs-swiftpm"])

    assert code == 2 and "--accept-static" in capsys.readouterr().err
