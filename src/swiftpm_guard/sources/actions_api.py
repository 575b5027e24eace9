"""A workflow run's artifact through the Actions API: list, download, unpack the zips inside.

GitHub answers the download with a redirect to blob storage on another host; the token must
not follow it. The artifact is itself a zip holding the `<name>-<version>.zip` files; we
copy those out by their base name only (never a path from the archive), refuse duplicates,
and cap sizes by counting the bytes actually written, not the sizes the archive claims.
"""

from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard.errors import InputError, ZipProblem
from swiftpm_guard.infra.github import RetryPolicy, call, download_session
from swiftpm_guard.limits import ARTIFACT_MAX_BYTES
from swiftpm_guard.sources.zip_archive import directory

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import Github

ENTRIES_MAX = 10_000
_PAGE = 100
_PAGES_MAX = 50
_INNER_ZIP = re.compile(r"[A-Za-z0-9_]+-[A-Za-z0-9._+-]+\.zip")
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RunArtifact:
    id: int
    name: str
    size: int


def find_artifact(
    client: Github, repository: str, run_id: int, name: str, policy: RetryPolicy
) -> RunArtifact:
    url = f"/repos/{repository}/actions/runs/{run_id}/artifacts"
    seen: list[str] = []
    for page in range(1, _PAGES_MAX + 1):
        params = {"name": name, "per_page": _PAGE, "page": page}
        _headers, data = call(
            policy,
            f"list the artifacts of run {run_id}",
            partial(client.requester.requestJsonAndCheck, "GET", url, parameters=params),
        )
        items: list[dict[str, Any]] = list(data.get("artifacts") or [])
        seen += [str(item.get("name")) for item in items]
        matches = [item for item in items if item.get("name") == name]
        live = [item for item in matches if not item.get("expired")]
        if live:
            best = max(live, key=lambda item: int(item["id"]))
            return RunArtifact(int(best["id"]), name, int(best.get("size_in_bytes") or 0))
        if matches:
            raise InputError(f"artifact {name!r} of run {run_id} has expired")
        if len(items) < _PAGE:
            break
    listed = ", ".join(sorted(set(seen))[:10]) or "none"
    raise InputError(f"run {run_id} has no artifact named {name!r} (found: {listed})")


def download_artifact(api_url: str, token: str, repository: str, artifact: RunArtifact, into: Path,
                      policy: RetryPolicy, max_bytes: int = ARTIFACT_MAX_BYTES, *,
                      proxy: str | None = None) -> Path:
    """Download the artifact's zip to `into/<id>.zip` and return its path.

    Not through PyGithub: it refuses redirects to hosts outside github.com, and GitHub sends
    this one to blob storage elsewhere. requests follows it and drops the token on the way.
    The session reads no proxy or CA bundle from the environment: only `proxy` (input proxy).
    """
    if artifact.size > max_bytes:
        raise InputError(
            f"artifact {artifact.name!r} is {artifact.size} bytes, more than the "
            f"{max_bytes} this tool will download"
        )
    target = into / f"{artifact.id}.zip"
    url = f"{api_url}/repos/{repository}/actions/artifacts/{artifact.id}/zip"
    headers = {
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "swiftpm-guard",
        "Authorization": f"Bearer {token}",
    }

    def fetch() -> Path:
        with download_session(policy, proxy) as session, session.get(
            url, headers=headers, stream=True, timeout=policy.request_timeout
        ) as response:
            response.raise_for_status()
            written = 0
            with target.open("wb") as stream:
                for chunk in response.iter_content(chunk_size=_CHUNK):
                    written += len(chunk)
                    if written > max_bytes:
                        raise InputError(
                            f"artifact {artifact.name!r} is larger than "
                            f"{max_bytes} bytes; download stopped"
                        )
                    stream.write(chunk)
        return target

    return call(policy, f"download artifact {artifact.name!r}", fetch)


def _check_archive(archive: Path, display: str) -> None:
    """The end record's counts first: zipfile builds a list of every entry before anyone can
    count them (1.45 GB for 3 million), so the directory it reads is capped by size."""
    try:
        fd = os.open(archive, os.O_RDONLY)
    except OSError as error:
        raise InputError(f"cannot read the artifact: {error.strerror}", file=display) from None
    try:
        directory(fd, max_entries=ENTRIES_MAX, max_bytes=ENTRIES_MAX * 1024, comment=True)
    except (ZipProblem, OSError) as error:
        raise InputError(f"the downloaded artifact is not a readable zip ({error})",
                         file=display) from None
    finally:
        os.close(fd)


def extract_zips(
    archive: Path, into: Path, *, display: str, max_bytes: int = ARTIFACT_MAX_BYTES
) -> Path:
    """Copy every `<name>-<version>.zip` inside `archive` into the folder `into`."""
    into.mkdir(parents=True, exist_ok=True)
    _check_archive(archive, display)
    total = 0
    found: set[str] = set()
    try:
        with zipfile.ZipFile(archive) as outer:
            infos = outer.infolist()
            if len(infos) > ENTRIES_MAX:
                raise InputError(f"{len(infos)} entries; refusing more than {ENTRIES_MAX}",
                                 file=display)
            for info in infos:
                base = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
                if info.is_dir() or not base.endswith(".zip"):
                    continue
                if not _INNER_ZIP.fullmatch(base):
                    raise InputError(f"entry {info.filename[:120]!r} is not <name>-<version>.zip",
                                     file=display)
                if base in found:
                    raise InputError(f"two entries are named {base!r}", file=display)
                found.add(base)
                with outer.open(info) as source, (into / base).open("xb") as sink:
                    while chunk := source.read(_CHUNK):
                        total += len(chunk)
                        if total > max_bytes:
                            raise InputError(f"unpacks to more than {max_bytes} bytes",
                                             file=display)
                        sink.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
        raise InputError(f"the downloaded artifact is not a readable zip ({error})",
                         file=display) from None
    except OSError as error:
        raise InputError(f"cannot unpack the artifact: {error.strerror or error}",
                         file=display) from None
    if not found:
        raise InputError("the artifact holds no <name>-<version>.zip files", file=display)
    return into
