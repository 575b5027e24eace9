"""Rendering is pure substitution: every byte that is not a placeholder stays as it was."""

import filecmp
import importlib.util
from pathlib import Path

import pytest

from swiftpm_guard.cli.main import main

ROOT = Path(__file__).resolve().parents[3]


def naive_substitution(text: str, version: str, checksums: dict[str, str]) -> str:
    # The oracle: plain str.replace per full token, longest names first so no token is split.
    text = text.replace("__VERSION__", version)
    for name in sorted(checksums, key=len, reverse=True):
        text = text.replace(f"__SHA256_{name}__", checksums[name])
    return text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("trailing", [True, False])
def test_render_equals_pure_substitution(release, tmp_path, newline, trailing):
    text = release.template.read_text().replace("\n", newline)
    if not trailing:
        text = text.rstrip(newline)
    release.template.write_bytes(text.encode())
    out = tmp_path / "Package.swift"
    assert main(["render", "--template", str(release.template), "--version", "1.2.3",
                 "--checksums", str(release.checksums), "--output", str(out), "-q", "--accept-static"]) == 0
    expected = naive_substitution(text, "1.2.3", release.checksum_of).encode()
    assert out.read_bytes() == expected
    assert out.read_bytes().endswith(newline.encode()) is trailing


def test_bundled_example_is_what_the_generator_makes(tmp_path):
    spec = importlib.util.spec_from_file_location("make_example", ROOT / "scripts/make-example.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(tmp_path / "release")
    compared = filecmp.dircmp(ROOT / "examples" / "release", tmp_path / "release")

    def differences(cmp):
        found = cmp.left_only + cmp.right_only + cmp.diff_files
        return found + [d for sub in cmp.subdirs.values() for d in differences(sub)]

    assert differences(compared) == []
