"""Run one atheris fuzz target for a bounded time: `python fuzz/run.py TARGET SECONDS`.

Seeds come from fuzz/seeds/TARGET/; a crash lands in fuzz/crashes/TARGET/ (replayed by
tests/hostile/test_fuzz_crashes.py once committed). Prints libFuzzer's final stats.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import atheris

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

with atheris.instrument_imports(include=["swiftpm_guard", "harness"]):
    import harness


def main() -> None:
    target, seconds = sys.argv[1], int(sys.argv[2])
    crashes = HERE / "crashes" / target
    crashes.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    shutil.copytree(HERE / "seeds" / target, work, dirs_exist_ok=True)
    argv = [sys.argv[0], f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048",
            "-max_len=65536", "-print_final_stats=1", f"-artifact_prefix={crashes}/", str(work)]
    atheris.Setup(argv, harness.TARGETS[target])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
