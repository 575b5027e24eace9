"""Tokens reach only git's credential path (issue 25): a workspace clone whose .git/config and
hooks an earlier step of the job wrote (a pull request's build can) runs nothing of ours.

Planted in the clone: every hook (in `.git/hooks` and in a `core.hooksPath` folder), a
`core.fsmonitor` program, a filter driver on every path, a credential helper, `core.askPass`,
`core.sshCommand`, `remote.origin.uploadpack`, a `gc.auto` that would run `pre-auto-gc`, and a
global config in the job's `$HOME` naming the same. Each program records its environment (and
the environment of its parent, where a token would be). Then the action fetches the template
ref into the clone and checks, publishes and audits; nothing may be recorded. A plain git with
the runner's environment first proves the plants fire.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, header, served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    Origin,
    clone,
    commit_all,
    git,
    make_origin,
    pull_request_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.markdown import rendered_text
from support.release import (
    BINARY_ONLY_KEYS,
    PRODUCT_KEYS,
    all_names,
    write_template_branch,
    write_zip,
)
from support.release_lines import EXPRESSION, LIVE_PRODUCTS, OLD_DAY, OLD_PUBLISHED, make_history
from support.runner_job import Job

TOKEN = "ghs_containmentToken0123456789"
PUSH_TOKEN = "ghp_containmentPushToken0123456789"
NIGHTLY = "1.2.3.20250101"
HOOKS = ("post-checkout", "reference-transaction", "pre-push", "post-index-change",
         "pre-auto-gc", "post-merge", "post-rewrite", "push-to-checkout", "pre-commit",
         "fsmonitor-watchman", "post-update", "pre-receive", "update")


def _recorder(path: Path, name: str, record: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"""#!/bin/sh
env > "{record}/{name}.$$"
cat "/proc/$PPID/environ" 2>/dev/null | tr '\\0' '\\n' >> "{record}/{name}.$$"
exit 0
""")
    path.chmod(0o755)
    return path


def plant(workspace: Path, home: Path, record: Path) -> None:
    """Everything in the clone and the job's $HOME that git could start a program from."""
    record.mkdir(parents=True, exist_ok=True)
    spare = workspace.parent / "planted-hooks"
    for name in HOOKS:
        _recorder(workspace / ".git" / "hooks" / name, f"hook-{name}", record)
        _recorder(spare / name, f"hookspath-{name}", record)
    program = {key: _recorder(workspace.parent / "planted" / key, key, record)
               for key in ("fsmonitor", "filter", "credential", "askpass", "ssh", "uploadpack")}
    settings = {
        "core.hooksPath": str(spare),
        "core.fsmonitor": str(program["fsmonitor"]),
        "filter.evil.clean": str(program["filter"]),
        "filter.evil.smudge": str(program["filter"]),
        "filter.evil.process": str(program["filter"]),
        "filter.evil.required": "true",
        "credential.helper": f"!{program['credential']}",
        "core.askPass": str(program["askpass"]),
        "core.sshCommand": str(program["ssh"]),
        "remote.origin.uploadpack": str(program["uploadpack"]),
        "remote.origin.receivepack": str(program["uploadpack"]),
        "gc.auto": "1",
        "fetch.recurseSubmodules": "yes",
    }
    for key, value in settings.items():
        git(workspace, "config", key, value)
    (workspace / ".git" / "info").mkdir(exist_ok=True)
    (workspace / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n")
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("".join(_config_line(k, v) for k, v in settings.items()))


def _config_line(key: str, value: str) -> str:
    section, _, name = key.rpartition(".")
    head, _, sub = section.partition(".")
    title = f'{head} "{sub}"' if sub else head
    return f"[{title}]\n\t{name} = {value}\n"


def plant_programs(workspace: Path, record: Path, urls: list[str]) -> None:
    """The kinds issue 32 found after issue 25's list: git applies `remote.<URL>.uploadpack`
    to a fetch or ls-remote by that URL, runs `core.alternateRefsCommand` on a fetch when the
    repository has alternates, follows `diff.<driver>.textconv` in blame, and starts
    `gpg.program` from `show` with `log.showSignature` on a signed commit."""
    planted = workspace.parent / "planted"
    program = {key: _recorder(planted / key, key, record)
               for key in ("uploadpack-url", "alternate-refs", "textconv", "gpg")}
    for url in urls:
        git(workspace, "config", f"remote.{url}.uploadpack", str(program["uploadpack-url"]))
    elsewhere = workspace.parent / "elsewhere.git"
    if not elsewhere.exists():
        git(workspace.parent, "init", "-q", "--bare", str(elsewhere))
    (workspace / ".git" / "objects" / "info" / "alternates").write_text(
        f"{elsewhere / 'objects'}\n")
    git(workspace, "config", "core.alternateRefsCommand", str(program["alternate-refs"]))
    git(workspace, "config", "diff.evil.textconv", str(program["textconv"]))
    git(workspace, "config", "gpg.program", str(program["gpg"]))
    git(workspace, "config", "log.showSignature", "true")
    git(workspace, "config", "core.fsmonitor", str(_recorder(planted / "fsmonitor", "fsmonitor",
                                                             record)))
    info = workspace / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("* diff=evil\n")


def signed_copy(workspace: Path, commit: str) -> str:
    """`commit` again, now with a `gpgsig` header, written into the clone: what `show` with
    `log.showSignature` hands to `gpg.program`."""
    raw = git(workspace, "cat-file", "commit", commit) + "\n"
    head, _, message = raw.partition("\n\n")
    signature = ("gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n"
                 " -----END PGP SIGNATURE-----")
    forged = f"{head}\n{signature}\n\n{message}"
    done = subprocess.run(["git", "-C", str(workspace), "hash-object", "-t", "commit", "-w",
                           "--stdin"], input=forged, capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stdout.strip()


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder`: size and modification time."""
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def _server(repo: Served, fake: FakeGitHub) -> str:
    return repo.server_url or fake.url


def recorded(record: Path) -> list[str]:
    return sorted(p.name for p in record.iterdir())


@pytest.fixture(params=["path", "http"])
def repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    origin = make_origin(tmp_path / "remote")
    with served(request.param, origin, tmp_path / "srv", PUSH_TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def _step(tmp_path: Path, fake: FakeGitHub, repo: Served, workspace: Path, name: str,
          inputs: dict[str, str]):
    (tmp_path / name).mkdir()
    step = Job(tmp_path / name, fake.url).step(
        workspace, sha=repo.origin.main,
        inputs={"github-token": TOKEN, "push-token": PUSH_TOKEN, **inputs})
    step.env["HOME"] = str(tmp_path / "home")
    step.env["ACTIONS_RUNTIME_TOKEN"] = "runtime-token-secret"
    return repo.point(step)


def test_planted_hooks_fsmonitor_and_filters_run_nothing(tmp_path, repo, fake_github):
    workspace = repo.clone("main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(out / f"{name}-{NIGHTLY}.zip", name)
    record = tmp_path / "recorded"
    plant(workspace, tmp_path / "home", record)

    # The plants are real: plain git, as an earlier step would run it, starts them.
    subprocess.run(["git", "-C", str(workspace), "update-ref", "refs/probe", "HEAD"],
                   env={"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")},
                   capture_output=True, timeout=60, check=False)
    assert recorded(record), "no planted program ran for plain git: the test proves nothing"
    for path in record.iterdir():
        path.unlink()

    plant_programs(workspace, record, [repo.url, f"{_server(repo, fake_github)}/{REPOSITORY}.git"])
    before = snapshot(workspace / ".git")
    steps = {
        "check": {"mode": "check", "version": NIGHTLY, "artifacts": "out",
                  "frameworks-from": FRAMEWORKS_FROM},
        "publish": {"mode": "publish", "version": NIGHTLY, "artifacts": "out",
                    "frameworks-from": FRAMEWORKS_FROM},
        "audit": {"mode": "audit"},
    }
    for name, inputs in steps.items():
        step = _step(tmp_path, fake_github, repo, workspace, name, inputs)
        result = run_entrypoint(step, workspace)
        assert result.returncode == 0, (name, result.stdout + result.stderr)
        assert recorded(record) == [], (name, recorded(record))
    assert f"swiftpm-{NIGHTLY}" in repo.heads(), "the publish step pushed nothing"
    assert list(repo.heads()) == [f"swiftpm-{NIGHTLY}"], "pushed beyond the expected branch"
    assert snapshot(workspace / ".git") == before, "the action wrote into the workspace clone"


def test_planted_programs_of_every_kind_never_run_on_a_template_pr(tmp_path, fake_github, runner):
    """The release-lines pull request (issue 23's shape) reads other refs every way the action
    does: fetch and ls-remote of the release lines, `show` of the newest published branch's
    tip, blame of the pull request's template line. The clone carries every kind of planted
    program, and, where the old reader would have shown it, a signed copy of the published
    tip as its `origin/` ref. Nothing runs; the report is the one an unplanted clone gets."""
    made = make_history(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    workspace = clone(Origin(made.bare, made.main, made.swiftpm), "swiftpm",
                      tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "torchao-swiftpm")
    write_template_branch(workspace, [*LIVE_PRODUCTS, "kernels_gguf"])
    head = commit_all(workspace, "Add GGUF kernels (#13401)")
    record = tmp_path / "recorded"
    plant(workspace, tmp_path / "home", record)
    plant_programs(workspace, record, [str(made.bare), f"{fake_github.url}/{REPOSITORY}.git"])
    published = git(made.bare, "for-each-ref", "--format=%(refname:short) %(objectname)",
                    "refs/heads/swiftpm-*")
    for line in published.splitlines():
        name, tip = line.split(" ")
        git(workspace, "update-ref", f"refs/remotes/origin/{name}", signed_copy(workspace, tip))
    for path in record.iterdir():  # the planting itself ran the hooks
        path.unlink()
    before = snapshot(workspace / ".git")

    payload = pull_request_payload(number=13401, head_sha=head, head_ref="torchao-swiftpm",
                                   base_ref="swiftpm", base_sha=made.swiftpm)
    step = runner.step(
        workspace,
        "pull_request",
        payload,
        sha=head,
        ref="refs/pull/13401/merge",
        inputs={"github-token": TOKEN, "frameworks-from": FRAMEWORKS_FROM,
                "frameworks-ref": "main release/*",
                "plain-expressions": EXPRESSION},
    )
    step.env["HOME"] = str(tmp_path / "home")
    result = run_entrypoint(step, workspace)
    print(result.stdout + result.stderr)  # what the run said, for the note
    assert recorded(record) == [], recorded(record)
    assert result.returncode == 1, result.stdout + result.stderr
    summary = rendered_text(fake_github.only_check_run()["output"]["summary"])
    # show ran (the day the old line last published) and blame ran (the commit and its PR).
    assert f"{OLD_PUBLISHED} ({OLD_DAY})" in summary  # release/0.4's row: when it last published
    assert f"{head[:10]} “Add GGUF kernels (#13401)”, PR #13401" in summary
    assert snapshot(workspace / ".git") == before, "the action wrote into the workspace clone"


@pytest.fixture
def public(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    """The repository at the fake's server URL (no token needed to read), the clone by path."""
    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    return origin


def _publish_steps(tmp_path: Path, fake: FakeGitHub, workspace: Path, sha: str,
                   path: str | None = None) -> list[subprocess.CompletedProcess[str]]:
    out = workspace / "out"
    out.mkdir(exist_ok=True)
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(out / f"{name}-{NIGHTLY}.zip", name)
    results = []
    for mode in ("check", "publish"):
        (tmp_path / mode).mkdir()
        step = Job(tmp_path / mode, fake.url).step(
            workspace, sha=sha,
            inputs={"github-token": TOKEN, "push-token": PUSH_TOKEN, "mode": mode,
                    "version": NIGHTLY, "artifacts": "out",
                    "frameworks-from": FRAMEWORKS_FROM})
        if path is not None:
            step.env["PATH"] = path
        results.append(run_entrypoint(step, workspace))
    return results


def test_a_git_first_on_the_jobs_path_never_runs(tmp_path, public, fake_github):
    """An earlier step put a `git` first on the job's PATH (it would receive the push
    header): the action runs the system's git, and publishes."""
    workspace = clone(public, "main", tmp_path / "workspace")
    planted = tmp_path / "planted-bin"
    record = tmp_path / "recorded"
    record.mkdir()
    _recorder(planted / "git", "path-git", record)
    for result in _publish_steps(tmp_path, fake_github, workspace, public.main,
                                 path=f"{planted}:{os.environ['PATH']}"):
        assert result.returncode == 0, result.stdout + result.stderr
    assert recorded(record) == []
    heads = git(public.bare, "for-each-ref", "--format=%(refname:short)", "refs/heads/swiftpm-*")
    assert heads == f"swiftpm-{NIGHTLY}"


def _environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone meanwhile, or not ours to read
        return b""


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def test_git_and_the_programs_it_starts_hold_no_token(tmp_path, public, fake_github):
    """While git talks to the server (its git-remote-http child is what connected), every
    process from that child up to the action holds no token in its environment: the header
    travels in a 0600 file in a private 0700 folder that GIT_CONFIG_GLOBAL names, gone after."""
    workspace = clone(public, "main", tmp_path / "workspace")
    seen: list[tuple[str, bytes]] = []  # (command name, environ) of each process in a chain
    files: dict[str, bytes] = {}  # credentials file → its text, read while git ran
    me = os.getpid()

    def look() -> None:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if not name.startswith("git-remote-"):
                continue
            chain, pid = [], int(entry.name)
            while pid not in (0, 1, me):
                chain.append(pid)
                pid = _parent(pid)
            if pid != me:
                continue  # not started by this test
            for member in chain:
                environ = _environ(member)
                seen.append((Path(f"/proc/{member}/comm").read_text().strip(), environ))
                for variable in environ.split(b"\0"):
                    key, _, value = variable.partition(b"=")
                    if key == b"GIT_CONFIG_GLOBAL" and value != os.devnull.encode():
                        path = value.decode()
                        mode = os.stat(path).st_mode & 0o777, os.stat(
                            os.path.dirname(path)).st_mode & 0o777
                        files[path] = Path(path).read_bytes() + f"\n{mode}".encode()

    fake_github.git_hook = look
    for result in _publish_steps(tmp_path, fake_github, workspace, public.main):
        assert result.returncode == 0, result.stdout + result.stderr
    names = {name for name, _environ in seen}
    assert {"git-remote-http", "git"} <= names, names  # git's child, git, the action
    assert any(name.startswith("python") for name in names), names
    for name, environ in seen:
        for secret in (TOKEN, PUSH_TOKEN, header(PUSH_TOKEN).split(" ", 1)[1]):
            assert secret.encode() not in environ, (name, secret)
    assert files, "no git carried the header: the test proves nothing"
    for path, text in files.items():
        assert header(PUSH_TOKEN).encode() in text and text.endswith(b"(384, 448)"), text
        assert not os.path.exists(os.path.dirname(path)), "the credentials file outlived git"
