"""--download-growth-limit and --attestation-subjects on the command line (issue 35)."""

import hashlib

from swiftpm_guard.cli.main import main


def _args(release, *extra):
    return ["check", "--template", str(release.template), "--version", release.version,
            "--accept-static", "--swift", "off", "--config", "none", *extra]


def test_a_bad_limit_is_one_line_exit_2(release, capsys):
    assert main(_args(release, "--artifacts", str(release.artifacts),
                      "--download-growth-limit", "lots")) == 2
    err = capsys.readouterr().err
    assert err == ("swiftpm-guard: error: --download-growth-limit 'lots' is not a share (25%) "
                   "or a size (500MB, 1.5GB, 200MiB)\n")


def test_the_limit_comes_from_the_configuration_file_too(release, tmp_path, capsys):
    config = tmp_path / "guard.yml"
    config.write_text("download-growth-limit: 20%\n")
    report = tmp_path / "r.json"
    args = [*_args(release, "--artifacts", str(release.artifacts), "--json", str(report))]
    args[args.index("none")] = str(config)
    assert main(args) == 0
    assert '"limit": "20%"' in report.read_text()
    capsys.readouterr()


def test_subjects_need_built_zips(release, tmp_path, capsys):
    out = tmp_path / "subjects.txt"
    assert main(_args(release, "--frameworks", "executorch",
                      "--attestation-subjects", str(out))) == 2
    assert "--attestation-subjects names built zips" in capsys.readouterr().err
    assert not out.exists()


def test_render_writes_subjects_for_a_checksums_file_and_the_manifest(release, tmp_path,
                                                                      capsys):
    out, manifest = tmp_path / "subjects.txt", tmp_path / "Package.swift"
    args = _args(release, "--checksums", str(release.checksums), "--output", str(manifest),
                 "--attestation-subjects", str(out))
    assert main(["render", *args[1:]]) == 0
    capsys.readouterr()
    # A checksums line `<name> <sha256>` names no file: the zip is `<name>-<version>.zip`.
    expected = [f"{digest}  {name}-{release.version}.zip"
                for name, digest in sorted(release.checksum_of.items())]
    digest = hashlib.sha256(manifest.read_bytes()).hexdigest()
    assert out.read_text().splitlines() == [*expected, f"{digest}  Package.swift"]
