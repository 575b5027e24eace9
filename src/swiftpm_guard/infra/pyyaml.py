"""PyYAML, imported without the one statement that made up a third of its import.

`yaml/reader.py` compiles NON_PRINTABLE, a character class of what YAML allows: most of
Unicode. `re` builds such a class one code point at a time, in Python: about 7 ms, on the
critical path of every check that reads a workflow (a check takes about 65 ms here). The
class is the complement of a few short ranges, and that complement compiles in microseconds.
So while PyYAML is imported, `re.compile` hands the reader the complement for that one
pattern and compiles everything else as asked. Both match the same code points, all
1,114,112 of them (tests/unit/infra/test_pyyaml.py checks each, and that the exchange took
place: a PyYAML that spells the class differently is imported as it is, and that test says so).
"""

from __future__ import annotations

import re
import sys
from types import ModuleType
from typing import Any

#: yaml/reader.py's pattern, character for character (PyYAML 3.x to 6.x).
READER_CLASS = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
#: Every code point READER_CLASS matches: the C0 controls but tab, LF and CR; DEL and the C1
#: controls but NEL; the surrogates; U+FFFE and U+FFFF.
COMPLEMENT_CLASS = "[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"


def import_pyyaml() -> ModuleType:
    """`import yaml`, with the reader's class compiled from its complement."""
    loaded = sys.modules.get("yaml")
    if loaded is not None:
        return loaded
    compile_as_asked = re.compile

    def compile_complement(pattern: Any, flags: Any = 0) -> re.Pattern[Any]:
        if flags == 0 and pattern == READER_CLASS:
            return compile_as_asked(COMPLEMENT_CLASS)
        return compile_as_asked(pattern, flags)

    re.compile = compile_complement
    try:
        import yaml
    finally:
        re.compile = compile_as_asked
    return yaml
