"""Download weight (pure): what a consumer of a release downloads, and how it grew.

SwiftPM downloads every binary target of a package whether a product is used or not
(swift-package-manager #6656), so a consumer pays for every zip a manifest names, release
and debug twins alike. The weight is the sum of the built zips' sizes (or, when
`--verify-urls` fetched them, of the served ones); the previous published version's weight
is the sum of the sizes its manifest's URLs serve. Past `--download-growth-limit`, the growth
is the `download-growth` finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from swiftpm_guard.core.model import Artifact, DownloadWeight, Finding, HostedStats, Severity
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import UsageError

_LIMIT = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>%|B|KB|MB|GB|KiB|MiB|GiB)",
                    re.ASCII)
_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 1 << 10, "MiB": 1 << 20,
          "GiB": 1 << 30}
_VERSION = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)(?:\.([0-9]{8}))?", re.ASCII)


@dataclass(frozen=True, slots=True)
class GrowthLimit:
    """How much a release's download may grow over the previous one: a share or bytes."""

    text: str
    percent: float | None = None
    bytes: int | None = None

    def allowed(self, previous: int) -> int:
        """The growth allowed over `previous` bytes."""
        if self.percent is not None:
            return int(previous * self.percent / 100)
        assert self.bytes is not None
        return self.bytes


def parse_limit(text: str, what: str = option("download-growth-limit")) -> GrowthLimit:
    """`25%`, `500MB`, `1.5GB`, `200MiB` or `0B`; anything else is bad usage (exit 2)."""
    match = _LIMIT.fullmatch(text.strip())
    if match is None:
        raise UsageError(f"{what} {text[:40]!r} is not a share (25%) or a size (500MB, 1.5GB, "
                         "200MiB)")
    number, unit = float(match["number"]), match["unit"]
    if unit == "%":
        return GrowthLimit(text.strip(), percent=number)
    return GrowthLimit(text.strip(), bytes=int(number * _UNITS[unit]))


def version_key(version: str) -> tuple[int, int, int, int, int] | None:
    """Release order: nightlies of X.Y.Z (by date) come before the X.Y.Z release."""
    match = _VERSION.fullmatch(version)
    if match is None:
        return None
    x, y, z, date = match.groups()
    return int(x), int(y), int(z), date is None, int(date or 0)


def previous_version(branches: Iterable[str], prefix: str, version: str) -> str | None:
    """The newest published version (branch `prefix` + version) before `version`."""
    mine = version_key(version)
    if mine is None:
        return None
    older: list[tuple[tuple[int, int, int, int, int], str]] = []
    for branch in branches:
        if not branch.startswith(prefix):
            continue
        key = version_key(branch[len(prefix):])
        if key is not None and key < mine:
            older.append((key, branch[len(prefix):]))
    return max(older)[1] if older else None


def weigh(asked: Iterable[str], built: Mapping[str, Artifact],
          hosted: HostedStats | None = None) -> DownloadWeight:
    """The bytes a consumer downloads for the names the manifests ask for: the served bytes
    when every URL was fetched and verified, else the built zips' sizes."""
    names = sorted(set(asked))
    if hosted is not None and hosted.urls and hosted.verified == hosted.urls:
        return DownloadWeight(bytes=hosted.bytes, zips=hosted.urls, measured="served")
    sizes = {n: built[n].size for n in names if n in built and built[n].size is not None}
    unsized = tuple(n for n in names if n not in sizes)
    total = sum(size for size in sizes.values() if size is not None) if sizes else None
    return DownloadWeight(bytes=total, zips=len(names), measured="built zips", unsized=unsized)


def with_previous(weight: DownloadWeight, version: str | None, served: HostedStats | None,
                  note: str | None = None) -> DownloadWeight:
    """The previous version's weight: its served bytes when every URL served its zip."""
    if version is None:
        return replace(weight, previous_note=note)
    if served is None:
        return replace(weight, previous_version=version, previous_note=note)
    if served.verified != served.urls:
        failed = served.urls - served.verified
        return replace(weight, previous_version=version, previous_note=(
            f"{failed} of its {served.urls} zip URLs did not serve their zip"))
    return replace(weight, previous_version=version, previous_bytes=served.bytes)


def growth_findings(weight: DownloadWeight, limit: GrowthLimit | None,
                    version: str) -> list[Finding]:
    """`download-growth`: an error past the limit; a notice when the limit cannot be judged."""
    if limit is None:
        return []
    change = weight.change
    if change is None:
        why = weight.previous_note or "no size is known for this release"
        return [Finding(code="download-growth", severity=Severity.NOTICE, subject=version,
                        message=f"the download growth limit {limit.text} was not judged: {why}")]
    assert weight.previous_bytes is not None and weight.bytes is not None
    allowed = limit.allowed(weight.previous_bytes)
    if change <= allowed:
        return []
    return [Finding(
        code="download-growth", severity=Severity.ERROR, subject=version,
        message=(f"a consumer of {version} downloads {size(weight.bytes)}, {size(change)} more "
                 f"than {weight.previous_version} ({size(weight.previous_bytes)}, "
                 f"{share(change, weight.previous_bytes)}): past the limit of {limit.text} "
                 f"({size(allowed)}); SwiftPM downloads every binary target, used or not"))]


def size(count: int) -> str:
    """Bytes for people: `2.9 GB`, `512.0 kB`, `900 bytes` (decimal units, as hosts show)."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if abs(count) >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def share(change: int, previous: int) -> str:
    """`+97%`, `-12%`; `new` when there was nothing before."""
    if previous <= 0:
        return "new"
    return f"{change * 100 / previous:+.0f}%"


def sentence(weight: DownloadWeight) -> str:
    """`a consumer downloads 2.9 GB (40 zips, built zips); 1.5 GB for 1.2.0 (+97%)`."""
    zips = f"{weight.zips} zip{'s' if weight.zips != 1 else ''}"
    if weight.bytes is None:
        said = f"a consumer downloads {zips} (size unknown: no built zip was read)"
    else:
        partial = f", {len(weight.unsized)} of unknown size" if weight.unsized else ""
        said = f"a consumer downloads {size(weight.bytes)} ({zips}{partial}, {weight.measured})"
    change = weight.change
    if change is not None and weight.previous_bytes is not None:
        sign = "+" if change >= 0 else "-"
        said += (f"; {weight.previous_version}: {size(weight.previous_bytes)}, change "
                 f"{sign}{size(abs(change))} ({share(change, weight.previous_bytes)})")
    elif weight.previous_version is not None:
        unknown = weight.previous_note or ("its served sizes are fetched with "
                                           + option("verify-urls"))
        said += f"; {weight.previous_version}: size unknown ({unknown})"
    elif weight.previous_note is not None:
        said += f"; no change known ({weight.previous_note})"
    if weight.limit is not None:
        said += f"; growth limit {weight.limit}"
    return said
