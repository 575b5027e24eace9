"""The configuration file on the command line: `--config FILE` (or `none`), else
`.github/swiftpm-guard.yml` in the current folder when it is there. Each setting the
subcommand has an option for is used where that option is not given; options win.

`template` applies to publish and preflight only: check and render take a local template path,
the file names one inside the template branch.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from swiftpm_guard.jobs.config import DEFAULT_CONFIG_PATH, ConfigFile, local_config

#: setting → (the option's dest, "str", "bool" or "list").
DESTS: dict[str, tuple[str, str]] = {
    "template": ("template", "list"),
    "template-ref": ("template_ref", "str"),
    "frameworks-from": ("frameworks_from", "list"),
    "plain-expressions": ("plain_expression", "list"),
    "frameworks-ref": ("frameworks_ref", "list"),
    "active-refs": ("active_ref", "list"),
    "debug-suffix": ("debug_suffix", "str"),
    "branch-prefix": ("branch_prefix", "str"),
    "exclude-paths": ("exclude", "list"),
    "author": ("author", "str"),
    "accept-static": ("accept_static", "bool"),
    "verify-urls": ("verify_urls", "bool"),
    "verify-zips": ("verify_zips", "bool"),
    "verify-absent": ("verify_absent", "bool"),
    "absent-on-403": ("absent_on_403", "bool"),
    "base-url": ("base_url", "str"),
    "download-growth-limit": ("download_growth_limit", "str"),
    "branches": ("branches", "str"),
}
#: Where the file's setting means something else than the option of the same name.
_NOT_FOR = {"template": ("check", "render")}


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="settings shared with the action (docs/adopting.md); default "
                             f"{DEFAULT_CONFIG_PATH} here when present; 'none': no file")


def given_options(parser: argparse.ArgumentParser, command: argparse.ArgumentParser,
                  argv: Sequence[str]) -> set[str]:
    """The dests of `command`'s options that `argv` gives (whatever their value: an option
    given with its default value still wins over the file)."""
    saved = [(action, action.default) for action in command._actions]
    try:
        for action, _default in saved:
            action.default = None  # parsed again: None is what argv did not give
        again = parser.parse_args(list(argv))
    finally:
        for action, default in saved:
            action.default = default
    return {dest for dest, value in vars(again).items() if value is not None}


def apply_config(args: argparse.Namespace, given: set[str],
                 log: Callable[[str], None]) -> ConfigFile | None:
    """Fill the options `given` does not name from the file; the file read."""
    found = local_config(args.config, Path.cwd(), log)
    if found is None:
        return None
    for key, value in found.values.items():
        dest, kind = DESTS.get(key, ("", ""))
        if not hasattr(args, dest) or args.command in _NOT_FOR.get(key, ()):
            continue  # an action-only setting (check-name, publish-refs …), or not this command
        if dest in given:
            continue
        if kind == "bool":
            if isinstance(value, bool):
                setattr(args, dest, value)
        elif kind == "list":
            setattr(args, dest, list(value) if isinstance(value, tuple) else [value])
        else:
            setattr(args, dest, value)
    return found
