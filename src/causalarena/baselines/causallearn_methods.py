"""PC and GES through ``causal-learn`` (both return a CPDAG).

causal-learn stores graphs with endpoint codes in ``G.graph``:
``g[j, i] = 1`` and ``g[i, j] = -1`` encode ``i -> j``; ``g[i, j] = g[j, i] = -1``
encodes an undirected edge ``i - j``; ``g[i, j] = g[j, i] = 1`` a bidirected edge
``i <-> j``. :func:`causallearn_to_adjacency` converts this to the package
convention (``A[i, j] = 1`` iff ``i -> j``, undirected = symmetric ones). The
test suite checks the orientation on a collider with a strong signal.

Install with ``pip install 'causalarena[baselines]'``.
"""

from __future__ import annotations

import numpy as np

from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["GES", "PC", "causallearn_to_adjacency"]


def causallearn_to_adjacency(g: np.ndarray) -> tuple[np.ndarray, dict]:
    """Convert a causal-learn endpoint matrix to the package convention.

    Parameters
    ----------
    g : numpy.ndarray
        ``(d, d)`` integer endpoint matrix (``cg.G.graph`` / ``record["G"].graph``).

    Returns
    -------
    adjacency : numpy.ndarray
        ``(d, d)`` ``int8``; ``i -> j`` is ``A[i, j] = 1``, ``i - j`` is
        ``A[i, j] = A[j, i] = 1``.
    notes : dict
        ``{"bidirected_edges": [[i, j], ...]}``: bidirected edges (conflicting
        orientations, possible in PC) are reported and written as undirected
        pairs, since a CPDAG has no bidirected edge.
    """
    g = np.asarray(g)
    d = g.shape[0]
    A = np.zeros((d, d), dtype=np.int8)
    bidirected = []
    for i in range(d):
        for j in range(i + 1, d):
            a, b = g[i, j], g[j, i]
            if a == 0 and b == 0:
                continue
            if a == -1 and b == 1:
                A[i, j] = 1
            elif a == 1 and b == -1:
                A[j, i] = 1
            elif a == -1 and b == -1:
                A[i, j] = A[j, i] = 1
            elif a == 1 and b == 1:
                A[i, j] = A[j, i] = 1
                bidirected.append([i, j])
            else:
                raise ValueError(f"unexpected endpoint pair ({a}, {b}) for edge {i}-{j}")
    return A, {"bidirected_edges": bidirected, "_index_keys": ["bidirected_edges"]}


def _pc_core(X, mask, seed, params):
    from causallearn.search.ConstraintBased.PC import pc

    cg = pc(
        X,
        alpha=params["alpha"],
        indep_test=params["indep_test"],
        stable=params["stable"],
        uc_rule=params["uc_rule"],
        uc_priority=params["uc_priority"],
        max_k=params["max_k"],
        show_progress=False,
        verbose=False,
    )
    A, notes = causallearn_to_adjacency(cg.G.graph)
    from .cpdag_repair import repair_cpdag

    A, repair = repair_cpdag(A)  # orientation conflicts can leave a non-CPDAG
    notes.update(repair)
    return A, None, notes


def _ges_core(X, mask, seed, params):
    from causallearn.search.ScoreBased.GES import ges

    kwargs = {"score_func": params["score_func"], "maxP": params["max_parents"]}
    if params["lambda_value"] is not None:
        kwargs["lambda_value"] = params["lambda_value"]
    record = ges(X, **kwargs)
    A, notes = causallearn_to_adjacency(record["G"].graph)
    notes["score"] = float(np.asarray(record["score"]).ravel()[0])
    return A, None, notes


_PC_INFO = MethodInfo(
    name="pc",
    display_name="PC",
    family="constraint",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=False,
    output_graph="cpdag",
    library="causal-learn",
    extra="baselines",
    # paper B.4: stable PC, Fisher-z, alpha = 0.05; the rest are causal-learn defaults
    defaults={
        "alpha": 0.05,
        "indep_test": "fisherz",
        "stable": True,
        "uc_rule": 0,
        "uc_priority": 2,
        "max_k": None,
    },
    reference="Spirtes, Glymour & Scheines, 'Causation, Prediction, and Search', MIT Press, "
    "2000; order-independent (stable) variant: Colombo & Maathuis, JMLR 2014",
)
_GES_INFO = MethodInfo(
    name="ges",
    display_name="GES",
    family="score",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=False,
    output_graph="cpdag",
    library="causal-learn",
    extra="baselines",
    # paper B.4 / brief: GES with the BIC score; lambda_value None keeps causal-learn's
    # default penalty (0.5 * log(n) per free parameter, i.e. standard BIC)
    defaults={"score_func": "local_score_BIC", "max_parents": None, "lambda_value": None},
    reference="Chickering, 'Optimal Structure Identification With Greedy Search', JMLR 2002",
)

PC = register(Method(info=_PC_INFO, fit=make_fit(_PC_INFO, _pc_core), requires=("causallearn",)))
GES = register(
    Method(info=_GES_INFO, fit=make_fit(_GES_INFO, _ges_core), requires=("causallearn",))
)
