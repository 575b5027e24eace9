"""Audit published `swiftpm-*` branches: branch contents in, findings out (pure).

Each branch is judged on its own (placeholders left, checksum text, stubs, the version its name
carries, whether its tip is still the publish commit), then all together (one checksum under
two names or versions: at most one can be right). A published manifest holds no placeholders,
so the names behind its checksums come from the Swift around them, tokenised, not parsed: the
release shape's `"<key>": [ "sha256": "…", "sha256" + debug_suffix: "…" ]` (FORMAT.md), or
`.binaryTarget(name:url:checksum:)`; any other 64-hex literal is a checksum without a name.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN, apply_warn, stub_findings
from swiftpm_guard.core.lines import LineIndex
from swiftpm_guard.core.manifest_shape import ManifestShape
from swiftpm_guard.core.model import (
    NAME_RE,
    SHA256_RE,
    Finding,
    HostedStats,
    Location,
    Placeholder,
    Rendered,
    Role,
    Severity,
    Stub,
    Template,
)
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.render import scan

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


@dataclass(frozen=True, slots=True)
class TipCommit:
    """A branch's tip commit as git records it (read from the commit object)."""

    commit: str
    author: str  # "Name <email>"
    date: str  # the author date, ISO 8601 with its offset
    subject: str  # the message's first line

    def as_dict(self) -> dict[str, str]:
        return {"commit": self.commit, "author": self.author, "date": self.date,
                "subject": self.subject}


def tip_findings(tip: TipCommit | None, branch: str, version: str | None,
                 manifest_version: str | None) -> list[Finding]:
    """`edited-after-publish` (a warning) when the tip's subject is neither the branch's
    version nor the manifest's (when those differ, `branch-version` already says so)."""
    if tip is None or version is None or tip.subject in (version, manifest_version):
        return []
    return [Finding(
        code="edited-after-publish", severity=Severity.WARNING, subject=branch,
        message=f"the tip {tip.commit[:12]} (\"{tip.subject[:80]}\", {tip.author}, {tip.date}) "
        f"is not the publish commit of {version}: the branch was edited after publishing. "
        f"Review the edit; to republish on top of it use {option('update')}, never "
        f"{option('allow-overwrite')}",
    )]


DEFAULT_BRANCH_PREFIX = "swiftpm-"
#: `X.Y.Z.YYYYMMDD`: a nightly; its last part is the (Pacific) build date.
NIGHTLY_RE = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.(?P<date>[0-9]{8})")


@dataclass(frozen=True, slots=True)
class ManifestFile:
    """`Package.swift` (or a `Package@swift-X.swift` variant) as a branch holds it."""

    path: str
    text: str | None  # None when it could not be read; `problem` says why
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class PublishedBranch:
    """What one published branch holds, as far as the audit cares."""

    name: str
    commit: str
    manifests: tuple[ManifestFile, ...]
    stubs_dir: str | None = None
    stubs: tuple[Stub, ...] = ()
    #: Names of entries in the stub root that are not folders (`.DS_Store`).
    stray: tuple[str, ...] = ()
    tip: TipCommit | None = None


@dataclass(frozen=True, slots=True)
class AuditOptions:
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    version_pattern: str = DEFAULT_VERSION_PATTERN
    warn: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class BranchAudit:
    branch: str
    version: str | None  # the version the branch name carries
    findings: tuple[Finding, ...]
    #: (path, as read) of `Package.swift` and every version-specific manifest SwiftPM may read
    #: instead, for URL checks.
    manifests: tuple[tuple[str, PublishedManifest], ...] = ()
    tip: TipCommit | None = None  # the branch's tip commit, when it was read

    @property
    def manifest(self) -> PublishedManifest | None:
        """`Package.swift` as read (None when the branch has none that can be read)."""
        return next((m for path, m in self.manifests if path == "Package.swift"), None)

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


#: The ruleset rules that keep a published branch what apps pinned: nobody deletes it,
#: force-pushes it, or creates one under a published name (GitHub's rule types).
KEEPING_RULES = ("deletion", "non_fast_forward", "creation")


@dataclass(frozen=True, slots=True)
class BranchRules:
    """The active ruleset rules GitHub applies to one branch name: (rule type, ruleset id)."""

    branch: str
    rules: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True, slots=True)
class Protection:
    """Whether rulesets keep the published branches: which of KEEPING_RULES apply to every
    branch asked about, or why that could not be told."""

    asked: tuple[str, ...]  # the branch names GitHub was asked about
    covered: tuple[str, ...] = ()  # of KEEPING_RULES, in that order
    rulesets: tuple[int, ...] = ()  # the rulesets those rules come from
    unknown: str | None = None  # set when it could not be told: why

    @property
    def missing(self) -> tuple[str, ...]:
        return () if self.unknown else tuple(r for r in KEEPING_RULES if r not in self.covered)


def protection(answers: Sequence[BranchRules]) -> Protection:
    """A rule counts only when it applies to every branch asked about: a ruleset whose
    pattern misses some published branches leaves those open."""
    if not answers:
        return Protection(asked=(), unknown="no published branch to ask about")
    types = [{kind for kind, _id in answer.rules} for answer in answers]
    covered = tuple(rule for rule in KEEPING_RULES if all(rule in kinds for kinds in types))
    rulesets = sorted({ruleset for answer in answers for kind, ruleset in answer.rules
                       if kind in covered and ruleset is not None})
    return Protection(asked=tuple(a.branch for a in answers), covered=covered,
                      rulesets=tuple(rulesets))


def branches_to_ask(branches: Sequence[str]) -> tuple[str, ...]:
    """The oldest and the newest published branch: two calls whatever the count, and a
    ruleset pattern that covers both ends covers what lies between in all but odd cases."""
    return tuple(dict.fromkeys((branches[0], branches[-1]))) if branches else ()


@dataclass(frozen=True, slots=True)
class AuditReport:
    source: str
    pattern: str
    branches: tuple[BranchAudit, ...]
    #: Set when `--verify-urls` fetched the branches' zips.
    hosted: HostedStats | None = None
    #: Set when GitHub was asked which rulesets apply to the published branches.
    protection: Protection | None = None

    @property
    def consistent(self) -> bool:
        return not any(b.has_errors for b in self.branches)


@dataclass(frozen=True, slots=True)
class _Use:
    """One place a checksum is published, for the cross-branch comparison."""

    branch: str
    version: str | None
    name: str
    file: str
    line: int


def version_key(version: str | None, branch: str) -> tuple[tuple[int, ...], str]:
    """Order by numeric version parts (nightlies after their X.Y.Z), then by branch name."""
    parts = tuple(int(p) for p in re.findall(r"[0-9]+", version)) if version else ()
    return parts, branch


def branch_version(branch: str, options: AuditOptions) -> str | None:
    """The version a branch name carries after the prefix, if it has the expected shape."""
    if not branch.startswith(options.branch_prefix):
        return None
    version = branch[len(options.branch_prefix):]
    return version if re.fullmatch(options.version_pattern, version, re.ASCII) else None


def audit(branches: Iterable[PublishedBranch], options: AuditOptions,
          *, source: str = "", pattern: str = "") -> AuditReport:
    """Every finding for every branch, branches ordered by version."""
    results: list[BranchAudit] = []
    uses: dict[str, list[_Use]] = defaultdict(list)
    for branch in branches:
        result, branch_uses = _audit_branch(branch, options)
        results.append(result)
        for value, use in branch_uses:
            uses[value].append(use)
    extra = _duplicate_findings(uses)
    results = [dataclasses.replace(r, findings=r.findings + tuple(extra.get(r.branch, ())))
               for r in results]
    results.sort(key=lambda r: version_key(r.version, r.branch))
    report = AuditReport(source=source, pattern=pattern, branches=tuple(results))
    return with_findings(report, {}, options.warn)


def with_findings(report: AuditReport, extra: Mapping[str, Sequence[Finding]],
                  warn: frozenset[str]) -> AuditReport:
    """Add findings per branch (URL checks come later) and apply `--warn` to all of them."""
    branches = []
    for branch in report.branches:
        findings = [*branch.findings, *extra.get(branch.branch, ())]
        findings = apply_warn(findings, warn)
        branches.append(dataclasses.replace(branch, findings=tuple(findings)))
    return dataclasses.replace(report, branches=tuple(branches))


def _finding(code: str, subject: str, message: str, file: str | None = None,
             line: int | None = None, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, subject=subject, message=message, file=file,
                   line=line)


def _audit_branch(branch: PublishedBranch,
                  options: AuditOptions) -> tuple[BranchAudit, list[tuple[str, _Use]]]:
    findings: list[Finding] = []
    version = branch_version(branch.name, options)
    if version is None:
        findings.append(_finding(
            "bad-version", branch.name,
            f"branch '{branch.name}' does not carry a version matching "
            f"{options.version_pattern} after '{options.branch_prefix}'",
        ))
    read: list[tuple[str, PublishedManifest]] = []
    named: list[Placeholder] = []
    uses: list[tuple[str, _Use]] = []
    for manifest in branch.manifests:
        if manifest.text is None:
            findings.append(_finding("manifest-unreadable", manifest.path,
                                     manifest.problem or "cannot read the manifest",
                                     manifest.path))
            continue
        published = read_published(manifest.text)
        read.append((manifest.path, published))
        findings += _placeholder_findings(manifest.path, manifest.text)
        findings += _checksum_findings(published, manifest.path)
        findings += _version_findings(published, manifest, version)
        if not published.sites and not any(t.kind == "checksum" for t in scan(manifest.text)):
            findings.append(_finding(
                "unrecognised-manifest", manifest.path,
                "no binary target checksum recognised in the manifest; stub checks skipped",
                manifest.path, severity=Severity.WARNING,
            ))
        for site in published.sites:
            if site.name is None:
                continue
            named.append(Placeholder(site.name, Location(manifest.path, site.line), site.role))
            if SHA256_RE.fullmatch(site.value):
                uses.append((site.value, _Use(branch.name, published.version or version,
                                              site.name, manifest.path, site.line)))
    if named:
        findings += _branch_stub_findings(branch, named)
    findings += [_finding(
        "stray-file", name,
        f"'{name}' in the stub root is not a stub folder; it ships with this branch",
        f"{branch.stubs_dir}/{name}", severity=Severity.WARNING,
    ) for name in branch.stray]
    result = BranchAudit(branch.name, version, (), tuple(read), branch.tip)
    primary = result.manifest
    findings += tip_findings(branch.tip, branch.name, version,
                             primary.version if primary else None)
    return dataclasses.replace(result, findings=tuple(findings)), uses



def _placeholder_findings(path: str, text: str) -> list[Finding]:
    lines = LineIndex(text)
    findings: list[Finding] = []
    for token in scan(text):
        line = lines.line_of(token.start)
        if token.kind == "malformed":
            findings.append(_finding(
                "malformed-placeholder", token.text,
                f"'{token.text}' looks like a placeholder left in the published manifest",
                path, line,
            ))
            continue
        subject = token.name if token.kind == "checksum" else token.text
        findings.append(_finding(
            "placeholder-left", subject,
            f"'{token.text}' is still in the published manifest; SwiftPM downloads every "
            "binary target, so every consumer of this branch fails",
            path, line,
        ))
    return findings


def _checksum_findings(published: PublishedManifest, path: str) -> list[Finding]:
    findings: list[Finding] = []
    for site in published.sites:
        value = site.value
        if SHA256_RE.fullmatch(value) or "__SHA256_" in value or "\\(" in value:
            continue  # fine, a placeholder (reported above) or computed (unknowable)
        name = site.name or "?"
        findings.append(_finding(
            "bad-checksum", name,
            f"checksum of '{name}' is not 64 lowercase hex digits: '{value[:80]}'; SwiftPM "
            "compares the text and fails for every consumer", path, site.line,
        ))
    return findings


def _version_findings(published: PublishedManifest, manifest: ManifestFile,
                      version: str | None) -> list[Finding]:
    declared = published.version
    if declared is None:
        return [_finding(
            "missing-version", manifest.path,
            "the manifest declares no `let version = \"…\"`; cannot compare it with the "
            "branch name", manifest.path, severity=Severity.WARNING,
        )]
    if version is None or declared == version or "__VERSION__" in declared:
        return []
    return [_finding(
        "branch-version", declared,
        f"the manifest says version {declared} but the branch name says {version}; its "
        "binary target URLs point at another release", manifest.path, published.version_line,
    )]


def _branch_stub_findings(branch: PublishedBranch, named: list[Placeholder]) -> list[Finding]:
    """Missing, empty and orphan stubs: the same rules as before publishing (checks.py)."""
    text = next((m.text for m in branch.manifests if m.text is not None), "")
    template = Template(path="Package.swift", text=text, flavour="placeholder",
                        stubs=branch.stubs, stubs_dir=branch.stubs_dir)
    rendered = Rendered(template=template, text=text, placeholders=tuple(named),
                        version_used=True)
    return stub_findings(rendered)


def _duplicate_findings(uses: Mapping[str, list[_Use]]) -> dict[str, list[Finding]]:
    """One checksum published twice: a finding on every branch involved.

    Under two names (`duplicate-checksum`) it is a pasted line: one zip cannot be both
    targets. Under one name in two versions (`reused-checksum`) it is a stale checksum list,
    unless the build is byte-for-byte reproducible; `--verify-urls` tells the two apart.
    """
    found: dict[str, list[Finding]] = defaultdict(list)
    for value, entries in uses.items():
        if len({(u.name, u.version) for u in entries}) < 2:
            continue
        for use in entries:
            others = [u for u in entries if (u.name, u.version) != (use.name, use.version)]
            renamed = [u for u in others if u.name != use.name]
            shown = ", ".join(f"'{u.name}' in {u.branch}" for u in (renamed or others)[:3])
            more = len(renamed or others) - 3
            shown += f" and {more} more" if more > 0 else ""
            if renamed:
                code, why = "duplicate-checksum", "one zip cannot be both targets"
            else:
                code, why = ("reused-checksum", "a stale checksum, unless that build is "
                             "byte-for-byte reproducible")
            found[use.branch].append(_finding(
                code, use.name,
                f"checksum {value[:12]}… of '{use.name}' ({use.version or 'no version'}) is "
                f"also published as {shown}; {why}", use.file, use.line,
            ))
    return found
