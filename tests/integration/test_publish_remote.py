"""`swiftpm-guard publish` / `preflight` against real remotes: a bare repo by path and the
same repo over loopback smart HTTP (git http-backend), so every push goes over the wire."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.git_remote import (
    commit_folder,
    commit_message,
    git,
    reflog,
    refs,
    tree_files,
    update_template,
)
from support.release import PRODUCT_KEYS, Release, write_release
from swiftpm_guard.cli.main import main

AUTHOR = "Release Bot <release-bot@example.invalid>"
BRANCH = "refs/heads/swiftpm-1.2.3"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def publish_args(
    remote, release: Release, *extra: str, version: str | None = None, report: Path | None = None
) -> list[str]:
    args = [
        "publish",
        "--artifacts",
        str(release.artifacts),
        "--version",
        version or release.version,
        "--repo",
        remote.url,
        "--author",
        AUTHOR,
        "--accept-static",  # no swift here: the gate is tested in tests/unit/core
    ]
    if report is not None:
        args += ["--json", str(report)]
    return [*args, *extra]


def pushes(spy) -> list[list[str]]:
    return [call for call in spy.calls() if call[:1] == ["push"]]


def test_publish_pushes_one_commit_with_the_rendered_manifest(
    remote, release, spy, capsys, tmp_path
):
    template_tip = refs(remote.bare)["refs/heads/swiftpm"]
    report = tmp_path / "report.json"
    code, out, err = run(capsys, *publish_args(remote, release, report=report))
    assert code == 0, err
    published = json.loads(report.read_text())["publish"]
    commit = published["commit"]
    assert published["pushed"] is True and published["branch"] == "swiftpm-1.2.3"
    assert refs(remote.bare)[BRANCH] == commit
    assert f"pushed swiftpm-1.2.3 at {commit}" in out
    assert reflog(remote.bare, BRANCH) == [commit]

    # One commit on top of the template ref, message = the version, identity from --author.
    assert git("rev-parse", f"{commit}^", cwd=remote.bare).strip() == template_tip
    assert git("rev-list", "--count", f"{template_tip}..{commit}", cwd=remote.bare).strip() == "1"
    assert commit_message(remote.bare, commit).strip() == "1.2.3"
    assert (
        git("log", "-1", "--format=%an <%ae>|%cn <%ce>", commit, cwd=remote.bare).strip()
        == f"{AUTHOR}|{AUTHOR}"
    )

    files = tree_files(remote.bare, commit)
    template_files = tree_files(remote.bare, template_tip)
    assert "Package.swift" in files and "Package.swift.template" not in files
    for path, data in template_files.items():  # every stub (and the README) kept as is
        if path != "Package.swift.template":
            assert files[path] == data, path
    stubs = [p for p in files if p.startswith(".Package.swift/")]
    assert len(stubs) == 2 * len(PRODUCT_KEYS)
    for path, data in files.items():
        assert b"__SHA256_" not in data and b"__VERSION__" not in data, path
    manifest = files["Package.swift"].decode()
    assert 'let version = "1.2.3"' in manifest
    for name, checksum in release.checksum_of.items():
        assert f'"{checksum}"' in manifest, name

    # The push is create-only: a lease on absence, no force of any kind.
    [push] = pushes(spy)
    assert f"--force-with-lease={BRANCH}:" in push
    assert f"{commit}:{BRANCH}" in push
    assert not any(a in ("--force", "-f") or a.startswith("+") for a in push)


def test_token_travels_as_a_header_never_in_argv_or_output(http_remote, release, spy, capsys):
    remote = http_remote
    code, out, err = run(capsys, *publish_args(remote, release))
    assert code == 0, err
    server = remote.server
    expected = server.expected_authorization()
    assert server.authorizations and all(a == expected for a in server.authorizations)
    assert any(r.startswith("POST /origin.git/git-receive-pack") for r in server.requests)
    logged = json.dumps(spy.calls())
    for secret in (remote.token, expected.split()[1]):
        assert secret not in logged
        assert secret not in out and secret not in err
        assert secret not in remote.url


def test_http_remote_without_token_fails_fast_with_exit_3(
    http_remote, release, capsys, monkeypatch
):
    remote = http_remote
    monkeypatch.delenv("GITHUB_TOKEN")
    code, _out, err = run(capsys, *publish_args(remote, release))
    assert code == 3
    assert "git ls-remote failed" in err and "none was sent: is it in $GITHUB_TOKEN?" in err
    assert BRANCH not in refs(remote.bare)


def test_publishing_twice_is_blocked_and_leaves_the_remote_unchanged(remote, release, spy, capsys):
    assert run(capsys, *publish_args(remote, release))[0] == 0
    before = refs(remote.bare)
    spy.log.unlink()
    code, out, err = run(capsys, *publish_args(remote, release))
    assert code == 1
    assert "branch-exists" in err and "already exists" in err
    assert "not pushed: error findings" in out
    assert refs(remote.bare) == before
    assert len(reflog(remote.bare, BRANCH)) == 1
    assert pushes(spy) == []


def test_template_dropped_a_product_this_run_still_built(remote, tmp_path, spy, capsys):
    # The shared template no longer has backend_mps; the release branch still builds it.
    dropped = [k for k in PRODUCT_KEYS if k != "backend_mps"]
    update_template(remote.bare, products=dropped)
    release = write_release(tmp_path / "built", products=PRODUCT_KEYS)
    code, _out, err = run(capsys, *publish_args(remote, release))
    assert code == 1
    assert "unclaimed-artifact" in err and "backend_mps" in err
    assert BRANCH not in refs(remote.bare) and pushes(spy) == []


def test_template_asks_for_a_product_this_run_did_not_build(remote, tmp_path, spy, capsys):
    update_template(remote.bare, products=[*PRODUCT_KEYS, "kernels_new"])
    release = write_release(tmp_path / "built", products=PRODUCT_KEYS)
    code, _out, err = run(capsys, *publish_args(remote, release))
    assert code == 1
    assert "unfilled-placeholder" in err and "kernels_new" in err
    assert BRANCH not in refs(remote.bare) and pushes(spy) == []


def test_dry_run_prints_manifest_diff_against_newest_branch_and_snippet(
    remote, tmp_path, spy, capsys
):
    old = write_release(tmp_path / "old", version="1.2.3.20250101")
    assert run(capsys, *publish_args(remote, old))[0] == 0
    older = write_release(tmp_path / "older", version="1.2.3.20241231")
    assert run(capsys, *publish_args(remote, older))[0] == 0
    # Then the template drops backend_mps and gains kernels_new; this run matches it.
    products = [*(k for k in PRODUCT_KEYS if k != "backend_mps"), "kernels_new"]
    update_template(remote.bare, products=products)
    release = write_release(tmp_path / "new", products=products)
    before = refs(remote.bare)
    spy.log.unlink()
    markdown = tmp_path / "summary.md"
    code, out, err = run(
        capsys, *publish_args(remote, release, "--dry-run", "--markdown", str(markdown))
    )
    assert code == 0, err
    assert "--- Package.swift (dry run, swiftpm-1.2.3) ---" in out
    assert release.checksum_of["kernels_new"] in out
    assert "compared with swiftpm-1.2.3.20250101" in out
    assert "products: +kernels_new, +kernels_new_debug, -backend_mps, -backend_mps_debug" in out
    assert (
        "binary targets: +kernels_new, +kernels_new_debug, -backend_mps, -backend_mps_debug"
    ) in out
    url = remote.url if remote.kind == "http" else Path(remote.url).as_uri()
    assert f'consumers: .package(url: "{url}", branch: "swiftpm-1.2.3")' in out
    assert "not pushed: dry run" in out
    assert refs(remote.bare) == before and pushes(spy) == []
    summary = markdown.read_text()
    assert "`swiftpm-1.2.3` not pushed: dry run" in summary
    assert "  products: +kernels_new, +kernels_new_debug" in summary
    assert f'.package(url: "{url}", branch: "swiftpm-1.2.3")' in summary


def test_dry_run_without_an_earlier_branch_says_so(remote, release, capsys):
    code, out, _err = run(capsys, *publish_args(remote, release, "--dry-run"))
    assert code == 0
    assert "no published branch of 1.2.3 or of the 1.2 line on the remote to compare with" in out
    assert BRANCH not in refs(remote.bare)


@pytest.mark.parametrize("event", ["pull_request", "issue_comment", "pull_request_target",
                                   "workflow_run"])
def test_an_event_a_pull_request_can_reach_never_pushes(remote, release, spy, capsys,
                                                         monkeypatch, event):
    """Only push, workflow_dispatch, schedule and release publish (issue 32); the CLI cannot
    see a workflow_run's triggering run, so that one never does either."""
    monkeypatch.setenv("GITHUB_EVENT_NAME", event)
    code, out, _err = run(capsys, *publish_args(remote, release))
    assert code == 0
    assert f"not pushed: '{event}' events never publish" in out
    assert BRANCH not in refs(remote.bare) and pushes(spy) == []


def test_allow_overwrite_replaces_only_the_commit_it_saw(remote, release, spy, capsys, tmp_path):
    assert run(capsys, *publish_args(remote, release))[0] == 0
    first = refs(remote.bare)[BRANCH]
    spy.log.unlink()
    report = tmp_path / "again.json"
    # Another identity, so the new commit differs even within the same second.
    code, _out, err = run(
        capsys,
        *publish_args(
            remote,
            release,
            "--allow-overwrite",
            "--author",
            "Other <other@example.invalid>",
            report=report,
        ),
    )
    assert code == 0, err
    second = json.loads(report.read_text())["publish"]
    assert second["overwritten"] is True and second["remote_commit"] == first
    assert refs(remote.bare)[BRANCH] == second["commit"] != first
    assert "--allow-overwrite: replacing swiftpm-1.2.3" in err
    assert "warning: branch-exists" in err
    [push] = pushes(spy)
    assert f"--force-with-lease={BRANCH}:{first}" in push
    assert not any(a in ("--force", "-f") or a.startswith("+") for a in push)
    assert reflog(remote.bare, BRANCH) == [second["commit"], first]


def test_preflight_exit_codes(remote, release, capsys, spy):
    code, out, _err = run(capsys, "preflight", "--version", "1.2.3", "--repo", remote.url)
    assert code == 0 and "swiftpm-1.2.3 is free" in out
    assert run(capsys, *publish_args(remote, release))[0] == 0
    code, _out, err = run(capsys, "preflight", "--version", "1.2.3", "--repo", remote.url)
    assert code == 1 and "branch-exists" in err
    assert run(capsys, "preflight", "--version", "1.2.4", "--repo", remote.url)[0] == 0
    assert (
        run(
            capsys,
            "preflight",
            "--version",
            "1.2.3",
            "--branch-prefix",
            "other-",
            "--repo",
            remote.url,
        )[0]
        == 0
    )
    spy.log.unlink()
    assert run(capsys, "preflight", "--version", "../x", "--repo", remote.url)[0] == 2
    assert spy.calls() == []


def test_preflight_on_a_missing_repository(remote, capsys, tmp_path):
    missing = remote.server.url("missing.git") if remote.server else str(tmp_path / "missing.git")
    code, _out, err = run(capsys, "preflight", "--version", "1.2.3", "--repo", missing)
    assert code == (3 if remote.kind == "http" else 2)
    assert err.startswith("swiftpm-guard: error:") and err.count("\n") == 1


def test_missing_template_ref_is_bad_input(remote, release, capsys):
    code, _out, err = run(capsys, *publish_args(remote, release, "--template-ref", "nope"))
    assert code == 2 and "template ref refs/heads/nope is not on the remote" in err


JINJA_TEMPLATE = """\
// swift-tools-version:5.9
import PackageDescription

let version = "{{ version }}"
let products = [
{%- for name in ["executorch", "executorch_debug"] %}
  "{{ name }}": "{{ checksums[name] }}",
{%- endfor %}
]
let package = Package(name: "p")
"""


def test_a_jinja_template_in_the_ref_is_rendered_and_renamed(remote, tmp_path, capsys):
    branch = tmp_path / "jinja-branch"
    for name in ("executorch", "executorch_debug"):
        (branch / ".Package.swift" / name).mkdir(parents=True)
        (branch / ".Package.swift" / name / "dummy.swift").write_text("// stub\n")
    (branch / "Package.swift.j2").write_text(JINJA_TEMPLATE)
    commit_folder(remote.bare, "swiftpm-jinja", branch, "jinja template")
    release = write_release(tmp_path / "built", products=["executorch"], binary_only=[])
    report = tmp_path / "report.json"
    code, _out, err = run(capsys, *publish_args(
        remote, release, "--template-ref", "swiftpm-jinja", "--template", "Package.swift.j2",
        report=report))
    assert code == 0, err
    commit = json.loads(report.read_text())["publish"]["commit"]
    files = tree_files(remote.bare, commit)
    assert "Package.swift.j2" not in files
    manifest = files["Package.swift"].decode()
    assert 'let version = "1.2.3"' in manifest
    assert f'"executorch": "{release.checksum_of["executorch"]}"' in manifest
    assert files[".Package.swift/executorch/dummy.swift"] == b"// stub\n"
