"""Reading names, checksums, version and base URL back out of published manifests."""

from support.published import BranchSpec, checksum_for
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names
from swiftpm_guard.core.audit import base_url_in, read_published
from swiftpm_guard.core.model import Role

HEX = "ab" * 32


def test_release_shape_names_every_checksum_with_its_debug_twin_and_role():
    spec = BranchSpec("1.2.3")
    manifest = read_published(spec.manifest())
    names = [s.name for s in manifest.sites]
    assert sorted(names) == sorted(all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]))
    assert {s.name: s.value for s in manifest.sites} == spec.checksum_of()
    roles = {s.name: s.role for s in manifest.sites}
    assert roles["threadpool_debug"] is Role.BINARY_ONLY
    assert roles["backend_coreml_debug"] is Role.PRODUCT
    assert (manifest.version, manifest.version_line) == ("1.2.3", 5)
    assert manifest.base_url == "https://example.invalid/frameworks/"


def test_placeholder_left_keeps_its_name_and_line():
    spec = BranchSpec("1.2.3", built=[k for k in (*PRODUCT_KEYS, *BINARY_ONLY_KEYS)
                                      if k != "kernels_llm"])
    text = spec.manifest()
    site = next(s for s in read_published(text).sites if s.name == "kernels_llm_debug")
    assert site.value == "__SHA256_kernels_llm_debug__"
    assert text.splitlines()[site.line - 1].strip().startswith('"sha256" + debug_suffix')


def test_direct_binary_targets_and_unnamed_hex_literals():
    text = f'''
let package = Package(
  name: "x",
  targets: [
    .binaryTarget(name: "alpha", url: "https://h/alpha-1.0.0.zip", checksum: "{HEX}"),
    .binaryTarget(
      url: "https://h/beta-1.0.0.zip",
      checksum: "{HEX.upper()}",
      name: "beta"
    ),
  ]
)
// "{HEX}" in a comment is not published
let spare = "{"cd" * 32}"
'''
    sites = read_published(text).sites
    assert [(s.name, s.value, s.line) for s in sites] == [
        ("alpha", HEX, 5), ("beta", HEX.upper(), 8), (None, "cd" * 32, 14)]
    assert all(s.role is Role.UNKNOWN for s in sites[:2])


def test_suffix_literal_and_constant_forms():
    text = '''
let dbg = "_dbg"
let products = [
  "core": [
    "sha256": "''' + "1" * 64 + '''",
    "sha256_debug": "''' + "2" * 64 + '''",
    "sha256" + dbg: "''' + "3" * 64 + '''",
    "sha256" + unknownConstant: "''' + "4" * 64 + '''",
  ],
]
'''
    names = [s.name for s in read_published(text).sites]
    assert names == ["core", "core_debug", "core_dbg", None]


def test_strings_that_only_look_like_code_are_not_read():
    text = ('let version = "2.0.0"\n'
            'let note = "checksum: \\"' + "e" * 64 + '\\" in a string"\n'
            '/* let version = "9.9.9" */\n'
            'let url = "ftp://not-http/"\n')
    manifest = read_published(text)
    assert manifest.sites == ()
    assert manifest.version == "2.0.0"
    assert manifest.base_url is None


def test_cached_shape_gives_each_text_its_own_values():
    first = BranchSpec("0.7.0.20250101").manifest()
    second = BranchSpec("0.7.0.20250102").manifest()
    a, b = read_published(first), read_published(second)
    assert a.version == "0.7.0.20250101" and b.version == "0.7.0.20250102"
    assert a.sites[0].value == checksum_for("executorch", "0.7.0.20250101")
    assert b.sites[0].value == checksum_for("executorch", "0.7.0.20250102")


def test_base_url_in_template_text():
    assert base_url_in('let url = "https://cdn.example/x/"\n') == "https://cdn.example/x/"
    assert base_url_in('let downloadURL: String = "https://a/"\n') == "https://a/"
    assert base_url_in('let url = base + "/x"\n') is None
