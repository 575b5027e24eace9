"""A tree-sitter grammar's language, loaded from the grammar's compiled binding alone.

The grammar packages' `__init__` (tree-sitter-bash's, for one) imports `importlib.resources`,
and through it tempfile, shutil, bz2, lzma and random, for a highlighting query we never read:
~4 ms of every check that parses a workflow, spent on the path the check waits for. The
binding is the same file `import tree_sitter_bash` would load; when a package is laid out some
other way, it is imported the usual way instead.
"""

from __future__ import annotations

import importlib
import os
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder
from typing import Any


def language(package: str) -> object:
    """`<package>.language()`: the grammar's language pointer for `tree_sitter.Language`."""
    try:
        return _binding(package).language()
    except (ImportError, OSError, AttributeError, StopIteration):
        return importlib.import_module(package).language()


def _binding(package: str) -> Any:
    spec = PathFinder.find_spec(package)  # finds the package; does not run its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"no package {package}")
    folder = next(iter(spec.submodule_search_locations))
    name = next(n for n in sorted(os.listdir(folder))
                if n.startswith("_binding.") and n.endswith(tuple(EXTENSION_SUFFIXES)))
    path = os.path.join(folder, name)
    loader = ExtensionFileLoader(f"{package}._binding", path)
    module = loader.create_module(ModuleSpec(f"{package}._binding", loader, origin=path))
    if module is None:
        raise ImportError(f"{path} is not an extension module")
    loader.exec_module(module)
    return module
