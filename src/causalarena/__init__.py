"""causalarena: build, publish and score frozen benchmark suites for causal discovery.

Adjacency convention everywhere: ``A[i, j] = 1`` iff edge ``i -> j`` (row = parent, column =
child).  Entry points: :func:`build`, :func:`load`, :func:`sample`, :class:`SCMSpec`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("causalarena")
except PackageNotFoundError:  # pragma: no cover - source tree without install
    __version__ = "0.0.0"

from causalarena.errors import AuditError, CausalArenaError, ReleaseError, SpecError
from causalarena.generator.sample import Table, sample
from causalarena.loaders import iter_numpy, load, to_numpy
from causalarena.release.build import build
from causalarena.spec import SCMSpec

__all__ = [
    "AuditError",
    "CausalArenaError",
    "ReleaseError",
    "SCMSpec",
    "SpecError",
    "Table",
    "__version__",
    "build",
    "iter_numpy",
    "load",
    "sample",
    "to_numpy",
]
