"""One strict metadata model for a release folder.

:class:`ReleaseMetadata` (pydantic v2, unknown fields rejected, closed vocabularies as
``Literal``) is the single source the dataset card (``README.md``), the Croissant file
(``croissant.json``) and the citation files (``CITATION.cff``, ``.zenodo.json``) are rendered
from.  :func:`collect_metadata` fills it from ``manifest.json`` and from the written Parquet
shards: the coverage tables (graph family x d, mechanism / noise / root shares, audit rates)
are counted from the factor columns read with pyarrow, never typed in.  A real-data release
(``manifest["family"] == "real"``, :mod:`causalarena.generator.real.family`) has no coverage or
audit tables; its :class:`RealInfo` (reference caveat, per-dataset counts, licences,
citations, constant columns, unavailable datasets, repair options) is read from the shards'
real-data columns and the manifest by :func:`collect_real_info`.

Publication state lives in ``manifest["publication"]`` (DOI, Hub repo, previous DOI) and
``manifest["freeze"]`` (written by :mod:`causalarena.release.freeze`); until a DOI is recorded
with ``causalarena release set-doi`` every rendered file says the DOI is pending.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from causalarena.errors import ReleaseError
from causalarena.schema import SLICE_FACTORS

# ----------------------------------------------------------------------------- vocabularies
#: ``other`` is used by the real-data track, whose datasets keep their own licences (the
#: card front matter then carries ``license_name`` / ``license_details``).
LicenseId = Literal["cc-by-4.0", "apache-2.0", "other"]
#: Every family's card prose comes from the :class:`causalarena.family.CardText` it declares
#: (:func:`declared_text`); synthetic adds coverage/audit tables and real its
#: :class:`RealInfo`, both counted from the shards.
FamilyName = str
TaskCategory = Literal["graph-ml", "tabular-classification", "tabular-regression", "other"]
SizeCategory = Literal["n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M"]
ScaleName = Literal["mini", "full"]
SplitName = Literal["test"]
SettingName = Literal["obs", "obsint"]
DType = Literal["string", "bool", "int8", "int16", "int32", "int64", "float32", "float64"]
Tag = Literal[
    "causal-discovery",
    "structural-causal-models",
    "benchmark",
    "synthetic",
    "real-world-data",
    "interventional-data",
    "tabular",
    "croissant",
    "time-series",
    "counterfactual",
]
AuditReasonClass = Literal[
    "invalid-spec",
    "graph-gate",
    "non-finite",
    "near-duplicate",
    "discrete-dominance",
    "near-constant",
    "clipping-mass",
    "intervention-gate",
    "other",
]

DOI_RE = r"^10\.\d{4,9}/\S+$"
SEMVER_RE = r"^\d+\.\d+\.\d+$"
REPO_ID_RE = r"^[A-Za-z0-9][\w.-]*/[\w.-]+$"

LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
LICENSE_SPDX = "CC-BY-4.0"
#: Licence (SPDX id as written by the real-data registry) -> licence URL.
LICENCE_URLS = {
    "CC-BY-4.0": LICENSE_URL,
    "MIT": "https://opensource.org/licenses/MIT",
    "BSD-2-Clause": "https://opensource.org/licenses/BSD-2-Clause",
    "BSD-3-Clause": "https://opensource.org/licenses/BSD-3-Clause",
    "Apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
    "CC0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
}
SOFTWARE_URL = "https://pypi.org/project/causalarena/"
#: Data licence a family may declare (:attr:`causalarena.family.CardText.license`, a Hub and
#: Zenodo licence id) -> (SPDX id for ``CITATION.cff``, licence URL for Croissant, display
#: name for the card).
DATA_LICENCES: dict[str, tuple[str, str, str]] = {
    "cc-by-4.0": (LICENSE_SPDX, LICENSE_URL, "CC BY 4.0"),
    "apache-2.0": ("Apache-2.0", LICENCE_URLS["Apache-2.0"], "Apache License 2.0"),
}
#: A Hub tag (free-form, lowercase; :attr:`causalarena.family.CardText.tags`).
TAG_RE = r"^[a-z0-9][a-z0-9-]*$"


class _Strict(BaseModel):
    """Base: unknown fields are an error; instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Person(_Strict):
    """A creator (person or group name)."""

    name: str | None = None
    family_names: str | None = None
    given_names: str | None = None
    affiliation: str | None = None
    orcid: str | None = Field(
        default=None, pattern=r"^https://orcid\.org/\d{4}-\d{4}-\d{4}-\d{3}[\dX]$"
    )

    @model_validator(mode="after")
    def _named(self) -> Person:
        if not self.name and not self.family_names:
            raise ValueError("a person needs `name` or `family_names`")
        return self

    @property
    def display(self) -> str:
        """``Given Family`` or the group name."""
        if self.family_names:
            return f"{self.given_names} {self.family_names}".strip()
        return str(self.name)

    @property
    def zenodo_name(self) -> str:
        """``Family, Given`` as Zenodo expects, or the group name."""
        if self.family_names:
            return (
                f"{self.family_names}, {self.given_names}"
                if self.given_names
                else self.family_names
            )
        return str(self.name)


class Paper(_Strict):
    """The paper that defines the benchmark."""

    title: str
    authors: list[Person]
    year: int
    arxiv: str = Field(pattern=r"^\d{4}\.\d{4,5}$")

    @property
    def url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv}"


class Array2DSpec(_Strict):
    """A ``datasets.Array2D`` feature: element type and shape (``None`` = dynamic first dim)."""

    shape: tuple[int | None, int]
    dtype: DType


class Feature(_Strict):
    """A column type in the Hugging Face ``dataset_info.features`` vocabulary.

    Exactly one of ``dtype`` (a scalar), ``list`` (a variable-length list of ``list``'s
    element type) and ``array2d`` (a ``datasets.Array2D`` of fixed column count, used by the
    fixed-d views) is set; ``name`` is set on top-level columns only.
    """

    name: str | None = None
    dtype: DType | None = None
    list: Feature | None = None
    array2d: Array2DSpec | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Feature:
        if sum(x is not None for x in (self.dtype, self.list, self.array2d)) != 1:
            raise ValueError(
                f"feature {self.name!r}: set exactly one of `dtype`, `list` and `array2d`"
            )
        return self

    def to_yaml(self) -> dict[str, Any]:
        """The ``dataset_info`` YAML form (``{"name", "dtype"}`` or ``{"name", "list"}``)."""
        out: dict[str, Any] = {"name": self.name} if self.name is not None else {}
        if self.array2d is not None:
            out["dtype"] = {
                "array2_d": {"shape": list(self.array2d.shape), "dtype": self.array2d.dtype}
            }
            return out
        if self.dtype is not None:
            out["dtype"] = self.dtype
            return out if self.name is not None else {"dtype": self.dtype}
        inner = self.list.to_yaml()  # type: ignore[union-attr]
        out["list"] = inner["dtype"] if set(inner) == {"dtype"} else inner
        return out

    @property
    def depth(self) -> int:
        """Number of list levels (0 for a scalar, 2 for an ``array2d``)."""
        if self.array2d is not None:
            return 2
        return 0 if self.list is None else 1 + self.list.depth

    @property
    def leaf(self) -> str:
        """Scalar type at the bottom of the list levels."""
        if self.array2d is not None:
            return str(self.array2d.dtype)
        return str(self.dtype) if self.list is None else self.list.leaf


class ConfigInfo(_Strict):
    """One Hugging Face config (``data/<name>/*.parquet``, split ``test``)."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    setting: SettingName
    split: SplitName = "test"
    rows: int = Field(ge=0)
    shards: int = Field(ge=0)
    bytes: int = Field(ge=0)
    uncompressed_bytes: int = Field(ge=0)
    features: list[Feature]
    #: A fixed-d view (``<config>-d<ddd>``): the parent config, its d and its shards.
    view_of: str | None = None
    d: int | None = Field(default=None, ge=1)
    files: list[str] = Field(default_factory=list)
    #: A view's matrix row count ``n_obs + n_int`` when all its rows share it (else None).
    n: int | None = Field(default=None, ge=1)
    #: The columns a view serves (``columns:`` of its card entry; empty = every column).
    columns: list[str] = Field(default_factory=list)
    #: The config ``datasets.load_dataset(folder)`` opens when no config is named.
    default: bool = False

    @property
    def data_files(self) -> str | list[str]:
        """The config's shards relative to the release folder: a glob, or a view's file list."""
        return list(self.files) if self.view_of else f"data/{self.name}/*.parquet"


class CountTable(_Strict):
    """Counts of SCMs per (row label, column label)."""

    row_name: str
    column_name: str
    rows: list[str]
    columns: list[int]
    counts: list[list[int]]

    @model_validator(mode="after")
    def _shape(self) -> CountTable:
        if len(self.counts) != len(self.rows) or any(
            len(r) != len(self.columns) for r in self.counts
        ):
            raise ValueError("count table shape does not match its labels")
        return self


class Share(_Strict):
    """How many SCMs use a factor level, and which fraction of all SCMs that is."""

    level: str
    scms: int = Field(ge=0)
    share: float = Field(ge=0.0, le=1.0)


class Coverage(_Strict):
    """Factor coverage counted from the written shards (SCM level, deduplicated)."""

    n_scms: int = Field(ge=0)
    family_by_d: CountTable
    mechanism: list[Share]
    noise: list[Share]
    root: list[Share]
    root_dependency: list[Share]
    difficulty: list[Share]
    edges_min: int
    edges_max: int
    varsortability_mean: float
    r2_sortability_mean: float


class ReasonCount(_Strict):
    """Rejected candidates per audit-gate class."""

    reason: AuditReasonClass
    candidates: int = Field(ge=0)


class AuditSummary(_Strict):
    """Audit loop statistics counted from ``audit_attempts`` / ``audit_reasons``."""

    scms: int = Field(ge=0)
    resampled_scms: int = Field(ge=0)
    total_attempts: int = Field(ge=0)
    resample_rate: float = Field(ge=0.0, le=1.0)
    acceptance_rate: float = Field(ge=0.0, le=1.0)
    reasons: list[ReasonCount]


class ReservedInfo(_Strict):
    """The published commitment to the reserved (held-out) SCMs."""

    scope: str
    count: int = Field(ge=0)
    root_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class CardSection(_Strict):
    """A card section a family computes from its rows (:attr:`causalarena.family.CardText.sections`)."""

    title: str = Field(min_length=1)
    body: str


class ChangelogEntry(_Strict):
    """One released version and what changed."""

    version: str = Field(pattern=SEMVER_RE)
    changes: list[str]


class ConstantColumns(_Strict):
    """Zero-variance columns of one real dataset in one config (kept in the shard)."""

    config: str
    columns: list[str]


class RealDatasetInfo(_Strict):
    """One built real dataset, counted from its shards (one shard per config)."""

    name: str
    title: str
    configs: list[str]
    rows: int = Field(ge=0)
    observational_rows: int = Field(ge=0)
    interventional_rows: int = Field(ge=0)
    variables: int = Field(ge=0)
    reference_edges: int = Field(ge=0)
    licence: str = Field(min_length=1)
    licence_note: str
    redistributable: bool
    reference_graph: str
    alternative_references: list[str]
    constant_columns: list[ConstantColumns]
    citation: str = Field(min_length=1)
    homepage: str | None = None
    source: str
    preprocessing: str
    details: dict[str, Any] = Field(default_factory=dict)


class UnavailableDataset(_Strict):
    """A registry dataset that was not built, with the reason from the manifest."""

    name: str
    reason: str


class RealInfo(_Strict):
    """What a real-data release adds to the metadata (``family = "real"``)."""

    reference_caveat: str = Field(min_length=1)
    datasets: list[RealDatasetInfo] = Field(min_length=1)
    unavailable: list[UnavailableDataset]
    autompg_missing: Literal["drop", "keep"] = "drop"
    allow_unpinned: bool = False

    @property
    def licences(self) -> list[str]:
        """Distinct dataset licences, sorted."""
        return sorted({d.licence for d in self.datasets})


class ReleaseMetadata(_Strict):
    """Everything the card, Croissant and citation files say about one release folder."""

    suite: str
    version: str = Field(pattern=SEMVER_RE)
    scale: ScaleName
    seed: int
    generator_rev: int | str
    package_version: str
    pretty_name: str
    summary: str
    license: LicenseId = "cc-by-4.0"
    #: Attribution carried with a non-default licence (card, Croissant, CFF, Zenodo).
    license_notice: str | None = None
    task_categories: list[TaskCategory]
    tags: list[str]
    size_category: SizeCategory
    creators: list[Person]
    paper: Paper
    configs: list[ConfigInfo]
    #: Fixed-d views of the configs (same shards, ``datasets.Array2D`` features).
    views: list[ConfigInfo] = Field(default_factory=list)
    coverage: Coverage | None = None
    audit: AuditSummary | None = None
    family: FamilyName = "synthetic"
    real: RealInfo | None = None
    doi: str | None = Field(default=None, pattern=DOI_RE)
    previous_doi: str | None = Field(default=None, pattern=DOI_RE)
    hf_repo_id: str | None = Field(default=None, pattern=REPO_ID_RE)
    frozen: bool = False
    date_released: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    reserved: ReservedInfo | None = None
    changelog: list[ChangelogEntry]
    intended_uses: list[str]
    out_of_scope_uses: list[str]
    overlap_guidance: list[str]
    limitations: list[str]
    #: Family-declared column descriptions (override the engine's; card and Croissant).
    column_docs: dict[str, str] = Field(default_factory=dict)
    #: Family-computed card sections (generic cards), rendered after the schema.
    sections: list[CardSection] = Field(default_factory=list)

    @field_validator("configs")
    @classmethod
    def _configs_unique(cls, v: list[ConfigInfo]) -> list[ConfigInfo]:
        names = [c.name for c in v]
        if len(set(names)) != len(names) or not names:
            raise ValueError(f"configs must be non-empty and unique, got {names}")
        return v

    @field_validator("tags")
    @classmethod
    def _tags_valid(cls, v: list[str]) -> list[str]:
        bad = [t for t in v if not re.match(TAG_RE, t)]
        if bad or len(set(v)) != len(v) or not v:
            raise ValueError(f"tags must be unique, non-empty and match {TAG_RE}, got {v}")
        return v

    @model_validator(mode="after")
    def _family_parts(self) -> ReleaseMetadata:
        if self.family == "synthetic":
            if self.coverage is None or self.audit is None or self.real is not None:
                raise ValueError("a synthetic release needs `coverage` and `audit`, not `real`")
            if self.license != "cc-by-4.0":
                raise ValueError("a synthetic release is licensed cc-by-4.0")
        elif self.family == "real" and self.real is None:
            raise ValueError("a real-data release needs `real`")
        return self

    @property
    def license_spdx(self) -> str:
        """SPDX id of the data licence (``CITATION.cff``)."""
        return DATA_LICENCES[self.license][0] if self.license in DATA_LICENCES else "other"

    @property
    def license_url(self) -> str:
        """URL of the data licence (Croissant ``license``)."""
        return DATA_LICENCES.get(self.license, (None, LICENSE_URL))[1]

    @property
    def is_generic(self) -> bool:
        """Described only by its family's :class:`~causalarena.family.CardText`."""
        return self.family not in ("synthetic", "real")

    @property
    def is_real(self) -> bool:
        return self.family == "real"

    @property
    def doi_text(self) -> str:
        """The DOI, or a sentence saying it is pending (never a made-up DOI)."""
        return self.doi if self.doi else "pending (not yet minted; see the release notes)"

    @property
    def hub_url(self) -> str | None:
        return f"https://huggingface.co/datasets/{self.hf_repo_id}" if self.hf_repo_id else None

    @property
    def title(self) -> str:
        return f"CausalArena {self.suite} v{self.version} ({self.scale} scale)"

    @property
    def total_rows(self) -> int:
        return sum(c.rows for c in self.configs)

    @property
    def keywords(self) -> list[str]:
        if self.is_real:
            return ["causal discovery", "benchmark", "real-world data", "reference graphs"]
        return ["causal discovery", "structural causal models", "benchmark", "synthetic data"]


# ----------------------------------------------------------------------------- defaults
PAPER = Paper(
    title="CausalArena: Benchmarking Causal Discovery in the Foundation Model Era",
    authors=[
        Person(family_names="Li", given_names="Zi-Rong"),
        Person(family_names="Liu", given_names="Si-Yang"),
        Person(family_names="Wang", given_names="Tian-Zuo"),
        Person(family_names="Ye", given_names="Han-Jia"),
    ],
    year=2026,
    arxiv="2609.11897",
)
CREATORS = [Person(name="causalarena developers")]

#: What the card and README say about the commitment (one paragraph, rendered verbatim).
RESERVED_STATEMENT = (
    "The reserved half is drawn from a secret key held by the maintainers (never in the "
    "repository, the seed or these files), so it cannot be regenerated from the package. "
    "`manifest.json` (`freeze.reserved`) carries one salted sha256 commitment per reserved "
    "instance (spec and data), one root per reserved pool and the key's fingerprint. A "
    "commitment proves that the reserved instances revealed later are the ones fixed at this "
    "version, not chosen after seeing results; it reveals nothing about them. Anyone can "
    "rebuild the public shards (`causalarena verify DIR --rebuild`); only key holders can "
    "rebuild the reserved shards and check every commitment (`causalarena verify DIR --reveal "
    "KEYFILE`), and so can anyone once the key is revealed."
)


# ----------------------------------------------------------------------------- real track
#: Columns of a real shard read by :func:`collect_real_info`.
REAL_COLUMNS = [
    "family",
    "setting",
    "d",
    "n_edges",
    "n_obs",
    "n_int",
    "spec",
    "source",
    "licence",
    "citation",
    "reference_graph_name",
    "alternative_references",
    "constant_columns",
    "redistributable",
]


def _public_reason(reason: str) -> str:
    """The reason without the builder's local path prefix (``/abs/path: missing ...``)."""
    return re.sub(r"^(?:/|[A-Za-z]:\\)[^:]*: ", "", reason)


def collect_real_info(folder: Path, manifest: dict[str, Any]) -> RealInfo:
    """Per-dataset counts, licences and citations of a real-data release, read from its shards.

    The counts are cross-checked with the manifest header (``datasets``) when present.

    Raises
    ------
    ReleaseError
        A listed shard is missing or unreadable, is not a real row, or its counts disagree with
        the manifest header.
    """
    import json

    import pyarrow.parquet as pq

    shards: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for f in manifest["files"]:
        path = folder / f["path"]
        if not path.is_file():
            raise ReleaseError(f"{path}: listed in manifest.json but missing")
        try:
            rows = pq.read_table(path, columns=REAL_COLUMNS).to_pylist()
        except Exception as exc:  # damaged shard or missing column
            raise ReleaseError(f"{path}: cannot read real-data columns ({exc})") from None
        for row in rows:
            if row["family"] != "real":
                raise ReleaseError(f"{path}: row family is {row['family']!r}, expected 'real'")
            spec = json.loads(row["spec"])
            name = f.get("dataset") or spec["dataset"]
            shards.setdefault(name, []).append((str(f["config"]), {**row, "spec": spec}))
    header = manifest.get("datasets") or {}
    infos = []
    for name in sorted(shards):
        entries = sorted(shards[name])
        full = max((r for _, r in entries), key=lambda r: int(r["n_obs"]) + int(r["n_int"]))
        spec = full["spec"]
        info = RealDatasetInfo(
            name=name,
            title=str(spec.get("title") or name),
            configs=[c for c, _ in entries],
            rows=int(full["n_obs"]) + int(full["n_int"]),
            observational_rows=int(full["n_obs"]),
            interventional_rows=int(full["n_int"]),
            variables=int(full["d"]),
            reference_edges=int(full["n_edges"]),
            licence=str(full["licence"]),
            licence_note=str(spec.get("licence_note") or ""),
            redistributable=bool(full["redistributable"]),
            reference_graph=str(full["reference_graph_name"]),
            alternative_references=sorted(json.loads(full["alternative_references"] or "{}")),
            constant_columns=[
                ConstantColumns(config=c, columns=list(r["constant_columns"] or []))
                for c, r in entries
            ],
            citation=str(full["citation"]).strip(),
            homepage=spec.get("homepage"),
            source=str(full["source"]),
            preprocessing=str(spec.get("preprocessing") or ""),
            details=dict(spec.get("details") or {}),
        )
        h = header.get(name)
        if h is not None:
            want = (h.get("rows"), h.get("columns"), h.get("edges"), h.get("interventions"))
            got = (info.rows, info.variables, info.reference_edges, info.interventional_rows)
            if want != got or h.get("licence", info.licence) != info.licence:
                raise ReleaseError(
                    f"{folder}: dataset {name!r} in the shards (rows, variables, edges, "
                    f"interventional rows = {got}, licence {info.licence}) disagrees with "
                    f"manifest.json ({want}, licence {h.get('licence')})"
                )
        infos.append(info)
    options = manifest.get("options") or {}
    return RealInfo(
        reference_caveat=manifest["reference_caveat"],
        datasets=infos,
        unavailable=[
            UnavailableDataset(name=k, reason=_public_reason(str(v)))
            for k, v in sorted((manifest.get("unavailable") or {}).items())
        ],
        autompg_missing=options.get("autompg_missing", "drop"),
        allow_unpinned=bool(options.get("allow_unpinned", False)),
    )


def _collect_real_metadata(
    folder: Path,
    manifest: dict[str, Any],
    configs: list[ConfigInfo],
    views: list[ConfigInfo] | None = None,
) -> ReleaseMetadata:
    """The shared fields plus :class:`RealInfo` read from the shards; licence ``other`` (each
    dataset keeps its own) and the declared tags plus ``interventional-data`` when there are
    interventional rows, then ``tabular``."""
    text = declared_text(folder, manifest)
    real = collect_real_info(folder, manifest)
    tags: list[Tag] = list(text.tags)
    if any(c.setting == "obsint" and c.rows for c in configs):
        tags.append("interventional-data")
    tags.append("tabular")
    return ReleaseMetadata(
        **_shared_fields(manifest, text, configs, views),
        generator_rev=manifest.get("generator_rev", "none"),
        license="other",
        tags=list(dict.fromkeys(tags)),
        family="real",
        real=real,
    )


def declared_text(folder: Path, manifest: dict[str, Any]) -> Any:
    """The :class:`~causalarena.family.CardText` the release's family declares (every family,
    synthetic and real included: the engine's one place the card prose comes from).

    Raises
    ------
    ReleaseError
        No registered family builds the suite, or it declares a tag that is not a Hub tag.
    """
    from causalarena.family import family_of

    try:
        text = family_of(manifest["suite"]).text(manifest["suite"])
    except ValueError as exc:
        raise ReleaseError(f"{folder}: {exc}") from None
    bad = [t for t in text.tags if not isinstance(t, str) or not re.match(TAG_RE, t)]
    if bad:
        raise ReleaseError(
            f"{folder}: family of suite {manifest['suite']!r} declares card tags {bad} that are "
            f"not Hub tags (lowercase letters, digits and '-', pattern {TAG_RE})"
        )
    return text


def _shared_fields(
    manifest: dict[str, Any],
    text: Any,
    configs: list[ConfigInfo],
    views: list[ConfigInfo] | None,
) -> dict[str, Any]:
    """The :class:`ReleaseMetadata` fields every family fills the same way: identity and
    publication state from the manifest, the prose from the family's ``CardText``."""
    pub = manifest.get("publication") or {}
    frz = manifest.get("freeze") or {}
    env = manifest.get("environment") or {}
    changelog = [ChangelogEntry(version=v, changes=[c]) for v, c in text.changelog] or [
        ChangelogEntry(version=manifest["version"], changes=["First release."])
    ]
    return dict(
        suite=manifest["suite"],
        version=manifest["version"],
        scale=manifest["scale"],
        seed=int(manifest.get("seed") or 0),
        package_version=str(env.get("causalarena", "unknown")),
        pretty_name=text.pretty_name,
        summary=text.summary,
        task_categories=list(text.task_categories),
        size_category=size_category(sum(c.rows for c in configs)),
        creators=CREATORS,
        paper=PAPER,
        configs=configs,
        views=views or [],
        doi=pub.get("doi"),
        previous_doi=pub.get("previous_doi"),
        hf_repo_id=pub.get("hf_repo_id"),
        frozen=bool(frz),
        date_released=frz.get("date"),
        reserved=reserved_info(frz),
        changelog=changelog,
        intended_uses=list(text.intended_uses) or ["Benchmarking."],
        out_of_scope_uses=list(text.out_of_scope_uses),
        overlap_guidance=list(text.overlap_guidance),
        limitations=list(text.limitations)
        or ["The family declared no limitations; read its documentation before use."],
    )


def _collect_generic_metadata(
    folder: Path,
    manifest: dict[str, Any],
    configs: list[ConfigInfo],
    views: list[ConfigInfo] | None = None,
) -> ReleaseMetadata:
    """Metadata of a family with no data-derived card tables (temporal ``dot-*``, lab,
    semantic, formula, plug-ins): the shared fields and the declared licence and tags."""
    text = declared_text(folder, manifest)
    if text.license not in DATA_LICENCES:
        raise ReleaseError(
            f"{folder}: family of suite {manifest['suite']!r} declares licence "
            f"{text.license!r}; known data licences: {sorted(DATA_LICENCES)}"
        )
    return ReleaseMetadata(
        **_shared_fields(manifest, text, configs, views),
        generator_rev=manifest.get("generator_rev", "none"),
        license=text.license,
        license_notice=text.license_notice or None,
        tags=list(dict.fromkeys(text.tags)) or ["benchmark"],
        family=str(manifest["family"]),
        column_docs=dict(text.column_docs),
        sections=_family_sections(folder, manifest, text),
    )


def _family_sections(folder: Path, manifest: dict[str, Any], text: Any) -> list[CardSection]:
    """Card sections a family computes from its rows (``CardText.sections``): the columns
    ``section_columns`` of every Parquet shard of each config, in shard order."""
    if text.sections is None:
        return []
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables: dict[str, Any] = {}
    for config in manifest.get("configs", {}):
        paths = sorted(f["path"] for f in manifest["files"] if f.get("config") == config)
        parts = []
        for rel in paths:
            names = pq.read_schema(folder / rel).names
            cols = [c for c in text.section_columns if c in names] or None
            parts.append(pq.read_table(folder / rel, columns=cols))
        tables[config] = pa.concat_tables(parts) if parts else None
    return [CardSection(title=t, body=b) for t, b in text.sections(tables)]


# ----------------------------------------------------------------------------- helpers
def reserved_info(freeze: dict[str, Any]) -> ReservedInfo | None:
    """The card's view of ``freeze.reserved`` (any family), or None without a commitment."""
    r = freeze.get("reserved")
    if not isinstance(r, dict) or not r:
        return None
    return ReservedInfo(scope=r["scope"], count=r["count"], root_sha256=r["root_sha256"])


def size_category(rows: int) -> SizeCategory:
    """Hugging Face ``size_categories`` bucket of a row count."""
    for limit, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if rows < limit:
            return name  # type: ignore[return-value]
    return "1M<n<10M"


_ARROW_SCALARS = {
    "string": "string",
    "large_string": "string",
    "bool": "bool",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "float": "float32",
    "float32": "float32",
    "double": "float64",
    "float64": "float64",
}


def feature_from_arrow(arrow_type: Any, name: str | None = None) -> Feature:
    """:class:`Feature` of a pyarrow type (lists become nested ``list`` features).

    Raises
    ------
    ReleaseError
        For an Arrow type outside the closed vocabulary (names the column and type).
    """
    import pyarrow as pa

    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return Feature(name=name, list=feature_from_arrow(arrow_type.value_type))
    key = str(arrow_type)
    if key not in _ARROW_SCALARS:
        raise ReleaseError(f"column {name!r}: Arrow type {key} has no card dtype")
    return Feature(name=name, dtype=_ARROW_SCALARS[key])  # type: ignore[arg-type]


def classify_reason(reason: str) -> AuditReasonClass:
    """Map one stored rejection reason (``"attempt k: ..."``) to its audit-gate class."""
    text = re.sub(r"^attempt \d+: ", "", reason)
    if text.startswith("invalid SCM spec"):
        return "invalid-spec"
    if text.startswith("graph:"):
        return "graph-gate"
    if "non-finite" in text:
        return "non-finite"
    if "near-duplicate" in text:
        return "near-duplicate"
    if "has one value in" in text:
        return "discrete-dominance"
    if "near-constant" in text:
        return "near-constant"
    if "clipping bounds" in text:
        return "clipping-mass"
    if text.startswith("obs+int:"):
        return "intervention-gate"
    return "other"


FACTOR_COLUMNS = [
    "scm_id",
    *SLICE_FACTORS,
    "varsortability",
    "r2_sortability",
    "audit_attempts",
    "audit_reasons",
]


def read_factor_rows(folder: Path, manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per SCM (deduplicated over configs) with the factor columns of the shards.

    Raises
    ------
    ReleaseError
        If a listed shard is missing or lacks a factor column.
    """
    import pyarrow.parquet as pq

    per_scm: dict[str, dict[str, Any]] = {}
    for f in manifest["files"]:
        path = folder / f["path"]
        if not path.is_file():
            raise ReleaseError(f"{path}: listed in manifest.json but missing")
        try:
            table = pq.read_table(path, columns=FACTOR_COLUMNS)
        except Exception as exc:  # damaged shard or missing column
            raise ReleaseError(f"{path}: cannot read factor columns ({exc})") from None
        for row in table.to_pylist():
            per_scm.setdefault(row["scm_id"], row)
    return [per_scm[k] for k in sorted(per_scm)]


def _shares(rows: list[dict[str, Any]], key: str, multi: bool) -> list[Share]:
    n = len(rows) or 1
    if multi:
        c = Counter(t for r in rows for t in set(r[key]))
    else:
        c = Counter(r[key] for r in rows)
    return [
        Share(level=str(k), scms=v, share=round(v / n, 4))
        for k, v in sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0])))
    ]


def compute_coverage(rows: list[dict[str, Any]]) -> Coverage:
    """Coverage tables from per-SCM factor rows (see :func:`read_factor_rows`)."""
    fams = sorted({r["graph_family"] for r in rows})
    dims = sorted({int(r["d"]) for r in rows})
    counts = Counter((r["graph_family"], int(r["d"])) for r in rows)
    table = CountTable(
        row_name="graph_family",
        column_name="d",
        rows=fams,
        columns=dims,
        counts=[[counts[(f, d)] for d in dims] for f in fams],
    )
    edges = [int(r["n_edges"]) for r in rows] or [0]

    def mean(key: str) -> float:
        vals = [float(r[key]) for r in rows if r[key] is not None]
        return round(sum(vals) / len(vals), 4) if vals else 0.0

    return Coverage(
        n_scms=len(rows),
        family_by_d=table,
        mechanism=_shares(rows, "mechanism_tags", True),
        noise=_shares(rows, "noise_tags", True),
        root=_shares(rows, "root_tags", True),
        root_dependency=_shares(rows, "root_dependency", False),
        difficulty=_shares(rows, "difficulty", False),
        edges_min=min(edges),
        edges_max=max(edges),
        varsortability_mean=mean("varsortability"),
        r2_sortability_mean=mean("r2_sortability"),
    )


def compute_audit(rows: list[dict[str, Any]]) -> AuditSummary:
    """Audit-loop rates from per-SCM ``audit_attempts`` and ``audit_reasons``."""
    n = len(rows)
    attempts = sum(int(r["audit_attempts"]) for r in rows)
    resampled = sum(1 for r in rows if int(r["audit_attempts"]) > 1)
    reasons = Counter(classify_reason(x) for r in rows for x in r["audit_reasons"])
    return AuditSummary(
        scms=n,
        resampled_scms=resampled,
        total_attempts=attempts,
        resample_rate=round(resampled / n, 4) if n else 0.0,
        acceptance_rate=round(n / attempts, 4) if attempts else 0.0,
        reasons=[
            ReasonCount(reason=k, candidates=v)
            for k, v in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
    )


def config_infos(folder: Path, manifest: dict[str, Any]) -> list[ConfigInfo]:
    """Per-config sizes from the manifest and features from the first shard's Arrow schema.

    Raises
    ------
    ReleaseError
        If the shards of one config do not share one schema.
    """
    import pyarrow.parquet as pq

    out = []
    for name in sorted(manifest["configs"]):
        files = [f for f in manifest["files"] if f.get("config") == name]
        schemas = {str(pq.read_schema(folder / f["path"])) for f in files}
        if len(schemas) > 1:
            raise ReleaseError(f"{folder}: shards of config {name!r} have different schemas")
        schema = pq.read_schema(folder / files[0]["path"]) if files else None
        features = (
            [feature_from_arrow(fld.type, fld.name) for fld in schema] if schema is not None else []
        )
        c = manifest["configs"][name]
        out.append(
            ConfigInfo(
                name=name,
                setting="obsint" if name.endswith("-obsint") else "obs",
                split=c.get("split", "test"),
                rows=int(c["rows"]),
                shards=int(c["shards"]),
                bytes=sum(int(f["bytes"]) for f in files),
                uncompressed_bytes=sum(
                    pq.read_metadata(folder / f["path"]).row_group(i).total_byte_size
                    for f in files
                    for i in range(pq.read_metadata(folder / f["path"]).num_row_groups)
                ),
                features=features,
                default=not out,  # the first config (``*-obs``) is the default
            )
        )
    return out


def _file_bytes(folder: Path, rel: str) -> int:
    import pyarrow.parquet as pq

    md = pq.read_metadata(folder / rel)
    return sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups))


def view_infos(
    folder: Path, manifest: dict[str, Any], configs: list[ConfigInfo]
) -> list[ConfigInfo]:
    """Fixed-d views of every config whose shards each hold a single ``d``.

    The views come from the manifest (:func:`causalarena.schema.manifest_views`: the engine
    records each shard's ``d`` for families with ``shard_d``).  A view ``<config>-d<ddd>``
    lists the config's shards of that ``d``, serves the columns
    :data:`causalarena.schema.VIEW_COLUMNS` (its card entry's ``columns:``) and declares
    ``X`` and ``mask`` as ``datasets.Array2D((n, d))`` and ``adjacency`` as
    ``Array2D((d, d))`` (:func:`causalarena.schema.array2d_shape`; ``n = n_obs + n_int`` read
    from the shards, ``None`` if the view's rows differ in it), so ``datasets``' numpy and
    torch formatters reshape one flat buffer per matrix instead of converting every matrix
    row, and rows batch into ``(B, n, d)``.
    """
    import pyarrow.parquet as pq

    from causalarena.schema import ARRAY_COLUMNS, VIEW_COLUMNS, array2d_shape, manifest_views

    by_name = {c.name: c for c in configs}
    sizes = {f["path"]: int(f["bytes"]) for f in manifest["files"] if "config" in f}
    out: list[ConfigInfo] = []
    for name, v in manifest_views(manifest).items():
        c = by_name.get(v["config"])
        if c is None:
            continue
        feats = {str(f.name): f for f in c.features}
        if any(k not in feats for k in VIEW_COLUMNS) or any(
            feats[k].depth != 2 or feats[k].leaf != dtype for k, (dtype, _) in ARRAY_COLUMNS.items()
        ):
            continue
        d = int(v["d"])
        ns: set[int] = set()
        for p in v["files"]:
            t = pq.read_table(folder / p, columns=["n_obs", "n_int"])
            ns |= set(
                (t["n_obs"].to_numpy().astype(int) + t["n_int"].to_numpy().astype(int)).tolist()
            )
        n = next(iter(ns)) if len(ns) == 1 else None
        out.append(
            ConfigInfo(
                name=name,
                setting=c.setting,
                split=c.split,
                rows=int(v["rows"]),
                shards=len(v["files"]),
                bytes=sum(sizes[p] for p in v["files"]),
                uncompressed_bytes=sum(_file_bytes(folder, p) for p in v["files"]),
                features=[
                    Feature(
                        name=f.name,
                        array2d=Array2DSpec(
                            shape=tuple(array2d_shape(str(f.name), d, n)),  # type: ignore[arg-type]
                            dtype=ARRAY_COLUMNS[str(f.name)][0],  # type: ignore[arg-type]
                        ),
                    )
                    if f.name in ARRAY_COLUMNS
                    else f
                    for f in c.features
                    if f.name in VIEW_COLUMNS
                ],
                view_of=c.name,
                d=d,
                n=n,
                files=list(v["files"]),
                columns=[str(f.name) for f in c.features if f.name in VIEW_COLUMNS],
            )
        )
    return out


def collect_metadata(folder: str | Path, manifest: dict[str, Any] | None = None) -> ReleaseMetadata:
    """Build the :class:`ReleaseMetadata` of a release folder.

    Parameters
    ----------
    folder : path
        Release folder with ``manifest.json`` and ``data/``.
    manifest : dict, optional
        The manifest (read from ``folder`` when omitted).

    Returns
    -------
    ReleaseMetadata

    Raises
    ------
    ReleaseError
        Missing manifest or shards, unreadable factor columns (synthetic) or real-data columns
        (real), real counts that disagree with the manifest header.
    pydantic.ValidationError
        If a value falls outside the closed vocabularies (e.g. a malformed DOI).
    """
    from causalarena.release.manifest import read_manifest

    folder = Path(folder)
    manifest = manifest if manifest is not None else read_manifest(folder)
    if manifest.get("family") == "real":
        configs = config_infos(folder, manifest)
        return _collect_real_metadata(
            folder, manifest, configs, view_infos(folder, manifest, configs)
        )
    if manifest.get("family", "synthetic") != "synthetic":
        configs = config_infos(folder, manifest)
        return _collect_generic_metadata(
            folder, manifest, configs, view_infos(folder, manifest, configs)
        )
    rows = read_factor_rows(folder, manifest)
    configs = config_infos(folder, manifest)
    text = declared_text(folder, manifest)
    return ReleaseMetadata(
        **_shared_fields(manifest, text, configs, view_infos(folder, manifest, configs)),
        generator_rev=manifest.get("generator_rev", "unknown"),
        tags=list(dict.fromkeys(text.tags)),
        coverage=compute_coverage(rows),
        audit=compute_audit(rows),
    )
