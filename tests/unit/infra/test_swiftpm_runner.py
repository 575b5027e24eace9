"""The SwiftPM adapter's own behaviour: what it copies, what it caches, how it fails.

The real SwiftPM is exercised in tests/integration/test_swiftpm.py. Here small shell scripts
stand in for `swift` only to provoke what a real toolchain rarely does on demand: hanging,
crashing, printing nonsense. They also count their runs, which shows the cache at work.
"""

import json
import os
import stat
import time
from pathlib import Path

import pytest

from support.release import write_template_branch
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import Rendered
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.render import render
from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.infra.swift_locate import locate_swift
from swiftpm_guard.infra.swiftpm import PackageFiles, SwiftPM, package_files
from swiftpm_guard.sources.template import load_template

DUMP = json.dumps(
    {
        "name": "p",
        "products": [],
        "targets": [
            {
                "name": "a",
                "type": "binary",
                "url": "https://x.invalid/a-1.2.3.zip",
                "checksum": "a" * 64,
            }
        ],
    }
)


def fake_swift(folder: Path, body: str) -> str:
    """An executable named swift running `body` (sh), logging each call to calls.log."""
    path = folder / "swift"
    path.write_text(f'#!/bin/sh\necho "$@" >> "{folder}/calls.log"\n{body}\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def calls(folder: Path) -> list[str]:
    log = folder / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def rendered_fixture(root: Path) -> Rendered:
    template_path = write_template_branch(root, products=("a",), binary_only=())
    template, _ = load_template(template_path)
    return render(template, "1.2.3", {})


def test_package_files_hold_the_manifest_and_the_stub_tree_in_place(tmp_path):
    rendered = rendered_fixture(tmp_path / "branch")
    (tmp_path / "branch" / ".Package.swift" / "a" / "link.swift").symlink_to("/etc/hostname")

    package = package_files(rendered)
    package.write(tmp_path / "copy")

    copied = sorted(
        p.relative_to(tmp_path / "copy").as_posix() for p in (tmp_path / "copy").rglob("*")
    )
    assert copied == [
        ".Package.swift",
        ".Package.swift/a",
        ".Package.swift/a/dummy.swift",
        ".Package.swift/a_debug",
        ".Package.swift/a_debug/dummy.swift",
        "Package.swift",
    ]  # the symlink pointing outside is not copied
    assert (tmp_path / "copy" / "Package.swift").read_text() == rendered.text


def test_the_digest_changes_with_manifest_stub_content_and_empty_folders():
    base = PackageFiles("m", ((".Package.swift", None), (".Package.swift/a/x.swift", b"1")))
    variants = [
        PackageFiles("m2", base.entries),
        PackageFiles("m", ((".Package.swift", None), (".Package.swift/a/x.swift", b"2"))),
        PackageFiles("m", (*base.entries, (".Package.swift/b", None))),
    ]
    assert len({base.digest(), *(v.digest() for v in variants)}) == 4
    assert PackageFiles("m", base.entries).digest() == base.digest()


def test_results_are_cached_by_content(tmp_path):
    swift = fake_swift(
        tmp_path,
        f"[ \"$2\" = dump-package ] && echo '{DUMP}'; [ \"$2\" = describe ] && echo '{{}}'; exit 0",
    )
    runner = SwiftPM(swift, cache_dir=tmp_path / "cache")
    package = PackageFiles("let package = 1\n")

    first = runner.evaluate(package)
    second = runner.evaluate(package)
    runner.evaluate(PackageFiles("let package = 2\n"))

    assert not first.cached and second.cached
    assert second.evaluation == first.evaluation
    assert [b.name for b in first.evaluation.binary_targets] == ["a"]
    assert sorted(calls(tmp_path)) == sorted(
        ["package dump-package", "package describe --type json"] * 2
    )


def test_swift_runs_in_a_copy_with_deterministic_hashing_and_a_private_home(tmp_path):
    swift = fake_swift(
        tmp_path,
        'echo "$PWD $SWIFT_DETERMINISTIC_HASHING $HOME" >&2; '
        f"[ -f Package.swift ] && echo '{DUMP}'; exit 0",
    )
    runner = SwiftPM(swift, cache_dir=tmp_path / "cache")
    runner.evaluate(PackageFiles("x"))
    entry = next((tmp_path / "cache").glob("*.json"))
    stderr = json.loads(entry.read_text())["dump"]["stderr"].split()

    assert stderr[0].endswith("/dump/package") and stderr[1] == "1"
    assert stderr[2].endswith("/home") and stderr[2] != os.environ.get("HOME")
    assert not Path(stderr[0]).exists()  # the copy is gone afterwards


def test_swift_sees_no_token_and_nothing_of_the_job_but_the_allow_list(tmp_path, monkeypatch):
    """A manifest is code SwiftPM runs: what swift's environment holds, the manifest reads. In
    the Docker action swift runs unwrapped, with the job's environment around it."""
    for name, value in {"INPUT_GITHUB-TOKEN": "ghs_one", "INPUT_PUSH-TOKEN": "ghp_two",
                        "GITHUB_TOKEN": "ghs_three", "HTTPS_PROXY": "http://127.0.0.1:9",
                        "TMPDIR": str(tmp_path), "SWIFT_BACKTRACE": "enable=no",
                        "SWIFT_DRIVER_SWIFT_FRONTEND_EXEC": "/tmp/planted"}.items():
        monkeypatch.setenv(name, value)
    swift = fake_swift(tmp_path, f"env >&2; [ -f Package.swift ] && echo '{DUMP}'; exit 0")
    SwiftPM(swift, cache_dir=tmp_path / "cache").evaluate(PackageFiles("x"))
    entry = next((tmp_path / "cache").glob("*.json"))
    seen = dict(line.split("=", 1) for line in
                json.loads(entry.read_text())["dump"]["stderr"].splitlines() if "=" in line)

    assert not {"INPUT_GITHUB-TOKEN", "INPUT_PUSH-TOKEN", "GITHUB_TOKEN", "HTTPS_PROXY",
                "TMPDIR", "SWIFT_BACKTRACE", "SWIFT_DRIVER_SWIFT_FRONTEND_EXEC"} & seen.keys()
    assert seen["SWIFT_DETERMINISTIC_HASHING"] == "1"  # ours, set for every evaluation
    assert {"PATH", "HOME"} <= seen.keys()
    assert not any(value.startswith(("ghs_", "ghp_")) for value in seen.values())


def test_a_hanging_swift_is_stopped_and_reported(tmp_path):
    swift = fake_swift(tmp_path, 'sleep 60 & echo $! > "$(dirname "$0")/child.pid"; wait')
    runner = SwiftPM(swift, cache_dir=tmp_path / "cache", timeout=1.0)
    started = time.monotonic()

    with pytest.raises(InfrastructureError, match="took longer than 1 s"):
        runner.evaluate(PackageFiles("x"))

    assert time.monotonic() - started < 30
    child = int((tmp_path / "child.pid").read_text())
    with pytest.raises(ProcessLookupError):
        for _ in range(50):  # the whole process group went, grandchildren included
            os.kill(child, 0)
            time.sleep(0.1)
    assert not list(tmp_path.glob("cache/*.json"))  # a failure is never cached


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("echo 'Segmentation fault' >&2; exit 139", "no error we can read"),
        ("kill -9 $$", "killed by signal 9"),
        ("echo nonsense; exit 0", "no manifest JSON"),
    ],
)
def test_a_broken_swift_is_an_infrastructure_error(tmp_path, body, says):
    runner = SwiftPM(fake_swift(tmp_path, body), cache_dir=tmp_path / "cache")
    with pytest.raises(InfrastructureError, match=says):
        runner.evaluate(PackageFiles("x"))


def test_locate_swift(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert locate_swift("off") == (None, f"{option('swift')} off")
    assert locate_swift("auto")[0] is None
    swift = fake_swift(tmp_path, "exit 0")
    assert locate_swift("auto")[0] == swift
    assert locate_swift(swift)[0] == swift
    with pytest.raises(UsageError, match="not auto, off, or an executable"):
        locate_swift(str(tmp_path / "missing"))


def test_a_bad_swift_option_is_exit_2_before_anything_runs(tmp_path, capsys):
    template = write_template_branch(tmp_path / "branch", products=("a",), binary_only=())
    code = main(
        [
            "check",
            "--template",
            str(template),
            "--version",
            "1.2.3",
            "--frameworks",
            "a",
            "--swift",
            str(tmp_path / "nope"),
        ]
    )
    assert code == 2
    assert "--swift" in capsys.readouterr().err


def test_auto_without_swift_says_so_and_the_proof_is_static(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    template = write_template_branch(tmp_path / "branch", products=("a",), binary_only=())
    report = tmp_path / "report.json"
    code = main(
        [
            "check",
            "--template",
            str(template),
            "--version",
            "1.2.3",
            "--frameworks",
            "a",
            "--json",
            str(report),
            "--quiet",
            "--accept-static",
        ]
    )
    data = json.loads(report.read_text())

    assert code == 0
    assert data["swiftpm"] == {
        "used": False,
        "cached": False,
        "seconds": None,
        "reason": "no swift on PATH (--swift auto); static reading accepted (--accept-static): "
        "the manifests are unproven",
    }
    assert data["counts_source"] == "static" and data["proof"] == "static"


def test_package_files_read_stubs_from_disk_when_shown_by_another_path(tmp_path, monkeypatch):
    """A template read from a ref is shown by its path in the ref but lies in a scratch folder;
    SwiftPM must get the stubs from the scratch folder, whatever the working directory."""
    scratch = tmp_path / "scratch"
    rendered_fixture(scratch)
    template, _findings = load_template(
        scratch / "Package.swift.template", display="Package.swift.template"
    )
    assert template.stubs_dir == ".Package.swift"
    monkeypatch.chdir(tmp_path)  # holds no .Package.swift
    package = package_files(render(template, "1.2.3", {}))
    stub = b"// Wrapper target stub: SwiftPM needs a source.\n"
    assert (".Package.swift/a/dummy.swift", stub) in package.entries
