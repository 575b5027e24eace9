"""What a published (already substituted) `Package.swift` says, read from its text (pure).

A published manifest no longer holds `__SHA256_<name>__`, so the names behind its checksums
come from the Swift around them. Two shapes are understood:

* the release shape of `FORMAT.md`: a dictionary entry `"<key>": [ "sha256": "…",
  "sha256" + debug_suffix: "…" ]`, where a suffix after `"sha256"` (a literal, or a `let`
  string constant such as `debug_suffix`) names the debug twin `<key>_debug`;
* a direct `.binaryTarget(name: "…", url: "…", checksum: "…")`.

Any other string literal that is exactly 64 hex digits is still a checksum, just without a
name. We tokenise rather than parse: strings, comments, identifiers and brackets are enough.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from swiftpm_guard.core.manifest_shape import ManifestShape
from swiftpm_guard.core.model import NAME_RE, Role
from swiftpm_guard.core.placeholders import LineIndex

_TOKEN = re.compile(
    r'(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))'
    r'|(?P<string>"""(?:[^\\]|\\.)*?(?:"""|\Z)|"(?:[^"\\\n]|\\.)*(?:"|$))'
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<punct>[\[\](){}:,+=])"
    r"|(?P<other>\S)",
    re.DOTALL | re.MULTILINE,
)
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())
_HEX64 = re.compile(r"[0-9A-Fa-f]{64}")
_PLACEHOLDER = re.compile(r"__SHA256_([A-Za-z0-9_]+)__")
_CHECKSUM_KEY = "sha256"
_HEX_LITERAL = re.compile(r'"[0-9A-Fa-f]{64}"')
_ZEROED = '"' + "0" * 64 + '"'
_VERSION_LITERAL = re.compile(r'(\b(?:let|var)\s+version\s*(?::\s*String\s*)?=\s*")'
                              r'([^"\\\n]*)(")')


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # "string", "ident", "punct" or "other"
    text: str  # a string's contents without quotes; otherwise the token itself
    start: int


@dataclass(frozen=True, slots=True)
class ChecksumSite:
    """One checksum the manifest publishes, and the binary target it belongs to if known."""

    name: str | None
    value: str
    line: int
    role: Role


@dataclass(frozen=True, slots=True)
class PublishedManifest:
    sites: tuple[ChecksumSite, ...]
    #: The value of `let version = "…"` (or another `let …version… = "…"`), when present.
    version: str | None
    version_line: int | None
    #: The value of `let url = "http(s)://…"` (or another `let …url… = "…"`), when present.
    base_url: str | None


def _tokens(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind == "comment":
            continue
        value = match.group()
        if kind == "string":
            quote = 3 if value.startswith('"""') else 1
            closed = len(value) >= 2 * quote and value.endswith('"' * quote)
            value = value[quote:len(value) - quote] if closed else value[quote:]
        tokens.append(_Tok(kind, value, match.start()))
    return tokens


def _parents(tokens: list[_Tok]) -> list[int]:
    """For each token, the index of the bracket that encloses it (-1 at top level)."""
    parents: list[int] = []
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.kind == "punct" and token.text in _CLOSERS and stack:
            stack.pop()
        parents.append(stack[-1] if stack else -1)
        if token.kind == "punct" and token.text in _OPENERS:
            stack.append(index)
    return parents


def _is(tokens: list[_Tok], index: int, kind: str, text: str | None = None) -> bool:
    if not 0 <= index < len(tokens):
        return False
    token = tokens[index]
    return token.kind == kind and (text is None or token.text == text)


def _constants(tokens: list[_Tok]) -> dict[str, tuple[str, int]]:
    """`let NAME = "literal"` (or `let NAME: String = …`) anywhere: name → (value, offset)."""
    found: dict[str, tuple[str, int]] = {}
    for i, token in enumerate(tokens):
        if token.kind != "ident" or token.text not in ("let", "var") or not _is(tokens, i + 1,
                                                                                 "ident"):
            continue
        j = i + 2
        if _is(tokens, j, "punct", ":") and _is(tokens, j + 1, "ident"):
            j += 2
        if _is(tokens, j, "punct", "=") and _is(tokens, j + 1, "string"):
            after = j + 2
            # `let x = "a" + y` is not a constant we can read.
            if not _is(tokens, after, "punct", "+"):
                found.setdefault(tokens[i + 1].text, (tokens[j + 1].text, tokens[j + 1].start))
    return found


def _pick(constants: dict[str, tuple[str, int]], word: str) -> tuple[str, int] | None:
    """The constant named exactly `word`, else the first whose name contains it."""
    if word in constants:
        return constants[word]
    for name, value in constants.items():
        if word in name.lower():
            return value
    return None


def _suffix(tokens: list[_Tok], index: int, constants: dict[str, tuple[str, int]]) -> str | None:
    """The value of the operand at `index` in `"sha256" + <operand>`, if it is knowable."""
    if _is(tokens, index, "string"):
        return tokens[index].text
    if _is(tokens, index, "ident") and tokens[index].text in constants:
        return constants[tokens[index].text][0]
    return None


def _entry_key(tokens: list[_Tok], opener: int) -> str | None:
    """`"<key>": [` → key, for the dictionary literal opening at `opener`."""
    if opener >= 2 and _is(tokens, opener - 1, "punct", ":") and _is(tokens, opener - 2, "string"):
        return tokens[opener - 2].text
    return None


def _call_name(tokens: list[_Tok], parents: list[int], opener: int) -> str | None:
    """The `name: "…"` argument of the call whose parenthesis opens at `opener`."""
    for i in range(opener + 1, len(tokens)):
        if parents[i] < opener:  # the group has closed
            break
        if (parents[i] == opener and _is(tokens, i, "ident", "name")
                and _is(tokens, i + 1, "punct", ":") and _is(tokens, i + 2, "string")):
            return tokens[i + 2].text
    return None


def _content_start(text: str, quote: int) -> int:
    """Offset of a string literal's first character, given the offset of its quote."""
    return quote + (3 if text.startswith('"""', quote) else 1)


def _valid_name(name: str | None) -> str | None:
    return name if name is not None and NAME_RE.fullmatch(name) else None


_Site = tuple[str | None, int, int, int, Role]  # name, content start and end, line, role


@dataclass(frozen=True, slots=True)
class _Shape:
    """A manifest's parse with checksum values left out: (name, start, end, line, role)."""

    sites: tuple[_Site, ...]
    version: tuple[int, int] | None  # where the version's text is
    version_line: int | None
    base_url: str | None


def read_published(text: str) -> PublishedManifest:
    """Every checksum site, the declared version and the base URL of a published manifest.

    Published manifests of one project differ in little but their 64-digit checksums and
    their version, so we parse the text with those literals zeroed (same length, same
    offsets) once per distinct shape, then read the values back from the real text.
    """
    skeleton = _HEX_LITERAL.sub(_ZEROED, text)
    skeleton = _VERSION_LITERAL.sub(lambda m: m[1] + "0" * len(m[2]) + m[3], skeleton)
    shape = _read_shape(skeleton)
    sites = tuple(ChecksumSite(name, text[start:end], line, role)
                  for name, start, end, line, role in shape.sites)
    version = text[shape.version[0]:shape.version[1]] if shape.version else None
    return PublishedManifest(sites=sites, version=version, version_line=shape.version_line,
                             base_url=shape.base_url)


@functools.lru_cache(maxsize=32)
def _read_shape(text: str) -> _Shape:
    tokens = _tokens(text)
    constants = _constants(tokens)
    lines, shape = LineIndex(text), ManifestShape(text)
    sites = sorted((_site(text, tokens[index], name, lines, shape)
                    for name, index in _checksum_values(tokens, _parents(tokens), constants)),
                   key=lambda site: site[1])
    version = _pick(constants, "version")
    base = _pick(constants, "url")
    version_start = _content_start(text, version[1]) if version else 0
    return _Shape(
        sites=tuple(sites),
        version=(version_start, version_start + len(version[0])) if version else None,
        version_line=lines.line_of(version[1]) if version else None,
        base_url=base[0] if base and base[0].startswith(("https://", "http://")) else None,
    )


def _checksum_values(tokens: list[_Tok], parents: list[int],
                     constants: dict[str, tuple[str, int]]) -> list[tuple[str | None, int]]:
    """Every checksum value (its token's index) with the name the manifest gives it, if any:
    the named shapes first, then any other 64-hex string literal, unnamed."""
    found = [hit for i in range(len(tokens))
             if (hit := _call_checksum(tokens, parents, i)
                 or _keyed_checksum(tokens, parents, constants, i)) is not None]
    used = {index for _name, index in found}
    return found + [(None, i) for i, token in enumerate(tokens)
                    if token.kind == "string" and i not in used and _HEX64.fullmatch(token.text)]


def _call_checksum(tokens: list[_Tok], parents: list[int],
                   i: int) -> tuple[str | None, int] | None:
    """`checksum: "…"` inside a call, whose `name:` says whose."""
    if not (tokens[i].kind == "ident" and tokens[i].text == "checksum"
            and _is(tokens, i + 1, "punct", ":") and _is(tokens, i + 2, "string")
            and parents[i] >= 0):
        return None
    opener = parents[i]
    return (_call_name(tokens, parents, opener) if tokens[opener].text == "(" else None), i + 2


def _keyed_checksum(tokens: list[_Tok], parents: list[int], constants: dict[str, tuple[str, int]],
                    i: int) -> tuple[str | None, int] | None:
    """`"sha256…" [+ suffix]: "…"` as an entry of a dictionary that is itself `"key": [ … ]`."""
    token = tokens[i]
    if token.kind != "string" or not token.text.lower().startswith(_CHECKSUM_KEY):
        return None
    if not (_is(tokens, i - 1, "punct", "[") or _is(tokens, i - 1, "punct", ",")):
        return None
    suffix: str | None = token.text[len(_CHECKSUM_KEY):]
    j = i + 1
    if _is(tokens, j, "punct", "+"):
        extra = _suffix(tokens, j + 1, constants)
        suffix = None if extra is None else token.text[len(_CHECKSUM_KEY):] + extra
        j += 2
    if not (_is(tokens, j, "punct", ":") and _is(tokens, j + 1, "string")):
        return None
    key = _entry_key(tokens, parents[i]) if parents[i] >= 0 else None
    return (None if key is None or suffix is None else key + suffix), j + 1


def _site(text: str, value: _Tok, name: str | None, lines: LineIndex,
          shape: ManifestShape) -> _Site:
    """Where a checksum value sits; an unnamed `__SHA256_X__` placeholder names itself."""
    placeholder = _PLACEHOLDER.fullmatch(value.text)
    if name is None and placeholder:
        name = placeholder.group(1)
    start = _content_start(text, value.start)
    return (_valid_name(name), start, start + len(value.text), lines.line_of(value.start),
            shape.role_at(value.start))


def base_url_in(text: str) -> str | None:
    """The manifest's own `let url = "https://…"` base, as written in a template or manifest."""
    base = _pick(_constants(_tokens(text)), "url")
    return base[0] if base and base[0].startswith(("https://", "http://")) else None
