"""ExecuTorch's release lines as the documented examples meet them (issue 33, 2).

The Apple workflow on `main` and `release/1.0` is `docs/examples/executorch-upload-frameworks-ios.yml`
itself, so its build job keeps ExecuTorch's `VERSION="${{ needs.set-version.outputs.version }}"`
in the reusable workflow's script; `release/0.7` is the same file with 0.7's own list (it no
longer publishes); `release/0.6` an older file whose script the reader cannot take as it is
(an expression no example vouches for). `swiftpm` holds the shared template (its binary
targets' URL base is `base_url`, a loopback server in the tests), `template/0.7` the 0.7 line's
own (docs/adopting.md, "A release line with its own template"); `swiftpm-1.0.0` is published.

`guard_steps` reads each example's swiftpm-guard steps: the inputs a test passes are the
example's `with:`, expressions replaced by the values a run would give them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from support.actions_env import WORKFLOW, commit_all, git
from support.release import write_template_branch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
UPLOAD = EXAMPLES / "executorch-upload-frameworks-ios.yml"
EXPRESSION = "needs.set-version.outputs.version"
#: FRAMEWORKS on main and release/1.0 (the example's own list), and on release/0.7.
FRAMEWORKS = ("executorch", "executorch_llm", "backend_coreml", "backend_mps", "backend_xnnpack",
              "kernels_llm", "kernels_optimized", "kernels_quantized", "kernels_torchao",
              "threadpool")
FRAMEWORKS_07 = ("executorch", "backend_coreml", "backend_mps", "backend_xnnpack",
                 "kernels_custom", "kernels_optimized", "kernels_quantized", "threadpool")
_TEMPLATE_URL = "https://example.invalid/frameworks/"


def _with_list(workflow: str, names: tuple[str, ...]) -> str:
    """The example's workflow with another FRAMEWORKS list, indented as it is."""
    listed = re.search(r"( *)FRAMEWORKS=\(\n(.*?)\n *\)", workflow, re.DOTALL)
    assert listed is not None, "the example has no FRAMEWORKS array"
    indent = listed[1] + "  "
    entries = "\n".join(f'{indent}"{name}"' for name in names)
    return workflow[:listed.start(2)] + entries + workflow[listed.end(2):]


def _template(folder: Path, names: tuple[str, ...], base_url: str) -> None:
    products = [n for n in names if n != "threadpool"]
    path = write_template_branch(folder, products, ["threadpool"])
    path.write_text(path.read_text().replace(_TEMPLATE_URL, base_url))


@dataclass
class Lines:
    bare: Path
    main: str
    release_10: str
    swiftpm: str
    template_07: str
    published_100: str


def make_lines(root: Path, base_url: str) -> Lines:
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q")
    (seed / "README.md").write_text("# executorch\n")
    workflow = UPLOAD.read_text()
    (seed / WORKFLOW).parent.mkdir(parents=True)
    (seed / WORKFLOW).write_text(workflow.replace(
        'VERSION="${{ needs.set-version.outputs.version }}"',
        'VERSION="${{ needs.set-version.outputs.version }}-${{ inputs.flavor }}"'))
    commit_all(seed, "apple.yml as 0.6 shipped")
    git(seed, "branch", "release/0.6")
    (seed / WORKFLOW).write_text(_with_list(workflow, FRAMEWORKS_07))
    commit_all(seed, "apple.yml as 0.7 shipped")
    git(seed, "branch", "release/0.7")
    (seed / WORKFLOW).write_text(workflow)
    release_10 = commit_all(seed, "apple.yml as 1.0 shipped")
    git(seed, "branch", "release/1.0")
    (seed / "version.txt").write_text("1.2.0\n")
    main = commit_all(seed, "1.2.0 in development")

    git(seed, "checkout", "-q", "--orphan", "swiftpm")
    git(seed, "rm", "-rqf", ".")
    _template(seed, FRAMEWORKS, base_url)
    swiftpm = commit_all(seed, "Swift package template (#4242)")
    git(seed, "checkout", "-q", "-b", "swiftpm-1.0.0")
    (seed / "Package.swift.template").rename(seed / "Package.swift")
    published = commit_all(seed, "1.0.0")
    git(seed, "checkout", "-q", "--orphan", "template/0.7")
    git(seed, "rm", "-rqf", ".")
    _template(seed, FRAMEWORKS_07, base_url)
    template_07 = commit_all(seed, "the 0.7 line's own template")
    git(seed, "checkout", "-q", "main")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(seed), str(bare))
    return Lines(bare, main, release_10, swiftpm, template_07, published)


def guard_steps(example: Path, values: dict[str, str]) -> list[dict[str, str]]:
    """Each swiftpm-guard step's `with:` of the example, in order, as the runner passes it:
    every `${{ … }}` replaced from `values` (one that `values` lacks fails the test, so an
    example cannot grow an input this test does not give a value)."""
    workflow = yaml.safe_load(example.read_text())
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])
             if "swiftpm-guard" in step.get("uses", "")]

    def value(item: object) -> str:
        text = str(item).lower() if isinstance(item, bool) else str(item)

        def known(match: re.Match[str]) -> str:
            expression = match[1].strip()
            assert expression in values, f"{example.name}: no test value for {expression}"
            return values[expression]

        return re.sub(r"\$\{\{(.*?)\}\}", known, text)

    return [{name: value(item) for name, item in step.get("with", {}).items()}
            for step in steps]
