"""Named temporal suites (``dot-*``): design, split and episode generator of each.

Every suite is a pure function of ``(name, version, seed)``.  Episode ``index`` of a suite is
generated from ``SeedSequence(seed, spawn_key=(crc32(name), crc32(version)))`` with the
temporal generator's per-episode keys ``(index, attempt, stream)``, so an episode never depends
on which other episodes are generated with it, on the batch, the shard or the worker count.

Designs (issue 14 section 1)
----------------------------
Each suite that carries a DoTime name in :attr:`TemporalSuite.dotime` reproduces the design of
that DoTime suite (Thumm et al., 2026, and the ``dotime`` 0.2.0 suite registry): size,
structures and their split, pair mode, query protocol and offsets; every deliberate difference
is listed in :attr:`TemporalSuite.deviations` and printed in the card.  DoTime's names resolve
to these suites (:func:`resolve_suite_name`).  A suite that does not reproduce a DoTime design
has a name of its own (``dot-regime2``, two regimes on one graph).

Design cell of an index (:meth:`TemporalSuite.cell`): with ``structures`` the structure of
(latent) index ``i`` is ``structures[i % len(structures)]``; with several ``schedules`` the
grid is ``schedules[(i // len(structures)) % len(schedules)]``; with ``regimes`` (numbers of
regimes) the regime count is ``regimes[i % len(regimes)]``; with observation ``cells`` the
cell is ``cells[i % len(cells)]`` and the latent episode ``i // len(cells)`` (all cells of a
latent episode observe the same trajectories).

Split
-----
The index pool of a suite holds ``2 * full`` episodes.  It is cut into consecutive blocks of
``2 * g`` indices (``g`` = :attr:`TemporalSuite.group`); inside a block, index ``b + j`` is
paired with ``b + g + j`` and a seeded coin (shared by the ``tie`` consecutive pairs of one
latent episode) decides which of the two is public (released as split ``test``) and which is
reserved (never written).  ``g`` is the number of design cells, so every cell keeps exactly
half of its episodes public.  ``mini`` is the first ``mini`` public indices (in increasing
order), ``full`` all public indices.

Query protocols (``options["query"]``)
--------------------------------------
``offsets``     an observed strict descendant of the target (from the graph only,
                :func:`causalarena.generator.temporal.draw.select_query`) at
                ``min_lag + (0, 1, 2, 5, 10)`` steps after onset.
``dotime``      the outcome ``Y`` at one offset ``o ~ U{lo..hi}`` after onset, ``(lo, hi)`` from
                :data:`DOTIME_QUERY_OFFSETS` (back-door 0, front-door/mediator 1-5, IV 0-5,
                others 0), raised to the structure's shortest ``A -> Y`` lag.
``window_end``  a descendant as in ``offsets``, read at the intervention window's last step.
``last``        a descendant as in ``offsets`` (never a target), read at the last step
                ``T - 1`` (DoTime's generic and regime episodes, ``episode_from_pair``).
``uniform``     (continuous) the outcome ``Y`` at a row uniform over ``[onset, M - 1]``.
Query rows past the end are clamped to the last row.  In the null-effect structures ``Y`` is
not a descendant and the true effect is exactly 0.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalarena.errors import AuditError
from causalarena.generator.temporal.draw import (
    Query,
    draw_intervention,
    draw_intervention_dotime,
    draw_regimes_scm,
    draw_temporal_scm,
    select_query,
)
from causalarena.generator.temporal.generate import S_DRAW, S_IV
from causalarena.generator.temporal.observe import (
    mar_mask,
    mcar_mask,
    mnar_mask,
    observation_times,
    observe,
    observed_window,
)
from causalarena.generator.temporal.simulate import (
    S_MISSING,
    S_QUERY,
    S_SCHEDULE,
    episode_stream,
    simulate,
    simulate_continuous,
)
from causalarena.generator.temporal.structures import STRUCTURES, identification_structure
from causalarena.spec_temporal import Driver, TemporalIntervention, TemporalSCM

S_SUITE = 20  # per-index suite parameters (N, K of dot-wide, missing rate, schedule kind)
SPLIT_STREAM = 21
DISCRETE_OFFSETS = (0, 1, 2, 5, 10)
CONTINUOUS_OFFSETS = (0, 2, 5, 10, 20)
#: Version of every temporal suite (one version, so ``dot-all`` builds one release).
SUITE_VERSION = "1.2.0"


@dataclass(frozen=True)
class TemporalSuite:
    """Definition of a named temporal suite (frozen into the manifest).

    Attributes
    ----------
    name, version : str
    seed : int
    family : {"generic", "structures", "continuous"}
        Which episode generator is used.
    scales : dict of str to int
        Public episodes written at each scale.
    T : int
        Steps (discrete) or observations on the regular grid (continuous).
    group : int
        Pairing width of the public/reserved split (see module docstring).
    shard_size : dict of str to int
        Episodes per Parquet shard at each scale.
    options : dict
        Generator options (kind, prior, pair mode, query protocol, structures, schedules,
        observation cells, ...).
    tie : int
        Consecutive indices of a split block that share one public/reserved coin (the cells of
        one latent episode in ``dot-observed``; 1 elsewhere).
    dotime : str
        DoTime name of the suite whose design this suite reproduces ("" if none).
    dotime_design, deviations : tuple of str
        DoTime's design of that suite (its paper, issue 14 and the ``dotime`` 0.2.0 registry)
        and every place this suite deliberately differs from it (printed in the card).
    """

    name: str
    version: str
    seed: int
    family: str
    scales: dict[str, int]
    T: int = 200
    group: int = 1
    shard_size: dict[str, int] = field(default_factory=lambda: {"mini": 50, "full": 1000})
    options: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    tie: int = 1
    dotime: str = ""
    dotime_design: tuple[str, ...] = ()
    deviations: tuple[str, ...] = ()

    @property
    def config(self) -> str:
        """Config name of the suite in the dataset card (the suite name)."""
        return self.name

    def get_scale(self, scale: str) -> int:
        if scale not in self.scales:
            raise ValueError(
                f"unknown scale {scale!r} for {self.name}; known: {sorted(self.scales)}"
            )
        return self.scales[scale]

    def seed_sequence(self) -> np.random.SeedSequence:
        """Base seed of every episode stream of this suite and version."""
        return np.random.SeedSequence(self.seed, spawn_key=(_crc(self.name), _crc(self.version)))

    @property
    def pool_size(self) -> int:
        n = 2 * self.scales["full"]
        g2 = 2 * self.group
        return -(-n // g2) * g2

    def is_public(self, index: int) -> bool:
        """Whether pool index ``index`` is public (False: reserved)."""
        g = self.group
        block, j = divmod(int(index), 2 * g)
        pair, side = j % g, j // g
        rng = np.random.default_rng(
            np.random.SeedSequence(self.seed, spawn_key=(_crc(self.name), SPLIT_STREAM, block))
        )
        coin = rng.integers(0, 2, size=-(-g // self.tie))
        return bool(coin[pair // self.tie] == side)

    def public_indices(self, scale: str) -> list[int]:
        """The first ``scales[scale]`` public indices, increasing."""
        n = self.get_scale(scale)
        out: list[int] = []
        g2 = 2 * self.group
        b = 0
        while len(out) < n:
            for i in range(b, b + g2):
                if self.is_public(i):
                    out.append(i)
            b += g2
        return sorted(out)[:n]

    def reserved_indices(self, scale: str) -> list[int]:
        """Reserved partners of the public indices of ``scale`` (never released)."""
        pub = self.public_indices(scale)
        g = self.group
        return sorted((i + g if (i % (2 * g)) < g else i - g) for i in pub)

    def shards(self, scale: str) -> list[list[int]]:
        """Public indices of each Parquet shard (fixed per scale, whatever the workers)."""
        idx = self.public_indices(scale)
        s = self.shard_size[scale]
        return [idx[k : k + s] for k in range(0, len(idx), s)]

    # design of one index (pure functions of the index; see the module docstring)
    def cell(self, index: int) -> dict[str, Any]:
        """Design cell of pool index ``index``: structure, schedule, observation cell, latent.

        ``latent`` is the index whose episode is drawn (``index // len(cells)`` when the suite
        has observation cells, else ``index``).
        """
        o = self.options
        i = int(index)
        out: dict[str, Any] = {"latent": i}
        cells = o.get("cells")
        if cells:
            out["latent"], c = divmod(i, len(cells))
            out["observation"] = cells[c]
        names = o.get("structures")
        if names:
            out["structure"] = names[out["latent"] % len(names)]
        regs = o.get("regimes")
        if regs:
            out["n_regimes"] = int(regs[out["latent"] % len(regs)])
        scheds = o.get("schedules")
        if scheds and len(scheds) > 1:
            out["schedule"] = scheds[(i // len(names or (1,))) % len(scheds)]
        elif scheds:
            out["schedule"] = scheds[0]
        return out


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


def _scales(mini: int, full: int) -> dict[str, int]:
    return {"mini": mini, "full": full}


#: DoTime's per-structure query offsets (steps after onset; ``dot-Identifiability-v1`` 1.2.0:
#: back-door 0, front-door and mediator 1-5, instrumental variable 0-5, every other 0).
DOTIME_QUERY_OFFSETS: dict[str, tuple[int, int]] = {
    "front_door": (1, 5),
    "mediator": (1, 5),
    "instrumental_variable": (0, 5),
}
#: DoTime's structure names (``dotime.benchmarks``) for this package's structure names.
DOTIME_STRUCTURE_NAMES: dict[str, str] = {
    "bivariate": "bi_variate",
    "backdoor": "back_door",
    "observed_confounder": "observed_confounder",
    "mediator": "mediator",
    "front_door": "front_door",
    "confounder_mediator": "confounder_mediator",
    "instrumental_variable": "instrumental_variable",
    "unobserved_confounder": "unobserved_confounder",
    "bow": "bow_graph",
}
SEASONAL_LABELS: tuple[str, ...] = tuple(
    f"{b}{d}"
    for d in (
        "",
        "+seasonal_observed",
        "+trend_observed",
        "+seasonal_hidden",
        "+trend_hidden",
    )
    for b in ("bivariate", "backdoor")
)
#: Observation cells of ``dot-observed``: missingness kind x relative measurement-noise SD.
OBSERVATION_CELLS: tuple[tuple[str, float], ...] = tuple(
    (m, n) for m in ("mcar", "mar", "mnar", "none") for n in (0.0, 0.1, 0.3)
)
MISSING_RATE = 0.2
CONTINUOUS_STRUCTURES = ("backdoor", "front_door", "instrumental_variable")
IDENT = tuple(STRUCTURES)
_STABILITY = (
    "Stability: lag weights are rescaled to companion spectral radius 0.9 when the draw "
    "exceeds it, and a draw that still diverges is redrawn (attempts recorded); DoTime "
    "releases diverged episodes as all-zero episodes instead."
)
_PAIR_BOTH = (
    "Both pair modes are offered: this suite is released in one; the other is one argument "
    "away in the streaming generator (generate_pairs(pair_mode=...))."
)
_TIME_ROWS = (
    "query_times are row indices of the released arrays (no time encoding to decode); "
    "DoTime stores an encoded query_time instead."
)
_STRUCT_GRAPHS = (
    "Structure graphs are this package's (structures.STRUCTURES; e.g. backdoor's A -> Y "
    "edge is at lag 1, DoTime's is instantaneous); names map backdoor = back_door, "
    "bivariate = bi_variate, bow = bow_graph."
)
_OFFSET_FLOOR = (
    "A query offset below the structure's shortest A -> Y lag is raised to that lag, so the "
    "query never precedes the first possible effect (backdoor: offset 1 here, 0 in DoTime)."
)
_IV_MIX = (
    "Interventions on A: hard, soft or time-varying (ramp/sine) in 50/25/25 with a window "
    "or to the horizon, value positivity-aware; DoTime's per-suite intervention mix is not "
    "reproduced."
)

_IV_DOTIME = (
    "Interventions follow DoTime's InterventionSampler: hard / soft / time-varying 0.5 / 0.3 / "
    "0.2 on 1-2 distinct targets (intervention_targets), window length U{10..T-10} from "
    "U{10..T-L}, hard value 2 z, soft shift z, time-varying profile uniform over step / ramp / "
    "sine / trajectory with DoTime's parameters; targets are drawn among observed variables."
)
_REGIMES = (2, 3, 5)

TEMPORAL_SUITES: dict[str, TemporalSuite] = {
    s.name: s
    for s in (
        TemporalSuite(
            "dot-generic",
            SUITE_VERSION,
            20260801,
            "generic",
            _scales(100, 100_000),
            options={
                "prior": "dotime",
                "pair_mode": "interventional",
                "query": "offsets",
                "iv_prior": "dotime",
            },
            description="DoTime's generic prior: diverse/chain/regime temporal SCMs, N 3-10, "
            "K 1-3 (dot-Generic-100k design).",
            dotime="dot-Generic-100k",
            dotime_design=(
                "100,000 episodes, T = 200, 70/15/15 diverse/chain/regime-switching types",
                "prior: w ~ N(0, 1), bias ~ N(0, 0.5^2), p ~ Beta(2, 5), lag decay 0.7, nine "
                "mechanisms uniform, root noise 0.1 + Exp(1)",
                "pairs: independent interventional draw (pair mode interventional); "
                "query_time encoding step",
            ),
            deviations=(
                _STABILITY,
                "square is not assigned to a node on a feedback loop (it redraws among the "
                "other eight), so the realised square share is below 1/9: see the mechanism "
                "table.",
                "Non-root noise is Gaussian with scale 0.01 + Exp(0.1) (DoTime mixes Gaussian, "
                "uniform and Laplace noise of that scale) and no per-edge dropout.",
                "Query: one observed descendant of the targets (never a target) at min_lag + "
                "(0, 1, 2, 5, 10) steps after onset (kept where < T); DoTime queries the last "
                "step's most-affected non-target variable (chosen from the intervened arm).",
                _IV_DOTIME,
                "Regime-switching draws (15%) are this package's two-regime SCMs on one graph; "
                "dot-regimes holds DoTime's multi-regime design.",
                _TIME_ROWS,
                _PAIR_BOTH,
            ),
        ),
        TemporalSuite(
            "dot-identifiability",
            SUITE_VERSION,
            20260802,
            "structures",
            _scales(90, 12_150),
            group=len(IDENT),
            options={
                "structures": IDENT,
                "prior": "dotime",
                "pair_mode": "counterfactual",
                "query": "dotime",
            },
            description="Nine named identification structures x 1,350 with exact labels "
            "(dot-Identifiability-v1 1.2.0 design).",
            dotime="dot-Identifiability-v1",
            dotime_design=(
                "version 1.2.0: 9 structures x 1,350 = 12,150 episodes, T = 200",
                "shared-noise counterfactual pairs (pair mode counterfactual)",
                "query offsets after onset: back-door 0, front-door and mediator U{1..5}, "
                "instrumental variable U{0..5}, others 0",
                "structure prior: w ~ N(0, 1), bias ~ N(0, 0.5^2), mechanisms uniform over "
                "linear/tanh/tanh_relu/relu, noise scale 0.3",
            ),
            deviations=(_STRUCT_GRAPHS, _OFFSET_FLOOR, _STABILITY, _IV_MIX, _TIME_ROWS, _PAIR_BOTH),
        ),
        TemporalSuite(
            "dot-regime2",
            SUITE_VERSION,
            20260803,
            "generic",
            _scales(100, 9_999),
            options={
                "kind": "regime",
                "prior": "dotime",
                "pair_mode": "interventional",
                "query": "offsets",
            },
            description="Two-regime switching temporal SCMs (time or Markov switch, one "
            "graph); not DoTime's dot-RegimeSwitch-v1 design (that is dot-regimes).",
        ),
        TemporalSuite(
            "dot-regimes",
            SUITE_VERSION,
            20260809,
            "generic",
            _scales(99, 9_999),
            group=len(_REGIMES),
            options={
                "kind": "regimes",
                "regimes": _REGIMES,
                "prior": "dotime",
                "pair_mode": "interventional",
                "query": "last",
                "iv_prior": "dotime",
            },
            description="Regime-switching temporal SCMs with 2, 3 or 5 regimes, each with its "
            "own graph, 3 x 3,333, with the realised regime path released "
            "(dot-RegimeSwitch-v1 design).",
            dotime="dot-RegimeSwitch-v1",
            dotime_design=(
                "version 1.0.0: 9,999 = 3 x 3,333 episodes with 2, 3 and 5 regimes, T = 200",
                "per-regime graphs and mechanisms (edge probability ~ Beta(2, 5) per regime), "
                "N ~ U{3..10}, K ~ U{1..3}, shared noise scales; sticky Markov switching "
                "(transition rows ~ Dirichlet(9 on the diagonal, 0.5 elsewhere), first regime "
                "uniform, burn-in included)",
                "pairs: independent interventional draw with its own regime path (pair mode "
                "interventional); InterventionSampler interventions (1-2 targets; hard / soft "
                "/ step / ramp / sine / trajectory); one query at the last step; encoding step",
            ),
            deviations=(
                "Regime graphs share one random topological order, so the union graph is "
                "acyclic (DoTime renames every regime's order to the same X0..X{N-1}, which is "
                "the same constraint); regime r's graph is regime_adjacency_inst[r] / "
                "regime_adjacency_lag[r], adjacency_inst / adjacency_lag are the union.",
                "Mechanisms read their parents (DoTime's fix regime_canonical_weights=True); "
                "DoTime's released 1.0.0 regime episodes have parent weights keyed to the wrong "
                "names, so every variable there is independent noise.",
                "The realised regime paths are released (regime_path for x_obs, "
                "regime_path_int for x_int; DoTime keeps them internal).",
                "Noise is Gaussian with DoTime's scales (no uniform/Laplace mix, no per-edge "
                "dropout).",
                "square is not assigned to a node on a feedback loop of the union graph (it "
                "redraws among the other eight), so its realised share is far below 1/9: see "
                "the mechanism table (all regimes' nodes).",
                "Query: an observed descendant of the targets in the union graph, never a "
                "target, at the last step (DoTime picks the most-affected non-target variable "
                "from the intervened arm).",
                _IV_DOTIME,
                _STABILITY + " Rescaling is per regime; a switching path can still diverge and "
                "is then redrawn.",
                "Regime counts are interleaved by index (index i has (2, 3, 5)[i % 3] regimes); "
                "DoTime writes them in three consecutive blocks.",
                _TIME_ROWS,
            ),
        ),
        TemporalSuite(
            "dot-continuous",
            SUITE_VERSION,
            20260804,
            "continuous",
            _scales(60, 9_999),
            group=len(CONTINUOUS_STRUCTURES),
            options={
                "structures": CONTINUOUS_STRUCTURES,
                "schedules": ("regular",),
                "types": ("hard",),
                "prior": "dotime",
                "pair_mode": "counterfactual",
                "query": "uniform",
            },
            description="Continuous-time SDE pairs on back-door / front-door / IV thirds, hard "
            "interventions, regular grid of 200 observations (dot-Continuous-v1 design).",
            dotime="dot-Continuous-v1",
            dotime_design=(
                "9,999 = back-door, front-door, instrumental variable x 3,333, T = 200",
                "hard interventions, regular grid, shared-noise counterfactual pairs",
                "query time uniform over [onset, T - 1]; query_time encoding index/(T-1)",
            ),
            deviations=(
                _STRUCT_GRAPHS,
                "The query variable is always the outcome Y (DoTime draws the query variable "
                "uniformly, a third of its queries read the treated variable itself).",
                "Grid: horizon 20 time units, gap 0.1, Euler-Maruyama step 0.02; lag 1 = 1 time "
                "unit.",
                _STABILITY,
                _TIME_ROWS,
            ),
        ),
        TemporalSuite(
            "dot-continuous-irregular",
            SUITE_VERSION,
            20260805,
            "continuous",
            _scales(63, 9_999),
            group=3 * len(CONTINUOUS_STRUCTURES),
            options={
                "structures": CONTINUOUS_STRUCTURES,
                "schedules": ("regular", "jittered", "poisson"),
                "types": ("hard",),
                "prior": "dotime",
                "pair_mode": "counterfactual",
                "query": "uniform",
            },
            description="Continuous-time SDE pairs on the three structures x regular / jittered "
            "/ Poisson grids (dot-ContinuousIrregular-v1 design).",
            dotime="dot-ContinuousIrregular-v1",
            dotime_design=(
                "9,999 episodes: back-door, front-door, instrumental variable; regular, "
                "jittered and Poisson grid thirds; T = 200 observations",
                "shared-noise counterfactual pairs; query_time encoding time/span",
            ),
            deviations=(
                _STRUCT_GRAPHS,
                "Each structure x grid cell holds 1,111 episodes (DoTime's split over the nine "
                "cells is not documented); the regular third is not identical to "
                "dot-continuous (different seed).",
                "The query variable is always the outcome Y; query row uniform over "
                "[onset, M - 1].",
                "Grids: mean gap 0.1 over a horizon of 20 (jitter +-30%, Poisson Exp(0.1) gaps).",
                _STABILITY,
                _TIME_ROWS,
            ),
        ),
        TemporalSuite(
            "dot-seasonal-trend",
            SUITE_VERSION,
            20260806,
            "structures",
            _scales(100, 10_000),
            group=len(SEASONAL_LABELS),
            options={
                "structures": SEASONAL_LABELS,
                "prior": "dotime",
                "pair_mode": "counterfactual",
                "query": "dotime",
            },
            description="Bivariate and back-door structures plain or under an observed or "
            "hidden seasonal or trend driver confounding A and Y, 10 labels x 1,000 "
            "(dot-SeasonalTrend-v1 design).",
            dotime="dot-SeasonalTrend-v1",
            dotime_design=(
                "10 labels x 1,000 = 10,000: bi_variate, back_door and each under a seasonal "
                "or trend driver, observed or hidden, T = 200",
                "query_time encoding index/T",
            ),
            deviations=(
                "The driver is a node D with a deterministic seasonal (amplitude U[0.5, 1.5], "
                "period U[8, 30]) or trend (slope U[0.005, 0.02] x sign) input plus noise, "
                "feeding A and Y instantaneously; hidden drivers are not released.",
                "Pair mode counterfactual (DoTime's pair mode for this suite is not "
                "documented in its registry).",
                _STRUCT_GRAPHS,
                _OFFSET_FLOOR,
                _STABILITY,
                _IV_MIX,
                _TIME_ROWS,
            ),
        ),
        TemporalSuite(
            "dot-wide",
            SUITE_VERSION,
            20260807,
            "generic",
            _scales(50, 10_000),
            shard_size={"mini": 25, "full": 250},
            options={
                "n_range": (12, 40),
                "k_range": (1, 8),
                "kind": "diverse",
                "prior": "dotime",
                "p_hidden": 0.0,
                "pair_mode": "counterfactual",
                "query": "window_end",
                "iv_prior": "dotime",
            },
            description="Wide generic SCMs: N 12-40 variables, K 1-8 lags, no latent "
            "variables, queried at the window's last step (dot-Wide-v1 design).",
            dotime="dot-Wide-v1",
            dotime_design=(
                "10,000 episodes, N 12-40, K <= 8, T = 200, hardened dynamics",
                "shared-noise counterfactual arms, latent variables removed",
                "queried at the intervention window's last step; encoding step",
            ),
            deviations=(
                "K ~ U{1..8} and N ~ U{12..40}; DoTime's hardening configuration (its noise "
                "and weight scales) is replaced by the DoTime prior with spectral-radius "
                "rescaling.",
                _IV_DOTIME,
                "Query: an observed descendant of the targets (never a target) at the window's "
                "last step (DoTime: the most-affected non-target variable there).",
                _STABILITY,
                _TIME_ROWS,
            ),
        ),
        TemporalSuite(
            "dot-observed",
            SUITE_VERSION,
            20260808,
            "structures",
            _scales(108, 10_800),
            group=len(IDENT) * len(OBSERVATION_CELLS),
            tie=len(OBSERVATION_CELLS),
            options={
                "structures": IDENT,
                "cells": OBSERVATION_CELLS,
                "missing_rate": MISSING_RATE,
                "prior": "dotime",
                "pair_mode": "counterfactual",
                "query": "dotime",
            },
            description="The identifiability structures seen through 12 observation cells "
            "(none/MCAR/MAR/MNAR missingness x measurement noise 0, 0.1, 0.3) x 9 structures "
            "x 100 latent episodes (dot-Observed-v1 design).",
            dotime="dot-Observed-v1",
            dotime_design=(
                "12 cells x 9 structures x 100 = 10,800; every cell observes the same latent "
                "episodes; targets stay latent",
                "missingness kinds none / mcar / block / mnar and measurement noise",
            ),
            deviations=(
                "Cells: missingness none / MCAR / MAR / MNAR (rate 0.2; MAR driven by the "
                "treatment A's rank, MNAR by the cell's own rank) x Gaussian measurement noise "
                "with SD 0, 0.1, 0.3 of the column SD; DoTime's block missingness is replaced "
                "by MAR and its cell values are not documented in its wheel.",
                "Latent episodes are drawn for this suite (not the dot-identifiability rows).",
                "x_obs holds the noisy factual arm with NaN where mask; x_int and y_true stay "
                "latent.",
                _STRUCT_GRAPHS,
                _OFFSET_FLOOR,
                _STABILITY,
                _TIME_ROWS,
            ),
        ),
    )
}

#: DoTime suite names -> this package's suite (build/load accept either).
DOTIME_ALIASES: dict[str, str] = {s.dotime: s.name for s in TEMPORAL_SUITES.values() if s.dotime}
#: DoTime suites whose design no suite here reproduces, with the reason.
NOT_REPRODUCED: dict[str, str] = {}


def resolve_suite_name(name: str) -> str:
    """This package's suite name for ``name`` (a DoTime name resolves to its namesake).

    Raises
    ------
    ValueError
        If ``name`` is a DoTime suite no suite here reproduces (the message says why).
    """
    if name in NOT_REPRODUCED:
        raise ValueError(NOT_REPRODUCED[name])
    return DOTIME_ALIASES.get(name, name)


def get_temporal_suite(name: str) -> TemporalSuite:
    name = resolve_suite_name(name)
    if name not in TEMPORAL_SUITES:
        raise ValueError(f"unknown temporal suite {name!r}; known: {sorted(TEMPORAL_SUITES)}")
    return TEMPORAL_SUITES[name]


# ---------------------------------------------------------------------------------- episodes
@dataclass
class SuiteEpisode:
    """One released episode (arrays restricted to the observed columns).

    ``x_obs``/``x_int`` are ``(M, n_obs)`` float64: the factual arm (with NaN where ``mask``)
    and the intervened arm, at the rows given by ``times`` (step indices in discrete time).
    ``query_times`` are row indices.  ``onset``/``window_end`` are the first row at or after
    the window's start/end.  ``regime_path``/``regime_path_int`` are the realised regime of
    each row of ``x_obs``/``x_int`` (discrete regime-switching SCMs; None otherwise).
    """

    suite: str
    version: str
    index: int
    attempt: int
    scm: TemporalSCM
    intervention: TemporalIntervention  # value resolved
    variables: list[str]
    x_obs: np.ndarray
    x_int: np.ndarray
    x_fact: np.ndarray  # factual arm without missingness
    times: np.ndarray | None
    mask: np.ndarray | None
    onset: int
    window_end: int
    query: Query
    query_column: int
    y_true: np.ndarray
    y_factual: np.ndarray
    structure: str
    identifiable: bool | None
    null_effect: bool
    pair_mode: str
    positivity: float
    percentile: float
    level: float
    diagnostics: dict[str, float]
    regime_path: np.ndarray | None = None  # (M,) int8 regime of x_obs per row (switching SCMs)
    regime_path_int: np.ndarray | None = None  # (M,) int8 regime of x_int per row

    @property
    def episode_id(self) -> str:
        return f"{self.suite}/{self.version}/{self.index:07d}"


Drawer = Callable[[int, int], tuple[TemporalSCM, TemporalIntervention]]


def _resolved(iv: TemporalIntervention, value: float) -> TemporalIntervention:
    return TemporalIntervention(**{**iv.model_dump(), "value": float(value)})


def _label(scm: TemporalSCM) -> tuple[str, bool | None, bool]:
    if scm.structure is not None:
        return scm.structure.name, scm.structure.identifiable, scm.structure.null_effect
    if scm.regimes is not None:  # DoTime's structure label of a regime episode
        return f"regime_{scm.regimes.n_regimes}", None, False
    return scm.kind, None, False


def _released_query(q: Query, obs: list[int]) -> int:
    return obs.index(q.column)


def generate_suite_episodes(
    suite: TemporalSuite, indices: Sequence[int], ss: np.random.SeedSequence | None = None
) -> list[SuiteEpisode]:
    """Generate the episodes ``indices`` of a suite (diverged attempts redrawn).

    ``ss`` replaces the suite's public base seed (the reserved half passes its key-derived
    SeedSequence); by default :meth:`TemporalSuite.seed_sequence`.
    """
    if ss is None:
        ss = suite.seed_sequence()
    if suite.family == "continuous":
        return _continuous(suite, ss, [int(i) for i in indices])
    return _discrete(suite, ss, [int(i) for i in indices])


def _draw_generic(
    suite: TemporalSuite, ss, i: int, a: int
) -> tuple[TemporalSCM, TemporalIntervention]:
    o = suite.options
    n_vars = max_lag = None
    if "n_range" in o:
        r = episode_stream(ss, (i,), S_SUITE)
        n_vars = int(r.integers(o["n_range"][0], o["n_range"][1] + 1))
        max_lag = int(r.integers(o["k_range"][0], o["k_range"][1] + 1))
    if o.get("kind") == "regimes":
        s = draw_regimes_scm(
            episode_stream(ss, (i, a), S_DRAW),
            suite.cell(i)["n_regimes"],
            scm_id=f"{suite.name}-{i}-{a}",
        )
    else:
        kw: dict[str, Any] = {"kind": o.get("kind"), "n_vars": n_vars, "max_lag": max_lag}
        if "p_hidden" in o:
            kw["p_hidden"] = o["p_hidden"]
        s = draw_temporal_scm(
            episode_stream(ss, (i, a), S_DRAW),
            scm_id=f"{suite.name}-{i}-{a}",
            prior=o.get("prior", "default"),
            **kw,
        )
    if o.get("iv_prior") == "dotime":
        iv = draw_intervention_dotime(episode_stream(ss, (i, a), S_IV), s, suite.T)
    else:
        iv = draw_intervention(episode_stream(ss, (i, a), S_IV), s)
    return s, iv


def _with_driver(s: TemporalSCM, label: str, rng: np.random.Generator) -> TemporalSCM:
    """Add a driver node ``D`` (seasonal or trend input, noise, self-lag) feeding ``A`` and
    ``Y`` instantaneously; ``label`` is ``<base>+<seasonal|trend>_<observed|hidden>``."""
    base, drv = label.split("+")
    kind, vis = drv.split("_")
    N = s.n_vars
    A0 = np.zeros((N + 1, N + 1), dtype=np.int8)
    AL = np.zeros((1, N + 1, N + 1), dtype=np.int8)
    a = s.arrays()
    A0[:N, :N], AL[0, :N, :N] = a["A0"], a["A_lag"][0]
    W0 = np.zeros((N + 1, N + 1))
    WL = np.zeros((1, N + 1, N + 1))
    W0[:N, :N], WL[0, :N, :N] = a["W0"], a["W_lag"][0]
    d = N
    for tgt in ("A", "Y"):
        j = s.index(tgt)
        A0[d, j] = 1
        W0[d, j] = float(rng.uniform(0.5, 1.0) * rng.choice([-1.0, 1.0]))
    AL[0, d, d] = 1
    WL[0, d, d] = float(rng.uniform(0.2, 0.6))
    if kind == "seasonal":
        driver = Driver(
            kind="seasonal",
            node="D",
            amplitude=float(rng.uniform(0.5, 1.5)),
            period=float(rng.uniform(8.0, 30.0)),
            phase=float(rng.uniform(0, 2 * np.pi)),
        )
    else:
        slope = float(rng.uniform(0.005, 0.02) * rng.choice([-1.0, 1.0]))
        driver = Driver(kind="trend", node="D", slope=slope)
    hidden = vis == "hidden"
    lab = s.structure.model_dump()
    lab.update(
        name=label,
        identifiable=not hidden and lab["identifiable"],
        strategy="none" if hidden else ("backdoor" if lab["strategy"] != "none" else "none"),
    )
    return TemporalSCM(
        **{
            **s.model_dump(),
            "names": [*s.names, "D"],
            "A0": A0,
            "A_lag": AL,
            "W0": W0,
            "W_lag": WL,
            "bias": [*a["bias"], 0.0],
            "mechanisms": [*s.mechanisms, "linear"],
            "noise_scale": [*a["noise_scale"], 0.3],
            "hidden": [*s.hidden, "D"] if hidden else list(s.hidden),
            "drivers": [driver.model_dump()],
            "structure": lab,
        }
    )


def _draw_structure(
    suite: TemporalSuite, ss, i: int, a: int
) -> tuple[TemporalSCM, TemporalIntervention]:
    """Named structure of index ``i`` (its ``cell``); ``i`` is the latent index."""
    o = suite.options
    names = o["structures"]
    label = names[i % len(names)]
    rng = episode_stream(ss, (i, a), S_DRAW)
    base = label.split("+")[0]
    s = identification_structure(base, rng, prior=o.get("prior", "default"))
    if "+" in label:
        s = _with_driver(s, label, rng)
    s = TemporalSCM(**{**s.model_dump(), "scm_id": f"{suite.name}-{i}-{a}"})
    # intervention on the treatment A with the generic type/window prior
    kw = {"types": o["types"], "p_types": (1.0,) * len(o["types"])} if "types" in o else {}
    iv0 = draw_intervention(episode_stream(ss, (i, a), S_IV), s, **kw)
    iv = TemporalIntervention(**{**iv0.model_dump(), "target": "A"})
    return s, iv


def _query_for(suite: TemporalSuite, ss, i, a, s, iv, T) -> Query:
    """The query of a discrete episode under the suite's protocol (module docstring)."""
    proto = suite.options.get("query", "offsets")
    t0, t1 = iv.window_steps(T)
    if s.structure is not None:  # always the outcome Y (also when it is not a descendant)
        y = s.index(s.structure.outcome)
        lag = s.structure.min_lag or 0
        if proto == "dotime":
            base = s.structure.name.split("+")[0]
            lo, hi = DOTIME_QUERY_OFFSETS.get(base, (0, 0))
            o = int(episode_stream(ss, (i, a), S_QUERY).integers(lo, hi + 1))
            off = np.array([max(o, lag)], dtype=np.intp)
        else:
            off = np.array([lag + o for o in DISCRETE_OFFSETS], dtype=np.intp)
        times = np.minimum(t0 + off, T - 1)
        off = times - t0
        off = np.unique(off)
        return Query(s.structure.outcome, y, off, t0 + off, lag, False)
    q = select_query(
        episode_stream(ss, (i, a), S_QUERY),
        s,
        iv,
        T,
        offsets=DISCRETE_OFFSETS,
        last=proto == "last",
    )
    if proto == "window_end":  # the window's last step (DoTime dot-Wide-v1)
        last = int(t1) - 1
        return Query(
            q.variable, q.column, np.array([last - t0]), np.array([last]), q.min_lag, q.is_target
        )
    return q


def _observe_cell(
    suite: TemporalSuite, ss, i: int, F: np.ndarray, variables: list[str], cell
) -> tuple[np.ndarray, np.ndarray | None]:
    """Factual arm seen through an observation cell: (x_obs with NaN, mask or None)."""
    kind, noise = cell
    r = episode_stream(ss, (i,), S_MISSING)
    x = F
    if noise > 0:
        sd = F.std(axis=0, keepdims=True)
        x = F + r.normal(0.0, 1.0, F.shape) * noise * sd
    rate = float(suite.options.get("missing_rate", MISSING_RATE))
    if kind == "none":
        return x, None
    if kind == "mcar":
        mask = mcar_mask(r, F.shape, rate)
    elif kind == "mar":
        mask = mar_mask(r, F, rate, variables.index("A"))
    else:
        mask = mnar_mask(r, F, rate)
    return np.where(mask, np.nan, x), mask


def _tag(s: TemporalSCM, **kw) -> TemporalSCM:
    return TemporalSCM(**{**s.model_dump(), "metadata": {**s.metadata, **kw}})


def _discrete(suite: TemporalSuite, ss, idx: list[int]) -> list[SuiteEpisode]:
    T = suite.T
    draw = _draw_structure if suite.family == "structures" else _draw_generic
    pair_mode = suite.options.get("pair_mode", "counterfactual")
    cells = {i: suite.cell(i) for i in idx}
    latents = sorted({c["latent"] for c in cells.values()})
    attempt = dict.fromkeys(latents, 0)
    done: dict[int, tuple] = {}
    pending = list(latents)
    while pending:
        items = []
        for i in pending:
            a = attempt[i]
            if a >= 20:
                raise AuditError(f"{suite.name} episode {i}: every one of 20 draws diverged")
            s, iv = draw(suite, ss, i, a)
            q = _query_for(suite, ss, i, a, s, iv, T)
            items.append((i, a, s, iv, q))
        b = simulate(
            [it[2] for it in items],
            T,
            [it[3] for it in items],
            ss,
            keys=[(it[0], it[1]) for it in items],
            pair_mode=pair_mode,
        )
        nxt = []
        for e, it in enumerate(items):
            if b.diverged[e]:
                attempt[it[0]] += 1
                nxt.append(it[0])
                continue
            done[it[0]] = (*it, b, e)
        pending = nxt
    out = []
    for i in idx:
        li, a, s, iv, q, b, e = done[cells[i]["latent"]]
        n = int(b.n_vars[e])
        obs = [int(c) for c in b.observed[e]]
        F = b.factual[e, :, :n][:, obs]
        X = b.interventional[e, :, :n][:, obs]
        qc = _released_query(q, obs)
        variables = [s.names[c] for c in obs]
        mask = None
        x_obs = F
        if "missing" in suite.options:
            lo, hi = suite.options["missing"]
            rate = float(episode_stream(ss, (i,), S_SUITE).uniform(lo, hi))
            mask = mcar_mask(episode_stream(ss, (i, a), S_MISSING), F.shape, rate)
            x_obs = np.where(mask, np.nan, F)
        if "observation" in cells[i]:
            x_obs, mask = _observe_cell(suite, ss, i, F, variables, cells[i]["observation"])
            kind, noise = cells[i]["observation"]
            s = _tag(s, observation={"missing": kind, "noise_sd": noise, "latent": li})
        name, ident, null = _label(s)
        t0, t1 = int(b.window[e, 0]), int(b.window[e, 1])
        out.append(
            SuiteEpisode(
                suite=suite.name,
                version=suite.version,
                index=i,
                attempt=a,
                scm=s,
                intervention=_resolved(iv, b.value[e]),
                variables=variables,
                x_obs=x_obs,
                x_int=X,
                x_fact=F,
                times=None,
                mask=mask,
                onset=t0,
                window_end=t1,
                query=q,
                query_column=qc,
                y_true=X[q.times, qc],
                y_factual=F[q.times, qc],
                structure=name,
                identifiable=ident,
                null_effect=null,
                pair_mode=b.pair_mode,
                positivity=float(b.positivity[e]),
                percentile=float(b.percentile[e]),
                level=float(b.level[e]),
                diagnostics={k: float(v[e]) for k, v in b.diagnostics.items()},
                regime_path=b.regime[e].copy() if s.n_regimes > 1 else None,
                regime_path_int=b.regime_int[e].copy() if s.n_regimes > 1 else None,
            )
        )
    return out


def _draw_continuous(suite: TemporalSuite, ss, i: int, a: int):
    if "structures" in suite.options:
        return _draw_structure(suite, ss, i, a)
    o = suite.options
    kind = o.get("kind")
    if kind is None:
        r = episode_stream(ss, (i, a), S_SUITE)
        kind = "diverse" if r.random() < 0.8 else "chain"
    s = draw_temporal_scm(
        episode_stream(ss, (i, a), S_DRAW),
        scm_id=f"{suite.name}-{i}-{a}",
        kind=kind,
        prior=o.get("prior", "default"),
    )
    return s, draw_intervention(episode_stream(ss, (i, a), S_IV), s)


def _continuous(suite: TemporalSuite, ss, idx: list[int]) -> list[SuiteEpisode]:
    gap, H, dt = 0.1, suite.T * 0.1, 0.02
    attempt = dict.fromkeys(idx, 0)
    done: dict[int, SuiteEpisode] = {}
    pending = list(idx)
    pair_mode = suite.options.get("pair_mode", "counterfactual")
    while pending:
        items = []
        for i in pending:
            a = attempt[i]
            if a >= 20:
                raise AuditError(f"{suite.name} episode {i}: every one of 20 draws diverged")
            s, iv = _draw_continuous(suite, ss, i, a)
            items.append((i, a, s, iv))
        b = simulate_continuous(
            [it[2] for it in items],
            H,
            [it[3] for it in items],
            ss,
            dt=dt,
            keys=[(it[0], it[1]) for it in items],
            pair_mode=pair_mode,
        )
        nxt = []
        for e, (i, a, s, iv) in enumerate(items):
            if b.diverged[e]:
                attempt[i] += 1
                nxt.append(i)
                continue
            r = episode_stream(ss, (i, a), S_SCHEDULE)
            kind = suite.cell(i)["schedule"]
            times = observation_times(r, H, gap, kind)
            n = int(b.n_vars[e])
            obs = [int(c) for c in b.observed[e]]
            F = observe(b.factual[e, :, :n], dt, times)[:, obs]
            X = observe(b.interventional[e, :, :n], dt, times)[:, obs]
            M = len(times)
            # onset = first row whose values are intervened: a hard/time-varying clamp sets the
            # grid points inside the window, a soft shift of the drift reaches the state one
            # fine step later (simulate._run_continuous)
            on = b.int_mask[e]
            affected = np.concatenate([[False], on[:-1]]) if iv.type == "soft" else on
            win = observed_window(times, dt, affected)
            if win is None:  # the schedule never reads an intervened point: redraw
                attempt[i] += 1
                nxt.append(i)
                continue
            j0, j1 = win
            if s.structure is not None:  # the outcome Y, row uniform over [onset, M - 1]
                y = s.index(s.structure.outcome)
                row = int(episode_stream(ss, (i, a), S_QUERY).integers(j0, M))
                q = Query(
                    s.structure.outcome,
                    y,
                    np.array([row - j0], dtype=np.intp),
                    np.array([row], dtype=np.intp),
                    int(s.structure.min_lag or 0),
                    False,
                )
            else:
                q0 = select_query(
                    episode_stream(ss, (i, a), S_QUERY), s, iv, M, offsets=CONTINUOUS_OFFSETS
                )
                lag_obs = int(np.ceil(q0.min_lag * s.lag_time / gap))
                off = np.array([lag_obs + o for o in CONTINUOUS_OFFSETS], dtype=np.intp)
                qt = j0 + off
                keep = qt < M
                if not keep.any():
                    off = np.array([M - 1 - j0], dtype=np.intp)
                    qt = np.array([M - 1], dtype=np.intp)
                else:
                    off, qt = off[keep], qt[keep]
                q = Query(q0.variable, q0.column, off, qt, q0.min_lag, q0.is_target)
            qc = _released_query(q, obs)
            name, ident, null = _label(s)
            done[i] = SuiteEpisode(
                suite=suite.name,
                version=suite.version,
                index=i,
                attempt=a,
                scm=_tag(s, schedule=kind),
                intervention=_resolved(iv, b.value[e]),
                variables=[s.names[c] for c in obs],
                x_obs=F,
                x_int=X,
                x_fact=F,
                times=times,
                mask=None,
                onset=j0,
                window_end=j1,
                query=q,
                query_column=qc,
                y_true=X[q.times, qc],
                y_factual=F[q.times, qc],
                structure=name,
                identifiable=ident,
                null_effect=null,
                pair_mode=b.pair_mode,
                positivity=float(b.positivity[e]),
                percentile=float(b.percentile[e]),
                level=float(b.level[e]),
                diagnostics={k: float(v[e]) for k, v in b.diagnostics.items()},
            )
        pending = nxt
    return [done[i] for i in idx]
