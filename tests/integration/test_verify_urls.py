"""--verify-urls and --verify-absent against a loopback server that misbehaves in every way."""

import hashlib
import json
import re

import pytest

from support.hosted_release import verify_hosted
from support.markdown import rendered_text
from support.published import BranchSpec, build_repo
from support.release import write_real_zip, write_release
from support.zip_server import Route, serve_zips
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import HostedStats, Location
from swiftpm_guard.core.urls import HostedZip, UrlSettings
from swiftpm_guard.sources.hosted import verify_absent

FAST = UrlSettings(timeout=0.5, retries=1, jobs=4)


@pytest.fixture
def server():
    with serve_zips() as running:
        yield running


@pytest.fixture
def zips(tmp_path):
    """Two real zips and their checksums."""
    made = {}
    for name in ("alpha", "beta"):
        path = tmp_path / f"{name}-1.0.0.zip"
        digest = write_real_zip(path, name, payload_size=300_000)
        made[name] = (path.read_bytes(), digest)
    return made


def target(server, path, sha256, name="alpha"):
    return HostedZip(name, server.url(path), sha256, Location("Package.swift", 7))


def test_every_misbehaviour_yields_its_finding(server, zips):
    body, digest = zips["alpha"]
    changed = bytearray(body)
    changed[-30] ^= 0xFF
    server.routes.update({
        "/right.zip": Route(body),
        "/changed.zip": Route(bytes(changed)),
        "/gone.zip": Route(b"", 410),
        "/slow.zip": Route(body, stall=5.0),
        "/html.zip": Route(b"<!DOCTYPE html><html><body>Not found</body></html>", 200,
                           "text/html; charset=utf-8"),
        "/broken.zip": Route(b"oops", 500, "text/plain"),
        "/empty.zip": Route(b""),
        "/short.zip": Route(body[:1000], length=len(body)),
        "/forbidden.zip": Route(b"denied", 403, "text/plain"),
    })
    paths = ["right.zip", "changed.zip", "missing.zip", "gone.zip", "slow.zip", "html.zip",
             "broken.zip", "empty.zip", "short.zip", "forbidden.zip"]
    targets = [target(server, p, digest) for p in paths]
    findings = {f.message.split()[0].rsplit("/", 1)[-1].rstrip(":"): f
                for f in verify_hosted(targets, FAST)}
    assert {name: f.code for name, f in findings.items()} == {
        "changed.zip": "url-checksum",
        "missing.zip": "url-missing",
        "gone.zip": "url-missing",
        "slow.zip": "url-error",
        "html.zip": "url-not-zip",
        "broken.zip": "url-error",
        "empty.zip": "url-not-zip",
        "short.zip": "url-error",
        "forbidden.zip": "url-error",
    }
    assert "timed out" in findings["slow.zip"].message
    assert "after 2 attempts" in findings["slow.zip"].message
    assert "connection closed after 1000 of" in findings["short.zip"].message
    assert "text/html" in findings["html.zip"].message
    assert "<!DOCTYPE html>" in findings["html.zip"].message
    assert digest in findings["changed.zip"].message
    assert all((f.subject, f.file, f.line) == ("alpha", "Package.swift", 7)
               for f in findings.values())
    # Retried: transient failures twice (1 retry), final answers once.
    assert server.hits["/broken.zip"] == 2
    assert server.hits["/missing.zip"] == 1 and server.hits["/forbidden.zip"] == 1
    assert server.hits["/right.zip"] == 1


def test_retries_recover_and_redirects_are_followed(server, zips):
    body, digest = zips["beta"]
    server.routes.update({
        "/flaky.zip": Route(body, fail_first=1),
        "/moved.zip": Route(status=302, location=server.url("beta.zip")),
        "/beta.zip": Route(body),
        "/to-file.zip": Route(status=302, location="file:///etc/passwd"),
        "/to-ftp.zip": Route(status=301, location="ftp://127.0.0.1/beta.zip"),
    })
    targets = [target(server, p, digest, "beta") for p in ("flaky.zip", "moved.zip")]
    assert verify_hosted(targets, FAST) == []
    assert server.hits["/flaky.zip"] == 2
    refused = verify_hosted([target(server, "to-file.zip", digest),
                             target(server, "to-ftp.zip", digest)], FAST)
    assert [f.code for f in refused] == ["url-error", "url-error"]
    assert "file:///etc/passwd" in refused[0].message and "not allowed" in refused[0].message
    assert "non-http(s)" in refused[1].message


def test_one_fetch_per_distinct_url(server, zips):
    body, digest = zips["alpha"]
    server.routes["/a.zip"] = Route(body)
    same = [target(server, "a.zip", digest), target(server, "a.zip", None)]
    assert verify_hosted(same, FAST) == []
    assert server.hits["/a.zip"] == 1


def test_verify_absent(server, zips):
    body, _digest = zips["alpha"]
    server.routes.update({"/here.zip": Route(body), "/denied.zip": Route(b"", 403)})
    targets = [target(server, p, None) for p in ("here.zip", "absent.zip", "denied.zip")]
    findings = {f.message.split("/")[-1].split()[0]: f.code
                for f in verify_absent(targets, FAST)}
    assert findings == {"here.zip": "url-exists", "denied.zip": "url-error"}


def serve_release(server, release, prefix="frameworks/"):
    for path in release.artifacts.iterdir():
        server.routes[f"/{prefix}{path.name}"] = Route(path.read_bytes())


def test_check_verify_urls_end_to_end(server, tmp_path, capsys):
    release = write_release(tmp_path / "release", real_zips=True)
    serve_release(server, release)
    args = ["check", "--template", str(release.template), "--version", release.version,
            "--checksums", str(release.checksums), "--verify-urls",
            "--base-url", server.url("frameworks/"), "--url-timeout", "5",
            "--accept-static"]  # no swift here: the hosted zips are the point
    sound_json, sound_md = tmp_path / "sound.json", tmp_path / "sound.md"
    assert main([*args, "--json", str(sound_json), "--markdown", str(sound_md)]) == 0
    assert len(server.hits) == 20  # every binary target, debug twins and threadpool included
    # A run that succeeds leaves a trace: console, JSON and Markdown say what was fetched.
    served = sum(len(r.body) for r in server.routes.values())
    stats = json.loads(sound_json.read_text())["verify_urls"]
    assert (stats["urls"], stats["verified"], stats["bytes"]) == (20, 20, served)
    assert 0 < stats["seconds"] < 60
    said = HostedStats(20, 20, served, stats["seconds"]).sentence()  # "… (0.1 MB in 0.0 s)"
    head = f"20 zip URLs fetched, 20 verified ({served / 1e6:.1f} MB in "
    assert said.startswith(head)
    trace = re.compile(re.escape(head) + r"[0-9]+\.[0-9] s\)")
    assert trace.search(capsys.readouterr().out)
    shown = rendered_text(sound_md.read_text())
    assert trace.search(shown) and "Hosted zips (verify-urls): 20 zip URLs fetched" in shown
    # One upload went wrong, one never happened.
    write_real_zip(tmp_path / "rebuilt.zip", "kernels_llm", signed=True)  # another build
    server.routes["/frameworks/kernels_llm-1.2.3.zip"].body = (tmp_path / "rebuilt.zip").read_bytes()
    server.routes["/frameworks/kernels_llm-1.2.3.zip"].length = None
    del server.routes["/frameworks/threadpool_debug-1.2.3.zip"]
    report = tmp_path / "r.json"
    assert main([*args, "--json", str(report)]) == 1
    data = json.loads(report.read_text())
    assert {(f["code"], f["subject"]) for f in data["findings"]
            if f["code"] != "needs-swiftpm"} == {
        ("url-checksum", "kernels_llm"), ("url-missing", "threadpool_debug")}
    url_findings = [f for f in data["findings"] if f["code"].startswith("url-")]
    assert all(f["file"] == str(release.template) and f["line"] for f in url_findings)
    capsys.readouterr()
    # --warn downgrades them like any other code.
    assert main([*args, "--warn", "url-checksum", "--warn", "url-missing"]) == 0


def test_a_zip_swiftpm_finds_no_artifact_in_is_url_no_artifact(server, tmp_path):
    """An Info.plist without AvailableLibraries (the test fixture's zips of before) fails every
    consumer: SwiftPM says "does not contain a binary artifact" (test_resolve_oracle.py)."""
    path = tmp_path / "old-1.0.0.zip"
    digest = write_real_zip(path, "old", plist=b"<plist><dict><key>Name</key>"
                                               b"<string>old</string></dict></plist>\n")
    server.routes["/old.zip"] = Route(path.read_bytes())
    (finding,) = verify_hosted([target(server, "old.zip", digest, name="old")], FAST)
    assert finding.code == "url-no-artifact"
    assert "old.xcframework/Info.plist is not XCFramework metadata" in finding.message
    # Looking inside can be turned off (only the hash is compared then).
    blind = UrlSettings(timeout=0.5, retries=0, archive_contents=False)
    assert verify_hosted([target(server, "old.zip", digest, name="old")], blind) == []


def test_render_writes_nothing_when_a_url_fails(server, tmp_path):
    release = write_release(tmp_path / "release", real_zips=True)
    serve_release(server, release)
    del server.routes["/frameworks/executorch-1.2.3.zip"]
    out = tmp_path / "Package.swift"
    assert main(["render", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts), "--output", str(out), "--verify-urls",
                 "--base-url", server.url("frameworks/")]) == 1
    assert not out.exists()


def test_audit_verify_urls_fetches_what_each_branch_promises(server, tmp_path):
    zips_dir = tmp_path / "zips"
    zips_dir.mkdir()
    specs = []
    for version in ("1.0.0", "1.0.1"):
        checksums = {}
        for name in ("executorch", "executorch_debug", "threadpool", "threadpool_debug"):
            path = zips_dir / f"{name}-{version}.zip"
            # Each version's build differs (same bytes would be a reused-checksum finding).
            checksums[name] = write_real_zip(path, name, payload_size=64 + len(specs))
            server.routes[f"/dl/{path.name}"] = Route(path.read_bytes())
        specs.append(BranchSpec(version, products=["executorch"], checksums=checksums))
    repo = build_repo(tmp_path / "r.git", specs)
    server.routes["/dl/threadpool-1.0.1.zip"].body += b"trailing junk"
    server.routes["/dl/threadpool-1.0.1.zip"].length = None
    out = tmp_path / "audit.json"
    assert main(["audit", "--repo", str(repo), "--verify-urls", "--base-url",
                 server.url("dl/"), "--json", str(out), "-q"]) == 1
    data = json.loads(out.read_text())
    assert (data["verify_urls"]["urls"], data["verify_urls"]["verified"]) == (8, 7)
    assert [(e["branch"], [(f["code"], f["subject"]) for f in e["findings"]])
            for e in data["branches"]] == [
        ("swiftpm-1.0.0", []),
        ("swiftpm-1.0.1", [("url-checksum", "threadpool")]),
    ]
    assert len(server.hits) == 8


def test_default_base_is_the_manifests_own_url(server, tmp_path):
    """Without --base-url the template's own `let url = "…"` is the base (here: loopback)."""
    release = write_release(tmp_path / "release", real_zips=True)
    text = release.template.read_text()
    release.template.write_text(text.replace("https://example.invalid/frameworks/",
                                             server.url("cdn/")))
    serve_release(server, release, prefix="cdn/")
    assert main(["check", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--verify-urls", "-q",
                 "--accept-static"]) == 0
    assert set(server.hits) == {f"/cdn/{p.name}" for p in release.artifacts.iterdir()}


def test_hash_of_served_bytes_is_sha256(server):
    body = b"PK\x03\x04" + bytes(range(256)) * 5000
    server.routes["/x.zip"] = Route(body)
    good = hashlib.sha256(body).hexdigest()
    # Not a readable zip after its signature, so only the hash is compared here.
    hash_only = UrlSettings(timeout=0.5, retries=1, archive_contents=False)
    assert verify_hosted([target(server, "x.zip", good)], hash_only) == []
    [bad] = verify_hosted([target(server, "x.zip", "0" * 64)], hash_only)
    assert bad.code == "url-checksum" and f"{len(body)} bytes" in bad.message


def _absent_findings(args, templates, version):
    """What `preflight --verify-absent` asks: nothing without the flag, else one call."""
    from swiftpm_guard.cli.options import url_settings
    from swiftpm_guard.jobs import verify_urls

    if not args.verify_absent:
        return []
    return verify_urls.absent(templates, version, url_settings(args))


def test_argparse_helper_wires_verify_absent_in_one_line(server, tmp_path):
    """What `preflight --verify-absent` does: parse the helper's options, then one call."""
    import argparse

    from swiftpm_guard.cli.options import add_url_arguments
    from swiftpm_guard.sources.template import load_template

    release = write_release(tmp_path / "release", real_zips=True)
    template, _ = load_template(release.template)
    parser = argparse.ArgumentParser()
    add_url_arguments(parser, flag="--verify-absent")
    args = parser.parse_args(["--verify-absent", "--base-url", server.url("z/"),
                              "--url-timeout", "5"])
    assert _absent_findings(args, [template], "9.9.9") == []
    assert len(server.hits) == 20  # every zip URL of 9.9.9 asked for, none there
    server.routes["/z/executorch_debug-9.9.9.zip"] = Route(b"PK\x03\x04")
    [finding] = _absent_findings(args, [template], "9.9.9")
    assert (finding.code, finding.subject) == ("url-exists", "executorch_debug")
    assert "would overwrite" in finding.message
    off = parser.parse_args([])
    assert _absent_findings(off, [template], "9.9.9") == []


def test_absent_on_403_counts_a_bucket_without_list_rights_as_absent(server, tmp_path):
    """S3 public-read without s3:ListBucket: a missing key answers 403, not 404."""
    import argparse

    from swiftpm_guard.cli.options import add_url_arguments
    from swiftpm_guard.sources.template import load_template

    release = write_release(tmp_path / "release", real_zips=True)
    template, _ = load_template(release.template)
    for name in release.checksum_of:
        server.routes[f"/z/{name}-9.9.9.zip"] = Route(b"<Error>AccessDenied</Error>", 403,
                                                      "application/xml")
    parser = argparse.ArgumentParser()
    add_url_arguments(parser, flag="--verify-absent")
    strict = parser.parse_args(["--verify-absent", "--base-url", server.url("z/")])
    found = _absent_findings(strict, [template], "9.9.9")
    assert found and {f.code for f in found} == {"url-error"}
    assert all("cannot tell whether" in f.message and "403" in f.message for f in found)
    s3 = parser.parse_args(["--verify-absent", "--absent-on-403", "--base-url", server.url("z/")])
    assert _absent_findings(s3, [template], "9.9.9") == []
    server.routes["/z/executorch-9.9.9.zip"] = Route(b"PK\x03\x04")
    [finding] = _absent_findings(s3, [template], "9.9.9")
    assert (finding.code, finding.subject) == ("url-exists", "executorch")
