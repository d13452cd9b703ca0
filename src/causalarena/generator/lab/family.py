"""The lab episodes as a release family (see :mod:`causalarena.family`).

Configs: one per lab config, named ``<config>`` with ``_`` replaced by ``-`` (the public
files ``4nodes_quad_hard`` ... become ``4nodes-quad-hard``), each with the one Arrow schema
:func:`causalarena.generator.lab.episode.row_schema`: one row per episode, the full hidden
SCM in the ``spec`` column.  Work units: one per config (``cfg-<config>``); a unit is a pure
function of ``(suite, version, seed, config, scale)``.  ``lab-causalab-v0.0.2`` converts the
public CausaLab release (Apache-2.0); ``prepare`` refuses the build unless the release is on
disk and matches its own ``checksums.sha256``.

Reserved half (generated suites only; the converted public CausaLab suite has none): one
reserved unit per config (``reserved-<config>``) with as many episodes as the public config
at that scale, drawn exactly like public ones with the suite seed replaced by the
key-derived entropy ``HMAC-SHA256(key, "causalarena/reserved/seed/<suite>/<version>/
lab/episodes")`` -- one base seed for the whole suite, so the quadratic, hidden and golden
configs keep reusing the main configs' graphs (matched controls) in the reserved half too.
Reserved episode ids are ``<suite>/<config>/r<index>`` (never a public id).  The
commitment of an episode covers its whole row (every column, sorted-key JSON) as its
``spec_json``, with an empty ``X``/``mask`` (lab rows hold no sample table).
"""

from __future__ import annotations

import hashlib
from typing import Any

from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.lab.causalab import FILES, SEED, SOURCE, data_dir
from causalarena.generator.lab.episode import LAB_GENERATOR_REV, row_schema, to_arrow
from causalarena.generator.lab.suites import LAB_SUITES, PUBLIC_SUITE, SCALES, episodes

PUBLIC_VERSION = "0.0.2"
#: Attribution of ``lab-causalab-v0.0.2`` (card, Croissant, CITATION.cff, .zenodo.json).
LICENSE_NOTICE = (
    f"Source: the public CausaLab release {SOURCE['version']} ({SOURCE['repository']}, commit "
    f"{SOURCE['commit']}, folder {SOURCE['folder']}; {SOURCE['paper']}), licensed "
    f"{SOURCE['licence']}; the converted rows keep that licence, and redistribution must keep "
    "its licence notice and this attribution."
)


def _configs(suite: str) -> list[str]:
    if suite == PUBLIC_SUITE:
        return list(FILES)
    return [c.name for c in LAB_SUITES[suite].configs]


def sizes(suite: str, scale: str) -> dict[str, int] | None:
    """Public episodes per config at ``scale``; None for the converted CausaLab suite (its
    counts come from the files on disk)."""
    if suite == PUBLIC_SUITE:
        return None
    from causalarena.generator.lab.suites import _count

    return {config_name(c.name): _count(c.n_episodes, scale) for c in LAB_SUITES[suite].configs}


def config_name(config: str) -> str:
    """Release config name of a lab config (``[a-z0-9-]+``)."""
    return config.replace("_", "-").lower()


def configs(suite: str) -> list[Config]:
    """One config per lab config, all with the lab row schema."""
    desc = LAB_SUITES[suite].description if suite in LAB_SUITES else "public CausaLab file"
    return [Config(config_name(c), row_schema(), f"{c}: {desc}") for c in _configs(suite)]


def units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One unit per config, in config order."""
    info = SUITE_INFO[suite]
    return [
        Unit(suite, info.version, info.seed, scale, f"cfg-{config_name(c)}", {"config": c})
        for c in _configs(suite)
    ]


def run_unit(unit: Unit) -> UnitResult:
    """Rows of one config (a pure function of the unit)."""
    cfg = unit.params["config"]
    eps = episodes(unit.suite, cfg, unit.scale)[cfg]
    return UnitResult(
        tables={config_name(cfg): to_arrow(eps)}, audit=[{"attempts": 1} for _ in eps]
    )


def _release_checksums(root) -> list[str]:
    """Files of the public release whose sha256 differs from its checksums.sha256."""
    bad = []
    for line in (root / "checksums.sha256").read_text().splitlines():
        if not line.strip():
            continue
        digest, name = line.split(maxsplit=1)
        path = root / name.strip().lstrip("*")
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            bad.append(name.strip())
    return bad


def prepare(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """The public suite needs the release on disk, matching its checksums."""
    from causalarena.errors import LabError

    if scale not in SCALES:
        raise LabError(f"unknown scale {scale!r}; choose from {sorted(SCALES)}")
    if suite != PUBLIC_SUITE:
        return {}
    root = data_dir()
    if root is None:
        raise LabError(
            "lab-causalab-v0.0.2 needs the public CausaLab release: set CAUSALARENA_CAUSALAB_DATA "
            "to its folder (with data/*.jsonl and checksums.sha256)"
        )
    bad = _release_checksums(root)
    if bad:
        raise LabError(
            f"the CausaLab release at {root} does not match its checksums.sha256: {bad[:3]}"
        )
    return {"source": SOURCE}


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """Generator revision and suite definition recorded in the manifest."""
    d: dict[str, Any] = {"generator_rev": LAB_GENERATOR_REV, "episodes_per_config": SCALES[scale]}
    if suite == PUBLIC_SUITE:
        d["source"] = SOURCE
    else:
        d["configs"] = [c.__dict__ for c in LAB_SUITES[suite].configs]
    return d


def text(suite: str) -> CardText:
    """Card prose; the public suite names its source and licence."""
    common = dict(
        tags=("causal-discovery", "interactive", "agents", "structural-causal-models", "synthetic"),
        task_categories=("tabular-regression",),
        intended_uses=(
            "evaluate agents that discover a hidden SCM by shift interventions within a budget, "
            "predict a held-out reactor value and state a parsable hypothesis",
        ),
        out_of_scope_uses=("claims about real-world scientific discovery",),
        usage="Play a row with causalarena.generator.lab.Episode.from_row(row) and "
        "causalarena.generator.lab.env.LabEnv, or `causalarena lab serve --episode ID`.",
    )
    if suite == PUBLIC_SUITE:
        return CardText(
            pretty_name="CausaLab v0.0.2 episodes (converted)",
            summary=(
                "The 950 public CausaLab episodes (DylanZSZ/CausaLab-Benchmark, commit 42ba47fb, "
                "release/causalab_dataset, licence Apache-2.0, arXiv:2605.26029) converted into the "
                "causalarena lab schema; equations and coefficients unchanged."
            ),
            limitations=(
                "crystals the source records do not fix are drawn from the episode seed",
                "the source episodes are licensed Apache-2.0 (DylanZSZ/CausaLab-Benchmark); "
                "redistribution of these rows must keep that licence notice and attribution",
            ),
            license="apache-2.0",
            license_notice=LICENSE_NOTICE,
            **common,
        )
    return CardText(
        pretty_name=f"causalarena {suite}",
        summary="Lab episodes after CausaLab (arXiv:2605.26029): "
        + LAB_SUITES[suite].description
        + ".",
        **common,
    )


# ------------------------------------------------------------------ reserved half
def reserved_units(suite: str, scale: str, options: Any = None) -> list[Unit]:
    """One reserved unit per config of a generated suite (none for the converted suite)."""
    if suite == PUBLIC_SUITE:
        return []
    info = SUITE_INFO[suite]
    return [
        Unit(
            suite,
            info.version,
            None,
            scale,
            f"reserved-{config_name(c)}",
            {"config": c, "entropy_name": "lab/episodes"},
        )
        for c in _configs(suite)
    ]


def run_reserved(unit: Unit, ss: Any) -> UnitResult:
    """The config's reserved episodes, drawn with the key-derived base seed ``ss.entropy``."""
    import dataclasses

    from causalarena.generator.lab.episode import draw_episode
    from causalarena.generator.lab.suites import get_lab_suite

    cfg = get_lab_suite(unit.suite).config(unit.params["config"])
    from causalarena.generator.lab.suites import _count

    n = _count(cfg.n_episodes, unit.scale)
    eps = []
    for i in range(n):
        ep = draw_episode(unit.suite, int(ss.entropy), cfg, i)
        eid = f"{unit.suite}/{cfg.name}/r{i:03d}"
        eps.append(
            dataclasses.replace(ep, episode_id=eid, spec=ep.spec.model_copy(update={"scm_id": eid}))
        )
    return UnitResult(
        tables={config_name(cfg.name): to_arrow(eps)}, audit=[{"attempts": 1} for _ in eps]
    )


def reserved_instances(config: str, table: Any):
    """``(episode_id, row JSON, empty X, empty mask)`` per row: the row is the commitment."""
    import json

    import numpy as np

    for row in table.to_pylist():
        empty = np.zeros((0, int(row["n_nodes"])), dtype=np.float32)
        yield row["episode_id"], json.dumps(row, sort_keys=True), empty, empty.astype(bool)


SUITE_INFO: dict[str, SuiteInfo] = {
    **{n: SuiteInfo(n, s.version, s.seed, tuple(SCALES)) for n, s in LAB_SUITES.items()},
    PUBLIC_SUITE: SuiteInfo(PUBLIC_SUITE, PUBLIC_VERSION, SEED, tuple(SCALES)),
}

FAMILY = Family(
    name="lab",
    suites=SUITE_INFO,
    configs=configs,
    units=units,
    run_unit=run_unit,
    header=header,
    text=text,
    prepare=prepare,
    reserved_units=reserved_units,
    run_reserved=run_reserved,
    reserved_instances=reserved_instances,
    reserved_suites=frozenset(LAB_SUITES),
    sizes=sizes,
    code=("generator/lab",),
)
