"""causalarena: build, publish and score frozen benchmark suites for causal discovery.

Adjacency convention everywhere: ``A[i, j] = 1`` iff edge ``i -> j`` (row = parent, column =
child).  Entry points: :func:`build`, :func:`load`, :func:`sample`, :class:`SCMSpec`.
Attributes are imported lazily, so ``import causalarena`` stays cheap.
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("causalarena")
except PackageNotFoundError:  # pragma: no cover - source tree without install
    __version__ = "0.0.0"

_LAZY = {
    "AuditError": "causalarena.errors",
    "CausalArenaError": "causalarena.errors",
    "ReleaseError": "causalarena.errors",
    "SpecError": "causalarena.errors",
    "SCMSpec": "causalarena.spec",
    "Table": "causalarena.generator.sample",
    "sample": "causalarena.generator.sample",
    "build": "causalarena.release.engine",
    "evaluate": "causalarena.eval.evaluate",
    "Leaderboard": "causalarena.eval.evaluate",
    "iter_numpy": "causalarena.loaders.load",
    "stream": "causalarena.loaders.stream",
    "load": "causalarena.loaders.load",
    "to_numpy": "causalarena.loaders.load",
    "LabEnv": "causalarena.generator.lab.env",
    "find_episode": "causalarena.generator.lab.suites",
}

__all__ = sorted([*_LAZY, "__version__"])


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'causalarena' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
