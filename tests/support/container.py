"""Build the action's image and run it the way the GitHub runner runs a Docker action.

The runner builds `Dockerfile`, then runs, for one step, roughly:

    docker run --workdir /github/workspace --rm
      -e HOME -e GITHUB_* -e RUNNER_* -e INPUT_<NAME-WITH-HYPHENS> … (and the job's own env)
      -v <temp>/_github_home:/github/home
      -v <temp>/_github_workflow:/github/workflow          (event.json)
      -v <temp>/_runner_file_commands:/github/file_commands (GITHUB_OUTPUT, summary, …)
      -v <work>/<repo>/<repo>:/github/workspace
      <image> <args>

with every host folder owned by the runner's user (uid 1001), not by the container's root.
`RunnerJob` lays out those folders under a test's tmp_path, fills them, runs the image with
the Python docker SDK and reads the outputs, summary and exit code back.

Networking: containers run on the host network, so a server a test binds on 127.0.0.1 (the
fake GitHub API, a git remote over HTTP) is reachable from inside at the same address; see
`RunnerJob.api_url` and `RunnerJob.server_url`. Nothing leaves loopback.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docker
import docker.errors
import yaml
from docker.models.images import Image

from support.release import write_release, write_template_branch

REPO_ROOT = Path(__file__).resolve().parents[2]
#: CI sets this to 1: then a missing engine fails the e2e tests instead of skipping them.
REQUIRE_ENV = "SWIFTPM_GUARD_REQUIRE_DOCKER"
IMAGE_TAG = "swiftpm-guard:e2e"
API_VERSION = "1.41"
RUNNER_UID = 1001
#: The job's environment a hostile workflow may set; the image must not depend on any of it.
HOSTILE_ENV = {
    "PATH": "/nonsense",
    "PYTHONPATH": "/github/workspace/decoys",
    "PYTHONHOME": "/nonsense",
    "PYTHONSTARTUP": "/github/workspace/decoys/startup.py",
}
WORKSPACE, FILE_COMMANDS = "/github/workspace", "/github/file_commands"
WORKFLOW, HOME = "/github/workflow", "/github/home"


def engine_required() -> bool:
    return os.environ.get(REQUIRE_ENV) == "1"


def _unreachable(host: str) -> str | None:
    """Why nothing listens at DOCKER_HOST, or None. Probed with a plain socket, closed again:
    the SDK leaks its socket when the first connect fails."""
    try:
        if host.startswith("unix://"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(5)
                probe.connect(host.removeprefix("unix://"))
        elif host.startswith("tcp://"):
            address, _, port = host.removeprefix("tcp://").rpartition(":")
            socket.create_connection((address, int(port)), timeout=5).close()
    except (OSError, ValueError) as error:
        return str(error)
    return None


def connect() -> tuple[docker.DockerClient | None, str]:
    """A client for the engine DOCKER_HOST names, or None and the reason it is not usable."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    problem = _unreachable(host)
    if problem is None:
        # A fixed API version (dockerd 20.10 and podman 4 both speak 1.41) spares a probe.
        client = docker.from_env(version=API_VERSION, timeout=300)
        try:
            version = client.version()
        except docker.errors.DockerException as error:
            client.close()
            problem = str(error)
    if problem is not None:
        return None, (
            f"no container engine at DOCKER_HOST={host}: {problem}. Start one with "
            '`export DOCKER_HOST="$(bash scripts/container-engine.sh start)"`'
        )
    return client, f"{host}: {version.get('Version', '?')} (API {version.get('ApiVersion')})"


@dataclass(frozen=True)
class Build:
    image: Image
    seconds: float
    log: str


def build_image(
    client: docker.DockerClient, tag: str = IMAGE_TAG, *, nocache: bool = False,
    target: str = "runtime",
) -> Build:
    """`docker build` of the repository's Dockerfile (the layer cache makes repeats cheap).

    `target` "runtime" is what the runner builds for `runs.image: Dockerfile` (the default
    target is that stage; BuildKit builds nothing else, and the legacy builder this SDK drives
    would build every stage without a target); "release" is the image releases push.
    The build uses the host network: the private engine has no bridge (scripts/
    container-engine.sh), and apt/pip inside the build need the mirrors.
    """
    started = time.monotonic()
    try:
        image, stream = client.images.build(
            path=str(REPO_ROOT),
            tag=tag,
            rm=True,
            forcerm=True,
            pull=False,
            network_mode="host",
            nocache=nocache,
            target=target,
        )
    except docker.errors.BuildError as error:
        text = "".join(
            str(part.get("stream") or part.get("error") or "") for part in error.build_log
        )
        raise AssertionError(f"docker build failed: {error}\n{text[-4000:]}") from None
    log = "".join(str(part.get("stream", "")) for part in stream)
    return Build(image=image, seconds=time.monotonic() - started, log=log)


def parse_file_command(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV content: `name=value` lines and `name<<DELIM … DELIM` blocks."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            while index < len(lines) and lines[index] != delimiter:
                body.append(lines[index])
                index += 1
            if index == len(lines):
                raise ValueError(f"{name}: heredoc delimiter {delimiter!r} never closes")
            index += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        else:
            raise ValueError(f"not a file command line: {line!r}")
    return values


@dataclass(frozen=True, repr=False)
class JobResult:
    exit_code: int
    logs: str
    outputs: dict[str, str]
    summary: str
    env_file: str
    seconds: float

    def __repr__(self) -> str:  # what a failing assert shows
        return (
            f"exit {self.exit_code} after {self.seconds:.1f}s, outputs {self.outputs}\n"
            f"--- logs ---\n{self.logs}"
        )


@dataclass
class RunnerJob:
    """One `uses:` step of a Docker action, laid out on the host under `root`."""

    root: Path
    event_name: str = "push"
    event: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, str] = field(default_factory=dict)
    job_env: Mapping[str, str] = field(default_factory=lambda: dict(HOSTILE_ENV))
    repository: str = "octo-org/release"
    sha: str = "0" * 40
    ref: str = "refs/heads/main"
    api_url: str = "http://127.0.0.1:9/unreachable"
    #: GITHUB_SERVER_URL: the only repository the action's git talks to (and may send the token
    #: to). A test whose run reads or pushes refs points it at the fake GitHub or a loopback git
    #: server; this default is unreachable from the tests' loopback-only network.
    server_url: str = "https://github.com"
    extra_volumes: Mapping[str, str] = field(default_factory=dict)  # host path → container path

    def __post_init__(self) -> None:
        self.workspace = self.root / "workspace"
        self.file_commands = self.root / "_runner_file_commands"
        self.workflow = self.root / "_github_workflow"
        self.home = self.root / "_github_home"
        for folder in (self.workspace, self.file_commands, self.workflow, self.home):
            folder.mkdir(parents=True, exist_ok=True)
        step = uuid.uuid4()
        self._files = {
            name: f"{name}_{step}"
            for name in ("set_output", "step_summary", "set_env", "add_path", "save_state")
        }

    def file_command(self, name: str) -> Path:
        return self.file_commands / self._files[name]

    def environment(self) -> dict[str, str]:
        owner = self.repository.split("/")[0]
        env = {
            "HOME": HOME,
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": WORKSPACE,
            "GITHUB_EVENT_PATH": f"{WORKFLOW}/event.json",
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_OUTPUT": f"{FILE_COMMANDS}/{self._files['set_output']}",
            "GITHUB_STEP_SUMMARY": f"{FILE_COMMANDS}/{self._files['step_summary']}",
            "GITHUB_ENV": f"{FILE_COMMANDS}/{self._files['set_env']}",
            "GITHUB_PATH": f"{FILE_COMMANDS}/{self._files['add_path']}",
            "GITHUB_STATE": f"{FILE_COMMANDS}/{self._files['save_state']}",
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": owner,
            "GITHUB_SHA": self.sha,
            "GITHUB_REF": self.ref,
            "GITHUB_REF_NAME": self.ref.rsplit("/", 1)[-1],
            "GITHUB_SERVER_URL": self.server_url,
            "GITHUB_API_URL": self.api_url,
            "GITHUB_GRAPHQL_URL": f"{self.api_url}/graphql",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_NUMBER": "7",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "swiftpm",
            "GITHUB_WORKFLOW": "apple",
            "GITHUB_ACTION": "__self",
            "GITHUB_ACTOR": "octocat",
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "RUNNER_TEMP": "/home/runner/work/_temp",
            "RUNNER_WORKSPACE": "/home/runner/work/release",
        }
        env.update(self.job_env)
        for name, value in self.inputs.items():
            # The runner upper-cases input names and keeps their hyphens.
            env[f"INPUT_{name.replace(' ', '_').upper()}"] = value
        return env

    def volumes(self) -> dict[str, dict[str, str]]:
        mounts = {
            str(self.home): HOME,
            str(self.workflow): WORKFLOW,
            str(self.file_commands): FILE_COMMANDS,
            str(self.workspace): WORKSPACE,
            **self.extra_volumes,
        }
        return {host: {"bind": inside, "mode": "rw"} for host, inside in mounts.items()}

    def prepare(self) -> None:
        """Write event.json and the empty command files, then hand everything to uid 1001."""
        (self.workflow / "event.json").write_text(json.dumps(self.event))
        for name in self._files:
            self.file_command(name).touch()
        for top in (self.workspace, self.file_commands, self.workflow, self.home):
            chown_tree(top, RUNNER_UID)

    def run(
        self,
        client: docker.DockerClient,
        image: Image | str,
        *,
        command: Sequence[str] | None = None,
        entrypoint: Sequence[str] | None = None,
        timeout: float = 120,
    ) -> JobResult:
        """Run the step; the container is removed (killed first if it outlives `timeout`)."""
        self.prepare()
        container = client.containers.create(
            image,
            command=list(command) if command else None,
            entrypoint=list(entrypoint) if entrypoint else None,
            working_dir=WORKSPACE,
            environment=self.environment(),
            volumes=self.volumes(),
            network_mode="host",
        )
        try:
            started = time.monotonic()
            container.start()
            try:
                status = container.wait(timeout=timeout)
            except Exception as error:  # requests' ReadTimeout or ConnectionError
                container.kill()
                raise AssertionError(f"container ran past {timeout}s: {error}") from None
            seconds = time.monotonic() - started
            logs = container.logs(stdout=True, stderr=True).decode("utf-8", "replace")
        finally:
            container.remove(force=True)
        return JobResult(
            exit_code=int(status["StatusCode"]),
            logs=logs,
            outputs=parse_file_command(self.file_command("set_output").read_text()),
            summary=self.file_command("step_summary").read_text(),
            env_file=self.file_command("set_env").read_text(),
            seconds=seconds,
        )


def chown_tree(top: Path, uid: int) -> None:
    os.chown(top, uid, uid, follow_symlinks=False)
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def action_inputs(action_yml: Path, given: Mapping[str, str], *, token: str = "") -> dict[str, str]:
    """What the runner passes as INPUT_*: every default in action.yml (`${{ github.token }}`
    evaluated to `token`), overridden by the step's `with:`."""
    declared = (yaml.safe_load(action_yml.read_text()) or {}).get("inputs") or {}
    inputs = {}
    for name, spec in declared.items():
        default = (spec or {}).get("default")
        if default is not None:
            inputs[name] = str(default).replace("${{ github.token }}", token)
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"inputs not declared in {action_yml.name}: {unknown}")
    inputs.update(given)
    return inputs


def _git(cwd: Path, *args: str) -> str:
    git = shutil.which("git")
    assert git, "the host needs git to make the workspace repository"
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
    done = subprocess.run(
        [git, *identity, *args], cwd=cwd, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def release_clone(workspace: Path, scratch: Path) -> tuple[str, Path]:
    """The workspace of a release job as actions/checkout leaves it: a single-branch clone of
    `main` (the workflow) whose origin also holds the template branch `swiftpm`, plus the
    built zips and checksums.txt, not committed. Returns HEAD and the origin's path."""
    release = write_release(scratch / "build", version="1.2.3")
    seed = scratch / "seed"
    seed.mkdir()
    _git(seed, "init", "-q", "-b", "swiftpm")
    write_template_branch(seed)
    _git(seed, "add", "-A")
    _git(seed, "commit", "-qm", "template")
    _git(seed, "checkout", "-q", "--orphan", "main")
    _git(seed, "rm", "-rq", "--cached", ".")
    shutil.rmtree(seed / ".Package.swift")
    (seed / "Package.swift.template").unlink()
    (seed / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(release.workflow, seed / ".github" / "workflows" / "apple.yml")
    _git(seed, "add", "-A")
    _git(seed, "commit", "-qm", "workflow")
    origin = scratch / "origin.git"
    _git(scratch, "clone", "-q", "--bare", str(seed), str(origin))
    _git(scratch, "clone", "-q", "--single-branch", "--branch", "main", str(origin), str(workspace))
    shutil.copytree(release.artifacts, workspace / "artifacts")
    shutil.copy(release.checksums, workspace / "checksums.txt")
    return _git(workspace, "rev-parse", "HEAD"), origin
