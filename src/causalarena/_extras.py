"""Optional dependencies: which extra installs which module, and the one-line error.

The core install (``pip install causalarena``) loads, streams and scores releases.  Building,
plots, temporal Zarr stores, baselines and dask.distributed are extras (``pyproject.toml``,
issue 15 section 2).  Every lazy import of an extra's module goes through :func:`require`, so a
missing extra is reported in one line that names the extra to install::

    causalarena build needs the 'build' extra (sympy is not installed): pip install 'causalarena[build]'

From the CLI this line is printed with exit code 2 (:class:`MissingExtraError` is a
:class:`~causalarena.errors.CausalArenaError`); from Python it is an :class:`ImportError`
subclass, so ``except ImportError`` keeps working.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from causalarena.errors import CausalArenaError

#: Top-level modules of each extra that the package imports (the import-budget test blocks
#: exactly these to check that the core works without them).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "build": (
        "sympy",
        "pint",
        "mlcroissant",
        "jsonschema",
        "zarr",
        "xarray",
        "pooch",
        "requests",
    ),
    "plots": ("matplotlib",),
    "temporal": ("zarr", "xarray"),
    "baselines": ("sklearn", "causallearn", "lingam", "gies"),
    "distributed": ("distributed",),
}


class MissingExtraError(CausalArenaError, ImportError):
    """A feature needs an optional extra that is not installed.

    Parameters
    ----------
    feature : str
        What needs it, as the start of a sentence (``"causalarena build"``,
        ``"the report figures"``).
    extra : str
        Name of the extra of ``causalarena`` that installs ``module``.
    module : str
        The top-level module that is missing (the one named by the :class:`ImportError`, which
        may be a dependency of the module asked for).
    """

    def __init__(self, feature: str, extra: str, module: str) -> None:
        self.feature, self.extra, self.module = feature, extra, module
        super().__init__(
            f"{feature} needs the '{extra}' extra ({module} is not installed): "
            f"pip install 'causalarena[{extra}]'",
            name=module,
        )


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` (dotted names allowed) or raise :class:`MissingExtraError`.

    Parameters
    ----------
    module : str
        Module to import, e.g. ``"sympy"`` or ``"matplotlib.figure"``.
    extra : str
        Extra that installs it (a key of :data:`EXTRA_MODULES`).
    feature : str
        What needs it, for the message (see :class:`MissingExtraError`).

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    MissingExtraError
        If the module (or a module it needs) cannot be imported.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = (exc.name or module).split(".")[0]
        raise MissingExtraError(feature, extra, missing) from None


def check_extra(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtraError` unless every module of ``extra`` is installed.

    Cheap (``importlib.util.find_spec``, nothing is imported), so long jobs call it before
    starting instead of failing at the end (a build writes ``croissant.json`` last).

    Raises
    ------
    MissingExtraError
        Naming the first module of :data:`EXTRA_MODULES` ``[extra]`` that is not installed.
    KeyError
        If ``extra`` is not a key of :data:`EXTRA_MODULES`.
    """
    import importlib.util

    for module in EXTRA_MODULES[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtraError(feature, extra, module)
