"""What the image holds: what the action runs is there, what only builds it is not; and the
released image (the Dockerfile's `release` target) is the same image, less what it prunes.

The Dockerfile removes packages that others declare as dependencies (perl, which Debian's git
Depends on; cryptography and pycparser, which PyGithub's and cffi's metadata ask for). These
tests pin that the removal went exactly as far as intended: the git commands the action runs
are compiled builtins of the image's git, the only dependencies dpkg now lacks are git's on
perl, and the GitHub client still imports and authenticates with a token. And SwiftPM
(Debian's swiftlang) is there with only what `swift package` runs: its allow-listed programs,
the linker and crt files, unzip; not the debugger, the language servers or the static and
embedded standard libraries (test_image_swiftpm.py runs it).
"""

from __future__ import annotations

import json
import re

import pytest

from support.container import RunnerJob

pytestmark = pytest.mark.container

PYTHON = "/opt/swiftpm-guard/bin/python"

#: Every git subcommand the action runs (swiftpm_guard.sources.git_repository / workspace_clone,
#: sinks.git_push through sinks.git_runner): all must be compiled builtins, none Perl.
GIT_COMMANDS = (
    "cat-file",
    "commit-tree",
    "fetch",
    "for-each-ref",
    "hash-object",
    "init",
    "ls-remote",
    "ls-tree",
    "push",
    "read-tree",
    "rev-parse",
    "update-index",
    "write-tree",
)

_PROBE = r"""
import importlib.util, json, os, re, subprocess

def packages():
    # dpkg's status file: installed package -> its Depends (alternatives as lists), and what
    # every installed package provides.
    installed, provided = {}, set()
    for stanza in open("/var/lib/dpkg/status", encoding="utf-8").read().split("\n\n"):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if "install ok installed" not in fields.get("Status", ""):
            continue
        name = fields["Package"]
        provided.add(name)
        provided.update(re.sub(r"\(.*?\)", "", p).strip() for p in
                        fields.get("Provides", "").split(",") if p.strip())
        installed[name] = [[re.split(r"[\s(:]", alt.strip())[0] for alt in dep.split("|")]
                           for dep in fields.get("Depends", "").split(",") if dep.strip()]
    unmet = sorted(f"{name} -> {alts[0]}" for name, deps in installed.items()
                   for alts in deps if not any(alt in provided for alt in alts))
    return sorted(installed), unmet

def held(folder):
    # The names in folder but empty folders (what dpkg leaves of an excluded tree).
    return sorted(n for n in os.listdir(folder)
                  if not os.path.isdir(f"{folder}/{n}") or os.listdir(f"{folder}/{n}"))

names, unmet = packages()
builtins = subprocess.run(["/usr/bin/git", "--list-cmds=builtins"], capture_output=True, text=True,
                          check=True).stdout.split()
site = "/opt/swiftpm-guard/lib/python3.13/site-packages"
from github import Auth, Github
client = Github(base_url="http://127.0.0.1:9", auth=Auth.Token("t"), lazy=True)
print(json.dumps({
    "packages": names,
    "unmet": unmet,
    "builtins": builtins,
    "remote_https": os.access("/usr/lib/git-core/git-remote-https", os.X_OK),
    "modules": {m: importlib.util.find_spec(m) is not None for m in
                ("cryptography", "pycparser", "pip", "setuptools", "nacl", "jwt", "github")},
    "dist_info": sorted(n for n in os.listdir(site) if n.endswith(".dist-info")),
    "client": type(client).__name__,
    "swift_link": os.readlink("/usr/bin/swift") if os.path.islink("/usr/bin/swift") else None,
    "swift_programs": sorted(n for n in os.listdir("/usr/libexec/swift/bin")
                             if not os.path.islink(f"/usr/libexec/swift/bin/{n}")),
    "swift_libs": held("/usr/libexec/swift/lib"),
    "swift_stdlibs": held("/usr/libexec/swift/lib/swift"),
    "tools": {t: os.access(t, os.X_OK) for t in ("/usr/bin/ld", "/usr/bin/ar", "/usr/bin/unzip")},
    "crt": [p for p in ("/usr/lib/x86_64-linux-gnu/Scrt1.o",
                        "/usr/lib/gcc/x86_64-linux-gnu/14/crtbeginS.o") if os.path.isfile(p)],
}))
"""


def _probe(engine, image, folder, probe: str) -> dict:
    job = RunnerJob(folder / "job")
    result = job.run(engine, image, entrypoint=[PYTHON, "-I", "-c", probe])
    assert result.exit_code == 0, result
    return json.loads(result.logs.strip().splitlines()[-1])


@pytest.fixture(scope="module", params=["runtime", "release"])
def contents(request, engine, tmp_path_factory):
    """Both images answer every test below: the runtime one and the released one."""
    image = (request.getfixturevalue("image") if request.param == "runtime"
             else request.getfixturevalue("release_built").image)
    return _probe(engine, image, tmp_path_factory.mktemp(f"contents-{request.param}"), _PROBE)


def test_git_runs_every_command_the_action_needs_without_perl(contents):
    missing = [name for name in GIT_COMMANDS if name not in contents["builtins"]]
    assert not missing, f"not compiled into the image's git: {missing}"
    assert contents["remote_https"], "git cannot fetch or push over HTTPS"
    assert "git" in contents["packages"] and "ca-certificates" in contents["packages"]
    for gone in ("perl", "libperl5.40", "perl-modules-5.40", "liberror-perl"):
        assert gone not in contents["packages"], gone


def test_the_only_unmet_dependencies_are_gits_on_perl(contents):
    # Anything else here means a package the image needs lost a dependency it uses.
    assert contents["unmet"] == ["git -> liberror-perl", "git -> perl"]


def test_build_tools_left_the_image(contents):
    for gone in ("python3-venv", "python3.13-venv", "python3-pip-whl", "python3-setuptools-whl"):
        assert gone not in contents["packages"], gone
    assert contents["modules"] == {
        "cryptography": False,
        "pycparser": False,
        "pip": False,
        "setuptools": False,
        "nacl": True,  # PyGithub imports it at import time (github.PublicKey)
        "jwt": True,  # and PyJWT (github.Auth); without cryptography it has HMAC only
        "github": True,
    }
    assert not [n for n in contents["dist_info"] if n.startswith(("cryptography", "pycparser"))]
    assert contents["client"] == "Github"  # token auth needs none of what was removed


#: What `swift package` runs (dump-package, describe, resolve): the Dockerfile's allow-list,
#: less its names that are symbolic links (swift, swiftc, clang...), which dpkg unpacks anyway.
SWIFT_PROGRAMS = ["clang-17", "swift-driver", "swift-frontend", "swift-package"]


def test_swiftpm_is_there_and_only_what_swift_package_needs(contents):
    assert contents["swift_link"] == "/usr/libexec/swift/bin/swift"  # swiftlang's postinst
    assert contents["swift_programs"] == SWIFT_PROGRAMS
    for package in ("swiftlang", "libswiftlang", "binutils", "gcc", "libc6-dev", "unzip", "git",
                    "ca-certificates"):
        assert package in contents["packages"], package
    assert contents["tools"] == {"/usr/bin/ld": True, "/usr/bin/ar": True, "/usr/bin/unzip": True}
    assert len(contents["crt"]) == 2, contents["crt"]  # the manifest is linked
    # Not unpacked: what only the debugger, the language servers and static linking need.
    assert not [n for n in contents["swift_libs"] if n.startswith(
        ("liblldb", "libsourcekitd", "libLTO", "libIndexStore", "swift_static"))]
    assert "embedded" not in contents["swift_stdlibs"] and "linux" in contents["swift_stdlibs"]


def test_the_image_stays_under_a_gigabyte(image):
    # swiftlang unpacks 2.1 GB; the image keeps what swift package runs (about 0.9 GB).
    assert image.attrs["Size"] < 1_000_000_000, image.attrs["Size"]


#: Every entry of the file tree as (kind, mode, size, sha256 | link target), but what the
#: engine mounts into each container.
_TREE = r"""
import hashlib, json, os, stat
MOUNTED = {"/proc", "/sys", "/dev", "/github", "/etc/hostname", "/etc/hosts", "/etc/resolv.conf"}
tree = {}
for top, folders, files in os.walk("/"):
    folders[:] = [f for f in folders if os.path.join(top, f) not in MOUNTED]
    for name in folders + files:
        path = os.path.join(top, name)
        if path in MOUNTED:
            continue
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            tree[path] = ["l", os.readlink(path)]
        elif stat.S_ISDIR(info.st_mode):
            tree[path] = ["d", info.st_mode]
        else:
            with open(path, "rb") as file:
                digest = hashlib.file_digest(file, "sha256").hexdigest()
            tree[path] = ["f", info.st_mode, info.st_size, digest]
print(json.dumps(tree))
"""

#: What the release target prunes (the Dockerfile's `pruned` stage says why).
_PRUNED = re.compile(
    r"/usr/share/zoneinfo/(?!Etc$|Etc/UTC$)"
    r"|/usr/bin/perl$|/usr/bin/perl5\.|/usr/lib/[^/]+-linux-gnu/perl-base(/|$)"
    r"|/usr/share/perl5(/|$)|/var/lib/dpkg/info(/|$)|/usr/share/bash-completion(/|$)"
    r"|/var/cache/debconf(/|$)|/var/log/")


@pytest.fixture(scope="module")
def trees(engine, image, release_built, tmp_path_factory):
    folder = tmp_path_factory.mktemp("trees")
    return (_probe(engine, image, folder / "runtime", _TREE),
            _probe(engine, release_built.image, folder / "release", _TREE))


def test_the_release_holds_the_runtime_files_less_exactly_the_pruned_ones(trees):
    runtime, release = trees
    pruned = sorted(path for path in runtime if _PRUNED.match(path))
    assert set(release) == set(runtime) - set(pruned)
    different = [path for path in release if release[path] != runtime[path]]
    assert not different, f"changed in the release: {different[:20]}"
    # Not vacuous: the prune removed what it says, and kept what it says it keeps.
    assert "/usr/bin/perl" in pruned and "/usr/share/zoneinfo/Europe/Paris" in pruned
    assert len(pruned) > 1500
    for kept in ("/usr/share/zoneinfo/Etc/UTC", "/var/lib/dpkg/status", "/usr/bin/git",
                 "/usr/lib/git-core/git-remote-https", "/etc/ssl/certs/ca-certificates.crt"):
        assert kept in release, kept
    assert release["/etc/localtime"] == ["l", "/usr/share/zoneinfo/Etc/UTC"]


def test_the_release_is_one_layer_with_the_runtime_image_configuration(image, release_built):
    released = release_built.image
    assert len(released.attrs["RootFS"]["Layers"]) == 1
    assert len(image.attrs["RootFS"]["Layers"]) > 1
    ours = {k: v for k, v in released.attrs["Config"].items() if k != "Image"}
    theirs = {k: v for k, v in image.attrs["Config"].items() if k != "Image"}
    assert ours == theirs
    assert ours["Entrypoint"][:2] == [PYTHON, "-I"]
    assert released.attrs["Size"] < image.attrs["Size"]
