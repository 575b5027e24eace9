"""scripts/local_index.py, the dry run's package index on loopback: real twine uploads to it,
real pip downloads from it, and PyPI's refusals (a file never replaced, a digest that lies, a
file of another project)."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from support.scripts import load

local_index = load("local_index")

METADATA = "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 0.1.0\nSummary: a demo\n"


def write_wheel(folder: Path, version: str = "0.1.0") -> Path:
    path = folder / f"demo_pkg-{version}-py3-none-any.whl"
    info = f"demo_pkg-{version}.dist-info"
    files = {
        "demo_pkg/__init__.py": "VALUE = 1\n",
        f"{info}/METADATA": METADATA.replace("0.1.0", version),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            archive.writestr(name, text)
    return path


def write_sdist(folder: Path) -> Path:
    path = folder / "demo_pkg-0.1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in (("PKG-INFO", METADATA), ("demo_pkg/__init__.py", "VALUE = 1\n")):
            data = text.encode()
            member = tarfile.TarInfo(f"demo_pkg-0.1.0/{name}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return path


@pytest.fixture
def index(tmp_path):
    running = local_index.serve(tmp_path / "index")
    yield running
    running.stop()


def twine_upload(url: str, *files: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWINE_")}
    env.update(TWINE_USERNAME="u", TWINE_PASSWORD="p", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "twine", "upload", "--non-interactive", "--disable-progress-bar",
         "--repository-url", f"{url}/", *map(str, files)],
        capture_output=True, text=True, timeout=120, check=False, env=env)


def upload_form(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = "----boundary1234"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
             .encode() for name, value in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="content"; '
                 f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                 .encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), boundary


def post(url: str, fields: dict[str, str], filename: str, data: bytes) -> tuple[int, str]:
    body, boundary = upload_form(fields, filename, data)
    request = urllib.request.Request(
        f"{url}/", data=body, method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read().decode()


def test_twine_uploads_and_pip_downloads_the_same_bytes(index, tmp_path):
    wheel, sdist = write_wheel(tmp_path), write_sdist(tmp_path)
    done = twine_upload(index.url, wheel, sdist)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [u.filename for u in index.uploads] == [wheel.name, sdist.name]
    with urllib.request.urlopen(f"{index.url}/simple/demo-pkg/", timeout=10) as response:
        page = response.read().decode()
    for file in (wheel, sdist):
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        assert f'href="../../packages/demo-pkg/{file.name}#sha256={digest}"' in page
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    got = tmp_path / "got"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-cache-dir",
         "--only-binary", ":all:", "--index-url", f"{index.url}/simple/", "--dest", str(got),
         "demo-pkg==0.1.0"], capture_output=True, text=True, timeout=120, check=False, env=env)
    assert pip.returncode == 0, pip.stderr
    assert (got / wheel.name).read_bytes() == wheel.read_bytes()


def test_a_file_is_never_replaced(index, tmp_path):
    wheel = write_wheel(tmp_path)
    assert twine_upload(index.url, wheel).returncode == 0
    again = twine_upload(index.url, wheel)
    assert again.returncode != 0 and "File already exists" in again.stdout + again.stderr


@pytest.mark.parametrize("fields, filename, says", [
    ({":action": "file_upload", "name": "demo-pkg", "version": "0.1.0",
      "sha256_digest": "0" * 64}, "demo_pkg-0.1.0-py3-none-any.whl", "does not match"),
    ({":action": "file_upload", "name": "demo-pkg", "version": "0.1.0"},
     "other-0.1.0-py3-none-any.whl", "is not a file of demo-pkg 0.1.0"),
    ({":action": "file_upload", "name": "demo-pkg", "version": "0.1.0"},
     "demo_pkg-0.1.00-py3-none-any.whl", "is not a file of demo-pkg 0.1.0"),
    ({":action": "file_upload", "name": "demo-pkg", "version": "0.1.0"},
     "demo_pkg-0.1.0.zip", "is not a wheel or sdist"),
    ({":action": "file_upload", "name": "demo-pkg", "version": "0.1.0"},
     "../../demo_pkg-0.1.0.tar.gz", None),  # the name only: stored inside the index
    ({":action": "remove_pkg", "name": "demo-pkg", "version": "0.1.0"},
     "demo_pkg-0.1.0.tar.gz", ":action must be file_upload"),
    ({":action": "file_upload", "version": "0.1.0"}, "demo_pkg-0.1.0.tar.gz",
     "missing form field 'name'"),
])
def test_uploads_are_checked_as_pypi_checks_them(index, fields, filename, says):
    status, text = post(index.url, fields, filename, b"bytes")
    if says is None:
        assert status == 200 and index.files("demo-pkg") == [
            ("demo_pkg-0.1.0.tar.gz", hashlib.sha256(b"bytes").hexdigest())]
        assert [p.name for p in index.root.rglob("*")] == ["demo-pkg", "demo_pkg-0.1.0.tar.gz"]
    else:
        assert status == 400 and says in text, text


def test_simple_pages_normalize_names_and_unknown_paths_are_404(index, tmp_path):
    assert post(index.url, {":action": "file_upload", "name": "Demo_Pkg", "version": "0.1.0"},
                "Demo_Pkg-0.1.0.tar.gz", b"x")[0] == 200
    with urllib.request.urlopen(f"{index.url}/simple/Demo_Pkg/", timeout=10) as response:
        assert response.url.endswith("/simple/demo-pkg/")  # redirected, as PEP 503 asks
    with urllib.request.urlopen(f"{index.url}/simple/", timeout=10) as response:
        assert '<a href="demo-pkg/">demo-pkg</a>' in response.read().decode()
    for path in ("/simple/nothing/", "/packages/demo-pkg/../x", "/etc/passwd"):
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(f"{index.url}{path}", timeout=10)
        with error.value:
            assert error.value.code == 404


def test_it_listens_on_loopback_only(index):
    assert index.url.startswith("http://127.0.0.1:")
    assert index._server.server_address[0] == "127.0.0.1"
