"""Real datasets of the external-validity track (paper section 5.2, appendix C.4).

The same schema and scorer as the synthetic suites, run on real measurements whose reference
graphs come from the literature.  Those references are expert-specified or experimentally
motivated, **not** verified truth.

Public API
----------
:data:`REGISTRY`, :func:`get_dataset`, :class:`RealDataset`, :class:`ReferenceGraph` --
    one frozen entry per dataset (sources, checksums, licence, citation, graphs, encodings).
:func:`load_real` -> :class:`RealTable` -- verified loading from a folder, cache or download.
:func:`fetch` (pooch), :func:`resolve`, :class:`SourceFile` -- source handling.
:func:`subsample`, :func:`drop_constant_columns`, :func:`expand_adjacency`,
:func:`fit_without_constant_columns`, :func:`constant_columns` -- the documented repairs.
:func:`chamber_graph`, :func:`lt_experiment_target` -- Causal Chambers graph/target handling.
"""

from causalarena.generator.real.graphs import (
    adjacency_to_edges,
    edges_to_adjacency,
    induced_subgraph,
    is_acyclic,
)
from causalarena.generator.real.readers import (
    RealTable,
    chamber_graph,
    load_real,
    lt_experiment_target,
    read_petshop_metrics,
)
from causalarena.generator.real.registry import (
    REFERENCE_CAVEAT,
    REGISTRY,
    RealDataset,
    ReferenceGraph,
    get_dataset,
)
from causalarena.generator.real.repairs import (
    constant_columns,
    drop_constant_columns,
    expand_adjacency,
    fit_without_constant_columns,
    subsample,
)
from causalarena.generator.real.sources import (
    MissingSourceError,
    RealDataError,
    SourceChecksumError,
    SourceFile,
    default_cache_dir,
    fetch,
    resolve,
    source_file,
)

__all__ = [
    "REFERENCE_CAVEAT",
    "REGISTRY",
    "MissingSourceError",
    "RealDataError",
    "RealDataset",
    "RealTable",
    "ReferenceGraph",
    "SourceChecksumError",
    "SourceFile",
    "adjacency_to_edges",
    "chamber_graph",
    "constant_columns",
    "default_cache_dir",
    "drop_constant_columns",
    "edges_to_adjacency",
    "expand_adjacency",
    "fetch",
    "fit_without_constant_columns",
    "get_dataset",
    "induced_subgraph",
    "is_acyclic",
    "load_real",
    "lt_experiment_target",
    "read_petshop_metrics",
    "resolve",
    "source_file",
    "subsample",
]
