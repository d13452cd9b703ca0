"""Names shared by every instance table: the factor columns that slice results (paper eq. 6)."""

from __future__ import annotations

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
