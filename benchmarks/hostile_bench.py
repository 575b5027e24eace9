"""Peak RSS and wall time on the hostile inputs of issue 13, against the machine and a baseline.

    python benchmarks/hostile_bench.py [--baseline REV] [--timeout 180] [--entries 3000000]

Each case runs in its own process (peak RSS from wait4):
- a zip whose central directory holds 3 million entries: honest (its end record says so) and
  lying (its end record says 1, so only streaming and the cap stop the work); today's reader
  (zipfile's namelist, which `--baseline` used) on the same file;
- a 2 MiB workflow whose FRAMEWORKS array fills it (the workflow size cap);
- `check --swift off` on a template of 100,000 comment lines and one of 30,000 `/*` openers.
With `--baseline REV`, the same workflow and template cases run on that commit's `src/` (taken
from this repository's git history), stopped after `--timeout` seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import run_timed, src_at

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.release import write_release  # noqa: E402

READ_ZIP = """
import os, sys
from swiftpm_guard.errors import ZipProblem
from swiftpm_guard.sources.zip_archive import read_zip_contents
try:
    contents = read_zip_contents(__import__("pathlib").Path(sys.argv[1]))
    print(f"{len(contents.entries)} entries")
except ZipProblem as error:
    print(f"rejected: {error}")
"""
ZIPFILE_LIST = "import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))"
READ_WORKFLOW = """
import sys
from swiftpm_guard.sources.workflow import frameworks_in_workflow
text = open(sys.argv[1], encoding="utf-8").read()
print(len(frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")), "names")
"""


def machine_memory_kib() -> int:
    with open("/proc/meminfo") as stream:
        for line in stream:
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    return 0


def measure(label: str, argv: list[str], env: dict[str, str], timeout: float,
            ok: tuple[int, ...] = (0, 1, 2)) -> None:
    wrapped = ["timeout", "--signal=KILL", str(timeout), *argv]
    previous = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        # A crash is an outcome here (today's tree-sitter check segfaults), not the bench's.
        seconds, rss = run_timed(wrapped, ok=(*ok, 137, -9, -11, 139))
    finally:
        os.environ.clear()
        os.environ.update(previous)
    stopped = seconds >= timeout - 0.5
    shown = f"> {timeout:.0f} s (stopped)" if stopped else f"{seconds:8.2f} s"
    print(f"  {label:<58} {shown:>18} {rss / 1024:9.1f} MiB peak RSS", flush=True)


def crashed(argv: list[str], env: dict[str, str], timeout: float) -> str:
    """How a run ended, for the cases where today's code crashes: exit status or signal."""
    done = subprocess.run(argv, env=env, capture_output=True, timeout=timeout + 30)
    if done.returncode < 0:
        return f"killed by signal {-done.returncode} (SIGSEGV is 11)"
    return f"exit {done.returncode}: {done.stderr.decode(errors='replace').strip()[-150:]}"


def make_zip(path: Path, entries: int, claimed: int | None) -> None:
    """In a child, so this process stays small: a fork inherits our RSS into wait4's figure."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
            "from support.zips import many_entries_zip; "
            "many_entries_zip(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), "
            "claimed=None if sys.argv[5] == '-' else int(sys.argv[5]))")
    subprocess.run([sys.executable, "-c", code, str(ROOT / "tests"), str(path),
                    path.name.split("-")[0], str(entries), "-" if claimed is None else
                    str(claimed)], check=True, timeout=1800)


def workflow_text(target_bytes: int, dense: bool = False) -> str:
    """A workflow of `target_bytes` whose array fills it: one name a line, or (dense) short
    names on one line, which gives the most entries."""
    head = "jobs:\n  build:\n    steps:\n      - run: |\n          FRAMEWORKS=(\n"
    tail = "          )\n"
    rows = []
    size = len(head) + len(tail)
    i = 0
    while True:
        row = f" f{i}" if dense else f"            framework_{i:07d}\n"
        if size + len(row) > target_bytes:
            break
        rows.append(row)
        size += len(row)
        i += 1
    return head + "".join(rows) + tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", help="also run the cases on this commit")
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--entries", type=int, default=3_000_000)
    args = parser.parse_args()
    python = sys.executable
    ours = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    print(f"machine: {os.cpu_count()} cores, {machine_memory_kib() / 1024 / 1024:.1f} GiB RAM "
          "(a GitHub-hosted ubuntu runner: 4 cores, 16 GiB)")
    with tempfile.TemporaryDirectory(prefix="hostile-bench-") as scratch:
        work = Path(scratch)
        base_env = None
        if args.baseline:
            base_env = {**os.environ, "PYTHONPATH": str(src_at(args.baseline, work))}

        print(f"\nzip with {args.entries:,} central-directory entries")
        honest, lying = work / "honest-1.0.0.zip", work / "lying-1.0.0.zip"
        make_zip(honest, args.entries, None)
        make_zip(lying, args.entries, 1)
        print(f"  (files of {honest.stat().st_size / 2**20:.0f} MiB each)")
        measure("ours, end record says so", [python, "-c", READ_ZIP, str(honest)], ours,
                args.timeout)
        measure("ours, end record says 1 (the directory size cap)",
                [python, "-c", READ_ZIP, str(lying)], ours, args.timeout)
        measure("today: zipfile.ZipFile(...).namelist()", [python, "-c", ZIPFILE_LIST,
                                                          str(honest)], ours, args.timeout)
        honest.unlink()
        lying.unlink()

        for dense in (False, True):
            text = workflow_text(2 * 1024 * 1024, dense)
            workflow = work / "w.yml"
            workflow.write_text(text)
            names = text.count(" f") if dense else text.count("framework_")
            shape = "short names on one line" if dense else "one name a line"
            print(f"\n2 MiB workflow array, {shape} ({names:,} names, "
                  f"{len(text.encode()):,} bytes)")
            measure("ours", [python, "-c", READ_WORKFLOW, str(workflow)], ours, args.timeout)
            if base_env:
                measure(f"baseline {args.baseline}", [python, "-c", READ_WORKFLOW,
                                                      str(workflow)], base_env, args.timeout)

        release = work / "release"
        write_release(release, "1.2.3", ("executorch",), ())
        comments = release / "comments.template"
        template = (release / "swiftpm" / "Package.swift.template").read_text()
        comments.write_text(template + "// a comment line\n" * 100_000)
        openers = release / "openers.template"
        openers.write_text(template + "/*\n" * 30_000)
        for label, path in (("100,000 comment lines", comments), ("30,000 /* openers", openers)):
            print(f"\ncheck --swift off, template with {label} "
                  f"({path.stat().st_size:,} bytes)")
            argv = [python, "-m", "swiftpm_guard", "check", "--template", str(path),
                    "--version", "1.2.3", "--frameworks", "executorch", "--swift", "off",
                    "--stubs-dir", str(release / "swiftpm" / ".Package.swift"), "-q"]
            measure("ours", argv, ours, args.timeout)
            print(f"    ours: {crashed(argv, ours, args.timeout)}")
            if base_env:
                measure(f"baseline {args.baseline}", argv, base_env, args.timeout)
                print(f"    baseline: {crashed(argv, base_env, args.timeout)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
