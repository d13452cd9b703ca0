"""Baseline causal-discovery methods behind one wrapper interface.

Use :func:`get_method` to obtain a :class:`Method` and call
``method.fit(X, mask=None, seed=0, **overrides)``; the result's adjacency
follows the package convention ``A[i, j] = 1`` iff ``i -> j`` (CPDAG
undirected edges are symmetric pairs). Third-party libraries are optional
extras (``baselines``, ``baselines-torch``, ``causaldag``, ``sdcd``);
:func:`missing_methods` reports what cannot run and why.
"""

from .base import (
    Method,
    MethodInfo,
    MethodResult,
    drop_constant_columns,
    environments,
    expand,
)
from .registry import (
    all_method_infos,
    available_methods,
    get_method,
    missing_methods,
    register,
)

__all__ = [
    "Method",
    "MethodInfo",
    "MethodResult",
    "all_method_infos",
    "available_methods",
    "drop_constant_columns",
    "environments",
    "expand",
    "get_method",
    "missing_methods",
    "register",
]
