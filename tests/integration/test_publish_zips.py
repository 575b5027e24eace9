"""Publishing verifies every entry's data of every built zip by default (issue 31).

A CRC both headers misstate is seen only when the entry's data is read: SwiftPM's unzip tests
every entry and refuses the archive ("invalid archive"), so `publish` reads them all unless
told `--no-verify-zips`; `check` keeps reading only the metadata by default.
"""

from __future__ import annotations

import json
import zlib

from support.git_remote import refs
from support.release import Release
from support.zip_build import build, changed, members_of
from swiftpm_guard.cli.main import main

BRANCH = "refs/heads/swiftpm-1.2.3"


def _lie_about_a_crc(release: Release) -> str:
    """One built zip's library binary given a wrong CRC in both headers; its name."""
    path = sorted(release.artifacts.glob("*.zip"))[0]
    members = members_of(path)
    binary = next(m for m in members if m.name.endswith(".a"))
    path.write_bytes(build(changed(members, binary.name, crc=zlib.crc32(binary.data) ^ 1)))
    return binary.name


def _publish(remote, release: Release, *extra: str) -> list[str]:
    return ["publish", "--artifacts", str(release.artifacts), "--version", release.version,
            "--repo", remote.url, "--author", "Bot <bot@example.invalid>",
            "--accept-static", *extra]  # no swift here: the zips are the point


def test_a_lying_crc_stops_publish_without_verify_zips(remote, release, capsys, tmp_path):
    entry = _lie_about_a_crc(release)
    report = tmp_path / "report.json"
    assert main(_publish(remote, release, "--json", str(report))) == 1
    capsys.readouterr()
    (finding,) = [f for f in json.loads(report.read_text())["findings"]
                  if f["severity"] == "error"]
    assert (finding["code"], finding["subject"]) == ("zip-layout", entry)
    assert "CRC-32" in finding["message"]
    assert BRANCH not in refs(remote.bare)
    assert main(["check", "--template", str(release.template), "--artifacts",
                 str(release.artifacts), "--version", release.version,
                 "--accept-static"]) == 0
    capsys.readouterr()


def test_no_verify_zips_turns_the_data_check_off(remote, release, capsys):
    _lie_about_a_crc(release)
    assert main(_publish(remote, release, "--no-verify-zips")) == 0, capsys.readouterr()
    assert BRANCH in refs(remote.bare)
