"""DAGMA (linear) and DAGMA-MLP through the ``dagma`` package (both return a DAG).

``dagma`` returns a weight matrix ``W`` with ``W[i, j]`` the weight of
``i -> j`` (package convention; checked on a chain in the test suite). For
DAGMA-MLP ``W[i, j]`` is the L2 norm of the first-layer weights from input
``i`` to the network of ``j``. Both are thresholded at 0.3 (paper B.4); edge
scores are the unthresholded ``|W|``.  A cycle left after thresholding is broken at its
weakest edge (:func:`causalarena.baselines.acyclic.make_acyclic`, ``notes["dag_repair"]``).

DAGMA-MLP is capped: ``warm_iter = 3000`` and ``max_iter = 6000`` Adam steps
per outer iteration instead of the library's 50000/80000, so a fit at
d = 10, n = 1000 takes roughly 10-25 s on 2 CPU cores; other settings are
the library defaults (hidden layer of 10 units, lambda1 = 0.02,
lambda2 = 0.005, T = 4). DAGMA-MLP initialises its network from the global
torch generator, so the wrapper seeds torch inside the call (and restores the
caller's state afterwards). DAGMA linear starts from zero and is
deterministic.

Install with ``pip install 'causalarena[baselines-torch]'``.
"""

from __future__ import annotations

import numpy as np

from ._isolation import keeps_torch_dtype, quiet_tqdm, seeded_global_rng
from .acyclic import make_acyclic
from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["DAGMA_LINEAR", "DAGMA_MLP"]


@keeps_torch_dtype
def _dagma_linear_core(X, mask, seed, params):
    import dagma.linear
    from dagma.linear import DagmaLinear

    model = DagmaLinear(loss_type=params["loss_type"], verbose=False)
    with quiet_tqdm(dagma.linear):
        model.fit(
            X,
            lambda1=params["lambda1"],
            w_threshold=params["w_threshold"],
            T=params["T"],
            warm_iter=int(params["warm_iter"]),
            max_iter=int(params["max_iter"]),
        )
    W = np.abs(np.asarray(model.W_est, dtype=np.float64))
    A, notes = make_acyclic(W > params["w_threshold"], W)
    return A, W, notes


@keeps_torch_dtype
def _dagma_mlp_core(X, mask, seed, params):
    import dagma.nonlinear
    import torch
    from dagma.nonlinear import DagmaMLP, DagmaNonlinear

    d = X.shape[1]
    with seeded_global_rng(seed), quiet_tqdm(dagma.nonlinear):
        eq_model = DagmaMLP(dims=[d, int(params["hidden"]), 1], bias=True, dtype=torch.double)
        model = DagmaNonlinear(eq_model, dtype=torch.double, verbose=False)
        W = model.fit(
            X,
            lambda1=params["lambda1"],
            lambda2=params["lambda2"],
            T=params["T"],
            warm_iter=int(params["warm_iter"]),
            max_iter=int(params["max_iter"]),
            w_threshold=0.0,  # threshold below, keep the raw weights as scores
        )
    W = np.abs(np.asarray(W, dtype=np.float64))
    A, notes = make_acyclic(W > params["w_threshold"], W)
    return A, W, notes


_DAGMA_LINEAR_INFO = MethodInfo(
    name="dagma-linear",
    display_name="DAGMA",
    family="continuous",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="dagma",
    extra="baselines-torch",
    # paper B.4: default optimisation settings, weight threshold 0.3 (library defaults)
    defaults={
        "loss_type": "l2",
        "lambda1": 0.03,
        "w_threshold": 0.3,
        "T": 5,
        "warm_iter": 30000,
        "max_iter": 60000,
    },
    reference="Bello, Aragam & Ravikumar, 'DAGMA: Learning DAGs via M-matrices and a "
    "Log-Determinant Acyclicity Characterization', NeurIPS 2022",
)
_DAGMA_MLP_INFO = MethodInfo(
    name="dagma-mlp",
    display_name="DAGMA-MLP",
    family="continuous",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="dagma",
    extra="baselines-torch",
    # library defaults except the iteration cap (warm_iter/max_iter; see module docstring)
    defaults={
        "hidden": 10,
        "lambda1": 0.02,
        "lambda2": 0.005,
        "T": 4,
        "warm_iter": 3000,
        "max_iter": 6000,
        "w_threshold": 0.3,
    },
    reference="Bello, Aragam & Ravikumar, 'DAGMA: Learning DAGs via M-matrices and a "
    "Log-Determinant Acyclicity Characterization', NeurIPS 2022",
)

DAGMA_LINEAR = register(
    Method(
        info=_DAGMA_LINEAR_INFO,
        fit=make_fit(_DAGMA_LINEAR_INFO, _dagma_linear_core),
        requires=("dagma.linear",),
    )
)
DAGMA_MLP = register(
    Method(
        info=_DAGMA_MLP_INFO,
        fit=make_fit(_DAGMA_MLP_INFO, _dagma_mlp_core),
        requires=("torch", "dagma.nonlinear"),
    )
)
