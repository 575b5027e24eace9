"""The command line's option groups, shared by the subcommands, and the job requests they
describe. argparse raises UsageError here (one line, exit 2) instead of printing its usage."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard import console
from swiftpm_guard.cli.config import DESTS
from swiftpm_guard.core.names import (
    DEFAULT_BRANCH_PREFIX,
    WorkflowSpec,
    validate_plain_expression,
    validate_ref_or_glob,
)
from swiftpm_guard.core.option_names import spell, spell_bytes
from swiftpm_guard.core.urls import DEFAULT_URL_TEMPLATE, UrlSettings
from swiftpm_guard.core.weight import GrowthLimit, parse_limit
from swiftpm_guard.errors import UsageError
from swiftpm_guard.limits import GIT_NETWORK_SECONDS, ZIP_VERIFY_MAX_BYTES, ZIP_VERIFY_SECONDS

if TYPE_CHECKING:
    from swiftpm_guard.jobs.check import CheckRequest
    from swiftpm_guard.jobs.resolve import ResolveSettings

DEFAULT_TOKEN_ENV = "GITHUB_TOKEN"
DEFAULT_RESOLVE_TIMEOUT = 900.0


class Parser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line, exit 2) instead of printing usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        #: The main parser's subcommands by name (cli.main fills it).
        self.subcommands: dict[str, argparse.ArgumentParser] = {}

    def _print_message(self, message: str, file: object = None) -> None:
        # --help and --version-info (errors raise instead): through the one output door.
        if message:
            console.say(message.removesuffix("\n"))

    def error(self, message: str) -> None:  # type: ignore[override]
        # main() prints "swiftpm-guard: error: …"; only a subcommand's name is worth adding.
        command = self.prog.removeprefix("swiftpm-guard").strip()
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message} (see swiftpm-guard {command + ' ' if command else ''}"
                         "--help)")


# -- the options our words name, spelled as flags ---------------------------------------------


def flag(key: str) -> str:
    """An option's key (core.option_names) as its flag: `active-refs` → `--active-ref`."""
    dest = DESTS[key][0] if key in DESTS else key
    return "--" + dest.replace("_", "-")


def spelled(text: str) -> str:
    return spell(text, flag)


def spelled_files(files: list[tuple[Path, bytes]]) -> list[tuple[Path, bytes]]:
    """Reports as the command line writes them: the options they name as flags."""
    return [(path, spell_bytes(data, flag)) for path, data in files]


def say(text: str) -> None:
    console.say(spelled(text))


def tell(text: str) -> None:
    console.tell(spelled(text))


# -- what is checked -----------------------------------------------------------------------------


def add_source_arguments(parser: argparse.ArgumentParser, *, refs: bool = False) -> None:
    sources = parser.add_argument_group("artifact sources (repeatable, combined)")
    sources.add_argument("--artifacts", action="append", default=[], metavar="DIR",
                         help="folder of <name>-<version>.zip files to hash and inspect")
    sources.add_argument("--checksums", action="append", default=[], metavar="FILE",
                         help="'<name> <sha256>' or sha256sum lines")
    sources.add_argument("--frameworks", action="append", default=[], metavar="NAMES",
                         help="declared base names 'a,b,c' or '@FILE' (no checksums)")
    sources.add_argument("--frameworks-from", action="append", default=[],
                         metavar="WORKFLOW.yml:JOB:VAR",
                         help="the bash array VAR=( … ) in a workflow job's script")
    sources.add_argument("--plain-expression", action="append", default=[], metavar="CONTEXT",
                         help="a GitHub expression in that script whose value you vouch is "
                              "one plain word (needs.set-version.outputs.version): accepted "
                              "inside quotes outside the array (repeatable)")
    if refs:
        sources.add_argument("--frameworks-ref", action="extend", nargs="+", default=[],
                             metavar="REF",
                             help="read the --frameworks-from workflows at these branches (or "
                                  "globs: 'release/*') of the clone here instead of from the "
                                  "working tree; several: one report, per release line")
        sources.add_argument("--active-ref", action="extend", nargs="+", default=[],
                             metavar="REF",
                             help="the release lines (refs or globs) that still publish: "
                                  "errors there, warnings on the others (default: the default "
                                  "branch, the line of the newest published version and the "
                                  "lines that published in the last 180 days)")


def add_version_arguments(group: argparse._ArgumentGroup, *, required: bool = True) -> None:
    group.add_argument("--version", required=required,
                       help="X.Y.Z or X.Y.Z.YYYYMMDD" + ("" if required else
                            " (without: compare names only, as a pull request check does)"))
    group.add_argument("--version-pattern", metavar="REGEX",
                       help="accept other version shapes (still no unsafe characters)")
    group.add_argument("--debug-suffix", default="_debug", metavar="SUFFIX",
                       help="suffix of every framework's debug twin (default _debug)")
    group.add_argument("--render-timeout", type=float, default=20.0, metavar="SECONDS",
                       help="deadline for rendering a Jinja2 template (default 20)")


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    out = parser.add_argument_group("reports")
    out.add_argument("--warn", action="append", default=[], metavar="CODE",
                     help="downgrade a finding code to a warning (repeatable)")
    out.add_argument("--json", metavar="OUT.json", help="write the JSON report")
    out.add_argument("--markdown", metavar="OUT.md", help="write the Markdown report")
    out.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    out.add_argument("--attestation-subjects", metavar="OUT.txt",
                     help="write the subjects file actions/attest-build-provenance takes "
                          "(subject-checksums): `<sha256>  <name>` per built zip and per "
                          "rendered manifest (needs --version and zips or checksums)")
    out.add_argument("--download-growth-limit", metavar="25%|500MB",
                     help="what a consumer downloads may grow by this much over the previous "
                          "published version (a share or a size; the previous size is served: "
                          "with --verify-urls); past it: download-growth")
    swift = parser.add_argument_group("SwiftPM")
    swift.add_argument("--swift", default="auto", metavar="auto|off|PATH",
                       help="evaluate the manifest with the real SwiftPM: 'auto' uses swift on "
                            "PATH if present (default), 'off' never, or this executable")
    swift.add_argument("--swift-cache", metavar="DIR",
                       help="cache of SwiftPM results (default: $XDG_CACHE_HOME/swiftpm-guard "
                            "or ~/.cache/swiftpm-guard)")
    swift.add_argument("--accept-static", action="store_true",
                       help="without SwiftPM, accept the static reading: what only SwiftPM can "
                            "decide is a warning and the report says the manifest is unproven")


def check_request(args: argparse.Namespace, templates: list[str], stubs_dir: str | None = None,
                  *, require_checksums: bool = False) -> CheckRequest:
    """The check these options describe (validated on construction: exit 2)."""
    from swiftpm_guard.jobs.check import CheckRequest  # the command's own job, when it runs

    extra = {} if args.version_pattern is None else {"version_pattern": args.version_pattern}
    refs = _frameworks_refs(args)
    return CheckRequest(templates=tuple(templates), version=args.version, stubs_dir=stubs_dir,
                        artifacts=tuple(args.artifacts), checksums=tuple(args.checksums),
                        frameworks=tuple(args.frameworks),
                        frameworks_from=_specs(args),
                        workflows_from_refs=bool(refs), frameworks_refs=refs,
                        active_refs=tuple(validate_ref_or_glob(r, "--active-ref")
                                          for r in getattr(args, "active_ref", ())),
                        debug_suffix=args.debug_suffix, warn=frozenset(args.warn),
                        render_seconds=args.render_timeout, require_checksums=require_checksums,
                        swift=args.swift,
                        swift_cache=Path(args.swift_cache) if args.swift_cache else None,
                        accept_static=bool(getattr(args, "accept_static", False)),
                        urls=url_settings(args),
                        verify_urls=bool(getattr(args, "verify_urls", False)),
                        resolve=resolve_settings(args),
                        download_limit=_growth_limit(args), **extra)


def _growth_limit(args: argparse.Namespace) -> GrowthLimit | None:
    given = getattr(args, "download_growth_limit", None)
    return parse_limit(given) if given else None


def _specs(args: argparse.Namespace) -> tuple[WorkflowSpec, ...]:
    plain = frozenset(validate_plain_expression(e, "--plain-expression")
                      for e in args.plain_expression)
    return tuple(replace(WorkflowSpec.parse(s), plain=plain) for s in args.frameworks_from)


def _frameworks_refs(args: argparse.Namespace) -> tuple[str, ...]:
    refs = tuple(getattr(args, "frameworks_ref", ()))
    if refs and not args.frameworks_from:
        raise UsageError("--frameworks-ref reads the --frameworks-from workflows at those refs: "
                         "give --frameworks-from too")
    return tuple(validate_ref_or_glob(r, "--frameworks-ref") for r in refs)


# -- hosted zips ---------------------------------------------------------------------------------


def add_url_arguments(parser: argparse.ArgumentParser, *, flag: str = "--verify-urls",
                      verify_zips: bool = False) -> None:
    """The flag (`--verify-urls` or `--verify-absent`) plus how URLs are built and fetched;
    `verify_zips`: `--verify-zips` is the default (publish), `--no-verify-zips` turns it off."""
    group = parser.add_argument_group("hosted zips")
    if flag == "--verify-absent":
        group.add_argument(flag, action="store_true",
                           help="fail if any of this version's zip URLs already exists")
        group.add_argument("--absent-on-403", action="store_true",
                           help="with --verify-absent: a 403 means absent (an S3 bucket that "
                                "is public-read without list rights answers 403 for a "
                                "missing key)")
    else:
        group.add_argument(flag, action="store_true",
                           help="download every binary target's zip and compare its SHA-256 "
                                "with the manifest's checksum, as SwiftPM will")
        group.add_argument("--verify-zips", default=verify_zips,
                           action=argparse.BooleanOptionalAction if verify_zips
                           else "store_true",
                           help=("(the default when publishing) " if verify_zips else "")
                           + "decompress every entry of every zip (--artifacts, a run's "
                                "artifact, and with --verify-urls each download) and check "
                                "its size and CRC, as SwiftPM's `unzip -t` does; without it "
                                "only the metadata entries and symlinks the rules read are. "
                                f"Bounded per zip: {ZIP_VERIFY_MAX_BYTES >> 30} GiB "
                                f"uncompressed, {ZIP_VERIFY_SECONDS:g} s (zip-unverified "
                                "past either)")
    group.add_argument("--url-template", default=DEFAULT_URL_TEMPLATE, metavar="TEMPLATE",
                       help="zip URL with {base_url}, {name}, {version} (default %(default)s)")
    group.add_argument("--base-url", metavar="URL",
                       help="default: the manifest's own `let url = \"https://…\"`")
    group.add_argument("--url-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="per connect and per read (default 30)")
    group.add_argument("--url-retries", type=int, default=2, metavar="N",
                       help="retries after timeouts, resets, 5xx and 429 (default 2)")
    group.add_argument("--url-jobs", type=int, default=4, metavar="N",
                       help="downloads at once (default 4)")
    group.add_argument("--proxy", metavar="URL",
                       help="http(s)://host:port: the only proxy the downloads go through "
                            "(the environment's http_proxy, HTTPS_PROXY, ALL_PROXY, NO_PROXY "
                            "and CA bundle variables are never read)")


def url_settings(args: argparse.Namespace) -> UrlSettings:
    return UrlSettings(template=args.url_template, base_url=args.base_url,
                       timeout=args.url_timeout, retries=args.url_retries, jobs=args.url_jobs,
                       absent_on_403=getattr(args, "absent_on_403", False),
                       verify_zips=bool(getattr(args, "verify_zips", False)),
                       proxy=args.proxy or None)


# -- the real SwiftPM resolving a consumer -----------------------------------------------------


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
    group.add_argument("--resolve-timeout", type=float, default=DEFAULT_RESOLVE_TIMEOUT,
                       metavar="SECONDS",
                       help=f"deadline for one resolve (default {DEFAULT_RESOLVE_TIMEOUT:g})")
    group.add_argument("--resolve-ca-file", metavar="PEM",
                       help="a CA the resolve also trusts (a private or test server)")


def resolve_settings(args: argparse.Namespace) -> ResolveSettings | None:
    """The resolve these options ask for, or None without `--resolve` (exit 2 on bad ones)."""
    if not getattr(args, "resolve", False):
        return None
    from swiftpm_guard.jobs.resolve import ResolveSettings
    from swiftpm_guard.jobs.swiftpm_proof import locate_swift

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


# -- the remote ----------------------------------------------------------------------------------


def add_remote_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("remote")
    group.add_argument("--repo", required=True, metavar="REMOTE",
                       help="path, file:// or http(s):// URL of the repository")
    group.add_argument("--branch-prefix", default=DEFAULT_BRANCH_PREFIX, metavar="PREFIX",
                       help="a version publishes to PREFIX<version> (default "
                            f"{DEFAULT_BRANCH_PREFIX})")
    group.add_argument("--token-env", default=DEFAULT_TOKEN_ENV, metavar="NAME",
                       help="environment variable holding the token for http(s) remotes "
                            f"(default {DEFAULT_TOKEN_ENV}); sent as a header, never in argv")
    group.add_argument("--git-timeout", type=float, default=GIT_NETWORK_SECONDS,
                       metavar="SECONDS",
                       help="for each git process that talks to the remote (default "
                            f"{GIT_NETWORK_SECONDS:g})")


def token_from_env(args: argparse.Namespace) -> tuple[str | None, str]:
    name = args.token_env
    if not name or not name.replace("_", "").isalnum():
        raise UsageError(f"--token-env {name!r} is not an environment variable name")
    return os.environ.get(name) or None, f"${name}"
