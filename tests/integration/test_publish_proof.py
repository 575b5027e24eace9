"""Publish proves the exact commit it built before the branch exists (issue 31): the tree rules
on the commit, a real `git clone` of it holding the checked manifests byte for byte, and with
SwiftPM `dump-package` of that checkout. Every refusal leaves the remote without the branch."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from support.git_remote import GIT, commit_folder, git_env, refs, tree_files
from support.hosted_release import FIXTURE_BASE, serve_release
from support.release import write_real_zip, write_release, write_template_branch
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.names import Identity, Remote
from swiftpm_guard.infra.git import Git
from swiftpm_guard.jobs.commit_proof import Checked, prove_commit
from swiftpm_guard.sinks.git_push import ScratchRepo

AUTHOR = "Release Bot <release-bot@example.invalid>"
BRANCH = "refs/heads/swiftpm-1.2.3"


@pytest.fixture
def release(tmp_path):
    return write_release(tmp_path / "release")


def _publish(remote, release, capsys, tmp_path, *extra: str) -> tuple[int, str, dict]:
    report = tmp_path / "report.json"
    code = main(["publish", "--artifacts", str(release.artifacts), "--version", release.version,
                 "--repo", remote.url, "--author", AUTHOR, "--json", str(report), *extra])
    _out, err = capsys.readouterr()
    document = json.loads(report.read_text()) if report.exists() else {}
    return code, err, document


def _findings(document: dict, code: str) -> list[dict]:
    return [f for f in document["findings"] if f["code"] == code]


def _template_with(remote, files: dict[str, bytes], *, folder: str = "") -> str:
    """The template branch (template and stubs under `folder`) plus `files` (path → bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "swiftpm"
        write_template_branch(root / folder if folder else root)
        for path, data in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        return commit_folder(remote.bare, "swiftpm", root, "template")


def _add_gitlink(bare: Path, path: str) -> None:
    """A submodule entry (mode 160000) in the template branch, as `git submodule add` leaves."""
    tip = refs(bare)["refs/heads/swiftpm"]
    with tempfile.TemporaryDirectory() as tmp:
        env = {**git_env(), "GIT_DIR": str(bare), "GIT_INDEX_FILE": str(Path(tmp) / "index")}

        def run(*args: str) -> str:
            done = subprocess.run([GIT, *args], env=env, capture_output=True, check=True,
                                  timeout=60)
            return done.stdout.decode().strip()

        run("read-tree", tip)
        run("update-index", "--add", "--cacheinfo", f"160000,{tip},{path}")
        commit = run("commit-tree", run("write-tree"), "-p", tip, "-m", "submodule")
        run("update-ref", "refs/heads/swiftpm", commit)


# -- the tree rules: refused, nothing pushed ---------------------------------------------------

ATTRIBUTES = b"Package.swift working-tree-encoding=UTF-16\n"


@pytest.mark.parametrize(("files", "subject"), [
    ({".gitattributes": ATTRIBUTES}, ".gitattributes"),
    ({"docs/.gitattributes": b"* eol=crlf\n"}, "docs/.gitattributes"),
    ({".gitmodules": b'[submodule "x"]\n\tpath = x\n\turl = ../x\n'}, ".gitmodules"),
    ({"R\u00e9sum\u00e9.md": b"hi\n"}, "R\u00e9sum\u00e9.md"),
    # SwiftPM's `\d` takes a fullwidth digit for a version, then traps.
    ({"Package@swift-\uff16.swift": b"// swift-tools-version:6.0\n"},
     "Package@swift-\uff16.swift"),
])
def test_a_tree_a_consumer_would_read_otherwise_is_refused(remote, release, capsys, tmp_path,
                                                         files, subject):
    _template_with(remote, files)
    code, err, document = _publish(remote, release, capsys, tmp_path, "--accept-static")
    assert code == 1, err
    found = _findings(document, "published-tree")
    assert [f["subject"] for f in found] == [subject]
    assert "remove it" in found[0]["message"] or "rename it" in found[0]["message"]
    assert document["publish"]["pushed"] is False
    assert document["publish"]["skipped"] == "the commit's proof failed"
    assert BRANCH not in refs(remote.bare)


def test_a_submodule_is_refused(remote, release, capsys, tmp_path):
    _add_gitlink(remote.bare, "vendor/lib")
    code, err, document = _publish(remote, release, capsys, tmp_path, "--accept-static")
    assert code == 1, err
    assert [f["subject"] for f in _findings(document, "published-tree")] == ["vendor/lib"]
    assert BRANCH not in refs(remote.bare)


def test_an_unchecked_root_manifest_beside_a_template_in_a_folder_is_refused(
        remote, release, capsys, tmp_path):
    _template_with(remote, {"Package.swift": b"// swift-tools-version:5.9\n// not checked\n"},
                   folder="apple")
    code, err, document = _publish(remote, release, capsys, tmp_path, "--accept-static",
                                   "--template", "apple/Package.swift.template")
    assert code == 1, err
    found = _findings(document, "unchecked-manifest")
    assert [f["subject"] for f in found] == ["Package.swift"]
    assert BRANCH not in refs(remote.bare)


# -- without SwiftPM: refused, or a static proof when accepted ---------------------------------

def test_without_swiftpm_publish_refuses_in_one_line(remote, release, capsys, tmp_path):
    code, err, document = _publish(remote, release, capsys, tmp_path, "--swift", "off")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("swiftpm-guard: error:")
    assert "accept-static" in err and "runner with `swift`" in err and "image" in err
    assert document == {} and BRANCH not in refs(remote.bare)


def test_accept_static_publishes_on_a_static_proof(remote, release, capsys, tmp_path):
    markdown = tmp_path / "publish.md"
    code, err, document = _publish(remote, release, capsys, tmp_path, "--swift", "off",
                                   "--accept-static", "--markdown", str(markdown))
    assert code == 0, err
    assert "Proof: **static** (accept-static, no SwiftPM ran" in markdown.read_text()
    published = document["publish"]
    assert published["pushed"] is True and published["proof"] == "static"
    assert [s["step"] for s in published["proof_steps"]] == ["tree", "clone"]
    assert "proof: static (tree" in err
    assert refs(remote.bare)[BRANCH] == published["commit"]


def test_a_dry_run_is_not_refused_for_want_of_swiftpm(remote, release, capsys, tmp_path):
    """It pushes nothing, so it proves nothing: the check runs (its static gate says
    needs-swiftpm, exit 1), not the publish refusal (exit 2)."""
    code, err, document = _publish(remote, release, capsys, tmp_path, "--swift", "off",
                                   "--dry-run")
    assert code == 1, err
    assert [f["code"] for f in document["findings"] if f["severity"] == "error"] == [
        "needs-swiftpm"]
    assert document["publish"]["proof"] is None and BRANCH not in refs(remote.bare)


# -- the clone: byte for byte ------------------------------------------------------------------

def test_a_clone_unlike_the_checked_manifest_is_refused(tmp_path, remote):
    """prove_commit on a real commit whose Package.swift is not the bytes the check judged."""
    repo = ScratchRepo(tmp_path / "scratch.git", Remote.parse(str(remote.bare), cwd=str(tmp_path)),
                       git=Git(), identity=Identity.parse(AUTHOR)).init()
    base = repo.fetch("refs/heads/swiftpm", depth=1)
    commit = repo.commit(base, remove=(), add={"Package.swift": b"let a = 1\n"}, message="x")
    checked = Checked(manifests={"Package.swift": b"let a = 2\n"}, rendered={}, swift=None)
    proof = prove_commit(repo, commit, "swiftpm-1.2.3", checked, tmp_path / "work")
    assert proof.how == "static"
    assert [(f.code, f.subject) for f in proof.findings] == [("commit-proof", "Package.swift")]
    same = prove_commit(repo, commit, "swiftpm-1.2.3",
                        Checked(manifests={"Package.swift": b"let a = 1\n"}, rendered={},
                                swift=None), tmp_path / "again")
    assert same.findings == () and [s.name for s in same.steps] == ["tree", "clone"]


# -- with SwiftPM: dump-package of the checkout ------------------------------------------------

def test_with_swiftpm_the_checkout_is_evaluated_before_the_push(remote, capsys, tmp_path, swift,
                                                                swift_cache):
    release = write_release(tmp_path / "real", real_zips=True)
    code, err, document = _publish(remote, release, capsys, tmp_path, "--swift", swift,
                                   "--swift-cache", str(swift_cache))
    assert code == 0, err
    published = document["publish"]
    assert published["proof"] == "swiftpm"
    steps = published["proof_steps"]
    assert [s["step"] for s in steps] == ["tree", "clone", "dump-package", "consumer"]
    assert steps[-1]["proven"].startswith("not run: no swift that may download")
    assert "proof: swiftpm (" in err
    assert "Package.swift" in tree_files(remote.bare, refs(remote.bare)[BRANCH])


#: Evaluated in the check's package (manifest and stubs) it adds nothing; in the consumer's
#: checkout, which holds the template ref's README.md, it adds a binary target nobody checked.
READS_ITS_FOLDER = """
if FileManager.default.fileExists(atPath: Context.packageDirectory + "/README.md") {
  package.targets.append(.binaryTarget(
    name: "surprise", url: "https://example.invalid/frameworks/surprise-1.2.3.zip",
    checksum: String(repeating: "0", count: 64)))
}
"""


def test_a_checkout_swiftpm_evaluates_otherwise_is_refused(remote, capsys, tmp_path, swift,
                                                         swift_cache):
    release = write_release(tmp_path / "real", real_zips=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "swiftpm"
        template = write_template_branch(root)
        text = template.read_text().replace("import PackageDescription\n",
                                            "import PackageDescription\nimport Foundation\n")
        template.write_text(text + READS_ITS_FOLDER)
        (root / "README.md").write_text("The SwiftPM template branch.\n")
        commit_folder(remote.bare, "swiftpm", root, "a manifest that reads its folder")
    code, err, document = _publish(remote, release, capsys, tmp_path, "--swift", swift,
                                   "--swift-cache", str(swift_cache))
    assert code == 1, err
    (found,) = _findings(document, "commit-proof")
    assert found["subject"] == "Package.swift"
    assert "other binary targets or checksums than the check evaluated" in found["message"]
    assert document["publish"]["proof"] == "swiftpm" and document["publish"]["pushed"] is False
    assert BRANCH not in refs(remote.bare)


# -- with SwiftPM: consumers by URL over loopback ----------------------------------------------

def _hosted(remote, https, tmp_path):
    """A two-target release whose template ref points at the loopback HTTPS host serving it."""
    release = write_release(tmp_path / "real", products=("executorch",),
                            binary_only=("threadpool",), real_zips=True)
    serve_release(https, release)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "swiftpm"
        template = write_template_branch(root, ("executorch",), ("threadpool",))
        template.write_text(template.read_text().replace(FIXTURE_BASE, https.url("frameworks/")))
        commit_folder(remote.bare, "swiftpm", root, "template on the loopback host")
    return release


def _resolving(swift, swift_net, swift_cache, test_ca, tmp_path) -> list[str]:
    return ["--swift", swift, "--swift-cache", str(swift_cache), "--resolve", "--resolve-swift",
            swift_net, "--resolve-ca-file", str(test_ca.ca_pem), "--resolve-cache",
            str(tmp_path / "rc")]


def test_consumers_resolve_the_commit_by_url_before_the_push(remote, capsys, tmp_path, swift,
                                                             swift_net, swift_cache, https,
                                                             test_ca):
    """By branch, revision and exact version, from a bare copy served over git's dumb HTTP;
    the binary targets from their verified URLs (a loopback HTTPS host the test CA signs)."""
    release = _hosted(remote, https, tmp_path)
    code, err, document = _publish(remote, release, capsys, tmp_path, "--verify-urls",
                                   *_resolving(swift, swift_net, swift_cache, test_ca, tmp_path))
    assert code == 0, err
    steps = {s["step"]: s["proven"] for s in document["publish"]["proof_steps"]}
    assert "(by branch, revision, version; each target's extracted artifact is exactly its " \
           "NAME.xcframework) resolve and download its 4 binary targets" in steps["consumer"]
    assert refs(remote.bare)[BRANCH] == document["publish"]["commit"]


def test_without_verified_urls_the_downloads_are_not_proven(remote, capsys, tmp_path, swift,
                                                            swift_net, swift_cache, https,
                                                            test_ca):
    """SwiftPM 6.0 applies no mirror to binary-target URLs: unverified, they are not fetched."""
    release = _hosted(remote, https, tmp_path)
    code, err, document = _publish(remote, release, capsys, tmp_path,
                                   *_resolving(swift, swift_net, swift_cache, test_ca, tmp_path))
    assert code == 0, err
    consumer = document["publish"]["proof_steps"][-1]
    assert consumer["step"] == "consumer"
    assert consumer["proven"].startswith("not run: downloads not proven: SwiftPM 6.0 applies no "
                                         "mirror")


def test_a_zip_whose_extraction_holds_more_than_its_xcframework_is_refused(
        remote, capsys, tmp_path, swift, swift_net, swift_cache, https, test_ca):
    """SwiftPM copies whatever the zip holds beside NAME.xcframework into the target's folder;
    the consumer must find that folder holding exactly NAME.xcframework."""
    release = _hosted(remote, https, tmp_path)
    zipped = release.artifacts / f"threadpool-{release.version}.zip"
    write_real_zip(zipped, "threadpool", extra=("extra.xcframework/",))
    serve_release(https, release)
    code, err, document = _publish(remote, release, capsys, tmp_path, "--verify-urls",
                                   *_resolving(swift, swift_net, swift_cache, test_ca, tmp_path))
    assert code == 1, err
    # The zip rules refuse it first now; the consumer's listing is the second line of defence
    # (tests/unit/jobs/test_commit_proof.py).
    found = [f for f in document["findings"] if f["code"] in ("zip-layout", "commit-proof")]
    assert found and all("extra.xcframework" in f["subject"] + f["message"] for f in found)
    assert BRANCH not in refs(remote.bare)
