"""The audit of published branches that hold version-specific manifests (issue 24): every
`Package@swift-*.swift` SwiftPM may read instead of `Package.swift` is judged like it, its zips
fetched with --verify-urls; a file SwiftPM never reads as a manifest is not."""

import json

import pytest

from support.published import BranchSpec, build_repo
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, write_real_zip
from support.zip_server import Route, serve_zips
from swiftpm_guard.cli.main import main

VARIANT = "Package@swift-6.0.swift"


def _audit(repo, tmp_path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "audit.json"
    code = main(["audit", "--repo", str(repo), "--json", str(out), "-q", *extra])
    return code, json.loads(out.read_text())


def _findings(data) -> list[tuple[str, str, str, str]]:
    return sorted((b["branch"], f["code"], f["subject"], f.get("file") or "")
                  for b in data["branches"] for f in b["findings"] if f["severity"] == "error")


def test_a_placeholder_left_in_a_version_specific_manifest_is_an_error(tmp_path):
    spec = BranchSpec("1.0.0")
    broken = BranchSpec("1.0.0", built=[k for k in (*PRODUCT_KEYS, *BINARY_ONLY_KEYS)
                                        if k != "threadpool"]).manifest()
    spec.extra_files[VARIANT] = broken.encode()
    code, data = _audit(build_repo(tmp_path / "r.git", [spec]), tmp_path)
    assert code == 1
    assert _findings(data) == [
        ("swiftpm-1.0.0", "placeholder-left", "threadpool", VARIANT),
        ("swiftpm-1.0.0", "placeholder-left", "threadpool_debug", VARIANT)]


@pytest.mark.parametrize("name", ["Package@swift-6.0.3.1.swift", "Package@swift-6.0-beta.swift",
                                  "package@swift-6.0.swift"])
def test_a_file_swiftpm_never_reads_as_a_manifest_is_not_audited_as_one(tmp_path, name):
    spec = BranchSpec("1.0.0")
    spec.extra_files[name] = b'let x = "__SHA256_threadpool__"\n'
    code, data = _audit(build_repo(tmp_path / "r.git", [spec]), tmp_path)
    assert code == 0, _findings(data)


def test_verify_urls_fetches_the_version_specific_manifests_zips_too(tmp_path):
    """Package.swift's zips are all hosted; the one binary target only SwiftPM 6 consumers
    get (`pthreadpool`, in Package@swift-6.0.swift) is not: only the variant is wrong."""
    zips = tmp_path / "zips"
    zips.mkdir()
    keys = ("executorch", "threadpool", "pthreadpool")
    checksums = {}
    with serve_zips() as server:
        for key in keys:
            for name in (key, f"{key}_debug"):
                path = zips / f"{name}-1.0.0.zip"
                checksums[name] = write_real_zip(path, name)
                if key != "pthreadpool":
                    server.routes[f"/dl/{path.name}"] = Route(path.read_bytes())
        spec = BranchSpec("1.0.0", products=["executorch"], checksums=checksums)
        variant = BranchSpec("1.0.0", products=["executorch"],
                             binary_only=["threadpool", "pthreadpool"], checksums=checksums)
        spec.extra_files[VARIANT] = variant.manifest().encode()
        code, data = _audit(build_repo(tmp_path / "r.git", [spec]), tmp_path, "--verify-urls",
                            "--base-url", server.url("dl/"), "--url-timeout", "2",
                            "--url-retries", "0")
    assert code == 1
    assert _findings(data) == [
        ("swiftpm-1.0.0", "url-missing", "pthreadpool", VARIANT),
        ("swiftpm-1.0.0", "url-missing", "pthreadpool_debug", VARIANT)]
    assert data["verify_urls"]["urls"] == 6  # each distinct URL fetched once
