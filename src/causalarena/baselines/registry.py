"""Registry of baseline causal-discovery methods.

Method modules register their :class:`~causalarena.baselines.base.Method` at
import time. Importing this module imports every method module; a method
module never imports its optional third-party library at import time, so the
registry always loads. Whether a method can actually run is decided lazily
by importing the modules listed in :attr:`Method.requires`.
"""

from __future__ import annotations

import importlib
import os
import warnings

from ._isolation import preserve_torch_dtype, quiet_root_logger
from .base import Method, MethodInfo

__all__ = [
    "METHOD_MODULES",
    "all_method_infos",
    "available_methods",
    "get_method",
    "install_command",
    "installed_reason",
    "missing_methods",
    "register",
    "registered",
]

_REGISTRY: dict[str, Method] = {}
_IMPORT_STATUS: dict[str, str | None] = {}  # module name -> None (ok) or error text

#: Submodules of :mod:`causalarena.baselines` that register methods.
METHOD_MODULES = (
    "regress",
    "causallearn_methods",
    "lingam_methods",
    "gies_method",
    "gcastle_methods",
    "dagma_methods",
    "causaldag_methods",
    "sdcd_method",
    "notears_mlp",
    "cdfm_method",
)


def register(method: Method) -> Method:
    """Add a method to the registry.

    Parameters
    ----------
    method : Method
        The method; its ``info.name`` is the registry key.

    Returns
    -------
    Method
        The same object (so modules can write ``PC = register(Method(...))``).

    Raises
    ------
    ValueError
        If a method with the same name is already registered.
    TypeError
        If ``method`` is not a :class:`Method`.
    """
    if not isinstance(method, Method):
        raise TypeError(f"expected a Method, got {type(method).__name__}")
    name = method.info.name
    if name in _REGISTRY:
        raise ValueError(f"a method named {name!r} is already registered")
    _REGISTRY[name] = method
    return method


def _unregister(name: str) -> None:
    """Remove a method (for tests)."""
    _REGISTRY.pop(name, None)


def _load_all() -> None:
    for mod in METHOD_MODULES:
        try:
            importlib.import_module(f"{__package__}.{mod}")
        except Exception as exc:  # pragma: no cover - a bug in a wrapper module
            warnings.warn(
                f"could not load baseline module {mod!r}: {exc!r}", RuntimeWarning, stacklevel=2
            )


PLUGIN_ENV = "CAUSALARENA_METHODS"


def plugin_modules() -> list[str]:
    """Modules named in ``$CAUSALARENA_METHODS`` (comma-separated) that register extra methods.

    This is how a user adds their own method (e.g. a pretrained model) to ``causalarena run``:
    a module that calls :func:`register` at import time.
    """
    return [m.strip() for m in os.environ.get(PLUGIN_ENV, "").split(",") if m.strip()]


def load_plugins(modules: list[str] | None = None) -> None:
    """Import plugin modules (default: :func:`plugin_modules`); each registers its methods.

    Raises
    ------
    ImportError
        If a plugin module cannot be imported (names the module).
    """
    for mod in plugin_modules() if modules is None else modules:
        try:
            importlib.import_module(mod)
        except ImportError as exc:
            raise ImportError(
                f"plugin module {mod!r} from ${PLUGIN_ENV} failed to import: {exc}"
            ) from None


def install_command(info: MethodInfo, hint: str | None = None) -> str:
    """Shell command that installs the optional dependency of a method."""
    if hint:
        return hint
    if info.extra:
        return f"pip install 'causalarena[{info.extra}]'"
    if info.library:
        return f"pip install {info.library}"
    return "pip install causalarena"


def _module_status(module: str) -> str | None:
    if module not in _IMPORT_STATUS:
        try:
            # some optional libraries change torch's default dtype or the root logger at import
            with warnings.catch_warnings(), preserve_torch_dtype(), quiet_root_logger():
                warnings.simplefilter("ignore")  # e.g. deprecation noise from pgmpy
                importlib.import_module(module)
            _IMPORT_STATUS[module] = None
        except Exception as exc:  # ImportError, or a broken install raising anything
            _IMPORT_STATUS[module] = f"{type(exc).__name__}: {exc}"
    return _IMPORT_STATUS[module]


def _missing_reason(method: Method) -> str | None:
    for module in method.requires:
        err = _module_status(module)
        if err is not None:
            return (
                f"optional dependency {module!r} ({method.info.library}) is not importable "
                f"({err}); install it with: {install_command(method.info, method.install_hint)}"
            )
    return None


def get_method(name: str) -> Method:
    """Return a registered method whose dependencies are importable.

    Raises
    ------
    KeyError
        If no method has this name; the message lists the known names.
    ImportError
        If the method exists but its optional dependency is missing; the
        message contains the ``pip install`` command.
    """
    _load_all()
    if name not in _REGISTRY:
        raise KeyError(f"unknown method {name!r}; known methods: {', '.join(sorted(_REGISTRY))}")
    method = _REGISTRY[name]
    reason = _missing_reason(method)
    if reason is not None:
        raise ImportError(f"method {name!r} cannot run: {reason}")
    return method


def registered(name: str) -> Method:
    """The registered method ``name``, whether or not its optional dependency imports.

    Raises
    ------
    KeyError
        If no method has this name.
    """
    _load_all()
    if name not in _REGISTRY:
        raise KeyError(f"unknown method {name!r}; known methods: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def installed_reason(method: Method) -> str | None:
    """Why ``method`` cannot run, judged without importing anything (``None``: installed).

    Looks for the top-level package of each module in :attr:`Method.requires`; a package that
    is installed but fails to import is only found out by :func:`get_method`.
    """
    import importlib.util

    for module in method.requires:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            return (
                f"optional dependency {module} ({method.info.library}) is not installed; "
                f"install it with: {install_command(method.info, method.install_hint)}"
            )
    return None


def available_methods() -> dict[str, Method]:
    """Methods whose dependencies import now, by name (sorted)."""
    _load_all()
    return {k: m for k, m in sorted(_REGISTRY.items()) if _missing_reason(m) is None}


def missing_methods() -> dict[str, str]:
    """Registered methods that cannot run, mapped to the reason. Never raises."""
    try:
        _load_all()
        out = {}
        for k, m in sorted(_REGISTRY.items()):
            try:
                reason = _missing_reason(m)
            except Exception as exc:  # pragma: no cover - defensive
                reason = f"availability check failed: {exc!r}"
            if reason is not None:
                out[k] = reason
        return out
    except Exception as exc:  # pragma: no cover - defensive
        return {"<registry>": f"registry failed to load: {exc!r}"}


def all_method_infos() -> dict[str, MethodInfo]:
    """Info records of every registered method, importable or not (sorted by name)."""
    _load_all()
    return {k: m.info for k, m in sorted(_REGISTRY.items())}
