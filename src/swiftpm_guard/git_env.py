"""Configuration for one git child process, given through its environment (pure).

`GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_<n>` / `GIT_CONFIG_VALUE_<n>` is git's command-line scope:
it overrides every config file, writes none, and does not show in argv. It is also one of the
scopes git trusts for `safe.directory` (a repository's own config is not), which is how the
action reads a runner's workspace: the checkout belongs to the runner's user (uid 1001) while
a Docker action runs as root, and git refuses such a repository ("dubious ownership") unless a
trusted scope names it. A global config file is not an option: the container has none, and
writing one would outlive the step.

Git drops these variables before it starts `upload-pack`/`receive-pack` for a local (path or
`file://`) remote, so they cannot vouch for a remote repository on disk owned by someone else;
a runner's remote is `https://`, where that does not arise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

_COUNT = "GIT_CONFIG_COUNT"


def with_config(env: Mapping[str, str], pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`env` plus `pairs`, appended after any GIT_CONFIG_* entries `env` already carries."""
    result = dict(env)
    current = result.get(_COUNT, "0")
    index = int(current) if current.isdigit() else 0
    for key, value in pairs:
        result[f"GIT_CONFIG_KEY_{index}"] = key
        result[f"GIT_CONFIG_VALUE_{index}"] = value
        index += 1
    result[_COUNT] = str(index)
    return result


def safe_directory(path: Path | str) -> tuple[str, str]:
    """The entry that lets git work in `path` whoever owns it (compared after resolving)."""
    return ("safe.directory", str(Path(path).resolve()))
