"""Names shared by every instance table: the factor columns that slice results (paper eq. 6)."""

from __future__ import annotations

import re

#: Construction factors stored on every instance row, in column order; reports slice by them.
SLICE_FACTORS: tuple[str, ...] = (
    "graph_family",
    "d",
    "n_edges",
    "mechanism_tags",
    "noise_tags",
    "root_tags",
    "root_dependency",
    "difficulty",
)
#: Factor columns only some families store (the scenario families' ``domain``, paper
#: section 6.3); the scorer and the reports carry them where the shards have them.
OPTIONAL_FACTORS: tuple[str, ...] = ("domain",)


# ----------------------------------------------------------------------------- array columns
#: The matrix columns of every instance table: element type and shape in terms of the row's
#: own columns.  Stored row-major as Arrow ``list<list<type>>`` (one inner list per row of the
#: matrix), the storage of ``datasets.Array2D``, so the same shards serve every view below.
ARRAY_COLUMNS: dict[str, tuple[str, tuple[str, str]]] = {
    "X": ("float32", ("n_obs + n_int", "d")),
    "mask": ("bool", ("n_obs + n_int", "d")),
    "adjacency": ("int8", ("d", "d")),
}


def array_shape_text(name: str) -> str:
    """Shape of an array column in terms of the row's columns, e.g. ``"(n_obs + n_int, d)"``."""
    return "(" + ", ".join(ARRAY_COLUMNS[name][1]) + ")"


#: Names of fixed-d views: ``<config>-d<ddd>``.
VIEW_RE = re.compile(r"^(?P<config>[a-z0-9][a-z0-9-]*)-d(?P<d>\d{3})$")


def view_name(config: str, d: int) -> str:
    """Name of the fixed-d view of ``config`` (e.g. ``synthetic-obs-d010``)."""
    return f"{config}-d{int(d):03d}"


def manifest_views(manifest: dict) -> dict[str, dict]:
    """The fixed-d views a release manifest implies.

    A config gets one view per ``d`` when every one of its file entries records a ``"d"``
    (written by the engine for families with ``shard_d``, so each shard holds one ``d``).

    Returns
    -------
    dict
        ``view name -> {"config", "d", "files" (sorted paths), "rows"}``, sorted by name.
    """
    out: dict[str, dict] = {}
    by_config: dict[str, list[dict]] = {}
    for f in manifest.get("files", []):
        if isinstance(f, dict) and f.get("config") is not None:
            by_config.setdefault(str(f["config"]), []).append(f)
    for config, files in by_config.items():
        if not all(isinstance(f.get("d"), int) and f["d"] > 0 for f in files):
            continue
        for f in files:
            v = out.setdefault(
                view_name(config, f["d"]), {"config": config, "d": f["d"], "files": [], "rows": 0}
            )
            v["files"].append(f["path"])
            v["rows"] += int(f.get("rows", 0))
    for v in out.values():
        v["files"].sort()
    return dict(sorted(out.items()))


#: Columns a fixed-d view serves: the join keys, the shape columns and the matrices.  The
#: other columns (tags, audit, the ``spec`` JSON) stay in the view's config, joined on
#: ``instance_id``; leaving them out halves what ``datasets`` decodes and formats per row.
VIEW_COLUMNS: tuple[str, ...] = (
    "instance_id",
    "scm_id",
    "d",
    "n_obs",
    "n_int",
    "X",
    "mask",
    "adjacency",
)


def array2d_shape(name: str, d: int, n: int | None = None) -> list[int | None]:
    """``datasets.Array2D`` shape of an array column in a view of fixed ``d``.

    ``n`` is the view's row count per matrix (``n_obs + n_int``) when every row of the view
    has the same one, else ``None`` (a dynamic first dimension).  A fixed first dimension is
    what sends ``datasets``' ``ArrayExtensionArray.to_numpy`` down its one-reshape path for a
    batch (with ``None`` it slices and converts row by row).
    """
    sizes = {"d": int(d), "n_obs + n_int": None if n is None else int(n)}
    return [sizes[dim] for dim in ARRAY_COLUMNS[name][1]]


def matrix_array(arrays: list, value_type):
    """Arrow ``list<list<value_type>>`` column from 2-D numpy arrays (one per table row).

    Parameters
    ----------
    arrays : list of ndarray of shape (rows_i, cols_i)
    value_type : pyarrow.DataType
        Element type (``pa.float32()``, ``pa.bool_()``, ``pa.int8()``).

    Returns
    -------
    pyarrow.ListArray
        Built from one flat buffer and two offset arrays (no per-element Python objects).
    """
    import numpy as np
    import pyarrow as pa

    flat = np.concatenate([np.asarray(a).ravel() for a in arrays]) if arrays else np.empty(0)
    widths = (
        np.concatenate([np.full(a.shape[0], a.shape[1]) for a in arrays]).astype(np.int32)
        if arrays
        else np.empty(0, np.int32)
    )
    inner_off = np.concatenate([[0], np.cumsum(widths)]).astype(np.int32)
    outer_off = np.concatenate([[0], np.cumsum([a.shape[0] for a in arrays])]).astype(np.int32)
    inner = pa.ListArray.from_arrays(pa.array(inner_off), pa.array(flat, type=value_type))
    return pa.ListArray.from_arrays(pa.array(outer_off), inner)
