"""The audit's git goes through --proxy and through nothing else (issue 34): the front end's one
Git carries the proxy to the git that lists and fetches the published branches, and the
environment's proxy variables, which an earlier step of a job may have written, reach no git.

In-process against loopback servers: the published repository over smart HTTP, a forwarding
recording proxy named by --proxy, and a refusing one named in every proxy variable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.git_http import serve_git
from support.published import BranchSpec, build_repo
from support.recording_proxy import recording_proxy
from swiftpm_guard.cli.main import main

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                   "ALL_PROXY")


def _plant(monkeypatch: pytest.MonkeyPatch, proxy_url: str) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, proxy_url)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")


@pytest.fixture
def served(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    root.mkdir()
    build_repo(root / "published.git", [BranchSpec("1.0.0"), BranchSpec("1.0.1")])
    return root


def test_the_audits_git_takes_the_proxy_option_and_no_other(served, tmp_path, monkeypatch):
    out = tmp_path / "audit.json"
    with serve_git(served) as base, recording_proxy(forward=True) as wanted, \
            recording_proxy() as planted:
        _plant(monkeypatch, planted.url)
        code = main(["audit", "--repo", f"{base}published.git", "--proxy", wanted.url,
                     "--json", str(out), "-q"])
        through, stray = [f"{s.method} {s.target}" for s in wanted.seen], list(planted.seen)
    assert code == 0
    assert stray == []
    # ls-remote and the shallow fetch: both through the proxy, in absolute form.
    assert f"GET {base}published.git/info/refs?service=git-upload-pack" in through, through
    assert f"POST {base}published.git/git-upload-pack" in through, through
    branches = [entry["branch"] for entry in json.loads(out.read_text())["branches"]]
    assert branches == ["swiftpm-1.0.0", "swiftpm-1.0.1"]


def test_without_the_option_the_audits_git_goes_direct(served, tmp_path, monkeypatch):
    out = tmp_path / "audit.json"
    with serve_git(served) as base, recording_proxy() as planted:
        _plant(monkeypatch, planted.url)
        code = main(["audit", "--repo", f"{base}published.git", "--json", str(out), "-q"])
        stray = list(planted.seen)
    assert code == 0
    assert stray == []
    branches = [entry["branch"] for entry in json.loads(out.read_text())["branches"]]
    assert branches == ["swiftpm-1.0.0", "swiftpm-1.0.1"]
