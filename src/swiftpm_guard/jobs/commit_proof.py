"""Publish proves the exact commit it built, as a consumer gets it, before the branch exists.

In order, each step only when the ones before found nothing: the commit's tree passes the
tree rules (core.published_tree); a real `git clone` of it, checked out as SwiftPM checks out a
revision (attributes applied), holds every checked manifest byte for byte; with SwiftPM,
`dump-package` of that checkout, once per manifest a SwiftPM could read (each made the only
manifest of a copy), evaluates the binary targets and checksums the check evaluated; then
throwaway consumers depend on the commit BY URL, served from a bare copy over git's dumb HTTP on
loopback, by branch, by revision and (X.Y.Z) by exact version, and `swift package resolve`
downloads every binary target. SwiftPM 6.0 applies no mirror to binary-target URLs (mirroring of
remote binary targets came later, swift-package-manager #9647), so the consumers resolve only
when the URLs are verified (`verify-urls`), else the report says the downloads are not proven.
Without SwiftPM the proof is `static` (the first two steps); publish refuses that unless the
user accepts a static proof.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import secrets
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from swiftpm_guard.core import resolution
from swiftpm_guard.core.manifest_files import is_manifest_name
from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.published_tree import tree_findings
from swiftpm_guard.core.resolution import ResolveTarget
from swiftpm_guard.core.swiftpm_evaluation import CommandResult, EvaluatedTarget, interpret
from swiftpm_guard.errors import InfrastructureError, InputError
from swiftpm_guard.infra.fs import read_bytes
from swiftpm_guard.infra.loopback_http import serve_folder
from swiftpm_guard.sinks.git_push import ScratchRepo

#: A manifest is a few kilobytes; a published one past this is not one we checked.
MANIFEST_MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ProofStep:
    name: str  # "tree", "clone", "dump-package"
    proven: str  # what it showed, in words
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {"step": self.name, "proven": self.proven, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True, slots=True)
class Proof:
    how: str  # "swiftpm" or "static"
    steps: tuple[ProofStep, ...]
    findings: tuple[Finding, ...]

    def as_dict(self) -> dict[str, object]:
        return {"proof": self.how, "steps": [s.as_dict() for s in self.steps]}

    def shown(self) -> tuple[str, tuple[tuple[str, str, float], ...]]:
        """For report.publish: how, and each step's name, what it showed and seconds."""
        return self.how, tuple((s.name, s.proven, s.seconds) for s in self.steps)

    def line(self) -> str:
        done = ", ".join(f"{s.name} {s.seconds:.1f} s" for s in self.steps)
        return f"proof: {self.how} ({done})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    """What the check judged: each manifest's path and bytes, and (with SwiftPM) its rendering
    for the evaluation the check made of it."""

    manifests: Mapping[str, bytes]
    rendered: Mapping[str, Rendered]
    swift: str | None  # None: no SwiftPM, a static proof
    cache_dir: Path | None = None
    consumer: Consumer | None = None  # None: no consumer resolve (and why, in `why_not`)
    why_not: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Consumer:
    """A `swift` that may download (not the network-less wrapper), what it must fetch, and
    the version a throwaway tag names."""

    swift: str
    targets: tuple[ResolveTarget, ...]
    version: str
    timeout: float
    ca_file: Path | None = None
    fetched: tuple[str, ...] = ()  # remote refs fetched shallow, the commit's ancestry


def prove_commit(repo: ScratchRepo, commit: str, branch: str, checked: Checked,
                 work: Path) -> Proof:
    """Judge `commit` as a consumer gets it; findings are errors that stop the push."""
    how = "swiftpm" if checked.swift is not None else "static"
    steps: list[ProofStep] = []
    started = time.monotonic()
    entries = [(e.path, e.mode) for e in repo.tree(commit)]
    found = tree_findings(entries, set(checked.manifests))
    steps.append(ProofStep("tree", f"{len(entries)} entries: no .gitattributes, .gitmodules or "
                           "gitlink, plain root names, every root manifest checked",
                           time.monotonic() - started))
    if found:
        return Proof(how, tuple(steps), tuple(found))
    started = time.monotonic()
    checkout = _clone(repo, commit, branch, work / "clone")
    found = _compare(checkout, checked.manifests, commit)
    steps.append(ProofStep("clone", f"git clone at {commit[:12]} holds the "
                           f"{len(checked.manifests)} checked manifests byte for byte",
                           time.monotonic() - started))
    if found or checked.swift is None:
        return Proof(how, tuple(steps), tuple(found))
    started = time.monotonic()
    found = _dump_all(checkout, checked, checked.swift, work / "dump")
    steps.append(ProofStep("dump-package", "SwiftPM evaluates the checkout's "
                           f"{len(checked.manifests)} manifests to the binary targets and "
                           "checksums the check evaluated", time.monotonic() - started))
    if found:
        return Proof(how, tuple(steps), tuple(found))
    if checked.consumer is None:
        steps.append(ProofStep("consumer", f"not run: {checked.why_not}", 0.0))
        return Proof(how, tuple(steps), ())
    started = time.monotonic()
    pins, found = _consumers(repo, commit, branch, checked.consumer, work / "consumer")
    steps.append(ProofStep("consumer", "consumers of the commit by URL over loopback (by "
                           f"{pins}) resolve and download its {len(checked.consumer.targets)} "
                           "binary targets", time.monotonic() - started))
    return Proof(how, tuple(steps), tuple(found))


def _consumers(repo: ScratchRepo, commit: str, branch: str, consumer: Consumer,
               work: Path) -> tuple[str, list[Finding]]:
    """Resolve a consumer per way apps pin the package, against a bare copy of the commit
    served on loopback: the branch, the revision, and the exact version via a throwaway tag."""
    served = work / "served"
    copy = served / _SERVED
    for ref in consumer.fetched:
        repo.deepen(ref)
    repo.run(["clone", "--quiet", "--bare", "--template=", "--no-hardlinks", "--single-branch",
              "--branch", branch, "--", str(repo.path), str(copy)])
    pins = {"branch": f"branch: {_swift_string(branch)}",
            "revision": f"revision: {_swift_string(commit)}"}
    if _SEMVER.fullmatch(consumer.version):  # `exact:` takes a semantic version only
        repo.run(["-C", str(copy), "tag", consumer.version, commit])
        pins["version"] = f"exact: {_swift_string(consumer.version)}"
    repo.run(["-C", str(copy), "update-server-info"])
    found: list[Finding] = []
    unlisted = False
    with serve_folder(served) as base:
        for way, pin in pins.items():
            judged, listed = _judge(consumer, f"{base}{_SERVED}", way, pin, work / way)
            found += judged
            unlisted = unlisted or not listed
    extracted = ("the extracted artifacts were not listed (an older toolchain wrapper)"
                 if unlisted else "each target's extracted artifact is exactly its "
                 "NAME.xcframework")
    return f"{', '.join(pins)}; {extracted}", found


def _judge(consumer: Consumer, url: str, way: str, pin: str,
           folder: Path) -> tuple[list[Finding], bool]:
    """One consumer's resolve: its error findings, and whether its extraction was listed."""
    code, output, listed = _resolve(consumer, url, pin, folder)
    said = resolution.interpret(f"a consumer by {way}", consumer.targets, code, output)
    # "Fetched URL (…s)" is said of the package's own git URL too.
    said = replace(said, unknown_urls=tuple(u for u in said.unknown_urls if u != url))
    found = [f for f in resolution.findings(said, consumer.targets)
             if f.severity is Severity.ERROR]
    missed = [t.name for t in said.targets if not t.downloaded]
    if code == 0 and (url not in output or missed):
        # An exit 0 that fetched nothing proves nothing (SwiftPM skips a package it takes
        # for the consumer itself, and says nothing).
        found.append(_differs("Package.swift", f"a consumer by {way} resolved without "
                              f"fetching {url} or downloading {', '.join(missed)}"))
    if code == 0 and listed is not None:
        found += extracted_findings(listed, consumer.targets, way)
    return found, listed is not None


def extracted_findings(listed: Sequence[str], targets: Sequence[ResolveTarget],
               way: str) -> list[Finding]:
    """SwiftPM's own artifact choice: exactly `NAME.xcframework` in each target's folder under
    `.build/artifacts/<identity>/<NAME>/`, nothing beside it."""
    identity = _SERVED.removesuffix(".git")
    found = []
    for target in targets:
        entries = sorted(p.split("/", 2)[2] for p in listed
                         if p.count("/") == 2 and p.split("/")[:2] == [identity, target.name])
        if entries != [f"{target.name}.xcframework"]:
            shown = ", ".join(repr(e) for e in entries) or "nothing"
            found.append(Finding(
                code="commit-proof", severity=Severity.ERROR, subject=target.name,
                file=target.location.file, line=target.location.line,
                message=f"a consumer by {way} gets {shown} for binary target "
                        f"'{target.name}', not exactly {target.name}.xcframework: SwiftPM "
                        "uses what the zip holds, so the zip must hold only that"))
    return found


def _resolve(consumer: Consumer, url: str, pin: str,
             folder: Path) -> tuple[int, str, list[str] | None]:
    """SwiftPM's exit code and output, and what it extracted (None: not listed)."""
    from swiftpm_guard.infra.swiftpm import CA_ENV, OUTPUT_MAX_CHARS, run_swift

    home = folder / "home"
    home.mkdir(parents=True)
    package = folder / "consumer"
    package.mkdir()
    (package / "Package.swift").write_text(_CONSUMER.format(url=_swift_string(url), pin=pin),
                                           encoding="utf-8")
    nonce = secrets.token_hex(16)  # the listing's markers: no zip's entry name can forge them
    env = {**os.environ, "HOME": str(home), _LIST_ENV: nonce}
    if consumer.ca_file is not None:
        env[CA_ENV] = str(consumer.ca_file)
    # SwiftPM keeps fingerprints, caches and mirrors under the user's real home (not $HOME):
    # the consumer's own folders keep this run from reading or leaving any there.
    private = [f"--{name}-path=.swiftpm-guard/{name}" for name in ("security", "cache", "config")]
    code, out, _ = run_swift([consumer.swift, "package", *private, "resolve"], cwd=package,
                             env=env, timeout=consumer.timeout, merge_stderr=True)
    text, listed = split_listing(out.decode("utf-8", "replace"), nonce)
    if listed is None:  # a real swift ran in our folder: read what it extracted
        listed = _listing(package / ".build" / "artifacts")
    return code, text[-OUTPUT_MAX_CHARS:], listed


def split_listing(output: str, nonce: str) -> tuple[str, list[str] | None]:
    """The toolchain wrapper's listing (NUL-separated between marker lines carrying `nonce`)
    out of SwiftPM's output: SwiftPM's text, and the entries (None when there is none)."""
    begin_mark, end_mark = f"\n{_BEGIN}-{nonce}\n", f"\n{_END}-{nonce}\n"
    begin = output.find(begin_mark)
    end = output.find(end_mark, begin + 1)
    if begin < 0 or end < 0:
        return output, None
    listed = output[begin + len(begin_mark):end]
    return output[:begin] + output[end + len(end_mark):], [p for p in listed.split("\0") if p]


def _listing(artifacts: Path) -> list[str] | None:
    """identity/target/entry under a local `.build/artifacts` (None when absent)."""
    if not artifacts.is_dir():
        return None
    return [f"{a.name}/{b.name}/{c.name}" for a in artifacts.iterdir() if a.is_dir()
            for b in a.iterdir() if b.is_dir() for c in b.iterdir()]


def _swift_string(text: str) -> str:
    """A Swift string literal: JSON's escapes of `"` and `\\` are Swift's too (a URL, a ref
    name, a sha and a version hold no control character)."""
    return json.dumps(text, ensure_ascii=False)


#: The served copy's name: the package identity consumers see, unlike the consumer's own
#: (the toolchain wrapper runs it in a folder named `package`).
_SERVED = "swiftpm-guard-published.git"
#: The wrapper's opt-in and markers (scripts/swift-toolchain.sh, `bin/swift-net`).
_LIST_ENV = "SWIFTPM_GUARD_LIST_ARTIFACTS"
_BEGIN, _END = "swiftpm-guard-artifacts-begin", "swiftpm-guard-artifacts-end"
_SEMVER = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_CONSUMER = """\
// swift-tools-version:5.9
// A consumer written by swiftpm-guard: it depends on the published commit as an app does.
import PackageDescription

let package = Package(
  name: "swiftpm-guard-consumer",
  dependencies: [.package(url: {url}, {pin})],
  targets: []
)
"""


def _clone(repo: ScratchRepo, commit: str, branch: str, dest: Path) -> Path:
    """A consumer's clone: `git clone` of the branch as the scratch repository holds it, then
    a checkout of exactly that revision, as SwiftPM checks one out (git applies the tree's
    attributes then). The scratch repository's own refs live under refs/swiftpm-guard/."""
    repo.run(["update-ref", f"refs/heads/{branch}", commit])
    repo.run(["clone", "--quiet", "--template=", "--no-checkout", "--no-hardlinks", "--branch",
              branch, "--",
              str(repo.path), str(dest)])
    repo.run(["-C", str(dest), "checkout", "--quiet", "--detach", commit])
    return dest


def _compare(checkout: Path, manifests: Mapping[str, bytes], commit: str) -> list[Finding]:
    found = []
    for path, expected in manifests.items():
        try:
            got = read_bytes(checkout / path, display=path, max_bytes=MANIFEST_MAX_BYTES,
                             what="the cloned manifest", follow_symlinks=False)
        except InputError as error:
            found.append(_differs(path, f"{commit[:12]} cloned has no readable {path} "
                                        f"({error})"))
            continue
        if got != expected:
            found.append(_differs(path, f"{path} in a clone of {commit[:12]} is {len(got)} bytes "
                                        f"unlike the {len(expected)} checked"))
    return found


def _dump_all(checkout: Path, checked: Checked, swift: str, scratch: Path) -> list[Finding]:
    from swiftpm_guard.infra.swiftpm import SwiftPM, package_files

    runner = SwiftPM(swift, cache_dir=checked.cache_dir)
    found = []
    for index, (path, rendered) in enumerate(sorted(checked.rendered.items())):
        dumped = runner.dump(_only_manifest(checkout, path, scratch / str(index)))
        if dumped.returncode != 0:
            found.append(_differs(path, f"SwiftPM cannot evaluate the cloned {path}: "
                                        f"{dumped.stderr.strip()[-300:]}"))
            continue
        try:
            got = interpret(dumped, CommandResult(0, "", ""))
        except ValueError as error:
            raise InfrastructureError(f"{swift}: {error}") from None
        wanted = runner.evaluate(package_files(rendered)).evaluation  # the check's (cached)
        if _binaries(got.binary_targets) != _binaries(wanted.binary_targets):
            found.append(_differs(path, f"SwiftPM evaluates the cloned {path} to other binary "
                                        "targets or checksums than the check evaluated"))
    return found


def _binaries(targets: Sequence[EvaluatedTarget]) -> list[tuple[str, str | None, str | None]]:
    return sorted((t.name, t.url, t.checksum) for t in targets)


def _only_manifest(checkout: Path, path: str, dest: Path) -> Path:
    """The package folder of the checkout holding `path`, copied with `path` its only manifest
    (named Package.swift): each manifest some SwiftPM reads, evaluated on its own."""
    folder = checkout / posixpath.dirname(path)
    shutil.copytree(folder, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    for name in os.listdir(dest):
        if is_manifest_name(name):
            os.unlink(dest / name)
    shutil.copyfile(folder / posixpath.basename(path), dest / "Package.swift",
                    follow_symlinks=False)
    return dest


def _differs(path: str, why: str) -> Finding:
    return Finding(code="commit-proof", severity=Severity.ERROR, subject=path, file=path,
                   message=f"the commit built is not what was checked: {why}; nothing was "
                           "pushed (report this: publish built a commit unlike its check)")
