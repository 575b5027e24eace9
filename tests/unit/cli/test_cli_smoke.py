from support.release import Release
from swiftpm_guard.cli.main import main


def test_consistent_release_renders_without_placeholders(release: Release, tmp_path):
    out = tmp_path / "Package.swift"
    code = main(["render", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts), "--output", str(out), "--accept-static"])
    assert code == 0
    text = out.read_text()
    assert "__SHA256_" not in text and "__VERSION__" not in text
    for checksum in release.checksum_of.values():
        assert f'"{checksum}"' in text
