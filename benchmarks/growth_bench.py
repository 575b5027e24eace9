"""Time and peak memory as each hostile input grows (issue 25): all of them grow linearly.

    python benchmarks/growth_bench.py [--steps 4] [--quick]

One fresh process per row (timed by wait4, peak RSS of the process: benchmarks/timing.py), the
input doubling each row, for: a template's size (rendered and gated statically, as the check
does without SwiftPM), one long line of declarations (the audit's `ManifestShape`; the old
`_DECLARATION` rescanned it), a `run: |` script read for its FRAMEWORKS array (the old line
lookup of a folded one was quadratic), a zip's entries (read as the content rules read it: the
end record first), and a server that drips a byte every 0.1 s (the download stops at its
deadline, which doubles instead: its memory must stay flat). The last columns divide by the row
above: about 2 for time (or 1 once the fixed start-up dominates) is linear; 4 would be
quadratic.
Reuses the workflow of workflow_lines_bench.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from timing import run_exact
from workflow_lines_bench import workflow

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

#: Each case: (what grows, the first size, the child's code; it reads argv[1], the size).
GATE = """
import sys
from swiftpm_guard.core import static_gate
from swiftpm_guard.core.model import Template
from swiftpm_guard.core.render import render
text = open(sys.argv[2], encoding="utf-8").read()
rendered = render(Template("Package.swift.template", text, "placeholder"), "1.0.0", {})
static_gate.tools_version_findings(rendered)
static_gate.needs_swiftpm(rendered, accept_static=False)
"""
SHAPE = """
import sys
from swiftpm_guard.core.manifest_shape import ManifestShape
ManifestShape(open(sys.argv[2], encoding="utf-8").read())
"""
WORKFLOW = """
import sys
from swiftpm_guard.sources.workflow import frameworks_in_workflow
text = open(sys.argv[2], encoding="utf-8").read()
frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
"""
ZIP = """
import sys
from pathlib import Path
from swiftpm_guard.sources.zip_archive import read_zip_contents
contents = read_zip_contents(Path(sys.argv[2]))
assert len(contents.entries) == int(sys.argv[1])
"""
DRIP = """
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.sources.hosted import fetch_all

class Drip(BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "100000000")
        self.end_headers()
        self.wfile.write(b"PK\\x03\\x04")
        try:
            while True:
                time.sleep(0.1)
                self.wfile.write(b"x")
        except OSError:
            pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Drip)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/drip.zip"
deadline = float(sys.argv[1])
got = fetch_all([url], UrlSettings(timeout=30, deadline=deadline, retries=0))[url]
assert got.state == "error" and "longer than" in got.detail, got
"""


def _template(size: int) -> str:
    line = 'let s%08d = "binaryTarget(name: x, checksum: __SHA256_x__)"  // Package(\n'
    return "".join(line % i for i in range(size // len(line % 0) + 1))


def _zip(path: Path, count: int) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for index in range(count):
            archive.writestr(f"x.xcframework/f{index}", b"")


CASES: list[tuple[str, str, int, str]] = [
    # label, unit, first size, kind
    ("template size (render + gate)", "KiB", 256, "template"),
    ("let a: one long line (shape)", "KiB", 256, "let"),
    ("run: | script (workflow)", "names", 4000, "literal"),
    ("zip entries (read_zip_contents)", "entries", 20000, "zip"),
    ("dripping server (deadline, s)", "s", 1, "drip"),
]


def _input(kind: str, size: int, work: Path) -> tuple[str, list[str]]:
    """The child's code and argv for one row (files written under `work`)."""
    path = work / f"{kind}-{size}"
    if kind == "template":
        path.write_text(_template(size * 1024), encoding="utf-8")
        return GATE, [str(size), str(path)]
    if kind == "let":
        path.write_text("let a: " * (size * 1024 // 7), encoding="utf-8")
        return SHAPE, [str(size), str(path)]
    if kind == "literal":
        path.write_text(workflow("|", size), encoding="utf-8")
        return WORKFLOW, [str(size), str(path)]
    if kind == "zip":
        _zip(path, size)
        return ZIP, [str(size), str(path)]
    return DRIP, [str(size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4, help="rows per input (doubling)")
    parser.add_argument("--quick", action="store_true", help="start at a quarter of the sizes")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    print(f"{'input':<34} {'size':>14} {'wall':>9} {'peak RSS':>10} {'x time':>7} "
          f"{'x RSS':>6}")
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-growth-") as tmp:
        for label, unit, first, kind in CASES:
            start = first if kind == "drip" or not args.quick else max(1, first // 4)
            previous: tuple[float, float] | None = None
            for step in range(args.steps):
                size = start * 2**step
                code, argv = _input(kind, size, Path(tmp))
                timed = run_exact([sys.executable, "-c", code, *argv], env=env, timeout=600)
                rss = timed.max_rss_kib / 1024
                ratio = (f"{timed.seconds / previous[0]:7.2f} {rss / previous[1]:6.2f}"
                         if previous else f"{'':7} {'':6}")
                print(f"{label if step == 0 else '':<34} {size:>8} {unit:<5} "
                      f"{timed.seconds:8.2f}s {rss:8.1f}MiB {ratio}", flush=True)
                previous = (timed.seconds, rss)


if __name__ == "__main__":
    main()
