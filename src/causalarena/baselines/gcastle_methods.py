"""NOTEARS (linear) and GOLEM through ``gcastle`` (both return a DAG).

gcastle's weight matrices follow the package convention (``W[i, j]`` is the
weight of ``i -> j``, as in the original NOTEARS/GOLEM code; checked on a
chain in the test suite). The adjacency is the library's thresholded
``causal_matrix``, made acyclic by removing the weakest edge of each remaining cycle
(:func:`causalarena.baselines.acyclic.make_acyclic`, recorded in ``notes["dag_repair"]``);
edge scores are ``|W|`` before thresholding.

``castle.algorithms`` needs torch at import time (even for linear NOTEARS),
so both methods live in the ``baselines-torch`` extra:
``pip install 'causalarena[baselines-torch]'``.

Importing ``castle`` configures the root logger at INFO level (a side effect
of the library); it is only imported inside ``fit``, and the root logger is
held at WARNING during the call so the per-iteration INFO lines are hidden.
"""

from __future__ import annotations

import numpy as np

from ._isolation import keeps_torch_dtype, quiet_root_logger, seeded_global_rng
from .acyclic import make_acyclic
from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["GOLEM", "NOTEARS"]


def _weights(model) -> np.ndarray:
    return np.asarray(model.weight_causal_matrix, dtype=np.float64)


@keeps_torch_dtype
def _notears_core(X, mask, seed, params):
    with quiet_root_logger():
        from castle.algorithms import Notears

        model = Notears(
            lambda1=params["lambda1"],
            loss_type=params["loss_type"],
            max_iter=params["max_iter"],
            h_tol=params["h_tol"],
            rho_max=params["rho_max"],
            w_threshold=params["w_threshold"],
        )
        model.learn(X)  # deterministic: L-BFGS-B from the zero matrix
    W = _weights(model)
    A, notes = make_acyclic(np.asarray(model.causal_matrix) != 0, W)
    return A, np.abs(W), notes


@keeps_torch_dtype
def _golem_core(X, mask, seed, params):
    # GOLEM seeds random/numpy/torch globally with its own `seed` argument; we pass the
    # wrapper seed and restore the caller's global RNG state afterwards.
    with seeded_global_rng(seed), quiet_root_logger():
        from castle.algorithms import GOLEM as _GOLEM

        model = _GOLEM(
            lambda_1=params["lambda_1"],
            lambda_2=params["lambda_2"],
            equal_variances=params["equal_variances"],
            learning_rate=params["learning_rate"],
            num_iter=int(params["num_iter"]),
            checkpoint_iter=int(params["checkpoint_iter"]),
            graph_thres=params["graph_thres"],
            seed=seed,
            device_type="cpu",
        )
        model.learn(X)
    W = _weights(model)
    A, notes = make_acyclic(np.asarray(model.causal_matrix) != 0, W)
    return A, np.abs(W), notes


_NOTEARS_INFO = MethodInfo(
    name="notears",
    display_name="NOTEARS",
    family="continuous",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="gcastle",
    extra="baselines-torch",
    # paper B.4: linear NOTEARS, lambda1 = 0.1, threshold 0.3; others gcastle defaults
    defaults={
        "lambda1": 0.1,
        "loss_type": "l2",
        "max_iter": 100,
        "h_tol": 1e-8,
        "rho_max": 1e16,
        "w_threshold": 0.3,
    },
    reference="Zheng, Aragam, Ravikumar & Xing, 'DAGs with NO TEARS: Continuous "
    "Optimization for Structure Learning', NeurIPS 2018",
)
_GOLEM_INFO = MethodInfo(
    name="golem",
    display_name="GOLEM",
    family="continuous",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="gcastle",
    extra="baselines-torch",
    # gcastle defaults = GOLEM-EV settings of the paper (lambda_1 0.02, lambda_2 5.0,
    # 1e5 Adam steps at lr 1e-3, threshold 0.3)
    defaults={
        "lambda_1": 2e-2,
        "lambda_2": 5.0,
        "equal_variances": True,
        "learning_rate": 1e-3,
        "num_iter": 100000,
        "checkpoint_iter": 5000,
        "graph_thres": 0.3,
    },
    reference="Ng, Ghassami & Zhang, 'On the Role of Sparsity and DAG Constraints for "
    "Learning Linear DAGs', NeurIPS 2020",
)

NOTEARS = register(
    Method(
        info=_NOTEARS_INFO,
        fit=make_fit(_NOTEARS_INFO, _notears_core),
        requires=("castle.algorithms",),
    )
)
GOLEM = register(
    Method(
        info=_GOLEM_INFO,
        fit=make_fit(_GOLEM_INFO, _golem_core),
        requires=("torch", "castle.algorithms"),
    )
)
