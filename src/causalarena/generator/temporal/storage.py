"""Storage of temporal suites: the Parquet row schema (streaming path) and Zarr stores (array
path).

Parquet
-------
One row per episode, the same Arrow schema (:data:`EPISODE_SCHEMA`) in every shard of every
``dot-*`` config.  Trajectories are ``list<list<float32>>`` of shape ``(M, n_observed)`` (rows =
observations, columns = ``variables``; hidden variables are never columns): ``x_obs`` is the
factual arm (NaN where ``mask`` is True in ``dot-observed``), ``x_int`` the intervened arm with
the same exogenous noise (counterfactual pairs).  ``times`` (continuous suites) holds the
observation times, ``mask`` (``dot-observed``) the missingness (True = missing); both are null
elsewhere.  ``adjacency_inst``/``adjacency_lag`` are the graph induced on the released
variables (``A0[i, j] = 1`` iff ``X^i_t -> X^j_t``, ``A_lag[k-1, i, j] = 1`` iff
``X^i_{t-k} -> X^j_t``); edges through hidden nodes are not shown.  ``intervention_targets``
lists every intervened variable (``intervention_target`` is the first).  Regime-switching
episodes (``n_regimes > 1``) carry the realised regime of every row (``regime_path`` for
``x_obs``, ``regime_path_int`` for ``x_int``; equal in counterfactual pairs) and each regime's
graph (``regime_adjacency_inst`` ``(R, n, n)``, ``regime_adjacency_lag`` ``(R, K, n, n)``; at
row ``t`` the active graph is ``regime_adjacency_*[regime_path[t]]``, and ``adjacency_*`` is the
union over regimes); these are null for ``n_regimes = 1``.  ``query_times`` are row
indices into the trajectories; ``y_true = x_int[query_times, query_column]`` (float64, exact)
and ``y_factual`` the same rows of the factual arm (complete even where ``mask`` hides them).

Zarr
----
``<out>/zarr/<config>.zarr`` (Zarr format 3, written with zarr-python, see :func:`write_zarr`):
coordinates ``episode`` (pool index) with ``episode_id`` (the Parquet join key), ``time``,
``variable`` (and ``variable_name`` per episode); trajectories ``x_obs``/``x_int``
``(episode, time, variable)`` float32 (``mask``, ``times`` where the suite has them); ground
truth ``adjacency_inst``/``adjacency_lag``; the intervention and the queries with ``y_true``.
Episodes differ in length and width, so arrays are padded to the config's largest; every
padded variable documents its padding (``attrs["padding"]``) and ``valid`` /
``query_valid`` / ``n_times`` / ``n_vars`` / ``n_queries`` mark the real cells.  Dimension
names are stored as Zarr v3 ``dimension_names`` so ``xarray.open_zarr`` opens it lazily with
named dimensions.  Chunks hold one episode; chunks are grouped in shards of
:data:`ZARR_SHARD_EPISODES` episodes (Zarr v3 sharding codec), so the store has few files
while reads stay per-episode.  The store is written to a temporary folder and renamed into
place; every file in it is checksummed in the manifest.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.generator.temporal.suites import SuiteEpisode

PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "row_group_size": 16}
ZARR_SHARD_EPISODES = 25

_F32_2D = pa.list_(pa.list_(pa.float32()))

#: Arrow schema shared by every shard of every temporal config.
EPISODE_SCHEMA = pa.schema(
    [
        ("episode_id", pa.string()),
        ("suite", pa.string()),
        ("version", pa.string()),
        ("index", pa.int64()),
        ("variables", pa.list_(pa.string())),
        ("x_obs", _F32_2D),
        ("x_int", _F32_2D),
        ("times", pa.list_(pa.float64())),
        ("mask", pa.list_(pa.list_(pa.bool_()))),
        ("intervention", pa.string()),
        ("intervention_type", pa.string()),
        ("intervention_target", pa.string()),
        ("onset", pa.int32()),
        ("window_end", pa.int32()),
        ("query_var", pa.string()),
        ("query_column", pa.int32()),
        ("query_offsets", pa.list_(pa.int32())),
        ("query_times", pa.list_(pa.int32())),
        ("query_min_lag", pa.int32()),
        ("y_true", pa.list_(pa.float64())),
        ("y_factual", pa.list_(pa.float64())),
        ("adjacency_inst", pa.list_(pa.list_(pa.int8()))),
        ("adjacency_lag", pa.list_(pa.list_(pa.list_(pa.int8())))),
        ("structure", pa.string()),
        ("scm_kind", pa.string()),
        ("identifiable", pa.bool_()),
        ("null_effect", pa.bool_()),
        ("pair_mode", pa.string()),
        ("T", pa.int32()),
        ("n_vars", pa.int32()),
        ("n_hidden", pa.int32()),
        ("max_lag", pa.int32()),
        ("positivity", pa.float64()),
        ("percentile", pa.float64()),
        ("level", pa.float64()),
        ("spectral_radius", pa.float64()),
        ("var_ratio", pa.float64()),
        ("drift", pa.float64()),
        ("attempts", pa.int32()),
        ("scm", pa.string()),
        ("intervention_targets", pa.list_(pa.string())),
        ("n_regimes", pa.int32()),
        ("regime_path", pa.list_(pa.int8())),
        ("regime_path_int", pa.list_(pa.int8())),
        ("regime_adjacency_inst", pa.list_(pa.list_(pa.list_(pa.int8())))),
        ("regime_adjacency_lag", pa.list_(pa.list_(pa.list_(pa.list_(pa.int8()))))),
    ]
)


def _nested(arrays: list[np.ndarray | None], value_type: pa.DataType) -> pa.Array:
    """``list<list<value_type>>`` from 2-D arrays (None -> null row)."""
    valid = [a for a in arrays if a is not None]
    flat = np.concatenate([a.ravel() for a in valid]) if valid else np.empty(0)
    widths, lens, nulls = [], [], []
    for a in arrays:
        if a is None:
            lens.append(0)
            nulls.append(True)
        else:
            widths.extend([a.shape[1]] * a.shape[0])
            lens.append(a.shape[0])
            nulls.append(False)
    inner_off = np.concatenate([[0], np.cumsum(widths, dtype=np.int64)]).astype(np.int32)
    outer_off = np.concatenate([[0], np.cumsum(lens, dtype=np.int64)]).astype(np.int32)
    inner = pa.ListArray.from_arrays(pa.array(inner_off), pa.array(flat, type=value_type))
    mask = pa.array(nulls) if any(nulls) else None
    return pa.ListArray.from_arrays(pa.array(outer_off), inner, mask=mask)


def episode_columns(ep: SuiteEpisode) -> dict[str, Any]:
    """Column values of one episode (numpy arrays for the nested columns)."""
    s = ep.scm
    obs = s.observed
    a = s.arrays()
    A0 = a["A0"][np.ix_(obs, obs)]
    AL = a["A_lag"][:, obs][:, :, obs]
    RA0 = RAL = None
    if s.n_regimes > 1:
        G0, GL = s.regime_graphs()
        RA0 = G0[:, obs][:, :, obs]
        RAL = GL[:, :, obs][:, :, :, obs]
    iv = ep.intervention
    return {
        "episode_id": ep.episode_id,
        "suite": ep.suite,
        "version": ep.version,
        "index": ep.index,
        "variables": list(ep.variables),
        "x_obs": ep.x_obs.astype(np.float32),
        "x_int": ep.x_int.astype(np.float32),
        "times": None if ep.times is None else [float(t) for t in ep.times],
        "mask": ep.mask,
        "intervention": iv.to_json(),
        "intervention_type": iv.type,
        "intervention_target": iv.target,
        "onset": ep.onset,
        "window_end": ep.window_end,
        "query_var": ep.query.variable,
        "query_column": ep.query_column,
        "query_offsets": [int(o) for o in ep.query.offsets],
        "query_times": [int(t) for t in ep.query.times],
        "query_min_lag": int(ep.query.min_lag),
        "y_true": [float(v) for v in ep.y_true],
        "y_factual": [float(v) for v in ep.y_factual],
        "adjacency_inst": A0,
        "adjacency_lag": AL,
        "structure": ep.structure,
        "scm_kind": s.kind,
        "identifiable": ep.identifiable,
        "null_effect": ep.null_effect,
        "pair_mode": ep.pair_mode,
        "T": int(ep.x_obs.shape[0]),
        "n_vars": len(ep.variables),
        "n_hidden": len(s.hidden),
        "max_lag": s.max_lag,
        "positivity": ep.positivity,
        "percentile": ep.percentile,
        "level": ep.level,
        "spectral_radius": ep.diagnostics.get("spectral_radius", float("nan")),
        "var_ratio": ep.diagnostics.get("var_ratio", float("nan")),
        "drift": ep.diagnostics.get("drift", float("nan")),
        "attempts": ep.attempt + 1,
        "scm": s.to_json(),
        "intervention_targets": list(iv.targets),
        "n_regimes": s.n_regimes,
        "regime_path": None if ep.regime_path is None else ep.regime_path.astype(np.int8),
        "regime_path_int": None
        if ep.regime_path_int is None
        else ep.regime_path_int.astype(np.int8),
        "regime_adjacency_inst": RA0,
        "regime_adjacency_lag": RAL,
    }


def episodes_to_arrow(episodes: Iterable[SuiteEpisode]) -> pa.Table:
    """Arrow table with :data:`EPISODE_SCHEMA` (one row per episode)."""
    rows = [episode_columns(e) for e in episodes]
    arrays = []
    for f in EPISODE_SCHEMA:
        v = [r[f.name] for r in rows]
        if f.name in ("x_obs", "x_int"):
            arrays.append(_nested(v, pa.float32()))
        elif f.name == "mask":
            arrays.append(_nested(v, pa.bool_()))
        elif f.name == "adjacency_inst":
            arrays.append(_nested(v, pa.int8()))
        elif f.name in ("adjacency_lag", "regime_adjacency_inst", "regime_adjacency_lag"):
            arrays.append(pa.array([None if x is None else x.tolist() for x in v], type=f.type))
        elif f.name in ("regime_path", "regime_path_int"):
            arrays.append(pa.array([None if x is None else x.tolist() for x in v], type=f.type))
        else:
            arrays.append(pa.array(v, type=f.type))
    return pa.Table.from_arrays(arrays, schema=EPISODE_SCHEMA)


# ---------------------------------------------------------------------------------- reading
def _to2d(v: Any, dtype=np.float64) -> np.ndarray | None:
    if v is None:
        return None
    if len(v) == 0:
        return np.zeros((0, 0), dtype=dtype)
    return np.asarray([np.asarray(r, dtype=dtype) for r in v], dtype=dtype)


def read_rows(paths: Iterable[str | os.PathLike]) -> Iterable[dict[str, Any]]:
    """Stream episode rows (dicts with numpy arrays) from Parquet shards, in file order."""
    import pyarrow.parquet as pq

    for p in paths:
        pf = pq.ParquetFile(p)
        for batch in pf.iter_batches(batch_size=64):
            for row in batch.to_pylist():
                yield decode_row(row)


def decode_row(row: dict[str, Any]) -> dict[str, Any]:
    """Turn a Parquet/``datasets`` row into numpy arrays where nested."""
    out = dict(row)
    for k in ("x_obs", "x_int"):
        out[k] = _to2d(row[k], np.float64)
    out["mask"] = _to2d(row["mask"], bool)
    out["times"] = None if row["times"] is None else np.asarray(row["times"], dtype=np.float64)
    out["adjacency_inst"] = _to2d(row["adjacency_inst"], np.int8)
    out["adjacency_lag"] = np.asarray(row["adjacency_lag"], dtype=np.int8)
    for k in ("query_offsets", "query_times"):
        out[k] = np.asarray(row[k], dtype=np.intp)
    for k in ("regime_path", "regime_path_int", "regime_adjacency_inst", "regime_adjacency_lag"):
        if row.get(k) is not None:
            out[k] = np.asarray(row[k], dtype=np.int8)
    for k in ("y_true", "y_factual"):
        out[k] = np.asarray(row[k], dtype=np.float64)
    out["intervention"] = (
        json.loads(row["intervention"])
        if isinstance(row["intervention"], str)
        else row["intervention"]
    )
    return out


def config_shards(folder: str | os.PathLike, config: str) -> list[Path]:
    """Parquet shards of a config in a release folder, in order."""
    return sorted((Path(folder) / "data" / config).glob("test-*.parquet"))


# ---------------------------------------------------------------------------------- zarr
def zarr_supports_sharding() -> bool:
    try:
        import zarr
    except ImportError:
        return False
    return int(zarr.__version__.split(".")[0]) >= 3


def _flat(col: pa.ChunkedArray, depth: int) -> np.ndarray:
    a = col.combine_chunks()
    for _ in range(depth):
        a = a.flatten()
    return a.to_numpy(zero_copy_only=False)


#: Per-episode columns of the Zarr store, copied from Parquet (name -> (dtype, fill)).
_EPISODE_VARS: dict[str, tuple[str, Any]] = {
    "intervention": ("str", ""),
    "intervention_type": ("str", ""),
    "intervention_target": ("str", ""),
    "onset": ("int32", -1),
    "window_end": ("int32", -1),
    "query_var": ("str", ""),
    "query_column": ("int32", -1),
    "structure": ("str", ""),
    "identifiable": ("bool", False),
    "null_effect": ("bool", False),
}

#: What each store variable holds (written as its ``description`` attribute).
ZARR_DOCS: dict[str, str] = {
    "episode": "pool index of the episode (dimension coordinate)",
    "episode_id": "episode id, the join key of the Parquet configs' episode_id column",
    "time": "row index of the trajectory (0 .. n_times - 1 are observed rows)",
    "variable": "column slot (0 .. n_vars - 1 hold the episode's released variables)",
    "variable_to": "column slot of the child in the adjacency arrays",
    "lag": "lag k >= 1 of adjacency_lag",
    "query": "query slot (0 .. n_queries - 1 are the episode's queries)",
    "variable_name": "name of the variable in each slot ('' past n_vars)",
    "x_obs": "factual arm, float32 (NaN where mask is True in dot-observed)",
    "x_int": "intervened arm, float32 (same exogenous noise as x_obs)",
    "mask": "True where the factual value is missing (dot-observed)",
    "times": "observation times (continuous suites)",
    "valid": "True for the episode's real cells (time < n_times and variable < n_vars)",
    "n_times": "observed rows of the episode",
    "n_vars": "released variables of the episode",
    "n_queries": "queries of the episode",
    "adjacency_inst": "A0[i, j] = 1 iff X^i_t -> X^j_t (released variables; 0 padding)",
    "adjacency_lag": "A_lag[k-1, i, j] = 1 iff X^i_{t-k} -> X^j_t (0 padding)",
    "intervention": "the intervention as JSON",
    "intervention_type": "intervention type",
    "intervention_target": "intervened variable",
    "onset": "first row at or after the intervention onset",
    "window_end": "last row of a window intervention (-1 if none)",
    "query_var": "queried variable",
    "query_column": "variable slot of the queried variable",
    "query_times": "rows of the queries (-1 past n_queries)",
    "query_offsets": "offsets of the queries after onset (-1 past n_queries)",
    "y_true": "exact target x_int[query_times, query_column] (float64; NaN past n_queries)",
    "y_factual": "x_obs at the query rows, complete (float64; NaN past n_queries)",
    "query_valid": "True for the episode's queries (query < n_queries)",
    "intervention_targets": "every intervened variable, as a JSON list",
    "n_regimes": "number of regimes of the SCM (1 without switching)",
    "regime": "regime index r (dimension coordinate)",
    "regime_path": "regime of each row of x_obs (-1 padding)",
    "regime_path_int": "regime of each row of x_int (-1 padding)",
    "regime_adjacency_inst": "regime r's A0[i, j] = 1 iff X^i_t -> X^j_t while regime r is active",
    "regime_adjacency_lag": "regime r's A_lag[k-1, i, j] = 1 iff X^i_{t-k} -> X^j_t (0 padding)",
    "structure": "identification structure",
    "identifiable": "whether the effect is identifiable from the observed variables",
    "null_effect": "whether the intervention cannot change the query",
}

#: Padding of each padded variable (``attrs["padding"]``); the ``valid``/``query_valid``
#: masks and ``n_times``/``n_vars``/``n_queries`` say which cells are real.
ZARR_PADDING: dict[str, str] = {
    "x_obs": "NaN where valid is False",
    "x_int": "NaN where valid is False",
    "mask": "False where valid is False",
    "times": "NaN at time >= n_times",
    "variable_name": "'' at variable >= n_vars",
    "adjacency_inst": "0 at variable or variable_to >= n_vars",
    "adjacency_lag": "0 at lag > max_lag or variable / variable_to >= n_vars",
    "query_times": "-1 where query_valid is False",
    "query_offsets": "-1 where query_valid is False",
    "y_true": "NaN where query_valid is False",
    "y_factual": "NaN where query_valid is False",
    "regime_path": "-1 at time >= n_times or for episodes without switching",
    "regime_path_int": "-1 at time >= n_times or for episodes without switching",
    "regime_adjacency_inst": "0 at regime >= n_regimes or variable / variable_to >= n_vars",
    "regime_adjacency_lag": "0 at regime >= n_regimes, lag > max_lag or variable >= n_vars",
}


def _padded(col: pa.ChunkedArray, shape: tuple[int, ...], dtype: str, fill: Any) -> np.ndarray:
    """Rows of a (nested) list column as one array padded with ``fill`` to ``shape``."""
    out = np.full(shape, fill, dtype=dtype)
    for e, v in enumerate(col.to_pylist()):
        if v is None or len(v) == 0:
            continue
        a = np.asarray(v, dtype=dtype)
        out[(e, *(slice(0, k) for k in a.shape))] = a
    return out


def write_zarr(path: str | os.PathLike, shard_paths: list[Path]) -> list[Path]:
    """Write the array store of one config from its Parquet shards, one shard at a time
    (written to a temporary folder, then renamed into place).

    Layout (Zarr format 3, dimension names for ``xarray.open_zarr``; every variable has a
    ``description`` attribute, every padded one a ``padding`` attribute):

    - coordinates ``episode`` (pool index), ``episode_id`` (episode) - the Parquet join key -,
      ``time``, ``variable``, ``variable_to``, ``lag``, ``query`` (integer ranges) and
      ``variable_name`` (episode, variable);
    - trajectories ``x_obs``, ``x_int`` (episode, time, variable) float32, ``mask`` (bool,
      ``dot-observed``), ``times`` (episode, time) float64 (continuous suites), padded as
      :data:`ZARR_PADDING` says, with ``valid`` (episode, time, variable) bool and
      ``n_times``/``n_vars`` marking the real cells;
    - ground truth ``adjacency_inst`` (episode, variable, variable_to) and ``adjacency_lag``
      (episode, lag, variable, variable_to) int8;
    - interventions ``intervention`` (JSON), ``intervention_type``, ``intervention_target``,
      ``onset``, ``window_end``;
    - queries ``query_var``, ``query_column``, ``query_times``, ``query_offsets``, ``y_true``,
      ``y_factual`` (episode, query), ``query_valid``, ``n_queries``; and ``structure``,
      ``identifiable``, ``null_effect``.

    Returns
    -------
    list of Path
        Every file of the store (sorted).
    """
    import pyarrow.parquet as pq

    from causalarena._extras import require

    zarr = require("zarr", "build", "writing the Zarr store of a temporal suite")

    path = Path(path)
    small = [
        "episode_id",
        "index",
        "T",
        "n_vars",
        "variables",
        "times",
        "mask",
        "adjacency_inst",
        "adjacency_lag",
        "query_times",
        "query_offsets",
        "y_true",
        "y_factual",
        "intervention_targets",
        "n_regimes",
        "regime_path",
        "regime_path_int",
        "regime_adjacency_inst",
        "regime_adjacency_lag",
        *_EPISODE_VARS,
    ]
    meta = pa.concat_tables([pq.read_table(p, columns=small) for p in shard_paths])
    E = meta.num_rows
    Ts = np.asarray(meta["T"].to_numpy(), dtype=np.int64)
    Ns = np.asarray(meta["n_vars"].to_numpy(), dtype=np.int64)
    Qs = np.asarray([len(q) for q in meta["query_times"].to_pylist()], dtype=np.int64)
    Ls = np.asarray([len(a or []) for a in meta["adjacency_lag"].to_pylist()], dtype=np.int64)
    Tm, Nm, Qm, Lm = int(Ts.max()), int(Ns.max()), int(Qs.max()), int(Ls.max())
    has_times = meta["times"].null_count < E
    has_mask = meta["mask"].null_count < E
    tmp = path.parent / f".{path.name}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    root = zarr.open_group(str(tmp), mode="w", zarr_format=3)
    sh = min(ZARR_SHARD_EPISODES, E)
    shard_ok = zarr_supports_sharding()

    def arr(name, shape, dtype, dims, fill, coords: str | None = None):
        if len(shape) == 1:
            a = root.create_array(
                name,
                shape=shape,
                chunks=shape if dims[0] != "episode" else (E,),
                dtype=dtype,
                fill_value=fill,
                dimension_names=dims,
            )
        else:
            kw = {"shards": (sh,) + shape[1:]} if shard_ok else {}
            a = root.create_array(
                name,
                shape=shape,
                chunks=(1,) + shape[1:],
                dtype=dtype,
                fill_value=fill,
                dimension_names=dims,
                **kw,
            )
        attrs = {"description": ZARR_DOCS[name]}
        if name in ZARR_PADDING:
            attrs["padding"] = ZARR_PADDING[name]
        if coords:
            attrs["coordinates"] = coords
        a.attrs.update(attrs)
        return a

    coords = "episode_id variable_name"
    dims3 = ("episode", "time", "variable")
    za = {
        "x_obs": arr("x_obs", (E, Tm, Nm), "float32", dims3, float("nan"), coords),
        "x_int": arr("x_int", (E, Tm, Nm), "float32", dims3, float("nan"), coords),
    }
    if has_mask:
        za["mask"] = arr("mask", (E, Tm, Nm), "bool", dims3, False, coords)
    off = 0
    for p in shard_paths:
        t = pq.read_table(p, columns=["x_obs", "x_int", "mask", "T", "n_vars"])
        R = t.num_rows
        Tr = t["T"].to_numpy().astype(np.int64)
        Nr = t["n_vars"].to_numpy().astype(np.int64)
        sizes = Tr * Nr
        for name in ("x_obs", "x_int", "mask"):
            if name not in za:
                continue
            col = t[name]
            flat = _flat(col, 2)
            block = (
                np.zeros((R, Tm, Nm), dtype=bool)
                if name == "mask"
                else np.full((R, Tm, Nm), np.nan, dtype=np.float32)
            )
            pos = 0
            nulls = col.is_null().to_numpy(zero_copy_only=False)
            for e in range(R):
                if nulls[e]:
                    continue
                n = sizes[e]
                block[e, : Tr[e], : Nr[e]] = flat[pos : pos + n].reshape(Tr[e], Nr[e])
                pos += n
            za[name][off : off + R] = block
        off += R
    if has_times:
        arr("times", (E, Tm), "float64", ("episode", "time"), float("nan"), "episode_id")[...] = (
            _padded(meta["times"], (E, Tm), "float64", np.nan)
        )
    valid = (np.arange(Tm)[None, :, None] < Ts[:, None, None]) & (
        np.arange(Nm)[None, None, :] < Ns[:, None, None]
    )
    arr("valid", (E, Tm, Nm), "bool", dims3, False, coords)[...] = valid
    # coordinates
    arr("episode", (E,), "int64", ("episode",), 0)[...] = meta["index"].to_numpy()
    arr("episode_id", (E,), str, ("episode",), "")[...] = np.asarray(
        meta["episode_id"].to_pylist(), dtype=str
    )
    for name, n, start in (("time", Tm, 0), ("variable", Nm, 0), ("variable_to", Nm, 0)):
        arr(name, (n,), "int32", (name,), 0)[...] = np.arange(start, start + n, dtype=np.int32)
    if Lm:
        arr("lag", (Lm,), "int32", ("lag",), 0)[...] = np.arange(1, Lm + 1, dtype=np.int32)
    if Qm:
        arr("query", (Qm,), "int32", ("query",), 0)[...] = np.arange(Qm, dtype=np.int32)
    names = np.full((E, Nm), "", dtype=object)
    for e, v in enumerate(meta["variables"].to_pylist()):
        names[e, : len(v)] = v
    arr("variable_name", (E, Nm), str, ("episode", "variable"), "")[...] = names.astype(str)
    # counts, ground truth, interventions, queries
    for name, v in (("n_times", Ts), ("n_vars", Ns), ("n_queries", Qs)):
        arr(name, (E,), "int32", ("episode",), 0, "episode_id")[...] = v.astype(np.int32)
    arr("adjacency_inst", (E, Nm, Nm), "int8", ("episode", "variable", "variable_to"), 0, coords)[
        ...
    ] = _padded(meta["adjacency_inst"], (E, Nm, Nm), "int8", 0)
    if Lm:
        arr(
            "adjacency_lag",
            (E, Lm, Nm, Nm),
            "int8",
            ("episode", "lag", "variable", "variable_to"),
            0,
            coords,
        )[...] = _padded(meta["adjacency_lag"], (E, Lm, Nm, Nm), "int8", 0)
    arr("intervention_targets", (E,), str, ("episode",), "", "episode_id")[...] = np.asarray(
        [json.dumps(list(v or [])) for v in meta["intervention_targets"].to_pylist()], dtype=str
    )
    Rs = np.asarray([v or 1 for v in meta["n_regimes"].to_pylist()], dtype=np.int64)
    arr("n_regimes", (E,), "int32", ("episode",), 1, "episode_id")[...] = Rs.astype(np.int32)
    Rm = int(Rs.max()) if E else 1
    if Rm > 1:
        arr("regime", (Rm,), "int32", ("regime",), 0)[...] = np.arange(Rm, dtype=np.int32)
        for name in ("regime_path", "regime_path_int"):
            arr(name, (E, Tm), "int8", ("episode", "time"), -1, "episode_id")[...] = _padded(
                meta[name], (E, Tm), "int8", -1
            )
        arr(
            "regime_adjacency_inst",
            (E, Rm, Nm, Nm),
            "int8",
            ("episode", "regime", "variable", "variable_to"),
            0,
            coords,
        )[...] = _padded(meta["regime_adjacency_inst"], (E, Rm, Nm, Nm), "int8", 0)
        if Lm:
            arr(
                "regime_adjacency_lag",
                (E, Rm, Lm, Nm, Nm),
                "int8",
                ("episode", "regime", "lag", "variable", "variable_to"),
                0,
                coords,
            )[...] = _padded(meta["regime_adjacency_lag"], (E, Rm, Lm, Nm, Nm), "int8", 0)
    for name, (dtype, fill) in _EPISODE_VARS.items():
        col = meta[name].to_pylist()
        values = np.asarray([fill if x is None else x for x in col], dtype=dtype)
        arr(name, (E,), str if dtype == "str" else dtype, ("episode",), fill, "episode_id")[...] = (
            values
        )
    if Qm:
        qdims = ("episode", "query")
        for name, dtype, fill in (
            ("query_times", "int32", -1),
            ("query_offsets", "int32", -1),
            ("y_true", "float64", np.nan),
            ("y_factual", "float64", np.nan),
        ):
            arr(name, (E, Qm), dtype, qdims, fill, "episode_id")[...] = _padded(
                meta[name], (E, Qm), dtype, fill
            )
        arr("query_valid", (E, Qm), "bool", qdims, False, "episode_id")[...] = (
            np.arange(Qm)[None, :] < Qs[:, None]
        )
    root.attrs["description"] = (
        "causalarena temporal suite arrays: one episode per index of the episode dimension, "
        "joined to the Parquet rows by episode_id; padded cells are described by each "
        "variable's 'padding' attribute and the valid/query_valid masks"
    )
    root.attrs["sharded"] = bool(shard_ok)
    root.attrs["episodes_per_shard"] = int(sh)
    import warnings

    with warnings.catch_warnings():  # "consolidated metadata is not in the v3 spec"
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(str(tmp), zarr_format=3)
    if path.exists():
        shutil.rmtree(path)
    os.replace(tmp, path)
    return sorted(p for p in path.rglob("*") if p.is_file())


def open_zarr(path: str | os.PathLike):
    """Open a suite's store lazily with xarray (``episode`` is the coordinate)."""
    import warnings

    from causalarena._extras import require

    xr = require("xarray", "temporal", "opening a temporal suite's Zarr store")
    require("zarr", "temporal", "opening a temporal suite's Zarr store")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xr.open_zarr(str(path), consolidated=True, zarr_format=3)
