"""Regenerate tests/support/github-openapi/openapi-subset.json from GitHub's full description.

    python scripts/github-openapi-subset.py path/to/api.github.com.json [--output FILE]

The input is a local file (see tests/support/github-openapi/README.md for where to get one);
this script fetches nothing. The cutting rules live in tests/support/openapi_subset.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.openapi import SUBSET  # noqa: E402
from support.openapi_subset import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], SUBSET))
