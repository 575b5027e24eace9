"""SwiftPM in the image (issue 31): Debian's swiftlang, trimmed to what `swift package` needs.

Run as the runner runs the action (`RunnerJob`: root in the container, the job's hostile
environment, HOME the mounted uid-1001 `/github/home`): `dump-package` and `describe` of a
manifest that imports Foundation; `resolve` of a consumer that depends by git on a package whose
binary target is served over loopback HTTPS (git, unzip and the CA bundle in the image); and
the action's own check of a release, which must say SwiftPM evaluated the manifests with the
image's `/usr/bin/swift` although the job's PATH leads nowhere.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support.container import REPO_ROOT, WORKSPACE, RunnerJob, action_inputs
from support.release import write_zip
from support.tls import make_test_ca
from support.zip_server import Route, serve_zips

pytestmark = pytest.mark.container

SWIFT = "/usr/bin/swift"
#: What the action gives swift (entrypoint.py): the image's system folders, not the job's PATH.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_MANIFEST = """// swift-tools-version:5.9
import PackageDescription
import Foundation

// Computed, so only an evaluation (not a reading of the text) knows the targets.
let names = ["Alpha", "Beta"].map { $0.lowercased() }
let package = Package(
    name: "Tiny",
    products: names.map { .library(name: $0, targets: [$0]) },
    targets: names.map {
        .binaryTarget(name: $0, url: "https://example.invalid/\\($0).zip",
                      checksum: String(repeating: "0", count: 64))
    }
)
"""


def _swift(engine, image, job: RunnerJob, *args: str, timeout: float = 300):
    return job.run(engine, image, entrypoint=["/usr/bin/env", f"PATH={SYSTEM_PATH}", SWIFT],
                   command=list(args), timeout=timeout)


def test_the_images_swift_dumps_and_describes_a_package_as_the_runner_runs_it(
    engine, image, tmp_path
):
    job = RunnerJob(tmp_path / "job")
    (job.workspace / "Package.swift").write_text(_MANIFEST)
    dumped = _swift(engine, image, job, "package", "--package-path", WORKSPACE, "dump-package")
    assert dumped.exit_code == 0, dumped
    dump = json.loads(dumped.logs[dumped.logs.index("{"):])
    assert [t["name"] for t in dump["targets"]] == ["alpha", "beta"]
    assert {t["type"] for t in dump["targets"]} == {"binary"}
    assert [p["name"] for p in dump["products"]] == ["alpha", "beta"]
    described = _swift(engine, image, job, "package", "--package-path", WORKSPACE, "describe",
                       "--type", "json")
    assert described.exit_code == 0, described
    assert json.loads(described.logs[described.logs.index("{"):])["name"] == "Tiny"
    # Not vacuous: a manifest that does not compile is SwiftPM's error, not an empty dump.
    (job.workspace / "Package.swift").write_text(_MANIFEST.replace("names.map", "nemes.map", 1))
    broken = _swift(engine, image, job, "package", "--package-path", WORKSPACE, "dump-package")
    assert broken.exit_code != 0 and "nemes" in broken.logs, broken


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.strip()


def _dependency(folder: Path, url: str, checksum: str) -> None:
    """A package with one binary target at `url`, tagged 1.0.0, in a git repository."""
    folder.mkdir()
    (folder / "Package.swift").write_text(
        "// swift-tools-version:5.9\nimport PackageDescription\n\n"
        'let package = Package(name: "Dep", products: [.library(name: "A", targets: ["A"])],\n'
        f'    targets: [.binaryTarget(name: "A", url: "{url}", checksum: "{checksum}")])\n')
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "add", "Package.swift")
    _git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "1.0.0")
    _git(folder, "tag", "1.0.0")


def test_the_images_swift_resolves_a_git_dependency_and_its_binary_target_over_https(
    engine, image, tmp_path
):
    ca = make_test_ca(tmp_path / "ca")
    job = RunnerJob(tmp_path / "job")
    zipped = tmp_path / "A.zip"
    checksum = write_zip(zipped, "A")
    with serve_zips(ca.server_context()) as server:
        server.routes["/A.zip"] = Route(zipped.read_bytes())
        # Outside the workspace, owned by root like a clone the action makes itself: git (as
        # root) refuses to clone from a repository owned by uid 1001, and no environment
        # variable overrides that for a local clone (only a global or system safe.directory).
        _dependency(tmp_path / "dep", server.url("A.zip"), checksum)
        consumer = job.workspace / "app"
        consumer.mkdir()
        (consumer / "Package.swift").write_text(
            "// swift-tools-version:5.9\nimport PackageDescription\n\n"
            'let package = Package(name: "App",\n'
            '    dependencies: [.package(url: "file:///dep", exact: "1.0.0")],\n'
            '    targets: [.target(name: "App", dependencies: [.product(name: "A", '
            'package: "dep")])])\n')
        (consumer / "Sources" / "App").mkdir(parents=True)
        (consumer / "Sources" / "App" / "App.swift").write_text("")
        # Only the test CA is trusted: the image's bundle is replaced by it for this run.
        job.extra_volumes = {str(ca.ca_pem): "/etc/ssl/certs/ca-certificates.crt",
                             str(tmp_path / "dep"): "/dep"}
        resolved = _swift(engine, image, job, "package", "--package-path", f"{WORKSPACE}/app",
                          "resolve")
    assert resolved.exit_code == 0, resolved
    assert server.hits["/A.zip"] >= 1
    artifacts = consumer / ".build" / "artifacts" / "dep" / "A"
    assert (artifacts / "A.xcframework" / "Info.plist").is_file(), resolved  # unzipped
    pins = json.loads((consumer / "Package.resolved").read_text())
    assert [(p["identity"], p["state"]["version"]) for p in pins["pins"]] == [("dep", "1.0.0")]


def test_the_actions_check_of_a_release_is_swiftpms_evaluation_in_the_image(
    engine, image, tmp_path
):
    env = pytest.importorskip("support.actions_env", reason="issue 3's test support")
    fake_github = pytest.importorskip("support.fake_github", reason="issue 3's fake API")
    from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names

    token = "ghs_imageSwiftToken0123456789"
    with fake_github.running() as fake:
        origin = env.make_origin(tmp_path / "remote")
        fake.add_repo(env.REPOSITORY, git_dir=origin.bare)
        fake.add_token(token)
        job = RunnerJob(tmp_path / "job", event_name="schedule", repository=env.REPOSITORY,
                        api_url=fake.url)
        env.clone(origin, "main", job.workspace)
        (job.workspace / "out").mkdir()
        for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
            write_zip(job.workspace / "out" / f"{name}-1.2.3.zip", name)
        job.sha = origin.main
        job.event = env.schedule_payload()
        job.extra_volumes = {str(origin.bare): str(origin.bare)}
        job.inputs = action_inputs(REPO_ROOT / "action.yml",
                                   {"mode": "check", "version": "1.2.3", "artifacts": "out"},
                                   token=token)
        assert job.job_env["PATH"] == "/nonsense"  # no swift, git or ld there
        result = job.run(engine, image, timeout=300)
    assert not fake.violations, fake.violations
    assert result.exit_code == 0, result
    report = json.loads((job.workspace / result.outputs["report"]).read_text())
    assert report["swiftpm"]["used"] is True, report["swiftpm"]
    assert report["swiftpm"]["reason"] == f"evaluated with {SWIFT}", report["swiftpm"]
    assert report["counts_source"] == "swiftpm"
    assert report["products"] == 18 and report["binary_targets"] == 20
    assert report["consistent"] is True
