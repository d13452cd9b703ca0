"""PyTorch batches of fresh SCM streams for pretraining (issue 13 §2; needs the torch extra).

:class:`TorchStream` is a :class:`torch.utils.data.IterableDataset` over the rows of
:func:`causalarena.loaders.stream.stream` that yields whole batches of fixed-size tensors;
use it with ``DataLoader(ds, batch_size=None, num_workers=W)``.

Sharding: global worker ``g = rank * W + w`` of ``G = world_size * W`` (``W`` DataLoader
workers per rank; ``rank``/``world_size`` from the arguments, else from an initialised
``torch.distributed``) reads the stream instances ``k = g, g + G, g + 2G, ...`` -- the shard
``g`` of ``causalarena.stream(family, seed, shards=G)`` -- so all workers of all ranks together
read every instance exactly once, none twice.  Each worker's batches are its own instances in
order, so a (seed, G, worker) gives the same batches on every run.

Static families (``synthetic`` with one ``d``, ``protocols``; every row of a batch must have
the same number of rows ``n``), one dict per batch:

=====================  ================  =====================================================
key                    shape, dtype      meaning
=====================  ================  =====================================================
``X``                  (B, n, d) f32     samples (obs rows first, then interventional rows)
``mask``               (B, n, d) bool    intervened cells (``mask[b, r, j]``: row r sets j)
``adjacency``          (B, d, d) f32     ``A[b, i, j] = 1`` iff edge i -> j
``n_obs``, ``n_int``   (B,) int64        observational / interventional rows
``stream_index``       (B,) int64        stream instance ``k`` of each row
``instance_id``,       list of B str     ids and exact-level fingerprints (``protocol``
``fingerprint``                          too for protocol streams)
=====================  ================  =====================================================

Temporal pairs (the counterpart of DoTime 0.2.0's ``TemporalInterventionDataLoader``; field
names mirror its batches where the meaning is the same): variables are padded to ``n_max``
(default: the largest in the batch), time to the batch's longest episode, lags to ``max_lag``
(default: the batch's largest); unlike DoTime, values are not normalised.

===========================  =================  ==============================================
key                          shape, dtype       meaning
===========================  =================  ==============================================
``X_obs``                    (B, T, N) f32      factual arm, zero from the onset on (DoTime's
                                                causally masked model input)
``X_obs_full``               (B, T, N) f32      factual arm, unmasked (missing cells zero)
``X_int``                    (B, T, N) f32      intervened arm (same exogenous noise)
``variable_mask``            (B, N) f32         1 for released variables, 0 for padding
``time_mask``                (B, T) bool        real time steps
``missing``                  (B, T, N) bool     missing cells (``dot-observed``; else False)
``times``                    (B, T) f32         observation times (continuous suites; else
                                                the step index)
``int_onset_idx``            (B,) int64         onset row
``intervention_target``      (B,) int64         column of the intervened variable
``intervention_type``        (B,) int64         0 hard, 1 soft, 2 time-varying (DoTime's
                                                codes), -1 other
``intervention_value_raw``   (B,) f32           the intervention's level (not normalised)
``intervention_time_start``  (B,) f32           onset / T
``intervention_time_end``    (B,) f32           window end / T
``query_target``             (B,) int64         queried column
``query_time``               (B, Q) f32         query rows / T
``query_mask``               (B, Q) bool        real queries
``Y_true``, ``Y_obs``        (B, Q) f32         intervened / factual value at the queries
``Y_causal_effect``          (B, Q) f32         ``Y_true - Y_obs``
``num_vars``                 (B,) int64         released variables
``adjacency_inst``           (B, N, N) f32      instantaneous graph ``A0``
``adjacency_lag``            (B, L, N, N) f32   lagged graphs ``A_lag[k-1]``
``stream_index``             (B,) int64         stream instance of each episode
``episode_id``               list of B str
===========================  =================  ==============================================

Lab episodes hold no sample table; stream them as rows with ``causalarena.stream("lab")``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from causalarena._extras import require
from causalarena.loaders.stream import (
    ROWS,
    StreamError,
    _merge,
    check_stream_args,
    options,
    release_fingerprints,
)

torch = require("torch", "torch", "causalarena.loaders.torch_stream (TorchStream)")
IterableDataset = torch.utils.data.IterableDataset

#: DoTime's integer codes of intervention types (``dotime.extended.INTERVENTION_TYPE_MAP``).
INTERVENTION_TYPES = {"hard": 0, "soft": 1, "time_varying": 2}


def _world(rank: int | None, world_size: int | None) -> tuple[int, int]:
    if rank is not None or world_size is not None:
        return int(rank or 0), int(world_size or 1)
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class TorchStream(IterableDataset):
    """Batches of fixed-size tensors from a fresh stream (see the module docstring).

    Parameters
    ----------
    family : {"synthetic", "protocols", "temporal"}
    seed : int
        Stream seed (:func:`causalarena.loaders.stream.stream`).
    batch_size : int, default=16
        Rows (static) or episodes (temporal) per batch.
    exclude, reject
        Contamination guard, as in :func:`~causalarena.loaders.stream.stream`.
    rank, world_size : int, optional
        This process's rank and the number of ranks (default: ``torch.distributed`` if
        initialised, else 0 and 1).
    n_max, max_lag : int, optional
        Temporal: pad variables / lags to these sizes (an episode with more is an error);
        default the batch's largest.
    **stream_options
        Family options of :func:`~causalarena.loaders.stream.stream` (synthetic: ``d`` must be
        one int).

    Raises
    ------
    StreamError
        Lab family, a synthetic stream without one ``d``, or a bad stream option; while
        iterating, rows of one batch with different ``n``, or an episode wider than
        ``n_max``.
    """

    def __init__(
        self,
        family: str,
        seed: int = 0,
        *,
        batch_size: int = 16,
        exclude: Sequence[str | os.PathLike] = (),
        reject: str = "exact",
        rank: int | None = None,
        world_size: int | None = None,
        n_max: int | None = None,
        max_lag: int | None = None,
        **stream_options: Any,
    ) -> None:
        super().__init__()
        if family == "lab":
            raise StreamError(
                "lab episodes hold no sample table to batch; stream them as rows with "
                "causalarena.stream('lab')"
            )
        self.opts = options(family, **stream_options)
        if family == "synthetic" and (self.opts["d"] is None or len(self.opts["d"]) != 1):
            raise StreamError("a torch batch has one d: pass d as a single int, e.g. d=30")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise StreamError(f"batch_size must be a positive int, got {batch_size!r}")
        for name, v in (("n_max", n_max), ("max_lag", max_lag)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise StreamError(f"{name} must be a positive int, got {v!r}")
        folders = check_stream_args(seed, 1, exclude, reject)
        self.family, self.seed, self.batch_size = family, seed, batch_size
        self.exclude = folders
        self.reject, self.rank, self.world_size = reject, rank, world_size
        self.n_max, self.max_lag = n_max, max_lag

    def worker(self) -> tuple[int, int]:
        """``(g, G)``: this worker's global index and the number of global workers."""
        info = torch.utils.data.get_worker_info()
        w, nw = (info.id, info.num_workers) if info is not None else (0, 1)
        rank, world = _world(self.rank, self.world_size)
        return rank * nw + w, world * nw

    def rows(self) -> Iterator[dict[str, Any]]:
        """This worker's stream rows, unbatched (instances ``g, g + G, ...``)."""
        g, G = self.worker()
        index = _merge([release_fingerprints(f) for f in self.exclude]) if self.exclude else None
        return ROWS[self.family](self.seed, g, G, self.opts, index, self.reject)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        collate = temporal_batch if self.family == "temporal" else static_batch
        kw = {"n_max": self.n_max, "max_lag": self.max_lag} if self.family == "temporal" else {}
        buf: list[dict[str, Any]] = []
        for row in self.rows():
            buf.append(row)
            if len(buf) == self.batch_size:
                yield collate(buf, **kw)
                buf = []


def static_batch(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Stack static stream rows into one batch (keys and shapes in the module docstring).

    Raises
    ------
    StreamError
        The rows differ in ``n`` (number of sample rows) or ``d``.
    """
    shapes = sorted({np.asarray(r["X"]).shape for r in rows})
    if len(shapes) != 1:
        raise StreamError(
            f"rows of shapes {shapes} cannot share one (B, n, d) batch; stream one size "
            "(e.g. sizes=[1000] for arena-samplesize, one d for synthetic)"
        )
    out: dict[str, Any] = {
        "X": torch.from_numpy(np.stack([np.asarray(r["X"], dtype=np.float32) for r in rows])),
        "mask": torch.from_numpy(np.stack([np.asarray(r["mask"], dtype=bool) for r in rows])),
        "adjacency": torch.from_numpy(
            np.stack([np.asarray(r["adjacency"], dtype=np.float32) for r in rows])
        ),
        "n_obs": torch.tensor([int(r["n_obs"]) for r in rows], dtype=torch.long),
        "n_int": torch.tensor([int(r["n_int"]) for r in rows], dtype=torch.long),
        "stream_index": torch.tensor([int(r["stream_index"]) for r in rows], dtype=torch.long),
        "instance_id": [r["instance_id"] for r in rows],
        "fingerprint": [r["fingerprint"] for r in rows],
    }
    if "protocol" in rows[0]:
        out["protocol"] = [r["protocol"] for r in rows]
    return out


def _present(v: Any) -> bool:
    return v is not None and len(v) > 0


def _arr(v: Any, dtype, shape: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(v if v is not None else [], dtype=dtype)
    return a.reshape(shape) if a.size == 0 else a


def temporal_batch(
    rows: list[dict[str, Any]], *, n_max: int | None = None, max_lag: int | None = None
) -> dict[str, Any]:
    """Pad and stack temporal episode rows into one DoTime-style batch (module docstring).

    Raises
    ------
    StreamError
        An episode has more variables than ``n_max`` or more lags than ``max_lag``.
    """
    B = len(rows)
    xo = [_arr(r["x_obs"], np.float32, (0, len(r["variables"]))) for r in rows]
    xi = [_arr(r["x_int"], np.float32, (0, len(r["variables"]))) for r in rows]
    lag = [_arr(r["adjacency_lag"], np.float32, (0, len(r["variables"]), len(r["variables"])))
           for r in rows]  # fmt: skip
    widths = [x.shape[1] for x in xo]
    N = max(widths) if n_max is None else n_max
    L = max(a.shape[0] for a in lag) if max_lag is None else max_lag
    for r, w, a in zip(rows, widths, lag, strict=True):
        if w > N:
            raise StreamError(f"episode {r['episode_id']} has {w} variables > n_max = {N}")
        if a.shape[0] > L:
            raise StreamError(f"episode {r['episode_id']} has {a.shape[0]} lags > max_lag = {L}")
    T = max(x.shape[0] for x in xo)
    Q = max(len(_arr(r["query_times"], np.int64, (0,))) for r in rows)
    f32 = np.float32
    X_obs_full, X_int = np.zeros((B, T, N), f32), np.zeros((B, T, N), f32)
    missing = np.zeros((B, T, N), bool)
    time_mask = np.zeros((B, T), bool)
    times = np.zeros((B, T), f32)
    var_mask = np.zeros((B, N), f32)
    A0, AL = np.zeros((B, N, N), f32), np.zeros((B, L, N, N), f32)
    qt, qm = np.zeros((B, Q), f32), np.zeros((B, Q), bool)
    yt, yo = np.zeros((B, Q), f32), np.zeros((B, Q), f32)
    onset, target, kind, num = (np.zeros(B, np.int64) for _ in range(4))
    qcol = np.zeros(B, np.int64)
    value, t_start, t_end = (np.zeros(B, f32) for _ in range(3))
    for b, r in enumerate(rows):
        t, n = xo[b].shape
        m = r.get("mask")
        miss = np.asarray(m, dtype=bool) if _present(m) else np.zeros((t, n), bool)
        miss = miss | np.isnan(xo[b])
        X_obs_full[b, :t, :n] = np.where(miss, 0.0, xo[b])
        X_int[b, :t, :n] = np.nan_to_num(xi[b], nan=0.0)
        missing[b, :t, :n] = miss
        time_mask[b, :t] = True
        tm = r.get("times")
        times[b, :t] = np.asarray(tm, f32) if _present(tm) else np.arange(t, dtype=f32)
        var_mask[b, :n] = 1.0
        A0[b, :n, :n] = _arr(r["adjacency_inst"], f32, (n, n))
        AL[b, : lag[b].shape[0], :n, :n] = lag[b]
        q = _arr(r["query_times"], np.int64, (0,))
        qt[b, : len(q)] = q / t
        qm[b, : len(q)] = True
        yt[b, : len(q)] = np.asarray(r["y_true"], f32)
        yo[b, : len(q)] = np.asarray(r["y_factual"], f32)
        onset[b] = int(r["onset"])
        target[b] = list(r["variables"]).index(r["intervention_target"])
        kind[b] = INTERVENTION_TYPES.get(str(r["intervention_type"]), -1)
        iv = json.loads(r["intervention"]) if r.get("intervention") else {}
        lvl = iv.get("value", r.get("level"))
        value[b] = float(lvl) if isinstance(lvl, int | float) else np.nan
        t_start[b] = int(r["onset"]) / t
        t_end[b] = int(r["window_end"] if r.get("window_end") is not None else t) / t
        qcol[b] = int(r["query_column"])
        num[b] = n
    X_obs = X_obs_full.copy()
    for b in range(B):
        X_obs[b, onset[b] :] = 0.0
    tt = torch.from_numpy
    return {
        "X_obs": tt(X_obs),
        "X_obs_full": tt(X_obs_full),
        "X_int": tt(X_int),
        "variable_mask": tt(var_mask),
        "time_mask": tt(time_mask),
        "missing": tt(missing),
        "times": tt(times),
        "int_onset_idx": tt(onset),
        "intervention_target": tt(target),
        "intervention_type": tt(kind),
        "intervention_value_raw": tt(value),
        "intervention_time_start": tt(t_start),
        "intervention_time_end": tt(t_end),
        "query_target": tt(qcol),
        "query_time": tt(qt),
        "query_mask": tt(qm),
        "Y_true": tt(yt),
        "Y_obs": tt(yo),
        "Y_causal_effect": tt(yt - yo),
        "num_vars": tt(num),
        "adjacency_inst": tt(A0),
        "adjacency_lag": tt(AL),
        "stream_index": torch.tensor(
            [int(r["episode_id"].rsplit("/", 1)[1]) for r in rows], dtype=torch.long
        ),
        "episode_id": [r["episode_id"] for r in rows],
    }
