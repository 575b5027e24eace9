"""Templates whose products are computed, so the static reader cannot see their roles (issue 24).

Each `Layout` is our own small binary-package template in one shape the static reader misreads
or cannot read, with the stub folders it needs. `tests/support/swiftpm_dumps/<name>.json` holds
what the real SwiftPM (Swift 6.0.3, `scripts/swift-toolchain.sh`) printed for each, rendered with
the placeholders left in: `dump-package`'s stdout and `describe --type json`'s exit code and
stderr (its stdout, the package graph, is not kept). The unit tests read those records; the
swiftpm tier (`integration/test_swiftpm_roles.py`) checks they are still what SwiftPM prints and
rewrites them with `SWIFTPM_GUARD_RECORD_DUMPS=1`.

- `wrapper-stubs`: names in a `frameworks` dictionary (no role in the text), products over
  wrapper targets whose stub folders are named after the wrapper (`.Package.swift/alpha_wrapper`),
  binary-only names in a `support` dictionary. Without SwiftPM: `unknown-role` for every name and
  `orphan-stub` for every folder, so it blocks; SwiftPM evaluates every folder as a target's path.
- `direct-products`: the issue's `products.keys.map { .library(name: $0, targets: [$0]) }`, the
  products listing the binary targets themselves: no wrapper, no stub folder. The static reader
  takes `let products` for products with stubs and says `missing-stub`.
- `one-product`: one library product over every wrapper; the static reader counts one product
  per name in `let products`.
- `stale-entry`: the fixture's shape plus a dictionary nobody reads holding a placeholder: the
  static reader asks for `delta`, SwiftPM evaluates no binary target `delta` (a built `delta`
  would vanish: the static reader alone says consistent).
- `jinja`: a Jinja2 template computing products from `checksums` (every read name unknown-role).
- `jinja-filtered`: the same, skipping `legacy*` names while iterating over `checksums`: the
  iteration reads every name, so the static reading asks for `legacy` (and takes a built one
  for claimed) where SwiftPM evaluates no such target.
- `release-shape`: `support/release.py`'s real shape (`let products`/`let targets` dictionaries,
  wrappers at `.Package.swift/<key>`): the static reading and SwiftPM agree on everything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from support.release import all_names, template_text

VERSION = "1.0.0"
DUMPS = Path(__file__).resolve().parent / "swiftpm_dumps"
#: dump-package names the folder it ran in; the records hold this instead.
PACKAGE_ROOT = "/tmp/swiftpm-guard.recorded/package"

_HEADER = """\
// swift-tools-version:5.9
// Products computed from dictionaries: issue 24's shapes, written for swiftpm-guard's tests.
import PackageDescription

let version = "__VERSION__"
let url = "https://example.invalid/frameworks/"

func binary(_ name: String, _ checksum: String) -> Target {
  .binaryTarget(name: name, url: "\\(url)\\(name)-\\(version).zip", checksum: checksum)
}
"""

_WRAPPER_STUBS = _HEADER + """
let frameworks: [String: String] = [
  "alpha": "__SHA256_alpha__",
  "alpha_debug": "__SHA256_alpha_debug__",
  "beta": "__SHA256_beta__",
  "beta_debug": "__SHA256_beta_debug__",
]
let support: [String: String] = [
  "gamma": "__SHA256_gamma__",
  "gamma_debug": "__SHA256_gamma_debug__",
]

let package = Package(
  name: "computed",
  platforms: [.iOS(.v17), .macOS(.v12)],
  products: frameworks.keys.sorted().map { .library(name: $0, targets: ["\\($0)_wrapper"]) },
  targets: frameworks.keys.sorted().flatMap { name -> [Target] in [
    binary(name, frameworks[name]!),
    .target(name: "\\(name)_wrapper", dependencies: [.target(name: name)],
            path: ".Package.swift/\\(name)_wrapper"),
  ] } + support.keys.sorted().map { binary($0, support[$0]!) }
)
"""

_DIRECT_PRODUCTS = _HEADER + """
let products: [String: String] = [
  "alpha": "__SHA256_alpha__",
  "alpha_debug": "__SHA256_alpha_debug__",
  "beta": "__SHA256_beta__",
  "beta_debug": "__SHA256_beta_debug__",
]
let targets: [String: String] = [
  "gamma": "__SHA256_gamma__",
  "gamma_debug": "__SHA256_gamma_debug__",
]

let package = Package(
  name: "computed",
  platforms: [.iOS(.v17), .macOS(.v12)],
  products: products.keys.sorted().map { .library(name: $0, targets: [$0]) },
  targets: (products.keys.sorted() + targets.keys.sorted()).map { name in
    binary(name, products[name] ?? targets[name]!)
  }
)
"""

_ONE_PRODUCT = _HEADER + """
let products: [String: String] = [
  "alpha": "__SHA256_alpha__",
  "alpha_debug": "__SHA256_alpha_debug__",
  "beta": "__SHA256_beta__",
  "beta_debug": "__SHA256_beta_debug__",
]
let targets: [String: String] = [
  "gamma": "__SHA256_gamma__",
  "gamma_debug": "__SHA256_gamma_debug__",
]

let package = Package(
  name: "computed",
  platforms: [.iOS(.v17), .macOS(.v12)],
  products: [.library(name: "Computed", targets: products.keys.sorted().map { "\\($0)_wrapper" })],
  targets: products.keys.sorted().flatMap { name -> [Target] in [
    binary(name, products[name]!),
    .target(name: "\\(name)_wrapper", dependencies: [.target(name: name)],
            path: ".Package.swift/\\(name)"),
  ] } + targets.keys.sorted().map { binary($0, targets[$0]!) }
)
"""

_STALE_ENTRY = _HEADER + """
let products: [String: String] = [
  "alpha": "__SHA256_alpha__",
  "alpha_debug": "__SHA256_alpha_debug__",
]
// Left from an older release; nothing reads it.
let retired: [String: String] = [
  "delta": "__SHA256_delta__",
]

let package = Package(
  name: "computed",
  platforms: [.iOS(.v17), .macOS(.v12)],
  products: products.keys.sorted().map { .library(name: $0, targets: ["\\($0)_wrapper"]) },
  targets: products.keys.sorted().flatMap { name -> [Target] in [
    binary(name, products[name]!),
    .target(name: "\\(name)_wrapper", dependencies: [.target(name: name)],
            path: ".Package.swift/\\(name)"),
  ] }
)
"""

_JINJA = """\
// swift-tools-version:5.9
// A Jinja2 template computing products from every checksum it is given (issue 24).
import PackageDescription

let version = "{{ version }}"
let url = "https://example.invalid/frameworks/"
let frameworks: [String: String] = [
{%- for name, checksum in checksums|dictsort %}
  "{{ name }}": "{{ checksum }}",
{%- endfor %}
]

let package = Package(
  name: "computed",
  platforms: [.iOS(.v17), .macOS(.v12)],
  products: frameworks.keys.sorted().map { .library(name: $0, targets: [$0]) },
  targets: frameworks.keys.sorted().map { name in
    .binaryTarget(name: name, url: "\\(url)\\(name)-\\(version).zip",
                  checksum: frameworks[name]!)
  }
)
"""

_JINJA_FILTERED = _JINJA.replace(
    "{%- for name, checksum in checksums|dictsort %}",
    '{%- for name, checksum in checksums|dictsort if not name.startswith("legacy") %}',
).replace("// A Jinja2 template computing products from every checksum it is given (issue 24).",
          "// A Jinja2 template computing products from the checksums it keeps (issue 24).")

STUB = b"// Wrapper target stub: SwiftPM needs a source.\n"


@dataclass(frozen=True)
class Layout:
    name: str
    text: str
    stubs: tuple[str, ...]  # folders under .Package.swift/, one source file each
    frameworks: tuple[str, ...]  # base names a release builds (each means <name> and _debug)
    file: str = "Package.swift.template"


LAYOUTS = {
    layout.name: layout
    for layout in (
        Layout("wrapper-stubs", _WRAPPER_STUBS, ("alpha_wrapper", "alpha_debug_wrapper",
               "beta_wrapper", "beta_debug_wrapper"), ("alpha", "beta", "gamma")),
        Layout("direct-products", _DIRECT_PRODUCTS, (), ("alpha", "beta", "gamma")),
        Layout("one-product", _ONE_PRODUCT, ("alpha", "alpha_debug", "beta", "beta_debug"),
               ("alpha", "beta", "gamma")),
        Layout("stale-entry", _STALE_ENTRY, ("alpha", "alpha_debug"), ("alpha", "delta")),
        Layout("jinja", _JINJA, (), ("alpha", "beta"), file="Package.swift.j2"),
        Layout("jinja-filtered", _JINJA_FILTERED, (), ("alpha", "legacy"),
               file="Package.swift.j2"),
        Layout("release-shape", template_text(("alpha", "beta"), ("gamma",)),
               tuple(all_names(("alpha", "beta"))), ("alpha", "beta", "gamma")),
    )
}


def write_layout(root: Path, layout: Layout) -> Path:
    """The template and its stub folders under `root`; returns the template's path."""
    root.mkdir(parents=True, exist_ok=True)
    template = root / layout.file
    template.write_bytes(layout.text.encode())
    for name in layout.stubs:
        stub = root / ".Package.swift" / name
        stub.mkdir(parents=True, exist_ok=True)
        (stub / "dummy.swift").write_bytes(STUB)
    return template


def built_names(layout: Layout) -> list[str]:
    """Every name the layout's release builds (each framework and its debug twin)."""
    return [n for base in layout.frameworks for n in (base, f"{base}_debug")]


def record_path(layout: Layout) -> Path:
    return DUMPS / f"{layout.name}.json"


def load_record(layout: Layout) -> dict[str, dict[str, object]]:
    """{"dump": {returncode, stdout, stderr}, "describe": {…}} as recorded."""
    data = json.loads(record_path(layout).read_text(encoding="utf-8"))
    return {"dump": data["dump"], "describe": data["describe"]}


def normalised(dump_stdout: str) -> str:
    """dump-package's JSON with the folder it ran in replaced, re-indented the same way."""
    data = json.loads(dump_stdout)
    data["packageKind"] = {"root": [PACKAGE_ROOT]}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def record(layout: Layout, dump: dict[str, object], describe: dict[str, object],
           swift_version: str) -> dict[str, object]:
    stdout = dump["stdout"]
    assert isinstance(stdout, str)
    return {
        "layout": layout.name,
        "swift": swift_version,
        "dump": {**dump, "stdout": normalised(stdout) if dump["returncode"] == 0 else stdout},
        "describe": {**describe, "stdout": ""},  # the package graph: not read, not kept
    }



def capture(layout: Layout, swift: str, root: Path, cache: Path,
            swift_version: str = "") -> dict[str, object]:
    """What `swift` prints for the layout, as a record: run the way `check` runs SwiftPM, through
    its result cache in `cache` (so a check of the same layout in the session is a hit)."""
    from swiftpm_guard.core.model import Artifact, Location
    from swiftpm_guard.core.render import render
    from swiftpm_guard.infra.swiftpm import SwiftPM, package_files
    from swiftpm_guard.sources.template import load_template

    template, _ = load_template(write_layout(root, layout))
    built = {n: Artifact(n, None, Location("--frameworks")) for n in built_names(layout)}
    package = package_files(render(template, VERSION, built))
    runner = SwiftPM(swift, cache_dir=cache)
    runner.evaluate(package)
    stored = runner.cache.load(runner.cache.key(swift, package.digest()))
    assert stored is not None, f"no cache entry in {cache}"
    return record(layout, stored["dump"], stored["describe"], swift_version)


def swift_version(swift: str) -> str:
    import subprocess

    done = subprocess.run([swift, "--version"], capture_output=True, text=True, timeout=300,
                          check=False)
    lines = done.stdout.strip().splitlines()
    return lines[0] if lines else ""
