"""Userinfo out of URLs before they reach any message (pure).

Everything that quotes a URL or a repository value goes through here, and `GuardError.__str__`
runs `redact_userinfo` over every message as the last line of defence. It errs on the side of
hiding: the input may be broken in any way, so nothing is parsed; after each `scheme://`,
everything up to the last `@` before the next `scheme://` is hidden. Beside the layers.
"""

from __future__ import annotations

import re

#: A URL scheme as RFC 3986 spells it, then `://`.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
HIDDEN = "***"


def redact_userinfo(text: str) -> str:
    """`text` with the userinfo of every `scheme://userinfo@…` in it replaced by `***`."""
    schemes = list(_SCHEME.finditer(text))
    if not schemes:
        return text
    pieces = [text[: schemes[0].start()]]
    for index, scheme in enumerate(schemes):
        end = schemes[index + 1].start() if index + 1 < len(schemes) else len(text)
        segment = text[scheme.end() : end]
        at = segment.rfind("@")
        pieces += [scheme.group(), segment if at < 0 else HIDDEN + segment[at:]]
    return "".join(pieces)


def shown_location(value: str) -> str:
    """A `--repo` value (path, URL, scp-like remote) as it may be quoted: no userinfo.

    A value is one location, so any `@` in it may end a userinfo, whatever the syntax: all
    before the last `@` (after `…://` when there is one) is hidden.
    """
    scheme = _SCHEME.match(value)
    head = scheme.group() if scheme else ""  # kept only when the value starts with one
    rest = value[len(head) :]
    at = rest.rfind("@")
    if at < 0:
        return redact_userinfo(value)
    return head + HIDDEN + rest[at:]
