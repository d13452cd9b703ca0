"""The semantic and formula pools as release families (``arena-semantic``, ``arena-formula``).

Each shipped scenario file (:mod:`.pool`) is one SCM.  The scenario files in the repository
are the **public** half of a family (paper section 4: "the public package releases half of
each family"); the reserved half is a second set of scenario files that never enters the
repository (see "Reserved half" below).  One work unit per public scenario: it runs the release gate (:mod:`.gate`) and refuses to write a
scenario with a blocking finding, then samples the ``obs`` split (1,000 rows) and the
``obsint`` split (800 + 200 rows) per replicate (mini: 1, full: 5).  ``prepare`` runs the
pool-level anti-template rules over the whole pool of the family and refuses the build on a
blocking finding.

Rows use the synthetic row schema plus ``domain``, ``scenario``, ``variable_meanings``,
``units``, ``edge_rationales`` (``"parent -> child: rationale"``) and, for formula configs,
``equations`` (``"child = expression"``; the relation as written is in the spec metadata).

Reserved half: the maintainers keep the reserved scenario files in a private folder named
by the environment variable ``CAUSALARENA_RESERVED_SCENARIOS`` (:data:`RESERVED_ENV`), laid out
like the package's: ``<folder>/<family>/<domain>/<id>.yaml``.  It is read only by the keyed
commands (``build SUITE --reserved-key``, ``release freeze --reserved-key``, ``verify
--reveal``); public builds and ``verify --rebuild`` never look at it.  A folder inside the
package, a reserved id equal to a public one, or a reserved file byte-identical to a public
one is refused.  One reserved unit per file, in sorted order (``reserved-NNNN``); its rows
are sampled exactly like public ones, with the data seeds drawn from the key-derived
SeedSequence (entropy name ``scenario/<domain>/<id>``) instead of the suite seed, and the
scenario's SCM id replaced by ``<family>-reserved-NNNN`` so the public commitments (instance
ids, unit keys) do not tell which scenario a reserved instance is; the file's name and sha256
are private unit parameters (kept out of the manifest).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.errors import AuditError
from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.rows import ROW_SCHEMA, _nested

GENERATOR_REV = 1


def suite_key(name: str) -> int:
    """Stable 32-bit key of a suite name (CRC-32), used in every seed spawn key."""
    return zlib.crc32(name.encode())


SETTINGS = ("obs", "obsint")
N_OBS, N_OBSINT = 1000, (800, 200)
REPLICATES = {"mini": 1, "full": 5}
SUITE_SEEDS = {"semantic": 20260211, "formula": 20260212}
VERSION = "0.1.0"


def row_schema(kind: str) -> pa.Schema:
    """The synthetic row schema plus the scenario columns (``equations`` for formula)."""
    extra = [
        ("domain", pa.string()),
        ("scenario", pa.string()),
        ("variable_meanings", pa.list_(pa.string())),
        ("units", pa.list_(pa.string())),
        ("edge_rationales", pa.list_(pa.string())),
    ]
    if kind == "formula":
        extra.append(("equations", pa.list_(pa.string())))
    return pa.schema(list(ROW_SCHEMA) + [pa.field(n, t) for n, t in extra])


def _kind(suite: str) -> str:
    kind = suite.removeprefix("arena-")
    if kind not in SUITE_SEEDS:
        raise ValueError(f"unknown scenario suite {suite!r}; known: arena-semantic, arena-formula")
    return kind


def pool(kind: str) -> list[str]:
    """Package-relative names (``<domain>/<id>``) of the family's scenario files, sorted."""
    from causalarena.generator.scenario.pool import scenario_files

    return [f"{f.parent.name}/{f.stem}" for f in scenario_files(kind)]


def _path(kind: str, name: str):
    from causalarena.generator.scenario.pool import scenario_root

    return scenario_root(kind) / f"{name}.yaml"


def public_names(suite: str) -> list[str]:
    """The public half: every scenario file in the repository, in release (sorted) order.

    The reserved half is not in the repository (:func:`reserved_files`)."""
    return pool(_kind(suite))


def data_seed(suite: str, index: int, setting: str, replicate: int) -> np.random.SeedSequence:
    """Seed of one dataset, keyed by suite, generator revision, scenario, setting, replicate."""
    kind = _kind(suite)
    return np.random.SeedSequence(
        SUITE_SEEDS[kind],
        spawn_key=(suite_key(suite), GENERATOR_REV, index, SETTINGS.index(setting), replicate),
    )


def configs(suite: str) -> list[Config]:
    kind = _kind(suite)
    schema = row_schema(kind)
    return [
        Config(f"{kind}-obs", schema, f"{N_OBS} observational rows per instance"),
        Config(
            f"{kind}-obsint",
            schema,
            f"{N_OBSINT[0]} observational + {N_OBSINT[1]} interventional rows",
        ),
    ]


def selected_names(suite: str, options: Any = None) -> list[str]:
    """The public scenarios a build writes: all, or the first ``per_domain`` of each domain.

    Build option ``per_domain`` (a positive integer; ``make demo`` uses 1) keeps, per domain,
    the first scenarios in sorted file order: a smoke-test subset whose size does not grow
    with the authored pool.

    Raises
    ------
    ValueError
        ``per_domain`` is not a positive integer.
    """
    names = public_names(suite)
    k = (options or {}).get("per_domain")
    if k is None:
        return names
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"{suite}: build option per_domain must be a positive integer, got {k!r}")
    seen: dict[str, int] = {}
    out = []
    for n in names:
        domain = n.split("/")[0]
        if seen.get(domain, 0) < k:
            seen[domain] = seen.get(domain, 0) + 1
            out.append(n)
    return out


def units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    kind = _kind(suite)
    names = pool(kind)
    return [
        Unit(
            suite,
            VERSION,
            SUITE_SEEDS[kind],
            scale,
            name.replace("/", "."),
            {
                "name": name,
                "index": names.index(name),
                # the file's bytes are part of the resume key (code_sha256 covers .py only)
                "sha256": hashlib.sha256(_path(kind, name).read_bytes()).hexdigest(),
            },
        )
        for name in selected_names(suite, options)
    ]


def _rows(
    suite: str, kind: str, sc, spec, index: int, replicates: int, seeds=None
) -> dict[str, dict]:
    """Rows of one scenario; ``seeds(setting, replicate)`` overrides :func:`data_seed`."""
    from causalarena.generator.sample import sample
    from causalarena.generator.scenario.compile import tag_of
    from causalarena.sortability import r2_sortability, varsortability

    A = spec.adjacency()
    mech = sorted({tag_of(v) for v in sc.variables if v.mechanism is not None})
    noise = sorted({v.noise.family for v in sc.variables if v.mechanism is not None})
    roots = sorted({v.distribution.family for v in sc.variables if v.distribution is not None})
    edges = [f"{p} -> {v.name}: {why}" for v in sc.variables for p, why in v.parents.items()]
    eqs = [
        spec.variables[j].metadata["explicit"]
        for j in range(spec.d)
        if "explicit" in spec.variables[j].metadata
    ]
    out: dict[str, dict[str, list]] = {}
    schema = row_schema(kind)
    for setting in SETTINGS:
        cols: dict[str, list] = {n: [] for n in schema.names}
        for rep in range(replicates):
            n_obs, n_int = (N_OBS, 0) if setting == "obs" else N_OBSINT
            ss = data_seed(suite, index, setting, rep) if seeds is None else seeds(setting, rep)
            t = sample(spec, n_obs, n_int, ss)
            obs = t.X[: t.n_obs]
            values = {
                "instance_id": f"{spec.scm_id}/{setting}/r{rep}",
                "scm_id": spec.scm_id,
                "scm_index": index,
                "setting": setting,
                "replicate": rep,
                "family": kind,
                "graph_family": kind,
                "d": spec.d,
                "n_edges": int(A.sum()),
                "mechanism_tags": mech,
                "noise_tags": noise,
                "root_tags": roots,
                "root_dependency": "independent",
                "difficulty": "clean",
                "n_obs": t.n_obs,
                "n_int": t.n_int,
                "variables": t.names,
                "X": t.X,
                "mask": t.mask,
                "adjacency": A,
                "intervention_targets": list(spec.intervention.targets),
                "varsortability": varsortability(obs, A),
                "r2_sortability": r2_sortability(obs, A),
                "audit_attempts": 1,
                "audit_reasons": [],
                "spec": spec.to_json(),
                "domain": sc.domain,
                "scenario": sc.id,
                "variable_meanings": [v.meaning for v in sc.variables],
                "units": [v.unit for v in sc.variables],
                "edge_rationales": edges,
            }
            if kind == "formula":
                values["equations"] = eqs
            for k, v in values.items():
                cols[k].append(v)
        out[f"{kind}-{setting}"] = cols
    return out


def _to_arrow(cols: dict[str, list], schema: pa.Schema) -> pa.Table:
    arrays = []
    for f in schema:
        v = cols[f.name]
        if f.name in ("X", "mask", "adjacency"):
            arrays.append(_nested(v, f.type.value_type.value_type))
        else:
            arrays.append(pa.array(v, type=f.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def run_unit(unit: Unit) -> UnitResult:
    """Gate one public scenario, then sample its rows (pure function of the unit)."""
    from causalarena.generator.scenario.compile import compile_scenario
    from causalarena.generator.scenario.gate import check_scenario
    from causalarena.generator.scenario.schema import load_scenario

    kind = _kind(unit.suite)
    name = unit.params["name"]
    sc = load_scenario(_path(kind, name))
    rep = check_scenario(sc, name)
    if rep.blocking:
        raise AuditError(
            f"{unit.suite}: scenario {name} fails the release gate: "
            + "; ".join(f"[{f.rule}] {f.variable or '-'}: {f.message}" for f in rep.blocking[:5])
        )
    spec = compile_scenario(sc)
    per = _rows(unit.suite, kind, sc, spec, int(unit.params["index"]), REPLICATES[unit.scale])
    schema = row_schema(kind)
    return UnitResult(
        tables={c: _to_arrow(cols, schema) for c, cols in per.items()},
        audit=[{"scm_id": sc.id, "attempts": 1, "rejections": []}],
    )


def prepare(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """Pool-level gate over the family's whole pool; raises on a blocking finding.

    Only the pool rules decide here (each public scenario's own data gates run in its unit),
    so the files are checked with the structure rules alone (no sampling).
    """
    from causalarena.generator.scenario.gate import check_file, check_pool

    kind = _kind(suite)
    reports, scenarios = [], []
    for name in pool(kind):
        rep, sc = check_file(_path(kind, name), data=False)
        reports.append(rep)
        if sc is not None and rep.graph is not None:
            scenarios.append(sc)
    bad = [f for f in check_pool(reports, scenarios) if f.blocking]
    if bad:
        raise AuditError(
            f"{suite}: the pool fails the anti-template gate: "
            + "; ".join(f"[{f.rule}] {f.scenario}: {f.message}" for f in bad[:5])
        )
    return {}


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    kind = _kind(suite)
    names = pool(kind)
    out: dict[str, Any] = {
        "generator_rev": GENERATOR_REV,
        "definition": {
            "pool": {n: hashlib.sha256(_path(kind, n).read_bytes()).hexdigest() for n in names},
            "public": public_names(suite),
            "replicates": REPLICATES[scale],
            "n_obs": N_OBS,
            "n_obsint": list(N_OBSINT),
        },
    }
    if options and options.get("per_domain") is not None:
        out["definition"]["built"] = selected_names(suite, options)
        out["options"] = {"per_domain": options["per_domain"]}
    return out


def text(suite: str) -> CardText:
    from causalarena.generator.scenario.card import SECTION_COLUMNS, card_sections, column_docs

    kind = _kind(suite)
    if kind == "semantic":
        summary = (
            "Semantic operational SCMs: each instance is an authored scenario (a policy, a "
            "queue, a sensor, a counted outcome) with variable meanings, units, edge rationales "
            "and intervention handles, compiled to an executable SCM with its true DAG."
        )
    else:
        summary = (
            "Formula-grounded scientific SCMs: named equations with units and validity ranges "
            "computed exactly, with noise only on instruments and readouts, compiled to an "
            "executable SCM with its true DAG."
        )
    return CardText(
        pretty_name=f"CausalArena {suite}",
        summary=summary,
        tags=(
            "causal-discovery",
            "structural-causal-models",
            "benchmark",
            "synthetic",
            "tabular",
            "interventional-data",
        ),
        limitations=(
            "The scenarios are authored from domain knowledge; they are plausible, not "
            "measured, causal systems.",
            "The reserved half is a separate set of authored scenarios kept outside the "
            "repository; the public manifest commits to it (salted sha256 per instance) "
            "without naming its scenarios.",
        ),
        column_docs=column_docs(kind),
        sections=card_sections,
        section_columns=SECTION_COLUMNS,
    )


# ------------------------------------------------------------------ reserved half
#: Environment variable naming the maintainers' private folder of reserved scenario files.
RESERVED_ENV = "CAUSALARENA_RESERVED_SCENARIOS"


def reserved_files(kind: str) -> list[Path]:
    """The reserved scenario files of ``kind``: ``$CAUSALARENA_RESERVED_SCENARIOS/<kind>/
    <domain>/<id>.yaml``, sorted.

    Raises
    ------
    ReleaseError
        The variable is unset, its folder has no ``<kind>/<domain>/*.yaml``, lies inside the
        package, or a reserved file has a public scenario's id or bytes.
    """
    from causalarena.errors import ReleaseError
    from causalarena.generator.scenario.pool import scenario_files

    value = os.environ.get(RESERVED_ENV)
    if not value:
        raise ReleaseError(
            f"arena-{kind}: the reserved half is read from a maintainer's private folder of "
            f"scenario files; set {RESERVED_ENV} to it (layout <folder>/{kind}/<domain>/<id>"
            ".yaml), or freeze with --no-reserved"
        )
    root = Path(value).expanduser() / kind
    package = Path(__file__).resolve().parents[2]
    if root.resolve().is_relative_to(package):
        raise ReleaseError(
            f"{RESERVED_ENV}={value}: lies inside the package ({package}); reserved scenarios "
            "must stay outside the repository"
        )
    files = sorted(root.glob("*/*.yaml"))
    if not files:
        raise ReleaseError(
            f"{RESERVED_ENV}={value}: no reserved {kind} scenario files ({root}/<domain>/<id>.yaml)"
        )
    public = scenario_files(kind)
    ids = {f.stem for f in public}
    digests = {hashlib.sha256(f.read_bytes()).hexdigest() for f in public}
    for f in files:
        if f.stem in ids or hashlib.sha256(f.read_bytes()).hexdigest() in digests:
            raise ReleaseError(
                f"{f}: reserved scenario {f.stem!r} is also a public scenario file; a reserved "
                "scenario must not be derivable from the repository"
            )
    public_fps = _exact_fingerprints(public)
    for fp, f in _exact_fingerprints(files).items():
        twin = public_fps.get(fp)
        if twin is not None:
            raise ReleaseError(
                f"{f}: reserved scenario {f.stem!r} compiles to the same SCM as the public "
                f"scenario {twin.parent.name}/{twin.stem} (only names or ids differ); a "
                "reserved scenario must not be derivable from the repository"
            )
    return files


def _exact_fingerprints(files: list[Path]) -> dict[Any, Path]:
    """``{exact fingerprint: file}`` of the scenarios that compile (the gate reports the
    others); the fingerprint ignores ids and variable names (:mod:`causalarena.fingerprint`)."""
    from causalarena.errors import CausalArenaError
    from causalarena.fingerprint import fingerprint
    from causalarena.generator.scenario.compile import compile_scenario
    from causalarena.generator.scenario.schema import load_scenario

    out: dict[Any, Path] = {}
    for f in files:
        try:
            spec = compile_scenario(load_scenario(f))
        except (CausalArenaError, ValueError):
            continue
        out.setdefault(fingerprint(spec.model_dump_json())["exact"], f)
    return out


def reserved_units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One reserved unit per private scenario file (see the module docstring)."""
    kind = _kind(suite)
    out = []
    for i, f in enumerate(reserved_files(kind)):
        name = f"{f.parent.name}/{f.stem}"
        params = {
            "reserved_index": i,
            "entropy_name": f"scenario/{name}",
            "_name": name,
            "_sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
        }
        out.append(Unit(suite, VERSION, None, scale, f"reserved-{i:04d}", params))
    return out


def run_reserved(unit: Unit, ss: Any) -> UnitResult:
    """Gate one reserved scenario, then sample its rows from the key-derived ``ss``."""
    from causalarena.errors import ReleaseError
    from causalarena.generator.scenario.compile import compile_scenario
    from causalarena.generator.scenario.gate import check_scenario
    from causalarena.generator.scenario.schema import load_scenario

    kind = _kind(unit.suite)
    name, i = str(unit.params["_name"]), int(unit.params["reserved_index"])
    path = Path(os.environ.get(RESERVED_ENV, "")).expanduser() / kind / f"{name}.yaml"
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != unit.params.get(
        "_sha256"
    ):
        raise ReleaseError(f"{path}: reserved scenario file is missing or changed during the run")
    sc = load_scenario(path)
    rep = check_scenario(sc, name)
    if rep.blocking:
        raise AuditError(
            f"{unit.suite}: reserved scenario {path} fails the release gate: "
            + "; ".join(f"[{f.rule}] {f.variable or '-'}: {f.message}" for f in rep.blocking[:5])
        )
    spec = compile_scenario(sc).model_copy(update={"scm_id": f"{kind}-reserved-{i:04d}"})
    entropy = ss.entropy

    def seeds(setting: str, rep_: int) -> np.random.SeedSequence:
        return np.random.SeedSequence(
            entropy, spawn_key=(GENERATOR_REV, SETTINGS.index(setting), rep_)
        )

    per = _rows(unit.suite, kind, sc, spec, i, REPLICATES[unit.scale], seeds)
    schema = row_schema(kind)
    return UnitResult(
        tables={c: _to_arrow(cols, schema) for c, cols in per.items()},
        audit=[{"attempts": 1, "rejections": []}],
    )


def reserved_instances(config: str, table: Any):
    """``(instance_id, spec_json, X (n, d) float32, mask (n, d) bool)`` per row."""
    for row in table.select(["instance_id", "spec", "variables", "X", "mask"]).to_pylist():
        d = len(row["variables"])
        yield (
            row["instance_id"],
            row["spec"],
            np.asarray(row["X"], dtype=np.float32).reshape(-1, d),
            np.asarray(row["mask"], dtype=bool).reshape(-1, d),
        )


def sizes(suite: str, scale: str) -> dict[str, int]:
    """Public instances per config at ``scale``: scenarios x replicates."""
    n = len(selected_names(suite)) * REPLICATES[scale]
    return {c.name: n for c in configs(suite)}


def make_family(kind: str) -> Family:
    """The :class:`~causalarena.family.Family` of ``semantic`` or ``formula`` scenarios."""
    suite = f"arena-{kind}"
    return Family(
        name=kind,
        suites={suite: SuiteInfo(suite, VERSION, SUITE_SEEDS[kind], ("mini", "full"))},
        configs=configs,
        units=units,
        run_unit=run_unit,
        header=header,
        text=text,
        prepare=prepare,
        sizes=sizes,
        reserved_units=reserved_units,
        run_reserved=run_reserved,
        reserved_instances=reserved_instances,
        code=(
            "generator/scenario",
            f"generator/{kind}",
            "generator/sample.py",
            "generator/rows.py",
            "spec.py",
        ),
        parquet_options={"compression": "zstd", "compression_level": 3, "row_group_size": 64},
    )
