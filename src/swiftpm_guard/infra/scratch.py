"""One private folder for every temporary file of a run (issue 32).

`TMPDIR` is the job's to set (GITHUB_ENV) and can name a folder in the workspace, where a
process an earlier step left running could edit a scratch repository's config between
`git init` and the fetch. So each front end, before anything else, makes one folder under a
fixed base, never `$TMPDIR`: `/tmp` (in the action's container the container's own), with
mkdtemp (created exclusively, mode 0700, ours), checks it is that, makes it `tempfile.tempdir`
and the `TMPDIR` every process we start inherits, and removes it at the end.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from swiftpm_guard.errors import InfrastructureError

#: The trusted base: fixed, never read from the environment.
BASE = "/tmp"
PREFIX = "swiftpm-guard-run."


@contextmanager
def private_tempdir(base: str = BASE) -> Iterator[Path]:
    """A fresh private folder that is the run's temporary folder while the block runs."""
    try:
        folder = tempfile.mkdtemp(prefix=PREFIX, dir=base)
    except OSError as error:
        raise InfrastructureError(f"cannot make a private temporary folder under {base}: "
                                  f"{error.strerror or error}") from None
    saved_tempdir, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
    try:
        _check_private(folder)
        tempfile.tempdir = folder
        os.environ["TMPDIR"] = folder
        yield Path(folder)
    finally:
        tempfile.tempdir = saved_tempdir
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
        shutil.rmtree(folder, ignore_errors=True)


def _check_private(folder: str) -> None:
    """A real folder (not a link), ours, that no one else may enter."""
    info = os.lstat(folder)
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid()
            or info.st_mode & 0o077):
        raise InfrastructureError(f"the temporary folder {folder} is not private to this run "
                                  f"(mode {stat.filemode(info.st_mode)}, uid {info.st_uid})")
