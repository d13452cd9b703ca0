"""Make modules look not installed inside one interpreter (the import-budget tests).

:func:`install` puts a meta-path finder first on :data:`sys.meta_path` that raises
:class:`ModuleNotFoundError` for the blocked top-level packages (and records each attempt),
and makes :func:`importlib.util.find_spec` answer ``None`` for them, which is how libraries
such as ``datasets`` probe for optional packages.  Run it in a fresh subprocess: it changes
the interpreter for good.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Iterable


class ImportBlocker(importlib.abc.MetaPathFinder):
    """Meta-path finder that refuses every module under one of ``names``."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)
        self.attempts: list[str] = []  # import statements that reached a blocked module
        self.probes: list[str] = []  # importlib.util.find_spec calls that were told "absent"

    def blocked(self, fullname: str) -> bool:
        return fullname.split(".")[0] in self.names

    def find_spec(self, fullname, path=None, target=None):
        if self.blocked(fullname):
            self.attempts.append(fullname)
            raise ModuleNotFoundError(f"No module named {fullname!r} (blocked)", name=fullname)
        return None


def install(names: Iterable[str]) -> ImportBlocker:
    """Block ``names`` (top-level package names) from now on; returns the finder (its log)."""
    blocker = ImportBlocker(names)
    for mod in list(sys.modules):
        if blocker.blocked(mod):
            del sys.modules[mod]
    sys.meta_path.insert(0, blocker)
    original = importlib.util.find_spec

    def find_spec(name, package=None):
        if not name.startswith(".") and blocker.blocked(name):
            blocker.probes.append(name)
            return None
        return original(name, package)

    importlib.util.find_spec = find_spec
    return blocker
