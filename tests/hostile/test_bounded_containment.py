"""Every open bounded, every exception at the boundary, no unbounded wait (issue 25).

A zip swapped for a FIFO after hashing, an event file that is a FIFO, a deflate stream that
does not decompress, deep JSON (the event), a stub folder 1,100 levels deep, a
zip whose end record claims millions of entries, and a server that drips a byte every half
second: each is a one-line finding or exit 2 within its bound, never a traceback or a hang.
Waits that would hang on the old code run in a daemon thread that the test unblocks itself.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.actions_env import push_payload
from support.release import Release, xcframework_plist
from support.runner_job import Job
from support.zip_server import Route, serve_zips
from support.zips import many_entries_zip
from swiftpm_guard.cli.main import main

SHA = "0" * 40


def _finishes(work: Callable[[], Any], seconds: float, unblock: Callable[[], None]) -> Any:
    """`work()`'s result if it returns within `seconds`; else unblock it and fail."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # reported below, in the test's thread
            box["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        unblock()
        thread.join(10)
        pytest.fail(f"still waiting after {seconds} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _feed_fifo(path: Path) -> Callable[[], None]:
    def unblock() -> None:
        with contextlib.suppress(OSError):  # no reader waiting: nothing to unblock
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    return unblock


# -- a zip swapped for a FIFO after it was hashed ------------------------------------------------


def test_a_zip_swapped_for_a_fifo_after_hashing_cannot_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swiftpm_guard.sources import artifacts

    dist = tmp_path / "dist"
    dist.mkdir()
    path = dist / "executorch-1.2.3.zip"
    from support.release import write_zip

    write_zip(path, "executorch")
    hash_stream = artifacts._sha256_stream

    def hash_then_swap(stream: Any, shown: str, deadline: float) -> str:
        digest = hash_stream(stream, shown, deadline)
        path.unlink()
        os.mkfifo(path)  # the name now blocks any open that waits for a writer
        return digest

    monkeypatch.setattr(artifacts, "_sha256_stream", hash_then_swap)
    found, problems = _finishes(lambda: artifacts.scan_zip_folder(dist, display="dist"), 20,
                                _feed_fifo(path))
    assert [a.name for a in found] == ["executorch"]
    assert not [p for p in problems if p.severity.value == "error"], problems


# -- the event file ------------------------------------------------------------------------------


def _action_env(tmp_path: Path, payload_path: Path) -> dict[str, str]:
    step = Job(tmp_path, "http://127.0.0.1:9").step(
        tmp_path, "push",
        push_payload(ref="refs/heads/main",
                     before=SHA, after=SHA),
        sha=SHA, inputs={"mode": "check"})
    return {**step.env, "GITHUB_EVENT_PATH": str(payload_path)}


def test_an_event_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path, capsys) -> None:
    from swiftpm_guard.action.main import main as action_main

    fifo = tmp_path / "event.fifo"
    os.mkfifo(fifo)
    code = _finishes(lambda: action_main(_action_env(tmp_path, fifo)), 20, _feed_fifo(fifo))
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "is a FIFO, expected a regular file" in out


@pytest.mark.parametrize("depth", [100, 5000, 200_000])
def test_deep_event_json_is_exit_2_in_one_line(tmp_path: Path, capsys, depth: int) -> None:
    from swiftpm_guard.action.main import main as action_main

    event = tmp_path / "deep.json"
    event.write_text('{"a":' * depth + "1" + "}" * depth)
    code = action_main(_action_env(tmp_path, event))
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "nested deeper than 64 levels" in out and "Traceback" not in err
    assert [line for line in out.splitlines() if line.startswith("::error")]


# -- zips: a damaged deflate stream, a lying end record --------------------------------------


def _damaged_plist_zip(path: Path, name: str) -> None:
    """A zip whose headers agree (the layout check passes) but whose Info.plist's deflate
    stream does not decompress."""
    buffer = io.BytesIO()
    plist = xcframework_plist(name)
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{name}.xcframework/", b"")
        archive.writestr(f"{name}.xcframework/Info.plist", plist)
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo(f"{name}.xcframework/Info.plist")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start] = 0xFF  # BTYPE 11: "invalid block type"
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as archive, pytest.raises(zlib.error):
        archive.read(f"{name}.xcframework/Info.plist")


def test_a_damaged_info_plist_stream_is_a_finding_in_check(
    release: Release, capsys
) -> None:
    _damaged_plist_zip(release.artifacts / f"executorch-{release.version}.zip", "executorch")
    code = main(["check", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts)])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "Traceback" not in err
    line = [ln for ln in err.splitlines() if "is refused" in ln]
    assert len(line) == 1 and "zip-layout" in line[0] and "zlib" not in out


def test_a_damaged_info_plist_stream_is_a_finding_with_verify_urls(tmp_path: Path) -> None:
    from swiftpm_guard.core.urls import UrlSettings
    from swiftpm_guard.sources.hosted import fetch_all

    _damaged_plist_zip(tmp_path / "x.zip", "executorch")
    with serve_zips() as server:
        server.routes["/x.zip"] = Route((tmp_path / "x.zip").read_bytes())
        fetched = fetch_all([server.url("x.zip")], UrlSettings(timeout=5, retries=0))
    result = fetched[server.url("x.zip")]
    assert result.state == "not-zip" and "is refused" in result.detail, result


def test_the_end_record_is_judged_before_the_directory_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swiftpm_guard.errors import ZipProblem
    from swiftpm_guard.sources import zip_archive

    path = tmp_path / "claims.zip"
    many_entries_zip(path, "executorch", 10, claimed=3_000_000)
    monkeypatch.setattr(zip_archive.zipfile, "ZipFile",
                        lambda *a, **k: pytest.fail("the directory was read"))
    with pytest.raises(ZipProblem, match="3000000 entries"):
        zip_archive.read_zip_contents(path)


# -- a stub folder 1,100 levels deep -------------------------------------------------------------


def _nest(top: Path, levels: int) -> list[int]:
    """`top/a/a/…` `levels` deep, made relative to each last folder (no path grows past
    PATH_MAX); the open descriptors, outermost first, for `_unnest`."""
    descriptors = [os.open(top, os.O_RDONLY)]
    for _level in range(levels):
        os.mkdir("a", dir_fd=descriptors[-1])
        descriptors.append(os.open("a", os.O_RDONLY, dir_fd=descriptors[-1]))
    return descriptors


def _unnest(descriptors: list[int]) -> None:
    """Remove what `_nest` made, innermost first (pytest's own sweeps recurse)."""
    os.close(descriptors.pop())
    while len(descriptors) > 1:
        parent = descriptors.pop()
        os.rmdir("a", dir_fd=parent)
        os.close(parent)
    os.rmdir("a", dir_fd=descriptors[0])
    os.close(descriptors[0])


def test_a_deep_stub_folder_is_exit_2_in_one_line(release: Release, capsys) -> None:
    stub = release.stubs / "executorch"
    for source in stub.iterdir():  # no source on top: the walk goes all the way down
        source.unlink()
    descriptors = _nest(stub, 1100)
    try:
        code = main(["check", "--template", str(release.template), "--version",
                     release.version, "--artifacts", str(release.artifacts)])
    finally:
        _unnest(descriptors)
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert err.count("\n") == 1 and "nests deeper than 64 folders" in err, err


# -- a server that drips -------------------------------------------------------------------------


def _drip(stop: threading.Event) -> Iterator[bytes]:
    yield b"PK\x03\x04"
    while not stop.wait(0.5):
        yield b"x"


def test_a_dripping_server_is_stopped_at_the_deadline() -> None:
    from swiftpm_guard.core.urls import UrlSettings
    from swiftpm_guard.sources.hosted import fetch_all

    with serve_zips() as server:
        server.routes["/drip.zip"] = Route(stream=lambda: _drip(server.stopping),
                                           length=10_000_000)
        settings = UrlSettings(timeout=5, deadline=2, retries=0)
        started = time.monotonic()
        fetched = _finishes(lambda: fetch_all([server.url("drip.zip")], settings), 30,
                            server.stopping.set)
        took = time.monotonic() - started
    result = fetched[server.url("drip.zip")]
    assert result.state == "error" and "within 2 s" in result.detail, result
    assert took < 8, took


def test_the_json_depth_cap_is_linear_and_exact() -> None:
    from swiftpm_guard.core.json_depth import loads
    from swiftpm_guard.errors import TooDeep

    nested: list[object] = []
    for _ in range(63):
        nested = [nested]
    assert loads(b'[' * 64 + b']' * 64) == nested  # 64 levels: exactly at the cap, decoded whole
    assert loads('{"k": "[[[[[[[[\\"[[[["}') == {"k": '[[[[[[[["[[[['}
    with pytest.raises(TooDeep):
        loads(b"[" * 65 + b"]" * 65)
    with pytest.raises(TooDeep):
        loads(b"[" * 1_000_000)  # unclosed: the decoder would recurse into every one
    started = time.monotonic()
    with pytest.raises(ValueError):
        loads(b'"\\"' * 1_000_000)  # one unterminated string: scanned once
    assert time.monotonic() - started < 5
    assert json.loads(b"[]") == loads(b"[]")


# -- the runner's own files: a step output or summary path that is a FIFO -------------------------


@pytest.mark.parametrize("reader", [False, True], ids=["no-reader", "a-reader"])
def test_a_fifo_for_the_step_outputs_or_summary_cannot_block(tmp_path: Path, reader: bool
                                                             ) -> None:
    from swiftpm_guard.errors import InputError
    from swiftpm_guard.sinks import actions_io

    fifo = tmp_path / "output.fifo"
    os.mkfifo(fifo)
    held = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK) if reader else None
    try:
        for write in (lambda: actions_io.write_outputs(fifo, {"a": "1"}),
                      lambda: actions_io.append_summary(fifo, "text")):
            with pytest.raises(InputError, match=r"FIFO nobody reads|not a regular file"):
                _finishes(write, 20, _feed_fifo(fifo))
    finally:
        if held is not None:
            os.close(held)


def test_a_server_dripping_its_status_line_and_headers_is_cut_at_the_deadline() -> None:
    """A socket timeout is per read: a byte every half second never trips it. The deadline
    covers the whole request, status line and headers too (infra.http_deadline)."""
    from support.drip_server import serve_drip
    from swiftpm_guard.core.urls import UrlSettings
    from swiftpm_guard.sources.hosted import fetch_all

    with serve_drip(interval=0.5, seconds=60) as server:
        url = f"{server.url}/kernels-1.2.3.zip"
        settings = UrlSettings(timeout=5, deadline=2, retries=0)
        started = time.monotonic()
        fetched = _finishes(lambda: fetch_all([url], settings), 30, server.stopping.set)
        took = time.monotonic() - started
    assert fetched[url].state == "error", fetched[url]
    assert "no complete answer within 2 s" in fetched[url].detail, fetched[url]
    assert len(server.requests) == 1
    assert took < 4, took  # it was held until the server stopped dripping


def test_a_dripping_api_is_cut_at_the_run_budget() -> None:
    """Every attempt of every API call runs under what is left of the call's budget and of
    the run's: a server dripping its answer cannot hold the API past the run budget."""
    from support.drip_server import serve_drip
    from swiftpm_guard.errors import GitHubApiError
    from swiftpm_guard.infra.github import GitHubSession, RetryPolicy, call

    with serve_drip(interval=0.5, seconds=60) as server:
        policy = RetryPolicy(attempts=3, total_seconds=30, run_seconds=2, request_timeout=5,
                             seconds_between_writes=None, sleep=lambda _s: None).for_run()
        github = GitHubSession(server.url, "ghs_dripToken0123456789", "example/repo", policy)
        started = time.monotonic()

        def branch() -> Any:
            return call(policy, "read the default branch",
                        lambda: github.repo.default_branch)

        with pytest.raises(GitHubApiError, match="no complete answer within 2 s") as raised:
            _finishes(branch, 30, server.stopping.set)
        took = time.monotonic() - started
        later = time.monotonic()
        with pytest.raises(GitHubApiError, match="within 0 s"):  # the budget is spent
            _finishes(branch, 30, server.stopping.set)
        github.close()
    assert raised.value.retried and not raised.value.not_writable
    assert took < 4, took
    assert time.monotonic() - later < 1


def test_the_action_against_a_dripping_api_ends_within_its_run_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The action's main, as entrypoint.py runs it, with GITHUB_API_URL at a server that
    drips: every call is cut at the run's budget and the report still reaches the log."""
    from support.actions_env import FRAMEWORKS_FROM, REPOSITORY, clone, make_origin
    from support.drip_server import serve_drip
    from support.git_http import serve_git
    from swiftpm_guard.action import main as action
    from swiftpm_guard.infra.github import RetryPolicy

    origin = make_origin(tmp_path / "remote")
    workspace = clone(origin, "main", tmp_path / "workspace")
    (tmp_path / "step").mkdir()
    # git reads the repository from a server that answers: this test is about the API's budget.
    served = tmp_path / "served" / REPOSITORY.split("/")[0]
    served.mkdir(parents=True)
    (served / f"{REPOSITORY.split('/')[1]}.git").symlink_to(origin.bare)
    with serve_drip(interval=0.5, seconds=90) as server, serve_git(tmp_path / "served") as git:
        step = Job(tmp_path / "step", server.url).step(
            workspace, "push",
            push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
            sha=origin.main,
            inputs={"mode": "check", "frameworks-from": FRAMEWORKS_FROM,
                    "github-token": "ghs_dripToken0123456789"})
        step.env["GITHUB_SERVER_URL"] = git.rstrip("/")
        policy = RetryPolicy(run_seconds=3, request_timeout=5, seconds_between_writes=None)
        started = time.monotonic()
        code = _finishes(lambda: action.main(step.env, policy=policy), 60,
                         server.stopping.set)
        took = time.monotonic() - started
    out = capsys.readouterr().out
    assert took < 3 + 10, took  # the run budget, and the check itself
    assert server.requests, "the API was asked"
    assert "no complete answer within" in out, out
    assert code == 0, out


def test_a_dripping_tls_server_and_a_dripping_head_are_cut_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline shuts a TLS socket as it shuts a plain one, and bounds the HEAD that
    `--verify-absent` sends as it bounds a download."""
    from support.drip_server import serve_drip
    from support.tls import make_test_ca
    from swiftpm_guard.core.urls import UrlSettings
    from swiftpm_guard.sources.hosted import _exists, fetch_all

    ca = make_test_ca(tmp_path / "ca")
    monkeypatch.setenv("SWIFTPM_GUARD_CA_FILE", str(ca.ca_pem))
    settings = UrlSettings(timeout=5, deadline=2, retries=0)
    for tls, probe in ((ca.server_context(), None), (None, _exists)):
        with serve_drip(interval=0.5, seconds=60, tls=tls) as server:
            url = f"{server.url}/kernels-1.2.3.zip"
            started = time.monotonic()
            fetched = _finishes(lambda: fetch_all([url], settings, **(  # noqa: B023
                {"probe": probe} if probe else {})), 30, server.stopping.set)  # noqa: B023
            took = time.monotonic() - started
        assert server.requests, "the request reached the server"
        assert fetched[url].state == "error", fetched[url]
        assert "no complete answer within 2 s" in fetched[url].detail, fetched[url]
        assert took < 4, took
