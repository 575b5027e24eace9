"""The remote options of `publish` and `preflight`: which repository, and where its token is."""

from __future__ import annotations

import argparse
import os

from swiftpm_guard.core.git_names import DEFAULT_BRANCH_PREFIX
from swiftpm_guard.errors import UsageError
from swiftpm_guard.limits import GIT_NETWORK_SECONDS as NETWORK_TIMEOUT

DEFAULT_TOKEN_ENV = "GITHUB_TOKEN"


def add_remote_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("remote")
    group.add_argument(
        "--repo",
        required=True,
        metavar="REMOTE",
        help="path, file:// or http(s):// URL of the repository",
    )
    group.add_argument("--branch-prefix", default=DEFAULT_BRANCH_PREFIX, metavar="PREFIX",
                       help="a version publishes to PREFIX<version> (default "
                            f"{DEFAULT_BRANCH_PREFIX})")
    group.add_argument(
        "--token-env",
        default=DEFAULT_TOKEN_ENV,
        metavar="NAME",
        help="environment variable holding the token for http(s) remotes "
        f"(default {DEFAULT_TOKEN_ENV}); sent as a header, never in argv",
    )
    group.add_argument("--git-timeout", type=float, default=NETWORK_TIMEOUT, metavar="SECONDS",
                       help=f"for each git process that talks to the remote (default "
                            f"{NETWORK_TIMEOUT:g})")


def token_from_env(args: argparse.Namespace) -> tuple[str | None, str]:
    name = args.token_env
    if not name or not name.replace("_", "").isalnum():
        raise UsageError(f"--token-env {name!r} is not an environment variable name")
    return os.environ.get(name) or None, f"${name}"
