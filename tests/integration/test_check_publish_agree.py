"""`check` refuses what `publish` refuses (issue 33): the same sources, one rule set.

Each case builds one release (zips, a checksums file, the workflow's FRAMEWORKS) and one
template, the template both in the working folder (what `check` reads) and on a bare
repository's template branch (what `publish` reads); then `check` and `publish --dry-run` run
on the same sources and must agree on every finding (code, severity, subject). A build that
lacks a zip its FRAMEWORKS declares is the case that used to pass the check (issue 33, 1).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.git_remote import make_bare, refs, update_template
from support.release import (
    BINARY_ONLY_KEYS,
    PRODUCT_KEYS,
    Release,
    write_release,
    write_template_branch,
    write_zip,
)
from swiftpm_guard.cli.main import main

VERSION = "1.2.3"
FRAMEWORKS = "workflow/apple.yml:build-frameworks:FRAMEWORKS"


@dataclass(frozen=True)
class Case:
    name: str
    change: Callable[[Release], None]  # what differs from a sound release
    products: tuple[str, ...] = PRODUCT_KEYS  # what the template asks for
    checksums: bool = False  # give the checksums file too
    #: (code, subject) of every error both must report
    errors: frozenset[tuple[str, str]] = frozenset()


def _nothing(release: Release) -> None:
    del release


def _lose_kernels_llm(release: Release) -> None:
    """The build made no kernels_llm zips though FRAMEWORKS lists it (a partial build)."""
    for name in ("kernels_llm", "kernels_llm_debug"):
        (release.artifacts / f"{name}-{VERSION}.zip").unlink()


def _lose_from_checksums(release: Release) -> None:
    lines = release.checksums.read_text().splitlines(keepends=True)
    release.checksums.write_text("".join(x for x in lines if not x.startswith("threadpool")))
    for name in ("threadpool", "threadpool_debug"):
        (release.artifacts / f"{name}-{VERSION}.zip").unlink()


def _extra_zip(release: Release) -> None:
    write_zip(release.artifacts / f"kernels_extra-{VERSION}.zip", "kernels_extra")


def _other_checksum(release: Release) -> None:
    text = release.checksums.read_text()
    wrong = release.checksum_of["executorch"]
    release.checksums.write_text(text.replace(wrong, "0" * 64, 1))


def _bad_checksum(release: Release) -> None:
    text = release.checksums.read_text()
    release.checksums.write_text(text.replace(release.checksum_of["backend_coreml"], "XYZ", 1))


def _other_version(release: Release) -> None:
    (release.artifacts / f"threadpool-{VERSION}.zip").rename(
        release.artifacts / "threadpool-1.2.2.zip")


ASKS_MORE = (*PRODUCT_KEYS, "kernels_new")
CASES = [
    Case("consistent", _nothing),
    Case("partial build", _lose_kernels_llm,
         errors=frozenset({("missing-checksum", "kernels_llm"),
                           ("missing-checksum", "kernels_llm_debug")})),
    Case("declared, absent from checksums.txt", _lose_from_checksums, checksums=True,
         errors=frozenset({("missing-checksum", "threadpool"),
                           ("missing-checksum", "threadpool_debug")})),
    Case("unfilled placeholder", _nothing, products=ASKS_MORE,
         errors=frozenset({("unfilled-placeholder", "kernels_new"),
                           ("unfilled-placeholder", "kernels_new_debug")})),
    Case("extra zip", _extra_zip,
         errors=frozenset({("unclaimed-artifact", "kernels_extra")})),
    Case("checksum mismatch", _other_checksum, checksums=True,
         errors=frozenset({("conflicting-artifact", "executorch")})),
    Case("bad checksum", _bad_checksum, checksums=True,
         errors=frozenset({("bad-checksum", "backend_coreml"),
                           ("conflicting-artifact", "backend_coreml")})),
    Case("zip of another version", _other_version,
         errors=frozenset({("version-mismatch", "threadpool")})),
]


def _findings(report: Path) -> set[tuple[str, str, str]]:
    return {(f["code"], f["severity"], f["subject"])
            for f in json.loads(report.read_text())["findings"]}


def _sources(case: Case) -> list[str]:
    """Run from the template's folder (both name it `Package.swift.template`)."""
    checksums = ["--checksums", "../checksums.txt"] if case.checksums else []
    return ["--version", VERSION, "--artifacts", "../artifacts", *checksums,
            "--frameworks-from", f"../{FRAMEWORKS}", "--swift", "off", "--accept-static"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_and_publish_agree_on_every_finding(case: Case, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    release = write_release(tmp_path / "release", VERSION,
                            built=[*PRODUCT_KEYS, *BINARY_ONLY_KEYS])
    write_template_branch(release.root / "swiftpm", case.products)
    case.change(release)
    bare = make_bare(tmp_path / "origin.git")
    update_template(bare, products=case.products)
    monkeypatch.chdir(release.root / "swiftpm")

    checked, published = tmp_path / "check.json", tmp_path / "publish.json"
    check_exit = main(["check", "--template", "Package.swift.template", "--json",
                       str(checked), *_sources(case)])
    publish_exit = main(["publish", "--repo", str(bare), "--dry-run", "--json",
                         str(published), *_sources(case)])
    said = capsys.readouterr()

    assert _findings(checked) == _findings(published), said.err
    errors = {(code, subject) for code, severity, subject in _findings(checked)
              if severity == "error"}
    assert errors == case.errors, said.err
    assert check_exit == publish_exit == (1 if case.errors else 0)
    assert not any(ref.startswith("refs/heads/swiftpm-") for ref in refs(bare))


def test_the_partial_build_names_the_frameworks_line_and_the_missing_zip(tmp_path, capsys,
                                                                        monkeypatch):
    release = write_release(tmp_path / "release", VERSION,
                            built=[*PRODUCT_KEYS, *BINARY_ONLY_KEYS])
    _lose_kernels_llm(release)
    monkeypatch.chdir(release.root / "swiftpm")
    report = tmp_path / "check.json"
    assert main(["check", "--template", "Package.swift.template", "--json", str(report),
                 *_sources(CASES[1])]) == 1
    err = capsys.readouterr().err
    workflow = release.workflow.read_text().splitlines()
    line = next(n for n, text in enumerate(workflow, 1) if '"kernels_llm"' in text)
    (finding,) = [f for f in json.loads(report.read_text())["findings"]
                  if f["subject"] == "kernels_llm"]
    shown = "../workflow/apple.yml"
    assert (finding["file"], finding["line"]) == (shown, line)
    assert finding["message"].startswith(
        f"'kernels_llm' is declared at {shown}:{line} but was not built: "
        f"kernels_llm-{VERSION}.zip is missing")
    assert finding["fix"].startswith(f"make the build produce kernels_llm-{VERSION}.zip")
    assert f"FRAMEWORKS in {shown} (job build-frameworks)" in finding["fix"]
    # The log says it too, the fix under the finding.
    assert f"{shown}:{line}: error: missing-checksum: 'kernels_llm' is declared" in err
    assert f"  fix: make the build produce kernels_llm-{VERSION}.zip" in err


def test_a_check_without_zips_still_accepts_declared_names(tmp_path, capsys):
    """No zip source: a pull request's check of the lists, which builds nothing."""
    release = write_release(tmp_path / "release", VERSION)
    assert main(["check", "--template", str(release.template), "--version", VERSION,
                 "--frameworks-from", f"{release.root}/{FRAMEWORKS}", "--swift", "off",
                 "--accept-static"]) == 0
    assert "20 declared (not built), 0 errors" in capsys.readouterr().out
