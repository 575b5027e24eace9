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

from swiftpm_guard.action import modes
from swiftpm_guard.action.settings import (
    ActionSettings,
    in_input_names,
    push_token_from,
    token_from,
)
from swiftpm_guard.console import command, log, tell
from swiftpm_guard.errors import GuardError
from swiftpm_guard.infra.github import GitHubSession, RetryPolicy
from swiftpm_guard.jobs.adapters import Adapters
from swiftpm_guard.sinks import actions_io


def _notice(line: str) -> None:
    command(actions_io.command("notice", in_input_names(line), {"title": "swiftpm-guard"}))


def main(environ: Mapping[str, str] | None = None, *, policy: RetryPolicy | None = None) -> int:
    env = os.environ if environ is None else environ
    for token in (token_from(env), push_token_from(env)):
        if token:
            for line in actions_io.mask(token):
                command(line)
    try:
        settings = ActionSettings.from_env(env)
        github = GitHubSession(settings.api_url, settings.token, settings.event.repository,
                               (policy or RetryPolicy()).for_run())
        try:
            return modes.run(settings, Adapters(log=lambda line: log(in_input_names(line)),
                                                notice=_notice, github=github))
        finally:
            github.close()
    except GuardError as error:
        command(actions_io.command("error", in_input_names(str(error)), {"title": "swiftpm-guard"}))
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
