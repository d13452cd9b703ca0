"""Convert the public CausaLab release (v0.0.2, Apache-2.0) into lab episodes.

Source: ``DylanZSZ/CausaLab-Benchmark`` commit ``42ba47fb`` ("v0.0.2 early release"), folder
``release/causalab_dataset/``: 19 JSONL files of 50 graph configurations each (950 in all).
Each record gives the graph, the structural equations as text (``"computation"``), their
``params``, the budget and, per suite, a hidden disturbance, a Golden intervention trace
(``bootstrap_past_data``) or fixed quadratic presets.  The conversion keeps every equation and
coefficient; what the records leave open is filled as follows (and tested):

- linear suites: non-target structural properties carry a per-crystal base drawn from their
  ``base_value`` range (the ``base_<X>`` param of a non-target property is not used by the
  recorded traces: every Golden transition is reproduced only with the per-crystal base);
- quadratic suite: crystals are the record's presets (``observation_presets``,
  ``property_manipulator``, ``reactor``) for root properties; structural properties follow
  their equations with the recorded intercepts;
- prior records, manipulator and reactor crystals not in the record are drawn from the
  episode seed (SeedSequence keyed by the file and line), like generated episodes.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.errors import LabError
from causalarena.generator.lab.episode import (
    _S_HIDDEN,
    _S_MANIP,
    _S_REACTOR,
    _S_RECORD,
    MAX_SUBMISSIONS,
    N_PRIOR,
    QUAD_ROOT,
    Episode,
    Hidden,
    draw_exogenous,
    episode_seed,
    hidden_offsets,
    lab_spec,
    record_of,
    stream,
)
from causalarena.generator.lab.graph import TARGET
from causalarena.generator.lab.semantics import compile_model, exogenous_from, readings, shift

SUITE = "lab-causalab-v0.0.2"
#: Seed of the converted suite (crystals the records do not fix).
SEED = 20260621
SOURCE = {
    "repository": "https://github.com/DylanZSZ/CausaLab-Benchmark",
    "commit": "42ba47fb",
    "folder": "release/causalab_dataset",
    "version": "v0.0.2",
    "licence": "Apache-2.0",
    "paper": "arXiv:2605.26029",
}
#: The 19 files of the release, in the release README's order.
FILES = (
    "3nodes",
    "4nodes",
    "5nodes",
    "6nodes",
    "7nodes",
    "4nodes_quad_hard",
    "4nodes_hidden_n1",
    "4nodes_hidden_n2",
    "4nodes_hidden_n3",
    "4nodes_hidden_vrange_pm0p5",
    "4nodes_hidden_vrange_pm5",
    "4nodes_hidden_vrange_pm50",
    "4nodes_hidden_freqnode_n1",
    "4nodes_hidden_freqnode_n2",
    "4nodes_hidden_freqnode_n3",
    "4nodes_freqparent",
    "6nodes_freqparent",
    "4nodes_golden",
    "6nodes_golden",
)


def data_dir(explicit: str | Path | None = None) -> Path | None:
    """The release folder: ``explicit``, ``$CAUSALARENA_CAUSALAB_DATA``, else
    ``shared/data/causalab`` beside the repository (or beside its worktree folder); ``None``
    when absent."""
    import os

    cands = [explicit, os.environ.get("CAUSALARENA_CAUSALAB_DATA")]
    here = Path(__file__).resolve()
    cands += [p / "shared" / "data" / "causalab" for p in here.parents[3:7]]
    for c in cands:
        if c and (Path(c) / "data").is_dir():
            return Path(c)
    return None


def _terms(text: str, where: str) -> tuple[str | None, dict[str, dict[int, str]]]:
    """Parse ``"base + c * p + c2 * (p ^ 2)"`` into ``(base name, {parent: {power: coef}})``."""
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval").body
    except SyntaxError:
        raise LabError(f"{where}: computation {text!r} is not an additive equation") from None
    items: list[ast.AST] = []

    def flat(n: ast.AST) -> None:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            flat(n.left)
            flat(n.right)
        else:
            items.append(n)

    flat(tree)
    base, out = None, {}
    for it in items:
        if isinstance(it, ast.Name):
            base = it.id
        elif (
            isinstance(it, ast.BinOp)
            and isinstance(it.op, ast.Mult)
            and isinstance(it.left, ast.Name)
        ):
            r = it.right
            if isinstance(r, ast.Name):
                out.setdefault(r.id, {})[1] = it.left.id
            elif (
                isinstance(r, ast.BinOp)
                and isinstance(r.op, ast.Pow)
                and isinstance(r.left, ast.Name)
                and isinstance(r.right, ast.Constant)
            ):
                out.setdefault(r.left.id, {})[int(r.right.value)] = it.left.id
            else:
                raise LabError(f"{where}: unsupported term {ast.unparse(it)!r}")
        else:
            raise LabError(f"{where}: unsupported term {ast.unparse(it)!r}")
    return base, out


def convert(record: dict[str, Any], config: str, index: int) -> Episode:
    """One public record -> :class:`Episode` (see module docstring).

    Raises
    ------
    LabError
        If the record's equations disagree with its edges or use an unknown parameter.
    """
    where = f"{config}.jsonl line {index + 1} ({record.get('graph_id')})"
    nodes = record["nodes"]
    names = list(nodes)
    if TARGET not in names:
        raise LabError(f"{where}: no {TARGET} node")
    names = [TARGET] + [n for n in names if n != TARGET]
    params = record["params"]
    family = "quadratic" if record.get("equation_family") == "quadratic" else "linear"
    edges = sorted((e["from"], e["to"]) for e in record["edges"])
    terms, bias, offsets = {}, {}, {}
    for n in names:
        comp = nodes[n].get("computation")
        if not comp:
            continue
        base, t = _terms(comp, f"{where}, node {n}")
        for p, pw in t.items():
            if (p, n) not in edges:
                raise LabError(
                    f"{where}: equation of {n} uses {p} but the edge {p}->{n} is missing"
                )
            try:
                cs = [float(params[pw[d]]) if d in pw else 0.0 for d in range(1, max(pw) + 1)]
            except KeyError as exc:
                raise LabError(f"{where}: unknown parameter {exc.args[0]!r}") from None
            terms[(p, n)] = cs if family == "quadratic" else cs[:1]
        bv = nodes[n].get("base_value", {"min": 15.0, "max": 45.0})
        if n == TARGET or family == "quadratic":
            bias[n] = float(params[base])
        else:
            bias[n] = (float(bv["min"]) + float(bv["max"])) / 2
            offsets[n] = (float(bv["max"]) - float(bv["min"])) / 2
    missing = [e for e in edges if e not in terms]
    if missing:
        raise LabError(f"{where}: edge {missing[0][0]}->{missing[0][1]} has no equation term")
    hv = record.get("hidden_variable")
    hidden = None
    if hv and hv.get("enabled", True):
        hidden = Hidden(
            values=tuple(float(x) for x in hv["value_space"]),
            affected=tuple(hv["affected_nodes"]),
            weight=float(hv.get("edge_weight", 1)),
        )
    bv0 = nodes[names[-1]].get("base_value", {"min": 15.0, "max": 45.0})
    root_range = QUAD_ROOT if family == "quadratic" else (float(bv0["min"]), float(bv0["max"]))
    controllable = [n for n in names if n != TARGET and nodes[n].get("is_controllable", True)]
    eid = f"{SUITE}/{config}/{index:03d}"
    spec = lab_spec(
        eid,
        names,
        edges,
        terms,
        bias,
        family,
        root_range,
        offsets,
        controllable,
        hidden=hidden,
        target_can_be_parent=bool(record.get("frequency_can_be_parent", False)),
        metadata={"causalab_params": params, "causalab_graph_id": record.get("graph_id")},
    )
    seed = episode_seed(SEED, SUITE, config, index)
    m = compile_model(spec)
    qm = record.get("quadratic_metadata")

    def preset(vals: dict[str, float]) -> list[float]:
        return [
            float(vals.get(n, 0.0)) if not v.parents else 0.0
            for n, v in zip(spec.names, spec.variables, strict=True)
        ]

    boot = record.get("bootstrap_past_data")
    if boot:
        # Golden: the trace is injected and the recorded online budget still applies.
        records = [dict(r) for r in boot]
        budget = int(record.get("budget", 4 * (len(names) - 1)))
    else:
        hid = stream(seed, _S_HIDDEN, 0)
        crystals = (
            [preset(p) for p in qm["observation_presets"]]
            if qm
            else [draw_exogenous(spec, stream(seed, _S_RECORD, r)) for r in range(N_PRIOR)]
        )
        records = [
            record_of(spec, readings(m, exo, hidden_offsets(spec, hid)), f"{r}/prior")
            for r, exo in enumerate(crystals)
        ]
        budget = int(record.get("budget", 4 * (len(names) - 1)))
    return Episode(
        episode_id=eid,
        suite=SUITE,
        config=config,
        index=index,
        seed=seed,
        spec=spec,
        budget=budget,
        records=records,
        manipulator=preset(qm["property_manipulator"])
        if qm
        else draw_exogenous(spec, stream(seed, _S_MANIP, 0)),
        reactor=preset(qm["reactor"]) if qm else draw_exogenous(spec, stream(seed, _S_REACTOR, 0)),
        max_submissions=MAX_SUBMISSIONS,
        source={
            **SOURCE,
            "file": f"data/{config}.jsonl",
            "line": index + 1,
            "graph_id": record.get("graph_id"),
        },
    )


def read_file(path: Path) -> list[dict[str, Any]]:
    """The records of one release file; a bad line raises LabError naming file and line."""
    out = []
    for i, line in enumerate(path.read_text().splitlines()):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise LabError(f"{path}: line {i + 1} is not JSON ({exc.msg})") from None
    return out


def load_public(
    folder: str | Path | None = None, configs: list[str] | None = None
) -> dict[str, list[Episode]]:
    """Convert the public release: ``{config (file stem): [Episode, ...]}``.

    Raises
    ------
    LabError
        If the folder is absent or a file is missing or malformed.
    """
    root = data_dir(folder)
    if root is None:
        raise LabError(
            "the public CausaLab release was not found: pass its folder or set "
            "CAUSALARENA_CAUSALAB_DATA (expected <folder>/data/<config>.jsonl)"
        )
    out = {}
    for cfg in configs or FILES:
        path = root / "data" / f"{cfg}.jsonl"
        if not path.is_file():
            raise LabError(f"{path}: file missing from the CausaLab release")
        out[cfg] = [convert(r, cfg, i) for i, r in enumerate(read_file(path))]
    return out


def replay_trace(episode: Episode) -> list[tuple[str, float]]:
    """Replay the episode's recorded intervention trace under the shift semantics.

    Starts from the crystal of the first record (exogenous terms inferred from its readings)
    and applies every recorded intervention in order.  Returns ``(record id, max |recorded -
    simulated|)`` per intervention record (all zeros when the semantics reproduce the trace).
    """
    m = compile_model(episode.spec)
    tgt = m.index(episode.target)

    def vec(rec: dict) -> np.ndarray:
        v = np.zeros(len(m.names))
        for n, x in rec["props"].items():
            v[m.index(n)] = float(x)
        v[tgt] = float(rec["freq"])
        return v

    recs = episode.records
    exo = exogenous_from(m, vec(recs[0]))
    out = []
    for rec in recs[1:]:
        iv = rec.get("intervention")
        if iv is None:
            continue
        exo = shift(m, exo, m.index(iv["target_prop"]), float(iv["target_value"]))
        out.append((rec["id"], float(np.max(np.abs(readings(m, exo) - vec(rec))))))
    return out
