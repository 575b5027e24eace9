"""The static gate against the real SwiftPM (issue 31): the tools-version lines it accepts are
read by SwiftPM as written, the ones it refuses SwiftPM refuses too (or reads only in some
supported versions); and with SwiftPM, SwiftPM decides what the gate could not."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import Rendered, Template
from swiftpm_guard.core.static_gate import tools_version_findings

pytestmark = pytest.mark.slow

SHA = "a" * 64
BODY = """import PackageDescription
let package = Package(
  name: "p",
  targets: [
{targets}
  ]
)
"""
BINARY = ('    .binaryTarget(name: "a", url: "https://example.com/a-1.0.0.zip", '
          f'checksum: "{SHA}"),')
ACCEPTED = {"5.3": "5.3.0", "5.9": "5.9.0", " 5.10": "5.10.0", "6.0": "6.0.0",
            "5.9.2": "5.9.2"}
#: Refused by the gate and by SwiftPM 6.0.3 itself.
REFUSED = {"missing": None, "bom": "\ufeff// swift-tools-version:5.9",
           "trailing text": "// swift-tools-version:5.9 foo",
           "space before 5.3": "// swift-tools-version: 5.3",
           "5.2": "// swift-tools-version:5.2", "99.0": "// swift-tools-version:99.0"}


def package(tmp_path: Path, first_line: str | None) -> tuple[Path, str]:
    folder = tmp_path / f"p{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    text = (f"{first_line}\n" if first_line is not None else "") + \
        BODY.format(targets=BINARY)
    (folder / "Package.swift").write_text(text, encoding="utf-8")
    return folder, text


def swiftpm(swift: str, folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([swift, "package", *command], cwd=folder, capture_output=True,
                          text=True, timeout=300, check=False)


def gate_accepts(text: str) -> bool:
    item = Rendered(Template("Package.swift", text, "placeholder"), text, (), True)
    return tools_version_findings(item) == []


@pytest.mark.parametrize("version", list(ACCEPTED))
def test_a_line_the_gate_accepts_is_read_by_swiftpm_as_written(swift, tmp_path, version):
    folder, text = package(tmp_path, f"// swift-tools-version:{version}")
    assert gate_accepts(text)
    read = swiftpm(swift, folder, "tools-version")
    assert (read.returncode, read.stdout.strip()) == (0, ACCEPTED[version]), read.stderr
    if version in ("5.3", "6.0"):  # the bounds: SwiftPM evaluates the binary target
        dumped = swiftpm(swift, folder, "dump-package")
        assert dumped.returncode == 0, dumped.stderr
        assert json.loads(dumped.stdout)["targets"][0]["type"] == "binary"


@pytest.mark.parametrize("line", list(REFUSED.values()), ids=list(REFUSED))
def test_a_line_the_gate_refuses_swiftpm_refuses_too(swift, tmp_path, line):
    folder, text = package(tmp_path, line)
    assert not gate_accepts(text)
    assert swiftpm(swift, folder, "dump-package").returncode != 0


def test_lines_the_gate_refuses_though_swiftpm_6_0_3_reads_them(swift, tmp_path):
    # Narrower than SwiftPM on purpose: 6.0.1 is read by 6.0.3 but not by an earlier 6.0, and
    # a leading zero reads as 5.9 only by accident of Int parsing.
    for line, read_as in (("// swift-tools-version:6.0.1", "6.0.1"),
                          ("// swift-tools-version:05.9", "5.9.0")):
        folder, text = package(tmp_path, line)
        assert not gate_accepts(text)
        assert swiftpm(swift, folder, "tools-version").stdout.strip() == read_as


IF_FALSE = """// swift-tools-version:5.9
import PackageDescription
var targets: [Target] = []
#if false
targets.append(.binaryTarget(name: "a", url: "https://example.com/a-__VERSION__.zip",
                             checksum: "__SHA256_a__"))
#endif
let package = Package(name: "p", targets: targets)
"""


def test_with_swiftpm_if_false_is_decided_by_swiftpm(swift, swift_cache, tmp_path):
    template = tmp_path / "Package.swift.template"
    template.write_text(IF_FALSE)
    sums = tmp_path / "checksums.txt"
    sums.write_text(f"a {SHA}\n")
    out = tmp_path / "report.json"
    code = main(["check", "--template", str(template), "--version", "1.0.0", "--checksums",
                 str(sums), "--swift", swift, "--swift-cache", str(swift_cache),
                 "--json", str(out), "-q"])
    report = json.loads(out.read_text())

    assert code == 1 and report["proof"] == "swiftpm"
    assert [f for f in report["findings"] if f["code"] == "needs-swiftpm"] == []
    assert report["unclaimed"] == ["a"]  # SwiftPM evaluates no binary target 'a'
