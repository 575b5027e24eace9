"""`swiftpm-guard publish --update` / `--exclude` and `preflight --absent-on-403` on the
ExecuTorch-shaped repository (support/executorch.py), by path, in-process."""

from __future__ import annotations

import json
import subprocess

from support.executorch import FIXED_CHECKSUM, LIVE_KEYS, TEMPLATE_WORKFLOW, make_executorch
from support.release import all_names, write_zip
from swiftpm_guard.cli.main import main

AUTHOR = "Release Bot <release-bot@example.invalid>"


def _git(bare, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", str(bare), *args], capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.strip()


def _zips(folder, version: str) -> None:
    folder.mkdir()
    for name in all_names(LIVE_KEYS):
        write_zip(folder / f"{name}-{version}.zip", name)


def _publish(bare, folder, version: str, *extra: str) -> list[str]:
    return ["publish", "--artifacts", str(folder), "--version", version, "--repo", str(bare),
            "--author", AUTHOR, "--accept-static", *extra]  # no swift here


def test_update_adds_a_commit_on_the_hand_fixed_tip(tmp_path, capsys):
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.0.0")
    report = tmp_path / "report.json"
    code = main(_publish(et.bare, tmp_path / "out", "1.0.0", "--update", "--json", str(report)))
    out, err = capsys.readouterr()
    assert code == 0, err
    tip = _git(et.bare, "rev-parse", "refs/heads/swiftpm-1.0.0")
    assert _git(et.bare, "rev-parse", f"{tip}^@") == et.hand_fix
    assert FIXED_CHECKSUM not in _git(et.bare, "show", f"{tip}:Package.swift")
    assert "--update: swiftpm-1.0.0 at" in err and "lease on the tip" in err
    assert json.loads(report.read_text())["publish"]["updated_from"] == et.hand_fix
    assert f"pushed swiftpm-1.0.0 at {tip}" in out


def test_update_creates_an_absent_branch_as_usual(tmp_path, capsys):
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.2.0")
    assert main(_publish(et.bare, tmp_path / "out", "1.2.0", "--update")) == 0
    tip = _git(et.bare, "rev-parse", "refs/heads/swiftpm-1.2.0")
    assert _git(et.bare, "rev-parse", f"{tip}^") == et.swiftpm
    capsys.readouterr()


def test_update_and_allow_overwrite_exclude_each_other(tmp_path, capsys):
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.0.0")
    code = main(_publish(et.bare, tmp_path / "out", "1.0.0", "--update", "--allow-overwrite"))
    assert code == 2
    assert "--update and --allow-overwrite exclude each other" in capsys.readouterr().err
    assert _git(et.bare, "rev-parse", "refs/heads/swiftpm-1.0.0") == et.hand_fix


def test_dry_run_lists_what_is_left_out_and_exclude_chooses_it(tmp_path, capsys):
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.2.0")
    assert main(_publish(et.bare, tmp_path / "out", "1.2.0", "--dry-run")) == 0
    out = capsys.readouterr().out
    assert f"--- left out of the published tree: {TEMPLATE_WORKFLOW} ---" in out
    assert main(_publish(et.bare, tmp_path / "out", "1.2.0", "--exclude", "none")) == 0
    capsys.readouterr()
    files = _git(et.bare, "ls-tree", "-r", "--name-only", "refs/heads/swiftpm-1.2.0")
    assert TEMPLATE_WORKFLOW in files.splitlines()
    assert main(_publish(et.bare, tmp_path / "out", "1.2.0", "--exclude", "../x")) == 2
    assert "--exclude '../x' must be a relative path inside the repository" in capsys.readouterr().err


def test_update_leases_on_the_tip_a_tip_that_moves_meanwhile_is_a_lost_race(tmp_path, capsys):
    """Another maintainer pushes a fix while the update runs: the remote's receive-pack sees
    the tip moved (a pre-receive hook moves it, just before the update) and refuses ours."""
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.0.0")
    moved = _git(et.bare, "commit-tree", f"{et.hand_fix}^{{tree}}", "-p", et.hand_fix, "-m",
                 "Another fix")
    hook = et.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nunset GIT_QUARANTINE_PATH\n"
                    f"exec git update-ref refs/heads/swiftpm-1.0.0 {moved}\n")
    hook.chmod(0o755)
    report = tmp_path / "report.json"
    code = main(_publish(et.bare, tmp_path / "out", "1.0.0", "--update", "--json", str(report)))
    _out, err = capsys.readouterr()
    assert code == 1, err
    assert _git(et.bare, "rev-parse", "refs/heads/swiftpm-1.0.0") == moved  # theirs stands
    publish = json.loads(report.read_text())["publish"]
    assert publish["pushed"] is False and publish["skipped"] == "race lost"
    assert "branch-exists" in err and "race lost" in err


# -- issue 23: a dry run shows what a republish changes ----------------------------------------


def _dry_run(tmp_path, capsys, bare, version: str, *extra: str) -> tuple[str, dict]:
    report = tmp_path / f"dry-{version}.json"
    code = main(_publish(bare, tmp_path / "out", version, "--dry-run", "--json", str(report),
                         *extra))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, json.loads(report.read_text())["publish"]


def test_update_dry_run_compares_with_the_versions_own_branch(tmp_path, capsys):
    """Republishing 1.0.0 with `--update`: every checksum changed (new zips), backend_mps is
    gone from the template since, and the branch was built from the old template (past the
    hand fix and the publish commit)."""
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.0.0")
    out, publish = _dry_run(tmp_path, capsys, et.bare, "1.0.0", "--update")
    names = sorted(all_names(LIVE_KEYS))
    assert "no published branch" not in out
    assert (f"compared with swiftpm-1.0.0 ({et.hand_fix[:12]}), this version's own branch:"
            in out)
    assert "  products: -backend_mps, -backend_mps_debug" in out
    assert (f"  {len(names)} checksums change (each with its _debug twin): "
            f"{', '.join(sorted(LIVE_KEYS))}") in out
    assert f'  template now: {et.swiftpm[:12]} "Remove backend_mps"' in out
    assert f'  swiftpm-1.0.0 was built from: {et.old_template[:12]} "template"' in out
    diff = publish["diff"]
    assert diff["base_branch"] == "swiftpm-1.0.0" and diff["base_commit"] == et.hand_fix
    assert diff["relation"] == "this-branch"
    assert diff["checksums"] == {"changed": names, "unchanged": []}
    assert diff["template_commits"] == {
        "now": {"commit": et.swiftpm, "subject": "Remove backend_mps"},
        "base": {"commit": et.old_template, "subject": "template"},
        "base_note": None,
    }
    assert publish["diff_note"] is None and publish["pushed"] is False


def test_a_new_patch_compares_with_the_newest_branch_of_its_line(tmp_path, capsys):
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.1.1")
    out, publish = _dry_run(tmp_path, capsys, et.bare, "1.1.1")
    assert (f"compared with swiftpm-1.1.0 ({et.publish_110[:12]}), the newest branch of the "
            "same X.Y line:") in out
    assert "  same products and binary targets" in out
    assert "  swiftpm-1.1.0 was built from the same template commit" in out
    assert publish["diff"]["relation"] == "same-line"
    assert len(publish["diff"]["checksums"]["changed"]) == len(all_names(LIVE_KEYS))


def test_after_an_update_the_trailer_names_the_template_and_nothing_changes(tmp_path, capsys):
    et = make_executorch(tmp_path / "remote")
    _zips(tmp_path / "out", "1.0.0")
    assert main(_publish(et.bare, tmp_path / "out", "1.0.0", "--update")) == 0
    capsys.readouterr()
    tip = _git(et.bare, "rev-parse", "refs/heads/swiftpm-1.0.0")
    assert f"Template-Commit: {et.swiftpm}" in _git(et.bare, "log", "-1", "--format=%B", tip)
    out, publish = _dry_run(tmp_path, capsys, et.bare, "1.0.0", "--update")
    assert "  same products and binary targets" in out
    assert f"  no checksum changes ({len(all_names(LIVE_KEYS))} compared)" in out
    assert "  swiftpm-1.0.0 was built from the same template commit" in out
    assert publish["diff"]["template_commits"]["base"]["commit"] == et.swiftpm


def test_a_template_subject_reaches_the_log_as_text_never_as_a_workflow_command(tmp_path,
                                                                                 capsys):
    """Commit subjects are someone else's text: `::error::` in one stays inert."""
    et = make_executorch(tmp_path / "remote")
    work = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "swiftpm", str(et.bare), str(work)], check=True,
                   timeout=60)
    (work / "README.md").write_text("x\n")
    for args in (["add", "README.md"],
                 ["-c", "user.name=x", "-c", "user.email=x@example.invalid", "commit", "-q",
                  "-m", "::error file=a::pwned"], ["push", "-q", "origin", "swiftpm"]):
        subprocess.run(["git", "-C", str(work), *args], check=True, timeout=60)
    _zips(tmp_path / "out", "1.1.0")
    out, publish = _dry_run(tmp_path, capsys, et.bare, "1.1.0", "--update")
    assert publish["diff"]["template_commits"]["now"]["subject"] == "::error file=a::pwned"
    assert "::error" not in out  # neutralised, as every line from elsewhere is
    assert "template now:" in out and "pwned" in out
