"""The SwiftPM options every command that checks a manifest takes (`--swift`, `--swift-cache`)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("SwiftPM")
    group.add_argument(
        "--swift",
        default="auto",
        metavar="auto|off|PATH",
        help="evaluate the manifest with the real SwiftPM: 'auto' uses swift on "
        "PATH if present (default), 'off' never, or this executable",
    )
    group.add_argument(
        "--swift-cache",
        metavar="DIR",
        help="cache of SwiftPM results (default: $XDG_CACHE_HOME/swiftpm-guard "
        "or ~/.cache/swiftpm-guard)",
    )
