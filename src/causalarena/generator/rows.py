"""Arrow rows of tabular instances: the schema every synthetic (and, extended, real) config
shares, and the conversion of column lists with 2-D arrays to Arrow tables."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

#: Arrow schema shared by every shard of every synthetic config.
ROW_SCHEMA = pa.schema(
    [
        ("instance_id", pa.string()),
        ("scm_id", pa.string()),
        ("scm_index", pa.int32()),
        ("setting", pa.string()),
        ("replicate", pa.int32()),
        ("family", pa.string()),
        ("graph_family", pa.string()),
        ("d", pa.int32()),
        ("n_edges", pa.int32()),
        ("mechanism_tags", pa.list_(pa.string())),
        ("noise_tags", pa.list_(pa.string())),
        ("root_tags", pa.list_(pa.string())),
        ("root_dependency", pa.string()),
        ("difficulty", pa.string()),
        ("n_obs", pa.int32()),
        ("n_int", pa.int32()),
        ("variables", pa.list_(pa.string())),
        ("X", pa.list_(pa.list_(pa.float32()))),
        ("mask", pa.list_(pa.list_(pa.bool_()))),
        ("adjacency", pa.list_(pa.list_(pa.int8()))),
        ("intervention_targets", pa.list_(pa.string())),
        ("varsortability", pa.float64()),
        ("r2_sortability", pa.float64()),
        ("audit_attempts", pa.int32()),
        ("audit_reasons", pa.list_(pa.string())),
        ("spec", pa.string()),
    ]
)


def _nested(arrays: list[np.ndarray], value_type: pa.DataType) -> pa.Array:
    """list<list<value_type>> array from 2-D numpy arrays (one per row)."""
    flat = np.concatenate([a.ravel() for a in arrays]) if arrays else np.empty(0)
    widths = np.concatenate([np.full(a.shape[0], a.shape[1]) for a in arrays]).astype(np.int32)
    inner_off = np.concatenate([[0], np.cumsum(widths)]).astype(np.int32)
    outer_off = np.concatenate([[0], np.cumsum([a.shape[0] for a in arrays])]).astype(np.int32)
    inner = pa.ListArray.from_arrays(pa.array(inner_off), pa.array(flat, type=value_type))
    return pa.ListArray.from_arrays(pa.array(outer_off), inner)


def to_arrow(cols: dict[str, list]) -> pa.Table:
    """Arrow table with :data:`ROW_SCHEMA` from column lists."""
    arrays = []
    for f in ROW_SCHEMA:
        v = cols[f.name]
        if f.name in ("X", "mask", "adjacency"):
            arrays.append(_nested(v, f.type.value_type.value_type))
        else:
            arrays.append(pa.array(v, type=f.type))
    return pa.Table.from_arrays(arrays, schema=ROW_SCHEMA)
