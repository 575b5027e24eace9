"""Where each binary target's zip is hosted, computed as the manifest computes it (pure).

The release shape builds every URL as `<base url><name>-<version>.zip` by Swift string
interpolation; `--url-template` says so in Python's format syntax, with `{base_url}`,
`{name}` and `{version}`. The base defaults to the manifest's own `let url = "https://…"`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from swiftpm_guard.core.model import NAME_RE, Artifact, Location, Rendered
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import UsageError
from swiftpm_guard.redact import shown_location

if TYPE_CHECKING:
    from swiftpm_guard.core.audit import PublishedManifest

DEFAULT_URL_TEMPLATE = "{base_url}{name}-{version}.zip"
_FIELDS = frozenset({"base_url", "name", "version"})
_BASE_RE = re.compile(r"https?://[^\s@/?#]+(?:/[^\s?#]*)?")
_VERSION_RE = re.compile(r"[0-9A-Za-z][0-9A-Za-z._+-]{0,63}")
#: GitHub (and GHES) release assets: the tag is the path segment after /releases/download/.
_RELEASE_TAG_RE = re.compile(r"/releases/download/([^/]+)/")
#: A release-like number in a URL path: X.Y.Z or X.Y.Z.W (X.Y alone is too often a platform).
_VERSION_TOKEN_RE = re.compile(r"(?<![0-9.])[0-9]+(?:\.[0-9]+){2,3}(?![0-9]|\.[0-9])")


@dataclass(frozen=True, slots=True)
class HostedZip:
    """One binary target's zip: where it should be served and what it must hash to."""

    name: str
    url: str
    sha256: str | None  # None: only existence and zip-ness can be checked
    location: Location


@dataclass(frozen=True, slots=True, kw_only=True)
class UrlSettings:
    """How to find and fetch the hosted zips; validated once, before any request."""

    template: str = DEFAULT_URL_TEMPLATE
    base_url: str | None = None
    timeout: float = 30.0  # seconds per connect and per read
    deadline: float = 900.0  # seconds for one whole download
    retries: int = 2
    jobs: int = 4
    #: `--verify-absent` only: a 403 counts as "absent". An S3 bucket that is public-read but
    #: grants no list right answers 403, not 404, for a key that does not exist.
    absent_on_403: bool = False
    #: Look inside each downloaded zip as SwiftPM does (spooled to a temporary file on disk).
    archive_contents: bool = True
    #: `--verify-zips`: decompress and check every entry of each downloaded zip, as `unzip -t`
    #: does (bounded per zip), not only the metadata entries and symlinks the rules read.
    verify_zips: bool = False
    #: Input proxy / --proxy: the only proxy the downloads go through (never the environment's).
    proxy: str | None = None

    def __post_init__(self) -> None:
        validate_url_template(self.template)
        if self.proxy is not None:
            validate_proxy(self.proxy, option("proxy"))
        if self.base_url is not None:
            validate_base_url(self.base_url, option("base-url"))
        if not 0 < self.timeout <= 600:
            raise UsageError(f"--url-timeout {self.timeout} is not between 0 and 600 seconds")
        if not 0 < self.deadline <= 24 * 3600:
            raise UsageError(f"download deadline {self.deadline} is not a positive duration")
        if not 0 <= self.retries <= 5:
            raise UsageError(f"--url-retries {self.retries} is not between 0 and 5")
        if not 1 <= self.jobs <= 32:
            raise UsageError(f"--url-jobs {self.jobs} is not between 1 and 32")


def other_release(url: str, version: str) -> str | None:
    """Why `url` points at another release's zip than `version`'s (None: it does not).

    The sentry-cocoa 8.22.0 class: the file name carries the right version but the release
    tag (`/releases/download/<tag>/`) or another folder of the path names an older one, so
    every consumer of the new version downloads the old zip (and fails its checksum).
    """
    path = unquote(urlsplit(url).path)
    tag = _RELEASE_TAG_RE.search(path)
    if tag is not None and version not in _VERSION_TOKEN_RE.findall(tag.group(1)) \
            and tag.group(1) not in (version, f"v{version}"):
        return f"its release tag '{tag.group(1)}' is not the version {version}"
    folders = path.rsplit("/", 1)[0]
    others = sorted({t for t in _VERSION_TOKEN_RE.findall(folders) if t != version})
    if others:
        return f"its path names version {others[0]}, not {version}"
    return None


def validate_url_template(template: str) -> str:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise UsageError(f"--url-template {template!r}: {error}") from None
    fields = {f for _text, f, _spec, _conv in parsed if f is not None}
    unknown = sorted(fields - _FIELDS)
    if unknown:
        raise UsageError(f"--url-template {template!r}: unknown field {{{unknown[0]}}} "
                         "(fields: {base_url}, {name}, {version})")
    if "name" not in fields:
        raise UsageError(f"--url-template {template!r} must contain {{name}}")
    return template


def validate_base_url(base: str, what: str) -> str:
    """http(s), a host, no credentials, no query: it is concatenated with names, not parsed."""
    if not _BASE_RE.fullmatch(base):
        shown = shown_location(base)
        raise UsageError(f"{what} {shown!r} is not an http(s) URL without credentials, query "
                         "or spaces")
    return base


#: A proxy as input proxy / --proxy takes it: scheme, host (a name, IPv4 or [IPv6]), port.
_PROXY_RE = re.compile(r"(https?)://([A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?"
                       r"|\[[0-9A-Fa-f:.]{2,45}\]):([0-9]{1,5})/?")


def validate_proxy(value: str, what: str) -> str:
    """`http(s)://host:port` and nothing else: no user name or password (they would travel in
    a header we did not mean to send and be quoted in messages), no path, query or spaces."""
    match = _PROXY_RE.fullmatch(value)
    if match is None or not 0 < int(match.group(3)) < 65536:
        raise UsageError(f"{what} {shown_location(value)!r} is not http(s)://host:port (no user "
                         "name or password, path or query)")
    return value.removesuffix("/")


def zip_url(settings: UrlSettings, *, name: str, version: str, base_url: str | None,
            where: str) -> str:
    """The URL of one target's zip; UsageError when a base is needed but unknown."""
    if not NAME_RE.fullmatch(name) or not _VERSION_RE.fullmatch(version) or ".." in version:
        raise UsageError(f"cannot build a URL from name {name!r} and version {version!r}")
    base = settings.base_url or base_url
    if base is None and "{base_url}" in settings.template:
        raise UsageError(f"{where}: no `let url = \"https://…\"` to take the base URL from; "
                         f"give {option('base-url')}")
    url = settings.template.format(base_url=base or "", name=name, version=version)
    if not url.startswith(("https://", "http://")):
        raise UsageError(f"--url-template gives {url!r}, which is not an http(s) URL")
    return url


def zips_of_rendered(rendered: Sequence[Rendered], built: Mapping[str, Artifact],
                     version: str, settings: UrlSettings) -> list[HostedZip]:
    """Every binary target the templates ask for, at the URL the manifest computes."""
    from swiftpm_guard.core.audit import base_url_in

    zips: dict[str, HostedZip] = {}
    for item in rendered:
        base = base_url_in(item.template.text)
        for placeholder in item.placeholders:
            artifact = built.get(placeholder.name)
            url = zip_url(settings, name=placeholder.name, version=version, base_url=base,
                          where=item.template.path)
            zips.setdefault(url, HostedZip(placeholder.name, url,
                                           artifact.sha256 if artifact else None,
                                           placeholder.location))
    return list(zips.values())


def zips_of_published(manifest: PublishedManifest, path: str, fallback_version: str | None,
                      settings: UrlSettings) -> tuple[list[HostedZip], list[str]]:
    """The zips a published manifest points at, and why any could not be computed."""
    version = manifest.version or fallback_version
    problems: list[str] = []
    zips: list[HostedZip] = []
    if version is None:
        return [], ["the manifest has no version to build URLs from"]
    for site in _named(manifest):
        try:
            url = zip_url(settings, name=site[0], version=version, base_url=manifest.base_url,
                          where=path)
        except UsageError as error:
            problems.append(str(error))
            break
        zips.append(HostedZip(site[0], url, site[1], Location(path, site[2])))
    return zips, problems


def _named(manifest: PublishedManifest) -> Iterable[tuple[str, str | None, int]]:
    """(name, checksum or None if not a checksum, line) per named target, first wins."""
    seen: set[str] = set()
    for site in manifest.sites:
        if site.name is None or site.name in seen:
            continue
        seen.add(site.name)
        is_hex = re.fullmatch(r"[0-9a-f]{64}", site.value) is not None
        yield site.name, site.value if is_hex else None, site.line
