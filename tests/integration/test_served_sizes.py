"""The previous version's zips are sized, not downloaded (sources.hosted.served_sizes): a
GET of `Range: bytes=0-0` and the total its Content-Range says, through redirects; a host
that ignores the range answers with its Content-Length, and its body is left unread."""

import os

import pytest

from support.zip_server import Route, serve_zips
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.sources.hosted import served_sizes

FAST = UrlSettings(timeout=2, retries=0, jobs=4)
GIB = 1 << 30


@pytest.fixture
def server():
    with serve_zips() as running:
        yield running


def _sizes(server, *paths):
    got = served_sizes([server.url(p) for p in paths], FAST)
    return {url.removeprefix(server.base): (f.state, f.size, f.detail) for url, f in got.items()}


def test_sizes_come_from_the_range_answer_without_the_bodies(server):
    body = b"PK\x03\x04" + os.urandom(300_000)
    server.routes["/a.zip"] = Route(body)
    # GitHub's shape: the release URL redirects to the storage that serves the bytes.
    server.routes["/releases/download/1.2.2/b.zip"] = Route(status=302,
                                                            location=server.url("store/b"))
    server.routes["/store/b"] = Route(body[:123_457])
    assert _sizes(server, "a.zip", "releases/download/1.2.2/b.zip") == {
        "a.zip": ("sized", 300_004, ""),
        "releases/download/1.2.2/b.zip": ("sized", 123_457, "")}
    assert dict(server.sent) == {"/a.zip": 1, "/store/b": 1}
    assert dict(server.hits) == {"/a.zip": 1, "/releases/download/1.2.2/b.zip": 1,
                                 "/store/b": 1}


def test_a_host_ignoring_the_range_is_sized_by_its_content_length_body_unread(server):
    def gigabyte():
        chunk = b"\0" * (1 << 20)
        for _ in range(1024):
            yield chunk

    server.routes["/big.zip"] = Route(stream=gigabyte, length=GIB, ranges=False)
    assert _sizes(server, "big.zip") == {"big.zip": ("sized", GIB, "")}
    assert server.hits["/big.zip"] == 1
    assert server.sent["/big.zip"] < 64 << 20  # what socket buffers took, not the gigabyte


def test_no_size_announced_is_unsized_and_failures_say_so(server):
    server.routes["/plain.zip"] = Route(b"PK\x03\x04" + b"x" * 5000, sized=False,
                                        ranges=False)
    server.routes["/ranged.zip"] = Route(b"PK\x03\x04" + b"x" * 5000, sized=False)
    server.routes["/gone.zip"] = Route(status=404)
    assert _sizes(server, "plain.zip", "ranged.zip", "gone.zip") == {
        "plain.zip": ("unsized", 0, "HTTP 200 without a size in its Content-Length"),
        "ranged.zip": ("unsized", 0, "HTTP 206 without a size in its Content-Range"),
        "gone.zip": ("missing", 0, "HTTP 404")}
    assert server.sent["/ranged.zip"] == 1
