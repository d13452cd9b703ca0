"""The protocol-sensitivity suites as one release family (see :mod:`causalarena.family`).

One work unit per SCM (``scm-IIII``, ``IIII`` = its ``arena-synthetic`` pool index): the unit
re-derives the audited synthetic SCM (:func:`causalarena.generator.synthetic.family.audited_scm`,
the same spec the synthetic suite publishes), then

- ``arena-samplesize``: samples 10,000 observational rows once and writes its first n rows to
  ``samplesize-n<n>`` for every n of :data:`~.suites.N_GRID` (nested by construction); every
  prefix passes the dataset gates of appendix A.2, else the sample is redrawn (data attempt + 1);
- ``arena-protocols``: builds the SCM under each protocol (:func:`~.protocols.protocol_spec`) and
  samples it with ``counterfactual_check``; a variant failing a gate is redrawn (attempt + 1).
  All protocols of an SCM share one data seed per attempt (paired design).

Rows: :data:`PROTOCOL_ROW_SCHEMA`, the synthetic row schema plus the slice columns ``n``
(rows per instance, ``n_obs + n_int``) and ``protocol`` (``"observational"`` in the sample-size
suite).  ``scm_id`` is the synthetic pool's id, the same in every config; ``family`` is
``samplesize`` or ``protocols`` (kept out of the Table 2 cells of the report).  The SCM of a
synthetic index is the audited synthetic draw, so it needs the synthetic generator only; each
unit is a pure function of ``(suite, version, seed, unit)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.errors import AuditError, SpecError
from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.audit import audit_table
from causalarena.generator.protocols.protocols import PROTOCOLS, Protocol, protocol_spec
from causalarena.generator.protocols.suites import N_GRID, POOL_SUITE, SUITES, D, get_suite
from causalarena.generator.rows import ROW_SCHEMA, _nested
from causalarena.generator.sample import Table, _stream, sample
from causalarena.generator.synthetic.draw import GENERATOR_REV as SYNTHETIC_REV
from causalarena.generator.synthetic.draw import node_tags, suite_key
from causalarena.generator.synthetic.family import audited_scm
from causalarena.generator.synthetic.suites import get_suite as get_synthetic
from causalarena.sortability import r2_sortability, varsortability
from causalarena.spec import SCMSpec

GENERATOR_REV = 1
#: The synthetic row schema plus the two slice columns of these suites.
PROTOCOL_ROW_SCHEMA = pa.schema(
    list(ROW_SCHEMA) + [pa.field("n", pa.int32()), pa.field("protocol", pa.string())]
)
OBSERVATIONAL = "observational"


def config_name(suite: str, value: int | str) -> str:
    """``samplesize-n<n>`` or ``protocols-<protocol>``."""
    kind = get_suite(suite).kind
    return f"samplesize-n{value}" if kind == "samplesize" else f"protocols-{value}"


def configs(suite: str) -> list[Config]:
    """One config per n (sample-size suite) or per protocol, all with the same schema."""
    s = get_suite(suite)
    if s.kind == "samplesize":
        return [
            Config(config_name(suite, n), PROTOCOL_ROW_SCHEMA, f"{n} observational rows, d = {D}")
            for n in N_GRID
        ]
    return [
        Config(config_name(suite, p.name), PROTOCOL_ROW_SCHEMA, f"{p.label}: {p.description}")
        for p in PROTOCOLS
    ]


def units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One unit per SCM, in pool order."""
    s = get_suite(suite)
    opts = dict(options or {})
    return [
        Unit(s.name, s.version, s.seed, scale, f"scm-{i:04d}", {"index": i, **opts})
        for i in s.pool(scale, opts)
    ]


def sizes(suite: str, scale: str) -> dict[str, int]:
    """Public instances per config at ``scale``: one row per SCM in every config."""
    n = len(get_suite(suite).pool(scale))
    return {c.name: n for c in configs(suite)}


def data_seed(suite: str, index: int, attempt: int) -> np.random.SeedSequence:
    """Seed of an SCM's data in a suite, keyed by suite, revision, pool index, attempt."""
    s = get_suite(suite)
    return np.random.SeedSequence(
        s.seed, spawn_key=(suite_key(suite), GENERATOR_REV, index, attempt, 0)
    )


def instance_row(
    spec: SCMSpec,
    t: Table,
    *,
    family: str,
    setting: str,
    n: int,
    protocol: str,
    instance: str,
    attempts: int,
    reasons: list[str],
) -> dict[str, Any]:
    """One row of :data:`PROTOCOL_ROW_SCHEMA` for ``spec`` sampled as ``t`` (numpy arrays in
    the matrix columns, ``spec`` as JSON)."""
    A = spec.adjacency()
    meta = spec.metadata
    obs = t.X[: t.n_obs]
    return {
        "instance_id": instance,
        "scm_id": spec.scm_id,
        "scm_index": meta["index"],
        "setting": setting,
        "replicate": 0,
        "family": family,
        "graph_family": meta["graph_family"],
        "d": spec.d,
        "n_edges": int(A.sum()),
        **node_tags(spec),
        "root_dependency": meta["root_dependency"],
        "difficulty": meta["difficulty"],
        "n_obs": t.n_obs,
        "n_int": t.n_int,
        "variables": t.names,
        "X": t.X,
        "mask": t.mask,
        "adjacency": A,
        "intervention_targets": list(spec.intervention.targets) if spec.intervention else [],
        "varsortability": varsortability(obs, A),
        "r2_sortability": r2_sortability(obs, A),
        "audit_attempts": attempts,
        "audit_reasons": reasons,
        "spec": spec.to_json(),
        "n": n,
        "protocol": protocol,
    }


def prefix(t: Table, n: int) -> Table:
    """The first ``n`` rows of an observational table (the nested sample of size ``n``)."""
    return Table(
        X=t.X[:n],
        mask=t.mask[:n],
        adjacency=t.adjacency,
        names=t.names,
        n_obs=n,
        n_int=0,
        diagnostics={"clip_bounds": t.diagnostics.get("clip_bounds", {})},
    )


def nested_sample(
    spec: SCMSpec,
    seed_of: Callable[[int], np.random.SeedSequence],
    max_attempts: int,
    sizes: Sequence[int] = N_GRID,
) -> tuple[Table | None, int, list[str]]:
    """One ``max(sizes)``-row observational sample whose every prefix of a size in ``sizes``
    passes the dataset gates (paper A.2), redrawn with ``seed_of(attempt)`` until one does.

    Returns
    -------
    tuple
        ``(table, attempts, rejections)``; ``table`` is None when no attempt passed.
    """
    rejections: list[str] = []
    for attempt in range(max_attempts):
        t = sample(spec, max(sizes), 0, seed_of(attempt))
        reasons = [f"n={n}: {r}" for n in sizes for r in audit_table(spec, prefix(t, n))]
        if not reasons:
            return t, attempt + 1, rejections
        rejections.append(f"data attempt {attempt}: " + "; ".join(reasons[:3]))
    return None, max_attempts, rejections


def audited_variant(
    spec: SCMSpec,
    protocol: Protocol,
    rng_of: Callable[[int], np.random.Generator],
    seed_of: Callable[[int], np.random.SeedSequence],
    max_attempts: int,
) -> tuple[SCMSpec | None, Table | None, int, list[str]]:
    """``spec`` under ``protocol`` (:func:`~.protocols.protocol_spec` with ``rng_of(attempt)``)
    and its obs+int sample (``seed_of(attempt)``, with ``counterfactual_check``), redrawn until
    the variant is valid and its table passes the gates (paper A.2).

    Returns
    -------
    tuple
        ``(variant, table, attempts, rejections)``; ``variant`` and ``table`` are None when no
        attempt passed.
    """
    p = protocol
    rejections: list[str] = []
    for attempt in range(max_attempts):
        rng = rng_of(attempt)
        try:
            var = protocol_spec(spec, p, rng)
            t = sample(var, p.n_obs, p.n_int, seed_of(attempt), counterfactual_check=True)
        except SpecError as exc:
            rejections.append(f"{p.name} attempt {attempt}: {exc}")
            continue
        reasons = audit_table(var, t)
        if not reasons:
            return var, t, attempt + 1, rejections
        rejections.append(f"{p.name} attempt {attempt}: " + "; ".join(reasons[:3]))
    return None, None, max_attempts, rejections


def samplesize_rows(suite: str, spec: SCMSpec) -> tuple[dict[str, dict[str, Any]], dict]:
    """Rows of one SCM for every ``samplesize-n<n>`` config (see module docstring).

    Raises
    ------
    AuditError
        No data attempt passes the gates at every n within ``max_attempts``.
    """
    s = get_suite(suite)
    index = int(spec.metadata["index"])
    t, attempts, rejections = nested_sample(
        spec, lambda a: data_seed(suite, index, a), s.max_attempts
    )
    if t is None:
        raise AuditError(
            f"{suite} SCM {spec.scm_id}: no sample passed the gates at every n in "
            f"{s.max_attempts} attempts; last reasons: {rejections[-3:]}"
        )
    rows = {}
    for n in N_GRID:
        r = instance_row(
            spec,
            prefix(t, n),
            family=s.kind,
            setting="obs",
            n=n,
            protocol=OBSERVATIONAL,
            instance=f"{spec.scm_id}/n{n}/r0",
            attempts=attempts,
            reasons=rejections,
        )
        rows[config_name(suite, n)] = r
    return rows, {"scm_id": spec.scm_id, "attempts": attempts, "rejections": rejections}


def protocol_rows(suite: str, spec: SCMSpec) -> tuple[dict[str, dict[str, Any]], list[dict]]:
    """Rows of one SCM for every ``protocols-<name>`` config (see module docstring).

    Raises
    ------
    AuditError
        A protocol variant fails the gates in every one of ``max_attempts`` attempts.
    """
    s = get_suite(suite)
    index = int(spec.metadata["index"])
    rows, audit = {}, []
    for k, p in enumerate(PROTOCOLS):
        var, t, attempts, rejections = audited_variant(
            spec,
            p,
            lambda a, k=k: _stream(s.seed, suite_key(suite), GENERATOR_REV, index, a, 1, k),
            lambda a: data_seed(suite, index, a),
            s.max_attempts,
        )
        if var is None:
            raise AuditError(
                f"{suite} SCM {spec.scm_id}: protocol {p.name} failed the gates in "
                f"{s.max_attempts} attempts; last reasons: {rejections[-3:]}"
            )
        r = instance_row(
            var,
            t,
            family=s.kind,
            setting="obsint",
            n=p.n_obs + p.n_int,
            protocol=p.name,
            instance=f"{spec.scm_id}/{p.name}/r0",
            attempts=attempts,
            reasons=rejections,
        )
        rows[config_name(suite, p.name)] = r
        audit.append(
            {
                "scm_id": spec.scm_id,
                "protocol": p.name,
                "attempts": attempts,
                "rejections": rejections,
            }
        )
    return rows, audit


def pool_spec(index: int) -> SCMSpec:
    """The audited ``arena-synthetic`` SCM of pool index ``index``."""
    return audited_scm(get_synthetic(POOL_SUITE), index).spec


def _to_arrow(rows: list[dict[str, Any]]) -> pa.Table:
    arrays = []
    for f in PROTOCOL_ROW_SCHEMA:
        vals = [r[f.name] for r in rows]
        if f.name in ("X", "mask", "adjacency"):
            arrays.append(_nested(vals, f.type.value_type.value_type))
        else:
            arrays.append(pa.array(vals, type=f.type))
    return pa.Table.from_arrays(arrays, schema=PROTOCOL_ROW_SCHEMA)


def run_unit(unit: Unit) -> UnitResult:
    """Rows of one SCM for every config of the suite."""
    spec = pool_spec(int(unit.params["index"]))
    if get_suite(unit.suite).kind == "samplesize":
        rows, audit = samplesize_rows(unit.suite, spec)
        audit = [audit]
    else:
        rows, audit = protocol_rows(unit.suite, spec)
    return UnitResult(tables={c: _to_arrow([r]) for c, r in rows.items()}, audit=audit)


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """Pool, n grid or protocols, and options, recorded in the manifest."""
    s = get_suite(suite)
    synth = get_synthetic(POOL_SUITE)
    out: dict[str, Any] = {
        "generator_rev": GENERATOR_REV,
        "definition": {
            "pool": {
                "suite": POOL_SUITE,
                "version": synth.version,
                "seed": synth.seed,
                "generator_rev": SYNTHETIC_REV,
                "d": D,
                "scms_per_graph_family": s.get_scale(scale),
                "scm_indices": s.pool(scale, dict(options or {})),
            },
            "max_attempts": s.max_attempts,
        },
    }
    if s.kind == "samplesize":
        out["definition"]["n"] = list(N_GRID)
        out["definition"]["nested"] = True
    else:
        out["definition"]["protocols"] = {
            p.name: {
                "n_obs": p.n_obs,
                "n_int": p.n_int,
                "modes": list(p.modes),
                "structural_targets": p.structural,
                "targets_per_row": list(p.targets_per_row),
            }
            for p in PROTOCOLS
        }
    if options:
        out["options"] = dict(options)
    return out


def text(suite: str) -> CardText:
    """Card prose of the two suites."""
    s = get_suite(suite)
    if s.kind == "samplesize":
        summary = (
            "Sample-size sensitivity suite: the d = 30 synthetic SCMs observed at n = 100 to "
            "10,000 rows, nested (a larger n extends every smaller n)."
        )
        usage = (
            "Each config `samplesize-n<n>` holds one row per SCM with the first n rows of the "
            "same 10,000-row sample; score every config and plot F1 against `n` (paper Fig. 6a)."
        )
    else:
        summary = (
            "Intervention-protocol sensitivity suite: the same d = 30 synthetic SCMs under six "
            "intervention protocols (default, fixed setpoint, parameter shift, high fraction, "
            "multi-target, dense mixed)."
        )
        usage = (
            "Each config `protocols-<name>` holds one obs+int instance per SCM; `mask` marks "
            "intervened cells: a set value (resampling, fixed setpoint) or a changed mechanism "
            "(parameter shift: the value is computed from the row's parents). Compare each "
            "protocol with `protocols-default` on the same `scm_id` (paper Table 3)."
        )
    return CardText(
        pretty_name=f"CausalArena {suite}",
        summary=summary,
        tags=("causal-discovery", "structural-causal-models", "benchmark", "synthetic"),
        usage=usage,
        limitations=(
            "All SCMs have d = 30 and come from the public half of the synthetic pool; "
            "they are not held out from arena-synthetic.",
        ),
    )


FAMILY = Family(
    name="protocols",
    suites={n: SuiteInfo(n, s.version, s.seed, tuple(s.scales)) for n, s in SUITES.items()},
    configs=configs,
    units=units,
    run_unit=run_unit,
    header=header,
    sizes=sizes,
    text=text,  # no shard_d: every row has d = 30, fixed-d views would repeat the configs
    code=("generator/protocols", "generator/synthetic", "generator/sample.py", "spec.py"),
)
