"""Temporal structural causal models: specs, random draws, batched simulation of factual,
interventional and counterfactual arms (discrete and continuous time), named identification
structures and the observation layer.

Adjacency convention: ``A0[i, j] = 1`` iff ``X^i_t -> X^j_t``; ``A_lag[k-1, i, j] = 1`` iff
``X^i_{t-k} -> X^j_t``.
"""

from causalarena.generator.temporal.draw import (
    KIND_MIX,
    KINDS,
    Query,
    draw_intervention,
    draw_temporal_scm,
    select_query,
)
from causalarena.generator.temporal.generate import Episode, PairSet, generate_pairs
from causalarena.generator.temporal.observe import (
    apply_missingness,
    mcar_mask,
    observation_times,
    observe,
)
from causalarena.generator.temporal.simulate import (
    TemporalBatch,
    companion_radius,
    episode_stream,
    positivity,
    simulate,
    simulate_continuous,
    stationarity_diagnostics,
)
from causalarena.generator.temporal.structures import (
    STRUCTURES,
    identification_structure,
    structure_graph,
)
from causalarena.generator.temporal.suites import (
    TEMPORAL_SUITES,
    SuiteEpisode,
    TemporalSuite,
    generate_suite_episodes,
    get_temporal_suite,
)
from causalarena.spec_temporal import (
    MECHANISMS,
    VALUE_MODES,
    Driver,
    RegimeSwitch,
    StructureLabel,
    TemporalIntervention,
    TemporalSCM,
    min_lag_matrix,
)


def __getattr__(name: str):
    # heavier pieces (pyarrow, zarr, datasets) load on first use
    lazy = {
        "EPISODE_SCHEMA": "causalarena.generator.temporal.storage",
        "open_zarr": "causalarena.generator.temporal.storage",
    }
    if name in lazy:
        import importlib

        return getattr(importlib.import_module(lazy[name]), name)
    raise AttributeError(f"module 'causalarena.generator.temporal' has no attribute {name!r}")


__all__ = [
    "EPISODE_SCHEMA",
    "TEMPORAL_SUITES",
    "SuiteEpisode",
    "TemporalSuite",
    "generate_suite_episodes",
    "get_temporal_suite",
    "open_zarr",
    "KINDS",
    "KIND_MIX",
    "MECHANISMS",
    "STRUCTURES",
    "VALUE_MODES",
    "Driver",
    "Episode",
    "PairSet",
    "Query",
    "RegimeSwitch",
    "StructureLabel",
    "TemporalBatch",
    "TemporalIntervention",
    "TemporalSCM",
    "apply_missingness",
    "companion_radius",
    "draw_intervention",
    "draw_temporal_scm",
    "episode_stream",
    "generate_pairs",
    "identification_structure",
    "mcar_mask",
    "min_lag_matrix",
    "observation_times",
    "observe",
    "positivity",
    "select_query",
    "simulate",
    "simulate_continuous",
    "stationarity_diagnostics",
    "structure_graph",
]
