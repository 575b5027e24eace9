"""How publishing runs git: a scrubbed environment, our configuration through `GIT_CONFIG_*`,
a deadline per process, and errors that are one redacted line with a hint.

- git runs from argument lists (never a shell), by absolute path;
- every inherited `GIT_*` variable is dropped and the system and global config files are
  ignored, so a runner's `GIT_DIR`, `GIT_INDEX_FILE`, `url.insteadOf`, credential helpers or
  hooks cannot redirect or change what we push;
- the `http.<origin>.extraHeader` carrying the token goes only to the remote's origin, with
  redirects refused, so the token never appears in argv, a URL, a config file or our output.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from swiftpm_guard.core.git_names import Identity, Remote, authorization_header
from swiftpm_guard.core.text_lines import split_lines
from swiftpm_guard.errors import InfrastructureError
from swiftpm_guard.infra.git import GitTimeout, contain_credentials, find_git, run_git
from swiftpm_guard.limits import GIT_NETWORK_SECONDS

#: Local plumbing is instant; a network call on a slow runner can take a while, not forever.
LOCAL_TIMEOUT = 60.0
NETWORK_TIMEOUT = GIT_NETWORK_SECONDS
_ALLOWED_PROTOCOLS = "file:http:https"


class GitError(InfrastructureError):
    """git failed for a reason that is not the user's input (exit 3)."""


def scrubbed_env(
    base: Mapping[str, str],
    config: Sequence[tuple[str, str]],
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """`base` without any GIT_* or askpass variable, plus our own config and settings.

    A header in `config` comes with `http.followRedirects=false` (infra.git.contain_credentials).
    """
    config = contain_credentials(config)
    env = {
        k: v
        for k, v in base.items()
        if not k.startswith("GIT_") and k not in ("SSH_ASKPASS", "LANGUAGE")
    }
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",  # a missing token fails at once instead of waiting
            "GIT_ALLOW_PROTOCOL": _ALLOWED_PROTOCOLS,
            "LC_ALL": "C",  # messages we classify are git's own English ones
            "GIT_CONFIG_COUNT": str(len(config)),
        }
    )
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    if extra:
        env.update(extra)
    return env


class PublishGit:
    """git as publishing runs it: one binary by absolute path, the scrubbed environment with
    our configuration (the token's header scoped to the remote's origin), a deadline per
    process, git's messages redacted, and hints that say what the remote wanted."""

    def __init__(
        self,
        path: Path,
        remote: Remote,
        *,
        token: str | None = None,
        identity: Identity | None = None,
        environ: Mapping[str, str] | None = None,
        network_timeout: float = NETWORK_TIMEOUT,
        token_source: str = "the variable --token-env names",
    ) -> None:
        self.path = path
        self.remote = remote
        self._token = token
        self._token_source = token_source  # where the token comes from, for error hints
        self._network_timeout = network_timeout
        base = dict(os.environ if environ is None else environ)
        # By absolute path: in the action's container the job's PATH may not lead to git.
        try:
            self._git = find_git(base.get("PATH"))
        except InfrastructureError as error:
            raise GitError(f"{error}; publishing needs git") from None
        config = [
            ("core.hooksPath", os.devnull),  # no hook of any repository runs
            ("gc.auto", "0"),
            ("maintenance.auto", "false"),
            ("http.lowSpeedLimit", "1000"),  # a stalled transfer fails instead of hanging
            ("http.lowSpeedTime", "30"),
            ("credential.helper", ""),
        ]
        if token is not None and remote.origin is not None:
            # git applies http.<url>.* only to URLs under that origin, not to other hosts.
            config.append((f"http.{remote.origin}.extraHeader", authorization_header(token)))
        ident: dict[str, str] = {}
        if identity is not None:
            ident = {
                "GIT_AUTHOR_NAME": identity.name,
                "GIT_AUTHOR_EMAIL": identity.email,
                "GIT_COMMITTER_NAME": identity.name,
                "GIT_COMMITTER_EMAIL": identity.email,
            }
        self._env = scrubbed_env(base, config, ident)


    def redact(self, text: str) -> str:
        if self._token:
            text = text.replace(self._token, "***")
            text = text.replace(authorization_header(self._token), "Authorization: ***")
        return text

    def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        network: bool = False,
        env: Mapping[str, str] | None = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[bytes]:
        timeout = self._network_timeout if network else LOCAL_TIMEOUT
        try:
            result = run_git(
                [self._git, *args],
                cwd=self.path,
                env={**self._env, **(env or {})},
                stdin=stdin,
                timeout=timeout,
            )
        except GitTimeout:
            raise GitError(
                f"git {args[0]} did not finish within {timeout:.0f} s (remote {self.remote.url})"
            ) from None
        except InfrastructureError as error:
            raise GitError(str(error)) from None
        if check and result.returncode != 0:
            raise GitError(f"git {args[0]} failed: {self.message(result)}{self._hint(result)}")
        return result

    def _hint(self, result: subprocess.CompletedProcess[bytes]) -> str:
        text = result.stderr.decode("utf-8", "replace")
        if self.remote.kind == "http" and re.search(r"returned error: 30[1278]\b", text):
            return (
                " (the remote answered with a redirect: swiftpm-guard never follows one, so the "
                "token reaches only the origin named; give --repo the URL it redirects to)"
            )
        if self.remote.kind == "http" and any(
            s in text for s in ("could not read Username", "Authentication failed", " 403")
        ):
            source = self._token_source
            if self._token is None:
                return f" (the remote wants a token and none was sent: is it in {source}?)"
            return f" (the remote refused the token from {source}: may it do this?)"
        return ""

    def message(self, result: subprocess.CompletedProcess[bytes]) -> str:
        """git's last meaningful stderr line, redacted, for a one-line error."""
        lines = [
            ln.strip()
            for ln in split_lines(self.redact(result.stderr.decode("utf-8", "replace")))
            if ln.strip()
        ]
        fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:", "remote: error"))]
        return (fatal or lines or [f"exit status {result.returncode}"])[-1][:500]
