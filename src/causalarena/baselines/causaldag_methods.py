"""IGSP and UT-IGSP through ``causaldag`` (both return a DAG).

The rows are split into environments by mask pattern
(:func:`~causalarena.baselines.base.environments`). The observational
environment provides the partial-correlation sufficient statistics for the
Gaussian CI tests; every other environment becomes one IGSP *setting* whose
invariance is tested against the observational one. IGSP uses the mask
targets as known targets; UT-IGSP (unknown-target IGSP) uses them as
``known_interventions`` and may add targets it detects itself (reported in
``notes["learned_targets"]``). Without interventional rows both reduce to
GSP on the observational data. Rows are required to include an
observational environment.

Defaults follow the paper (appendix B.4): alpha = alpha_inv = 1e-3, depth 4,
5 runs. The search breaks ties with Python's global ``random`` module; the
wrapper seeds it with ``seed`` inside the call and restores it afterwards.

``causaldag`` returns arcs ``(i, j)`` meaning ``i -> j``, i.e. the package
convention (checked in the test suite on X -> Y with an intervention on X).

Install with ``pip install 'causalarena[causaldag]'`` (heavy: pulls pgmpy,
xgboost and IPython).
"""

from __future__ import annotations

import warnings

import numpy as np

from ._isolation import seeded_global_rng
from .base import Method, MethodInfo, environments, make_fit
from .registry import register

__all__ = ["IGSP", "UT_IGSP"]


def _igsp_core(unknown_targets: bool):
    def core(X, mask, seed, params):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pgmpy deprecation warnings at import
            import causaldag
            from conditional_independence import (
                MemoizedCI_Tester,
                MemoizedInvarianceTester,
                gauss_invariance_suffstat,
                gauss_invariance_test,
                partial_correlation_suffstat,
                partial_correlation_test,
            )

        data, targets = environments(X, mask)
        if targets[0]:
            raise ValueError("IGSP needs observational rows (rows whose mask is all False)")
        obs, iv_data, iv_targets = data[0], data[1:], targets[1:]
        d = X.shape[1]
        nodes = set(range(d))
        ci_tester = MemoizedCI_Tester(
            partial_correlation_test, partial_correlation_suffstat(obs), alpha=params["alpha"]
        )
        inv_tester = MemoizedInvarianceTester(
            gauss_invariance_test,
            gauss_invariance_suffstat(obs, iv_data),
            alpha=params["alpha_inv"],
        )
        kwargs = {"depth": params["depth"], "nruns": params["nruns"]}
        notes: dict = {"environment_targets": targets, "_index_keys": ["environment_targets"]}
        with seeded_global_rng(seed, torch=False):
            if unknown_targets:
                settings = [{"known_interventions": list(t)} for t in iv_targets]
                dag, learned = causaldag.unknown_target_igsp(
                    settings, nodes, ci_tester, inv_tester, **kwargs
                )
                notes["learned_targets"] = [sorted(int(i) for i in s) for s in learned]
                notes["_index_keys"].append("learned_targets")
            else:
                settings = [{"interventions": list(t)} for t in iv_targets]
                dag = causaldag.igsp(settings, nodes, ci_tester, inv_tester, **kwargs)
        A = np.zeros((d, d), dtype=np.int8)
        for i, j in dag.arcs:
            A[int(i), int(j)] = 1
        return A, None, notes

    return core


_DEFAULTS = {"alpha": 1e-3, "alpha_inv": 1e-3, "depth": 4, "nruns": 5}

_IGSP_INFO = MethodInfo(
    name="igsp",
    display_name="IGSP",
    family="interventional",
    supports_interventions=True,
    requires_interventions=False,
    outputs_edge_scores=False,
    output_graph="dag",
    library="causaldag",
    extra="causaldag",
    defaults=dict(_DEFAULTS),
    reference="Wang, Solus, Yang & Uhler, 'Permutation-based Causal Inference Algorithms with "
    "Interventions', NeurIPS 2017",
)
_UT_IGSP_INFO = MethodInfo(
    name="ut-igsp",
    display_name="UT-IGSP",
    family="interventional",
    supports_interventions=True,
    requires_interventions=False,
    outputs_edge_scores=False,
    output_graph="dag",
    library="causaldag",
    extra="causaldag",
    defaults=dict(_DEFAULTS),
    reference="Squires, Wang & Uhler, 'Permutation-Based Causal Structure Learning with Unknown "
    "Intervention Targets', UAI 2020",
)

IGSP = register(
    Method(info=_IGSP_INFO, fit=make_fit(_IGSP_INFO, _igsp_core(False)), requires=("causaldag",))
)
UT_IGSP = register(
    Method(
        info=_UT_IGSP_INFO, fit=make_fit(_UT_IGSP_INFO, _igsp_core(True)), requires=("causaldag",)
    )
)
