"""The GitHub Action: the runner's environment and event → settings → the mode's job → check
run, summary, outputs, exit code (`modes`, `delivery`). The adapters (the GitHub session, made
on first use, and the log) are made here once.

Exit codes: 0 consistent (or a pull request whose conclusion is `neutral`; publish: pushed or a
clean dry run), 1 error findings (publish: also an existing branch or a lost race), 2 bad
inputs, 3 broken infrastructure (git, the API).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from swiftpm_guard.action import modes
from swiftpm_guard.action.event import Event
from swiftpm_guard.action.settings import (
    ActionSettings,
    api_url_from,
    check_inputs,
    config_input,
    proxy_from,
    push_token_from,
    spoken,
    token_from,
)
from swiftpm_guard.console import command, log, tell
from swiftpm_guard.errors import GuardError
from swiftpm_guard.infra.github import GitHubSession, RetryPolicy
from swiftpm_guard.infra.scratch import private_tempdir
from swiftpm_guard.jobs.adapters import Adapters, CheckRunSink, run_git
from swiftpm_guard.jobs.config import config_at_default_branch
from swiftpm_guard.sinks import actions_io


def _notice(line: str) -> None:
    command(actions_io.command("notice", spoken(line), {"title": "swiftpm-guard"}))


def _schedule_branch(event: Event) -> str | None:
    """A scheduled workflow runs on the default branch (GitHub's rule): its ref names it."""
    return event.branch if event.name == "schedule" else None


def main(environ: Mapping[str, str] | None = None, *, policy: RetryPolicy | None = None,
         check_runs: CheckRunSink | None = None) -> int:
    """`check_runs`: a rehearsal's recording sink: no GitHub API at all, the check run it
    would create handed to the sink (action/rehearse.py)."""
    # Every temporary file of the run in one private folder, never under the job's TMPDIR.
    with private_tempdir():
        return _main(os.environ if environ is None else environ, policy, check_runs)


def _main(env: Mapping[str, str], policy: RetryPolicy | None,
          check_runs: CheckRunSink | None) -> int:
    for token in (token_from(env), push_token_from(env)):
        if token:
            for line in actions_io.mask(token):
                command(line)
    try:
        check_inputs(env)
        event = Event.from_env(env)
        proxy = proxy_from(env)
        # git's environment is the process's (a rehearsal's `env` is made up; its git is the
        # developer's), contained by infra.git; its proxy is input proxy, none besides.
        git = run_git(proxy)
        github = GitHubSession(api_url_from(env), token_from(env), event.repository,
                               (policy or RetryPolicy()).for_run(), proxy=proxy)
        online = github if check_runs is None else None
        try:
            def said(line: str) -> None:
                log(spoken(line))

            config, default_branch = config_at_default_branch(
                Path(env.get("GITHUB_WORKSPACE", "").strip() or "."), config_input(env),
                git=git, default_branch=event.default_branch or _schedule_branch(event),
                github=online, log=said)
            settings = ActionSettings.from_env(
                env, config.as_inputs() if config is not None else None)
            if default_branch != event.default_branch:  # asked once, for the file
                settings = replace(settings, event=replace(settings.event,
                                                           default_branch=default_branch))
            return modes.run(settings, Adapters(log=said, github=online,
                                                notice=_notice, check_runs=check_runs,
                                                own_clone=check_runs is not None,
                                                proxy=proxy, git=git))
        finally:
            github.close()
    except GuardError as error:
        command(actions_io.command("error", spoken(str(error)), {"title": "swiftpm-guard"}))
        return error.exit_code
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    except Exception as error:  # a bug must not pass for "findings" (exit 1)
        # The traceback quotes whatever the failing value held: through the door, like
        # every other line.
        tell(traceback.format_exc().rstrip("\n"))
        command(actions_io.command("error", f"internal error: {type(error).__name__}: {error}",
                               {"title": "swiftpm-guard"}))
        return 3
