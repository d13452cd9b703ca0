"""Random temporal SCMs, interventions and queries (the generator's priors).

Graph prior: the instantaneous graph is Erdős–Rényi over a random topological order (a strictly
upper-triangular Bernoulli(p) mask in that order, acyclic by construction, no rejection); lag-k
edges are Bernoulli(p * gamma**k) (self-loops at lag 1 are added with probability
``p_self``); ``p ~ Beta(2, 5)``, ``N ~ U{3..10}``, ``K ~ U{1..3}`` unless given.  Mechanisms
are uniform over :data:`~causalarena.spec_temporal.MECHANISMS`; noise scales are shifted
exponentials (roots of the instantaneous graph ``0.3 + Exp(0.3)``, others ``0.1 + Exp(0.2)``).

Types: ``diverse`` (the above), ``chain`` (a single directed path over all nodes in a random
order, each link instantaneous or at lag 1 with probability 1/2, plus self-lags) and
``regime`` (a diverse SCM plus a second parameter set — weights rescaled by U[0.5, 1.5] with
30% sign flips and shifted biases — switched at a fixed fraction of the horizon or by a
two-state Markov chain).  The default mix is 70/15/15.

Priors: ``prior="default"`` is the above; ``prior="dotime"`` is the prior stated by DoTime
(Thumm et al., 2026, section 3.2-3.3, and its ``DEFAULT_CONFIG``): edge weights and lag weights
``N(0, 1)``, biases ``N(0, 0.5**2)``, ``p ~ Beta(2, 5)``, lag decay ``gamma = 0.7`` (lag-k
edges, self-lags included, Bernoulli(``p * 0.7**k``), no extra self-loops), the nine mechanisms
uniform, root noise scale ``0.1 + Exp(1)``, non-root ``0.01 + Exp(0.1)`` (mean 0.1), no
seasonal driver.  Both priors keep this package's stability handling (below); the mechanism
drawn for each node before the ``square`` feedback rule is kept in ``metadata``
(``mechanisms_drawn``) so the realised shares can be reported against the prior.

Stability: ``stability="rescale"`` (default) multiplies each lag-k weight matrix by ``c**k``
with ``c = target_radius / rho`` whenever the companion spectral radius ``rho`` of the linear
part (:func:`~causalarena.generator.temporal.simulate.companion_radius`) exceeds ``target_radius``, which
sets ``rho`` to exactly ``target_radius`` (for both regimes); ``"reject"`` redraws from the same
generator until ``rho <= target_radius``; ``"none"`` keeps the draw.  Non-linear mechanisms
(``square``) can still diverge, so simulation also checks every step and
:func:`causalarena.generator.temporal.generate.generate_pairs` redraws diverged episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from causalarena.errors import SpecError
from causalarena.generator.temporal.simulate import _radius
from causalarena.spec_temporal import (
    MECHANISMS,
    Driver,
    RegimeChain,
    RegimeSwitch,
    TemporalIntervention,
    TemporalSCM,
    min_lag_matrix,
)

Kind = Literal["diverse", "chain", "regime"]
KINDS: tuple[str, ...] = ("diverse", "chain", "regime")
KIND_MIX: tuple[float, ...] = (0.70, 0.15, 0.15)
#: Parameter priors of :func:`draw_temporal_scm`.
PRIORS: tuple[str, ...] = ("default", "dotime")
#: DoTime's lag decay (``DEFAULT_CONFIG["gamma"]``).
DOTIME_GAMMA = 0.7


def _signed(rng: np.random.Generator, shape, lo: float, hi: float) -> np.ndarray:
    return rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def _rescale(W0: np.ndarray, WL: np.ndarray, target: float) -> tuple[np.ndarray, float]:
    rho = _radius(W0, WL)
    if rho <= target or rho == 0:
        return WL, rho
    c = target / rho
    k = np.arange(1, WL.shape[0] + 1, dtype=np.float64)[:, None, None]
    return WL * c**k, rho


def draw_temporal_scm(
    rng: np.random.Generator,
    *,
    kind: Kind | None = None,
    n_vars: int | None = None,
    max_lag: int | None = None,
    gamma: float = 0.6,
    p_self: float = 0.8,
    p_hidden: float = 0.2,
    p_driver: float = 0.1,
    square_feedback: bool = False,
    stability: Literal["rescale", "reject", "none"] = "rescale",
    target_radius: float = 0.9,
    max_attempts: int = 100,
    scm_id: str = "tscm",
    prior: Literal["default", "dotime"] = "default",
) -> TemporalSCM:
    """Draw one random temporal SCM.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness (the result is a pure function of its state).
    kind : {"diverse", "chain", "regime"} or None
        None draws from the 70/15/15 mix.
    n_vars, max_lag : int, optional
        Fix ``N`` (>= 2) and ``K`` (>= 1) instead of ``U{3..10}`` / ``U{1..3}``.
    gamma : float in (0, 1]
        Geometric decay of lagged-edge probabilities.
    p_self : float
        Probability of each lag-1 self-loop.
    p_hidden : float
        Probability of hiding one confounder (a node with >= 2 children) when ``N >= 3``.
    p_driver : float
        Probability of a seasonal driver on a random node.
    square_feedback : bool, default=False
        If False, ``square`` (the only unbounded super-linear mechanism) is not assigned to a
        node on a feedback loop of the unrolled graph (e.g. with a self-lag); such a node
        redraws uniformly among the other eight mechanisms.  Squares on feedback loops are the
        main cause of divergence (about 45% of draws containing one diverge).
    stability : {"rescale", "reject", "none"}
    target_radius : float
        Companion spectral radius bound (see module docstring).
    prior : {"default", "dotime"}
        Parameter prior (see module docstring); ``"dotime"`` overrides ``gamma``, ``p_self``
        and ``p_driver`` with DoTime's values (0.7, 0, 0).

    Returns
    -------
    TemporalSCM
        ``metadata`` records ``prior``, ``edge_prob``, ``rho_drawn`` (before rescaling),
        ``rescaled`` and ``mechanisms_drawn``.

    Raises
    ------
    SpecError
        Unknown ``kind`` or ``prior``, ``n_vars < 2``, ``max_lag < 1``, or no stable draw.
    """
    if prior not in PRIORS:
        raise SpecError(None, "prior", prior, f"must be one of {PRIORS}")
    dot = prior == "dotime"
    if dot:
        gamma, p_self, p_driver = DOTIME_GAMMA, 0.0, 0.0
    if kind is None:
        kind = KINDS[int(rng.choice(3, p=KIND_MIX))]
    if kind not in KINDS:
        raise SpecError(None, "kind", kind, f"must be one of {KINDS}")
    N = int(rng.integers(3, 11)) if n_vars is None else int(n_vars)
    K = int(rng.integers(1, 4)) if max_lag is None else int(max_lag)
    if N < 2 or K < 1:
        raise SpecError(
            None,
            "n_vars" if N < 2 else "max_lag",
            N if N < 2 else K,
            "need n_vars >= 2 and max_lag >= 1",
        )
    for _attempt in range(max_attempts):
        order = rng.permutation(N)
        p = float(rng.beta(2.0, 5.0))
        A0 = np.zeros((N, N), dtype=np.int8)
        AL = np.zeros((K, N, N), dtype=np.int8)
        if kind == "chain":
            inst = rng.random(N - 1) < 0.5
            for a in range(N - 1):
                if inst[a]:
                    A0[order[a], order[a + 1]] = 1
                else:
                    AL[0, order[a], order[a + 1]] = 1
        else:
            U = np.triu(rng.random((N, N)) < p, 1)
            A0[np.ix_(order, order)] = U
            for k in range(1, K + 1):
                AL[k - 1] = rng.random((N, N)) < p * gamma**k
        AL[0][np.diag_indices(N)] |= (rng.random(N) < p_self).astype(np.int8)
        if dot:
            W0 = rng.normal(0.0, 1.0, (N, N)) * A0
            WL = rng.normal(0.0, 1.0, (K, N, N)) * AL
            bias = rng.normal(0.0, 0.5, N)
        else:
            W0 = _signed(rng, (N, N), 0.3, 1.0) * A0
            WL = _signed(rng, (K, N, N), 0.2, 0.8) * AL
            bias = rng.uniform(-0.5, 0.5, N)
        mech = [MECHANISMS[int(m)] for m in rng.integers(0, len(MECHANISMS), N)]
        drawn = list(mech)
        if not square_feedback:
            loop = np.isfinite(np.diag(min_lag_matrix(A0, AL)))
            others = [m for m in MECHANISMS if m != "square"]
            mech = [
                others[int(rng.integers(0, len(others)))] if m == "square" and loop[j] else m
                for j, m in enumerate(mech)
            ]
        roots = A0.sum(axis=0) == 0
        if dot:
            sigma = np.where(roots, 0.1 + rng.exponential(1.0, N), 0.01 + rng.exponential(0.1, N))
        else:
            sigma = np.where(roots, 0.3 + rng.exponential(0.3, N), 0.1 + rng.exponential(0.2, N))
        regime = None
        if kind == "regime":
            flip0 = np.where(rng.random((N, N)) < 0.3, -1.0, 1.0)
            flipL = np.where(rng.random((K, N, N)) < 0.3, -1.0, 1.0)
            W0b = W0 * rng.uniform(0.5, 1.5, (N, N)) * flip0
            WLb = WL * rng.uniform(0.5, 1.5, (K, N, N)) * flipL
            bias_b = bias + rng.normal(0.0, 1.0, N)
            markov = bool(rng.random() < 0.5)
            sw = float(rng.uniform(0.3, 0.7))
            ps = float(rng.uniform(0.01, 0.05))
        rho0 = _radius(W0, WL)
        rho1 = _radius(W0b, WLb) if kind == "regime" else 0.0
        rho = max(rho0, rho1)
        if stability == "reject" and rho > target_radius:
            continue
        rescaled = False
        if stability == "rescale":
            WL, r0 = _rescale(W0, WL, target_radius)
            rescaled = r0 > target_radius
            if kind == "regime":
                WLb, r1 = _rescale(W0b, WLb, target_radius)
                rescaled = rescaled or r1 > target_radius
        if kind == "regime":
            regime = RegimeSwitch(
                W0=W0b,
                W_lag=WLb,
                bias=bias_b,
                mode="markov" if markov else "time",
                switch_at=None if markov else sw,
                p_switch=ps if markov else None,
            )
        names = [f"X{i}" for i in range(N)]
        hidden: list[str] = []
        if N >= 3 and rng.random() < p_hidden:
            S = ((A0 + AL.sum(axis=0)) > 0).astype(int)
            np.fill_diagonal(S, 0)
            cands = np.flatnonzero(S.sum(axis=1) >= 2)
            if cands.size:
                hidden = [names[int(rng.choice(cands))]]
        drivers = []
        if rng.random() < p_driver:
            drivers = [
                Driver(
                    kind="seasonal",
                    node=names[int(rng.integers(0, N))],
                    amplitude=float(rng.uniform(0.2, 1.0)),
                    period=float(rng.uniform(6.0, 30.0)),
                    phase=float(rng.uniform(0.0, 2 * np.pi)),
                )
            ]
        return TemporalSCM(
            scm_id=scm_id,
            kind=kind,
            names=names,
            max_lag=K,
            A0=A0,
            A_lag=AL,
            W0=W0 + 0.0,
            W_lag=WL + 0.0,
            bias=bias,
            mechanisms=mech,
            noise_scale=sigma,
            hidden=hidden,
            regime=regime,
            drivers=drivers,
            metadata={
                "prior": prior,
                "edge_prob": p,
                "rho_drawn": rho,
                "rescaled": rescaled,
                "mechanisms_drawn": drawn,
            },
        )
    raise SpecError(
        None,
        "stability",
        stability,
        f"no draw with radius <= {target_radius} in {max_attempts} attempts",
    )


#: DoTime's sticky transition prior: row ``i`` ~ Dirichlet(0.5, ..., 9 at ``i``, ..., 0.5).
DOTIME_STAY_ALPHA, DOTIME_MOVE_ALPHA = 9.0, 0.5


def draw_regimes_scm(
    rng: np.random.Generator,
    n_regimes: int,
    *,
    n_vars: int | None = None,
    max_lag: int | None = None,
    stability: Literal["rescale", "reject", "none"] = "rescale",
    target_radius: float = 0.9,
    max_attempts: int = 100,
    scm_id: str = "tscm",
) -> TemporalSCM:
    """Draw a regime-switching SCM with ``n_regimes`` regimes, each with its own graph.

    DoTime's regime-switching prior (``dotime.RegimeSwitchingSCMBuilder`` with live parent
    weights, ``regime_canonical_weights=True``): ``N ~ U{3..10}`` and ``K ~ U{1..3}`` shared by
    the regimes; per regime an edge probability ``p ~ Beta(2, 5)``, an instantaneous graph
    that is Erdős–Rényi(``p``) over one random topological order shared by every regime (so
    the union graph is acyclic; DoTime renames each regime's topological order to the same
    canonical ``X0..X{N-1}``), lag-k edges Bernoulli(``p * 0.7**k``), weights ``N(0, 1)``,
    biases ``N(0, 0.5**2)`` and mechanisms uniform over the nine (``square`` redrawn on a
    feedback loop of the union graph, as in :func:`draw_temporal_scm`); one noise scale per
    node for all regimes (roots of regime 0: ``0.1 + Exp(1)``, others ``0.01 + Exp(0.1)``);
    transition row ``i`` ~ Dirichlet with 9 on the diagonal and 0.5 elsewhere, first regime
    uniform.  No hidden variables, no drivers.  Each regime's lag weights are rescaled to
    companion radius ``target_radius`` (``stability="rescale"``) as in
    :func:`draw_temporal_scm`.

    Returns
    -------
    TemporalSCM
        ``kind="regime"`` with ``regimes`` set; its ``A0``/``A_lag`` are the union graphs.
        ``metadata`` records ``prior`` (``"dotime"``), ``edge_prob`` (per regime),
        ``rho_drawn`` (max over regimes), ``rescaled`` and ``mechanisms_drawn`` (every regime's,
        regime after regime).

    Raises
    ------
    SpecError
        ``n_regimes < 2``, ``n_vars < 2``, ``max_lag < 1`` or no stable draw.
    """
    R = int(n_regimes)
    if R < 2:
        raise SpecError(None, "n_regimes", n_regimes, "a regime-switching SCM needs >= 2 regimes")
    N = int(rng.integers(3, 11)) if n_vars is None else int(n_vars)
    K = int(rng.integers(1, 4)) if max_lag is None else int(max_lag)
    if N < 2 or K < 1:
        raise SpecError(None, "n_vars", N, "need n_vars >= 2 and max_lag >= 1")
    for _attempt in range(max_attempts):
        order = rng.permutation(N)
        alpha = np.full((R, R), DOTIME_MOVE_ALPHA)
        np.fill_diagonal(alpha, DOTIME_STAY_ALPHA)
        P = np.stack([rng.dirichlet(alpha[i]) for i in range(R)])
        graphs = []
        for _r in range(R):
            p = float(rng.beta(2.0, 5.0))
            A0 = np.zeros((N, N), dtype=np.int8)
            A0[np.ix_(order, order)] = np.triu(rng.random((N, N)) < p, 1)
            AL = np.zeros((K, N, N), dtype=np.int8)
            for k in range(1, K + 1):
                AL[k - 1] = rng.random((N, N)) < p * DOTIME_GAMMA**k
            W0 = rng.normal(0.0, 1.0, (N, N)) * A0
            WL = rng.normal(0.0, 1.0, (K, N, N)) * AL
            bias = rng.normal(0.0, 0.5, N)
            mech = [MECHANISMS[int(m)] for m in rng.integers(0, len(MECHANISMS), N)]
            graphs.append([p, A0, AL, W0, WL, bias, mech])
        U0 = np.any([g[1] for g in graphs], axis=0).astype(np.int8)
        UL = np.any([g[2] for g in graphs], axis=0).astype(np.int8)
        loop = np.isfinite(np.diag(min_lag_matrix(U0, UL)))
        others = [m for m in MECHANISMS if m != "square"]
        drawn = [m for g in graphs for m in g[6]]
        for g in graphs:
            g[6] = [
                others[int(rng.integers(0, len(others)))] if m == "square" and loop[j] else m
                for j, m in enumerate(g[6])
            ]
        roots = graphs[0][1].sum(axis=0) == 0
        sigma = np.where(roots, 0.1 + rng.exponential(1.0, N), 0.01 + rng.exponential(0.1, N))
        rhos = [_radius(g[3], g[4]) for g in graphs]
        if stability == "reject" and max(rhos) > target_radius:
            continue
        rescaled = False
        if stability == "rescale":
            for g in graphs:
                g[4], r0 = _rescale(g[3], g[4], target_radius)
                rescaled = rescaled or r0 > target_radius
        regs = [
            {"A0": A0, "A_lag": AL, "W0": W0 + 0.0, "W_lag": WL + 0.0, "bias": b, "mechanisms": m}
            for _p, A0, AL, W0, WL, b, m in graphs
        ]
        g0 = regs[0]
        return TemporalSCM(
            scm_id=scm_id,
            kind="regime",
            names=[f"X{i}" for i in range(N)],
            max_lag=K,
            A0=U0,
            A_lag=UL,
            W0=g0["W0"],
            W_lag=g0["W_lag"],
            bias=g0["bias"],
            mechanisms=g0["mechanisms"],
            noise_scale=sigma,
            regimes=RegimeChain(regimes=regs, transition=P),
            metadata={
                "prior": "dotime",
                "edge_prob": [g[0] for g in graphs],
                "rho_drawn": float(max(rhos)),
                "rescaled": rescaled,
                "mechanisms_drawn": drawn,
            },
        )
    raise SpecError(
        None,
        "stability",
        stability,
        f"no draw with radius <= {target_radius} in {max_attempts} attempts",
    )


#: DoTime's intervention sampler (``dotime.interventions.InterventionSampler`` defaults).
DOTIME_IV_TYPES, DOTIME_IV_P = ("hard", "soft", "time_varying"), (0.5, 0.3, 0.2)
DOTIME_PROFILES = ("step", "ramp", "sine", "trajectory")
DOTIME_MIN_WINDOW = 10


def draw_intervention_dotime(
    rng: np.random.Generator, scm: TemporalSCM, T: int, *, max_targets: int = 2
) -> TemporalIntervention:
    """DoTime's intervention prior (``InterventionSampler``, used by its generic, regime and
    wide suites), on observed variables.

    Type hard / soft / time-varying with probabilities 0.5 / 0.3 / 0.2; ``m ~ U{1..2}``
    distinct targets (uniform over the observed variables); window length
    ``L ~ U{10..T-10}`` steps and start ``s ~ U{10..T-L}``; hard value ``2 z``, soft shift
    ``z`` (``z ~ N(0, 1)``); time-varying profile uniform over step (-2 before
    ``s + L // 2``, +2 from there), ramp (-2 to +2 over the window: ``v0 = -2``,
    ``slope = 4 / L``), sine (``2 sin(2 pi (t - s) / L)``) and trajectory (``L`` values
    ``2 z_i``, one per step).  Values are fixed at draw time (DoTime's values do not depend
    on the data), so ``value_mode`` is not used.

    Raises
    ------
    SpecError
        ``T < 20`` (no room for a 10-step context and a 10-step window).
    """
    m0 = DOTIME_MIN_WINDOW
    if T < 2 * m0:
        raise SpecError(None, "T", T, f"DoTime's intervention prior needs T >= {2 * m0}")
    obs = scm.observed
    typ = DOTIME_IV_TYPES[int(rng.choice(3, p=DOTIME_IV_P))]
    m = int(rng.integers(1, min(max_targets, len(obs)) + 1))
    cols = [obs[int(c)] for c in rng.permutation(len(obs))[:m]]
    L = int(rng.integers(m0, T - m0 + 1))
    start = int(rng.integers(m0, T - L + 1))
    kw: dict = {}
    if typ == "hard":
        value = 2.0 * float(rng.standard_normal())
    elif typ == "soft":
        value = float(rng.standard_normal())
    else:
        prof = DOTIME_PROFILES[int(rng.integers(0, 4))]
        if prof == "step":
            value = -2.0
            kw = {"profile": "step", "jump": 4.0, "step_at": float(L // 2)}
        elif prof == "ramp":
            value = -2.0
            kw = {"profile": "ramp", "slope": 4.0 / L}
        elif prof == "sine":
            value = 0.0
            kw = {"profile": "sine", "amplitude": 2.0, "period": float(L), "phase": 0.0}
        else:
            value = 0.0
            kw = {
                "profile": "trajectory",
                "trajectory": [float(x) for x in 2.0 * rng.standard_normal(L)],
            }
    return TemporalIntervention(
        target=scm.names[cols[0]],
        extra_targets=[scm.names[c] for c in cols[1:]],
        type=typ,
        value=value,
        value_mode="prior",
        start=start / T,
        end=(start + L) / T,
        **kw,
    )


def draw_intervention(
    rng: np.random.Generator,
    scm: TemporalSCM,
    *,
    types: tuple[str, ...] = ("hard", "soft", "time_varying"),
    p_types: tuple[float, ...] = (0.5, 0.25, 0.25),
    value_mode: str = "positivity_aware",
    windowed: float = 0.5,
    profiles: tuple[str, ...] = ("ramp", "sine"),
) -> TemporalIntervention:
    """Draw an intervention on an observed node, preferring nodes with observed descendants.

    The onset is ``start ~ U[0.4, 0.6]``; with probability ``windowed`` the intervention ends
    at ``start + U[0.1, 0.3]`` (capped at 1), otherwise it lasts to the horizon.  Time-varying
    interventions get a ramp (``slope ~ U[-0.05, 0.05]`` per step) or a sine
    (``amplitude ~ U[0.5, 1.5]``, ``period ~ U[8, 40]``, ``phase ~ U[0, 2 pi)``).  The value is
    left to ``value_mode`` (resolved from the factual context at simulation time).
    ``profiles`` (uniform) may add ``"step"`` (``jump ~ U[0.5, 2] x sign`` at
    ``step_at ~ U{1..10}`` steps after onset) and ``"trajectory"`` (a Gaussian random walk of
    40 steps with step SD 0.2, held after its end).
    """
    obs = scm.observed
    hid = {scm.index(h) for h in scm.hidden}
    D = scm.min_lag_matrix()
    with_desc = [
        i
        for i in obs
        if any(j not in hid and j != i and np.isfinite(D[i, j]) for j in range(scm.n_vars))
    ]
    pool = with_desc or obs
    target = scm.names[int(pool[int(rng.integers(0, len(pool)))])]
    typ = types[int(rng.choice(len(types), p=np.asarray(p_types) / np.sum(p_types)))]
    start = float(rng.uniform(0.4, 0.6))
    end = float(min(1.0, start + rng.uniform(0.1, 0.3))) if rng.random() < windowed else None
    kw: dict = {}
    if typ == "time_varying":
        prof = "ramp" if profiles == ("ramp", "sine") and rng.random() < 0.5 else None
        if prof is None and profiles != ("ramp", "sine"):
            prof = profiles[int(rng.integers(0, len(profiles)))]
        if prof == "ramp":
            kw = {"profile": "ramp", "slope": float(rng.uniform(-0.05, 0.05))}
        elif prof == "step":
            kw = {
                "profile": "step",
                "jump": float(rng.uniform(0.5, 2.0) * rng.choice([-1.0, 1.0])),
                "step_at": float(rng.integers(1, 11)),
            }
        elif prof == "trajectory":
            kw = {
                "profile": "trajectory",
                "trajectory": [float(x) for x in np.cumsum(rng.normal(0.0, 0.2, 40))],
            }
        else:
            kw = {
                "profile": "sine",
                "amplitude": float(rng.uniform(0.5, 1.5)),
                "period": float(rng.uniform(8.0, 40.0)),
                "phase": float(rng.uniform(0.0, 2 * np.pi)),
            }
    return TemporalIntervention(
        target=target, type=typ, value_mode=value_mode, start=start, end=end, **kw
    )


@dataclass(frozen=True)
class Query:
    """What to predict: the query variable at times after onset (chosen from the graph only).

    Attributes
    ----------
    variable : str
    column : int
    offsets : ndarray of int
        Steps after onset (``>= min_lag``).
    times : ndarray of int
        ``t0 + offsets`` (retained-step indices, all ``< T``).
    min_lag : int
        Shortest target -> query lag (0 when the query is the target itself).
    is_target : bool
        True only when the target has no observed descendant (the query is then the target).
    """

    variable: str
    column: int
    offsets: np.ndarray
    times: np.ndarray
    min_lag: int
    is_target: bool


def select_query(
    rng: np.random.Generator,
    scm: TemporalSCM,
    intervention: TemporalIntervention,
    T: int,
    *,
    offsets: tuple[int, ...] = (0, 1, 2, 5, 10),
    last: bool = False,
) -> Query:
    """Pick an observed strict descendant of the targets (instantaneous or lagged path) that
    is not itself a target.

    Uses only the graph (never the interventional arm).  Query offsets are
    ``min_lag + offsets`` steps after the onset ``t0`` (``min_lag`` from the nearest
    target), kept where ``< T`` (at least the last step); ``last=True`` queries the last step
    ``T - 1`` only (DoTime's generic and regime suites), preferring descendants with
    ``min_lag <= T - 1 - t0``.  ``y_true`` is then
    ``batch.interventional[e, query.times, query.column]``.
    """
    cols = intervention.columns(scm)
    a = cols[0]
    D = scm.min_lag_matrix()
    obs = set(scm.observed)
    lag_of = D[cols].min(axis=0)  # shortest lag from any target
    cands = [j for j in range(scm.n_vars) if j in obs and j not in cols and np.isfinite(lag_of[j])]
    t0, _ = intervention.window_steps(T)
    if last and cands:  # prefer variables the intervention can reach by the last step
        near = [j for j in cands if lag_of[j] <= T - 1 - t0]
        cands = near or cands
    if cands:
        y = int(cands[int(rng.integers(0, len(cands)))])
        lag = int(lag_of[y])
    else:
        y, lag = a, 0
    if last:
        times = np.array([T - 1], dtype=np.intp)
        return Query(scm.names[y], y, times - t0, times, lag, not cands)
    off = np.array([lag + o for o in offsets], dtype=np.intp)
    times = t0 + off
    keep = times < T
    if not keep.any():
        off, times = np.array([T - 1 - t0], dtype=np.intp), np.array([T - 1], dtype=np.intp)
    else:
        off, times = off[keep], times[keep]
    return Query(scm.names[y], y, off, times, lag, not cands)
