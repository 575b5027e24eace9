"""Userinfo out of URLs before they reach any message (pure).

Everything that quotes a URL or a repository value goes through here, and `GuardError.__str__`
runs `redact_userinfo` over every message as the last line of defence. It errs on the side of
hiding: the input may be broken in any way, so nothing is parsed; after each `scheme://`,
everything up to the last `@` before the next `scheme://` is hidden, and in a word without
`//`, everything before its last `@` when a `:` precedes it (`https:user:secret@host`, git's
scp-like `user:secret@host:/path`). Remotes are parsed by `core.names.Remote`, which refuses
those forms; this is what catches a message that quoted one anyway. Beside the layers.
"""

from __future__ import annotations

import re

#: A URL scheme as RFC 3986 spells it, then `://`.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
HIDDEN = "***"


def redact_userinfo(text: str) -> str:
    """`text` with the userinfo of every `scheme://userinfo@…` in it replaced by `***`, and of
    the forms without `//` (`https:user:secret@host/x`, `user:secret@host:/x`)."""
    return _without_slashless_userinfo(_without_url_userinfo(text))


def _without_url_userinfo(text: str) -> str:
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


#: Where a word ends in a message: white space, quotes and brackets around a quoted value.
_WORD_BREAK = re.compile(r"""([\s'"`<>(){}\[\],;]+)""")
#: A scheme name and its colon at a word's start (`https:` of `https:user:secret@host`).
_SCHEME_HEAD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _without_slashless_userinfo(text: str) -> str:
    """Per word (a linear split): a `:` before the word's last `@` may end a password, so all
    before that `@` is hidden, but a leading `scheme:`. `git@host:path` has no such `:`."""
    if "@" not in text:
        return text
    words = _WORD_BREAK.split(text)
    for index in range(0, len(words), 2):  # the breaks are at the odd indices
        word = words[index]
        at = word.rfind("@")
        if at < 0 or "://" in word or ":" not in word[:at] or word[:at] == HIDDEN:
            continue
        head = _SCHEME_HEAD.match(word)
        keep = head.group() if head and ":" in word[head.end() : at] else ""
        words[index] = keep + HIDDEN + word[at:]
    return "".join(words)


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
