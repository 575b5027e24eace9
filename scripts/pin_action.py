"""Point action.yml at a prebuilt image, or check that it points where the version says.

    python3 scripts/pin_action.py pin action.yml REGISTRY/OWNER/swiftpm-guard:X.Y.Z@sha256:HEX
    python3 scripts/pin_action.py check action.yml X.Y.Z

`pin` prints action.yml with its `runs.image: Dockerfile` line replaced by
`image: docker://<reference>` (every other byte kept: comments, order, line endings); it
refuses a reference that is not `<name>:<X.Y.Z>@sha256:<64 hex>`. `check` exits 0 when
`runs.image` is `Dockerfile` (main: CI builds the current code) or a `docker://` reference
whose tag is X.Y.Z and which carries a digest (a release); anything else is one line and exit 1.

Tag *and* digest: the runner pulls by the digest, so what a release runs can never change
under it; the tag is there for people and for this check, which ties it to the package version.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REFERENCE_RE = re.compile(
    r"(?P<name>[a-z0-9][a-z0-9._:/-]*/swiftpm-guard)"
    r":(?P<tag>\d+\.\d+\.\d+)@(?P<digest>sha256:[0-9a-f]{64})"
)
_IMAGE_LINE = re.compile(r"^(?P<indent>[ ]+)image:[ ]*(?P<value>\S+)[ ]*(?P<end>\r?\n?)$")


def _runs_image_lines(lines: list[str]) -> list[tuple[int, re.Match[str]]]:
    """`image:` lines inside the top-level `runs:` block."""
    found: list[tuple[int, re.Match[str]]] = []
    inside = False
    for number, line in enumerate(lines):
        if line and not line[0].isspace() and not line.startswith("#"):
            inside = line.rstrip().startswith("runs:")
            continue
        match = _IMAGE_LINE.match(line)
        if inside and match:
            found.append((number, match))
    return found


def image_of(text: str) -> str:
    lines = text.splitlines(keepends=True)
    found = _runs_image_lines(lines)
    if len(found) != 1:
        raise ValueError(f"expected one runs.image line, found {len(found)}")
    return found[0][1].group("value").strip("'\"")


def pin(text: str, reference: str) -> str:
    if REFERENCE_RE.fullmatch(reference) is None:
        raise ValueError(
            f"{reference!r} is not <registry>/<owner>/swiftpm-guard:X.Y.Z@sha256:<hex>")
    lines = text.splitlines(keepends=True)
    found = _runs_image_lines(lines)
    if len(found) != 1 or found[0][1].group("value") != "Dockerfile":
        raise ValueError("runs.image is not `Dockerfile`: this action.yml is already pinned")
    number, match = found[0]
    lines[number] = f"{match.group('indent')}image: docker://{reference}{match.group('end')}"
    return "".join(lines)


def check(text: str, version: str) -> str | None:
    """None when action.yml and the version agree, else why not."""
    image = image_of(text)
    if image == "Dockerfile":
        return None
    match = REFERENCE_RE.fullmatch(image.removeprefix("docker://"))
    if not image.startswith("docker://") or match is None:
        return f"runs.image {image!r} is neither Dockerfile nor docker://…:X.Y.Z@sha256:…"
    if match.group("tag") != version:
        return f"runs.image is tagged {match.group('tag')} but the package version is {version}"
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in ("pin", "check"):
        print("usage: pin_action.py pin ACTION.yml REFERENCE | check ACTION.yml VERSION",
              file=sys.stderr)
        return 2
    command, path, value = argv
    try:
        text = Path(path).read_text(encoding="utf-8")
        if command == "pin":
            sys.stdout.write(pin(text, value))
            return 0
        problem = check(text, value)
    except (OSError, ValueError) as error:
        print(f"pin_action: {path}: {error}", file=sys.stderr)
        return 2
    if problem:
        print(f"pin_action: {path}: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
