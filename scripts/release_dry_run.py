"""The whole release on this machine: `scripts/release.sh --dry-run X.Y.Z` runs this.

    scripts/release.sh --dry-run X.Y.Z [--owner OWNER] [--registry 127.0.0.1:PORT]
                       [--index http://127.0.0.1:PORT] [--workdir DIR] [--python PYTHON]
                       [--platforms linux/ARCH]

Every step a release takes, performed and printed with the commands it runs, in the order the
maintainer and .github/workflows/release.yml take them:

  1. the checks (`scripts/release.sh X.Y.Z --check`, also the workflow's first job);
  2. the release notes: X.Y.Z's section of CHANGELOG.md (scripts/changelog.py);
  3. the maintainer's tag: a scratch `origin` (a bare repository fetched from this one: HEAD
     and its tags) and a clone of it, where `scripts/release.sh X.Y.Z` tags the source commit
     and `git push origin vX.Y.Z` pushes it (skipped when this repository has the source tag
     on HEAD already);
  4. the workflow's checkout of the tag in a second clone, the "runner", and its checks;
  5. a registry on loopback: Debian's docker-registry on 127.0.0.1 at a free port, storage in
     the work folder (or --registry, one already running on loopback);
  6. the image: `scripts/release.sh X.Y.Z --push-only` builds the Dockerfile's `release`
     target and pushes it (the workflow's build-push-action; the platforms and provenance
     that only the workflow has are named);
  7. the digest read back from the registry itself (its Docker-Content-Digest, checked
     against the manifest's bytes) and compared with what the push reported;
  8. the release commit: `scripts/release.sh X.Y.Z --digest D --from-tag` in the runner, the
     workflow's checks of the pinned action.yml, and `git push --force` of vX.Y.Z and vX to
     the scratch origin (vX moves);
  9. the sdist and wheel: `python -m build`, `twine check --strict`;
 10. the upload: twine to a package index on loopback (scripts/local_index.py, in this
     process; or --index, one already running), then the index's page and a `pip download`
     of the wheel, compared byte for byte with what was built;
 11. the GitHub release: the `gh release create` the workflow runs, with the notes file.

Nothing leaves loopback: git pushes go to the scratch origin, the image to the loopback
registry, the files to the loopback index; GitHub, GHCR and PyPI are never contacted. What does
reach out is what any local build does: the image build's apt and pip (the Dockerfile) and
`python -m build` fetching setuptools into its isolated environment, from the mirrors and
index this machine is configured with. This repository is only read (`git fetch` from it into
the scratch origin); the engine's tag for the pushed image is removed at the end.

The work folder (a temporary one, removed at the end, or --workdir DIR, kept: an absent or
empty folder outside the repository) holds the scratch repositories, the registry's storage,
release-notes.md, dist/, the index's files and one log per command.

Exit status: 0 when every step passed, 1 when one failed or the release would be refused
(the message says which and why), 2 for bad arguments. Standard library only; --python (by
default $PYTHON, else the repository's .venv, else this interpreter) runs build, twine and pip.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import changelog  # scripts/ is not a package: found through sys.path
import local_index

REPO = Path(__file__).resolve().parent.parent
STEPS = 11
USAGE = ("usage: scripts/release.sh --dry-run X.Y.Z [--owner O] [--registry 127.0.0.1:PORT] "
         "[--index http://127.0.0.1:PORT] [--workdir DIR] [--python PY] [--platforms P]")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
OWNER_RE = re.compile(r"[a-z0-9][a-z0-9_.-]*")
PLATFORM_RE = re.compile(r"linux/[a-z0-9]+(/v[0-9])?(,linux/[a-z0-9]+(/v[0-9])?)*")
MANIFEST_TYPES = ", ".join((
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
))
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: What the workflow's pin job commits and tags as (release.yml sets the same).
BOT = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
#: Options that belong to the real release: the dry run builds, pushes and pins by itself.
REAL_ONLY = ("--digest", "--from-tag", "--push-only", "--check")


class UsageError(Exception):
    pass


class StepFailed(Exception):
    pass


@dataclass(frozen=True)
class Options:
    version: str
    owner: str
    registry: str | None
    index: str | None
    workdir: Path | None
    python: str | None
    platforms: str | None


def _loopback_port(value: str, what: str) -> int:
    host, _, port = value.rpartition(":")
    if host not in LOOPBACK_HOSTS or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{what} '{value}' is not 127.0.0.1:PORT or localhost:PORT: a dry run "
                         "never leaves loopback")
    return int(port)


def parse(argv: Sequence[str]) -> Options:
    """The dry run's arguments, or UsageError naming the first thing wrong with them."""
    values: dict[str, str] = {}
    positional: list[str] = []
    names = ("--owner", "--registry", "--index", "--workdir", "--python", "--platforms")
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, equals, inline = arg.partition("=")
        if name in REAL_ONLY:
            raise UsageError(f"{name} is not for a dry run: it builds, pushes and pins itself")
        if name in names:
            if not equals:
                if not args:
                    raise UsageError(f"{name} needs a value")
                inline = args.pop(0)
            if name in values:
                raise UsageError(f"{name} given twice")
            values[name] = inline
        elif arg.startswith("-"):
            raise UsageError(f"unknown option '{arg}'")
        else:
            positional.append(arg)
    if len(positional) != 1:
        raise UsageError("give exactly one version X.Y.Z")
    version = positional[0]
    if changelog.VERSION_RE.fullmatch(version) is None:
        raise UsageError(f"'{version}' is not X.Y.Z")
    owner = values.get("--owner", "dry-run").lower()
    if OWNER_RE.fullmatch(owner) is None:
        raise UsageError(f"'{owner}' is not a registry owner name")
    registry = values.get("--registry")
    if registry is not None:
        _loopback_port(registry, "--registry")
    index = values.get("--index")
    if index is not None:
        index = index.rstrip("/")
        if not index.startswith("http://"):
            raise UsageError(f"--index '{index}' is not http://127.0.0.1:PORT: a dry run never "
                             "leaves loopback")
        _loopback_port(index.removeprefix("http://"), "--index")
    workdir = values.get("--workdir")
    work = Path(workdir).resolve() if workdir is not None else None
    if work is not None:
        if work.is_relative_to(REPO):
            raise UsageError(f"--workdir {work} is inside the repository (it must stay clean)")
        if work.exists() and (not work.is_dir() or any(work.iterdir())):
            raise UsageError(f"--workdir {work} exists and is not an empty folder")
    platforms = values.get("--platforms")
    if platforms is not None and PLATFORM_RE.fullmatch(platforms) is None:
        raise UsageError(f"'{platforms}' is not a list of linux/<arch>")
    return Options(version, owner, registry, index, work, values.get("--python"), platforms)


# --- printing and running ------------------------------------------------------------------


def say(text: str = "") -> None:
    print(text, flush=True)


def quoted(lines: str, prefix: str = "    | ") -> None:
    for line in lines.rstrip("\n").splitlines():
        say(f"{prefix}{line}")


class Runner:
    """Runs each command with a timeout, prints it, keeps its output in a log of its own."""

    def __init__(self, work: Path, places: Mapping[str, Path]) -> None:
        self.work = work
        self.logs = work / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.places = places
        self.count = 0

    def shown(self, text: str) -> str:
        return ANSI_RE.sub("", text).replace(str(self.work), "$WORK")

    def __call__(self, argv: Sequence[str], *, where: str, timeout: float,
                 env: Mapping[str, str] | None = None, show: bool = True) -> str:
        """stdout of the command; StepFailed with the end of its output when it fails."""
        self.count += 1
        log = self.logs / f"{self.count:02d}-{Path(argv[0]).name}.log"
        say(f"    [{where}] $ {self.shown(shlex.join(argv))}")
        try:
            done = subprocess.run(list(argv), cwd=self.places[where],
                                  env={**(os.environ if env is None else env), "NO_COLOR": "1"},
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise StepFailed(f"{argv[0]} ran past {timeout:.0f} s") from None
        except OSError as error:
            raise StepFailed(f"{argv[0]}: {error.strerror or error}") from None
        log.write_text(f"$ {shlex.join(argv)}\n--- stdout ---\n{done.stdout}"
                       f"--- stderr ---\n{done.stderr}", encoding="utf-8")
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-25:]
            raise StepFailed(f"exit {done.returncode} from {argv[0]} "
                             f"(log {self.shown(str(log))}):\n" + "\n".join(tail))
        if show:
            quoted(self.shown(done.stdout + done.stderr), "      ")
        else:
            lines = len((done.stdout + done.stderr).splitlines())
            say(f"      ({lines} lines of output: {self.shown(str(log))})")
        return done.stdout


# --- the loopback registry -----------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def loopback_registry(root: Path) -> Iterator[str]:
    """Debian's docker-registry on 127.0.0.1 at a free port, storage under `root`; yields
    HOST:PORT and stops it (by its PID) on exit."""
    binary = shutil.which("docker-registry")
    if binary is None:
        raise StepFailed("Debian's docker-registry is not installed (apt-get install "
                         "docker-registry), or pass --registry 127.0.0.1:PORT")
    root.mkdir(parents=True, exist_ok=True)
    problem = ""
    for _attempt in range(3):  # the port can be taken between probing and binding
        port = _free_port()
        config = root / "config.yml"
        config.write_text(json.dumps({  # JSON is YAML
            "version": 0.1,
            "log": {"level": "warn", "accesslog": {"disabled": True}},
            "storage": {"filesystem": {"rootdirectory": str(root / "storage")}},
            "http": {"addr": f"127.0.0.1:{port}"},
        }, indent=2))
        log = root / "registry.log"
        with log.open("ab") as sink:
            process = subprocess.Popen([binary, "serve", str(config)], stdin=subprocess.DEVNULL,
                                       stdout=sink, stderr=sink, start_new_session=True)
        deadline = time.monotonic() + 20
        while process.poll() is None and time.monotonic() < deadline:
            if _answers(f"http://127.0.0.1:{port}/v2/"):
                break
            time.sleep(0.1)
        else:
            _stop(process)
            problem = log.read_text(errors="replace")[-800:]
            continue
        try:
            yield f"127.0.0.1:{port}"
        finally:
            _stop(process)
        return
    raise StepFailed(f"docker-registry did not start: {problem}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@dataclass(frozen=True)
class Served:
    digest: str
    media_type: str
    platforms: tuple[str, ...]
    compressed_bytes: int


def _get(url: str, accept: str) -> tuple[bytes, Mapping[str, str]]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read(), response.headers


def manifest(registry: str, repository: str, reference: str) -> Served:
    """What the registry serves for repository:reference; its digest checked against the
    bytes it sent."""
    base = f"http://{registry}/v2/{repository}"
    body, headers = _get(f"{base}/manifests/{reference}", MANIFEST_TYPES)
    digest = headers.get("Docker-Content-Digest", "")
    if digest != "sha256:" + hashlib.sha256(body).hexdigest():
        raise StepFailed(f"the registry's digest {digest!r} is not the sha256 of its manifest")
    document = json.loads(body)
    media_type = document.get("mediaType") or headers.get("Content-Type", "")
    if "manifests" in document:  # an index: one image per platform (and attestations)
        platforms, total = [], 0
        for entry in document["manifests"]:
            platform = entry.get("platform", {})
            if platform.get("os") == "unknown":  # buildx's attestation manifests
                platforms.append("an attestation manifest")
                continue
            platforms.append(f"{platform.get('os')}/{platform.get('architecture')}")
            total += manifest(registry, repository, entry["digest"]).compressed_bytes
        return Served(digest, media_type, tuple(platforms), total)
    size = document["config"]["size"] + sum(layer["size"] for layer in document["layers"])
    config, _ = _get(f"{base}/blobs/{document['config']['digest']}", "*/*")
    image = json.loads(config)
    return Served(digest, media_type, (f"{image.get('os')}/{image.get('architecture')}",), size)


# --- the dry run ---------------------------------------------------------------------------


def _python(options: Options) -> str:
    if options.python:
        return options.python
    if os.environ.get("PYTHON"):
        return os.environ["PYTHON"]
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def _git(*args: str, cwd: Path = REPO) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def _preflight(python: str) -> str:
    """The engine's platform; StepFailed for a tool that is missing, before anything runs."""
    if shutil.which("git") is None:
        raise StepFailed("git is not installed")
    if not _git("rev-parse", "--verify", "HEAD"):
        raise StepFailed(f"{REPO} is not a git repository with a commit")
    docker = shutil.which("docker")
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    engine = subprocess.run(
        [docker or "docker", "version", "--format", "{{.Server.Os}}/{{.Server.Arch}}"],
        capture_output=True, text=True, timeout=30, check=False) if docker else None
    if engine is None or engine.returncode != 0:
        raise StepFailed(f"no container engine answers at DOCKER_HOST={host}; on Debian as root: "
                         'export DOCKER_HOST="$(bash scripts/container-engine.sh start)"')
    tools = subprocess.run([python, "-c", "import build, twine"], capture_output=True,
                           text=True, timeout=60, check=False)
    if tools.returncode != 0:
        raise StepFailed(f"{python} lacks build and twine (make .venv/.installed, or pass "
                         "--python)")
    return engine.stdout.strip()


def _step(number: int, title: str) -> float:
    say()
    say(f"[{number}/{STEPS}] {title}")
    return time.monotonic()


def _done(started: float, text: str = "ok") -> None:
    say(f"    {text} ({time.monotonic() - started:.1f} s)")


def _pip_env() -> dict[str, str]:
    """pip reading only the loopback index: no configuration file, no PIP_* from here."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def dry_run(options: Options, work: Path) -> int:
    version, owner = options.version, options.owner
    tag, major = f"v{version}", f"v{version.split('.')[0]}"
    python = _python(options)
    native = _preflight(python)
    platforms = options.platforms or native
    head = _git("rev-parse", "HEAD")
    branch = _git("symbolic-ref", "--short", "-q", "HEAD") or "main"
    origin, maintainer, runner = work / "origin.git", work / "maintainer", work / "runner"
    run = Runner(work, {"repo": REPO, "work": work, "origin": origin,
                        "maintainer": maintainer, "runner": runner})
    bot = {**os.environ, "GIT_AUTHOR_NAME": BOT, "GIT_AUTHOR_EMAIL": BOT_EMAIL,
           "GIT_COMMITTER_NAME": BOT, "GIT_COMMITTER_EMAIL": BOT_EMAIL}
    release = ["bash", "scripts/release.sh", version]
    say(f"swiftpm-guard release dry run: {version} from {REPO} at {head[:7]} ({branch})")
    say(f"WORK={work}")
    say("nothing leaves loopback: git pushes go to $WORK/origin.git, the image to a registry "
        "on 127.0.0.1, the wheel and sdist to an index on 127.0.0.1")

    started = _step(1, f"checks: version, CHANGELOG.md, clean tree, action.yml, {tag} "
                       "(the workflow's `version` job runs the same)")
    run([*release, "--check"], where="repo", timeout=60)
    _done(started)

    started = _step(2, f"release notes: CHANGELOG.md's [{version}] section, the GitHub "
                       "release's body")
    notes = changelog.release_notes((REPO / "CHANGELOG.md").read_text(encoding="utf-8"),
                                    version)
    notes_file = work / "release-notes.md"
    notes_file.write_text(notes.body, encoding="utf-8")
    say(f"    {notes.heading} -> $WORK/release-notes.md ({len(notes.body.splitlines())} lines)")
    quoted(notes.body)
    for warning in notes.warnings:
        say(f"    warning: {warning}")
    _done(started)

    started = _step(3, f"the maintainer tags {tag} and pushes it (here: to a scratch origin)")
    origin.mkdir()
    run(["git", "init", "-q", "--bare", "-b", branch, "."], where="origin", timeout=60)
    run(["git", "fetch", "-q", "--no-tags", str(REPO), f"+HEAD:refs/heads/{branch}",
         "+refs/tags/*:refs/tags/*"], where="origin", timeout=300)
    if _git("rev-parse", f"refs/heads/{branch}", cwd=origin) != head:
        raise StepFailed(f"the scratch origin's {branch} is not {head[:7]}")
    major_before = _git("rev-parse", "-q", "--verify", f"refs/tags/{major}^{{commit}}",
                        cwd=origin)
    run(["git", "clone", "-q", str(origin), str(maintainer)], where="work", timeout=300)
    if _git("rev-parse", "-q", "--verify", f"refs/tags/{tag}", cwd=origin):
        say(f"    this repository has {tag} on HEAD already (a source tag): taken as pushed")
    else:
        run(release, where="maintainer", timeout=60)
        run(["git", "push", "-q", "origin", tag], where="maintainer", timeout=120)
    _done(started)

    started = _step(4, f"the workflow checks out {tag} (the runner) and checks it again")
    run(["git", "-c", "advice.detachedHead=false", "clone", "-q", "--branch", tag, str(origin),
         str(runner)], where="work", timeout=300)
    run([*release, "--check"], where="runner", timeout=60)
    _done(started)

    registry_cm: contextlib.AbstractContextManager[str]
    if options.registry:
        registry_cm = contextlib.nullcontext(options.registry)
    else:
        registry_cm = loopback_registry(work / "registry")
    started = _step(5, "a registry on loopback (GHCR in the workflow)")
    with registry_cm as registry:
        if not _answers(f"http://{registry}/v2/"):
            raise StepFailed(f"no registry answers at http://{registry}/v2/")
        say(f"    {'given' if options.registry else 'docker-registry serving'} "
            f"http://{registry}/v2/")
        _done(started)
        image = f"{registry}/{owner}/swiftpm-guard"
        try:
            return _image_onwards(options, run, release, bot, work, registry, image, platforms,
                                  notes_file, major_before, python)
        finally:
            subprocess.run(["docker", "image", "rm", "--no-prune", f"{image}:{version}"],
                           capture_output=True, timeout=60, check=False)


def _image_onwards(options: Options, run: Runner, release: list[str], bot: Mapping[str, str],
                   work: Path, registry: str, image: str, platforms: str, notes_file: Path,
                   major_before: str, python: str) -> int:
    version, owner = options.version, options.owner
    tag, major = f"v{version}", f"v{version.split('.')[0]}"
    repository = f"{owner}/swiftpm-guard"

    started = _step(6, f"the image: the Dockerfile's `release` target for {platforms}, pushed "
                       f"as {image}:{version}")
    say("    the workflow: docker/build-push-action for linux/amd64,linux/arm64 (QEMU), "
        "provenance mode=max, then actions/attest-build-provenance (signed with the job's OIDC "
        "identity, pushed beside the image)")
    buildx = subprocess.run(["docker", "buildx", "version"], capture_output=True,
                            timeout=30, check=False).returncode == 0
    say("    here: " + ("docker buildx" if buildx else "no docker buildx: `docker build` for "
                       "the engine's own platform") + "; no attestation (it needs GitHub's "
        "OIDC token and Sigstore)")
    out = run([*release, "--registry", registry, "--owner", owner, "--platforms", platforms,
               "--push-only"], where="runner", timeout=3600, show=False)
    pushed = re.search(r"^pushed: (\S+)@(sha256:[0-9a-f]{64})$", out, re.M)
    if pushed is None:
        raise StepFailed(f"release.sh --push-only printed no digest: {out[-500:]}")
    digest = pushed.group(2)
    say(f"    pushed {pushed.group(1)}@{digest}")
    _done(started)

    started = _step(7, "the digest, read back from the registry")
    say(f"    GET http://{registry}/v2/{repository}/manifests/{version}")
    served = manifest(registry, repository, version)
    say(f"    Docker-Content-Digest: {served.digest} (the sha256 of the manifest it sent)")
    say(f"    {served.media_type}; {', '.join(served.platforms)}; "
        f"{served.compressed_bytes / 1e6:.1f} MB compressed")
    if served.digest != digest:
        raise StepFailed(f"the registry serves {served.digest}, the push said {digest}")
    say("    equal to the pushed digest")
    _done(started)

    reference = f"{image}:{version}@{digest}"
    started = _step(8, f"the release commit: action.yml on the digest; {tag} and {major} moved "
                       "to it (the workflow's `pin` job)")
    run(["git", "fetch", "-q", "--force", "origin", f"refs/tags/{tag}:refs/tags/{tag}"],
        where="runner", timeout=120)
    run([*release, "--registry", registry, "--owner", owner, "--digest", digest, "--from-tag"],
        where="runner", timeout=120, env=bot)
    pinned = work / "pinned-action.yml"
    pinned.write_text(run(["git", "show", f"{tag}:action.yml"], where="runner", timeout=60,
                          show=False), encoding="utf-8")
    run(["python3", "scripts/pin_action.py", "check", str(pinned), version], where="runner",
        timeout=60)
    line = f"  image: docker://{reference}"
    if line not in pinned.read_text(encoding="utf-8").splitlines():
        raise StepFailed(f"{tag}'s action.yml lacks the line {line.strip()!r}")
    say(f"    {tag}:action.yml has `{line.strip()}`")
    run(["git", "diff", f"{tag}^", tag], where="runner", timeout=60)
    run(["git", "push", "-q", "--force", "origin", f"refs/tags/{tag}", f"refs/tags/{major}"],
        where="runner", timeout=120)
    tags = run(["git", "for-each-ref", "--format=%(refname:short) %(*objectname:short) "
                "%(*subject)", f"refs/tags/{tag}", f"refs/tags/{major}"], where="origin",
               timeout=60)
    if len(tags.splitlines()) != 2 or len({t.split()[1] for t in tags.splitlines()}) != 1:
        raise StepFailed(f"the origin's {tag} and {major} do not name one commit:\n{tags}")
    before = major_before[:7] if major_before else "nothing"
    say(f"    {major} moved from {before} to the release commit {tags.split()[1]}")
    _done(started)

    started = _step(9, "the sdist and wheel (the workflow's `dist` job)")
    dist = work / "dist"
    say("    python -m build fetches setuptools and wheel into its isolated environment from "
        "the index pip is configured with (a download; nothing is uploaded)")
    run([python, "-m", "build", "--outdir", str(dist), "."], where="runner", timeout=600,
        show=False)
    built = sorted(dist.iterdir())
    run([python, "-m", "twine", "check", "--strict", *map(str, built)], where="runner",
        timeout=120)
    expected = {f"swiftpm_guard-{version}.tar.gz", f"swiftpm_guard-{version}-py3-none-any.whl"}
    if {f.name for f in built} != expected:
        raise StepFailed(f"built {[f.name for f in built]}, expected {sorted(expected)}")
    digests = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in built}
    for name, hexdigest in digests.items():
        say(f"    {name} sha256:{hexdigest}")
    _done(started)

    own_index = None if options.index else local_index.serve(work / "index")
    try:
        index_url = options.index or own_index.url  # type: ignore[union-attr]
        started = _step(10, f"the upload to a package index on loopback, {index_url}/ (PyPI by "
                            "trusted publishing in the workflow)")
        say("    the workflow: pypa/gh-action-pypi-publish, the `pypi` environment, "
            "id-token: write (PyPI trusts the workflow; no token is stored)")
        twine_env = {k: v for k, v in os.environ.items() if not k.startswith("TWINE_")}
        twine_env.update(TWINE_USERNAME="dry-run", TWINE_PASSWORD="dry-run")
        run([python, "-m", "twine", "upload", "--non-interactive", "--disable-progress-bar",
             "--repository-url", f"{index_url}/", *map(str, built)], where="runner",
            timeout=300, env=twine_env, show=False)
        page, _ = _get(f"{index_url}/simple/swiftpm-guard/", "text/html")
        listed = dict(re.findall(r'href="[^"#]*/([^/"#]+)#sha256=([0-9a-f]{64})"',
                                 page.decode("utf-8", "replace")))
        say(f"    GET {index_url}/simple/swiftpm-guard/ lists "
            + ", ".join(f"{name} (sha256 {'matches' if listed.get(name) == d else 'DIFFERS'})"
                        for name, d in sorted(digests.items())))
        if any(listed.get(name) != d for name, d in digests.items()):
            raise StepFailed(f"the index lists {listed}, built {digests}")
        downloaded = work / "downloaded"
        run([python, "-m", "pip", "download", "--quiet", "--no-deps", "--no-cache-dir",
             "--only-binary", ":all:", "--index-url", f"{index_url}/simple/",
             "--dest", str(downloaded), f"swiftpm-guard=={version}"], where="work",
            timeout=300, env=_pip_env())
        wheels = [f for f in downloaded.iterdir() if f.suffix == ".whl"]
        got = {w.name: hashlib.sha256(w.read_bytes()).hexdigest() for w in wheels}
        if len(got) != 1 or any(digests.get(name) != d for name, d in got.items()):
            raise StepFailed(f"pip downloaded {sorted(got)}, not the built wheel")
        say(f"    pip download got {wheels[0].name}, byte for byte the one built")
        _done(started)
    finally:
        if own_index is not None:
            own_index.stop()

    started = _step(11, f"the GitHub release {tag} (the workflow's `github-release` job; not "
                        "run here: GitHub is not on loopback)")
    notes_file.write_text(changelog.with_image(notes_file.read_text(encoding="utf-8"),
                                               reference), encoding="utf-8")
    say(f"    python3 scripts/changelog.py notes CHANGELOG.md {version} --image {reference} "
        "> $WORK/release-notes.md")
    say(f"    gh release create {tag} --verify-tag --title 'swiftpm-guard {version}' "
        f"--notes-file $WORK/release-notes.md {' '.join(f'dist/{f.name}' for f in built)}")
    say("    the notes: step 2's section, then:")
    quoted(notes_file.read_text(encoding="utf-8").split("\n---\n", 1)[1])
    _done(started)

    say()
    say(f"dry run of {version} passed:")
    say(f"  image     {reference}")
    say(f"  tags      {tag} and {major} -> the release commit (in $WORK/origin.git)")
    say(f"  packages  {', '.join(f.name for f in built)} on {index_url}/simple/")
    say(f"  notes     $WORK/release-notes.md ({len(notes_file.read_text().splitlines())} lines)")
    say(f"to release: git tag with `scripts/release.sh {version}`, then "
        f"`git push origin {tag}` (docs/releasing.md)")
    return 0


def main(argv: Sequence[str]) -> int:
    try:
        options = parse(argv)
    except UsageError as error:
        print(f"release: {error}", file=sys.stderr)
        return 2
    keep = options.workdir is not None
    work = options.workdir or Path(tempfile.mkdtemp(prefix="swiftpm-guard-release."))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return dry_run(options, work)
    except StepFailed as error:
        print(f"release: dry run failed: {str(error).replace(str(work), '$WORK')}",
              file=sys.stderr)
        return 1
    except changelog.ChangelogError as error:
        print(f"release: CHANGELOG.md: {error}", file=sys.stderr)
        return 1
    finally:
        if keep:
            say(f"kept the work folder: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
