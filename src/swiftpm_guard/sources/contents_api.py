"""A ref read through GitHub's contents API: the fallback when the workspace has no clone.

Same shape as `refs.GitRef`. Every call goes through the retry loop; a 404 means "absent".
Walking a folder costs one request per sub-folder, so the walk is capped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.github import GitHubApiError, RetryPolicy, call
from swiftpm_guard.sources.git_ref import TREE_MAX_ENTRIES, TreeEntry

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import ContentFile, Repository

#: Folder listings one tree walk may request (a stub tree has one folder per product).
TREE_MAX_REQUESTS = 200
_KINDS = {"file": "file", "dir": "dir", "symlink": "symlink", "submodule": "submodule"}


class ContentsRef:
    def __init__(self, repo: Repository, ref: str, policy: RetryPolicy) -> None:
        self.repo = repo
        self.ref = ref
        self.policy = policy

    @property
    def where(self) -> str:
        return f"'{self.ref}' (contents API)"

    def _get(self, path: str) -> list[ContentFile] | ContentFile | None:
        try:
            return call(
                self.policy,
                f"read {path} at {self.ref}",
                lambda: self.repo.get_contents(path, ref=self.ref),
            )
        except GitHubApiError as error:
            if error.status == 404:
                return None
            raise

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes:
        found = self._get(path)
        if found is None:
            raise InputError(f"{what} not found in {self.where}", file=path)
        if isinstance(found, list) or found.type != "file":
            raise InputError(f"{what} is not a file in {self.where}", file=path)
        if found.size > max_bytes:
            raise InputError(
                f"{what} is larger than {max_bytes} bytes; refusing to read it", file=path
            )
        if found.encoding != "base64":
            raise InputError(f"{what} is too large for the contents API", file=path)
        return found.decoded_content

    def kind(self, path: str) -> str | None:
        found = self._get(path.rstrip("/"))
        if found is None:
            return None
        if isinstance(found, list):
            return "dir"
        # The API answers a link to a file with that file; only other links say "symlink".
        return _KINDS.get(found.type, "file")

    def tree(self, folder: str) -> list[TreeEntry] | None:
        entries: list[TreeEntry] = []
        pending = [folder.rstrip("/")]
        requests = 0
        while pending:
            current = pending.pop()
            requests += 1
            if requests > TREE_MAX_REQUESTS or len(entries) > TREE_MAX_ENTRIES:
                raise InputError(
                    f"too many folders under {folder} in {self.where}; not a stub folder",
                    file=folder,
                )
            listing = self._get(current)
            if listing is None or not isinstance(listing, list):
                if current == folder.rstrip("/"):
                    return None
                continue
            for item in listing:
                kind = _KINDS.get(item.type, "file")
                entries.append(TreeEntry(item.path, kind))
                if kind == "dir":
                    pending.append(item.path)
        return entries


def api_branches(repo: Repository, prefix: str, policy: RetryPolicy) -> list[str]:
    """Branch names under `prefix` (`release/`) through the git refs API."""
    def listed() -> list[str]:
        refs = repo.get_git_matching_refs(f"heads/{prefix}")
        return [r.ref.removeprefix("refs/heads/") for r in refs]

    return sorted(call(policy, f"list the branches under {prefix or '/'}", listed))
