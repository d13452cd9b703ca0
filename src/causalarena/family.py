"""The contract between a suite family and the release engine.

A *family* (synthetic arena, real tables, temporal ``dot-*`` suites, and later semantic,
formula, lab, protocol suites) declares **what** a release contains; the engine
(:mod:`causalarena.release.engine`) alone decides **how** it is written.  A family never
writes, names, locks, checksums or deletes a file.

What a family declares, in one :class:`Family` value:

- ``suites``: the suite names it builds, each with a ``version`` (``X.Y.Z``) and a ``seed``
  (:class:`SuiteInfo`), and the ``scales`` each suite accepts (``mini``, ``full``, ...);
- ``configs(suite)``: its Hugging Face configs, each with ONE Arrow schema (:class:`Config`);
  every shard of a config has exactly that schema;
- ``units(suite, scale, options)``: its deterministic work units, in release order, each keyed
  by ``(suite, version, seed, unit)`` (:class:`Unit`); a unit is the granularity of resume;
- ``run_unit(unit)``: a **pure** function from a unit to Arrow tables, one per config the unit
  contributes rows to (:class:`UnitResult`); it must give the same bytes in every process
  (no global RNG; :class:`numpy.random.SeedSequence` keyed by suite and unit; the engine runs
  it under ``threadpool_limits(1)``).  It must be a module-level function (it is pickled to
  worker processes, which import its module and find the family there: define the
  :class:`Family` value at module level in the same module as ``run_unit``);
- ``header(suite, scale, options)``: the suite definition recorded in ``manifest.json``
  (JSON-serialisable; no local filesystem paths);
- ``text(suite)``: the prose the dataset card and Croissant need (:class:`CardText`);
- optionally ``prepare(suite, scale, options)``: checks run before anything is written
  (e.g. the real family verifies every source file's checksum); it returns JSON facts merged
  into the manifest header (e.g. ``{"unavailable": {...}}``) and raises to refuse the build;
- optionally ``arrays(suite, config, shard_paths, store_path)``: fill a Zarr store at
  ``store_path`` (a temporary folder the engine created) from the config's finished Parquet
  shards; the engine renames it into place and checksums every file in the manifest;
- optionally ``shard_d(unit)``: the ``d`` (number of variables) of every row the unit
  writes, for families whose units each hold one ``d``.  Shards then never mix rows of
  different ``d``: the rows of each ``d`` (in unit order, ``d`` in order of first appearance)
  get :func:`shard_count` shards of their own when every ``d`` has at least 8 rows of the
  config (otherwise the config is sharded as a whole), each such shard's manifest entry
  records its ``"d"``, and the card declares fixed-d views (``<config>-dNNN``,
  :func:`causalarena.schema.manifest_views`) over them.  The synthetic family keys by ``d``;
- optionally the reserved (held-out) half: ``reserved_units(suite, scale, options)`` gives
  the units whose content is drawn from the maintainers' secret key (their positions are
  public, their content is not), ``run_reserved(unit, seed_sequence)`` draws one such unit
  from the key-derived :class:`numpy.random.SeedSequence` whose entropy is
  ``HMAC-SHA256(key, "causalarena/reserved/seed/<suite>/<version>/<unit.key>")`` and
  returns its tables like ``run_unit``, and ``reserved_instances(config, table)`` yields
  ``(instance_id, spec_json, X, mask)`` per row so the engine can commit to each instance
  (:mod:`causalarena.release.reserved`).  The engine builds reserved units only when given
  a key, into a separate private folder (same lock, resume records, ``workers`` and
  byte identity as a public build); freeze and ``verify --reveal`` commit and check them for
  every family that declares them.  ``reserved_suites`` (optional) names the suites that
  have a reserved half when not all do (lab: the converted public CausaLab suite has none).
  Unit parameters whose name starts with ``_`` stay private: they are part of the reserved
  build's resume key but are not copied into the public commitments (``entropy_name`` is
  never copied either);
- optionally ``sizes(suite, scale)``: the number of public instances each config of the
  suite holds at ``scale`` (``{config: rows}``), from the design alone (nothing is
  generated); ``causalarena suites`` shows it.  Families whose size depends on data on disk
  (real tables, imported DoTime folders) leave it ``None``;
- ``code``: package-relative paths (files or folders) whose bytes determine the output; a
  unit finished by other code is rebuilt on resume.

Work units and shards: the engine writes each unit's tables as temporary *parts* under
``.build/``, then consolidates the rows of each config, in unit order, into
``data/<config>/test-KKKKK-of-NNNNN.parquet`` with ``NNNNN`` = :func:`shard_count` (a multiple
of 8 whenever the config has at least 8 rows, so
``datasets.distributed.split_dataset_by_node`` gives every rank of a world size dividing 8 a
disjoint set of shards).  Shards are byte-identical for any worker count.

Registering a family: add its module path to :data:`FAMILY_MODULES` (the module exposes
``FAMILY``) or call :func:`register` (tests, plugins).  The engine is never edited.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Modules that define a module-level ``FAMILY``; imported on first lookup.
FAMILY_MODULES: tuple[str, ...] = (
    "causalarena.generator.synthetic.family",
    "causalarena.generator.temporal.family",
    "causalarena.generator.real.family",
    "causalarena.generator.semantic.family",
    "causalarena.generator.formula.family",
    "causalarena.generator.lab.family",
    "causalarena.generator.protocols.family",
    "causalarena.generator.dotime.family",
)


@dataclass(frozen=True)
class Config:
    """One Hugging Face config of a release.

    Parameters
    ----------
    name : str
        Config name (``[a-z0-9-]+``), also the folder ``data/<name>/``.
    schema : pyarrow.Schema
        The one Arrow schema of every shard of this config.
    description : str
        One sentence for the card's config table.
    """

    name: str
    schema: Any
    description: str = ""


@dataclass(frozen=True)
class Unit:
    """One deterministic piece of work of a suite build.

    Parameters
    ----------
    suite, version, seed, scale : str, str, int or None, str
        The build this unit belongs to.
    key : str
        Unit name, unique within the suite, filesystem-safe (``[A-Za-z0-9_.-]+``); the part
        files of the unit are named after it.
    params : mapping
        JSON-serialisable arguments of :attr:`Family.run_unit` (e.g. block index, dataset name,
        pool indices).  Part of the resume key.
    """

    suite: str
    version: str
    seed: int | None
    scale: str
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class UnitResult:
    """What :attr:`Family.run_unit` returns.

    Parameters
    ----------
    tables : dict of str to pyarrow.Table
        Config name -> rows this unit contributes (schema equal to the config's schema).
    audit : list of dict
        One entry per generated instance, at least ``{"attempts": int}`` (summed in the
        manifest's ``audit`` block); may be empty.
    """

    tables: dict[str, Any]
    audit: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class CardText:
    """The prose a dataset card and Croissant file need (no numbers; those come from data).

    ``tags`` are the card's Hub tags, all kept (lowercase ``[a-z0-9-]+``; anything else
    refuses the metadata step with an error naming the tag).  ``license`` is the data
    licence as a Hub/Zenodo identifier (``cc-by-4.0``, the default, or ``apache-2.0``,
    :data:`causalarena.release.metadata.DATA_LICENCES`), written consistently into the card
    front matter and Licence section, Croissant ``license``, ``CITATION.cff`` ``license``
    and ``.zenodo.json`` ``license``; ``license_notice`` is the attribution those four files
    carry with it (e.g. the upstream source whose licence the rows keep).

    ``column_docs`` are ``(column, description)`` pairs of the family's columns: they add to
    (or replace) the engine's column descriptions in the card and in every Croissant field.
    ``sections`` computes card sections from the written rows: the engine reads the columns
    ``section_columns`` of every shard and calls ``sections({config: pyarrow.Table})`` (rows
    in shard order); it returns ``(title, markdown body)`` pairs, rendered after the card's
    schema (e.g. per-domain tables).  It must be a pure function of the rows; it never reads
    or writes files.
    """

    pretty_name: str
    summary: str
    tags: tuple[str, ...] = ()
    license: str = "cc-by-4.0"
    license_notice: str = ""
    task_categories: tuple[str, ...] = ("graph-ml",)
    intended_uses: tuple[str, ...] = ()
    out_of_scope_uses: tuple[str, ...] = ()
    overlap_guidance: tuple[str, ...] = ()
    limitations: tuple[str, ...] = ()
    changelog: tuple[tuple[str, str], ...] = ()  # (version, change)
    usage: str = ""
    column_docs: tuple[tuple[str, str], ...] = ()
    sections: Callable[[Mapping[str, Any]], Sequence[tuple[str, str]]] | None = None
    section_columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class SuiteInfo:
    """Identity of one suite: ``version`` is ``X.Y.Z``; ``seed`` may be None (real data)."""

    name: str
    version: str
    seed: int | None
    scales: tuple[str, ...] = ("mini", "full")


@dataclass(frozen=True)
class Family:
    """Everything the release engine needs to build, verify and describe a family's suites.

    See the module docstring for the contract of each field.
    """

    name: str
    suites: Mapping[str, SuiteInfo]
    configs: Callable[[str], Sequence[Config]]
    units: Callable[[str, str, Mapping[str, Any]], Sequence[Unit]]
    run_unit: Callable[[Unit], UnitResult]
    header: Callable[[str, str, Mapping[str, Any]], dict[str, Any]]
    text: Callable[[str], CardText]
    prepare: Callable[[str, str, Mapping[str, Any]], dict[str, Any]] | None = None
    arrays: Callable[[str, str, list[Any], Any], None] | None = None
    shard_d: Callable[[Unit], int] | None = None
    reserved_units: Callable[[str, str, Mapping[str, Any]], Sequence[Unit]] | None = None
    run_reserved: Callable[[Unit, Any], UnitResult] | None = None
    reserved_instances: Callable[[str, Any], Any] | None = None
    reserved_suites: frozenset[str] | None = None
    sizes: Callable[[str, str], Mapping[str, int]] | None = None
    code: tuple[str, ...] = ()
    parquet_options: Mapping[str, Any] = field(
        default_factory=lambda: {"compression": "zstd", "compression_level": 3}
    )

    def suite(self, name: str) -> SuiteInfo:
        """The :class:`SuiteInfo` of ``name``.

        Raises
        ------
        ValueError
            If this family does not build ``name`` (lists the ones it does).
        """
        if name not in self.suites:
            raise ValueError(
                f"family {self.name!r} has no suite {name!r}; it has {list(self.suites)}"
            )
        return self.suites[name]


_REGISTRY: dict[str, Family] = {}
_LOADED = False


def register(family: Family) -> Family:
    """Make ``family`` known to :func:`family_of` (replaces a family of the same name)."""
    _REGISTRY[family.name] = family
    return family


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for mod in FAMILY_MODULES:
        fam = importlib.import_module(mod).FAMILY
        _REGISTRY.setdefault(fam.name, fam)


def families() -> dict[str, Family]:
    """Every registered family by name."""
    _load()
    return dict(_REGISTRY)


def family_of(suite: str) -> Family:
    """The family that builds ``suite``.

    Raises
    ------
    ValueError
        If no registered family builds ``suite`` (the message lists the known suites).
    """
    _load()
    for fam in _REGISTRY.values():
        if suite in fam.suites:
            return fam
    known = sorted(s for f in _REGISTRY.values() for s in f.suites)
    raise ValueError(f"unknown suite {suite!r}; known suites: {known}")


def shard_count(rows: int, units: int) -> int:
    """Number of Parquet shards of a config with ``rows`` rows built from ``units`` units.

    Rule: 1 shard below 8 rows; otherwise about one shard per unit, rounded up to a multiple
    of 8 and capped at the largest multiple of 8 that leaves every shard at least one row.
    So ``split_dataset_by_node`` with world size 1, 2, 4 or 8 always gives disjoint shards.
    """
    if rows < 8:
        return 1
    n = 8 * -(-max(units, 1) // 8)
    return min(n, 8 * (rows // 8))
