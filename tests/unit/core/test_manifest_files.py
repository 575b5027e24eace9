"""Which files SwiftPM reads as a package's manifest, and which template-ref files make them
(issue 24: a `Package@swift-6.0.swift` was published unchecked)."""

import re

import pytest

from swiftpm_guard.core.manifest_files import (
    ManifestSet,
    check_verbatim,
    is_manifest_name,
    is_version_specific,
    manifest_of,
    manifest_set,
)
from swiftpm_guard.errors import InputError


@pytest.mark.parametrize("name", [
    "Package@swift-6.swift", "Package@swift-6.0.swift", "Package@swift-6.0.3.swift",
    "Package@swift-5.10.swift", "Package@swift-06.swift", "Package@swift-999.swift",
])
def test_names_swiftpm_reads_as_version_specific(name):
    # SwiftPM 6.0.3's pattern: Package@swift-(\d+)(\.(\d+))?(\.(\d+))?.swift, whole name.
    assert is_version_specific(name) and is_manifest_name(name)


@pytest.mark.parametrize("name", [
    "Package@swift-6.0.3.1.swift", "Package@swift-6.0-beta.swift", "package@swift-6.0.swift",
    "Package@swift-6.0.swift.template", "Package@swift-.swift", "Package@swift-6.0.swift ",
    "Package@swift-6_swift", "Package.swift.template",
])
def test_names_it_does_not(name):
    assert not is_version_specific(name)


def test_manifest_of_drops_a_template_suffix_and_keeps_a_manifest():
    assert manifest_of("Package@swift-6.0.swift.j2") == "Package@swift-6.0.swift"
    assert manifest_of("x/Package@swift-6.0.swift.template") == "x/Package@swift-6.0.swift"
    assert manifest_of("x/Package@swift-6.0.swift") == "x/Package@swift-6.0.swift"


FILES = [(path, "file") for path in (
    "Package.swift.template", "Package@swift-6.0.swift.template", "Package@swift-5.9.swift",
    "Package@swift-6.1.swift.j2", "README.md", "Package@swift-6.0.3.1.swift",
    "Sources/Package@swift-6.0.swift", ".Package.swift/executorch/dummy.swift",
)]


def test_every_version_specific_template_and_manifest_beside_package_swift_is_taken():
    found = manifest_set(["Package.swift.template"], FILES)
    assert found == ManifestSet(
        templates=("Package.swift.template", "Package@swift-6.0.swift.template",
                   "Package@swift-6.1.swift.j2"),
        verbatim=("Package@swift-5.9.swift",))
    assert found.paths[0] == "Package.swift.template"  # the named template stays first


def test_only_beside_a_package_swift_template_and_only_in_its_folder():
    sub = [(f"sub/{path}", kind) for path, kind in FILES]
    assert manifest_set(["sub/Package.swift.template"], FILES + sub).templates == (
        "sub/Package.swift.template", "sub/Package@swift-6.0.swift.template",
        "sub/Package@swift-6.1.swift.j2")
    # A template named on its own is checked alone: it is no package root's Package.swift.
    assert manifest_set(["Package@swift-6.0.swift.template"], FILES) == ManifestSet(
        ("Package@swift-6.0.swift.template",))


def test_a_template_wins_over_the_manifest_of_its_name_as_package_swift_template_does():
    files = [("Package.swift.template", "file"), ("Package@swift-6.0.swift", "file"),
             ("Package@swift-6.0.swift.template", "file")]
    assert manifest_set(["Package.swift.template"], files) == ManifestSet(
        ("Package.swift.template", "Package@swift-6.0.swift.template"))


def test_a_name_given_twice_is_read_once():
    files = [("Package.swift.template", "file"), ("Package@swift-6.0.swift.template", "file")]
    named = ["Package.swift.template", "Package@swift-6.0.swift.template"]
    assert manifest_set(named, files).templates == tuple(named)


def test_two_templates_for_one_manifest_are_refused():
    files = [("Package.swift.template", "file"), ("Package@swift-6.0.swift.template", "file"),
             ("Package@swift-6.0.swift.j2", "file")]
    with pytest.raises(InputError, match=re.escape(
            "two templates for Package@swift-6.0.swift: Package@swift-6.0.swift.j2 and "
            "Package@swift-6.0.swift.template")):
        manifest_set(["Package.swift.template"], files)


@pytest.mark.parametrize("kind", ["symlink", "submodule"])
@pytest.mark.parametrize("name", ["Package@swift-6.0.swift", "Package@swift-6.0.swift.template"])
def test_a_link_or_submodule_by_a_manifests_name_is_refused(kind, name):
    files = [("Package.swift.template", "file"), (name, kind)]
    with pytest.raises(InputError, match=re.escape(f"{name}: a {kind} by a manifest's name is "
                                                   "not followed")):
        manifest_set(["Package.swift.template"], files)


def test_a_folder_by_a_manifests_name_is_not_a_manifest():
    files = [("Package.swift.template", "file"), ("Package@swift-6.0.swift", "dir")]
    assert manifest_set(["Package.swift.template"], files).verbatim == ()


def test_a_name_only_swiftpms_loose_pattern_takes_is_refused():
    # SwiftPM 6.0.3 reads `Package@swift-6_swift` (its '.' is unescaped) and then fails.
    files = [("Package.swift.template", "file"), ("Package@swift-6_swift", "file")]
    with pytest.raises(InputError, match=r"^Package@swift-6_swift: SwiftPM takes"):
        manifest_set(["Package.swift.template"], files)


def test_a_verbatim_manifest_without_placeholders_passes():
    check_verbatim("Package@swift-6.0.swift", '// swift-tools-version:6.0\nlet version = "1"\n')


@pytest.mark.parametrize(("text", "value", "line"), [
    ('let x = 1\nlet c = "__SHA256_executorch__"\n', "__SHA256_executorch__", 2),
    ('let x = 1\r\n\r\nlet version = "__VERSION__"\n', "__VERSION__", 3),
    ('// __SHA256_threadpool_\n', "__SHA256_threadpool_", 1),
])
def test_a_placeholder_left_in_a_verbatim_manifest_is_refused_naming_file_line_value(
        text, value, line):
    with pytest.raises(InputError) as raised:
        check_verbatim("sub/Package@swift-6.0.swift", text)
    message = str(raised.value)
    assert message.startswith(f"sub/Package@swift-6.0.swift:{line}: '{value}'")
    assert "rename it Package@swift-6.0.swift.template to have it rendered" in message
    assert "\n" not in message
