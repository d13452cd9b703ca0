"""The generic pair generator: draw, simulate, reject diverged episodes, redraw.

Episode ``index`` of a run with base ``seed`` is a pure function of ``(seed, index)`` and the
arguments: attempt ``a`` draws its SCM from stream ``(index, a, S_DRAW)``, its intervention
from ``(index, a, S_IV)``, its query from ``(index, a, S_QUERY)`` and is simulated with
episode key ``(index, a)``.  If either arm diverges at any step the attempt is rejected and
attempt ``a + 1`` is drawn; batching never changes the result.  With a SeedSequence whose
spawn key is ``(suite, version)`` episodes are keyed by ``(suite, version, index)``.
"""

from __future__ import annotations

from collections.abc import Iterable
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
from causalarena.generator.temporal.simulate import S_QUERY, episode_stream, simulate
from causalarena.spec_temporal import TemporalIntervention, TemporalSCM

S_DRAW, S_IV = 8, 9


@dataclass
class Episode:
    """One accepted factual/intervened pair (arrays trimmed to the episode's ``N``).

    Attributes
    ----------
    index, attempt : int
    scm : TemporalSCM
    intervention : TemporalIntervention
        As drawn (``value`` None: resolved value in ``value``).
    query : Query
    names : list of str
    observed : ndarray of int
        Released columns (hidden excluded).
    factual, interventional : ndarray of shape (T, N), float64
        Full truth, hidden columns included; release ``[:, observed]`` only.
    int_mask : ndarray of shape (T,), bool
    window : tuple of int
        ``[t0, t1)``.
    value, level, positivity, percentile : float
    regime : ndarray of shape (T,), int8
    y_true : ndarray of shape (len(query.times),), float64
        ``interventional[query.times, query.column]``.
    y_factual : ndarray
        ``factual[query.times, query.column]``.
    diagnostics : dict of str to float
    pair_mode : str
    """

    index: int
    attempt: int
    scm: TemporalSCM
    intervention: TemporalIntervention
    query: Query
    names: list[str]
    observed: np.ndarray
    factual: np.ndarray
    interventional: np.ndarray
    int_mask: np.ndarray
    window: tuple[int, int]
    value: float
    level: float
    positivity: float
    percentile: float
    regime: np.ndarray
    y_true: np.ndarray
    y_factual: np.ndarray
    diagnostics: dict[str, float]
    pair_mode: str


@dataclass
class PairSet:
    """Accepted episodes (sorted by index) and rejection statistics.

    Attributes
    ----------
    episodes : list of Episode
    attempts : ndarray of shape (n,), int
        Attempts used per index (1 = first draw accepted).
    rejected : int
        Total rejected (diverged) attempts.
    """

    episodes: list[Episode]
    attempts: np.ndarray
    rejected: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def rejected_fraction(self) -> float:
        """Rejected attempts / all attempts."""
        total = int(self.attempts.sum())
        return self.rejected / total if total else 0.0


def generate_pairs(
    seed: int | np.random.SeedSequence,
    indices: Iterable[int],
    T: int = 200,
    *,
    kind: str | None = None,
    n_vars: int | None = None,
    max_lag: int | None = None,
    pair_mode: str = "counterfactual",
    burn_in: int = 100,
    threshold: float = 1e3,
    value_mode: str = "positivity_aware",
    max_attempts: int = 20,
    scm_kwargs: dict[str, Any] | None = None,
    intervention_kwargs: dict[str, Any] | None = None,
    query_offsets: tuple[int, ...] = (0, 1, 2, 5, 10),
    max_batch: int = 4096,
) -> PairSet:
    """Generate factual/intervened pairs for the given episode indices.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
    indices : iterable of int
        Episode indices (any subset; results do not depend on which others are generated).
    T : int
    kind, n_vars, max_lag : optional
        Passed to :func:`~causalarena.generator.temporal.draw.draw_temporal_scm` (None: the default mix).
    pair_mode : {"counterfactual", "interventional"}
    value_mode : str
        Value mode of the drawn interventions.
    max_attempts : int
        Attempts per index before :class:`causalarena.errors.AuditError`.

    Returns
    -------
    PairSet
    """
    idx = [int(i) for i in indices]
    skw = dict(scm_kwargs or {})
    ikw = dict(intervention_kwargs or {})
    attempt = dict.fromkeys(idx, 0)
    accepted: dict[int, Episode] = {}
    pending = list(idx)
    rejected = 0
    while pending:
        scms: list[TemporalSCM] = []
        ivs: list[TemporalIntervention] = []
        queries: list[Query] = []
        keys = []
        for i in pending:
            a = attempt[i]
            if a >= max_attempts:
                raise AuditError(f"episode {i}: every one of {max_attempts} draws diverged")
            s = draw_temporal_scm(
                episode_stream(seed, (i, a), S_DRAW),
                kind=kind,
                n_vars=n_vars,
                max_lag=max_lag,
                scm_id=f"tscm-{i}-{a}",
                **skw,
            )
            iv = draw_intervention(
                episode_stream(seed, (i, a), S_IV), s, value_mode=value_mode, **ikw
            )
            scms.append(s)
            ivs.append(iv)
            queries.append(
                select_query(episode_stream(seed, (i, a), S_QUERY), s, iv, T, offsets=query_offsets)
            )
            keys.append((i, a))
        b = simulate(
            scms,
            T,
            ivs,
            seed,
            keys=keys,
            pair_mode=pair_mode,
            burn_in=burn_in,
            threshold=threshold,
            max_batch=max_batch,
        )
        nxt = []
        for e, i in enumerate(pending):
            if b.diverged[e]:
                rejected += 1
                attempt[i] += 1
                nxt.append(i)
                continue
            n = int(b.n_vars[e])
            q = queries[e]
            F = b.factual[e, :, :n]
            X = b.interventional[e, :, :n]
            accepted[i] = Episode(
                index=i,
                attempt=attempt[i],
                scm=scms[e],
                intervention=ivs[e],
                query=q,
                names=b.names[e],
                observed=b.observed[e],
                factual=F,
                interventional=X,
                int_mask=b.int_mask[e],
                window=(int(b.window[e, 0]), int(b.window[e, 1])),
                value=float(b.value[e]),
                level=float(b.level[e]),
                positivity=float(b.positivity[e]),
                percentile=float(b.percentile[e]),
                regime=b.regime[e],
                y_true=X[q.times, q.column],
                y_factual=F[q.times, q.column],
                diagnostics={k: float(v[e]) for k, v in b.diagnostics.items()},
                pair_mode=b.pair_mode,
            )
        pending = nxt
    attempts = np.array([attempt[i] + 1 for i in idx], dtype=np.intp)
    return PairSet([accepted[i] for i in idx], attempts, rejected)
