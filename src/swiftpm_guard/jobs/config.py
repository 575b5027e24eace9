"""Finding and reading the configuration file (sources/config_file.py) for a front end.

The action reads it at the repository's default branch, through the same readers as every
other ref (the workspace clone, else the contents API): a pull request cannot change the
settings its own check runs with. The CLI reads the file in the working tree it runs in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from swiftpm_guard.core.names import repo_path
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import InputError, Missing, UsageError
from swiftpm_guard.infra.fs import read_bytes
from swiftpm_guard.sources.config_file import (
    CONFIG_MAX_BYTES,
    DEFAULT_CONFIG_PATH,
    ConfigFile,
    parse_config,
)

if TYPE_CHECKING:
    from swiftpm_guard.infra.git import Git
    from swiftpm_guard.infra.github import GitHubSession

__all__ = ["DEFAULT_CONFIG_PATH", "ConfigFile", "config_at_default_branch", "local_config",
           "validate_config_option"]


def validate_config_option(value: str, what: str) -> str:
    """`none` (no file), empty (the default path, if present) or a relative path."""
    if value in ("", "none"):
        return value
    return repo_path(value, what)


def config_at_default_branch(workspace: Path, named: str, *, git: Git,
                             default_branch: str | None, github: GitHubSession | None,
                             log: Callable[[str], None]) -> tuple[ConfigFile | None, str | None]:
    """The file `named` (empty: DEFAULT_CONFIG_PATH) at the default branch, and that branch
    when it had to be asked for (so no one asks twice). No file with `none`, or when the
    default file is absent or there is nothing to read it from (said in the log). A file
    named and not there is bad input."""
    if named == "none":
        return None, default_branch
    from swiftpm_guard.sources.refs import Checkout  # git and the API: not for the CLI's local file

    path = named or DEFAULT_CONFIG_PATH
    checkout = Checkout(workspace, git=git, github=github, default_branch=default_branch,
                        log=log)
    try:
        branch = checkout.default_branch()
        reader = checkout.reader(branch)
    except InputError as error:
        if named:
            raise
        log(f"no configuration file read: {error}")
        return None, default_branch
    try:
        data = reader.read(path, max_bytes=CONFIG_MAX_BYTES, what="configuration file")
    except Missing:
        if named:
            raise
        return None, branch
    found = parse_config(data, path=path, where=reader.where)
    log(f"settings from {path} at {reader.where}: {', '.join(found.values) or 'none'}")
    return found, branch


def local_config(named: str | None, root: Path, log: Callable[[str], None]) -> ConfigFile | None:
    """The CLI's: `named` (a file), else DEFAULT_CONFIG_PATH under `root` when it is there;
    `none`: no file."""
    if named == "none":
        return None
    if named is None:
        default = root / DEFAULT_CONFIG_PATH
        if not default.is_file():
            return None
        named = str(default)
    if not named:
        raise UsageError(f"{option('config')} needs a file (or none)")
    data = read_bytes(named, display=named, max_bytes=CONFIG_MAX_BYTES,
                      what="configuration file")
    found = parse_config(data, path=named, where="the working tree")
    log(f"settings from {named}: {', '.join(found.values) or 'none'}")
    return found
