"""Dataset card (``README.md``) of a release folder, rendered from :class:`ReleaseMetadata`.

The YAML front matter declares one ``configs`` entry per config with its ``data_files``
(``data/<config>/*.parquet``, split ``test``), so the folder loads with
``datasets.load_dataset(folder, config)`` without a loading script, and ``dataset_info`` with
the features of the real Arrow schema and ``num_examples`` per config.  The body follows the
questions a datasheet reader asks (summary, composition, schema, generation, audits, uses,
overlap disclosure, limitations, versioning, citation, licence).  Every table is computed from
the written shards (see :func:`causalarena.release.metadata.collect_metadata`).

A real-data release (``family = "real"``) gets its own body (:func:`render_real_card`): the
reference caveat, a per-dataset table (configs, rows, variables, reference edges,
interventional rows, licence, redistributable, reference graphs), unavailable datasets,
repairs, per-dataset BibTeX and licences, and ``license: other`` with ``license_name`` /
``license_details`` in the front matter; no synthetic coverage or audit sections.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from causalarena.release.io import atomic_write_bytes
from causalarena.release.metadata import DATA_LICENCES, ReleaseMetadata, Share

#: Column descriptions shown in the card's schema table (and used by the Croissant file).
COLUMN_DOCS: dict[str, str] = {
    "instance_id": "`<scm_id>/<setting>/r<replicate>`",
    "scm_id": "SCM identity in the suite pool",
    "scm_index": "SCM index in the suite pool",
    "setting": "`obs` or `obsint`",
    "replicate": "replicate index",
    "family": "SCM family (`synthetic`)",
    "graph_family": "graph family of the DAG",
    "d": "number of variables",
    "n_edges": "number of directed edges",
    "mechanism_tags": "mechanism families used by the SCM's nodes",
    "noise_tags": "noise families used by the SCM's nodes",
    "root_tags": "root-distribution families used by the SCM's roots",
    "root_dependency": "dependency among roots",
    "difficulty": "`clean` or stressors joined by `+`",
    "n_obs": "observational rows (first rows of `X`)",
    "n_int": "interventional rows (last rows of `X`)",
    "variables": "column names, in adjacency order",
    "X": "data, float32 matrix of shape (n_obs + n_int, d), row-major",
    "mask": "bool matrix of shape (n_obs + n_int, d): `mask[r][j]` true iff variable j was "
    "intervened on in row r",
    "adjacency": "int8 matrix of shape (d, d), ground truth: `A[i][j] = 1` iff `i -> j`",
    "intervention_targets": "the SCM's intervention target pool",
    "varsortability": "varsortability of the observational rows (Reisach et al. 2021)",
    "r2_sortability": "R2-sortability of the observational rows (Reisach et al. 2023)",
    "audit_attempts": "candidates drawn until one passed every audit gate",
    "audit_reasons": "why the earlier candidates were rejected",
    "spec": "executable SCM specification as JSON (`causalarena.SCMSpec.from_json`)",
}

#: Column descriptions of real-data releases (``family = "real"``): what differs from
#: :data:`COLUMN_DOCS` plus the columns only real shards have.
REAL_COLUMN_DOCS: dict[str, str] = {
    **COLUMN_DOCS,
    "instance_id": "`real-<dataset>/<setting>/r0`",
    "scm_id": "`real-<dataset>` (one dataset, no SCM)",
    "scm_index": "index of the dataset in the real-data registry",
    "replicate": "always 0 (one table per dataset and setting)",
    "family": "`real` (public real-world measurements)",
    "graph_family": "`real`",
    "n_edges": "edges of the reference graph",
    "mechanism_tags": "empty (mechanisms unknown)",
    "noise_tags": "empty (noise unknown)",
    "root_tags": "empty (root distributions unknown)",
    "root_dependency": "`unknown`",
    "difficulty": "`real`",
    "X": "measurements, float32 matrix of shape (n_obs + n_int, d), row-major",
    "adjacency": "int8 matrix of shape (d, d), reference graph from the literature (not "
    "verified truth): `A[i][j] = 1` iff `i -> j`",
    "intervention_targets": "variables targeted by the dataset's interventions",
    "audit_attempts": "0 (no generator audit)",
    "audit_reasons": "empty",
    "spec": "JSON description of the source, reference graph and preprocessing "
    "(`family = real`, `executable = false`; not an SCM)",
    "source": "source files (repository@commit:path or URL)",
    "licence": "licence of the dataset's source files",
    "citation": "BibTeX to cite for the dataset",
    "reference_graph_name": "name of the reference graph in `adjacency`",
    "alternative_references": "JSON: other published reference graphs (edges, acyclicity)",
    "constant_columns": "zero-variance variables of this table (kept, not removed)",
    "redistributable": "whether the source licence allows redistribution",
}


def column_docs(meta: ReleaseMetadata) -> dict[str, str]:
    """Column descriptions for the release family of ``meta`` (with the family's own)."""
    return {**(REAL_COLUMN_DOCS if meta.is_real else COLUMN_DOCS), **meta.column_docs}


#: ``license_name`` of real-data cards (``license: other``).
REAL_LICENSE_NAME = "per-dataset-licences"


def licence_details(meta: ReleaseMetadata) -> str:
    """One-line per-licence list of datasets (``license_details`` of a real-data card)."""
    assert meta.real is not None
    groups = {
        lic: ", ".join(d.name for d in meta.real.datasets if d.licence == lic)
        for lic in meta.real.licences
    }
    return (
        "Each dataset keeps the licence of its source files: "
        + "; ".join(f"{lic}: {names}" for lic, names in groups.items())
        + ". See the Licence section and the `licence` column."
    )


def _type_text(f: Any) -> str:
    if getattr(f, "array2d", None) is not None:
        return f"Array2D{tuple(f.array2d.shape)}<{f.array2d.dtype}>"
    return f.dtype if f.list is None else f"list<{_type_text(f.list)}>"


def usage_lines(meta: ReleaseMetadata) -> list[str]:
    """The card's loading section: plain ``datasets`` first, then the fixed-d views, then
    ``causalarena`` (Markdown lines, shared by every release family)."""
    default = next((c for c in meta.configs if c.default), meta.configs[0])
    src = meta.hf_repo_id or "<this folder or ORG/NAME>"
    L = [
        f"`{default.name}` is the default config. Plain `datasets` reads every config "
        "(no loading script, no `causalarena` import):",
        "",
        "```python",
        "import datasets",
        f'ds = datasets.load_dataset("{src}", "{default.name}", split="test", streaming=True, '
        f'revision="v{meta.version}").with_format("numpy")',
        'row = next(iter(ds))  # row["X"]: (n_obs + n_int, d) float32, row["mask"]: bool',
        "```",
        "",
        "`X` and `mask` have shape `(n_obs + n_int, d)` and `adjacency` `(d, d)`, read from "
        "the row's own `n_obs`, `n_int` and `d` columns. `adjacency` is stored as int8; "
        "`datasets`' numpy and torch formats widen every integer array to int64 (the arrow "
        "and python formats and `causalarena.to_numpy` keep int8).",
        "",
    ]
    if meta.views:
        v = meta.views[0]
        L += [
            "Fixed-d views `<config>-dNNN` read the same shards with `datasets.Array2D` "
            "features (`X`, `mask`: `(n, d)`, with `n = n_obs + n_int` fixed when every row "
            "of the view has the same one; `adjacency`: `(d, d)`) and serve only the columns "
            f"{', '.join(f'`{c}`' for c in v.columns)} (join on `instance_id` for the rest): "
            "the numpy and torch formats convert each matrix in one step, and rows "
            'stack into `(B, n, d)` batches (also `with_format("torch")`):',
            "",
            "```python",
            f'ds = datasets.load_dataset("{src}", "{v.name}", split="test", streaming=True)',
            f'batch = next(ds.with_format("numpy").iter(batch_size=4))  # batch["X"]: (4, n, {v.d})',
            "```",
            "",
            "| view | of config | n | d | rows | shards |",
            "|---|---|---:|---:|---:|---:|",
            *(
                f"| `{c.name}` | `{c.view_of}` | {c.n if c.n else 'varies'} | {c.d} | "
                f"{c.rows} | {c.shards} |"
                for c in meta.views
            ),
            "",
        ]
    L += [
        "With the package (a local folder or a Hub id):",
        "",
        "```python",
        "import causalarena as ca",
        f'ds = ca.load("{default.name}", source="{src}", revision="v{meta.version}")',
        "row = ca.to_numpy(ds[0])  # X (n, d) float32, mask (n, d) bool, adjacency (d, d) int8",
        "```",
        "",
    ]
    return L


def front_matter(meta: ReleaseMetadata) -> dict[str, Any]:
    """The YAML front matter as a plain dict (rendered in this key order)."""
    lic: dict[str, Any] = {"license": meta.license}
    if meta.is_real:
        lic.update(license_name=REAL_LICENSE_NAME, license_details=licence_details(meta))
    return {
        **lic,
        "pretty_name": meta.pretty_name,
        "task_categories": list(meta.task_categories),
        "tags": list(meta.tags),
        "size_categories": [meta.size_category],
        "configs": [
            {
                "config_name": c.name,
                "data_files": [{"split": c.split, "path": c.data_files}],
                **({"columns": list(c.columns)} if c.columns else {}),
                **({"default": True} if c.default else {}),
            }
            for c in [*meta.configs, *meta.views]
        ],
        "dataset_info": [
            {
                "config_name": c.name,
                "features": [f.to_yaml() for f in c.features],
                "splits": [
                    {"name": c.split, "num_bytes": c.uncompressed_bytes, "num_examples": c.rows}
                ],
                "download_size": c.bytes,
                "dataset_size": c.uncompressed_bytes,
            }
            for c in [*meta.configs, *meta.views]
        ],
    }


def dataset_card(meta: ReleaseMetadata, body: str) -> str:
    """``README.md`` text: :class:`huggingface_hub.DatasetCard` of the front matter and ``body``.

    The YAML header is :class:`huggingface_hub.DatasetCardData` (``to_yaml``, keys in the
    order of :func:`front_matter`), so the card is exactly what the Hub's own card tools
    write and read back.  ``body`` starts with the line after the closing ``---``.
    """
    from huggingface_hub import DatasetCard, DatasetCardData

    fm = front_matter(meta)
    header = DatasetCardData(**fm).to_yaml(original_order=list(fm))
    return str(DatasetCard(f"---\n{header}\n---\n{body}"))


def _share_table(title: str, shares: list[Share]) -> list[str]:
    lines = [f"| {title} | SCMs | share |", "|---|---:|---:|"]
    lines += [f"| `{s.level}` | {s.scms} | {s.share:.1%} |" for s in shares]
    return lines


def render_card(meta: ReleaseMetadata) -> str:
    """Markdown card text with YAML front matter (deterministic).

    Parameters
    ----------
    meta : ReleaseMetadata

    Returns
    -------
    str
    """
    if meta.is_real:
        return render_real_card(meta)
    if meta.is_generic:
        return render_generic_card(meta)
    cov, aud = meta.coverage, meta.audit
    assert cov is not None and aud is not None
    L: list[str] = [""]
    L += [f"# {meta.title}", ""]
    L += ["## Summary", "", meta.summary, ""]
    L += [
        f"- Suite `{meta.suite}`, version `{meta.version}`, scale `{meta.scale}`, seed "
        f"`{meta.seed}`, generator revision `{meta.generator_rev}`, built with causalarena "
        f"{meta.package_version}.",
        f"- DOI: {meta.doi_text}.",
        f"- Frozen: {'yes, on ' + meta.date_released if meta.frozen and meta.date_released else 'no (development build)'}.",
        f"- Paper: [{meta.paper.title}]({meta.paper.url}).",
        "",
    ]
    L += [
        "## Suites and configs",
        "",
        "Every config is one Hugging Face config with the single split `test` (the public "
        "instances). Sizes are read from the manifest and the shards.",
        "",
        "| config | setting | split | rows | shards | bytes |",
        "|---|---|---|---:|---:|---:|",
    ]
    L += [
        f"| `{c.name}` | `{c.setting}` | `{c.split}` | {c.rows} | {c.shards} | {c.bytes} |"
        for c in meta.configs
    ]
    L += ["", *usage_lines(meta)]
    L += [
        "## Schema",
        "",
        "One row per dataset instance; every shard of every config has the same Arrow schema.",
        "",
        "**Adjacency convention:** `A[i, j] = 1` iff edge `i → j` (row = parent, column = "
        "child), with rows and columns in the order of the row's `variables` list.",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    L += [
        f"| `{f.name}` | `{_type_text(f)}` | {COLUMN_DOCS.get(str(f.name), '')} |"
        for f in meta.configs[0].features
    ]
    L += [""]
    t = cov.family_by_d
    L += [
        "## How the instances were generated",
        "",
        "Each SCM is drawn from a seeded generator keyed by suite, generator revision and pool "
        "index (no global random state), then audited; a rejected candidate is redrawn with the "
        "next attempt number. Data are sampled in topological order; interventional rows use "
        "balanced single-target hard do-resampling from the target's 10th-90th percentile and "
        "recompute every descendant. Half of every (graph family, d) block is public; the other "
        "half is reserved (not in these files).",
        "",
        f"The tables below count the {cov.n_scms} public SCMs of this release (deduplicated over "
        f"configs) from the shards' factor columns. Edges per SCM: {cov.edges_min}–"
        f"{cov.edges_max}; mean varsortability {cov.varsortability_mean:.3f}, mean "
        f"R²-sortability {cov.r2_sortability_mean:.3f}.",
        "",
        f"### SCMs per {t.row_name} × {t.column_name}",
        "",
        f"| {t.row_name} | " + " | ".join(f"d={d}" for d in t.columns) + " | total |",
        "|---|" + "---:|" * (len(t.columns) + 1),
    ]
    L += [
        f"| `{r}` | " + " | ".join(str(x) for x in row) + f" | {sum(row)} |"
        for r, row in zip(t.rows, t.counts, strict=True)
    ]
    L += [""]
    for title, shares in (
        ("mechanism family", cov.mechanism),
        ("noise family", cov.noise),
        ("root distribution", cov.root),
        ("root dependency", cov.root_dependency),
        ("difficulty", cov.difficulty),
    ):
        L += [f"### Shares by {title}", ""]
        if title in ("mechanism family", "noise family", "root distribution"):
            L += ["Share of SCMs with at least one node of the family.", ""]
        L += _share_table(title, shares) + [""]
    L += [
        "## Audits",
        "",
        "Before release every candidate SCM passes deterministic gates (paper appendix A.2): "
        "acyclic graph without isolated nodes, minimum depth and edge count; finite values; no "
        "(near-)constant variable; no discrete variable with one value in more than 99% of rows; "
        "at most 10% of rows at explicit clipping bounds; no variable pair with |corr| > 0.99; "
        "intervention masks consistent with the target pool, every target changed, descendants "
        "regenerated. All replicates of both settings are audited at every scale.",
        "",
        f"- SCMs: {aud.scms}; redrawn at least once: {aud.resampled_scms} "
        f"({aud.resample_rate:.1%}); candidates drawn: {aud.total_attempts} "
        f"(acceptance rate {aud.acceptance_rate:.1%}).",
        "",
        "| rejected by | candidates |",
        "|---|---:|",
    ]
    L += [f"| {r.reason} | {r.candidates} |" for r in aud.reasons] or ["| (none) | 0 |"]
    L += ["", "## Intended uses", ""]
    L += [f"- {u}" for u in meta.intended_uses]
    L += ["", "Out of scope:", ""]
    L += [f"- {u}" for u in meta.out_of_scope_uses]
    L += ["", "## Pretraining overlap disclosure", ""]
    L += [f"- {u}" for u in meta.overlap_guidance]
    L += _reserved_lines(meta)
    L += ["", "## Limitations", ""]
    L += [f"- {u}" for u in meta.limitations]
    L += [
        "",
        "## Versioning and changelog",
        "",
        "Releases follow semantic versioning. A frozen version is immutable: its files, suite "
        "definition, seeds and library versions are recorded with sha256 in `manifest.json`, "
        "and publishing different content under the same version is refused. Each version is a "
        f"git tag `vX.Y.Z` of the Hub repository{' (' + meta.hub_url + ')' if meta.hub_url else ''}; "
        'load a fixed one with `revision="vX.Y.Z"`. `causalarena verify DIR --rebuild` '
        "regenerates every shard from the recorded suite, version, scale and seed and compares "
        "checksums.",
        "",
    ]
    if meta.previous_doi:
        L += [f"Previous version: DOI {meta.previous_doi}.", ""]
    for e in meta.changelog:
        L += [f"- **{e.version}**: " + " ".join(e.changes)]
    authors = " and ".join(
        f"{p.family_names}, {p.given_names}" for p in meta.paper.authors if p.family_names
    )
    L += [
        "",
        "## How to cite",
        "",
        "Cite the paper and this release (machine-readable: `CITATION.cff`, `.zenodo.json`, "
        "`croissant.json`).",
        "",
        "```bibtex",
        f"@misc{{li{meta.paper.year}causalarena,",
        f"  title = {{{meta.paper.title}}},",
        f"  author = {{{authors}}},",
        f"  year = {{{meta.paper.year}}},",
        f"  eprint = {{{meta.paper.arxiv}}},",
        "  archivePrefix = {arXiv},",
        "}",
        "```",
        "",
        f"Dataset: {meta.title}, DOI {meta.doi_text}.",
        "",
        "## Licence",
        "",
        f"Data: [CC BY 4.0]({'https://creativecommons.org/licenses/by/4.0/'}) (`{meta.license}`). "
        "The data are purely synthetic and contain no personal information. The `causalarena` "
        "code is Apache-2.0.",
        "",
    ]
    return dataset_card(meta, "\n".join(L))


def _reserved_lines(meta: ReleaseMetadata) -> list[str]:
    """The reserved-commitment paragraph of a frozen release with a key-drawn reserved half
    (any family), after the overlap disclosure."""
    if not meta.reserved:
        return []
    from causalarena.release.metadata import RESERVED_STATEMENT as STATEMENT

    return [
        "",
        f"Reserved commitment: {meta.reserved.count} reserved instances "
        f"({meta.reserved.scope}); root sha256 `{meta.reserved.root_sha256}` (per-instance "
        "and per-pool commitments in `manifest.json`, `freeze.reserved`).",
        "",
        STATEMENT,
    ]


def render_generic_card(meta: ReleaseMetadata) -> str:
    """Card of a family described by its :class:`~causalarena.family.CardText` (temporal
    ``dot-*`` suites, plug-in families): front matter, summary, configs, schema, uses,
    limitations, versioning, citation and licence."""
    L: list[str] = [""]
    L += [f"# {meta.title}", "", "## Summary", "", meta.summary, ""]
    L += [
        f"- Suite `{meta.suite}` (family `{meta.family}`), version `{meta.version}`, scale "
        f"`{meta.scale}`, seed `{meta.seed}`, built with causalarena {meta.package_version}.",
        f"- DOI: {meta.doi_text}.",
        f"- Frozen: {'yes, on ' + meta.date_released if meta.frozen and meta.date_released else 'no (development build)'}.",
        "",
        "## Suites and configs",
        "",
        "| config | split | rows | shards | bytes |",
        "|---|---|---:|---:|---:|",
    ]
    L += [f"| `{c.name}` | `{c.split}` | {c.rows} | {c.shards} | {c.bytes} |" for c in meta.configs]
    default = next((c for c in meta.configs if c.default), meta.configs[0])
    src = meta.hf_repo_id or "<this folder or ORG/NAME>"
    L += [
        "",
        f"`{default.name}` is the default config. Plain `datasets` reads every config (no "
        "loading script, no `causalarena` import):",
        "",
        "```python",
        "import datasets",
        f'ds = datasets.load_dataset("{src}", "{default.name}", split="test", streaming=True, '
        f'revision="v{meta.version}").with_format("numpy")',
        "row = next(iter(ds))",
        "```",
        "",
        "## Schema",
        "",
        "| config | column | type |",
        "|---|---|---|",
    ]
    L += [
        f"| `{c.name}` | `{f.name}` | `{_type_text(f)}` |" for c in meta.configs for f in c.features
    ]
    if meta.column_docs:
        L += ["", "Columns of this family:", "", "| column | meaning |", "|---|---|"]
        L += [f"| `{k}` | {_cell(v)} |" for k, v in meta.column_docs.items()]
    for sec in meta.sections:
        L += ["", f"## {sec.title}", "", sec.body.rstrip("\n")]
    L += ["", "## Intended uses", ""] + [f"- {u}" for u in meta.intended_uses]
    if meta.out_of_scope_uses:
        L += ["", "Out of scope:", ""] + [f"- {u}" for u in meta.out_of_scope_uses]
    L += ["", "## Pretraining overlap disclosure", ""]
    L += [f"- {u}" for u in meta.overlap_guidance] or ["- None stated."]
    L += _reserved_lines(meta)
    L += ["", "## Limitations", ""] + ([f"- {u}" for u in meta.limitations] or ["- None stated."])
    L += [
        "",
        "## Versioning and changelog",
        "",
        "Releases follow semantic versioning; a frozen version is immutable (every file's "
        "sha256 is in `manifest.json`). `causalarena verify DIR --rebuild` regenerates every "
        "file from the recorded suite, version, scale and seed and compares checksums.",
        "",
    ]
    L += [f"- **{e.version}**: " + " ".join(e.changes) for e in meta.changelog]
    L += [
        "",
        "## How to cite",
        "",
        "Machine-readable citation: `CITATION.cff`, `.zenodo.json`, `croissant.json`.",
        "",
        f"Dataset: {meta.title}, DOI {meta.doi_text}.",
        "",
        "## Licence",
        "",
        *_generic_licence_lines(meta),
        "",
    ]
    return dataset_card(meta, "\n".join(L))


def _generic_licence_lines(meta: ReleaseMetadata) -> list[str]:
    """Licence section body of a generic card: the declared data licence and its notice."""
    if meta.license == "cc-by-4.0" and not meta.license_notice:
        return [f"Data: CC BY 4.0 (`{meta.license}`). The `causalarena` code is Apache-2.0."]
    name = DATA_LICENCES[meta.license][2] if meta.license in DATA_LICENCES else meta.license
    line = f"Data: [{name}]({meta.license_url}) (`{meta.license}`)."
    if meta.license_notice:
        line += " " + meta.license_notice
    return [line + " The `causalarena` code is Apache-2.0."]


def _cell(text: str) -> str:
    """Text safe inside one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _paper_bibtex(meta: ReleaseMetadata) -> list[str]:
    authors = " and ".join(
        f"{p.family_names}, {p.given_names}" for p in meta.paper.authors if p.family_names
    )
    return [
        "```bibtex",
        f"@misc{{li{meta.paper.year}causalarena,",
        f"  title = {{{meta.paper.title}}},",
        f"  author = {{{authors}}},",
        f"  year = {{{meta.paper.year}}},",
        f"  eprint = {{{meta.paper.arxiv}}},",
        "  archivePrefix = {arXiv},",
        "}",
        "```",
    ]


def render_real_card(meta: ReleaseMetadata) -> str:
    """Markdown card of a real-data release (``family = "real"``; deterministic).

    Every count comes from the shards (see :func:`causalarena.release.metadata.
    collect_real_info`); licences, citations, unavailable datasets and repair options from the
    shards' columns and ``manifest.json``.
    """
    real = meta.real
    assert real is not None
    docs = column_docs(meta)
    L: list[str] = [""]
    L += [f"# {meta.title}", ""]
    L += ["## Summary", "", meta.summary, ""]
    L += [f"> **Reference graphs are not verified truth.** {real.reference_caveat}", ""]
    L += [
        f"- Suite `{meta.suite}`, version `{meta.version}`, scale `{meta.scale}`, built with "
        f"causalarena {meta.package_version} from public source files (checksums of the "
        "sources in each row's `spec`).",
        f"- {len(real.datasets)} datasets built, {len(real.unavailable)} unavailable in this "
        "build (listed below).",
        f"- DOI: {meta.doi_text}.",
        f"- Frozen: {'yes, on ' + meta.date_released if meta.frozen and meta.date_released else 'no (development build)'}.",
        f"- Paper: [{meta.paper.title}]({meta.paper.url}).",
        "",
    ]
    L += [
        "## Reference graphs",
        "",
        "The data are public real-world measurements. The graph shipped with each table "
        "(`adjacency`, named in `reference_graph_name`) is a reference structure from the "
        "literature: expert-specified or motivated by the experimental design, not an "
        "independently verified causal ground truth. Where the literature offers competing "
        "references they are shipped as well (`alternative_references`, with edge lists and "
        "acyclicity), so a score can be reported against more than one. The caveat above is "
        "also recorded in `manifest.json` (`reference_caveat`) and in every row's `spec`.",
        "",
    ]
    L += [
        "## Suites and configs",
        "",
        "Every config is one Hugging Face config with the single split `test`. `real-obs` holds "
        "every dataset observation-only (interventional datasets with their intervention rows "
        "dropped); `real-obsint` holds the interventional datasets with their masks. One row "
        "per dataset, one shard per dataset and config.",
        "",
        "| config | setting | split | rows | shards | bytes |",
        "|---|---|---|---:|---:|---:|",
    ]
    L += [
        f"| `{c.name}` | `{c.setting}` | `{c.split}` | {c.rows} | {c.shards} | {c.bytes} |"
        for c in meta.configs
    ]
    L += ["", *usage_lines(meta)]
    L += [
        "## Datasets",
        "",
        "Counted from the shards (rows and interventional rows of the fullest table of each "
        "dataset; `real-obs` keeps only the observational rows).",
        "",
        "| dataset | configs | rows | variables | reference edges | interventional rows | "
        "licence | redistributable | reference graph | alternative references |",
        "|---|---|---:|---:|---:|---:|---|---|---|---|",
    ]
    L += [
        f"| `{d.name}` | {', '.join(f'`{c}`' for c in d.configs)} | {d.rows} | {d.variables} | "
        f"{d.reference_edges} | {d.interventional_rows} | {d.licence} | "
        f"{'yes' if d.redistributable else 'no'} | `{d.reference_graph}` | "
        f"{', '.join(f'`{a}`' for a in d.alternative_references) or 'none'} |"
        for d in real.datasets
    ]
    L += [
        "",
        f"Totals: {sum(d.rows for d in real.datasets)} rows, "
        f"{sum(d.interventional_rows for d in real.datasets)} of them interventional.",
        "",
        "## Unavailable datasets",
        "",
    ]
    if real.unavailable:
        L += [
            "These registry datasets are not in this build because a source file was missing "
            "when it was built (they are built once the file is provided):",
            "",
            "| dataset | reason |",
            "|---|---|",
        ]
        L += [f"| `{u.name}` | {_cell(u.reason)} |" for u in real.unavailable]
    else:
        L += ["None: every registry dataset was built."]
    L += [
        "",
        "## Schema",
        "",
        "One row per dataset and setting; every shard of every config has the same Arrow schema.",
        "",
        "**Adjacency convention:** `A[i, j] = 1` iff edge `i → j` in the reference graph (row = "
        "parent, column = child), with rows and columns in the order of the row's `variables` "
        "list.",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    L += [
        f"| `{f.name}` | `{_type_text(f)}` | {docs.get(str(f.name), '')} |"
        for f in meta.configs[0].features
    ]
    L += ["", "## Preprocessing and repairs", ""]
    L += [
        "Values are stored as float32 as read from the source files, which are checked against "
        "their published checksums"
        + (
            " (this build accepted files without a published checksum: `allow_unpinned`)."
            if real.allow_unpinned
            else "."
        )
        + " Nothing is imputed, rescaled or subsampled in the released tables. Repairs:",
        "",
    ]
    names = {d.name: d for d in real.datasets}
    mpg = names.get("cdcsg-autompg")
    if mpg is not None:
        k = mpg.details.get("horsepower_zero_rows")
        n_file = mpg.details.get("rows_in_file")
        if real.autompg_missing == "drop":
            L += [
                f"- **Auto MPG horsepower zeros dropped** (`autompg_missing = drop`): the "
                f"{k if k is not None else ''} rows with Horsepower = 0 (UCI's missing value "
                f"'?', stored as 0 by CD-CSG) were removed"
                + (f" ({n_file} → {mpg.rows} rows)" if n_file is not None else "")
                + '. Build with `causalarena.build("arena-real", autompg_missing="keep")` to keep them.',
            ]
        else:
            L += [
                "- **Auto MPG horsepower zeros kept** (`autompg_missing = keep`): rows with "
                "Horsepower = 0 are UCI missing values kept as recorded.",
            ]
    else:
        L += [f"- Auto MPG option `autompg_missing = {real.autompg_missing}` (dataset not built)."]
    L += [
        "- **Observation-only conversion:** the `real-obs` row of an interventional dataset "
        "is its table with every intervention row dropped.",
        "- **Constant columns** are kept (the reference graph refers to them) and listed per "
        "table below and in the `constant_columns` column. Methods that cannot handle "
        "zero-variance columns can drop them with `causalarena.generator.real."
        "drop_constant_columns` (or `fit_without_constant_columns`) and map the prediction back "
        "with `expand_adjacency`; dropped variables get no edges.",
        "- **Subsampling helper:** no rows are subsampled in the release. For slow methods "
        "`causalarena.generator.real.subsample(X, mask, n, seed=...)` draws a deterministic "
        "row subset that keeps the original order (observational rows before interventional "
        "ones); report `n` and `seed` with any score computed on a subsample.",
        "",
        "| dataset | config | constant columns |",
        "|---|---|---|",
    ]
    L += [
        f"| `{d.name}` | `{cc.config}` | {', '.join(f'`{c}`' for c in cc.columns) or 'none'} |"
        for d in real.datasets
        for cc in d.constant_columns
    ]
    L += ["", "Per-dataset preprocessing (also in each row's `spec`):", ""]
    L += [f"- `{d.name}` ({d.title}): {d.preprocessing}." for d in real.datasets]
    L += ["", "## Intended uses", ""]
    L += [f"- {u}" for u in meta.intended_uses]
    L += ["", "Out of scope:", ""]
    L += [f"- {u}" for u in meta.out_of_scope_uses]
    L += ["", "## Pretraining overlap disclosure", ""]
    L += [f"- {u}" for u in meta.overlap_guidance]
    L += ["", "## Limitations", ""]
    L += [f"- {u}" for u in meta.limitations]
    L += [
        "",
        "## Versioning and changelog",
        "",
        "Releases follow semantic versioning. A frozen version is immutable: its files and "
        "library versions are recorded with sha256 in `manifest.json`, and publishing different "
        "content under the same version is refused. Each version is a git tag `vX.Y.Z` of the "
        f"Hub repository{' (' + meta.hub_url + ')' if meta.hub_url else ''}; load a fixed one "
        'with `revision="vX.Y.Z"`. `causalarena verify DIR` checks every shard against the '
        "manifest; a rebuild needs the same source files (`causalarena build real`).",
        "",
    ]
    if meta.previous_doi:
        L += [f"Previous version: DOI {meta.previous_doi}.", ""]
    for e in meta.changelog:
        L += [f"- **{e.version}**: " + " ".join(e.changes)]
    L += [
        "",
        "## How to cite",
        "",
        "Cite the original publication of every dataset you use (below, also in each row's "
        "`citation` column) and the CausalArena paper and release (machine-readable: "
        "`CITATION.cff`, `.zenodo.json`, `croissant.json`).",
        "",
    ]
    for d in real.datasets:
        L += [f"### `{d.name}`", "", f"{d.title}. Licence: {d.licence}."]
        if d.homepage:
            L += ["", f"Homepage: <{d.homepage}>"]
        L += ["", "```bibtex", d.citation, "```", ""]
    L += ["### CausalArena", ""]
    L += _paper_bibtex(meta)
    L += ["", f"Dataset: {meta.title}, DOI {meta.doi_text}.", ""]
    L += [
        "## Licence",
        "",
        "There is no single licence for the data: each dataset keeps the licence of its source "
        "files (front matter `license: other`, "
        f"`license_name: {REAL_LICENSE_NAME}`). Using or redistributing a dataset means "
        "following its licence, including attribution (cite it as above) and keeping its "
        "copyright notice.",
        "",
        "| dataset | licence | redistributable | note |",
        "|---|---|---|---|",
    ]
    L += [
        f"| `{d.name}` | {d.licence} | {'yes' if d.redistributable else 'no'} | "
        f"{_cell(d.licence_note)} |"
        for d in real.datasets
    ]
    not_redis = [d.name for d in real.datasets if not d.redistributable]
    L += [""]
    if not_redis:
        L += [
            "Not redistributable: "
            + ", ".join(f"`{n}`" for n in not_redis)
            + ". Do not re-upload these shards; rebuild them from the original sources.",
            "",
        ]
    L += [
        "The card, manifest and metadata files written by causalarena are CC BY 4.0; the "
        "`causalarena` code is Apache-2.0.",
        "",
    ]
    return dataset_card(meta, "\n".join(L))


def write_card_from_metadata(out: str | Path, meta: ReleaseMetadata) -> Path:
    """Write ``README.md`` atomically from ``meta``; return its path."""
    path = Path(out) / "README.md"
    atomic_write_bytes(path, render_card(meta).encode())
    return path


def write_card(out: str | Path, manifest: dict[str, Any]) -> None:
    """Write ``README.md`` atomically (called by :func:`causalarena.release.engine.build`).

    The metadata are collected from ``manifest`` and the shards already written to ``out``.
    """
    from causalarena.release.metadata import collect_metadata

    write_card_from_metadata(out, collect_metadata(Path(out), manifest))


def _declared_license(manifest: dict[str, Any]) -> str:
    """Data licence the card must carry: the family's declared one (synthetic: cc-by-4.0)."""
    from causalarena.family import family_of

    if manifest.get("family") in (None, "synthetic"):
        return "cc-by-4.0"
    try:
        return family_of(str(manifest.get("suite"))).text(str(manifest.get("suite"))).license
    except ValueError:
        return "cc-by-4.0"


def read_front_matter(path: str | Path) -> dict[str, Any]:
    """Parse the YAML front matter of a card.

    Raises
    ------
    ValueError
        If the file does not start with a ``---`` delimited YAML block.
    """
    text = Path(path).read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise ValueError(f"{path}: no YAML front matter")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise ValueError(f"{path}: YAML front matter is not closed")
    data = yaml.safe_load(text[4:end])
    if not isinstance(data, dict):
        raise ValueError(f"{path}: front matter is not a mapping")
    return data


def validate_card(folder: str | Path, meta: ReleaseMetadata | None = None) -> list[str]:
    """Check a release folder's card against its shards and manifest.

    Checks: front matter parses; required keys; ``configs``/``data_files`` match the manifest's
    configs; ``dataset_info`` features equal the Arrow schema of the shards (via
    ``datasets.Features``) and ``num_examples`` the manifest rows; required body sections are
    present; the DOI line matches the manifest (pending or the recorded DOI).

    Returns
    -------
    list of str
        Problems (empty when the card is valid).
    """
    import datasets
    import pyarrow.parquet as pq

    from causalarena.release.manifest import read_manifest

    folder = Path(folder)
    manifest = read_manifest(folder)
    problems: list[str] = []
    try:
        fm = read_front_matter(folder / "README.md")
    except (OSError, ValueError, yaml.YAMLError) as exc:
        return [f"README.md: {exc}"]
    for key in (
        "license",
        "pretty_name",
        "task_categories",
        "tags",
        "size_categories",
        "configs",
        "dataset_info",
    ):
        if key not in fm:
            problems.append(f"README.md: front matter key {key!r} is missing")
    is_real = manifest.get("family") == "real"
    want_license = "other" if is_real else _declared_license(manifest)
    if fm.get("license") != want_license:
        problems.append(f"README.md: license is {fm.get('license')!r}, expected {want_license!r}")
    if is_real and fm.get("license_name") != REAL_LICENSE_NAME:
        problems.append(
            f"README.md: license_name is {fm.get('license_name')!r}, expected "
            f"{REAL_LICENSE_NAME!r} (license: other)"
        )
    cfgs = {c.get("config_name"): c for c in fm.get("configs") or [] if isinstance(c, dict)}
    infos = {c.get("config_name"): c for c in fm.get("dataset_info") or [] if isinstance(c, dict)}
    for name, c in manifest["configs"].items():
        entry = cfgs.get(name)
        want = [{"split": c.get("split", "test"), "path": f"data/{name}/*.parquet"}]
        if entry is None or entry.get("data_files") != want:
            problems.append(f"README.md: configs entry of {name!r} must have data_files {want}")
        info = infos.get(name)
        if info is None:
            problems.append(f"README.md: dataset_info of {name!r} is missing")
            continue
        shards = [f for f in manifest["files"] if f.get("config") == name]
        try:
            declared = _declared_features(info)
            real = datasets.Features.from_arrow_schema(pq.read_schema(folder / shards[0]["path"]))
            if declared != real:
                diff = [k for k in set(declared) | set(real) if declared.get(k) != real.get(k)]
                problems.append(
                    f"README.md: dataset_info features of {name!r} differ from the shards: {sorted(diff)}"
                )
        except Exception as exc:  # malformed feature YAML
            problems.append(f"README.md: dataset_info features of {name!r} unreadable ({exc})")
        splits = {s.get("name"): s for s in info.get("splits") or []}
        n = (splits.get(c.get("split", "test")) or {}).get("num_examples")
        if n != c["rows"]:
            problems.append(
                f"README.md: num_examples of {name!r} is {n}, manifest says {c['rows']}"
            )
    from causalarena.release.metadata import config_infos, view_infos

    views = view_infos(folder, manifest, config_infos(folder, manifest))
    for v in views:
        entry = cfgs.get(v.name)
        want = [{"split": v.split, "path": v.data_files}]
        if entry is None or entry.get("data_files") != want:
            problems.append(f"README.md: configs entry of view {v.name!r} must list {v.files}")
        elif (entry.get("columns") or []) != v.columns:
            problems.append(
                f"README.md: configs entry of view {v.name!r} must serve the columns "
                f"{', '.join(v.columns)}"
            )
        info = infos.get(v.name) or {}
        try:
            declared = _declared_features(info)
            expected = _declared_features({"features": [f.to_yaml() for f in v.features]})
            if declared != expected:
                problems.append(
                    f"README.md: dataset_info features of view {v.name!r} are not the "
                    "Array2D features of its d"
                )
        except Exception as exc:  # malformed feature YAML
            problems.append(f"README.md: dataset_info features of {v.name!r} unreadable ({exc})")
    defaults = [n for n, c in cfgs.items() if c.get("default") is True]
    if len(defaults) != 1:
        problems.append(f"README.md: exactly one config must be `default: true`, got {defaults}")
    extra = set(cfgs) - set(manifest["configs"]) - {v.name for v in views}
    if extra:
        problems.append(f"README.md: configs not in the manifest: {sorted(extra)}")
    body = (folder / "README.md").read_text(encoding="utf-8")
    family = manifest.get("family", "synthetic")
    sections = (
        REAL_REQUIRED_SECTIONS
        if is_real
        else REQUIRED_SECTIONS
        if family == "synthetic"
        else GENERIC_REQUIRED_SECTIONS
    )
    for section in sections:
        if f"\n## {section}\n" not in body:
            problems.append(f"README.md: section '## {section}' is missing")
    if is_real:
        problems += _validate_real_body(body, manifest)
    doi = (manifest.get("publication") or {}).get("doi")
    if doi and f"DOI: {doi}." not in body:
        problems.append(f"README.md: does not state the recorded DOI {doi}")
    if not doi and "DOI: pending" not in body:
        problems.append("README.md: must say the DOI is pending")
    if meta is not None and render_card(meta) != body:
        problems.append("README.md: differs from the card rendered from the current metadata")
    return problems


def _declared_features(info: dict[str, Any]) -> Any:
    """``datasets.Features`` of one ``dataset_info`` entry, parsed by ``datasets`` itself.

    :class:`datasets.info.DatasetInfosDict` reads the card's YAML the way ``load_dataset``
    does; one entry at a time so a malformed entry is reported for its own config.
    """
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    entry = {"config_name": "c", "features": info.get("features") or []}
    infos = DatasetInfosDict.from_dataset_card_data(DatasetCardData(dataset_info=[entry]))
    return infos["c"].features


def _validate_real_body(body: str, manifest: dict[str, Any]) -> list[str]:
    """Real-data card checks: caveat, every dataset with its licence, unavailable datasets."""
    problems = []
    caveat = manifest.get("reference_caveat") or ""
    if not caveat or caveat not in body:
        problems.append("README.md: does not state the manifest's reference_caveat")
    if "all data are synthetic" in body.lower():
        problems.append("README.md: a real-data card must not say the data are synthetic")
    built = {n: d.get("licence") for n, d in (manifest.get("datasets") or {}).items()}
    for name, licence in sorted(built.items(), key=lambda kv: str(kv[0])):
        if not any(
            line.startswith(f"| `{name}` |") and f"| {licence} |" in line
            for line in body.splitlines()
        ):
            problems.append(f"README.md: dataset {name!r} with licence {licence} is not listed")
    for name in manifest.get("unavailable") or {}:
        if f"| `{name}` |" not in body:
            problems.append(f"README.md: unavailable dataset {name!r} is not listed")
    return problems


#: Body sections every card must have.
REQUIRED_SECTIONS = (
    "Summary",
    "Suites and configs",
    "Schema",
    "How the instances were generated",
    "Audits",
    "Intended uses",
    "Pretraining overlap disclosure",
    "Limitations",
    "Versioning and changelog",
    "How to cite",
    "Licence",
)

#: Body sections every real-data card (``family = "real"``) must have.
GENERIC_REQUIRED_SECTIONS = (
    "Summary",
    "Suites and configs",
    "Schema",
    "Intended uses",
    "Pretraining overlap disclosure",
    "Limitations",
    "Versioning and changelog",
    "How to cite",
    "Licence",
)

REAL_REQUIRED_SECTIONS = (
    "Summary",
    "Reference graphs",
    "Suites and configs",
    "Datasets",
    "Unavailable datasets",
    "Schema",
    "Preprocessing and repairs",
    "Intended uses",
    "Pretraining overlap disclosure",
    "Limitations",
    "Versioning and changelog",
    "How to cite",
    "Licence",
)
