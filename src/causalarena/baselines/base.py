"""Shared data structures and helpers for baseline method wrappers.

Every wrapper in :mod:`causalarena.baselines` follows one convention for
graphs: ``A[i, j] = 1`` means the edge ``i -> j`` (row = parent, column =
child). In a CPDAG an undirected edge ``i - j`` is stored as
``A[i, j] = A[j, i] = 1``.

A wrapper is a :class:`Method`: a static :class:`MethodInfo` record plus a
``fit`` callable. The record must be importable without the optional third
party library, so wrappers import their library lazily inside ``fit``.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "FAMILIES",
    "GRAPH_TYPES",
    "PRETRAINING_DISCLOSURES",
    "Method",
    "MethodInfo",
    "MethodResult",
    "drop_constant_columns",
    "environments",
    "expand",
    "make_fit",
    "disclosure_problem",
    "validate_inputs",
]

#: Allowed values of :attr:`MethodInfo.family`.
FAMILIES = (
    "control",
    "constraint",
    "score",
    "fcm",
    "continuous",
    "interventional",
    "pretrained",
)
#: Allowed values of :attr:`MethodInfo.output_graph` and :attr:`MethodResult.graph_type`.
GRAPH_TYPES = ("dag", "cpdag", "essential", "pag")
#: Kinds of :attr:`MethodInfo.pretraining_disclosure` and of the predictions column of the
#: same name (paper Sec. 6: leaderboard entries disclose pretraining-evaluation overlap):
#: ``none`` (no pretraining, e.g. every wrapped classical method; the default),
#: ``declared prior`` (pretrained on a documented SCM prior) and ``corpus overlap report``
#: (a report of the overlap between the pretraining corpus and the release exists).  The two
#: disclosing kinds may name their document after a colon:
#: ``"declared prior: https://example.org/prior.yaml"``.
PRETRAINING_DISCLOSURES = ("none", "declared prior", "corpus overlap report")


def disclosure_problem(value: Any) -> str | None:
    """Why ``value`` is not a valid pretraining disclosure, or None when it is.

    Valid: one of :data:`PRETRAINING_DISCLOSURES`, or ``"declared prior: <reference>"`` /
    ``"corpus overlap report: <reference>"`` with a non-empty reference.
    """
    if not isinstance(value, str):
        return "it is empty" if value is None else "it is not text"
    kind, sep, ref = value.partition(":")
    kind = kind.strip()
    if kind not in PRETRAINING_DISCLOSURES:
        return "expected one of " + ", ".join(PRETRAINING_DISCLOSURES)
    if sep and (kind == "none" or not ref.strip()):
        return "only 'declared prior' and 'corpus overlap report' take a reference after ':'"
    return None


@dataclass(frozen=True)
class MethodInfo:
    """Static description of a causal-discovery method wrapper.

    Parameters
    ----------
    name : str
        Registry key in kebab-case, e.g. ``"pc"`` or ``"var-sort-regress"``.
    display_name : str
        Human-readable name used in tables, e.g. ``"DirectLiNGAM"``.
    family : str
        One of :data:`FAMILIES`.
    supports_interventions : bool
        ``True`` if ``fit`` uses the intervention mask.
    requires_interventions : bool
        ``True`` if the method cannot run on observation-only data.
    outputs_edge_scores : bool
        ``True`` if :attr:`MethodResult.edge_scores` is filled.
    output_graph : str
        Native output class, one of :data:`GRAPH_TYPES`.
    library : str or None
        PyPI distribution that implements the method (``None`` for methods
        implemented in this package).
    extra : str or None
        Optional-dependency extra of ``causalarena`` that installs
        ``library`` (``None`` if no extra is needed).
    defaults : dict
        The hyper-parameters the wrapper uses by default (JSON-serialisable);
        they follow the CausalArena paper, appendix B.4, or the library
        defaults where the paper says nothing.
    reference : str
        Citation of the method (authors, venue, year).
    version : str, default "1"
        Wrapper version; bumped whenever the wrapper's behaviour changes.
    pretraining_prior : dict or None, default None
        Documented pretraining prior for pretrained methods.
    pretraining_disclosure : str, default "none"
        Machine-readable pretraining-overlap disclosure written into every predictions row
        and shown in the leaderboard (one of :data:`PRETRAINING_DISCLOSURES`, optionally
        ``"<kind>: <reference>"``).  ``"none"`` for methods that are not pretrained; a
        ``pretrained`` method must disclose (``declared prior`` or ``corpus overlap report``).

    Raises
    ------
    ValueError
        An unknown family or output graph, a method that requires but does not support
        interventions, an invalid ``pretraining_disclosure``, or a ``pretrained`` method
        whose disclosure is ``none``.
    """

    name: str
    display_name: str
    family: str
    supports_interventions: bool
    requires_interventions: bool
    outputs_edge_scores: bool
    output_graph: str
    library: str | None
    extra: str | None
    defaults: dict
    reference: str
    version: str = "1"
    pretraining_prior: dict | None = None
    pretraining_disclosure: str = "none"

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown family {self.family!r}; expected one of {FAMILIES}")
        if self.output_graph not in GRAPH_TYPES:
            raise ValueError(
                f"unknown output_graph {self.output_graph!r}; expected one of {GRAPH_TYPES}"
            )
        if self.requires_interventions and not self.supports_interventions:
            raise ValueError("a method that requires interventions must support them")
        why = disclosure_problem(self.pretraining_disclosure)
        if why is not None:
            raise ValueError(
                f"method {self.name}: pretraining_disclosure {self.pretraining_disclosure!r} is "
                f"invalid ({why})"
            )
        if self.family == "pretrained" and self.pretraining_disclosure.startswith("none"):
            raise ValueError(
                f"method {self.name} is pretrained: pretraining_disclosure must be "
                "'declared prior' or 'corpus overlap report', not 'none'"
            )


@dataclass(frozen=True)
class MethodResult:
    """Output of one ``fit`` call.

    Parameters
    ----------
    adjacency : numpy.ndarray or None
        ``(d, d)`` ``int8`` matrix in the package convention (``A[i, j] = 1``
        iff ``i -> j``; a CPDAG undirected edge is a symmetric pair of ones).
        Diagonal is zero.
    edge_scores : numpy.ndarray or None
        ``(d, d)`` ``float32`` matrix, larger means ``i -> j`` is more
        likely; diagonal is zero. ``None`` if the method has no scores.
    graph_type : str
        ``"dag"``, ``"cpdag"``, ``"essential"`` (interventional essential graph) or ``"pag"``.
    notes : dict
        JSON-serialisable diagnostics, e.g. ``{"dropped_constant_columns": [3]}``
        and the hyper-parameters that were used (``"params"``).
    """

    adjacency: np.ndarray | None
    edge_scores: np.ndarray | None
    graph_type: str
    notes: dict


@dataclass(frozen=True)
class Method:
    """A registered method: static info plus the ``fit`` callable.

    ``fit(X, mask=None, *, seed=0, **overrides) -> MethodResult`` where ``X``
    is an ``(n, d)`` ``float64`` array and ``mask`` an ``(n, d)`` boolean
    intervention mask (``mask[r, j]`` is ``True`` if variable ``j`` was
    intervened on in row ``r``) or ``None`` for observational data.
    ``overrides`` replace entries of :attr:`MethodInfo.defaults`.

    Parameters
    ----------
    info : MethodInfo
        Static description.
    fit : callable
        The wrapper.
    requires : tuple of str, default ()
        Python modules that must import for the method to run; used by the
        registry to decide availability.
    install_hint : str or None, default None
        Install command shown when the dependency is missing, if the plain
        ``pip install 'causalarena[<extra>]'`` is not enough.
    setup : callable or None, default None
        ``setup() -> state``, called once per worker process before its first
        run (e.g. to load a pretrained checkpoint); ``state`` is then passed to
        every ``fit`` of that worker as ``fit(X, mask, seed=seed, state=state)``.
        Its cost is paid once per worker, not once per instance (the
        ``T_fixed`` of the paper's runtime model, section 6).  ``None``: no
        state, ``fit`` is called without ``state``.
    """

    info: MethodInfo
    fit: Callable[..., MethodResult]
    requires: tuple[str, ...] = field(default=())
    install_hint: str | None = None
    setup: Callable[[], Any] | None = None

    def run(
        self, X: np.ndarray, mask: np.ndarray | None = None, *, seed: int = 0, state: Any = None
    ) -> MethodResult:
        """Call :attr:`fit`, passing ``state`` (from :attr:`setup`) when the method has a setup.

        Parameters
        ----------
        X : numpy.ndarray
            ``(n, d)`` ``float64`` data.
        mask : numpy.ndarray or None
            ``(n, d)`` boolean intervention mask.
        seed : int, default 0
        state : object, default None
            What :attr:`setup` returned in this process.

        Returns
        -------
        MethodResult
        """
        if self.setup is None:
            return self.fit(X, mask, seed=seed)
        return self.fit(X, mask, seed=seed, state=state)

    def library_version(self) -> str | None:
        """Installed version of :attr:`MethodInfo.library`.

        Returns
        -------
        str or None
            Version string from :mod:`importlib.metadata`, or ``None`` if the
            library is not installed (or the method needs no library).
        """
        if self.info.library is None:
            return None
        try:
            return importlib.metadata.version(self.info.library)
        except importlib.metadata.PackageNotFoundError:
            return None


# --------------------------------------------------------------------------- helpers


def validate_inputs(X: Any, mask: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Check and convert wrapper inputs.

    Parameters
    ----------
    X : array_like
        ``(n, d)`` data; converted to a C-contiguous ``float64`` copy.
    mask : array_like or None
        ``(n, d)`` intervention mask; converted to ``bool``.

    Returns
    -------
    X : numpy.ndarray
        ``(n, d)`` ``float64``.
    mask : numpy.ndarray or None
        ``(n, d)`` ``bool`` or ``None``.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has no rows, contains NaN/inf, or ``mask`` has
        a different shape.
    """
    X = np.array(X, dtype=np.float64, order="C", copy=True)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
    if X.shape[0] < 2:
        raise ValueError(f"X needs at least 2 rows; got {X.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    if mask is not None:
        mask = np.asarray(mask)
        if mask.shape != X.shape:
            raise ValueError(f"mask shape {mask.shape} does not match X shape {X.shape}")
        mask = mask.astype(bool, copy=True)
    return X, mask


def drop_constant_columns(
    X: np.ndarray, mask: np.ndarray | None = None, tol: float = 1e-12
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Remove columns that are constant over all rows.

    A column is constant if ``max - min <= tol * max(1, max|x|)`` (a relative
    tolerance, so large constant values are still caught).

    Parameters
    ----------
    X : numpy.ndarray
        ``(n, d)`` data.
    mask : numpy.ndarray or None, default None
        ``(n, d)`` intervention mask; the same columns are removed.
    tol : float, default 1e-12
        Relative tolerance of the constancy check.

    Returns
    -------
    X_kept : numpy.ndarray
        ``(n, k)`` data without the constant columns.
    mask_kept : numpy.ndarray or None
        ``(n, k)`` mask, or ``None`` if ``mask`` was ``None``.
    kept : numpy.ndarray
        ``(k,)`` ``int64`` indices of the kept columns in the original order.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got shape {X.shape}")
    if X.shape[0] == 0:
        kept = np.arange(X.shape[1], dtype=np.int64)
    else:
        spread = X.max(axis=0) - X.min(axis=0)
        scale = np.maximum(1.0, np.abs(X).max(axis=0))
        kept = np.flatnonzero(spread > tol * scale).astype(np.int64)
    mask_kept = None if mask is None else np.asarray(mask)[:, kept]
    return X[:, kept], mask_kept, kept


def expand(adjacency_or_scores: np.ndarray, kept: Sequence[int] | np.ndarray, d: int) -> np.ndarray:
    """Map a ``(k, k)`` matrix on the kept columns back to ``(d, d)``.

    Rows and columns of dropped variables are zero; the dtype is preserved.

    Parameters
    ----------
    adjacency_or_scores : numpy.ndarray
        ``(k, k)`` matrix indexed by position in ``kept``.
    kept : sequence of int
        ``(k,)`` original indices of the kept columns.
    d : int
        Original number of variables.

    Returns
    -------
    numpy.ndarray
        ``(d, d)`` matrix.
    """
    M = np.asarray(adjacency_or_scores)
    kept = np.asarray(kept, dtype=np.int64)
    k = kept.shape[0]
    if M.shape != (k, k):
        raise ValueError(f"matrix shape {M.shape} does not match {k} kept columns")
    out = np.zeros((d, d), dtype=M.dtype)
    out[np.ix_(kept, kept)] = M
    return out


def environments(
    X: np.ndarray, mask: np.ndarray | None
) -> tuple[list[np.ndarray], list[list[int]]]:
    """Group rows into environments by their intervention-mask pattern.

    Parameters
    ----------
    X : numpy.ndarray
        ``(n, d)`` data.
    mask : numpy.ndarray or None
        ``(n, d)`` boolean mask; ``None`` means all rows are observational.

    Returns
    -------
    data : list of numpy.ndarray
        One ``(n_e, d)`` array per environment, rows in their original order.
        The observational environment (no target) comes first if it has rows;
        the interventional environments follow, sorted by their target lists
        (shorter first, then lexicographically) so the order is deterministic.
    targets : list of list of int
        Intervention targets (column indices, sorted) of each environment;
        ``[]`` for the observational one.
    """
    X = np.asarray(X)
    if mask is None:
        return [X], [[]]
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != X.shape:
        raise ValueError(f"mask shape {mask.shape} does not match X shape {X.shape}")
    patterns, inverse = np.unique(mask, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    groups = []
    for g, pattern in enumerate(patterns):
        targets = [int(j) for j in np.flatnonzero(pattern)]
        groups.append((len(targets), targets, g))
    groups.sort()
    data = [X[inverse == g] for _, _, g in groups]
    return data, [t for _, t, _ in groups]


# --------------------------------------------------------------------------- fit factory

#: Signature of the core function a wrapper implements: it receives the data
#: with constant columns removed and returns ``(adjacency, edge_scores, notes)``
#: on the kept columns, already in the package convention. Note entries that hold
#: lists of column indices are named in ``notes["_index_keys"]`` and are mapped
#: back to the original column indices by :func:`make_fit`.
CoreFit = Callable[
    [np.ndarray, "np.ndarray | None", int, dict],
    tuple[np.ndarray, "np.ndarray | None", dict],
]


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return _json_safe(value.tolist())
    return value


def _map_indices(value: Any, kept: np.ndarray) -> Any:
    if isinstance(value, list | tuple):
        return [_map_indices(v, kept) for v in value]
    return int(kept[int(value)])


def make_fit(info: MethodInfo, core: CoreFit) -> Callable[..., MethodResult]:
    """Wrap a core fit function with the shared pre- and post-processing.

    The returned ``fit(X, mask=None, *, seed=0, state=None, **overrides)``
    (``state``: what :attr:`Method.setup` returned, passed on to ``core`` as a
    fifth argument when it is not ``None``):

    1. validates ``X``/``mask`` (:func:`validate_inputs`); rejects unknown
       override names and missing interventions for methods that need them;
    2. drops constant columns (:func:`drop_constant_columns`);
    3. calls ``core(X_kept, mask_kept, seed, params)``, or returns the empty
       graph if fewer than two columns remain;
    4. maps the result back with :func:`expand`, casts the adjacency to
       ``int8`` and scores to ``float32``, zeroes the diagonals and records
       ``dropped_constant_columns``, ``params``, ``seed``, ``n_samples`` and
       ``mask_ignored`` (a non-empty mask passed to an observational method)
       in ``notes``. Notes hold no timings, so equal seeds give equal results.

    Parameters
    ----------
    info : MethodInfo
        Info of the method (provides defaults and the output graph type).
    core : callable
        ``core(X, mask, seed, params) -> (adjacency, edge_scores, notes)``.

    Returns
    -------
    callable
        The ``fit`` function of the :class:`Method`.
    """

    def fit(
        X: np.ndarray,
        mask: np.ndarray | None = None,
        *,
        seed: int = 0,
        state: Any = None,
        **overrides: Any,
    ) -> MethodResult:
        unknown = sorted(set(overrides) - set(info.defaults))
        if unknown:
            raise TypeError(
                f"{info.name}: unknown parameter(s) {unknown}; known: {sorted(info.defaults)}"
            )
        params = {**info.defaults, **overrides}
        X, mask = validate_inputs(X, mask)
        mask_given = mask is not None and bool(mask.any())
        if mask is not None and not info.supports_interventions:
            mask = None  # method is observational: the mask is ignored by design
        if info.requires_interventions and (mask is None or not mask.any()):
            raise ValueError(f"{info.name} requires interventional data (a non-empty mask)")
        n, d = X.shape
        Xk, maskk, kept = drop_constant_columns(X, mask)
        dropped = sorted(set(range(d)) - set(kept.tolist()))
        if kept.size < 2:
            adj_k = np.zeros((kept.size, kept.size), dtype=np.int8)
            scores_k = np.zeros_like(adj_k, dtype=np.float32) if info.outputs_edge_scores else None
            core_notes: dict = {"skipped": "fewer than two non-constant columns"}
        else:
            extra = () if state is None else (state,)  # a method with a setup hook
            adj_k, scores_k, core_notes = core(Xk, maskk, int(seed), dict(params), *extra)
            core_notes = dict(core_notes)
            # notes listed under "_index_keys" hold column indices of the reduced data
            for key in core_notes.pop("_index_keys", ()):
                core_notes[key] = _map_indices(core_notes[key], kept)
        adj_k = (np.asarray(adj_k) != 0).astype(np.int8)
        adjacency = expand(adj_k, kept, d)
        np.fill_diagonal(adjacency, 0)
        edge_scores = None
        if scores_k is not None:
            scores_k = np.nan_to_num(np.asarray(scores_k, dtype=np.float64), nan=0.0)
            edge_scores = expand(scores_k.astype(np.float32), kept, d)
            np.fill_diagonal(edge_scores, 0.0)
        notes = {
            "dropped_constant_columns": dropped,
            "params": params,
            "seed": int(seed),
            "n_samples": int(n),
            "mask_ignored": bool(mask_given and not info.supports_interventions),
            **core_notes,
        }
        return MethodResult(
            adjacency=adjacency,
            edge_scores=edge_scores,
            graph_type=info.output_graph,
            notes=_json_safe(notes),
        )

    fit.__name__ = f"fit_{info.name.replace('-', '_')}"
    fit.__doc__ = (
        f"Fit {info.display_name} ({info.name}); see :mod:`causalarena.baselines`.\n\n"
        f"Defaults: {info.defaults}"
    )
    return fit
