"""requirements.lock (what the image installs) covers what pyproject.toml asks for."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+) \\$")


def _locked() -> dict[str, tuple[str, int]]:
    """name → (version, number of hashes) from a pip-compile --generate-hashes file."""
    locked: dict[str, tuple[str, int]] = {}
    current = None
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        pin = PIN.match(line)
        if pin:
            current = canonicalize_name(pin.group(1))
            locked[current] = (pin.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = locked[current]
            locked[current] = (version, hashes + 1)
        elif not line.startswith(" "):
            current = None
    return locked


def _runtime_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + project["optional-dependencies"]["github"]
    return [Requirement(spec) for spec in specs]


def test_every_runtime_dependency_is_pinned_with_hashes_and_satisfies_pyproject():
    locked = _locked()
    assert locked, "requirements.lock holds no pins"
    for requirement in _runtime_requirements():
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is in pyproject.toml but not locked: run `make lock`"
        version, hashes = locked[name]
        assert hashes > 0, f"{name}=={version} has no --hash line"
        assert requirement.specifier.contains(version, prereleases=True), (
            f"locked {name}=={version} does not satisfy pyproject's {requirement}: `make lock`"
        )


def test_every_pin_has_a_hash():
    locked = _locked()
    assert locked, "requirements.lock: no pins read"
    assert all(hashes > 0 for _version, hashes in locked.values())
