"""SDCD (stable differentiable causal discovery) through the ``sdcd`` package.

SDCD consumes the intervention mask natively: every row carries a 0/1
vector (0 = this variable was intervened on, so its likelihood term is
dropped) and its number of targets. The wrapper builds that dataset from
``mask``; without a mask all rows are observational.

Settings are the library's two-stage defaults (stage 1: 2000 epochs,
lr 2e-3, alpha 1e-2, beta 2e-4, mask threshold 0.2; stage 2: 2000 epochs,
lr 1e-3, alpha 5e-4, beta 5e-3, gamma increment 0.005) with the output
threshold 0.1 (paper B.4). ``get_adjacency_matrix`` adds edges in order of
decreasing weight while skipping edges that would close a cycle, so the
output is a DAG; ``W[i, j]`` is the weight of ``i -> j`` (package
convention). Edge scores are the unthresholded weights.

Seeding: ``SDCD.train`` always calls ``set_random_seed_all(0)`` itself, so
the result does not depend on ``seed``; the wrapper still runs it inside
:func:`~causalarena.baselines._isolation.seeded_global_rng` so the caller's
global random state is restored. Weights & Biases logging is off
(``log_wandb=False`` and ``WANDB_MODE=disabled`` during the call).

Installation: ``sdcd``'s metadata pins numba < 0.60, pandas < 2 and wandb < 0.16,
which conflict with current numpy; install it without dependencies next to
its real runtime needs: ``pip install --no-deps sdcd`` then
``pip install 'causalarena[sdcd]'`` (torch, numba, wandb).
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings

import numpy as np

from ._isolation import keeps_torch_dtype, seeded_global_rng
from .acyclic import make_acyclic
from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["SDCD"]


@keeps_torch_dtype
def _sdcd_core(X, mask, seed, params):
    previous = os.environ.get("WANDB_MODE")
    os.environ["WANDB_MODE"] = "disabled"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import torch
            from sdcd.models import SDCD as _SDCD

        n, d = X.shape
        m = np.zeros((n, d), dtype=bool) if mask is None else mask
        dataset = torch.utils.data.TensorDataset(
            torch.as_tensor(X, dtype=torch.float32),
            torch.as_tensor((~m).astype(np.int64)),
            torch.as_tensor(m.sum(axis=1).astype(np.int64)),
        )
        stage1 = {"n_epochs": int(params["stage1_epochs"])}
        stage2 = {"n_epochs": int(params["stage2_epochs"]), "threshold": params["threshold"]}
        with (
            seeded_global_rng(seed),
            warnings.catch_warnings(),
            contextlib.redirect_stdout(io.StringIO()),  # SDCD prints per-epoch progress
        ):
            warnings.simplefilter("ignore")
            torch.set_default_dtype(torch.float32)  # SDCD expects float32 (restored on exit)
            model = _SDCD()
            model.train(
                dataset,
                log_wandb=False,
                stage1_kwargs=stage1,
                stage2_kwargs=stage2,
                verbose=False,
                device=torch.device("cpu"),
            )
            W = np.abs(np.asarray(model.get_adjacency_matrix(threshold=False), dtype=np.float64))
            A = np.asarray(model.get_adjacency_matrix(threshold=params["threshold"]))
    finally:
        if previous is None:
            os.environ.pop("WANDB_MODE", None)
        else:
            os.environ["WANDB_MODE"] = previous
    A, notes = make_acyclic(A != 0, W)
    return A, W, {"library_seed": 0, **notes}


_INFO = MethodInfo(
    name="sdcd",
    display_name="SDCD",
    family="continuous",
    supports_interventions=True,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="sdcd",
    extra="sdcd",
    defaults={"stage1_epochs": 2000, "stage2_epochs": 2000, "threshold": 0.1},
    reference="Nazaret, Hong, Azizi & Blei, 'Stable Differentiable Causal Discovery', ICML 2024",
)

SDCD = register(
    Method(
        info=_INFO,
        fit=make_fit(_INFO, _sdcd_core),
        requires=("torch", "numba", "sdcd"),
        install_hint="pip install 'causalarena[sdcd]' && pip install --no-deps sdcd",
    )
)
