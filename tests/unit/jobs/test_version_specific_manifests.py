"""`check` and `render` on a template folder that holds version-specific manifests (issue 24):
SwiftPM may read a `Package@swift-X.Y.swift` instead of `Package.swift`, so every one beside
the named template is rendered and checked with it."""

import json
import re

import pytest

from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, template_text, write_release
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import Severity
from swiftpm_guard.errors import InputError
from swiftpm_guard.jobs.check import CheckRequest, check


def _request(release, **extra):
    # Which manifests are read and claimed is the point, not SwiftPM: a static reading.
    return CheckRequest(templates=(str(release.template),), version=release.version,
                        checksums=(str(release.checksums),), accept_static=True, **extra)


def _errors(report):
    return sorted((f.code, f.subject, f.file.rsplit("/", 1)[-1]) for f in report.findings
                  if f.severity is Severity.ERROR)


def _rendered(release):
    """The release's manifest as render writes it: real checksums, no placeholder."""
    out = release.root / "rendered.swift"
    assert main(["render", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--output", str(out), "--quiet", "--accept-static"]) == 0
    return out.read_text()


def test_a_version_specific_template_beside_the_template_is_rendered_and_checked(release):
    variant = release.template.with_name("Package@swift-6.0.swift.template")
    variant.write_text(template_text(PRODUCT_KEYS, (*BINARY_ONLY_KEYS, "pthreadpool")))
    result = check(_request(release))
    assert [t.path.rsplit("/", 1)[-1] for t in result.report.templates] == [
        "Package.swift.template", "Package@swift-6.0.swift.template"]
    # Package.swift is fine; what SwiftPM 6 would read instead asks for a name nobody built.
    assert _errors(result.report) == [
        ("unfilled-placeholder", "pthreadpool", "Package@swift-6.0.swift.template"),
        ("unfilled-placeholder", "pthreadpool_debug", "Package@swift-6.0.swift.template")]
    assert "__SHA256_executorch__" not in result.rendered[1].text
    reads = [r.plain() for r in result.sources.reads]
    assert any("Package@swift-6.0.swift.template" in r for r in reads), reads


def test_render_writes_every_manifest_into_the_folder(release, tmp_path):
    variant = release.template.with_name("Package@swift-6.0.swift.j2")
    jinja = re.sub(r"__SHA256_(\w+)__", r"{{ checksums['\1'] }}", release.template.read_text())
    variant.write_text(jinja.replace("__VERSION__", "{{ version }}"))
    out = tmp_path / "out"
    out.mkdir()
    assert main(["render", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--output", str(out), "--quiet", "--accept-static"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["Package.swift", "Package@swift-6.0.swift"]
    assert "__SHA256_" not in (out / "Package@swift-6.0.swift").read_text()


def test_render_into_one_file_is_refused_when_there_are_several(release, tmp_path, capsys):
    release.template.with_name("Package@swift-6.0.swift.template").write_bytes(
        release.template.read_bytes())
    out = tmp_path / "Package.swift"
    code = main(["render", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--output", str(out), "--quiet", "--accept-static"])
    assert code == 2 and not out.exists()
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "several templates need an existing folder" in error
    assert "Package.swift, Package@swift-6.0.swift" in error


def test_a_placeholder_left_in_a_plain_version_specific_manifest_is_exit_2(release, tmp_path,
                                                                            capsys):
    plain = release.template.with_name("Package@swift-6.0.swift")
    plain.write_bytes(release.template.read_bytes())  # placeholders and all
    report = tmp_path / "report.json"
    code = main(["check", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--json", str(report)])
    assert code == 2 and not report.exists()
    line = next(i for i, text in enumerate(plain.read_text().splitlines(), 1)
                if "__VERSION__" in text)
    [error] = capsys.readouterr().err.strip().splitlines()
    assert f"{plain}:{line}: '__VERSION__' (a placeholder) is in a version-specific " in error
    assert "rename it Package@swift-6.0.swift.template to have it rendered" in error


def test_a_plain_version_specific_manifest_is_checked_as_it_is_published(release):
    plain = release.template.with_name("Package@swift-5.9.swift")
    plain.write_text(_rendered(release))
    result = check(_request(release))
    assert result.report.consistent, _errors(result.report)
    assert result.rendered[1].text == plain.read_text()  # published byte for byte
    # Its binary targets are what it asks for: the stub folders belong to its products too.
    assert result.report.templates[1].binary_targets == 20
    assert result.report.templates[1].products == 18


def test_a_plain_manifest_from_another_release_is_an_error_where_checksums_are_known(tmp_path):
    old = write_release(tmp_path / "old", version="1.2.2")
    new = write_release(tmp_path / "new", version="1.2.3")
    stale = _rendered(old).replace('"1.2.2"', '"1.2.3"')
    for name, checksum in old.checksum_of.items():  # another build's bytes, same names
        new.checksum_of[name] = checksum.replace(checksum[:8], "0" * 8)
    new.checksums.write_text("".join(f"{n} {c}\n" for n, c in new.checksum_of.items()))
    new.template.with_name("Package@swift-5.9.swift").write_text(stale)
    report = check(_request(new)).report
    assert {code for code, _name, _file in _errors(report)} == {"checksum-mismatch"}
    assert len(_errors(report)) == 20
    mismatch = next(f for f in report.findings if f.code == "checksum-mismatch")
    assert "is published as it is, with every version" in mismatch.message
    assert "make it a template (Package@swift-5.9.swift.template)" in mismatch.message
    # A pull request compares names only: the same file is fine there.
    names = CheckRequest(templates=(str(new.template),), version=None,
                         frameworks=(",".join((*PRODUCT_KEYS, *BINARY_ONLY_KEYS)),),
                         accept_static=True)
    assert check(names).report.consistent


def test_a_plain_manifest_that_declares_an_unbuilt_target_says_so(release):
    text = _rendered(release).replace('"threadpool"', '"pthreadpool"')
    release.template.with_name("Package@swift-6.0.swift").write_text(text)
    report = check(_request(release)).report
    assert ("unfilled-placeholder", "pthreadpool", "Package@swift-6.0.swift") in _errors(report)
    finding = next(f for f in report.findings if f.subject == "pthreadpool")
    assert "(published as it is) declares binary target 'pthreadpool'" in finding.message


def test_a_manifest_named_only_by_swiftpms_loose_pattern_is_refused(release):
    release.template.with_name("Package@swift-6_swift").write_text("// not a manifest\n")
    with pytest.raises(InputError, match="Package@swift-6_swift: SwiftPM takes"):
        check(_request(release))


def test_a_symlink_by_a_manifests_name_is_refused(release):
    release.template.with_name("Package@swift-6.0.swift").symlink_to(release.template.name)
    with pytest.raises(InputError, match="a symlink by a manifest's name is not followed"):
        check(_request(release))


def test_the_report_lists_every_template(release, tmp_path):
    release.template.with_name("Package@swift-6.0.swift.template").write_bytes(
        release.template.read_bytes())
    out = tmp_path / "report.json"
    assert main(["check", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--json", str(out), "--quiet", "--accept-static"]) == 0
    paths = [t["path"] for t in json.loads(out.read_text())["templates"]]
    assert [p.rsplit("/", 1)[-1] for p in paths] == ["Package.swift.template",
                                                    "Package@swift-6.0.swift.template"]
