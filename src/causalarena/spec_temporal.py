"""Executable specifications of temporal SCMs and of interventions on them.

A temporal structural causal model (TSCM) over ``N`` variables with maximal lag ``K`` is

    X_t^j = f_j( b_j + sum_i W0[i, j] X_t^i + sum_{k=1..K} sum_i W_lag[k-1, i, j] X_{t-k}^i )
            + d_j(t) + eps_t^j,         eps_t^j ~ N(0, sigma_j^2),

where ``f_j`` is the node's mechanism (one of :data:`MECHANISMS`), ``d_j(t)`` an optional
seasonal/trend driver and ``eps`` independent Gaussian noise.  Adjacency convention (as in the
rest of the package): ``A0[i, j] = 1`` iff ``X^i_t -> X^j_t`` and ``A_lag[k-1, i, j] = 1`` iff
``X^i_{t-k} -> X^j_t``.  The instantaneous graph must be acyclic; lagged edges (including
self-loops ``X^j_{t-1} -> X^j_t``) are unrestricted.  Weights must be zero off the edges.

:class:`TemporalSCM` stores everything needed to simulate the model; the simulators in
:mod:`causalarena.generator.temporal.simulate` are pure functions of ``(spec, intervention, T, seed)``.
:class:`TemporalIntervention` is the single intervention model (hard, soft, time-varying, with a
window).  Both are pydantic models with unknown fields rejected and exact JSON round trips
(``TemporalSCM.from_json(s.to_json()) == s``); every invalid spec raises
:class:`causalarena.errors.SpecError` naming the variable (if any), the field and the value.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from causalarena.errors import SpecError

SCHEMA_VERSION = "1.0"

#: Mechanism tags, in code order (the integer code of a tag is its position).
MECHANISMS: tuple[str, ...] = (
    "linear",
    "tanh",
    "sin",
    "cos",
    "abs",
    "square",
    "relu",
    "tanh_square",
    "tanh_relu",
)
Mechanism = Literal[
    "linear", "tanh", "sin", "cos", "abs", "square", "relu", "tanh_square", "tanh_relu"
]
#: Value modes of an intervention whose ``value`` is not fixed (see :class:`TemporalIntervention`).
VALUE_MODES: tuple[str, ...] = (
    "prior",
    "positivity_aware",
    "observed_discrete",
    "observed_normal",
    "observed_uniform",
)
ValueMode = Literal[
    "prior", "positivity_aware", "observed_discrete", "observed_normal", "observed_uniform"
]
#: Identification strategies recorded in :class:`StructureLabel`.
Strategy = Literal["direct", "backdoor", "frontdoor", "iv", "none"]


def _as_list(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)

    def __init__(self, **data: Any):
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _spec_error(exc, data, type(self).__name__) from None

    @classmethod
    def from_json(cls, text: str | bytes):
        """Parse from JSON text (inverse of :meth:`to_json`).

        Raises
        ------
        SpecError
            Invalid JSON or any schema or semantic problem.
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise SpecError(None, "<json>", type(text).__name__, "from_json needs str or bytes")
        from causalarena.safejson import JSONDepthError, loads

        try:
            data = loads(text)
        except JSONDepthError as exc:
            raise SpecError(None, "<json>", f"depth {exc.depth}", f"text {exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
            raise SpecError(None, "<json>", str(exc)[:200], "text is not valid JSON") from None
        if not isinstance(data, dict):
            raise SpecError(None, "<root>", type(data).__name__, "a spec must be a JSON object")
        return cls(**data)

    def to_json(self) -> str:
        """Canonical JSON text; ``cls.from_json(s.to_json()) == s`` exactly."""
        return self.model_dump_json()


def _spec_error(exc: ValidationError, data: dict[str, Any], model: str) -> SpecError:
    err = exc.errors()[0]
    ctx_err = (err.get("ctx") or {}).get("error")
    if isinstance(ctx_err, SpecError):
        return ctx_err
    loc = ".".join(str(p) for p in err.get("loc", ())) or "<root>"
    value = None if err.get("type") == "missing" else err.get("input")
    return SpecError(None, f"{model}.{loc}", value, err.get("msg", "invalid"))


def _finite(name: str, arr: np.ndarray) -> None:
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].ravel()[0]
        raise SpecError(None, name, float(bad), "values must be finite numbers")


class RegimeSwitch(_Strict):
    """A second parameter set and the rule that switches to it.

    Attributes
    ----------
    W0 : list of list of float, shape (N, N)
        Instantaneous weights of regime 1 (zero off the edges of ``A0``; same graph as regime 0).
    W_lag : list, shape (K, N, N)
        Lagged weights of regime 1 (zero off the edges of ``A_lag``).
    bias : list of float, shape (N,)
        Biases of regime 1.
    mode : {"time", "markov"}
        ``"time"``: regime 0 before ``switch_at * T`` (discrete steps, or time units in
        continuous time), regime 1 from then on.  ``"markov"``: a two-state Markov chain started
        in regime 0 at the start of the retained horizon (burn-in always runs in regime 0) that
        flips with probability ``p_switch`` per step (per time unit, times ``dt``, in continuous
        time); the path is drawn from the episode's own stream.
    switch_at : float in (0, 1), optional
        Required for ``mode="time"``.
    p_switch : float in (0, 1), optional
        Required for ``mode="markov"``.
    """

    W0: list[list[float]]
    W_lag: list[list[list[float]]]
    bias: list[float]
    mode: Literal["time", "markov"] = "time"
    switch_at: float | None = Field(default=None, gt=0.0, lt=1.0)
    p_switch: float | None = Field(default=None, gt=0.0, lt=1.0)

    @field_validator("W0", "W_lag", "bias", mode="before")
    @classmethod
    def _arr(cls, v: Any) -> Any:
        return _as_list(v)

    @model_validator(mode="after")
    def _check(self) -> RegimeSwitch:
        if self.mode == "time" and self.switch_at is None:
            raise SpecError(None, "regime.switch_at", None, "mode='time' needs switch_at in (0, 1)")
        if self.mode == "markov" and self.p_switch is None:
            raise SpecError(None, "regime.p_switch", None, "mode='markov' needs p_switch in (0, 1)")
        return self


class Regime(_Strict):
    """Graph and parameters of one regime of a :class:`RegimeChain`.

    Attributes
    ----------
    A0 : list of list of int, shape (N, N), entries 0/1
        Instantaneous adjacency of this regime (a subgraph of the SCM's ``A0``).
    A_lag : list, shape (K, N, N), entries 0/1
        Lagged adjacency of this regime (a subgraph of the SCM's ``A_lag``).
    W0, W_lag, bias : float arrays of shapes (N, N), (K, N, N), (N,)
        Weights (zero off this regime's edges) and biases.
    mechanisms : list of str, length N
        One tag of :data:`MECHANISMS` per node.
    """

    A0: list[list[int]]
    A_lag: list[list[list[int]]]
    W0: list[list[float]]
    W_lag: list[list[list[float]]]
    bias: list[float]
    mechanisms: list[Mechanism]

    @field_validator("A0", "A_lag", "W0", "W_lag", "bias", "mechanisms", mode="before")
    @classmethod
    def _arr(cls, v: Any) -> Any:
        return _as_list(v)


class RegimeChain(_Strict):
    """``R >= 2`` regimes, each with its own graph, switched by a Markov chain.

    The regime ``d_t`` of step ``t`` (burn-in included) follows ``d_0 ~ initial`` and
    ``d_t ~ Categorical(transition[d_{t-1}])``, drawn from the episode's own stream; at step
    ``t`` every node follows regime ``d_t``'s graph, weights, bias and mechanism, with the
    noise scale it has in every regime (DoTime's regime-switching SCM, Thumm et al., 2026,
    section 3.4 and ``dotime.regime_switching``).  In continuous time ``transition`` is the
    one-time-unit chain and a fine step of ``dt`` uses ``I + dt (transition - I)``.

    Attributes
    ----------
    regimes : list of Regime, length R >= 2
        The SCM's own ``A0``/``A_lag`` must be the union of the regimes' graphs (its union
        graph must therefore be acyclic), and its ``W0``/``W_lag``/``bias``/``mechanisms``
        those of regime 0.
    transition : list of list of float, shape (R, R)
        Row-stochastic transition matrix.
    initial : list of float, shape (R,), optional
        Distribution of the first regime (default uniform).
    """

    regimes: list[Regime] = Field(min_length=2, max_length=16)
    transition: list[list[float]]
    initial: list[float] | None = None

    @field_validator("transition", "initial", mode="before")
    @classmethod
    def _arr(cls, v: Any) -> Any:
        return _as_list(v)

    @model_validator(mode="after")
    def _check(self) -> RegimeChain:
        R = len(self.regimes)
        P = _shape_check("regimes.transition", self.transition, (R, R))
        rows = [("regimes.transition", P)]
        if self.initial is not None:
            rows.append(("regimes.initial", _shape_check("regimes.initial", self.initial, (R,))))
        for name, arr in rows:
            if np.any(arr < 0) or not np.allclose(np.atleast_2d(arr).sum(axis=1), 1.0, atol=1e-9):
                raise SpecError(None, name, arr.tolist(), "rows must be probabilities summing to 1")
        return self

    @property
    def n_regimes(self) -> int:
        """Number of regimes ``R``."""
        return len(self.regimes)


class Driver(_Strict):
    """An exogenous deterministic driver added to one node's output.

    ``seasonal``: ``amplitude * sin(2 pi t / period + phase)``; ``trend``: ``slope * t``, with
    ``t`` the retained step (discrete) or time (continuous; burn-in has negative ``t``).
    """

    kind: Literal["seasonal", "trend"]
    node: str = Field(min_length=1)
    amplitude: float = 0.0
    period: float = Field(default=12.0, gt=0.0)
    phase: float = 0.0
    slope: float = 0.0


class StructureLabel(_Strict):
    """Identification label of a named structure (see :mod:`causalarena.generator.temporal.structures`).

    Attributes
    ----------
    name : str
        Structure name, e.g. ``"front_door"``.
    treatment, outcome : str
        Names of ``A`` and ``Y``.
    identifiable : bool
        Whether the effect of ``do(A)`` on ``Y`` is identifiable from the observed columns.
    strategy : {"direct", "backdoor", "frontdoor", "iv", "none"}
    null_effect : bool
        True iff there is no directed path from ``A`` to ``Y`` (the true effect is zero).
    min_lag : int or None
        Shortest ``A -> Y`` lag (sum of edge lags along a directed path); ``None`` if no path.
    """

    name: str
    treatment: str
    outcome: str
    identifiable: bool
    strategy: Strategy
    null_effect: bool
    min_lag: int | None = None


class TemporalSCM(_Strict):
    """An executable temporal SCM (see the module docstring for the equations).

    Attributes
    ----------
    scm_id : str
    kind : {"diverse", "chain", "regime", "structure", "custom"}
        Provenance tag (the draw type, a named structure, or hand-built).
    names : list of str, length N
        Unique variable names; column order of every array.
    max_lag : int >= 1
        ``K``.
    A0 : list of list of int, shape (N, N), entries 0/1
        Instantaneous adjacency, strictly acyclic.
    A_lag : list, shape (K, N, N), entries 0/1
        Lagged adjacency.
    W0 : shape (N, N) floats; W_lag : shape (K, N, N) floats
        Edge weights (zero off the edges).
    bias : list of float, shape (N,)
    mechanisms : list of str, length N
        One tag of :data:`MECHANISMS` per node.
    noise_scale : list of float >= 0, length N
        Standard deviation of each node's Gaussian noise (discrete time: per step; continuous
        time: diffusion coefficient per sqrt time unit).
    hidden : list of str
        Unobserved nodes: never released as columns and never intervention targets.
    regime : RegimeSwitch or None
        A second parameter set on the same graph (two regimes).
    regimes : RegimeChain or None
        ``R >= 2`` regimes with their own graphs (exclusive with ``regime``).
    drivers : list of Driver
    ct_rate : float > 0, default=1.0
        Continuous time only: relaxation rate ``theta`` of
        ``dX^j = theta (f_j(...) + d_j(t) - X^j) dt + sigma_j dW^j``.
    lag_time : float > 0, default=1.0
        Continuous time only: delay (time units) of one lag, so lag ``k`` reads ``X(t - k*lag_time)``.
    structure : StructureLabel or None
        Set for the named identification structures.
    metadata : dict
        Free JSON metadata.
    """

    schema_version: Literal["1.0"] = SCHEMA_VERSION
    scm_id: str = Field(default="tscm", min_length=1)
    kind: Literal["diverse", "chain", "regime", "structure", "custom"] = "custom"
    names: list[str] = Field(min_length=1)
    max_lag: int = Field(ge=1, le=64)
    A0: list[list[int]]
    A_lag: list[list[list[int]]]
    W0: list[list[float]]
    W_lag: list[list[list[float]]]
    bias: list[float]
    mechanisms: list[Mechanism]
    noise_scale: list[float]
    hidden: list[str] = Field(default_factory=list)
    regime: RegimeSwitch | None = None
    regimes: RegimeChain | None = None
    drivers: list[Driver] = Field(default_factory=list)
    ct_rate: float = Field(default=1.0, gt=0.0)
    lag_time: float = Field(default=1.0, gt=0.0)
    structure: StructureLabel | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    # derived arrays, computed once (specs are treated as immutable after construction)
    _cache: dict[str, Any] = PrivateAttr(default_factory=dict)

    @field_validator(
        "A0", "A_lag", "W0", "W_lag", "bias", "noise_scale", "mechanisms", mode="before"
    )
    @classmethod
    def _arr(cls, v: Any) -> Any:
        return _as_list(v)

    @model_validator(mode="after")
    def _check(self) -> TemporalSCM:
        _validate_scm(self)
        return self

    def __eq__(self, other: object) -> bool:
        """Field-wise equality (the private array cache is ignored)."""
        if not isinstance(other, TemporalSCM):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # mutable model

    # ------------------------------------------------------------------ derived views
    @property
    def n_vars(self) -> int:
        """Number of variables ``N`` (hidden ones included)."""
        return len(self.names)

    def index(self, name: str) -> int:
        """Column index of a variable name.

        Raises
        ------
        SpecError
            Unknown name.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise SpecError(name, "names", name, f"unknown variable; known: {self.names}") from None

    def arrays(self, regime: int = 0) -> dict[str, np.ndarray]:
        """Numpy views of the parameters.

        Returns
        -------
        dict
            ``A0`` (N, N) int8, ``A_lag`` (K, N, N) int8, ``W0`` (N, N) float64,
            ``W_lag`` (K, N, N) float64, ``bias`` (N,) float64, ``noise_scale`` (N,) float64,
            ``mech`` (N,) int8 codes into :data:`MECHANISMS`; ``regime=1`` returns the weights
            and biases of the second parameter set (``regime``), and ``regime=r`` of an SCM
            with ``regimes`` returns regime ``r``'s own graph, weights, biases and mechanisms
            (``regime=0``: the union graph with regime 0's parameters).
        """
        key = f"arrays{regime}"
        if key in self._cache:
            return self._cache[key]
        if self.regimes is not None and regime > 0:
            if regime >= self.regimes.n_regimes:
                raise SpecError(None, "regimes", regime, "no such regime")
            src = graph = mech = self.regimes.regimes[regime]
        else:
            src = self if regime == 0 else self.regime
            graph = mech = self
        if src is None:
            raise SpecError(None, "regime", None, "this SCM has no second regime")
        N, K = self.n_vars, self.max_lag
        out = {
            "A0": np.asarray(graph.A0, dtype=np.int8).reshape(N, N),
            "A_lag": np.asarray(graph.A_lag, dtype=np.int8).reshape(K, N, N),
            "W0": np.asarray(src.W0, dtype=np.float64).reshape(N, N),
            "W_lag": np.asarray(src.W_lag, dtype=np.float64).reshape(K, N, N),
            "bias": np.asarray(src.bias, dtype=np.float64),
            "noise_scale": np.asarray(self.noise_scale, dtype=np.float64),
            "mech": np.array([MECHANISMS.index(m) for m in mech.mechanisms], dtype=np.int8),
        }
        for v in out.values():
            v.flags.writeable = False
        self._cache[key] = out
        return out

    @property
    def n_regimes(self) -> int:
        """Number of regimes (1 without switching, 2 with ``regime``, R with ``regimes``)."""
        if self.regimes is not None:
            return self.regimes.n_regimes
        return 2 if self.regime is not None else 1

    def regime_graphs(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-regime adjacency: ``(R, N, N)`` and ``(R, K, N, N)`` int8 stacks.

        Without ``regimes`` every regime has the SCM's graph (``R`` = :attr:`n_regimes`).
        """
        R = self.n_regimes
        if self.regimes is None:
            a = self.arrays()
            return np.repeat(a["A0"][None], R, 0), np.repeat(a["A_lag"][None], R, 0)
        N, K = self.n_vars, self.max_lag
        A0 = np.asarray([g.A0 for g in self.regimes.regimes], dtype=np.int8).reshape(R, N, N)
        AL = np.asarray([g.A_lag for g in self.regimes.regimes], dtype=np.int8)
        return A0, AL.reshape(R, K, N, N)

    @property
    def observed(self) -> list[int]:
        """Column indices of the observed (released) variables, in column order."""
        hid = set(self.hidden)
        return [i for i, n in enumerate(self.names) if n not in hid]

    def topological_order(self) -> list[int]:
        """A topological order of the instantaneous graph (ties broken by column index)."""
        if "topo" not in self._cache:
            self._cache["topo"] = _topo(self.arrays()["A0"])
        return list(self._cache["topo"])

    def min_lag_matrix(self) -> np.ndarray:
        """Shortest total lag of a directed path ``i -> ... -> j`` in the unrolled graph.

        Returns
        -------
        ndarray of shape (N, N), float64
            ``inf`` where no directed path (of length >= 1 edge) exists.
        """
        if "minlag" not in self._cache:
            a = self.arrays()
            D = min_lag_matrix(a["A0"], a["A_lag"])
            D.flags.writeable = False
            self._cache["minlag"] = D
        return self._cache["minlag"]

    def descendants(self, node: int) -> list[int]:
        """Strict descendants of ``node`` through instantaneous or lagged paths (sorted)."""
        D = self.min_lag_matrix()
        return [j for j in range(self.n_vars) if j != node and np.isfinite(D[node, j])]


def min_lag_matrix(A0: np.ndarray, A_lag: np.ndarray) -> np.ndarray:
    """Shortest total lag between every ordered pair (Floyd–Warshall on the summary graph).

    Parameters
    ----------
    A0 : ndarray of shape (N, N), int
    A_lag : ndarray of shape (K, N, N), int

    Returns
    -------
    ndarray of shape (N, N), float64
        ``D[i, j]`` = minimum over directed paths ``i -> j`` (at least one edge) of the sum of
        edge lags (0 for instantaneous edges); ``inf`` if there is none.
    """
    N = A0.shape[0]
    D = np.full((N, N), np.inf)
    for k in range(A_lag.shape[0], 0, -1):
        D[A_lag[k - 1] != 0] = k
    D[A0 != 0] = 0.0
    for m in range(N):
        D = np.minimum(D, D[:, m : m + 1] + D[m : m + 1, :])
    return D


def _topo(A0: np.ndarray) -> list[int]:
    N = A0.shape[0]
    indeg = (A0 != 0).sum(axis=0).astype(int)
    ready = [j for j in range(N) if indeg[j] == 0]
    order: list[int] = []
    while ready:
        ready.sort()
        j = ready.pop(0)
        order.append(j)
        for c in np.flatnonzero(A0[j]):
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(int(c))
    if len(order) != N:
        left = [j for j in range(N) if j not in order]
        raise SpecError(None, "A0", left, "the instantaneous graph has a cycle among these nodes")
    return order


def _shape_check(field: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (ValueError, TypeError):
        raise SpecError(None, field, value, f"must be a numeric array of shape {shape}") from None
    if arr.shape != shape:
        raise SpecError(None, field, list(arr.shape), f"must have shape {shape}")
    _finite(field, arr)
    return arr


def _validate_weights(prefix: str, W0: Any, W_lag: Any, bias: Any, A0: np.ndarray, AL: np.ndarray):
    N, K = A0.shape[0], AL.shape[0]
    w0 = _shape_check(f"{prefix}W0", W0, (N, N))
    wl = _shape_check(f"{prefix}W_lag", W_lag, (K, N, N))
    _shape_check(f"{prefix}bias", bias, (N,))
    off = np.argwhere((A0 == 0) & (w0 != 0))
    if off.size:
        i, j = off[0]
        raise SpecError(
            None, f"{prefix}W0[{i}][{j}]", float(w0[i, j]), "weight off an edge of A0 must be 0"
        )
    off = np.argwhere((AL == 0) & (wl != 0))
    if off.size:
        k, i, j = off[0]
        raise SpecError(
            None,
            f"{prefix}W_lag[{k}][{i}][{j}]",
            float(wl[k, i, j]),
            "weight off an edge of A_lag must be 0",
        )


def _validate_scm(s: TemporalSCM) -> None:
    N, K = len(s.names), s.max_lag
    if len(set(s.names)) != N:
        dup = next(n for n in s.names if s.names.count(n) > 1)
        raise SpecError(dup, "names", dup, "variable names must be unique")
    A0 = _shape_check("A0", s.A0, (N, N))
    AL = _shape_check("A_lag", s.A_lag, (K, N, N))
    for name, arr in (("A0", A0), ("A_lag", AL)):
        bad = np.argwhere((arr != 0) & (arr != 1))
        if bad.size:
            idx = "".join(f"[{int(b)}]" for b in bad[0])
            raise SpecError(
                None, f"{name}{idx}", float(arr[tuple(bad[0])]), "entries must be 0 or 1"
            )
    if np.any(np.diag(A0)):
        i = int(np.flatnonzero(np.diag(A0))[0])
        raise SpecError(s.names[i], f"A0[{i}][{i}]", 1, "instantaneous self-loops are not allowed")
    try:
        _topo(A0.astype(np.int8))
    except SpecError as exc:
        names = [s.names[i] for i in exc.value]
        raise SpecError(
            None, "A0", names, "the instantaneous graph has a cycle among these nodes"
        ) from None
    _validate_weights("", s.W0, s.W_lag, s.bias, A0, AL)
    for field, vals in (("mechanisms", s.mechanisms), ("noise_scale", s.noise_scale)):
        if len(vals) != N:
            raise SpecError(None, field, len(vals), f"needs one entry per variable ({N})")
    ns = np.asarray(s.noise_scale, dtype=np.float64)
    _finite("noise_scale", ns)
    if np.any(ns < 0):
        i = int(np.flatnonzero(ns < 0)[0])
        raise SpecError(s.names[i], "noise_scale", float(ns[i]), "noise scales must be >= 0")
    for h in s.hidden:
        if h not in s.names:
            raise SpecError(h, "hidden", h, "hidden node is not a variable")
    if len(set(s.hidden)) == N:
        raise SpecError(None, "hidden", s.hidden, "at least one variable must be observed")
    if s.regime is not None:
        _validate_weights("regime.", s.regime.W0, s.regime.W_lag, s.regime.bias, A0, AL)
    if s.regimes is not None:
        _validate_regimes(s, A0, AL)
    for d, drv in enumerate(s.drivers):
        if drv.node not in s.names:
            raise SpecError(drv.node, f"drivers[{d}].node", drv.node, "unknown variable")
    s.metadata = _jsonable(s.metadata, "metadata")


def _validate_regimes(s: TemporalSCM, A0: np.ndarray, AL: np.ndarray) -> None:
    N, K = A0.shape[0], AL.shape[0]
    if s.regime is not None:
        raise SpecError(None, "regimes", "regime", "give either regime or regimes, not both")
    union0 = np.zeros((N, N), dtype=bool)
    unionL = np.zeros((K, N, N), dtype=bool)
    for r, g in enumerate(s.regimes.regimes):
        p = f"regimes.regimes[{r}]."
        a0 = _shape_check(p + "A0", g.A0, (N, N))
        al = _shape_check(p + "A_lag", g.A_lag, (K, N, N))
        for name, arr in (("A0", a0), ("A_lag", al)):
            if np.any((arr != 0) & (arr != 1)):
                raise SpecError(None, p + name, None, "entries must be 0 or 1")
        _validate_weights(p, g.W0, g.W_lag, g.bias, a0, al)
        if len(g.mechanisms) != N:
            raise SpecError(None, p + "mechanisms", len(g.mechanisms), f"needs {N} entries")
        union0 |= a0 != 0
        unionL |= al != 0
    if not (np.array_equal(union0, A0 != 0) and np.array_equal(unionL, AL != 0)):
        raise SpecError(
            None, "A0", None, "with regimes, A0 and A_lag must be the union of the regime graphs"
        )
    g0 = s.regimes.regimes[0]
    if not (
        np.array_equal(np.asarray(g0.W0, dtype=float), np.asarray(s.W0, dtype=float))
        and np.array_equal(np.asarray(g0.W_lag, dtype=float), np.asarray(s.W_lag, dtype=float))
        and list(g0.bias) == list(s.bias)
        and list(g0.mechanisms) == list(s.mechanisms)
    ):
        raise SpecError(
            None, "regimes.regimes[0]", None, "regime 0's parameters must be the SCM's own"
        )


def _jsonable(v: Any, path: str) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x, f"{path}.{k}") for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_jsonable(x, f"{path}[{i}]") for i, x in enumerate(list(v))]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(float(v)):
            raise SpecError(None, path, float(v), "values must be finite numbers")
        return float(v)
    if v is None or isinstance(v, str):
        return v
    raise SpecError(None, path, v, f"type {type(v).__name__} is not JSON-serialisable")


class TemporalIntervention(_Strict):
    """One intervention on a temporal SCM (discrete or continuous time).

    The intervention acts on ``target`` (and on every variable of ``extra_targets``, with the
    same type, window, profile and resolved value; DoTime's ``InterventionSpec.targets``) inside the window ``[start, end)`` given as fractions
    of the horizon: in discrete time on steps ``t0 = round(start*T) <= t < t1 = round(end*T)``
    (``t1 >= t0 + 1``; ``end=None`` means until the end), in continuous time on times
    ``start*H <= t < end*H`` (time units, so the window duration does not depend on how the
    path is observed).  Outside the window the node follows its own mechanism.

    Types
    -----
    ``hard``
        ``do(A_t = v)``: the node's value is replaced by ``v`` (mechanism and noise ignored).
    ``soft``
        Additive shift: ``A_t = f_A(...) + delta + eps_t``; the node keeps its mechanism and
        its noise.  ``value`` is ``delta``.
    ``time_varying``
        ``do(A_t = v(t))`` with ``profile="ramp"``: ``v(t) = v0 + slope * (t - t0)`` or
        ``profile="sine"``: ``v(t) = v0 + amplitude * sin(2 pi (t - t0) / period + phase)``
        (``t`` in steps, or time units in continuous time), ``profile="step"``:
        ``v(t) = v0`` before ``step_at`` and ``v0 + jump`` from ``t - t0 >= step_at`` on, or
        ``profile="trajectory"``: ``v(t) = v0 + trajectory[k]`` with ``k = floor(t - t0)``
        (the last entry held after the end), a prescribed path.  ``value`` is ``v0``.

    Value modes (used when ``value is None``; the factual *context* is the factual arm's
    values of ``target`` (the first target; the level is shared by all targets) on the
    retained steps before onset, or the whole factual arm when
    fewer than two pre-onset steps exist).  Each mode draws a *level* ``L``:

    ``prior``
        ``L ~ N(0, prior_scale^2)``, independent of the data (may extrapolate).
    ``positivity_aware``
        ``L ~ U[q10, q90]`` of the context: always inside the observed range.
    ``observed_discrete``
        ``L`` uniform among the context's observed values.
    ``observed_normal``
        ``L ~ N(mean, std^2)`` of the context.
    ``observed_uniform``
        ``L ~ U[min, max]`` of the context.

    ``hard``: ``v = L``; ``time_varying``: ``v0 = L``; ``soft``: ``delta = L - mean(context)``
    (the shift moves the target's mean level to ``L``).

    Positivity (stored per episode): with ``level`` = ``v`` (hard), the mean of ``v(t)`` over
    the window (time-varying) or ``mean(context) + delta`` (soft), ``positivity`` is the
    fraction of context values within ``± band * std(context)`` of ``level`` and
    ``percentile`` is ``100 * mean(context <= level)``.
    """

    target: str = Field(min_length=1)
    extra_targets: list[str] = Field(default_factory=list, max_length=7)
    type: Literal["hard", "soft", "time_varying"] = "hard"
    value: float | None = None
    value_mode: ValueMode = "positivity_aware"
    profile: Literal["ramp", "sine", "step", "trajectory"] | None = None
    slope: float = 0.0
    amplitude: float = 1.0
    period: float = Field(default=20.0, gt=0.0)
    phase: float = 0.0
    start: float = Field(default=0.5, ge=0.0, lt=1.0)
    end: float | None = Field(default=None, gt=0.0, le=1.0)
    band: float = Field(default=0.25, gt=0.0)
    prior_scale: float = Field(default=2.0, gt=0.0)
    jump: float = 0.0
    step_at: float = Field(default=0.0, ge=0.0)
    trajectory: list[float] | None = None

    @field_validator("value", "slope", "amplitude", "phase", "jump")
    @classmethod
    def _fin(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError(f"must be finite, got {v!r}")
        return v

    @model_validator(mode="after")
    def _check(self) -> TemporalIntervention:
        if self.type == "time_varying" and self.profile is None:
            raise SpecError(
                self.target,
                "intervention.profile",
                None,
                "time_varying needs profile 'ramp', 'sine', 'step' or 'trajectory'",
            )
        if self.profile == "trajectory" and not self.trajectory:
            raise SpecError(
                self.target,
                "intervention.trajectory",
                self.trajectory,
                "profile 'trajectory' needs a non-empty list of finite offsets",
            )
        if self.trajectory is not None and not all(math.isfinite(x) for x in self.trajectory):
            raise SpecError(
                self.target, "intervention.trajectory", "non-finite", "offsets must be finite"
            )
        if self.type != "time_varying" and self.profile is not None:
            raise SpecError(
                self.target,
                "intervention.profile",
                self.profile,
                f"profile is only for time_varying, not {self.type!r}",
            )
        if len(set(self.targets)) != len(self.targets):
            raise SpecError(
                self.target,
                "intervention.extra_targets",
                self.extra_targets,
                "targets must be distinct (and differ from target)",
            )
        if self.end is not None and self.end <= self.start:
            raise SpecError(
                self.target, "intervention.end", self.end, f"end must be > start ({self.start})"
            )
        return self

    @property
    def targets(self) -> list[str]:
        """Every intervened variable: ``[target, *extra_targets]``."""
        return [self.target, *self.extra_targets]

    def check_against(self, scm: TemporalSCM) -> int:
        """Validate every target against an SCM and return the column of ``target``.

        Raises
        ------
        SpecError
            Unknown or hidden target.
        """
        for k, t in enumerate(self.targets):
            field = "intervention.target" if k == 0 else f"intervention.extra_targets[{k - 1}]"
            if t not in scm.names:
                raise SpecError(t, field, t, f"unknown variable; known: {scm.names}")
            if t in scm.hidden:
                raise SpecError(t, field, t, "hidden nodes cannot be intervened on")
        return scm.names.index(self.target)

    def columns(self, scm: TemporalSCM) -> list[int]:
        """Column indices of :attr:`targets` in ``scm`` (validated as :meth:`check_against`)."""
        self.check_against(scm)
        return [scm.names.index(t) for t in self.targets]

    def window_steps(self, T: int) -> tuple[int, int]:
        """Discrete window ``[t0, t1)`` in retained steps for horizon ``T``."""
        t0 = min(int(round(self.start * T)), T - 1)
        t1 = T if self.end is None else int(round(self.end * T))
        return t0, max(t1, t0 + 1)

    def window_times(self, horizon: float) -> tuple[float, float]:
        """Continuous window ``[t0, t1)`` in time units for horizon ``horizon``."""
        return self.start * horizon, (1.0 if self.end is None else self.end) * horizon
