"""Citation files of a release: ``CITATION.cff`` (CFF 1.2.0) and ``.zenodo.json``.

Both are rendered from :class:`~causalarena.release.metadata.ReleaseMetadata`.  Until a DOI is
recorded (``causalarena release set-doi DIR DOI``) they carry no DOI field and say the DOI is
pending.  :func:`validate_cff` checks a CFF file against the official CFF 1.2.0 JSON schema
(vendored in ``schemas/``, validated offline with ``jsonschema``); :class:`ZenodoMetadata`
is the strict model of the Zenodo deposition metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from causalarena.release.io import atomic_write_bytes
from causalarena.release.metadata import (
    CREATORS,
    DOI_RE,
    LICENSE_SPDX,
    PAPER,
    SEMVER_RE,
    ReleaseMetadata,
)

CFF_SCHEMA = Path(__file__).with_name("schemas") / "cff-1.2.0.schema.json"
PENDING = "DOI pending: no DOI has been minted for this version yet."

ZenodoRelation = Literal[
    "isDocumentedBy", "isIdenticalTo", "isNewVersionOf", "isSupplementTo", "isDerivedFrom"
]
ZenodoScheme = Literal["doi", "arxiv", "url"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ZenodoCreator(_Strict):
    """A Zenodo creator (``Family, Given`` or a group name)."""

    name: str = Field(min_length=1)
    affiliation: str | None = None
    orcid: str | None = None


class ZenodoRelated(_Strict):
    """A related identifier (paper, Hub repo, previous version)."""

    identifier: str = Field(min_length=1)
    relation: ZenodoRelation
    scheme: ZenodoScheme
    resource_type: Literal["publication-preprint", "dataset"] | None = None

    @model_validator(mode="after")
    def _scheme_matches(self) -> ZenodoRelated:
        import re

        ok = {
            "doi": re.match(DOI_RE, self.identifier),
            "arxiv": re.match(r"^arXiv:\d{4}\.\d{4,5}$", self.identifier),
            "url": re.match(r"^https://\S+$", self.identifier),
        }[self.scheme]
        if not ok:
            raise ValueError(f"identifier {self.identifier!r} is not a valid {self.scheme}")
        return self


class ZenodoMetadata(_Strict):
    """Strict model of ``.zenodo.json`` (Zenodo legacy deposit metadata subset)."""

    upload_type: Literal["dataset"] = "dataset"
    title: str = Field(min_length=1)
    creators: list[ZenodoCreator] = Field(min_length=1)
    description: str = Field(min_length=1)
    #: ``other-at`` ("Other (Attribution)") for real-data releases, whose datasets keep their
    #: own attribution licences (MIT, BSD, CC BY; listed in the description).
    license: Literal["cc-by-4.0", "apache-2.0", "other-at"] = "cc-by-4.0"
    access_right: Literal["open"] = "open"
    version: str = Field(pattern=SEMVER_RE)
    keywords: list[str] = Field(min_length=1)
    related_identifiers: list[ZenodoRelated]
    notes: str | None = None
    doi: str | None = Field(default=None, pattern=DOI_RE)
    publication_date: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")

    @model_validator(mode="after")
    def _has_paper(self) -> ZenodoMetadata:
        if not any(r.relation == "isDocumentedBy" for r in self.related_identifiers):
            raise ValueError("related_identifiers must include the paper (isDocumentedBy)")
        return self


def _paper_cff() -> dict[str, Any]:
    return {
        "type": "article",
        "title": PAPER.title,
        "authors": [
            {"family-names": p.family_names, "given-names": p.given_names} for p in PAPER.authors
        ],
        "year": PAPER.year,
        "url": PAPER.url,
        "identifiers": [{"type": "url", "value": PAPER.url, "description": f"arXiv:{PAPER.arxiv}"}],
    }


def _person_cff(p: Any) -> dict[str, Any]:
    if p.family_names:
        out = {"family-names": p.family_names, "given-names": p.given_names}
    else:
        out = {"name": p.name}
    if p.affiliation:
        out["affiliation"] = p.affiliation
    if p.orcid:
        out["orcid"] = p.orcid
    return out


def real_licence_text(meta: ReleaseMetadata) -> str:
    """Sentence listing the per-dataset licences of a real-data release."""
    assert meta.real is not None
    parts = [
        f"{lic} ({', '.join(d.name for d in meta.real.datasets if d.licence == lic)})"
        for lic in meta.real.licences
    ]
    return (
        "Each dataset keeps the licence of its source files: " + "; ".join(parts) + ". "
        "Cite each dataset's original publication (BibTeX in the dataset card and in the "
        "'citation' column)."
    )


def cff_dict(meta: ReleaseMetadata) -> dict[str, Any]:
    """``CITATION.cff`` content of a dataset release as a dict (CFF 1.2.0 keys).

    A real-data release has no ``license`` key: CFF reads several licences as alternatives
    (OR), while each dataset has exactly one; the per-dataset licences are in the abstract.
    """
    if meta.is_real:
        return _real_cff_dict(meta)
    d: dict[str, Any] = {
        "cff-version": "1.2.0",
        "message": (
            "If you use this dataset, please cite it as below, together with the CausalArena "
            "paper (preferred citation)."
        ),
        "type": "dataset",
        "title": meta.title,
        "version": meta.version,
        "license": meta.license_spdx if meta.is_generic else LICENSE_SPDX,
        "authors": [_person_cff(p) for p in meta.creators],
        "abstract": meta.summary
        + (f" {meta.license_notice}" if meta.license_notice else "")
        + ("" if meta.doi else " " + PENDING),
        "keywords": meta.keywords,
    }
    return _with_publication(d, meta)


def _with_publication(d: dict[str, Any], meta: ReleaseMetadata) -> dict[str, Any]:
    """Add DOI, release date, Hub URL, identifiers and the preferred citation (in CFF order)."""
    if meta.doi:
        d["doi"] = meta.doi
    if meta.date_released:
        d["date-released"] = meta.date_released
    if meta.hub_url:
        d["url"] = meta.hub_url
        d["repository"] = meta.hub_url
    ids = []
    if meta.doi:
        ids.append(
            {"type": "doi", "value": meta.doi, "description": f"This version ({meta.version})"}
        )
    if meta.previous_doi:
        ids.append({"type": "doi", "value": meta.previous_doi, "description": "Previous version"})
    if meta.hub_url:
        ids.append({"type": "url", "value": meta.hub_url, "description": "Hugging Face dataset"})
    if ids:
        d["identifiers"] = ids
    d["preferred-citation"] = _paper_cff()
    return d


def _real_cff_dict(meta: ReleaseMetadata) -> dict[str, Any]:
    assert meta.real is not None
    d: dict[str, Any] = {
        "cff-version": "1.2.0",
        "message": (
            "If you use this dataset, please cite it as below, together with the CausalArena "
            "paper (preferred citation) and the original publication of every real dataset you "
            "use (see the dataset card)."
        ),
        "type": "dataset",
        "title": meta.title,
        "version": meta.version,
        "authors": [_person_cff(p) for p in meta.creators],
        "abstract": (
            meta.summary
            + " "
            + meta.real.reference_caveat
            + " "
            + real_licence_text(meta)
            + ("" if meta.doi else " " + PENDING)
        ),
        "keywords": meta.keywords,
    }
    return _with_publication(d, meta)


def render_cff(meta: ReleaseMetadata) -> str:
    """``CITATION.cff`` text (YAML; dates quoted so they stay strings)."""
    head = "# CITATION.cff of one causalarena release, generated from its metadata.\n"
    if not meta.doi:
        head += "# " + PENDING + " Record it with `causalarena release set-doi DIR DOI`.\n"
    return head + yaml.safe_dump(cff_dict(meta), sort_keys=False, allow_unicode=True, width=100)


def _html_text(text: str) -> str:
    import html

    return html.escape(text, quote=False)


def _description_html(meta_title: str, summary: str, extra: list[str]) -> str:
    parts = [f"<p>{summary}</p>"] + [f"<p>{e}</p>" for e in extra]
    return "".join(parts)


def zenodo_dict(meta: ReleaseMetadata) -> dict[str, Any]:
    """``.zenodo.json`` of a dataset release (validated by :class:`ZenodoMetadata`)."""
    related = [
        {
            "identifier": f"arXiv:{PAPER.arxiv}",
            "relation": "isDocumentedBy",
            "scheme": "arxiv",
            "resource_type": "publication-preprint",
        }
    ]
    if meta.hub_url:
        related.append({"identifier": meta.hub_url, "relation": "isIdenticalTo", "scheme": "url"})
    if meta.previous_doi:
        related.append(
            {"identifier": meta.previous_doi, "relation": "isNewVersionOf", "scheme": "doi"}
        )
    sizes = ", ".join(f"{c.name}: {c.rows} rows" for c in meta.configs)
    if meta.is_real:
        return _real_zenodo_dict(meta, related, sizes)
    count = (
        f"{meta.coverage.n_scms} public SCMs"
        if meta.coverage is not None
        else f"{meta.total_rows} public instances"
    )
    d: dict[str, Any] = {
        "upload_type": "dataset",
        "title": meta.title,
        "creators": [{"name": p.zenodo_name} for p in meta.creators],
        "description": _description_html(
            meta.title,
            meta.summary,
            [
                f"Configs ({sizes}); {count}. Adjacency convention: "
                "A[i, j] = 1 iff i -&gt; j (row = parent, column = child).",
                "Please disclose any use of public CausalArena SCMs or the generator in "
                "pretraining when reporting scores.",
                *([_html_text(meta.license_notice)] if meta.license_notice else []),
            ],
        ),
        "license": meta.license if meta.is_generic else "cc-by-4.0",
        "access_right": "open",
        "version": meta.version,
        "keywords": meta.keywords,
        "related_identifiers": related,
        "notes": (
            f"Built with causalarena {meta.package_version}; suite {meta.suite}, scale "
            f"{meta.scale}, seed {meta.seed}. " + ("" if meta.doi else PENDING)
        ).strip(),
    }
    if meta.doi:
        d["doi"] = meta.doi
    if meta.date_released:
        d["publication_date"] = meta.date_released
    ZenodoMetadata.model_validate(d)
    return d


def _real_zenodo_dict(
    meta: ReleaseMetadata, related: list[dict[str, Any]], sizes: str
) -> dict[str, Any]:
    import html

    assert meta.real is not None
    d: dict[str, Any] = {
        "upload_type": "dataset",
        "title": meta.title,
        "creators": [{"name": p.zenodo_name} for p in meta.creators],
        "description": _description_html(
            meta.title,
            html.escape(meta.summary, quote=False),
            [
                html.escape(meta.real.reference_caveat, quote=False),
                f"Configs ({sizes}); {len(meta.real.datasets)} datasets: "
                + ", ".join(d.name for d in meta.real.datasets)
                + ". Adjacency convention: A[i, j] = 1 iff i -&gt; j (row = parent, column = "
                "child).",
                html.escape(real_licence_text(meta), quote=False),
            ],
        ),
        "license": "other-at",
        "access_right": "open",
        "version": meta.version,
        "keywords": meta.keywords,
        "related_identifiers": related,
        "notes": (
            f"Built with causalarena {meta.package_version}; suite {meta.suite}, scale "
            f"{meta.scale}. " + ("" if meta.doi else PENDING)
        ).strip(),
    }
    if meta.doi:
        d["doi"] = meta.doi
    if meta.date_released:
        d["publication_date"] = meta.date_released
    ZenodoMetadata.model_validate(d)
    return d


def repo_zenodo_dict(suite: str = "arena-synthetic") -> dict[str, Any]:
    """The repository-level ``.zenodo.json``: the suite's current version, DOI pending."""
    from causalarena.generator.synthetic.suites import get_suite

    sdef = get_suite(suite)
    d = {
        "upload_type": "dataset",
        "title": f"CausalArena {suite} v{sdef.version}",
        "creators": [{"name": p.zenodo_name} for p in CREATORS],
        "description": (
            "<p>Frozen benchmark suite of synthetic structural causal models with exact "
            "ground-truth DAGs for causal discovery, built and verified with the causalarena "
            "package. Each release folder carries its own .zenodo.json with sizes and "
            "checksums.</p>"
        ),
        "license": "cc-by-4.0",
        "access_right": "open",
        "version": sdef.version,
        "keywords": ["causal discovery", "structural causal models", "benchmark", "synthetic data"],
        "related_identifiers": [
            {
                "identifier": f"arXiv:{PAPER.arxiv}",
                "relation": "isDocumentedBy",
                "scheme": "arxiv",
                "resource_type": "publication-preprint",
            }
        ],
        "notes": PENDING,
    }
    ZenodoMetadata.model_validate(d)
    return d


def write_citation_files(folder: str | Path, meta: ReleaseMetadata) -> dict[str, Path]:
    """Write ``CITATION.cff`` and ``.zenodo.json`` into a release folder."""
    folder = Path(folder)
    cff = folder / "CITATION.cff"
    zen = folder / ".zenodo.json"
    atomic_write_bytes(cff, render_cff(meta).encode())
    atomic_write_bytes(zen, (json.dumps(zenodo_dict(meta), indent=2) + "\n").encode())
    return {"cff": cff, "zenodo": zen}


class _NoDatesLoader(yaml.SafeLoader):
    """SafeLoader that keeps ``YYYY-MM-DD`` scalars as strings (as CFF tools do)."""


_NoDatesLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_cff(path: str | Path) -> Any:
    """Parse a ``CITATION.cff`` file (dates stay strings)."""
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_NoDatesLoader)  # noqa: S506


def validate_cff(path: str | Path, schema: str | Path | None = None) -> list[str]:
    """Validate a ``CITATION.cff`` file against the CFF 1.2.0 JSON schema (offline).

    Parameters
    ----------
    path : path
        The CFF file.
    schema : path, optional
        JSON schema file (default: the vendored official CFF 1.2.0 schema).

    Returns
    -------
    list of str
        One message per violation (``<json path>: <message>``); empty when valid.
    """
    from causalarena._extras import require

    jsonschema = require("jsonschema", "build", "validating CITATION.cff and .zenodo.json")

    try:
        data = load_cff(path)
    except (OSError, yaml.YAMLError) as exc:
        return [f"{path}: not readable YAML ({exc})"]
    sch = json.loads(Path(schema or CFF_SCHEMA).read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(sch, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    return [
        f"{path}: {'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
        for e in errors
    ]


def validate_zenodo(path: str | Path) -> list[str]:
    """Validate a ``.zenodo.json`` file with :class:`ZenodoMetadata`; return the problems."""
    from pydantic import ValidationError

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [f"{path}: not readable JSON ({exc})"]
    try:
        ZenodoMetadata.model_validate(data)
    except ValidationError as exc:
        return [
            f"{path}: {'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
            for e in exc.errors()
        ]
    return []
