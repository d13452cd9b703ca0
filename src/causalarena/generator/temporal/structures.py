"""Nine named identification structures with exact temporal graphs and labels.

Each structure is a small TSCM over a treatment ``A``, an outcome ``Y`` and helper nodes
(``C`` observed confounder, ``M`` mediator, ``Z`` instrument, ``U`` hidden confounder).  Every
skeleton edge is instantiated either instantaneously (lag 0, within slice ``t``) or at lag 1
(``X_{t-1} -> Y_t``) exactly as listed in :data:`STRUCTURES`; every *observed* node also has
a lag-1 self-loop (autoregression), hidden ``U`` has none (an i.i.d. latent shock).  Labels
refer to the identification skeleton of ``do(A) -> Y`` (observed lagged values are always
available for adjustment):

================================  ========  ============  ===========  =======
name                              identif.  strategy      null effect  min lag
================================  ========  ============  ===========  =======
``bivariate``                     yes       ``direct``    no           0
``backdoor``                      yes       ``backdoor``  no           1
``observed_confounder``           yes       ``backdoor``  yes          --
``mediator``                      yes       ``direct``    no           1
``front_door``                    yes       ``frontdoor`` no           1
``confounder_mediator``           yes       ``backdoor``  no           1
``instrumental_variable``         yes       ``iv``        no           1
``unobserved_confounder``         no        ``none``      yes          --
``bow``                           no        ``none``      no           0
================================  ========  ============  ===========  =======
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from causalarena.errors import SpecError
from causalarena.generator.temporal.simulate import _radius
from causalarena.spec_temporal import StructureLabel, TemporalSCM

#: Mechanisms of DoTime's named-structure sampler (``tscm_sampler.DEFAULT_ACTIVATIONS``).
DOTIME_STRUCTURE_MECHANISMS: tuple[str, ...] = ("linear", "tanh", "tanh_relu", "relu")
#: Noise scale of every node in DoTime's named-structure sampler (``noise_std``).
DOTIME_STRUCTURE_NOISE = 0.3


@dataclass(frozen=True)
class StructureDef:
    """Definition of a named structure.

    Attributes
    ----------
    names : tuple of str
        Variables in column order.
    edges : tuple of (parent, child, lag)
        Skeleton edges (self-loops of observed nodes are added automatically).
    hidden : tuple of str
    identifiable : bool
    strategy : str
    """

    names: tuple[str, ...]
    edges: tuple[tuple[str, str, int], ...]
    hidden: tuple[str, ...]
    identifiable: bool
    strategy: str


STRUCTURES: dict[str, StructureDef] = {
    "bivariate": StructureDef(("A", "Y"), (("A", "Y", 0),), (), True, "direct"),
    "backdoor": StructureDef(
        ("A", "Y", "C"), (("C", "A", 0), ("C", "Y", 0), ("A", "Y", 1)), (), True, "backdoor"
    ),
    "observed_confounder": StructureDef(
        ("A", "Y", "C"), (("C", "A", 0), ("C", "Y", 0)), (), True, "backdoor"
    ),
    "mediator": StructureDef(("A", "M", "Y"), (("A", "M", 0), ("M", "Y", 1)), (), True, "direct"),
    "front_door": StructureDef(
        ("A", "M", "Y", "U"),
        (("U", "A", 0), ("U", "Y", 0), ("A", "M", 0), ("M", "Y", 1)),
        ("U",),
        True,
        "frontdoor",
    ),
    "confounder_mediator": StructureDef(
        ("A", "M", "Y", "C"),
        (("C", "A", 0), ("C", "Y", 0), ("A", "M", 0), ("M", "Y", 1)),
        (),
        True,
        "backdoor",
    ),
    "instrumental_variable": StructureDef(
        ("Z", "A", "Y", "U"),
        (("Z", "A", 0), ("U", "A", 0), ("U", "Y", 1), ("A", "Y", 1)),
        ("U",),
        True,
        "iv",
    ),
    "unobserved_confounder": StructureDef(
        ("A", "Y", "U"), (("U", "A", 0), ("U", "Y", 0)), ("U",), False, "none"
    ),
    "bow": StructureDef(
        ("A", "Y", "U"), (("U", "A", 0), ("U", "Y", 0), ("A", "Y", 0)), ("U",), False, "none"
    ),
}


def structure_graph(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Exact adjacency of a named structure.

    Returns
    -------
    A0 : ndarray of shape (N, N), int8
    A_lag : ndarray of shape (1, N, N), int8
        Includes the lag-1 self-loops of the observed nodes.
    names : list of str
    """
    if name not in STRUCTURES:
        raise SpecError(None, "structure", name, f"unknown structure; known: {sorted(STRUCTURES)}")
    d = STRUCTURES[name]
    idx = {n: i for i, n in enumerate(d.names)}
    N = len(d.names)
    A0 = np.zeros((N, N), dtype=np.int8)
    AL = np.zeros((1, N, N), dtype=np.int8)
    for a, b, lag in d.edges:
        (A0 if lag == 0 else AL[lag - 1])[idx[a], idx[b]] = 1
    for n in d.names:
        if n not in d.hidden:
            AL[0, idx[n], idx[n]] = 1
    return A0, AL, list(d.names)


def identification_structure(
    name: str,
    rng: np.random.Generator | None = None,
    *,
    edge_weight: float = 0.8,
    self_weight: float = 0.5,
    noise_scale: float = 1.0,
    mechanism: str = "linear",
    prior: str = "default",
    target_radius: float = 0.9,
) -> TemporalSCM:
    """A TSCM with the exact graph and label of a named structure.

    Parameters
    ----------
    name : str
        A key of :data:`STRUCTURES`.
    rng : numpy.random.Generator, optional
        If given, edge weights are ``U[0.5, 1.0]`` with random signs and self-loop weights
        ``U[0.2, 0.6]``; otherwise ``edge_weight`` and ``self_weight`` are used.
    mechanism : str
        Mechanism of every node (default linear).
    prior : {"default", "dotime"}
        ``"dotime"`` (needs ``rng``) draws DoTime's structure prior (``dotime.tscm_sampler``
        defaults): every weight, self-loops included, ``N(0, 1)``, biases ``N(0, 0.5**2)``,
        each node's mechanism uniform over :data:`DOTIME_STRUCTURE_MECHANISMS` and noise scale
        0.3 for every node; ``mechanism`` and ``noise_scale`` are then ignored.  The lag
        weights are rescaled (``W_lag * c``, ``c = target_radius / rho``) when the companion
        spectral radius ``rho`` of the linear part exceeds ``target_radius`` (this package's
        stability handling; DoTime zeroes diverged episodes instead).

    Returns
    -------
    TemporalSCM
        ``kind="structure"``, ``max_lag=1``, ``structure`` set (treatment ``A``, outcome ``Y``).

    Raises
    ------
    SpecError
        Unknown ``name`` or ``prior``, or ``prior="dotime"`` without ``rng``.
    """
    if prior not in ("default", "dotime"):
        raise SpecError(None, "prior", prior, "must be 'default' or 'dotime'")
    if prior == "dotime" and rng is None:
        raise SpecError(None, "rng", None, "prior='dotime' draws its weights and needs rng")
    A0, AL, names = structure_graph(name)
    d = STRUCTURES[name]
    N = len(names)
    off = (A0 != 0).astype(float), (AL[0] != 0) & ~np.eye(N, dtype=bool)
    mechs = [mechanism] * N
    sigma = [noise_scale] * N
    bias = [0.0] * N
    meta: dict = {}
    if prior == "dotime":
        W0 = off[0] * rng.normal(0.0, 1.0, (N, N))
        WL = (AL[0] != 0) * rng.normal(0.0, 1.0, (N, N))
        bias = list(rng.normal(0.0, 0.5, N))
        mechs = [
            DOTIME_STRUCTURE_MECHANISMS[int(m)]
            for m in rng.integers(0, len(DOTIME_STRUCTURE_MECHANISMS), N)
        ]
        sigma = [DOTIME_STRUCTURE_NOISE] * N
        rho = _radius(W0, WL[None])
        if rho > target_radius:
            WL = WL * (target_radius / rho)
        meta = {"prior": "dotime", "rho_drawn": float(rho), "rescaled": bool(rho > target_radius)}
    elif rng is None:
        W0 = edge_weight * off[0]
        WL = edge_weight * off[1] + self_weight * np.diag(np.diag(AL[0]).astype(float))
    else:
        sign = rng.choice([-1.0, 1.0], size=(2, N, N))
        W0 = off[0] * rng.uniform(0.5, 1.0, (N, N)) * sign[0]
        WL = off[1] * rng.uniform(0.5, 1.0, (N, N)) * sign[1]
        WL = WL + np.diag(np.diag(AL[0]) * rng.uniform(0.2, 0.6, N))
    D = _min_lag(A0, AL)
    ia, iy = names.index("A"), names.index("Y")
    null = not np.isfinite(D[ia, iy])
    label = StructureLabel(
        name=name,
        treatment="A",
        outcome="Y",
        identifiable=d.identifiable,
        strategy=d.strategy,
        null_effect=null,
        min_lag=None if null else int(D[ia, iy]),
    )
    return TemporalSCM(
        scm_id=f"structure-{name}",
        kind="structure",
        names=names,
        max_lag=1,
        A0=A0,
        A_lag=AL,
        W0=W0 + 0.0,
        W_lag=(WL + 0.0)[None],
        bias=bias,
        mechanisms=mechs,
        noise_scale=sigma,
        hidden=list(d.hidden),
        structure=label,
        metadata=meta,
    )


def _min_lag(A0: np.ndarray, AL: np.ndarray) -> np.ndarray:
    from causalarena.spec_temporal import min_lag_matrix

    return min_lag_matrix(A0, AL)
