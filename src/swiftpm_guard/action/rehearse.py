"""`swiftpm-guard rehearse`: run one of the action's modes on a local clone, as the action
would run it for an event, and write what it would post to files. Nothing is posted, nothing
is pushed.

The runner's environment and the event payload are built from the clone (its commit, branch,
origin and default branch) and the options; then the action's own entry (`action.main`) runs
with them, with a recording sink instead of the GitHub API: the same settings, modes and
delivery as on a runner. publish (and `auto` where it would publish) runs as a dry run. DIR
gets `check-run.json` (the check run's title, summary, conclusion and annotations),
`summary.md` (the job summary), `outputs.json` (the exit code and the step outputs),
`outputs.txt` (the outputs as the runner's file holds them), `event.json` (the payload) and,
for a pull request with input pr-comment, `pr-comment.md` (the comment it would post).
The reports the action leaves in the workspace (`.swiftpm-guard/`) stay in the clone, as on a
runner.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard.console import say
from swiftpm_guard.core.names import MODES
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.adapters import Adapters

if TYPE_CHECKING:
    from swiftpm_guard.infra.git import Git

EVENTS = ("push", "pull_request", "workflow_dispatch", "schedule")
#: Inputs a rehearsal does not take: it posts and pushes nothing, so it holds no token.
NOT_REHEARSED = {"github-token", "push-token", "mode", "version", "dry-run"}
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "rehearse", help="run a mode of the action on a local clone; write what it would post",
        description="Run one of the action's modes on a local clone as the action would for "
                    "an event, writing the check run, the job summary and the outputs to files "
                    "in --out. Nothing is posted, nothing is pushed (publish is a dry run).")
    parser.add_argument("--event", required=True, choices=EVENTS,
                        help="the triggering event to rehearse")
    parser.add_argument("--mode", default="auto", choices=MODES,
                        help="input mode (default auto: publish on schedule and "
                             "workflow_dispatch, check otherwise)")
    parser.add_argument("--version", default="", help="input version")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE",
                        help="any other input of the step, as in its `with:` (repeatable; a "
                             "multi-line input takes '\\n' between items)")
    parser.add_argument("--ref", metavar="REF",
                        help="GITHUB_REF (default refs/heads/<the branch checked out>)")
    parser.add_argument("--base", metavar="BRANCH",
                        help="pull_request: the branch the pull request goes into (default: "
                             "the default branch)")
    parser.add_argument("--repository", metavar="OWNER/NAME",
                        help="default: from the clone's origin URL")
    parser.add_argument("--default-branch", metavar="BRANCH",
                        help="the repository's default branch (default: origin/HEAD of the "
                             "clone, else main)")
    parser.add_argument("--server-url", default="https://github.com", metavar="URL",
                        help="GITHUB_SERVER_URL (default %(default)s)")
    parser.add_argument("--clone", default=".", metavar="DIR",
                        help="the local clone, the workspace (default: here)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="where check-run.json, summary.md and outputs.json go")


def inputs_of(args: argparse.Namespace) -> dict[str, str]:
    """The step's inputs from the options; publish where it could push is a dry run."""
    from swiftpm_guard.action.settings import INPUTS, PUBLISH_EVENTS  # not for other commands

    given: dict[str, str] = {}
    for item in args.input:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in INPUTS:
            raise UsageError(f"--input {item[:80]!r} is not NAME=VALUE with NAME an input of "
                             "the action (docs/reference/inputs.md)")
        if name in NOT_REHEARSED:
            raise UsageError(f"--input {name}: a rehearsal posts and pushes nothing, so it "
                             "takes no token; mode and version have their own options")
        given[name] = value.replace("\\n", "\n")
    given["mode"] = args.mode
    given["version"] = args.version
    publishes = args.mode == "publish" or (args.mode == "auto" and args.event in PUBLISH_EVENTS)
    if publishes:
        given["dry-run"] = "true"
    return given


def _repository_object(repository: str, default_branch: str) -> dict[str, Any]:
    owner, name = repository.split("/")
    return {"full_name": repository, "name": name, "owner": {"login": owner},
            "default_branch": default_branch, "private": False}


def payload_of(event: str, *, repository: str, default_branch: str, ref: str, head: str,
               branch: str | None, base: str) -> dict[str, Any]:
    """The event payload in GitHub's shape, as far as the action reads it."""
    repo = _repository_object(repository, default_branch)
    if event == "pull_request":
        head_ref = branch or "rehearsal"
        return {"action": "synchronize", "number": 1, "repository": repo, "pull_request": {
            "number": 1,
            "head": {"ref": head_ref, "sha": head, "repo": repo},
            "base": {"ref": base, "repo": repo}}}
    if event == "push":
        return {"ref": ref, "before": "0" * 40, "after": head, "repository": repo,
                "head_commit": {"id": head}}
    if event == "workflow_dispatch":
        return {"ref": ref, "inputs": {}, "repository": repo}
    return {"schedule": "rehearsal", "repository": repo}


def runner_env(args: argparse.Namespace, out: Path, git: Git) -> dict[str, str]:
    """The environment the runner gives the action's step, built from the local clone (read
    with the run's `git`)."""
    from swiftpm_guard.jobs.rehearsal import local_clone

    clone = local_clone(Path(args.clone), git)
    repository = args.repository or clone.repository()
    if repository is None or not _REPOSITORY.fullmatch(repository):
        raise UsageError("cannot tell the repository from the clone's origin: give "
                         "--repository OWNER/NAME")
    default_branch = args.default_branch or clone.default_branch or "main"
    inputs = inputs_of(args)
    pull = args.event == "pull_request"
    base = args.base or default_branch
    ref = args.ref or ("refs/pull/1/merge" if pull else
                       f"refs/heads/{clone.branch or default_branch}")
    payload = payload_of(args.event, repository=repository, default_branch=default_branch,
                         ref=ref, head=clone.head, branch=clone.branch, base=base)
    event_path, output, summary = out / "event.json", out / "outputs.txt", out / "summary.md"
    event_path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    for path in (output, summary):
        path.write_bytes(b"")
    # The process's own environment (git and SwiftPM run with it), without anything a
    # runner would set: no GITHUB_TOKEN, no stray INPUT_.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update({
        "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": args.event,
        "GITHUB_EVENT_PATH": str(event_path), "GITHUB_REPOSITORY": repository,
        "GITHUB_SHA": clone.head, "GITHUB_REF": ref, "GITHUB_WORKSPACE": str(clone.root),
        "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_SERVER_URL": args.server_url,
    })
    if pull:
        env["GITHUB_BASE_REF"] = base
        env["GITHUB_HEAD_REF"] = clone.branch or "rehearsal"
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value
    return env


def read_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT read as the runner reads it: `name=value` and `name<<DELIMITER` blocks."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        block = re.fullmatch(r"([^=<]+)<<(.+)", line)
        if block:
            name, marker = block.groups()
            end = lines.index(marker, index)
            values[name] = "\n".join(lines[index:end])
            index = end + 1
        elif "=" in line:
            name, _sep, value = line.partition("=")
            values[name] = value
    return values


def run(args: argparse.Namespace, adapters: Adapters) -> int:
    from swiftpm_guard.action.main import main
    from swiftpm_guard.sinks.check_run_file import COMMENT_FILE, CheckRunRecording

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--out {args.out!r} cannot be created: {error.strerror}") from None
    env = runner_env(args, out, adapters.git)
    (out / "check-run.json").unlink(missing_ok=True)
    (out / COMMENT_FILE).unlink(missing_ok=True)
    recording = CheckRunRecording(out / "check-run.json", args.server_url)
    code = main(env, check_runs=recording)
    outputs = read_outputs((out / "outputs.txt").read_text(encoding="utf-8"))
    document = {"exit_code": code, "outputs": outputs}
    (out / "outputs.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n",
                                      encoding="utf-8")
    made = "check-run.json, " if recording.recorded else ""
    made += f"{COMMENT_FILE}, " if recording.comment is not None else ""
    say(f"rehearsal: exit {code}; wrote {made}summary.md and outputs.json to {out} "
        "(nothing posted, nothing pushed)")
    return code
