"""DirectLiNGAM through the ``lingam`` package (returns a DAG).

``lingam`` stores the estimated coefficients transposed with respect to the
package convention: ``adjacency_matrix_[i, j] != 0`` means ``j -> i`` (row =
child). The wrapper transposes, so ``A[i, j] = 1`` iff ``i -> j``, and
reports ``|B^T|`` as edge scores. The test suite checks the orientation on a
linear pair with uniform noise.

Install with ``pip install 'causalarena[baselines]'``.
"""

from __future__ import annotations

import numpy as np

from .base import Method, MethodInfo, make_fit
from .registry import register

__all__ = ["DIRECT_LINGAM"]


def _direct_lingam_core(X, mask, seed, params):
    import lingam

    model = lingam.DirectLiNGAM(random_state=seed, measure=params["measure"])
    model.fit(X)
    B = np.asarray(model.adjacency_matrix_, dtype=np.float64).T  # now B[i, j]: i -> j
    order = [int(i) for i in model.causal_order_]
    return (B != 0).astype(np.int8), np.abs(B), {"order": order, "_index_keys": ["order"]}


_INFO = MethodInfo(
    name="direct-lingam",
    display_name="DirectLiNGAM",
    family="fcm",
    supports_interventions=False,
    requires_interventions=False,
    outputs_edge_scores=True,
    output_graph="dag",
    library="lingam",
    extra="baselines",
    # paper B.4: standard DirectLiNGAM with library defaults (pairwise likelihood-ratio
    # measure "pwling", adaptive-lasso pruning inside lingam)
    defaults={"measure": "pwling"},
    reference="Shimizu, Inazumi, Sogawa, Hyvarinen, Kawahara, Washio, Hoyer & Bollen, "
    "'DirectLiNGAM: A Direct Method for Learning a Linear Non-Gaussian Structural "
    "Equation Model', JMLR 2011",
)

DIRECT_LINGAM = register(
    Method(info=_INFO, fit=make_fit(_INFO, _direct_lingam_core), requires=("lingam",))
)
