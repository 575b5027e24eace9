import json
import subprocess
import sys

import pytest

from support.release import PRODUCT_KEYS, write_release
from swiftpm_guard.cli.check import manifest_name
from swiftpm_guard.cli.main import main


def args_for(release, *extra):
    # These are about the command line, not SwiftPM: a static reading is accepted.
    return ["--template", str(release.template), "--version", release.version,
            "--accept-static", *extra]


def test_check_writes_stable_json_and_markdown(release, tmp_path, capsys):
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    code = main(["check", *args_for(release, "--artifacts", str(release.artifacts),
                                    "--json", str(out_json), "--markdown", str(out_md))])
    assert code == 0
    report = json.loads(out_json.read_text())
    old_keys = [
        "consistent", "version", "template", "templates", "placeholders", "built", "unfilled",
        "unclaimed", "products", "binary_targets", "counts_source", "findings", "swiftpm",
    ]
    # Keys are only ever added (schema 1.x): the old ones keep their order.
    assert [k for k in report if k in old_keys] == old_keys
    assert list(report)[:3] == ["schema_version", "kind", "tool"]
    assert report["tool"]["name"] == "swiftpm-guard" and report["kind"] == "check"
    assert report["consistent"] is True and report["placeholders"] == sorted(report["built"])
    assert (report["products"], report["binary_targets"]) == (None, 20)  # no roles in text
    assert report["proof"] == "static"
    assert set(report["checksums"]) == set(report["built"]) and report["declared"] == []
    origin = report["origins"]["executorch_debug"]
    assert origin["kind"] == "zip" and origin["file"].endswith("executorch_debug-1.2.3.zip")
    markdown = out_md.read_text()
    # All sound: every row is folded under <details>, headed, with the name in a code span.
    assert "<details><summary>20 names asked for and built (no problem)</summary>" in markdown
    assert "| `executorch_debug` | ✓ | ✓ |  |" in markdown
    assert "| name | asked by a template | built | note |" in markdown
    assert "consistent for 1.2.3" in capsys.readouterr().out


def test_render_blocks_writes_nothing_but_draft_and_reports(tmp_path, capsys):
    release = write_release(tmp_path / "r", built=PRODUCT_KEYS)  # threadpool not built
    out, draft, report = tmp_path / "Package.swift", tmp_path / "draft.swift", tmp_path / "r.json"
    code = main(["render", *args_for(release, "--artifacts", str(release.artifacts),
                                     "--output", str(out), "--draft", str(draft),
                                     "--json", str(report))])
    assert code == 1
    assert not out.exists()
    assert "__SHA256_threadpool__" in draft.read_text()
    data = json.loads(report.read_text())
    assert data["unfilled"] == ["threadpool", "threadpool_debug"]
    finding = data["findings"][0]
    assert set(finding) == {"code", "severity", "subject", "file", "line", "message", "ref", "fix"}
    err = capsys.readouterr().err
    assert f"{release.template}:" in err and "unfilled-placeholder" in err


def test_render_keeps_existing_output_untouched_on_findings(tmp_path):
    release = write_release(tmp_path / "r", built=PRODUCT_KEYS)
    out = tmp_path / "Package.swift"
    out.write_text("previous manifest\n")
    assert main(["render", *args_for(release, "--artifacts", str(release.artifacts),
                                     "--output", str(out))]) == 1
    assert out.read_text() == "previous manifest\n"


def test_render_with_only_declared_names_cannot_fill_checksums(release, tmp_path):
    out = tmp_path / "Package.swift"
    names = ",".join((*PRODUCT_KEYS, "threadpool"))
    assert main(["check", *args_for(release, "--frameworks", names)]) == 0
    assert main(["render", *args_for(release, "--frameworks", names,
                                     "--output", str(out))]) == 1
    assert not out.exists()


def test_several_templates_render_into_a_folder(release, tmp_path):
    variant = release.template.with_name("Package@swift-5.9.swift.template")
    variant.write_bytes(release.template.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    code = main(["render", "--template", str(release.template), "--template", str(variant),
                 "--version", release.version, "--checksums", str(release.checksums),
                 "--output", str(out), "--accept-static"])
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["Package.swift", "Package@swift-5.9.swift"]


def test_manifest_names():
    from pathlib import Path

    assert manifest_name(Path("x/Package.swift.template")) == "Package.swift"
    assert manifest_name(Path("Package@swift-5.9.swift.j2")) == "Package@swift-5.9.swift"


@pytest.mark.parametrize(("argv", "needle"), [
    (["check", "--version", "1.0.0", "--frameworks", "a"], "--template"),
    (["check", "--template", "T", "--version", "1.0.0"], "at least one source"),
    (["check", "--template", "T", "--version", "1.0.0;rm -rf /", "--frameworks", "a"],
     "not a safe version"),
    (["check", "--template", "T", "--version", "../x", "--frameworks", "a"], "not a safe"),
    (["check", "--template", "T", "--version", "1.0.0", "--frameworks", "a", "--warn", "nope"],
     "not a finding code"),
    (["check", "--template", "missing.template", "--version", "1.0.0", "--frameworks", "a"],
     "missing.template: template not found"),
    (["check", "--template", "T", "--version", "1.0.0", "--debug-suffix", "-d",
      "--frameworks", "a"], "--debug-suffix"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_usage_is_one_line_exit_2(argv, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "T").write_text('"__VERSION__"\n')
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and needle in captured.err
    assert list(tmp_path.iterdir()) == [tmp_path / "T"]


def test_a_bug_prints_its_traceback_through_the_door_and_exits_3(release, capsys, monkeypatch):
    """Anything that is not a GuardError is a bug: not "error findings" (exit 1) but 3, with
    the traceback on stderr, every line of it neutralised (it quotes the failing value)."""
    from swiftpm_guard.cli import check as cli_check

    def broken(_args, _adapters):
        raise RuntimeError("a value\n::error::from the template")

    monkeypatch.setattr(cli_check, "run", broken)
    assert main(["check", *args_for(release)]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert "RuntimeError: a value" in lines and ": :error: :from the template" in lines
    assert lines[-1] == ("swiftpm-guard: internal error (a bug): RuntimeError: a value "
                         ": :error: :from the template")
    assert not any(line.startswith("::") or "::error" in line for line in lines)


def test_bad_input_writes_no_reports(release, tmp_path):
    bad = tmp_path / "sums.txt"
    bad.write_text("executorch\n")
    out = tmp_path / "r.json"
    assert main(["check", *args_for(release, "--checksums", str(bad), "--json", str(out))]) == 2
    assert not out.exists()


def test_module_entry_point_and_codes():
    result = subprocess.run([sys.executable, "-m", "swiftpm_guard", "codes"],
                            capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 0
    assert "unfilled-placeholder" in result.stdout and "zip-layout" in result.stdout


def test_render_creates_a_missing_output_folder(release, tmp_path, capsys):
    out = tmp_path / "new" / "dir" / "Package.swift"
    assert main(["render", *args_for(release, "--artifacts", str(release.artifacts),
                                     "--output", str(out))]) == 0
    assert out.read_text().startswith("// swift-tools-version")


def test_render_into_a_file_names_that_file_not_a_temporary(release, tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code = main(["render", *args_for(release, "--artifacts", str(release.artifacts),
                                     "--output", str(blocker / "Package.swift"))])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"{blocker}: is not a folder, cannot write Package.swift into it" in err
    assert ".Package.swift." not in err  # no temporary file name


def test_help_has_no_docstring_and_ends_with_exit_codes(capsys):
    for argv in (["--help"], ["check", "--help"], ["publish", "--help"], ["schema", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert "Command line: argparse" not in out and "GuardError" not in out
        assert out.rstrip().endswith("3  broken infrastructure (git, the network, SwiftPM), "
                                     "or a bug (with its traceback)")
        assert "2  bad usage or unreadable input" in out


def test_a_missing_subcommand_is_one_line_without_a_doubled_prefix(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.count("swiftpm-guard:") == 1
    assert "required: COMMAND" in err and "--help" in err
    assert main(["check", "--nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("swiftpm-guard: error: check: ") and err.count("swiftpm-guard:") == 1


def test_schema_prints_each_shipped_schema(capsys):
    for kind in ("check", "audit"):
        assert main(["schema", kind]) == 0
        schema = json.loads(capsys.readouterr().out)
        assert schema["$schema"].endswith("2020-12/schema")
        assert schema["properties"]["kind"]["const"] == kind
