"""The command exits without the interpreter's teardown only when that teardown has nothing to
do: its output is all there, its exit code is main's, and exit callbacks, threads and a
closed pipe still get the usual exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

# What only the interpreter's teardown does: Py_FinalizeEx raises this audit event as it
# clears the interpreter's state (CPython's audit events table).
TEARDOWN_WITNESS = """
    import os, sys
    def witness(event, args, write=os.write):
        if event == "cpython.PyInterpreterState_Clear":
            write(2, b"teardown ran\\n")
    sys.addaudithook(witness)
"""


def _command(prelude: str, *words: str, stdout: int = subprocess.PIPE
             ) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(TEARDOWN_WITNESS) + textwrap.dedent(prelude) + textwrap.dedent(f"""
        sys.argv = ["swiftpm-guard", *{list(words)!r}]
        from swiftpm_guard.cli.main import run
        run()
    """)
    return subprocess.run([sys.executable, "-c", code], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=60, check=False)


def test_a_plain_command_skips_teardown_and_its_whole_output_arrives():
    done = _command("", "codes")
    assert done.returncode == 0
    assert "teardown ran" not in done.stderr  # the fast exit was taken
    assert done.stdout.count("\n") >= 4 and done.stdout.endswith("\n")  # flushed, all of it


def test_the_exit_code_is_mains_on_the_fast_path_too():
    done = _command("", "check", "--template", "no-such.template", "--version", "1.0.0",
                    "--frameworks", "A")
    assert done.returncode == 2
    assert "teardown ran" not in done.stderr
    assert done.stderr.startswith("swiftpm-guard: error:") and "no-such.template" in done.stderr


def test_exit_callbacks_still_run():
    done = _command("""
        import atexit
        atexit.register(lambda: print("callback ran", flush=True))
    """, "codes")
    assert done.returncode == 0
    assert "callback ran" in done.stdout and "teardown ran" in done.stderr


def test_threads_get_the_usual_exit():
    done = _command("""
        import threading, time
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread done", flush=True))
                         ).start()
    """, "codes")
    assert done.returncode == 0
    assert "thread done" in done.stdout and "teardown ran" in done.stderr


def test_a_closed_pipe_gets_the_usual_exit_and_its_report():
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = _command("", "codes", stdout=writer)
    finally:
        os.close(writer)
    assert done.returncode != 0  # not a silent success with the output lost
    assert "BrokenPipeError" in done.stderr or "Broken pipe" in done.stderr
