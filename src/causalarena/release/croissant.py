"""Croissant 1.1 (with RAI 1.0 fields) metadata of a release folder, built with ``mlcroissant``.

Croissant 1.1 is the version whose vocabulary is used (``isArray`` / ``arrayShape``).  Layout
of ``croissant.json``:

- one ``cr:FileObject`` per Parquet shard (``@id`` = path relative to the folder,
  ``encodingFormat`` = ``application/x-parquet``, ``sha256`` and ``contentSize`` from the
  manifest); ``contentUrl`` is the file's Hub URL
  (``https://huggingface.co/datasets/<repo>/resolve/v<version>/<path>``, the tag
  ``publish`` creates) once the release has a Hub repo id, else the relative path;
- one ``cr:FileSet`` per config (``includes`` = ``data/<config>/*.parquet``), resolved
  against the folder that holds ``croissant.json`` or, once published, inside the Hub
  repository (a ``git+https`` FileObject the FileSets are ``containedIn``);
- one ``cr:RecordSet`` per config whose ``cr:Field`` s cover every column of the Arrow schema,
  with Croissant data types; list columns are declared ``isArray`` with ``arrayShape`` ``-1``
  (one level) or ``-1,-1`` (two levels), and the matrix columns state their shape in terms
  of the row's columns (``X``: ``(n_obs + n_int, d)``; :data:`causalarena.schema.ARRAY_COLUMNS`).

:func:`load_records` reads the records through ``mlcroissant`` and returns the matrix
columns as ndarrays of their stored dtype and shape, equal field by field to the rows
``datasets`` serves.

:func:`validate_croissant` runs ``mlcroissant``'s validation and then checks what it does not:
checksums against the files, coverage of every column with the right types, and (optionally)
that every record set really yields the manifest's row count (a FileSet whose pattern or
JSON-LD context does not resolve loads zero records while validation passes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from causalarena.release.io import atomic_write_bytes, sha256_file
from causalarena.release.metadata import (
    LICENCE_URLS,
    LICENSE_URL,
    Feature,
    ReleaseMetadata,
)

ENCODING = "application/x-parquet"
CROISSANT = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
RAI = "http://mlcommons.org/croissant/RAI/1.0"
HUB_REPO = "hub-repository"

#: Card dtype -> Croissant data type (compact IRI as written in the JSON-LD).
DATA_TYPES = {
    "string": "sc:Text",
    "bool": "sc:Boolean",
    "int8": "cr:Int8",
    "int16": "cr:Int16",
    "int32": "cr:Int32",
    "int64": "cr:Int64",
    "float32": "cr:Float32",
    "float64": "cr:Float64",
}


def _mlc():
    """``mlcroissant``, or one line naming the ``build`` extra that installs it."""
    from causalarena._extras import require

    return require("mlcroissant", "build", "writing or validating croissant.json")


def _mlc_type(dtype: str) -> Any:
    mlc = _mlc()

    return {
        "string": mlc.DataType.TEXT,
        "bool": mlc.DataType.BOOL,
        "int8": mlc.DataType.INT8,
        "int16": mlc.DataType.INT16,
        "int32": mlc.DataType.INT32,
        "int64": mlc.DataType.INT64,
        "float32": mlc.DataType.FLOAT32,
        "float64": mlc.DataType.FLOAT64,
    }[dtype]


def file_url(meta: ReleaseMetadata, path: str) -> str:
    """Where a release file resolves: its Hub URL at the version tag once the release has a
    Hub repo id (``publish`` creates tag ``v<version>``), else its path relative to the folder
    (so ``croissant.json`` reads the folder it sits in)."""
    if meta.hf_repo_id:
        return f"https://huggingface.co/datasets/{meta.hf_repo_id}/resolve/v{meta.version}/{path}"
    return path


#: ``url`` of an unpublished release (no Hub repo id, no DOI): ``./``, the folder
#: ``croissant.json`` sits in -- the dataset itself, as the relative file URLs are -- never the
#: package's page.  ``publish --repo-id`` records the repo id and re-renders the file with the
#: Hub URL; ``release set-doi`` with the DOI URL.
UNPUBLISHED_URL = "./"


def dataset_url(meta: ReleaseMetadata) -> str:
    """The dataset's own URL: its Hub repository once a repo id is recorded, else its DOI,
    else the placeholder :data:`UNPUBLISHED_URL` (never the software page)."""
    if meta.hub_url:
        return meta.hub_url
    if meta.doi:
        return f"https://doi.org/{meta.doi}"
    return UNPUBLISHED_URL


def fileset_id(config: str) -> str:
    """``@id`` of a config's FileSet."""
    return f"{config}-parquet-files"


def _field(config: str, f: Feature, docs: dict[str, str] | None = None) -> Any:
    mlc = _mlc()

    from causalarena.release.card import COLUMN_DOCS

    docs = COLUMN_DOCS if docs is None else docs
    from causalarena.schema import ARRAY_COLUMNS, array_shape_text

    kwargs: dict[str, Any] = {}
    if f.depth:
        kwargs = {"is_array": True, "array_shape": ",".join(["-1"] * f.depth)}
    description = docs.get(str(f.name), str(f.name)).replace("`", "")
    if f.name in ARRAY_COLUMNS and f.depth == 2:
        description += (
            f". Array of shape {array_shape_text(str(f.name))} given by this record's "
            "columns n_obs, n_int and d (arrayShape -1,-1: both dimensions vary per record)"
        )
    return mlc.Field(
        id=f"{config}/{f.name}",
        name=str(f.name),
        description=description,
        data_types=[_mlc_type(f.leaf)],
        source=mlc.Source(file_set=fileset_id(config), extract=mlc.Extract(column=str(f.name))),
        **kwargs,
    )


def _files_and_record_sets(
    manifest: dict[str, Any],
    meta: ReleaseMetadata,
    file_description: Callable[[dict[str, Any]], str],
    record_description: Callable[[Any], str],
    docs: dict[str, str] | None = None,
) -> tuple[list[Any], list[Any]]:
    """One FileObject per shard (with its sha256), then per config a FileSet and a RecordSet
    whose Fields cover every column; only the descriptions differ between release families."""
    mlc = _mlc()

    dist: list[Any] = []
    if meta.hf_repo_id:
        dist.append(
            mlc.FileObject(
                id=HUB_REPO,
                name=HUB_REPO,
                description=f"The Hub dataset repository {meta.hf_repo_id} (tag v{meta.version}).",
                content_url=meta.hub_url,
                encoding_formats=["git+https"],
                sha256="main",
            )
        )
    dist += [
        mlc.FileObject(
            id=f["path"],
            name=Path(f["path"]).name,
            description=file_description(f),
            content_url=file_url(meta, f["path"]),
            content_size=f"{f['bytes']} B",
            encoding_formats=[ENCODING],
            sha256=f["sha256"],
        )
        for f in manifest["files"]
        if f.get("config")  # Parquet shards (Zarr store files are listed in the manifest only)
    ]
    record_sets = []
    for c in meta.configs:
        dist.append(
            mlc.FileSet(
                id=fileset_id(c.name),
                name=fileset_id(c.name),
                description=f"All Parquet shards of config {c.name} (split {c.split}).",
                encoding_formats=[ENCODING],
                includes=[c.data_files],
                contained_in=[HUB_REPO] if meta.hf_repo_id else None,
            )
        )
        record_sets.append(
            mlc.RecordSet(
                id=c.name,
                name=c.name,
                description=record_description(c),
                fields=[_field(c.name, f, docs) for f in c.features],
            )
        )
    return dist, record_sets


def build_croissant(folder: str | Path, meta: ReleaseMetadata) -> dict[str, Any]:
    """The Croissant JSON-LD of a release folder.

    Parameters
    ----------
    folder : path
        Release folder (its ``manifest.json`` gives the shards and checksums).
    meta : ReleaseMetadata

    Returns
    -------
    dict
        JSON-LD (``conformsTo`` Croissant 1.0 plus the RAI 1.0 vocabulary).

    Raises
    ------
    mlcroissant.ValidationError
        If ``mlcroissant`` rejects the metadata it was asked to build.
    """
    mlc = _mlc()

    from causalarena.release.manifest import read_manifest

    manifest = read_manifest(folder)
    if meta.is_real:
        return _build_real_croissant(manifest, meta)
    from causalarena.release.card import column_docs

    dist, record_sets = _files_and_record_sets(
        manifest,
        meta,
        lambda f: f"{f.get('config')} shard ({f.get('rows')} rows)",
        lambda c: (
            f"One record per dataset instance of config {c.name} ({c.rows} records, "
            f"split {c.split}). Adjacency: A[i][j] = 1 iff i -> j."
        ),
        column_docs(meta),
    )
    authors = " and ".join(
        f"{p.family_names}, {p.given_names}" for p in meta.paper.authors if p.family_names
    )
    cite = (
        f"@misc{{causalarena_{meta.suite.replace('-', '_')}_{meta.version.replace('.', '_')}, "
        f"title={{{meta.title}}}, author={{{authors}}}, year={{{meta.paper.year}}}, "
        f"note={{arXiv:{meta.paper.arxiv}; dataset DOI {meta.doi or 'pending'}}}}}"
    )
    notice = f" {meta.license_notice}" if meta.license_notice else ""
    md = mlc.Metadata(
        name=f"causalarena-{meta.suite}-{meta.scale}",
        description=meta.summary + notice + f" DOI: {meta.doi_text}.",
        conforms_to=[CONFORMS_TO],
        cite_as=cite,
        creators=[mlc.Organization(name=p.display) for p in meta.creators],
        license=[meta.license_url if meta.is_generic else LICENSE_URL],
        url=dataset_url(meta),
        same_as=[f"https://doi.org/{meta.doi}"] if meta.doi else None,
        version=meta.version,
        date_published=meta.date_released,
        keywords=meta.keywords,
        in_language=["en"],
        distribution=dist,
        record_sets=record_sets,
        data_collection=(
            "Programmatic generation: every SCM is drawn by a seeded generator (suite "
            f"{meta.suite}, seed {meta.seed}, generator revision {meta.generator_rev}) and its "
            "datasets are sampled from it; nothing is collected from people or the web."
        ),
        data_collection_type=["Simulation"],
        data_collection_missing_data=(
            "No missing values in the released files. The 'missingness' difficulty stressor "
            "removes ~5% of the entries of a table and imputes them before release (see "
            "dataImputationProtocol); the row's 'difficulty' column names it."
        ),
        data_imputation_protocol=(
            "Rows whose 'difficulty' includes 'missingness': each entry of X is set missing "
            "independently with probability 'fraction' (0.05, recorded in 'spec'), then "
            "imputed with its column's mean over the observed entries plus Gaussian jitter "
            "of 0.01 column standard deviations (continuous columns) or with the rounded "
            "column mean (discrete columns). X has no NaN, and imputed cells are not marked "
            "(the mask column marks interventions only). No other row is imputed."
        ),
        data_manipulation_protocol=(
            "After sampling, the difficulty stressors named in 'difficulty' transform the "
            "observed table as recorded in 'spec': feature warping (signed log, tanh or "
            "signed sqrt of some columns), outliers (Student-t jumps on ~2.5% of continuous "
            "entries), missingness with imputation, and feature corruption (values of ~3% "
            "of rows permuted within a column); weak signal, high noise, intervention shift "
            "and soft interventions change the SCM itself. X is stored as float32; nothing "
            "else is rescaled, filtered or reordered."
        ),
        data_collection_raw_data="The executable SCM specification of each row (column 'spec').",
        data_preprocessing_protocol=[
            "Audit gates (paper A.2) reject and redraw candidate SCMs; rejection reasons are "
            "kept in 'audit_reasons'.",
            "Difficulty stressors (feature warping, outliers, missingness, corruption, weak "
            "signal, high noise, intervention shift, soft interventions) are applied as "
            "recorded in 'difficulty'.",
        ],
        data_biases=[
            "Factor coverage is a design choice of the generator (see the card's coverage "
            "tables); simulated benchmarks can be gamed by varsortability, reported per row.",
        ],
        data_use_cases=list(meta.intended_uses),
        data_limitations=list(meta.limitations),
        data_social_impact=(
            "Synthetic benchmark for method development; public SCMs may enter pretraining "
            "corpora, so results should be reported with training disclosure."
        ),
        personal_sensitive_information=["None: purely synthetic data."],
        data_release_maintenance_plan=(
            "Versioned, immutable releases (semantic versions, Hub tags vX.Y.Z, one DOI per "
            "version); reserved SCMs are committed to by sha256 and released progressively."
        ),
    )
    return _finish(md.to_json())


def _finish(js: dict[str, Any]) -> dict[str, Any]:
    """Declare Croissant 1.1 + RAI 1.0 and use the RAI 1.0 term ``rai:dataManipulationProtocol``
    (mlcroissant 1.1 writes it as ``rai:dataDataManipulationProtocol``)."""
    js["conformsTo"] = [CONFORMS_TO, RAI]
    if "rai:dataDataManipulationProtocol" in js:
        value = js.pop("rai:dataDataManipulationProtocol")
        js = {**js, "rai:dataManipulationProtocol": value}
    return js


def _licence_url(licence: str) -> str:
    return LICENCE_URLS.get(licence, f"https://spdx.org/licenses/{licence}.html")


def _build_real_croissant(manifest: dict[str, Any], meta: ReleaseMetadata) -> dict[str, Any]:
    """Croissant JSON-LD of a real-data release (per-dataset licences and citations)."""
    mlc = _mlc()

    from causalarena.release.card import column_docs

    real = meta.real
    assert real is not None
    docs = column_docs(meta)
    dist, record_sets = _files_and_record_sets(
        manifest,
        meta,
        lambda f: (
            f"{f.get('config')} shard of dataset {f.get('dataset')} ({f.get('rows')} rows); "
            f"licence {f.get('licence')}, "
            f"{'redistributable' if f.get('redistributable') else 'not redistributable'}"
        ),
        lambda c: (
            f"One record per real dataset of config {c.name} ({c.rows} records, split "
            f"{c.split}). Adjacency: reference graph from the literature, A[i][j] = 1 "
            "iff i -> j; not verified truth."
        ),
        docs,
    )
    authors = " and ".join(
        f"{p.family_names}, {p.given_names}" for p in meta.paper.authors if p.family_names
    )
    cite = (
        f"@misc{{causalarena_{meta.suite.replace('-', '_')}_{meta.version.replace('.', '_')}, "
        f"title={{{meta.title}}}, author={{{authors}}}, year={{{meta.paper.year}}}, "
        f"note={{arXiv:{meta.paper.arxiv}; dataset DOI {meta.doi or 'pending'}; cite the "
        f"original publication of every dataset used}}}}"
    )
    cite += "\n\n" + "\n\n".join(d.citation for d in real.datasets)
    licences = ", ".join(f"{d.name}: {d.licence}" for d in real.datasets)
    md = mlc.Metadata(
        name=f"causalarena-{meta.suite}-{meta.scale}",
        description=(
            f"{meta.summary} {real.reference_caveat} Licences per dataset: {licences}. "
            f"DOI: {meta.doi_text}."
        ),
        conforms_to=[CONFORMS_TO],
        cite_as=cite,
        creators=[mlc.Organization(name=p.display) for p in meta.creators],
        license=[_licence_url(lic) for lic in real.licences],
        url=dataset_url(meta),
        same_as=[f"https://doi.org/{meta.doi}"] if meta.doi else None,
        version=meta.version,
        date_published=meta.date_released,
        keywords=meta.keywords,
        in_language=["en"],
        distribution=dist,
        record_sets=record_sets,
        data_collection=(
            "Secondary use of public real-world measurements: every table is read from the "
            "source files published by its authors (checked against published sha256/md5 "
            "checksums) and paired with a reference graph from the literature. "
            + real.reference_caveat
        ),
        data_collection_type=["Secondary Data Analysis"],
        data_collection_missing_data=(
            "Values are kept as published. Auto MPG: rows with Horsepower = 0 (UCI missing "
            f"values) handled by option autompg_missing={real.autompg_missing}. Datasets whose "
            "source files were unavailable at build time are not included: "
            + (", ".join(u.name for u in real.unavailable) or "none")
            + "."
        ),
        data_collection_raw_data=(
            "The public source files named in each row's 'source' column and 'spec' (URL, "
            "commit and checksum)."
        ),
        data_preprocessing_protocol=[f"{d.name}: {d.preprocessing}" for d in real.datasets]
        + [
            "Constant columns are kept and listed in 'constant_columns'; nothing is imputed, "
            "rescaled or subsampled (causalarena.generator.real.subsample is an opt-in helper).",
        ],
        data_imputation_protocol=(
            "Nothing is imputed: values are kept as published. Auto MPG rows with "
            f"Horsepower = 0 (UCI missing values) follow option autompg_missing="
            f"{real.autompg_missing}."
        ),
        data_manipulation_protocol=(
            "Each table is read from its source files and converted to float32 as described "
            "per dataset in dataPreprocessingProtocol; rows and columns are neither filtered "
            "nor rescaled beyond that, and interventional rows are marked in 'mask'."
        ),
        data_biases=[
            "Few, small, widely studied datasets; the reference graphs reflect expert or "
            "experimental assumptions and may miss latent confounding or feedback.",
        ],
        data_use_cases=list(meta.intended_uses),
        data_limitations=list(meta.limitations),
        data_social_impact=(
            "Benchmark for causal-discovery method development on real measurements; results "
            "must not be read as verified causal findings about the measured systems."
        ),
        personal_sensitive_information=[
            "No direct identifiers. Some tables are de-identified measurements of people "
            "(e.g. age, height, weight and heart rate in the UCI Arrhythmia table) as "
            "published by their sources."
        ],
        data_release_maintenance_plan=(
            "Versioned, immutable releases (semantic versions, Hub tags vX.Y.Z, one DOI per "
            "version); datasets whose sources become available are added in a new version."
        ),
    )
    return _finish(md.to_json())


def write_croissant(folder: str | Path, meta: ReleaseMetadata) -> Path:
    """Write ``croissant.json`` into the release folder; return its path."""
    path = Path(folder) / CROISSANT
    js = build_croissant(folder, meta)
    atomic_write_bytes(path, (json.dumps(js, indent=2, default=str) + "\n").encode())
    return path


def _normalise(v: Any) -> Any:
    """Plain Python value of an mlcroissant record value (bytes -> str, numpy -> python)."""
    import numpy as np

    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.ndarray):
        return [_normalise(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_normalise(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _matrix(v: Any, dtype: str, shape: tuple[int, int]) -> Any:
    """An mlcroissant nested-array value as an ndarray of ``dtype`` and ``shape``."""
    import numpy as np

    rows = [np.asarray(r, dtype=dtype) for r in v] if len(v) else []
    out = np.stack(rows) if rows else np.empty((0, shape[1]), dtype=dtype)
    return out.reshape(shape)


def _open_croissant(path: Path) -> Any:
    """``mlcroissant.Dataset`` of ``path`` without its datePublished-only warning.

    mlcroissant logs (through absl) that schema.org recommends ``datePublished``; an unfrozen
    release has no date yet (freezing adds it, and :func:`validate_croissant` requires it then),
    so that lone warning is noise on every build, validate and load.  Other warnings pass.
    """
    import logging

    mlc = _mlc()

    def only_date(record: logging.LogRecord) -> bool:
        items = [ln for ln in record.getMessage().splitlines() if ln.strip().startswith("-")]
        return not (items and all("datePublished" in ln for ln in items))

    log = logging.getLogger("absl")
    log.addFilter(only_date)
    try:
        return mlc.Dataset(jsonld=str(path))
    finally:
        log.removeFilter(only_date)


def load_records(folder: str | Path, config: str) -> list[dict[str, Any]]:
    """All records of one config through ``mlcroissant.Dataset`` (keys = column names).

    Returns
    -------
    list of dict
        Scalars and lists as plain Python values; the matrix columns of
        :data:`causalarena.schema.ARRAY_COLUMNS` as ndarrays: ``X`` float32 and ``mask`` bool
        of shape ``(n_obs + n_int, d)``, ``adjacency`` int8 of shape ``(d, d)``.
    """
    from causalarena.schema import ARRAY_COLUMNS

    ds = _open_croissant(Path(folder) / CROISSANT)
    prefix = f"{config}/"
    out = []
    for rec in ds.records(config):
        row = {k[len(prefix) :] if k.startswith(prefix) else k: v for k, v in rec.items()}
        arrays = {k: row.pop(k) for k in ARRAY_COLUMNS if k in row}
        row = {k: _normalise(v) for k, v in row.items()}
        if arrays:
            dims = {"n_obs + n_int": int(row["n_obs"]) + int(row["n_int"]), "d": int(row["d"])}
            for k, v in arrays.items():
                dtype, shape = ARRAY_COLUMNS[k]
                row[k] = _matrix(v, dtype, (dims[shape[0]], dims[shape[1]]))
        out.append(row)
    return out


def validate_croissant(folder: str | Path, *, records: bool = False) -> list[str]:
    """Validate ``croissant.json`` of a release folder.

    Parameters
    ----------
    folder : path
    records : bool, default=False
        Also load every record set through ``mlcroissant`` and compare the record count with
        the manifest's rows (slower: reads every shard).

    Returns
    -------
    list of str
        Problems; empty when the file is valid.
    """
    import pyarrow.parquet as pq

    from causalarena.release.manifest import read_manifest
    from causalarena.release.metadata import feature_from_arrow

    folder = Path(folder)
    path = folder / CROISSANT
    manifest = read_manifest(folder)
    try:
        js = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [f"{path}: not readable JSON ({exc})"]
    try:
        _open_croissant(path)
    except Exception as exc:  # mlcroissant.ValidationError and parse errors
        return [f"{path}: mlcroissant validation failed: {exc}"]
    problems: list[str] = [
        f"{path}: required property {key!r} is missing"
        for key in ("name", "description", "license", "url", "version", "citeAs")
        if not js.get(key)
    ]
    conforms = js.get("conformsTo")
    conforms = conforms if isinstance(conforms, list) else [conforms]
    if CONFORMS_TO not in conforms:
        problems.append(f"{path}: conformsTo must include {CONFORMS_TO}, got {conforms}")
    for key in (
        "rai:dataCollection",
        "rai:dataUseCases",
        "rai:dataLimitations",
        "rai:personalSensitiveInformation",
        "rai:dataImputationProtocol",
        "rai:dataManipulationProtocol",
    ):
        if not js.get(key):
            problems.append(f"{path}: RAI field {key} is missing")
    if manifest.get("freeze") and not js.get("datePublished"):
        problems.append(f"{path}: a frozen release must state datePublished")
    objs = {
        d.get("@id"): d
        for d in js.get("distribution", [])
        if d.get("@type") == "cr:FileObject" and d.get("@id") != HUB_REPO
    }
    sets = {d.get("@id"): d for d in js.get("distribution", []) if d.get("@type") == "cr:FileSet"}
    for f in (f for f in manifest["files"] if f.get("config")):
        o = objs.pop(f["path"], None)
        if o is None:
            problems.append(f"{path}: no FileObject for {f['path']}")
            continue
        if o.get("encodingFormat") != ENCODING:
            problems.append(
                f"{path}: {f['path']} encodingFormat is {o.get('encodingFormat')!r}, expected {ENCODING!r}"
            )
        if o.get("sha256") != f["sha256"]:
            problems.append(
                f"{path}: {f['path']} sha256 {o.get('sha256')} differs from manifest {f['sha256']}"
            )
        p = folder / f["path"]
        if not p.is_file():
            problems.append(f"{path}: {f['path']} is missing on disk")
        elif sha256_file(p) != o.get("sha256"):
            problems.append(f"{path}: {f['path']} on disk does not match the declared sha256")
    for extra in objs:
        problems.append(f"{path}: FileObject {extra} is not in the manifest")
    rsets = {r.get("@id"): r for r in js.get("recordSet", [])}
    for name in sorted(manifest["configs"]):
        fs = sets.get(fileset_id(name))
        if fs is None or fs.get("includes") not in (
            f"data/{name}/*.parquet",
            [f"data/{name}/*.parquet"],
        ):
            problems.append(
                f"{path}: FileSet {fileset_id(name)} with includes data/{name}/*.parquet is missing"
            )
        rs = rsets.get(name)
        if rs is None:
            problems.append(f"{path}: RecordSet {name} is missing")
            continue
        shard = next(f for f in manifest["files"] if f.get("config") == name)
        schema = pq.read_schema(folder / shard["path"])
        fields = {fl.get("name"): fl for fl in rs.get("field", [])}
        for col in schema:
            fl = fields.pop(col.name, None)
            if fl is None:
                problems.append(f"{path}: RecordSet {name} has no field for column {col.name}")
                continue
            feat = feature_from_arrow(col.type, col.name)
            want_type = DATA_TYPES[feat.leaf]
            if fl.get("dataType") != want_type:
                problems.append(
                    f"{path}: {name}/{col.name} dataType {fl.get('dataType')!r}, expected {want_type!r}"
                )
            is_array = bool(fl.get("isArray", fl.get("cr:isArray", False)))
            shape = fl.get("arrayShape", fl.get("cr:arrayShape"))
            want_shape = ",".join(["-1"] * feat.depth) if feat.depth else None
            if is_array != bool(feat.depth) or shape != want_shape:
                problems.append(
                    f"{path}: {name}/{col.name} array declaration (isArray={is_array}, "
                    f"arrayShape={shape}) does not match {feat.depth}-level list"
                )
        for extra in fields:
            problems.append(f"{path}: RecordSet {name} field {extra} is not a column of the shards")
        if records and not problems:
            n = len(load_records(folder, name))
            if n != manifest["configs"][name]["rows"]:
                problems.append(
                    f"{path}: RecordSet {name} loads {n} records, manifest says "
                    f"{manifest['configs'][name]['rows']}"
                )
    return problems
