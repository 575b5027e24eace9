"""Every public exception of the package is defined in `errors.py`, the one hierarchy a reader
looks in (a private `_Signal` may stay beside the code that raises and catches it)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import swiftpm_guard


def public_exceptions_outside_errors() -> tuple[int, list[str]]:
    """How many modules were looked at, and the public exceptions found outside errors.py."""
    found, looked = [], 0
    for info in pkgutil.walk_packages(swiftpm_guard.__path__, "swiftpm_guard."):
        if info.name.endswith(".__main__"):
            continue  # runs the command line when imported
        module = importlib.import_module(info.name)
        looked += 1
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == info.name and not name.startswith("_")
                    and info.name != "swiftpm_guard.errors"):
                found.append(f"{info.name}.{name}")
    return looked, found


def test_every_public_exception_is_in_errors_py():
    looked, found = public_exceptions_outside_errors()
    assert looked > 50 and found == []

