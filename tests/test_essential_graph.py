"""GIES returns an interventional essential graph: with a target it orients edges that the
observational CPDAG leaves undirected, so it is validated as ``essential``, not as a CPDAG."""

import numpy as np

from causalarena.eval.predictions import graph_problem


def test_an_oriented_chain_is_a_valid_essential_graph_but_not_a_cpdag():
    # 0 -> 1 -> 2 with an intervention on 0: the I-essential graph orients both edges,
    # the observational CPDAG of the chain is 0 - 1 - 2 (no v-structure), so as a CPDAG it fails
    a = np.zeros((3, 3), dtype=np.int8)
    a[0, 1] = a[1, 2] = 1
    assert graph_problem(a, "essential") is None
    assert "not a valid CPDAG" in graph_problem(a, "cpdag")


def test_essential_graphs_with_a_cycle_or_no_extension_are_invalid():
    cyc = np.zeros((3, 3), dtype=np.int8)
    cyc[0, 1] = cyc[1, 2] = cyc[2, 0] = 1
    assert "cycle 0 -> 1 -> 2 -> 0" in graph_problem(cyc, "essential")
    # a -> c <- b with c - d undirected and d adjacent to neither a nor b is fine, but the
    # undirected 4-cycle 0-1-2-3-0 (not chordal) has no consistent extension
    sq = np.zeros((4, 4), dtype=np.int8)
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        sq[i, j] = sq[j, i] = 1
    assert "no consistent DAG extension" in graph_problem(sq, "essential")


def test_gies_declares_the_essential_graph_type():
    from causalarena.baselines.registry import registered

    assert registered("gies").info.output_graph == "essential"
