"""NOTEARS-MLP (nonlinear NOTEARS) through ``gcastle``'s ``NotearsNonlinear`` (a DAG).

Settings of paper appendix B.4: one hidden layer of 10 units per variable (``hidden_layers =
(10, 1)``), ``lambda1 = lambda2 = 0.01``, 100 dual-ascent iterations, fixed adjacency
threshold 0.3.  gcastle's ``W[i, j]`` is the L2 norm of the first-layer weights from input
``i`` into the network of variable ``j``, i.e. the strength of ``i -> j`` (the package
convention; checked on a nonlinear chain in the test suite).  The thresholded graph is made
acyclic by removing the weakest edge of each remaining cycle
(:func:`causalarena.baselines.acyclic.make_acyclic`, recorded in ``notes["dag_repair"]``);
edge scores are ``W`` before thresholding.

The MLP's initial weights come from torch's global generator, which is seeded with the
instance seed for the call and restored afterwards, so a run is reproducible.  Extra:
``pip install 'causalarena[baselines-torch]'``.
"""

from __future__ import annotations

import numpy as np

from ._isolation import keeps_torch_dtype, quiet_root_logger, seeded_global_rng
from .acyclic import make_acyclic
from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["NOTEARS_MLP"]


@keeps_torch_dtype
def _core(X, mask, seed, params):
    import torch

    with seeded_global_rng(seed), quiet_root_logger():
        from castle.algorithms import NotearsNonlinear

        # gcastle's MLP expects float64 parameters: its module sets the default dtype at
        # import only; set it for this call (restored on exit by keeps_torch_dtype)
        torch.set_default_dtype(torch.float64)

        model = NotearsNonlinear(
            lambda1=params["lambda1"],
            lambda2=params["lambda2"],
            max_iter=int(params["max_iter"]),
            h_tol=params["h_tol"],
            rho_max=params["rho_max"],
            w_threshold=params["w_threshold"],
            hidden_layers=tuple(params["hidden_layers"]),
            model_type="mlp",
            device_type="cpu",
        )
        model.learn(np.ascontiguousarray(X, dtype=np.float64))
    W = np.abs(np.asarray(model.weight_causal_matrix, dtype=np.float64))
    np.fill_diagonal(W, 0.0)
    A, notes = make_acyclic(np.asarray(model.causal_matrix) != 0, W)
    return A, W, notes


_INFO = MethodInfo(
    name="notears-mlp",
    display_name="NOTEARS-MLP",
    family="continuous",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="gcastle",
    extra="baselines-torch",
    # paper B.4: hidden size 10, lambda1 = lambda2 = 0.01, max iteration 100, threshold 0.3
    defaults={
        "lambda1": 0.01,
        "lambda2": 0.01,
        "max_iter": 100,
        "h_tol": 1e-8,
        "rho_max": 1e16,
        "w_threshold": 0.3,
        "hidden_layers": [10, 1],
    },
    reference="Zheng, Dan, Aragam, Ravikumar & Xing, 'Learning Sparse Nonparametric DAGs', "
    "AISTATS 2020",
)

NOTEARS_MLP = register(
    Method(info=_INFO, fit=make_fit(_INFO, _core), requires=("torch", "castle.algorithms"))
)
