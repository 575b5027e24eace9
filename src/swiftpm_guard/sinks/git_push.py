"""Git for publishing: a throwaway bare repository that talks to one remote.

git runs through infra.git's one adapter (`Git`: the system's git, an allow-list of variables,
the system and global config ignored, hooks and every program-starting key off: a runner's
`GIT_DIR`, `url.insteadOf`, credential helpers or hooks cannot change what is pushed), the token
only as a header to the remote's origin, read by git from a private file (never an environment
variable), with redirects refused, a deadline per process and one redacted error line. The
commit is built with plumbing in a temporary index; the push is create-only,
`--force-with-lease=<ref>:` without `+`, so the remote refuses it under its ref lock if the
branch appeared meanwhile.
"""

from __future__ import annotations

import contextlib
import enum
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.names import Identity, Remote, authorization_header
from swiftpm_guard.errors import (
    GitError,
    GitFailed,
    GitTimeout,
    InfrastructureError,
    InputError,
    os_problem,
)
from swiftpm_guard.infra.git import Git, TreeEntry, find_git
from swiftpm_guard.infra.process import Done
from swiftpm_guard.limits import GIT_NETWORK_SECONDS
from swiftpm_guard.workflow_commands import neutralise

#: Local plumbing is instant; a network call on a slow runner can take a while, not forever.
LOCAL_TIMEOUT = 60.0
NETWORK_TIMEOUT = GIT_NETWORK_SECONDS


class PublishGit:
    """git as publishing runs it: one binary by absolute path, the scrubbed environment with
    our configuration (the token's header scoped to the remote's origin), a deadline per
    process, git's messages redacted, and hints that say what the remote wanted. `git` is the
    run's one Git (jobs.adapters: its environment, its proxy), given the token and identity
    here."""

    def __init__(self, path: Path, remote: Remote, *, git: Git, token: str | None = None,
                 identity: Identity | None = None,
                 network_timeout: float = NETWORK_TIMEOUT,
                 token_source: str = "the variable --token-env names") -> None:
        self.path = path
        self.remote = remote
        self._token = token
        self._token_source = token_source  # where the token comes from, for error hints
        self._network_timeout = network_timeout
        # By absolute path: in the action's container the job's PATH may not lead to git.
        try:
            find_git(git.environ)
        except InfrastructureError as error:
            raise GitError(f"{error}; publishing needs git") from None
        config: list[tuple[str, str]] = []  # infra.git bounds a stalled transfer already
        if token is not None and remote.origin is not None:
            # git applies http.<url>.* only to URLs under that origin, not to other hosts.
            config.append((f"http.{remote.origin}.extraHeader", authorization_header(token)))
        ident: dict[str, str] = {}
        if identity is not None:
            ident = {"GIT_AUTHOR_NAME": identity.name, "GIT_AUTHOR_EMAIL": identity.email,
                     "GIT_COMMITTER_NAME": identity.name, "GIT_COMMITTER_EMAIL": identity.email}
        # The environment is infra.git's (an allow-list, no system or global config, hooks
        # and every program-starting key neutralised); the identity is ours, never a config's.
        # In the scratch repository by its folder (cwd): ours, made by `init`.
        self._git = git.derive(config=config, variables=ident)
        self._repo = self._git.derive(path)  # for its operations

    def redact(self, text: str) -> str:
        if self._token:
            text = text.replace(self._token, "***")
            text = text.replace(authorization_header(self._token), "Authorization: ***")
        return text

    def run(self, args: Sequence[str], *, stdin: bytes | None = None, network: bool = False,
            env: Mapping[str, str] | None = None, check: bool = True) -> Done:
        with self._failures(args[0], network) as timeout:
            result = self._git.run(args, cwd=self.path, variables=env, stdin=stdin,
                                   timeout=timeout)
        if check and result.returncode != 0:
            raise GitError(f"git {args[0]} failed: {self.message(result)}"
                           f"{self._hint(result.stderr)}")
        return result

    @contextlib.contextmanager
    def _failures(self, command: str, network: bool = False) -> Iterator[float]:
        """The deadline for git `command`; its failures as one GitError naming the remote."""
        timeout = self._network_timeout if network else LOCAL_TIMEOUT
        try:
            yield timeout
        except GitTimeout:
            raise GitError(
                f"git {command} did not finish within {timeout:.0f} s (remote {self.remote})"
            ) from None
        except GitFailed as failed:
            raise GitError(f"git {command} failed: {self.redact(failed.line)}"
                           f"{self._hint(failed.stderr)}") from None
        except InfrastructureError as error:
            raise GitError(str(error)) from None

    def _hint(self, stderr: bytes) -> str:
        text = stderr.decode("utf-8", "replace")
        if self.remote.kind == "http" and re.search(r"returned error: 30[1278]\b", text):
            return (
                " (the remote answered with a redirect: swiftpm-guard never follows one, so the "
                "token reaches only the origin named; give --repo the URL it redirects to)"
            )
        if self.remote.kind == "http" and any(
            s in text for s in ("could not read Username", "Authentication failed", " 403")
        ):
            source = self._token_source
            if self._token is None:
                return f" (the remote wants a token and none was sent: is it in {source}?)"
            return f" (the remote refused the token from {source}: may it do this?)"
        return ""

    def message(self, result: Done) -> str:
        """git's last meaningful stderr line, redacted, for a one-line error."""
        return self.redact(self._git.last_line(result))


#: What we read out of the template ref into files: real ones are a few kilobytes.
EXPORT_MAX_BYTES = 32 * 1024 * 1024
EXPORT_MAX_FILES = 20_000


class PushStatus(enum.StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    REJECTED = "rejected"  # lease failed, ref appeared, or the remote refused
    UNCHANGED = "unchanged"  # the remote already had exactly this commit: not ours to claim


@dataclass(frozen=True, slots=True)
class PushOutcome:
    status: PushStatus
    detail: str


class ScratchRepo(PublishGit):
    """A temporary bare repository: fetch from, build a commit in, and push to one remote.

    It runs git as `PublishGit` does (its constructor takes the remote, token, identity and
    timeouts); what is added here is what publishing does with it.
    """

    def init(self) -> ScratchRepo:
        """Create the bare repository (no template hooks); returns self for chaining."""
        self.path.mkdir(parents=True, exist_ok=True)
        self.run(["init", "--quiet", "--bare", "--template=", "."])
        return self

    # -- talking to the remote -------------------------------------------------------------------

    def ls_remote(self, patterns: Iterable[str]) -> dict[str, str]:
        """`{ref: sha}` for the remote refs matching `patterns` (full refs or `…*` globs)."""
        with self._failures("ls-remote", network=True) as timeout:
            return self._repo.ls_remote(self.remote.url, *patterns, timeout=timeout)

    def fetch(self, ref: str, *, depth: int) -> str:
        """Fetch one remote ref (shallow) and return the commit it names."""
        local = "refs/swiftpm-guard/" + ref.removeprefix("refs/")
        result = self.run(
            [
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                "--no-recurse-submodules",
                f"--depth={depth}",
                self.remote.url,
                f"+{ref}:{local}",
            ],
            network=True,
            check=False,
        )
        if result.returncode != 0:
            message = self.message(result)
            if "couldn't find remote ref" in message:
                raise InputError(f"{ref} is not on the remote {self.remote}")
            raise GitError(f"git fetch {ref} failed: {message}")
        return self.rev_parse(f"{local}^{{commit}}")

    def deepen(self, ref: str) -> None:
        """The whole history of a remote ref fetched shallow before: a consumer's clone
        walks every parent, and a shallow copy cannot be served to it."""
        local = "refs/swiftpm-guard/" + ref.removeprefix("refs/")
        self.run(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                  "--no-recurse-submodules", "--depth=2147483647", self.remote.url,
                  f"+{ref}:{local}"], network=True)

    def push(self, commit: str, ref: str, *, expect: str | None) -> PushOutcome:
        """Update `ref` to `commit` only if it is absent (`expect=None`) or still at `expect`."""
        lease = f"--force-with-lease={ref}:{expect or ''}"
        result = self.run(
            ["push", "--porcelain", "--no-verify", lease, self.remote.url, f"{commit}:{ref}"],
            network=True,
            check=False,
        )
        outcome = _porcelain_outcome(result.stdout.decode("utf-8", "replace"), ref)
        if outcome is None:
            raise GitError(f"git push failed: {self.message(result)}")
        # The summary is partly the remote's own words (a hook's reason): shown in logs, so
        # no token and no workflow command in it.
        outcome = PushOutcome(outcome.status, neutralise(self.redact(outcome.detail)))
        if outcome.status is PushStatus.REJECTED:
            return outcome
        if result.returncode != 0:
            raise GitError(f"git push failed: {self.message(result)}")
        return outcome

    # -- reading objects -------------------------------------------------------------------------

    def rev_parse(self, name: str) -> str:
        found = self._resolved(name)
        if found is None:
            raise GitError(f"git rev-parse: {name} names no object in the scratch repository")
        return found

    def _resolved(self, name: str) -> str | None:
        with self._failures("rev-parse") as timeout:
            return self._repo.rev_parse(name, timeout=timeout)

    def parent(self, commit: str) -> str | None:
        return self._resolved(f"{commit}^1^{{commit}}")

    def tree(self, commit: str) -> list[TreeEntry]:
        with self._failures("ls-tree") as timeout:
            return self._repo.ls_tree(commit, recursive=True, sizes=True, full_tree=True,
                                      timeout=timeout)

    def blobs(self, shas: Sequence[str]) -> dict[str, bytes]:
        """Blob contents, all through one `cat-file --batch` process."""
        with self._failures("cat-file") as timeout:
            found = self._repo.objects(shas, timeout=timeout)
        blobs = {}
        for sha, item in found.items():
            if item is None or item[0] != "blob":
                raise GitError(f"git cat-file: {sha} is not a blob")
            blobs[sha] = item[1]
        return blobs

    def export(self, commit: str, wanted: Callable[[str], bool], dest: Path) -> list[TreeEntry]:
        """Write the blobs of `commit` whose path `wanted` accepts under `dest`.

        Symbolic links and submodules become nothing but their parent folders (a stub folder
        holding only a link is still a folder, and still holds no source). Paths are checked
        so a hostile tree cannot write outside `dest`.
        """
        chosen = [e for e in self.tree(commit) if wanted(e.path)]
        if len(chosen) > EXPORT_MAX_FILES:
            raise InputError(f"the template ref holds more than {EXPORT_MAX_FILES} files to read")
        total = sum(e.size or 0 for e in chosen if e.kind == "blob")
        if total > EXPORT_MAX_BYTES:
            raise InputError(
                f"the template and stubs in the template ref exceed {EXPORT_MAX_BYTES} bytes"
            )
        regular = [e for e in chosen if e.kind == "blob" and e.mode in ("100644", "100755")]
        contents = self.blobs([e.sha for e in regular])
        files = {e.path for e in regular}
        root = dest.resolve()
        for entry in chosen:
            target = _safe_join(root, entry.path)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if entry.path in files:
                    target.write_bytes(contents[entry.sha])
            except (OSError, ValueError) as error:
                # A name git stores but this file system cannot (ENAMETOOLONG, say) is the
                # ref's content, not our infrastructure failing: bad input, one line.
                raise InputError(
                    f"the template ref holds a path that {os_problem(error)}: "
                    f"{_clip(entry.path)!r}"
                ) from None
        return chosen

    # -- writing a commit ------------------------------------------------------------------------

    def commit(
        self, parent: str, *, remove: Sequence[str], add: Mapping[str, bytes], message: str
    ) -> str:
        """One commit on top of `parent`: its tree minus `remove` plus `add` (regular files)."""
        index = {"GIT_INDEX_FILE": str(self.path / "swiftpm-guard.index")}
        self.run(["read-tree", parent], env=index)
        records = [f"0 {'0' * 40}\t{path}\0" for path in remove]
        for path, data in add.items():
            blob = self.run(["hash-object", "-w", "--stdin"], stdin=data).stdout.decode().strip()
            records.append(f"100644 {blob}\t{path}\0")
        self.run(["update-index", "-z", "--index-info"], stdin="".join(records).encode(),
                 env=index)
        tree = self.run(["write-tree"], env=index).stdout.decode().strip()
        out = self.run(["commit-tree", tree, "-p", parent, "-F", "-"],
                       stdin=message.encode() + b"\n")
        return out.stdout.decode().strip()


def _clip(path: str) -> str:
    return path if len(path) <= 120 else path[:117] + "..."


def _safe_join(root: Path, path: str) -> Path:
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts) or "\\" in path or "\0" in path:
        raise InputError(f"the template ref holds an unsafe path {_clip(path)!r}")
    target = root.joinpath(*parts)
    try:
        inside = target.resolve().is_relative_to(root)
    except (OSError, RuntimeError, ValueError) as error:
        raise InputError(
            f"the template ref holds a path that {os_problem(error)}: {_clip(path)!r}"
        ) from None
    if not inside:
        raise InputError(f"the template ref holds a path that escapes its folder: {_clip(path)!r}")
    return target


_FLAGS = {
    "*": PushStatus.CREATED,
    "+": PushStatus.UPDATED,
    " ": PushStatus.UPDATED,
    "!": PushStatus.REJECTED,
    "=": PushStatus.UNCHANGED,
}


def _porcelain_outcome(stdout: str, ref: str) -> PushOutcome | None:
    """Our ref's line in `git push --porcelain` output: `<flag>\\t<from>:<to>\\t<summary>`."""
    for line in split_lines(stdout):
        fields = line.split("\t")
        if len(fields) >= 3 and len(fields[0]) == 1 and fields[1].endswith(f":{ref}"):
            status = _FLAGS.get(fields[0])
            if status is not None:
                return PushOutcome(status, fields[2].strip())
    return None


def commit_onto(repo: ScratchRepo, base: str, *, parent: str, remove: Sequence[str],
                add: Mapping[str, bytes], message: str) -> str:
    """One commit whose tree is `base`'s minus `remove` plus `add`, and whose only parent is
    `parent`: a fast-forward of a published branch that carries a fresh tree."""
    built = repo.commit(base, remove=remove, add=add, message=message)
    tree = repo.rev_parse(f"{built}^{{tree}}")
    out = repo.run(["commit-tree", tree, "-p", parent, "-F", "-"], stdin=message.encode() + b"\n")
    return out.stdout.decode().strip()


def tree_of(repo: ScratchRepo, commit: str) -> str:
    """The tree a commit records."""
    return repo.rev_parse(f"{commit}^{{tree}}")
