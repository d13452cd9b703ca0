"""The synthetic arena as a release family (see :mod:`causalarena.family`).

One work unit per ``(graph family, d)`` block (``block-BBB``); a unit audits the block's public
SCMs of the scale (redrawing until every gate passes, paper A.2) and returns their rows for
``<family>-obs`` and ``<family>-obsint``.  Each unit is a pure function of ``(suite, version,
seed, block)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from causalarena.errors import AuditError, SpecError
from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.audit import audit_graph, audit_table
from causalarena.generator.rows import ROW_SCHEMA, to_arrow
from causalarena.generator.sample import Table, sample
from causalarena.generator.synthetic.draw import (
    GENERATOR_REV,
    _Reject,
    draw_spec,
    node_tags,
    suite_key,
)
from causalarena.generator.synthetic.suites import SUITES, SuiteDef, get_suite
from causalarena.sortability import r2_sortability, varsortability
from causalarena.spec import SCMSpec

SETTINGS = ("obs", "obsint")


@dataclass(frozen=True)
class AuditedSCM:
    """A spec that passed every gate, with the tables sampled while auditing it."""

    spec: SCMSpec
    attempts: int
    rejections: list[str]
    tables: dict[tuple[str, int], Table]


def data_seed(suite: SuiteDef, index: int, setting: str, replicate: int) -> np.random.SeedSequence:
    """Seed of one dataset: keyed by suite, generator revision, SCM index, setting, replicate."""
    return np.random.SeedSequence(
        suite.seed,
        spawn_key=(
            suite_key(suite.name),
            GENERATOR_REV,
            index,
            2,
            SETTINGS.index(setting),
            replicate,
        ),
    )


def sample_dataset(
    suite: SuiteDef, spec: SCMSpec, index: int, setting: str, replicate: int
) -> Table:
    """Sample one dataset of an SCM (the ``obs`` or ``obsint`` split, paper B.1)."""
    n_obs, n_int = (suite.n_obs, 0) if setting == "obs" else suite.n_obsint
    return sample(
        spec,
        n_obs,
        n_int,
        data_seed(suite, index, setting, replicate),
        counterfactual_check=n_int > 0,
    )


def audited_scm(suite: SuiteDef, index: int) -> AuditedSCM:
    """Draw SCM ``index`` and redraw it (attempt + 1) until every gate passes (paper A.2).

    All ``suite.replicates`` replicates of both settings are audited whatever scale is being
    written, so SCM ``index`` is the same at every scale.

    Raises
    ------
    AuditError
        If no candidate passes within ``suite.max_attempts`` (the message lists the reasons).
    """
    rejections: list[str] = []
    for attempt in range(suite.max_attempts):
        try:
            spec = draw_spec(
                suite.seed, index, attempt, suite=suite.name, scms_per_block=suite.scms_per_block
            )
        except (_Reject, SpecError) as exc:
            rejections.append(f"attempt {attempt}: {exc}")
            continue
        reasons = audit_graph(spec)
        tables: dict[tuple[str, int], Table] = {}
        if not reasons:
            for setting in SETTINGS:
                for rep in range(suite.replicates):
                    try:
                        t = sample_dataset(suite, spec, index, setting, rep)
                    except SpecError as exc:
                        reasons = [f"{setting}: {exc} (replicate {rep})"]
                        break
                    reasons = [f"{r} (replicate {rep})" for r in audit_table(spec, t)]
                    if reasons:
                        break
                    tables[(setting, rep)] = t
                if reasons:
                    break
        if not reasons:
            return AuditedSCM(spec, attempt + 1, rejections, tables)
        rejections.append(f"attempt {attempt}: " + "; ".join(reasons[:3]))
    raise AuditError(
        f"{suite.name} SCM {index}: no candidate passed the audit in "
        f"{suite.max_attempts} attempts; last reasons: {rejections[-3:]}"
    )


def rows_for(suite: SuiteDef, scm: AuditedSCM, replicates: int) -> dict[str, dict[str, list]]:
    """Column-wise rows of one SCM for each config (``replicates`` replicates per setting)."""
    spec = scm.spec
    meta = spec.metadata
    A = spec.adjacency()
    tags = node_tags(spec)
    out: dict[str, dict[str, list]] = {}
    for setting, config in zip(SETTINGS, suite.configs, strict=True):
        cols: dict[str, list] = {name: [] for name in ROW_SCHEMA.names}
        for rep in range(replicates):
            t = scm.tables[(setting, rep)]
            obs = t.X[: t.n_obs]
            values = {
                "instance_id": f"{spec.scm_id}/{setting}/r{rep}",
                "scm_id": spec.scm_id,
                "scm_index": meta["index"],
                "setting": setting,
                "replicate": rep,
                "family": spec.family,
                "graph_family": meta["graph_family"],
                "d": spec.d,
                "n_edges": int(A.sum()),
                **tags,
                "root_dependency": meta["root_dependency"],
                "difficulty": meta["difficulty"],
                "n_obs": t.n_obs,
                "n_int": t.n_int,
                "variables": t.names,
                "X": t.X,
                "mask": t.mask,
                "adjacency": A,
                "intervention_targets": list(spec.intervention.targets),
                "varsortability": varsortability(obs, A),
                "r2_sortability": r2_sortability(obs, A),
                "audit_attempts": scm.attempts,
                "audit_reasons": scm.rejections,
                "spec": spec.to_json(),
            }
            for k, v in values.items():
                cols[k].append(v)
        out[config] = cols
    return out


def configs(suite: str) -> list[Config]:
    """``<family>-obs`` and ``<family>-obsint``, both with :data:`ROW_SCHEMA`."""
    sdef = get_suite(suite)
    obs, obsint = sdef.configs
    return [
        Config(obs, ROW_SCHEMA, f"{sdef.n_obs} observational rows per instance"),
        Config(
            obsint,
            ROW_SCHEMA,
            f"{sdef.n_obsint[0]} observational + {sdef.n_obsint[1]} interventional rows",
        ),
    ]


def units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One unit per ``(graph family, d)`` block, in pool order."""
    sdef = get_suite(suite)
    sdef.get_scale(scale)
    return [
        Unit(sdef.name, sdef.version, sdef.seed, scale, f"block-{b:03d}", {"block": b})
        for b in range(len(sdef.blocks()))
    ]


def sizes(suite: str, scale: str) -> dict[str, int]:
    """Public instances per config at ``scale``: blocks x public SCMs per block x replicates."""
    sdef = get_suite(suite)
    sc = sdef.get_scale(scale)
    n = len(sdef.blocks()) * sc.public_per_block * sc.replicates
    return {c.name: n for c in configs(suite)}


def shard_d(unit: Unit) -> int:
    """``d`` of the unit's block: shards hold one ``d`` each (the card's fixed-d views)."""
    return int(get_suite(unit.suite).blocks()[int(unit.params["block"])][1])


def run_unit(unit: Unit) -> UnitResult:
    """Audit the block's public SCMs of the scale; return their rows per config."""
    suite = get_suite(unit.suite)
    sc = suite.get_scale(unit.scale)
    block = int(unit.params["block"])
    scms = [audited_scm(suite, i) for i in suite.public_indices(block, unit.scale)]
    per_config: dict[str, dict[str, list]] = {}
    for scm in scms:
        for config, cols in rows_for(suite, scm, sc.replicates).items():
            acc = per_config.setdefault(config, {k: [] for k in cols})
            for k, v in cols.items():
                acc[k].extend(v)
    return UnitResult(
        tables={c: to_arrow(cols) for c, cols in per_config.items()},
        audit=[
            {"scm_id": s.spec.scm_id, "attempts": s.attempts, "rejections": s.rejections}
            for s in scms
        ],
    )


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """Generator revision and suite definition recorded in the manifest."""
    sdef = get_suite(suite)
    return {
        "generator_rev": GENERATOR_REV,
        "definition": {
            "scms_per_block": sdef.scms_per_block,
            "public_per_block": sdef.public_per_block,
            "replicates": sdef.get_scale(scale).replicates,
            "n_obs": sdef.n_obs,
            "n_obsint": list(sdef.n_obsint),
            "max_attempts": sdef.max_attempts,
        },
    }


def text(suite: str) -> CardText:
    """The card prose (:mod:`.card`); the coverage and audit tables are counted from the
    shards by :mod:`causalarena.release.metadata`."""
    from causalarena.generator.synthetic import card

    return CardText(
        pretty_name=f"CausalArena {suite}",
        summary=card.SUMMARY,
        tags=card.TAGS,
        intended_uses=card.INTENDED_USES,
        out_of_scope_uses=card.OUT_OF_SCOPE,
        overlap_guidance=card.OVERLAP_GUIDANCE,
        limitations=card.LIMITATIONS,
        changelog=card.CHANGELOG,
    )


FAMILY = Family(
    name="synthetic",
    suites={n: SuiteInfo(n, s.version, s.seed, tuple(s.scales)) for n, s in SUITES.items()},
    configs=configs,
    units=units,
    run_unit=run_unit,
    header=header,
    text=text,
    shard_d=shard_d,
    sizes=sizes,
    parquet_options={"compression": "zstd", "compression_level": 3, "row_group_size": 64},
)


# ------------------------------------------------------------------ reserved half
def reserved_units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One unit per reserved SCM, in pool order; its entropy name is ``scm/<index>``.

    ``full``: every reserved SCM of every block; ``mini``: the first ``public_per_block``
    reserved SCMs of each block, matching the public subset's size.
    """
    s = get_suite(suite)
    per_block = None if scale == "full" else s.get_scale(scale).public_per_block
    out = []
    for b in range(len(s.blocks())):
        for k in s.reserved_positions(b)[:per_block]:
            i = b * s.scms_per_block + k
            params = {"block": b, "position": k, "scm_index": i, "entropy_name": f"scm/{i}"}
            out.append(Unit(suite, s.version, None, scale, f"scm-{i:06d}", params))
    return out


def run_reserved(unit: Unit, ss: Any) -> UnitResult:
    """Draw one reserved SCM with the suite seed replaced by the key-derived entropy."""
    import dataclasses

    from causalarena.generator.rows import to_arrow

    s = get_suite(unit.suite)
    sec = dataclasses.replace(s, seed=ss.entropy)
    i = int(unit.params["scm_index"])
    scm = audited_scm(sec, i)
    cols = rows_for(sec, scm, s.get_scale(unit.scale).replicates)
    return UnitResult(tables={c: to_arrow(v) for c, v in cols.items()}, audit=[])


def reserved_instances(config: str, table: Any):
    """``(instance_id, spec_json, X, mask)`` of each row (the commitment's input)."""
    import numpy as np

    for row in table.select(["instance_id", "spec", "variables", "X", "mask"]).to_pylist():
        d = len(row["variables"])
        yield (
            row["instance_id"],
            row["spec"],
            np.asarray(row["X"], dtype=np.float32).reshape(-1, d),
            np.asarray(row["mask"], dtype=bool).reshape(-1, d),
        )


from dataclasses import replace as dataclasses_replace  # noqa: E402

FAMILY = dataclasses_replace(
    FAMILY,
    reserved_units=reserved_units,
    run_reserved=run_reserved,
    reserved_instances=reserved_instances,
)
