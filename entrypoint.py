"""The action's entry point: the image's ENTRYPOINT runs it with `--image` inside the container,
the composite action on the runner itself with `--composite`."""

import os
import sys

from swiftpm_guard.action.main import main
from swiftpm_guard.action.settings import composite_inputs, read_input
from swiftpm_guard.action.token_handover import handed_over, reexec_without_tokens
from swiftpm_guard.console import command
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.git import SYSTEM_PATH
from swiftpm_guard.infra.network import CA_FILE_ENV
from swiftpm_guard.infra.swift_locate import image_swift
from swiftpm_guard.sinks import actions_io

# The tests' CA hook (infra.network, the toolchain wrapper) is never the job's to set.
os.environ.pop(CA_FILE_ENV, None)
# Before anything runs: the tokens leave the environment (a re-exec; they come back on a pipe).
try:
    reexec_without_tokens()
except UsageError as error:
    command(actions_io.command("error", str(error), {"title": "swiftpm-guard"}))
    raise SystemExit(2) from None
tokens = handed_over()

# First: a step's `with: args` would come after the ENTRYPOINT's own.
if sys.argv[1:2] == ["--image"]:
    # The runner passes the job's PATH, folders of its own host, into the container: what the
    # action runs (git, swift, and ar, ld, git and unzip under SwiftPM) is the image's own.
    os.environ["PATH"] = SYSTEM_PATH
    # And input swift auto is the image's SwiftPM, by its absolute path.
    os.environ["INPUT_SWIFT"] = image_swift(read_input(os.environ, "swift"))

environ = {**os.environ, **tokens}
if sys.argv[1:2] == ["--composite"]:
    # The composite action's step names every input with underscores; a hyphenated one is the
    # job's own (GITHUB_ENV) and must not override it.
    environ = composite_inputs(environ)

raise SystemExit(main(environ))
