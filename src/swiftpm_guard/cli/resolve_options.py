"""`--resolve` for check, render and publish: have the real SwiftPM resolve a throwaway
consumer of the rendered manifest, target by target (jobs.resolve)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from swiftpm_guard.errors import UsageError

if TYPE_CHECKING:
    from swiftpm_guard.jobs.resolve import ResolveSettings

DEFAULT_TIMEOUT = 900.0


def add_resolve_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("consumer resolution (the real SwiftPM)")
    group.add_argument("--resolve", action="store_true",
                       help="after a passing check, resolve a throwaway consumer of the "
                            "manifest with `swift package resolve`: every binary target "
                            "downloaded, checksum verified, archive accepted")
    group.add_argument("--resolve-swift", metavar="PATH",
                       help="a swift that can reach the zips' hosts (default: the one --swift "
                            "found; on Linux: `scripts/swift-toolchain.sh --resolver`)")
    group.add_argument("--resolve-cache", metavar="DIR",
                       help="results by manifest, URLs and checksums (default "
                            "~/.cache/swiftpm-guard/resolve)")
    group.add_argument("--resolve-timeout", type=float, default=DEFAULT_TIMEOUT,
                       metavar="SECONDS",
                       help=f"deadline for one resolve (default {DEFAULT_TIMEOUT:g})")
    group.add_argument("--resolve-ca-file", metavar="PEM",
                       help="a CA the resolve also trusts (a private or test server)")


def resolve_settings(args: argparse.Namespace) -> ResolveSettings | None:
    """The resolve these options ask for, or None without `--resolve` (exit 2 on bad ones)."""
    if not args.resolve:
        return None
    from swiftpm_guard.infra.swift_locate import locate_swift
    from swiftpm_guard.jobs.resolve import ResolveSettings

    swift = args.resolve_swift
    if swift is None:
        swift, _why = locate_swift(args.swift)
    if swift is None:
        raise UsageError("--resolve needs a swift that can reach the zips' hosts: give "
                         "--resolve-swift PATH (on Linux: scripts/swift-toolchain.sh --resolver)")
    if not 0 < args.resolve_timeout <= 24 * 3600:
        raise UsageError(f"--resolve-timeout {args.resolve_timeout} is not a positive duration")
    ca_file = Path(args.resolve_ca_file) if args.resolve_ca_file else None
    if ca_file is not None and not ca_file.is_file():
        raise UsageError(f"--resolve-ca-file {args.resolve_ca_file!r} is not a file")
    return ResolveSettings(swift=swift, timeout=args.resolve_timeout, ca_file=ca_file,
                           cache_dir=Path(args.resolve_cache) if args.resolve_cache else None)
