"""The temporal ``dot-*`` suites as a release family (see :mod:`causalarena.family`).

Suites: every ``dot-*`` suite of :data:`~causalarena.generator.temporal.suites.TEMPORAL_SUITES`
(one config each, named after the suite) and ``dot-all`` (all of them in one folder).  One work
unit per block of public pool indices (``<suite>-KKKKK``, the suite's ``shard_size`` episodes
at the scale); a unit generates its episodes (:func:`generate_suite_episodes`) and returns them
as one Arrow table with :data:`EPISODE_SCHEMA`.  The Zarr store of each config
(``zarr/<config>.zarr``) is filled from the finished shards by
:func:`~causalarena.generator.temporal.storage.write_zarr` through the engine's ``arrays``
hook.  Versions are ``X.Y.Z``.
"""

from __future__ import annotations

from typing import Any

from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.temporal import suites as S
from causalarena.generator.temporal.storage import EPISODE_SCHEMA, PARQUET_OPTIONS

ALL = "dot-all"
SCALES = ("mini", "full")


def members(suite: str) -> list[S.TemporalSuite]:
    """The temporal suites a build of ``suite`` writes (all of them for ``dot-all``)."""
    if suite == ALL:
        return list(S.TEMPORAL_SUITES.values())
    return [S.get_temporal_suite(suite)]


def _version(suite: str) -> str:
    versions = sorted({s.version for s in members(suite)})
    return versions[0] if len(versions) == 1 else "+".join(versions)


def configs(suite: str) -> list[Config]:
    """One config per member suite, all with :data:`EPISODE_SCHEMA`."""
    return [Config(s.config, EPISODE_SCHEMA, s.description) for s in members(suite)]


def sizes(suite: str, scale: str) -> dict[str, int]:
    """Public episodes per config at ``scale`` (each member suite's declared count)."""
    return {s.config: s.get_scale(scale) for s in members(suite)}


def units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One unit per block of ``shard_size`` public indices of each member suite."""
    seed = None if suite == ALL else S.get_temporal_suite(suite).seed
    out = []
    for s in members(suite):
        s.get_scale(scale)
        for k in range(len(s.shards(scale))):
            out.append(
                Unit(
                    suite,
                    _version(suite),
                    seed,
                    scale,
                    f"{s.name}-{k:05d}",
                    {"suite": s.name, "shard": k},
                )
            )
    return out


def run_unit(unit: Unit) -> UnitResult:
    """Generate the unit's episodes and return them as one table of its suite's config."""
    from causalarena.generator.temporal.storage import episodes_to_arrow

    s = S.get_temporal_suite(str(unit.params["suite"]))
    idx = s.shards(unit.scale)[int(unit.params["shard"])]
    eps = S.generate_suite_episodes(s, idx)
    return UnitResult(
        tables={s.config: episodes_to_arrow(eps)},
        audit=[{"index": e.index, "attempts": e.attempt + 1} for e in eps],
    )


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """Definition of every member suite recorded in the manifest."""
    return {
        "definition": {
            s.name: {
                "version": s.version,
                "seed": s.seed,
                "episodes": s.get_scale(scale),
                "pool": s.pool_size,
                "T": s.T,
                "generator": s.family,
                "options": {
                    k: list(v) if isinstance(v, tuple) else v for k, v in s.options.items()
                },
                "shard_size": s.shard_size[scale],
            }
            for s in members(suite)
        },
    }


def arrays(suite: str, config: str, shard_paths: list, store_path: Any) -> None:
    """Fill the config's Zarr store at ``store_path`` from its finished Parquet shards."""
    from causalarena.generator.temporal.storage import write_zarr

    write_zarr(store_path, list(shard_paths))


def _shares(rows: list[dict], key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        for m in r.get(key) or ():
            out[m] = out.get(m, 0) + 1
    return out


def mechanism_shares(scm_json: list[str]) -> dict[str, dict[str, float]]:
    """Realised mechanism shares of released SCMs against their prior.

    Returns ``{mechanism: {"prior": p, "drawn": d, "realised": r}}``: ``prior`` the prior share
    (uniform over the prior's mechanism set, DoTime section 3.3), ``drawn`` the share among
    the mechanisms drawn before the ``square`` feedback rule (``metadata.mechanisms_drawn``;
    NaN where not recorded), ``realised`` the share among the mechanisms of every node (of
    every regime, for SCMs with ``regimes``).
    """
    import json

    from causalarena.generator.temporal.structures import DOTIME_STRUCTURE_MECHANISMS
    from causalarena.spec_temporal import MECHANISMS

    real: list[dict] = []
    for js in scm_json:
        d = json.loads(js)
        regs = (d.get("regimes") or {}).get("regimes") or [d]
        m = [x for g in regs for x in g["mechanisms"]]
        real.append({"m": m, "d": d.get("metadata", {}).get("mechanisms_drawn")})
    r, dr = _shares(real, "m"), _shares(real, "d")
    structured = all(m in DOTIME_STRUCTURE_MECHANISMS or m == "linear" for m in r) and not dr
    space = DOTIME_STRUCTURE_MECHANISMS if structured else MECHANISMS
    nr, nd = max(sum(r.values()), 1), sum(dr.values())
    return {
        m: {
            "prior": 1.0 / len(space) if m in space else 0.0,
            "drawn": dr.get(m, 0) / nd if nd else float("nan"),
            "realised": r.get(m, 0) / nr,
        }
        for m in sorted(set(space) | set(r))
    }


def _design_section(s: S.TemporalSuite, table: Any) -> str:
    rows = table.select(["structure", "pair_mode", "scm"]).to_pylist() if table is not None else []
    lines = []
    if s.dotime:
        lines.append(f"Reproduces **{s.dotime}** (DoTime). DoTime's design:")
        lines += [f"- {d}" for d in s.dotime_design]
        lines.append("")
        lines.append("Where this suite deliberately differs:")
        lines += [f"- {d}" for d in s.deviations]
    else:
        lines.append(f"No DoTime namesake. {s.description}")
        for v in S.NOT_REPRODUCED.values():
            if s.name in v:
                lines.append(f"- {v}.")
    o = s.options
    lines += [
        "",
        f"Full scale: {s.scales['full']:,} public episodes (T = {s.T}); pair mode "
        f"{o.get('pair_mode', 'counterfactual')}; query protocol {o.get('query', 'offsets')}; "
        f"prior {o.get('prior', 'default')}.",
    ]
    if rows:
        cnt: dict[tuple, int] = {}
        for r in rows:
            key = (r["structure"], r["pair_mode"])
            cnt[key] = cnt.get(key, 0) + 1
        lines += [
            "",
            "| structure / type | pair mode | episodes in this release |",
            "|---|---|---|",
        ]
        lines += [f"| {k[0]} | {k[1]} | {v} |" for k, v in sorted(cnt.items())]
        sh = mechanism_shares([r["scm"] for r in rows])
        lines += [
            "",
            "Mechanism shares (all nodes of the released SCMs; `drawn` = before the `square` "
            "feedback rule):",
            "",
            "| mechanism | prior | drawn | realised |",
            "|---|---|---|---|",
        ]
        for m, v in sh.items():
            d = "-" if v["drawn"] != v["drawn"] else f"{v['drawn']:.3f}"
            lines.append(f"| {m} | {v['prior']:.3f} | {d} | {v['realised']:.3f} |")
    return "\n".join(lines)


def sections(tables: Any) -> list[tuple[str, str]]:
    """Card sections: each member suite's design beside DoTime's, with realised counts and
    mechanism shares computed from the written rows."""
    out = []
    for name in sorted(tables):
        if name in S.TEMPORAL_SUITES:
            s = S.TEMPORAL_SUITES[name]
            out.append((f"Design of {name}", _design_section(s, tables[name])))
    return out


def text(suite: str) -> CardText:
    """Card and Croissant prose of a temporal release."""
    return CardText(
        pretty_name=f"CausalArena {suite}",
        summary=(
            "Paired factual / intervened multivariate trajectories from random temporal "
            "structural causal models, with the intervention, the query (the suite's query "
            "protocol: a graph descendant of the intervened variable, or the outcome of a "
            "named structure, at offsets after onset) and the exact target y_true. Counterfactual "
            "pairs share their exogenous noise; interventional pairs draw the intervened arm "
            "with independent noise (pair_mode column; each suite's design section says which). "
            "The same trajectories are in zarr/<config>.zarr for xarray.open_zarr."
        ),
        tags=("benchmark", "time-series", "counterfactual", "interventional-data"),
        task_categories=("other",),
        intended_uses=(
            "Benchmarking interventional and counterfactual effect estimation on time series "
            "with exact targets, sliced by identification structure.",
            "Benchmarking temporal graph recovery (instantaneous and lagged edges).",
        ),
        out_of_scope_uses=("Claims about real-world systems: every episode is simulated.",),
        overlap_guidance=(
            "Half of each suite's index pool is reserved and not released; disclose any use "
            "of the public episodes or the generator in pretraining.",
        ),
        limitations=(
            "Simulated temporal SCMs with the mechanism families of the generator only.",
            "Reference graphs show edges among released variables; edges through hidden "
            "variables are not shown.",
        ),
        sections=sections,
        section_columns=("structure", "pair_mode", "scm"),
    )


def reserved_units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One unit per block of ``shard_size`` reserved indices of each member suite."""
    seed = None if suite == ALL else S.get_temporal_suite(suite).seed
    out = []
    for s in members(suite):
        idx = s.reserved_indices(scale)
        size = s.shard_size[scale]
        for k in range(0, len(idx), size):
            out.append(
                Unit(
                    suite,
                    _version(suite),
                    seed,
                    scale,
                    f"{s.name}-reserved-{k // size:05d}",
                    {"suite": s.name, "indices": idx[k : k + size]},
                )
            )
    return out


def run_reserved(unit: Unit, ss: Any) -> UnitResult:
    """Draw the unit's reserved episodes from the key-derived SeedSequence ``ss``."""
    from causalarena.generator.temporal.storage import episodes_to_arrow

    s = S.get_temporal_suite(str(unit.params["suite"]))
    eps = S.generate_suite_episodes(s, [int(i) for i in unit.params["indices"]], ss)
    return UnitResult(
        tables={s.config: episodes_to_arrow(eps)},
        audit=[{"index": e.index, "attempts": e.attempt + 1} for e in eps],
    )


_ARRAYS = ("x_obs", "mask")


def reserved_instances(config: str, table: Any):
    """``(episode_id, spec_json, X, mask)`` per row: ``X`` is ``x_obs`` (T, d) float32,
    ``mask`` its (T, d) observation mask, every other column in ``spec_json`` (sorted keys)."""
    import json

    import numpy as np

    for row in table.to_pylist():
        X = np.asarray(row["x_obs"], dtype=np.float32)
        m = row.get("mask")
        mask = np.asarray(m, dtype=bool) if m else np.ones(X.shape, dtype=bool)
        if mask.shape != X.shape:
            mask = np.ones(X.shape, dtype=bool)
            rest = {k: v for k, v in row.items() if k != "x_obs"}
        else:
            rest = {k: v for k, v in row.items() if k not in _ARRAYS}
        yield row["episode_id"], json.dumps(rest, sort_keys=True), X, mask


FAMILY = Family(
    name="temporal",
    suites={
        **{n: SuiteInfo(n, s.version, s.seed, SCALES) for n, s in S.TEMPORAL_SUITES.items()},
        ALL: SuiteInfo(ALL, _version(ALL), None, SCALES),
    },
    configs=configs,
    units=units,
    run_unit=run_unit,
    header=header,
    text=text,
    arrays=arrays,
    sizes=sizes,
    reserved_units=reserved_units,
    run_reserved=run_reserved,
    reserved_instances=reserved_instances,
    parquet_options=PARQUET_OPTIONS,
)
