"""Named temporal suites (``dot-*``): what each contains, its split and its episode generator.

Every suite is a pure function of ``(name, version, seed)``.  Episode ``index`` of a suite is
generated from ``SeedSequence(seed, spawn_key=(crc32(name), crc32(version)))`` with the
temporal generator's per-episode keys ``(index, attempt, stream)``, so an episode never depends
on which other episodes are generated with it, on the batch, the shard or the worker count.

Split
-----
The index pool of a suite holds ``2 * full`` episodes.  It is cut into consecutive blocks of
``2 * g`` indices (``g`` = :attr:`TemporalSuite.group`); inside a block, index ``b + j`` is
paired with ``b + g + j`` and a seeded coin decides which of the two is public (released as
split ``test``) and which is reserved (never written).  For ``dot-identifiability`` and
``dot-seasonal-trend`` ``g`` is the number of structures and the structure of an index is
``index % g``, so every structure keeps exactly half of its episodes public.  ``mini`` is the
first ``mini`` public indices (in increasing order), ``full`` all public indices.

Suites (discrete time ``T = 200`` unless said otherwise; pairs are counterfactual: both arms
share their exogenous noise and are identical before onset):

``dot-generic``            the generic prior (70/15/15 diverse/chain/regime, ``N`` 3-10, ``K`` 1-3).
``dot-identifiability``    the nine named structures of
                           :mod:`causalarena.generator.temporal.structures` (``A`` intervened, ``Y``
                           queried; random weights).
``dot-regimeswitch``       regime-switching SCMs only.
``dot-continuous``         continuous-time SDEs (generic prior, no regime switching), read on a
                           regular grid of 200 observations (horizon 20, gap 0.1).
``dot-continuous-irregular``  the same, read on jittered or Poisson schedules (mean gap 0.1).
``dot-seasonal-trend``     the structures with a confounder (``backdoor``,
                           ``observed_confounder``, ``confounder_mediator``,
                           ``unobserved_confounder``) whose confounder carries a seasonal driver,
                           plus a linear trend on the treatment.
``dot-wide``               generic prior with ``N ~ U{10..40}`` and ``K ~ U{1..8}``.
``dot-observed``           generic prior, factual arm released with MCAR missingness
                           (rate ``U[0.05, 0.3]``; ``x_obs`` holds NaN where ``mask`` is True).

The query (variable and offsets) comes from the graph only
(:func:`causalarena.generator.temporal.draw.select_query`): a strict observed descendant of the target at
``min_lag + offsets`` steps after onset.  For the named structures the query is always the
outcome ``Y``; in the null-effect structures ``Y`` is not a descendant and the true effect is
exactly 0 (scored for spurious effects).  In continuous suites offsets count observations
after the first observation at or after the onset time (``min_lag`` converted at the mean gap).
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
    draw_temporal_scm,
    select_query,
)
from causalarena.generator.temporal.generate import S_DRAW, S_IV
from causalarena.generator.temporal.observe import (
    mcar_mask,
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
CONFOUNDED = ("backdoor", "observed_confounder", "confounder_mediator", "unobserved_confounder")


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
        Generator options (kind, N/K ranges, structures, schedule, missingness, ...).
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
        coin = rng.integers(0, 2, size=g)
        return bool(coin[pair] == side)

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


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


def _scales(mini: int, full: int) -> dict[str, int]:
    return {"mini": mini, "full": full}


TEMPORAL_SUITES: dict[str, TemporalSuite] = {
    s.name: s
    for s in (
        TemporalSuite(
            "dot-generic",
            "1.0.0",
            20260801,
            "generic",
            _scales(100, 100_000),
            description="Generic prior: diverse/chain/regime temporal SCMs, N 3-10, K 1-3.",
        ),
        TemporalSuite(
            "dot-identifiability",
            "1.0.0",
            20260802,
            "structures",
            _scales(90, 9_000),
            group=len(STRUCTURES),
            options={"structures": tuple(STRUCTURES)},
            description="Nine named identification structures with exact labels.",
        ),
        TemporalSuite(
            "dot-regimeswitch",
            "1.0.0",
            20260803,
            "generic",
            _scales(100, 10_000),
            options={"kind": "regime"},
            description="Regime-switching temporal SCMs (time or Markov switches).",
        ),
        TemporalSuite(
            "dot-continuous",
            "1.0.0",
            20260804,
            "continuous",
            _scales(60, 5_000),
            options={"schedules": ("regular",)},
            description="Continuous-time SDE pairs read on a regular grid of 200 observations.",
        ),
        TemporalSuite(
            "dot-continuous-irregular",
            "1.0.0",
            20260805,
            "continuous",
            _scales(60, 5_000),
            options={"schedules": ("jittered", "poisson")},
            description="Continuous-time SDE pairs read on jittered or Poisson schedules.",
        ),
        TemporalSuite(
            "dot-seasonal-trend",
            "1.0.0",
            20260806,
            "structures",
            _scales(80, 8_000),
            group=len(CONFOUNDED),
            options={"structures": CONFOUNDED, "drivers": True},
            description="Confounded structures with a seasonal confounder and trending treatment.",
        ),
        TemporalSuite(
            "dot-wide",
            "1.0.0",
            20260807,
            "generic",
            _scales(50, 2_000),
            shard_size={"mini": 25, "full": 250},
            options={"n_range": (10, 40), "k_range": (1, 8), "kind": "diverse"},
            description="Wide generic SCMs: N 10-40 variables, K 1-8 lags.",
        ),
        TemporalSuite(
            "dot-observed",
            "1.0.0",
            20260808,
            "generic",
            _scales(100, 10_000),
            options={"missing": (0.05, 0.3)},
            description="Generic prior with MCAR missingness in the released factual arm.",
        ),
    )
}


def get_temporal_suite(name: str) -> TemporalSuite:
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
    the window's start/end.
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

    @property
    def episode_id(self) -> str:
        return f"{self.suite}/{self.version}/{self.index:07d}"


Drawer = Callable[[int, int], tuple[TemporalSCM, TemporalIntervention]]


def _resolved(iv: TemporalIntervention, value: float) -> TemporalIntervention:
    return TemporalIntervention(**{**iv.model_dump(), "value": float(value)})


def _label(scm: TemporalSCM) -> tuple[str, bool | None, bool]:
    if scm.structure is not None:
        return scm.structure.name, scm.structure.identifiable, scm.structure.null_effect
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
    kw = {"kind": o.get("kind"), "n_vars": n_vars, "max_lag": max_lag}
    if suite.family == "continuous" and kw["kind"] is None:
        r = episode_stream(ss, (i, a), S_SUITE)
        kw["kind"] = "diverse" if r.random() < 0.8 else "chain"
    s = draw_temporal_scm(episode_stream(ss, (i, a), S_DRAW), scm_id=f"{suite.name}-{i}-{a}", **kw)
    iv = draw_intervention(episode_stream(ss, (i, a), S_IV), s)
    return s, iv


def _draw_structure(
    suite: TemporalSuite, ss, i: int, a: int
) -> tuple[TemporalSCM, TemporalIntervention]:
    names = suite.options["structures"]
    name = names[i % len(names)]
    rng = episode_stream(ss, (i, a), S_DRAW)
    s = identification_structure(name, rng)
    if suite.options.get("drivers"):
        conf = "U" if "U" in s.names else "C"
        drv = [
            Driver(
                kind="seasonal",
                node=conf,
                amplitude=float(rng.uniform(0.5, 1.5)),
                period=float(rng.uniform(8.0, 30.0)),
                phase=float(rng.uniform(0, 2 * np.pi)),
            ),
            Driver(kind="trend", node="A", slope=float(rng.uniform(-0.01, 0.01))),
        ]
        s = TemporalSCM(**{**s.model_dump(), "drivers": [d.model_dump() for d in drv]})
    s = TemporalSCM(**{**s.model_dump(), "scm_id": f"{suite.name}-{i}-{a}"})
    # intervention on the treatment A with the generic type/window prior
    iv0 = draw_intervention(episode_stream(ss, (i, a), S_IV), s)
    iv = TemporalIntervention(**{**iv0.model_dump(), "target": "A"})
    return s, iv


def _query_for(ss, i, a, s, iv, T, offsets) -> Query:
    if s.structure is not None:  # always the outcome Y (also when it is not a descendant)
        y = s.index(s.structure.outcome)
        lag = s.structure.min_lag or 0
        t0, _ = iv.window_steps(T)
        off = np.array([lag + o for o in offsets], dtype=np.intp)
        times = t0 + off
        keep = times < T
        off, times = off[keep], times[keep]
        return Query(s.structure.outcome, y, off, times, lag, False)
    return select_query(episode_stream(ss, (i, a), S_QUERY), s, iv, T, offsets=offsets)


def _discrete(suite: TemporalSuite, ss, idx: list[int]) -> list[SuiteEpisode]:
    T = suite.T
    draw = _draw_structure if suite.family == "structures" else _draw_generic
    attempt = dict.fromkeys(idx, 0)
    done: dict[int, SuiteEpisode] = {}
    pending = list(idx)
    while pending:
        items = []
        for i in pending:
            a = attempt[i]
            if a >= 20:
                raise AuditError(f"{suite.name} episode {i}: every one of 20 draws diverged")
            s, iv = draw(suite, ss, i, a)
            q = _query_for(ss, i, a, s, iv, T, DISCRETE_OFFSETS)
            items.append((i, a, s, iv, q))
        b = simulate(
            [it[2] for it in items],
            T,
            [it[3] for it in items],
            ss,
            keys=[(it[0], it[1]) for it in items],
            pair_mode="counterfactual",
        )
        nxt = []
        for e, (i, a, s, iv, q) in enumerate(items):
            if b.diverged[e]:
                attempt[i] += 1
                nxt.append(i)
                continue
            n = int(b.n_vars[e])
            obs = [int(c) for c in b.observed[e]]
            F = b.factual[e, :, :n][:, obs]
            X = b.interventional[e, :, :n][:, obs]
            qc = _released_query(q, obs)
            mask = None
            x_obs = F
            if "missing" in suite.options:
                lo, hi = suite.options["missing"]
                rate = float(episode_stream(ss, (i,), S_SUITE).uniform(lo, hi))
                mask = mcar_mask(episode_stream(ss, (i, a), S_MISSING), F.shape, rate)
                x_obs = np.where(mask, np.nan, F)
            name, ident, null = _label(s)
            t0, t1 = int(b.window[e, 0]), int(b.window[e, 1])
            done[i] = SuiteEpisode(
                suite=suite.name,
                version=suite.version,
                index=i,
                attempt=a,
                scm=s,
                intervention=_resolved(iv, b.value[e]),
                variables=[s.names[c] for c in obs],
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
            )
        pending = nxt
    return [done[i] for i in idx]


def _continuous(suite: TemporalSuite, ss, idx: list[int]) -> list[SuiteEpisode]:
    gap, H, dt = 0.1, suite.T * 0.1, 0.02
    attempt = dict.fromkeys(idx, 0)
    done: dict[int, SuiteEpisode] = {}
    pending = list(idx)
    scheds = suite.options["schedules"]
    while pending:
        items = []
        for i in pending:
            a = attempt[i]
            if a >= 20:
                raise AuditError(f"{suite.name} episode {i}: every one of 20 draws diverged")
            s, iv = _draw_generic(suite, ss, i, a)
            items.append((i, a, s, iv))
        b = simulate_continuous(
            [it[2] for it in items],
            H,
            [it[3] for it in items],
            ss,
            dt=dt,
            keys=[(it[0], it[1]) for it in items],
            pair_mode="counterfactual",
        )
        nxt = []
        for e, (i, a, s, iv) in enumerate(items):
            if b.diverged[e]:
                attempt[i] += 1
                nxt.append(i)
                continue
            r = episode_stream(ss, (i, a), S_SCHEDULE)
            kind = scheds[int(r.integers(0, len(scheds)))]
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
            q0 = select_query(
                episode_stream(ss, (i, a), S_QUERY), s, iv, M, offsets=CONTINUOUS_OFFSETS
            )
            lag_obs = int(np.ceil(q0.min_lag * s.lag_time / gap))
            off = np.array([lag_obs + o for o in CONTINUOUS_OFFSETS], dtype=np.intp)
            qt = j0 + off
            keep = qt < M
            if not keep.any():
                off, qt = np.array([M - 1 - j0], dtype=np.intp), np.array([M - 1], dtype=np.intp)
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
                scm=s,
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
                y_true=X[qt, qc],
                y_factual=F[qt, qc],
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
