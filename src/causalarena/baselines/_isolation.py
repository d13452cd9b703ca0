"""Isolation of global random state for libraries that only offer global seeding.

Some wrapped libraries (gcastle's GOLEM, DAGMA-MLP, SDCD, causaldag) draw their
random initialisation from the global ``random``/``numpy.random``/``torch``
generators, or change other torch-global settings.
:func:`seeded_global_rng` seeds them inside a ``with`` block and restores the
previous state afterwards, so a wrapper call is deterministic given its seed
and leaves the caller's global random state untouched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import sys
from collections.abc import Iterator

import numpy as np

__all__ = [
    "keeps_torch_dtype",
    "preserve_torch_dtype",
    "quiet_root_logger",
    "quiet_tqdm",
    "seeded_global_rng",
]


@contextlib.contextmanager
def seeded_global_rng(seed: int, *, torch: bool = True) -> Iterator[None]:
    """Seed ``random``, ``numpy.random`` (and ``torch``) for the duration of a block.

    Parameters
    ----------
    seed : int
        Seed used for all global generators inside the block.
    torch : bool, default True
        Also fork and seed the torch CPU generator and restore torch's default
        dtype on exit (DAGMA-MLP calls ``torch.set_default_dtype(torch.double)``,
        which would otherwise leak into later torch code such as SDCD).
    """
    py_state = random.getstate()
    np_state = np.random.get_state()  # noqa: NPY002 (global RNG on purpose)
    hashseed = os.environ.get("PYTHONHASHSEED")
    with contextlib.ExitStack() as stack:
        if torch:
            import torch as _torch

            stack.callback(_torch.set_default_dtype, _torch.get_default_dtype())
            stack.enter_context(_torch.random.fork_rng(devices=[]))
            _torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed % (2**32))  # noqa: NPY002 (global RNG on purpose)
        try:
            yield
        finally:
            random.setstate(py_state)
            np.random.set_state(np_state)  # noqa: NPY002 (global RNG on purpose)
            if hashseed is None:
                os.environ.pop("PYTHONHASHSEED", None)
            else:
                os.environ["PYTHONHASHSEED"] = hashseed


@contextlib.contextmanager
def quiet_tqdm(*modules) -> Iterator[None]:
    """Replace ``module.tqdm`` by a disabled progress bar inside a block."""
    import functools

    saved = []
    for mod in modules:
        if hasattr(mod, "tqdm"):
            saved.append((mod, mod.tqdm))
            mod.tqdm = functools.partial(mod.tqdm, disable=True)
    try:
        yield
    finally:
        for mod, original in saved:
            mod.tqdm = original


@contextlib.contextmanager
def quiet_root_logger(level: int = logging.WARNING) -> Iterator[None]:
    """Hold the root logger at ``level`` inside a block and undo library changes.

    gcastle calls ``logging.basicConfig(level=INFO)`` when imported and logs every
    iteration at INFO; on exit the root logger's level and handlers are restored
    to what they were before the block.
    """
    root = logging.getLogger()
    previous_level, previous_handlers = root.level, list(root.handlers)
    root.setLevel(max(level, previous_level))
    root.addHandler(logging.NullHandler())  # makes a library's logging.basicConfig a no-op
    try:
        yield
    finally:
        root.setLevel(previous_level)
        root.handlers[:] = previous_handlers


@contextlib.contextmanager
def preserve_torch_dtype() -> Iterator[None]:
    """Restore torch's default dtype on exit, even if torch is first imported inside.

    Importing ``castle.algorithms`` (and DAGMA-MLP / SDCD at fit time) calls
    ``torch.set_default_dtype(torch.double)``; this guard keeps that change from
    leaking into the caller (torch's own default is ``float32``).
    """
    loaded = sys.modules.get("torch")  # None also when blocked (sys.modules["torch"] = None)
    before = loaded.get_default_dtype() if loaded is not None else None
    try:
        yield
    finally:
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_default_dtype(before if before is not None else torch.float32)


def keeps_torch_dtype(fn):
    """Decorator: run ``fn`` inside :func:`preserve_torch_dtype`."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with preserve_torch_dtype():
            return fn(*args, **kwargs)

    return wrapper
