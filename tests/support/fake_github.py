"""A fake GitHub REST API over real HTTP on loopback, for real PyGithub to talk to.

Every request is matched to an operation of GitHub's published OpenAPI subset and its path
parameters, query parameters and JSON body are validated against that operation's schema;
anything else (an unknown route, a wrong type, `annotation_level: "error"`) is recorded in
`violations`, which the fixtures turn into a test failure. Our own responses are validated too,
so the fake cannot drift from what GitHub promises.

State: repositories backed by real bare git repositories (branches, refs, contents), check runs
with their annotations, pull requests' comments (support/fake_issue_comments.py), and
workflow-run artifacts served as zip downloads through a 302 redirect to another host name
(so the token must not follow it).

Faults are injected per operation id: 500, 502, primary and secondary rate limits (with or
without Retry-After), 403 "Resource not accessible by integration", 422 and a hanging
connection that never answers until the test ends (bounded by `hang_seconds`).
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from support.fake_issue_comments import IssueComments, simple_user
from support.git_http import backend_path, http_backend, read_body
from support.openapi import Operation, Spec, load_spec, overlay, response_errors, synthesize

WRITE, READ = "write", "read"
FAULTS = ("500", "502", "secondary", "primary", "not-accessible", "422", "hang")
#: GitHub's documented limits that the schema only states in prose.
ANNOTATION_TITLE_MAX = 255
ANNOTATION_TEXT_MAX_BYTES = 64 * 1024
DOCS = "https://docs.github.com/rest"


@dataclass
class Fault:
    operation_id: str
    kind: str
    times: int = 1
    retry_after: int | None = None


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    operation_id: str | None
    status: int = 0
    authorization: str | None = None


@dataclass
class Artifact:
    id: int
    run_id: int
    name: str
    data: bytes


@dataclass
class Ruleset:
    """A branch ruleset as GitHub keeps one: its `ref_name` include/exclude patterns
    (`refs/heads/…` globs, `~ALL`, `~DEFAULT_BRANCH`), enforcement and rule types."""

    id: int
    include: tuple[str, ...]
    rules: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    enforcement: str = "active"  # "active", "evaluate" or "disabled"

    def applies(self, branch: str, default_branch: str) -> bool:
        ref = f"refs/heads/{branch}"

        def hit(pattern: str) -> bool:
            if pattern == "~ALL":
                return True
            if pattern == "~DEFAULT_BRANCH":
                return branch == default_branch
            return fnmatch.fnmatchcase(ref, pattern)

        return (self.enforcement == "active" and any(map(hit, self.include))
                and not any(map(hit, self.exclude)))


@dataclass
class Repo:
    full_name: str
    git_dir: Path | None
    default_branch: str = "main"
    artifacts: list[Artifact] = field(default_factory=list)
    rulesets: list[Ruleset] = field(default_factory=list)


class _Reply(Exception):
    """Raised inside a handler to send one response."""

    def __init__(
        self,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}
        self.raw = raw


class FakeGitHub(IssueComments):
    def __init__(self, spec: Spec | None = None, hang_seconds: float = 10.0) -> None:
        self.spec = spec or load_spec()
        self.hang_seconds = hang_seconds
        self.tokens: dict[str, str] = {}
        self.token_users: dict[str, dict[str, Any]] = {}
        self._caller = threading.local()  # this request's token's user (None: installation)
        self.repos: dict[str, Repo] = {}
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.annotations: dict[int, list[dict[str, Any]]] = {}
        self._issue_comments_init()
        self.requests: list[Recorded] = []
        #: git's smart HTTP requests at the server URL: (method, path, Authorization).
        self.git_requests: list[tuple[str, str, str | None]] = []
        #: Called (in the server's thread) on each git request before it is answered, while
        #: the git that sent it still runs: a test may look at that git's processes.
        self.git_hook: Callable[[], None] | None = None
        #: Answer every git request with this status (a server that cannot serve git).
        self.git_status: int | None = None
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.rate_limit_reset = int(time.time()) + 3600
        self._ids = iter(range(1001, 10**9))
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the fake first"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def blob_url(self) -> str:
        """Same server, another host name: like GitHub's redirect to blob storage."""
        return f"http://localhost:{self.port}"

    # -- state set-up -----------------------------------------------------------------------

    def add_token(self, token: str, access: str = WRITE,
                  user: dict[str, Any] | None = None) -> str:
        """A token; with `user` ({login, id, type}) a user's (a PAT: `GET /user` names it and
        its comments are that user's), else an installation token like the job's own, which
        writes as github-actions[bot] and is refused `GET /user` (GitHub: 403)."""
        self.tokens[token] = access
        if user is not None:
            self.token_users[token] = user
        return token

    def add_repo(
        self, full_name: str, git_dir: Path | None = None, default_branch: str = "main"
    ) -> Repo:
        repo = Repo(full_name, git_dir, default_branch)
        self.repos[full_name] = repo
        return repo

    def add_artifact(self, full_name: str, run_id: int, name: str, data: bytes) -> Artifact:
        with self._lock:
            artifact = Artifact(next(self._ids), run_id, name, data)
            self.repos[full_name].artifacts.append(artifact)
        return artifact

    def inject(
        self, operation_id: str, kind: str, times: int = 1, retry_after: int | None = None
    ) -> None:
        assert kind in FAULTS, kind
        assert any(op.operation_id == operation_id for op in self.spec.operations), operation_id
        self.faults.append(Fault(operation_id, kind, times, retry_after))

    # -- queries for tests ------------------------------------------------------------------

    def git_repository(self, target: str) -> tuple[Path, str, str] | None:
        """(bare repository, path inside it, query) when `target` is git's smart HTTP for a
        repository backed by one: `/<owner>/<name>.git/info/refs?service=…`, as GitHub
        serves git at the server URL (here the same loopback origin as the API)."""
        path, _, query = target.partition("?")
        for full_name, repo in self.repos.items():
            prefix = f"/{full_name}.git/"
            if repo.git_dir is not None and path.startswith(prefix):
                return repo.git_dir, "/" + path[len(prefix):], query
        return None

    def git_allowed(self, authorization: str | None) -> bool:
        """Anyone may read and push (a public repository the test owns); a header sent must be
        a token in git's form (which one it was: `git_requests`)."""
        if authorization is None:
            return True
        scheme, _, encoded = authorization.partition(" ")
        try:
            user, _, token = base64.b64decode(encoded).decode().partition(":")
        except ValueError:
            return False
        return scheme == "Basic" and user == "x-access-token" and bool(token)

    def calls(self, operation_id: str) -> list[Recorded]:
        return [r for r in self.requests if r.operation_id == operation_id]

    def only_check_run(self) -> dict[str, Any]:
        assert len(self.check_runs) == 1, f"expected one check run, got {len(self.check_runs)}"
        return next(iter(self.check_runs.values()))

    # -- request handling (called from the server's threads) --------------------------------

    def _take_fault(self, operation_id: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.operation_id == operation_id and fault.times > 0:
                    fault.times -= 1
                    return fault
        return None

    def _violation(self, message: str) -> None:
        with self._lock:
            self.violations.append(message)

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes, record: Recorded
    ) -> _Reply:
        parts = urlsplit(target)
        path, query = parts.path, parse_qs(parts.query, keep_blank_values=True)
        record.query = query
        record.authorization = headers.get("authorization")
        if path.startswith("/_blobs/"):
            return self._blob(path, headers)
        matched = self.spec.match(method, path)
        if matched is None:
            self._violation(f"{method} {path}: no such operation in GitHub's schema subset")
            return _Reply(404, _error("Not Found"))
        operation, params = matched
        record.operation_id = operation.operation_id
        content_type = headers.get("content-type", "")
        problems = operation.validate_request(params, query, body, content_type)
        if body and content_type.startswith("application/json"):
            with contextlib.suppress(ValueError):
                record.body = json.loads(body)
        problems += self._github_rules(operation, record.body)
        for problem in problems:
            self._violation(f"{method} {path}: {problem}")
        if problems:
            return _Reply(422, _error("Validation Failed", problems))
        fault = self._take_fault(operation.operation_id)
        if fault is not None:
            return self._fault(fault)
        reply = self._dispatch(operation, params, query, record.body, headers)
        if reply.raw is None and reply.body is not None:
            for problem in response_errors(operation, reply.status, reply.body):
                self._violation(f"fake's own {method} {path}: {problem}")
        return reply

    def _github_rules(self, operation: Operation, body: Any) -> list[str]:
        """Limits GitHub documents in prose (and enforces with 422) but the schema omits."""
        if operation.operation_id not in ("checks/create", "checks/update"):
            return []
        output = body.get("output") if isinstance(body, dict) else None
        problems: list[str] = []
        for index, item in enumerate((output or {}).get("annotations") or []):
            if not isinstance(item, dict):
                continue
            title = item.get("title")
            if isinstance(title, str) and len(title) > ANNOTATION_TITLE_MAX:
                problems.append(f"annotation {index}: title longer than 255 characters")
            for key in ("message", "raw_details"):
                text = item.get(key)
                if isinstance(text, str) and len(text.encode()) > ANNOTATION_TEXT_MAX_BYTES:
                    problems.append(f"annotation {index}: {key} larger than 64 KB")
            start, end = item.get("start_line"), item.get("end_line")
            if isinstance(start, int) and start < 1:
                problems.append(f"annotation {index}: start_line {start} < 1")
            if isinstance(start, int) and isinstance(end, int) and end < start:
                problems.append(f"annotation {index}: end_line before start_line")
        return problems

    def _fault(self, fault: Fault) -> _Reply:
        if fault.kind == "hang":
            # Keep the connection open without answering; the client must time out.
            self._release.wait(self.hang_seconds)
            raise ConnectionAbortedError("hang fault released")
        if fault.kind == "500":
            return _Reply(500, _error("Server Error"))
        if fault.kind == "502":
            return _Reply(
                502,
                raw=b"<html><body><h1>502 Bad Gateway</h1></body></html>",
                headers={"Content-Type": "text/html"},
            )
        if fault.kind == "422":
            return _Reply(
                422, _error("Validation Failed", [{"resource": "CheckRun", "code": "invalid"}])
            )
        if fault.kind == "not-accessible":
            return _Reply(403, _error("Resource not accessible by integration"))
        if fault.kind == "primary":
            return _Reply(
                403,
                _error("API rate limit exceeded for installation ID 1."),
                {
                    "x-ratelimit-limit": "5000",
                    "x-ratelimit-remaining": "0",
                    "x-ratelimit-used": "5000",
                    "x-ratelimit-reset": str(self.rate_limit_reset),
                },
            )
        headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
        return _Reply(
            403,
            _error(
                "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                "try again. If you reach out to GitHub Support for help, please include the "
                "request ID ABCD:1234."
            ),
            headers,
        )

    def _access(self, headers: dict[str, str]) -> str | None:
        value = headers.get("authorization")
        if value is None:
            return None
        scheme, _, token = value.partition(" ")
        if scheme.lower() not in ("token", "bearer") or token not in self.tokens:
            raise _Reply(401, _error("Bad credentials"))
        return self.tokens[token]

    def _repo(self, params: dict[str, str]) -> Repo:
        repo = self.repos.get(f"{params['owner']}/{params['repo']}")
        if repo is None:
            raise _Reply(404, _error("Not Found"))
        return repo

    def _dispatch(
        self,
        operation: Operation,
        params: dict[str, str],
        query: dict[str, list[str]],
        body: Any,
        headers: dict[str, str],
    ) -> _Reply:
        try:
            access = self._access(headers)
            token = (headers.get("authorization") or " ").partition(" ")[2]
            self._caller.user = self.token_users.get(token)
            op = operation.operation_id
            if op == "rate-limit/get":
                return _Reply(200, self._made(operation, 200, {}))
            if op == "users/get-authenticated":
                return self._authenticated(operation, access)
            repo = self._repo(params)
            if operation.method != "GET":
                if access is None:
                    raise _Reply(401, _error("Requires authentication"))
                if access != WRITE:
                    raise _Reply(403, _error("Resource not accessible by integration"))
            handler = getattr(self, "_op_" + op.replace("/", "_").replace("-", "_"))
            return handler(operation, repo, params, query, body, access)  # type: ignore[no-any-return]
        except _Reply as reply:
            return reply

    def _authenticated(self, operation: Operation, access: str | None) -> _Reply:
        """`GET /user`: a user token's user; an installation token is refused, as GitHub does."""
        if access is None:
            return _Reply(401, _error("Requires authentication"))
        if self._caller.user is None:
            return _Reply(403, _error("Resource not accessible by integration"))
        return _Reply(200, self._made(operation, 200, simple_user(self._caller.user)))

    def caller(self) -> dict[str, Any] | None:
        """Whom this request's token acts as: a user token's user, else None."""
        return getattr(self._caller, "user", None)

    def _made(self, operation: Operation, status: int, values: dict[str, Any]) -> Any:
        schema = operation.response_schema(status)
        return overlay(synthesize(schema), values)

    # -- repositories, branches, refs, contents (backed by a bare git repository) -----------

    def _git(self, repo: Repo, *args: str) -> bytes | None:
        if repo.git_dir is None:
            return None
        done = subprocess.run(
            ["git", "--git-dir", str(repo.git_dir), *args],
            capture_output=True,
            timeout=30,
            check=False,
        )
        return done.stdout if done.returncode == 0 else None

    def _op_repos_get(self, op: Operation, repo: Repo, *_: Any) -> _Reply:
        owner, name = repo.full_name.split("/")
        return _Reply(
            200,
            self._made(
                op,
                200,
                {
                    "id": 1,
                    "name": name,
                    "full_name": repo.full_name,
                    "owner": {"login": owner},
                    "default_branch": repo.default_branch,
                    "private": False,
                    "url": f"{self.url}/repos/{repo.full_name}",
                },
            ),
        )

    def _commit_of(self, repo: Repo, branch: str) -> str:
        sha = self._git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
        if not sha:
            raise _Reply(404, _error("Branch not found"))
        return sha.decode().strip()

    def _op_repos_get_branch(
        self, op: Operation, repo: Repo, params: dict[str, str], *_: Any
    ) -> _Reply:
        sha = self._commit_of(repo, params["branch"])
        return _Reply(
            200,
            self._made(
                op,
                200,
                {
                    "name": params["branch"],
                    "commit": {"sha": sha},
                    "protected": False,
                },
            ),
        )

    def _op_repos_get_branch_rules(
        self, op: Operation, repo: Repo, params: dict[str, str], query: dict[str, list[str]],
        *_: Any,
    ) -> _Reply:
        """GitHub answers for any name, existing or not: the active rules that apply."""
        rules = [
            {"type": rule, "ruleset_source_type": "Repository",
             "ruleset_source": repo.full_name, "ruleset_id": ruleset.id}
            for ruleset in repo.rulesets
            if ruleset.applies(params["branch"], repo.default_branch)
            for rule in ruleset.rules
        ]
        items, links = self._page(query, rules, f"/repos/{repo.full_name}/rules/branches/"
                                  f"{quote(params['branch'])}")
        return _Reply(200, items, links)

    def _ref_object(self, op: Operation, repo: Repo, ref: str) -> dict[str, Any]:
        sha = self._git(repo, "rev-parse", "--verify", "--quiet", f"refs/{ref}")
        assert sha is not None
        url = f"{self.url}/repos/{repo.full_name}/git/refs/{ref}"
        return {
            "ref": f"refs/{ref}",
            "node_id": "REF_x",
            "url": url,
            "object": {"type": "commit", "sha": sha.decode().strip(), "url": url},
        }

    def _op_git_get_ref(self, op: Operation, repo: Repo, params: dict[str, str], *_: Any) -> _Reply:
        ref = params["ref"]
        if not self._git(repo, "rev-parse", "--verify", "--quiet", f"refs/{ref}"):
            raise _Reply(404, _error("Not Found"))
        return _Reply(200, self._ref_object(op, repo, ref))

    def _op_git_list_matching_refs(
        self, op: Operation, repo: Repo, params: dict[str, str], *_: Any
    ) -> _Reply:
        listed = self._git(repo, "for-each-ref", "--format=%(refname)", f"refs/{params['ref']}")
        refs = [
            line.removeprefix("refs/")
            for line in (listed or b"").decode().splitlines()
            if line.startswith(f"refs/{params['ref']}")
        ]
        return _Reply(200, [self._ref_object(op, repo, ref) for ref in refs])

    def _op_repos_get_content(
        self,
        op: Operation,
        repo: Repo,
        params: dict[str, str],
        query: dict[str, list[str]],
        *_: Any,
    ) -> _Reply:
        ref = query.get("ref", [repo.default_branch])[0]
        path = params["path"].strip("/")
        if not path:  # `contents/`: the root folder, as GitHub documents it
            entries = self._git(repo, "ls-tree", "-z", "--long", f"{ref}^{{tree}}")
            if entries is None:
                raise _Reply(404, _error("Not Found"))
            return _Reply(200, [self._content(repo, ref, e[4], e)
                                for e in map(_ls_entry, filter(None, entries.split(b"\0")))])
        listing = self._git(repo, "ls-tree", "-z", "--long", f"{ref}", "--", path)
        if not listing:
            raise _Reply(404, _error("Not Found"))
        mode, kind, sha, size, name = _ls_entry(listing.split(b"\0")[0])
        if kind == "tree":
            entries = self._git(repo, "ls-tree", "-z", "--long", f"{ref}:{path}") or b""
            items = [
                self._content(repo, ref, f"{path}/{e[4]}", e)
                for e in map(_ls_entry, filter(None, entries.split(b"\0")))
            ]
            return _Reply(200, items)
        item = self._content(repo, ref, path, (mode, kind, sha, size, name))
        if item["type"] == "file":
            data = self._git(repo, "cat-file", "blob", sha) or b""
            item["content"] = base64.encodebytes(data).decode()
            item["encoding"] = "base64"
        return _Reply(200, item)

    def _content(
        self, repo: Repo, ref: str, path: str, entry: tuple[str, str, str, str, str]
    ) -> dict[str, Any]:
        mode, kind, sha, size, _name = entry
        kinds = {"tree": "dir", "commit": "submodule"}
        content_type = "symlink" if mode == "120000" else kinds.get(kind, "file")
        url = f"{self.url}/repos/{repo.full_name}/contents/{quote(path)}?ref={quote(ref)}"
        html = f"https://github.invalid/{repo.full_name}/blob/{ref}/{path}"
        git_url = f"{self.url}/repos/{repo.full_name}/git/blobs/{sha}"
        item: dict[str, Any] = {
            "type": content_type,
            "size": int(size) if size.isdigit() else 0,
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": sha,
            "url": url,
            "git_url": git_url,
            "html_url": html,
            "download_url": None if content_type == "dir" else html,
            "_links": {"self": url, "git": git_url, "html": html},
        }
        if content_type == "symlink":
            item["target"] = (self._git(repo, "cat-file", "blob", sha) or b"").decode()
        if content_type == "submodule":
            item["submodule_git_url"] = "https://github.invalid/sub.git"
        return item

    # -- check runs -------------------------------------------------------------------------

    def _check_run_body(self, op: Operation, status: int, run: dict[str, Any]) -> Any:
        return self._made(op, status, run)

    def _op_checks_create(
        self,
        op: Operation,
        repo: Repo,
        params: dict[str, str],
        query: Any,
        body: dict[str, Any],
        *_: Any,
    ) -> _Reply:
        with self._lock:
            run_id = next(self._ids)
            self.annotations[run_id] = []
            run = {
                "id": run_id,
                "node_id": f"CR_{run_id}",
                "name": body["name"],
                "head_sha": body["head_sha"],
                "status": body.get("status", "queued"),
                "conclusion": body.get("conclusion"),
                "details_url": body.get("details_url"),
                "external_id": body.get("external_id"),
                "url": f"{self.url}/repos/{repo.full_name}/check-runs/{run_id}",
                "html_url": f"https://github.invalid/{repo.full_name}/runs/{run_id}",
                "started_at": "2025-01-01T00:00:00Z",
                "completed_at": None,
                "check_suite": {"id": 7},
                "pull_requests": [],
                "output": {
                    "title": None,
                    "summary": None,
                    "text": None,
                    "annotations_count": 0,
                    "annotations_url": f"{self.url}/repos/{repo.full_name}/check-runs/"
                    f"{run_id}/annotations",
                },
                "repository": repo.full_name,
                "updates": 0,
            }
            self._apply(run, body)
            self.check_runs[run_id] = run
        return _Reply(201, self._check_run_body(op, 201, run))

    def _op_checks_update(
        self,
        op: Operation,
        repo: Repo,
        params: dict[str, str],
        query: Any,
        body: dict[str, Any],
        *_: Any,
    ) -> _Reply:
        with self._lock:
            run = self.check_runs.get(int(params["check_run_id"]))
            if run is None or run["repository"] != repo.full_name:
                raise _Reply(404, _error("Not Found"))
            self._apply(run, body)
            run["updates"] += 1
        return _Reply(200, self._check_run_body(op, 200, run))

    def _apply(self, run: dict[str, Any], body: dict[str, Any]) -> None:
        for key in ("name", "details_url", "external_id", "status"):
            if key in body:
                run[key] = body[key]
        if "conclusion" in body:
            run["conclusion"] = body["conclusion"]
            run["status"] = "completed"
        if run["status"] == "completed" and run["completed_at"] is None:
            run["completed_at"] = "2025-01-01T00:00:01Z"
        output = body.get("output")
        if isinstance(output, dict):
            for key in ("title", "summary", "text"):
                if key in output:
                    run["output"][key] = output[key]
            added = output.get("annotations") or []
            self.annotations[run["id"]] += [dict(a) for a in added]
            run["output"]["annotations_count"] = len(self.annotations[run["id"]])

    def _op_checks_list_annotations(
        self,
        op: Operation,
        repo: Repo,
        params: dict[str, str],
        query: dict[str, list[str]],
        *_: Any,
    ) -> _Reply:
        run_id = int(params["check_run_id"])
        if run_id not in self.annotations:
            raise _Reply(404, _error("Not Found"))
        chosen, links = self._page(
            query,
            self.annotations[run_id],
            f"/repos/{repo.full_name}/check-runs/{run_id}/annotations",
        )
        items = [
            {
                "path": a["path"],
                "start_line": a["start_line"],
                "end_line": a["end_line"],
                "start_column": a.get("start_column"),
                "end_column": a.get("end_column"),
                "annotation_level": a["annotation_level"],
                "title": a.get("title"),
                "message": a["message"],
                "raw_details": a.get("raw_details"),
                "blob_href": f"https://github.invalid/blob/{a['path']}",
            }
            for a in chosen
        ]
        return _Reply(200, items, links)

    def _page(
        self, query: dict[str, list[str]], items: list[Any], path: str
    ) -> tuple[list[Any], dict[str, str]]:
        """One page of `items` and GitHub's `Link` header for the others."""
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(items) // per_page))
        rest = {k: v[0] for k, v in query.items() if k not in ("page", "per_page")}

        def link(number: int, rel: str) -> str:
            params = urlencode({**rest, "per_page": per_page, "page": number})
            return f'<{self.url}{path}?{params}>; rel="{rel}"'

        rels = []
        if page < last:
            rels += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            rels += [link(1, "first"), link(page - 1, "prev")]
        headers = {"Link": ", ".join(rels)} if rels else {}
        return items[(page - 1) * per_page : page * per_page], headers

    # -- workflow-run artifacts -------------------------------------------------------------

    def _op_actions_list_workflow_run_artifacts(
        self,
        op: Operation,
        repo: Repo,
        params: dict[str, str],
        query: dict[str, list[str]],
        *_: Any,
    ) -> _Reply:
        run_id = int(params["run_id"])
        name = query.get("name", [None])[0]
        found = [a for a in repo.artifacts if a.run_id == run_id and name in (None, a.name)]
        chosen, links = self._page(
            query, found, f"/repos/{repo.full_name}/actions/runs/{run_id}/artifacts"
        )
        base = f"{self.url}/repos/{repo.full_name}/actions/artifacts"
        items = [
            {
                "id": a.id,
                "node_id": f"A_{a.id}",
                "name": a.name,
                "size_in_bytes": len(a.data),
                "url": f"{base}/{a.id}",
                "archive_download_url": f"{base}/{a.id}/zip",
                "expired": False,
                "created_at": "2025-01-01T00:00:00Z",
                "expires_at": "2025-04-01T00:00:00Z",
                "updated_at": "2025-01-01T00:00:00Z",
                "workflow_run": {"id": run_id},
            }
            for a in chosen
        ]
        return _Reply(200, {"total_count": len(found), "artifacts": items}, links)

    def _op_actions_download_artifact(
        self,
        op: Operation,
        repo: Repo,
        params: dict[str, str],
        query: Any,
        body: Any,
        access: str | None,
    ) -> _Reply:
        if access is None:
            raise _Reply(401, _error("Requires authentication"))
        if params["archive_format"] != "zip":
            raise _Reply(404, _error("Not Found"))
        artifact_id = int(params["artifact_id"])
        if not any(a.id == artifact_id for a in repo.artifacts):
            raise _Reply(404, _error("Not Found"))
        location = f"{self.blob_url}/_blobs/{artifact_id}?sig=fake"
        return _Reply(302, raw=b"", headers={"Location": location})

    def _blob(self, path: str, headers: dict[str, str]) -> _Reply:
        if "authorization" in headers:
            self._violation(f"GET {path}: the API token was sent to blob storage")
        artifact_id = int(path.rsplit("/", 1)[-1])
        for repo in self.repos.values():
            for artifact in repo.artifacts:
                if artifact.id == artifact_id:
                    return _Reply(
                        200, raw=artifact.data, headers={"Content-Type": "application/zip"}
                    )
        return _Reply(404, raw=b"BlobNotFound")


def _error(message: str, errors: list[Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message, "documentation_url": DOCS}
    if errors:
        body["errors"] = errors
    return body


def _ls_entry(raw: bytes) -> tuple[str, str, str, str, str]:
    meta, _, name = raw.decode().partition("\t")
    mode, kind, sha, size = meta.split()
    return mode, kind, sha, size, name


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    timeout = 15  # a client that stops mid-request cannot pin a thread for long

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _git(self, found: tuple[Path, str, str]) -> None:
        git_dir, path, query = found
        body = read_body(self)
        authorization = self.headers.get("Authorization")
        with self.fake._lock:
            self.fake.git_requests.append((self.command, self.path, authorization))
        if self.fake.git_hook is not None:
            self.fake.git_hook()
        if self.fake.git_status is not None:
            status, headers, payload = self.fake.git_status, {}, b"unavailable\n"
        elif not self.fake.git_allowed(authorization):
            status, headers, payload = 401, {"WWW-Authenticate": 'Basic realm="git"'}, b""
        else:
            status, headers, payload = http_backend(self, backend_path(), git_dir, path, query,
                                                    body)
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _serve(self) -> None:
        found = self.fake.git_repository(self.path)
        if found is not None:
            self._git(found)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = Recorded(self.command, self.path.split("?")[0], {}, None, None)
        with self.fake._lock:
            self.fake.requests.append(record)
        try:
            reply = self.fake.handle(self.command, self.path, headers, body, record)
        except ConnectionAbortedError:
            self.close_connection = True
            return
        except Exception as error:  # a bug in the fake must fail the test, not hang it
            self.fake._violation(f"{self.command} {self.path}: fake crashed: {error!r}")
            reply = _Reply(500, _error("fake crashed"))
        record.status = reply.status
        data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
        self.send_response(reply.status)
        reply_headers = {
            "content-type": "application/json; charset=utf-8",
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": "4999",
            "x-ratelimit-reset": str(self.fake.rate_limit_reset),
        }
        reply_headers.update({k.lower(): v for k, v in reply.headers.items()})
        for key, value in reply_headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve


@contextlib.contextmanager
def running(**kwargs: Any) -> Iterator[FakeGitHub]:
    fake = FakeGitHub(**kwargs).start()
    try:
        yield fake
    finally:
        fake.close()
