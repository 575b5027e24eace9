"""The oracle: for every way a hosted zip goes wrong, `--verify-urls` and the real SwiftPM agree.

One release, one binary target per case (each with its good `_debug` twin), served over
loopback HTTPS with a test CA. The real `swift package resolve` of a consumer says, per
target, accepted or SwiftPM's error; `verify_with_stats` (what `--verify-urls` runs) says, per
target, no finding or its finding. They must agree on every target, and on the kind of
failure. Where they once disagreed (a zip with no XCFramework metadata), SwiftPM was right
and sources/hosted.py changed (`url-no-artifact`). Where the guard is stricter on purpose
(`STRICTER`: the one zip shape it accepts, issue 31), SwiftPM accepts and the guard refuses.
"""

from __future__ import annotations

import hashlib
import stat
import zipfile
from pathlib import Path

import pytest

from support.hosted_release import rendered_release
from support.release import write_real_zip, write_release
from support.zip_server import Route
from swiftpm_guard.core.resolution import State
from swiftpm_guard.core.urls import HostedZip, UrlSettings
from swiftpm_guard.jobs.resolve import ResolveSettings, resolve_rendered, resolve_targets
from swiftpm_guard.sources.hosted import verify_with_stats

pytestmark = pytest.mark.slow

#: Our finding code → the kind of SwiftPM error that must stand for the same target.
SAME_FAILURE = {
    "url-checksum": "checksum",
    "url-missing": "download",
    "url-not-zip": "invalid-archive",
    "url-no-artifact": "no-artifact",
}
CASES = ("good", "wrong_checksum", "missing", "html_page", "no_xcframework", "bad_plist",
         "reuploaded", "truncated", "contents_at_root", "flattened")


def _slice_only_zip(path: Path, name: str) -> bytes:
    """`zip -r` run inside the slice folder: a library and headers, no xcframework at all."""
    with zipfile.ZipFile(path, "w") as archive:
        for entry, data in ((f"lib{name}.a", b"\x00" * 64), (f"Headers/{name}.h", b"//\n")):
            info = zipfile.ZipInfo(entry, (2025, 1, 1, 0, 0, 0))
            info.create_system, info.external_attr = 3, (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return path.read_bytes()


def _case_bodies(folder: Path, version: str) -> tuple[dict[str, bytes | None], dict[str, str]]:
    """What the server serves for each case (None: nothing, a 404) and what the manifest says."""
    folder.mkdir()

    def real(name: str, **options: object) -> bytes:
        path = folder / f"{name}-{len(list(folder.iterdir()))}.zip"
        write_real_zip(path, name, **options)  # type: ignore[arg-type]
        return path.read_bytes()

    served: dict[str, bytes | None] = {}
    promised: dict[str, bytes] = {}
    served["good"] = promised["good"] = real("good")
    served["wrong_checksum"] = real("wrong_checksum")
    promised["wrong_checksum"] = real("wrong_checksum", signed=True)
    served["missing"], promised["missing"] = None, real("missing")
    served["html_page"] = b"<!DOCTYPE html><html><body>Rate limited</body></html>"
    promised["html_page"] = served["html_page"]  # even its own checksum does not save it
    served["no_xcframework"] = promised["no_xcframework"] = _slice_only_zip(
        folder / "slice.zip", "no_xcframework")
    served["bad_plist"] = promised["bad_plist"] = real(
        "bad_plist", plist=b'<?xml version="1.0"?><plist version="1.0"><dict>'
                           b"<key>Name</key><string>bad_plist</string></dict></plist>")
    promised["reuploaded"] = real("reuploaded")
    served["reuploaded"] = real("reuploaded", signed=True)  # rebuilt and uploaded again
    whole = real("truncated")
    served["truncated"] = promised["truncated"] = whole[: len(whole) // 2]
    served["contents_at_root"] = promised["contents_at_root"] = real("contents_at_root", root="")
    # Resolves: only Xcode's build and code signing suffer (`zip-symlinks` on the built zip).
    served["flattened"] = promised["flattened"] = real("flattened", flatten_links=True)
    return served, {n: hashlib.sha256(b).hexdigest() for n, b in promised.items()}


#: Zips SwiftPM takes and the guard refuses on purpose (issue 31): a zip of the xcframework's
#: contents makes the zip's root the artifact, where anything else could sit beside it.
STRICTER = {"contents_at_root": "url-no-artifact"}


def test_swiftpm_and_verify_urls_agree_target_by_target(tmp_path, https, swift_net, test_ca):
    release = write_release(tmp_path / "release", products=("executorch",), binary_only=CASES,
                            real_zips=True)
    served, checksums = _case_bodies(tmp_path / "cases", release.version)
    for path in release.artifacts.iterdir():
        name = path.name.removesuffix(f"-{release.version}.zip")
        body = served.get(name, path.read_bytes())
        if body is not None:
            kind = "text/html" if name == "html_page" else "application/zip"
            https.routes[f"/frameworks/{path.name}"] = Route(body, content_type=kind)
    rendered, built = rendered_release(release, https.url("frameworks/"), checksums)
    targets = resolve_targets(rendered, built, release.version, UrlSettings())
    assert {t.name for t in targets} == set(release.checksum_of)

    swiftpm = resolve_rendered([rendered], built, release.version, ResolveSettings(
        swift=swift_net, cache_dir=tmp_path / "cache", ca_file=test_ca.ca_pem, timeout=300))
    ours, _stats = verify_with_stats(
        [HostedZip(t.name, t.url, t.checksum, t.location) for t in targets],
        UrlSettings(timeout=10, retries=0))

    (resolution,) = swiftpm.resolutions
    table = []
    for outcome, finding in zip(resolution.targets, ours, strict=True):
        theirs = "accepted" if outcome.state is State.ACCEPTED else f"{outcome.kind}"
        mine = "accepted" if finding is None else finding.code
        table.append((outcome.name, theirs, mine, outcome.errors))
    print("\n".join(f"{n:28} SwiftPM: {t:16} ours: {m}" for n, t, m, _ in table))
    for name, theirs, mine, errors in table:
        assert theirs != "None", (name, errors)  # every target reached, none left unproven
        if name in STRICTER:  # accepted by SwiftPM, refused by the guard's one shape
            assert (theirs, mine) == ("accepted", STRICTER[name]), name
            continue
        expected = "accepted" if mine == "accepted" else SAME_FAILURE[mine]
        assert theirs == expected, (name, theirs, mine, errors)
    verdicts = {n: t for n, t, _m, _e in table}
    # The cases are what they claim to be: SwiftPM's own words, per case.
    assert verdicts == {
        **{n: "accepted" for n in verdicts if n.endswith("_debug")},
        "executorch": "accepted", "good": "accepted", "contents_at_root": "accepted",
        "flattened": "accepted",
        "wrong_checksum": "checksum", "reuploaded": "checksum", "missing": "download",
        "html_page": "invalid-archive", "truncated": "invalid-archive",
        "no_xcframework": "no-artifact", "bad_plist": "no-artifact",
    }
