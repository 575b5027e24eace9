"""The GitHub Action: inputs and event → the CLI's own check → check run, summary, outputs.

Three modes, one module each: `check`, `publish` (the same sources, then the publish job
against the repository's remote) and `audit` (the published branches). Adapters are built
here once and passed down: the GitHub client (made on first
use), the ref readers (the workspace clone, else the contents API). The verdict and the exit
code come from the report alone; the check run is best effort. When it cannot be written (fork
pull requests and Dependabot get a read-only token, or there is no token, or the API is down)
the same annotations go out as workflow commands and the job summary still tells everything.

Exit codes: 0 consistent (or a pull request whose conclusion is `neutral`; publish: pushed or a
clean dry run), 1 error findings (publish: also an existing branch or a lost race), 2 bad
inputs, 3 broken infrastructure (git, the API).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING

from swiftpm_guard.action.check import run_check
from swiftpm_guard.action.delivery import note
from swiftpm_guard.action.inputs import push_token_from, token_from
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.errors import GuardError
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs.publish_request import NO_PUSH_EVENTS
from swiftpm_guard.report import markdown as md
from swiftpm_guard.sinks import actions_io

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import RetryPolicy


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _say(line: str) -> None:
    print(line, flush=True)


def run(settings: ActionSettings, policy: RetryPolicy) -> int:
    github = GitHubSession(settings.api_url, settings.token, settings.event.repository,
                           policy.for_run())
    try:
        if settings.mode == "audit":
            from swiftpm_guard.action.audit import run_audit

            return run_audit(settings, github)
        if settings.mode == "preflight":
            from swiftpm_guard.action.preflight import run_preflight

            return run_preflight(settings, github)
        if settings.mode != "publish":
            return run_check(settings, github)
        why = _no_publish(settings, github)
        if why is not None:
            # Code under review is not a release, nor is a branch publish-refs leaves out. A
            # template PR's own template is in the workspace, which only the check reads: so
            # this is the check, said plainly.
            _say(actions_io.command("notice", why, {"title": "swiftpm-guard"}))
            return run_check(settings, github, notes=(note(why),), not_pushed=why)
        from swiftpm_guard.action.publish import run_publish

        return run_publish(settings, github)
    finally:
        github.close()


def _no_publish(settings: ActionSettings, github: GitHubSession) -> str | None:
    """Why this publish run only checks (an event that never publishes, a ref not allowed)."""
    if settings.event.name in NO_PUSH_EVENTS:
        return (
            f"mode publish on a {md.code(settings.event.name)} event: checked only, nothing "
            "is pushed (pull requests and merge queues never publish)"
        )
    from swiftpm_guard.action.publish_gate import refused

    return refused(settings, github)


def main(environ: Mapping[str, str] | None = None, *, policy: RetryPolicy | None = None) -> int:
    env = os.environ if environ is None else environ
    for token in (token_from(env), push_token_from(env)):
        if token:
            for line in actions_io.mask(token):
                _say(line)
    try:
        settings = ActionSettings.from_env(env)
        if policy is None:
            from swiftpm_guard.infra.github import RetryPolicy

            policy = RetryPolicy()
        return run(settings, policy)
    except GuardError as error:
        _say(actions_io.command("error", str(error), {"title": "swiftpm-guard"}))
        return error.exit_code
    except KeyboardInterrupt:
        _log("swiftpm-guard: interrupted")
        return 130
    except Exception as error:  # a bug must not pass for "findings" (exit 1)
        traceback.print_exc()
        _say(
            actions_io.command(
                "error",
                f"internal error: {type(error).__name__}: {error}",
                {"title": "swiftpm-guard"},
            )
        )
        return 3
