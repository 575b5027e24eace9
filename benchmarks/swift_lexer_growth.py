"""How the Swift lexer's time grows with its input: a quick check that it stays linear.

    python benchmarks/swift_lexer_growth.py [--max-kib 256] [--baseline REV]

For each hostile shape (runs of `#`, one long line, many directives, long `#elseif` chains,
deep parentheses in a condition, `/*` openers, multi-line string lines, nested interpolations)
the input doubles from 1 KiB up to `--max-kib`, and each row prints the time and the ratio to
the previous size: about 2 means linear, 4 quadratic. Issue 25: the old `_CODE_STOP` took 16 s
on 30 KB of `#`. `--baseline REV` times that commit's lexer on the same inputs (in a child
process, stopped after 20 s per input).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import src_at

ROOT = Path(__file__).resolve().parent.parent

SHAPES: dict[str, Callable[[int], str]] = {
    "# run": lambda n: "#" * n,
    "# runs before quotes": lambda n: ("#" * 64 + '"') * (n // 65),
    "one long line": lambda n: "let x = " + "a + " * (n // 4),
    "long line of quotes": lambda n: '""' * (n // 2),
    "many directives": lambda n: "#if false\nlet a = 1\n#else\nlet b = 2\n#endif\n" * (n // 46),
    "#elseif chain": lambda n: "#if os(A)\n" + "#elseif os(B)\n" * (n // 14) + "#endif\n",
    "nested #if": lambda n: "#if os(Linux)\n" * (n // 14) + "#endif\n" * (n // 14),
    "( in a condition": lambda n: "#if " + "(" * n + "\n#endif\n",
    "! in a condition": lambda n: "#if " + "!(" * (n // 2) + "true" + ")" * (n // 2) + "\n#endif\n",
    "/* openers": lambda n: "/*\n" * (n // 3),
    "multi-line string lines": lambda n: 'let s = """\n' + "    line\n" * (n // 9) + '    """\n',
    "nested interpolations": lambda n: '"\\(' * (n // 3),
    "raw #\"\"\" openers": lambda n: '#"""' * (n // 4),
    "escapes": lambda n: '"' + "\\u{41}" * (n // 6) + '"',
}
#: The declaration scanner (core/manifest_shape.py) on one long line: `let a: ` once rescanned
#: the line from every `let`.
SHAPE_SHAPES: dict[str, Callable[[int], str]] = {
    "let a: (one line)": lambda n: "let a: " * (n // 7),
    "let a = (one line)": lambda n: "let a = " * (n // 8),
}

CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from swiftpm_guard.core.swift_lexer import Lexed
text = sys.stdin.read()
start = time.perf_counter()
Lexed(text)
print(time.perf_counter() - start)
"""


def _time_here(text: str, shape: bool = False) -> float:
    from swiftpm_guard.core.manifest_shape import ManifestShape
    from swiftpm_guard.core.swift_lexer import Lexed

    start = time.perf_counter()
    ManifestShape(text) if shape else Lexed(text)
    return time.perf_counter() - start


def _time_baseline(src: Path, text: str) -> float | None:
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(src)], input=text, text=True,
                              capture_output=True, timeout=20, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-kib", type=int, default=256)
    parser.add_argument("--baseline", help="also time this commit's lexer")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    with tempfile.TemporaryDirectory() as scratch:
        baseline = src_at(args.baseline, Path(scratch)) if args.baseline else None
        print(f"{'shape':28} {'KiB':>5} {'seconds':>9} {'ratio':>6}" +
              (f" {'baseline':>9}" if baseline else ""))
        shapes = [(n, m, False) for n, m in SHAPES.items()]
        shapes += [(n, m, True) for n, m in SHAPE_SHAPES.items()]
        for name, make, shape in shapes:
            previous = None
            size = 1024
            while size <= args.max_kib * 1024:
                text = make(size)
                seconds = _time_here(text, shape)
                ratio = f"{seconds / previous:6.2f}" if previous else " " * 6
                row = f"{name:28} {size // 1024:>5} {seconds:9.4f} {ratio}"
                if baseline is not None and not shape:
                    old = _time_baseline(baseline, text)
                    row += f" {'>20 s' if old is None else f'{old:9.4f}':>9}"
                    if old is None:
                        baseline = None if name == "# run" and size > 64 * 1024 else baseline
                print(row, flush=True)
                previous = max(seconds, 1e-6)
                size *= 2


if __name__ == "__main__":
    main()
