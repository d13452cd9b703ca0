"""Lab episodes: the hidden SCM, its crystals, prior records and budgets (CausaLab section 3).

An :class:`Episode` is one row of a lab config.  Its hidden SCM is an ordinary
:class:`causalarena.spec.SCMSpec` whose intervention protocol is ``"shift"`` and whose
``metadata["lab"]`` declares the lab roles (target, controllable and observable properties,
equation family, hidden disturbance).  Structural equations (section 3.1, appendix A.2):

- linear: ``X = b_X + sum_p w_p p + u_X`` with integer weights ``w_p`` in {1, 2, 3};
  the target has an integer intercept ``b`` in 15..25 and no exogenous term; every other
  structural property has ``b_X = 30`` and ``u_X ~ U(-15, 15)`` (its per-crystal base is
  ``U(15, 45)``, the ``base_value`` range of the public release, and the recorded golden
  traces are reproduced only with that per-crystal base); roots are ``U(15, 45)``;
- hard quadratic: each edge term ``a2 p^2 + a1 p`` with ``a2`` in {0.008, 0.012, 0.016},
  ``a1 = -2 a2 axis``, ``axis ~ U[35, 65]``; intercepts ``b0 + sum a2 axis^2`` with integer
  ``b0`` in 15..25; no exogenous term on structural properties; roots ``U(0, 100)``.

Hidden disturbance (appendix A.2): an unobserved ``H`` uniform on ``{-v, 0, v}`` added with
weight 1 to 1-3 affected variables, redrawn for every reading (prior records and the reading
after each intervention), absent from the reactor's held-out value.

Every crystal value comes from the episode seed through ``numpy.random.SeedSequence`` streams
(never Python's ``hash``), so an episode is a pure function of (suite, version, config, index).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalarena.generator.lab.graph import TARGET, Edge, draw_graph
from causalarena.generator.lab.semantics import compile_model, readings, shift
from causalarena.spec import Component, InterventionSpec, SCMSpec, ValueRule, Variable

#: Revision of the lab generator (part of every seed spawn key).
LAB_GENERATOR_REV = 1
#: Prior observation records of every episode (appendix A.1).
N_PRIOR = 2
#: Submissions allowed per episode (best of at most 3 counts).
MAX_SUBMISSIONS = 3
#: Task success threshold: |prediction - held-out value| < 5 (strict).
SUCCESS_TOL = 5.0
QUAD_A2 = (0.008, 0.012, 0.016)
QUAD_AXIS = (35.0, 65.0)
LINEAR_ROOT = (15.0, 45.0)
QUAD_ROOT = (0.0, 100.0)
#: Per-crystal base of non-target structural properties: ``30 + U(-15, 15)``.
OFFSET_CENTRE, OFFSET_HALFWIDTH = 30.0, 15.0
DISPLAY = {
    "resonanceFreq": "Resonance Frequency (Hz)",
    "temperatureC": "Temperature (°C)",
    "moisture": "Moisture",
    "density": "Density",
    "quantumSize": "Quantum Size",
    "radiation": "Radiation",
    "pressure": "Pressure",
    "ph": "pH",
    "conductivity": "Conductivity",
}
# stream ids of the episode seed
_S_RECORD, _S_MANIP, _S_REACTOR, _S_HIDDEN, _S_SETUP, _S_GOLDEN = range(1, 7)


def key(name: str) -> int:
    """Stable 32-bit key of a name (CRC-32) used in seed spawn keys."""
    return zlib.crc32(name.encode())


def stream(seed: int, *spawn: int) -> np.random.Generator:
    """The numpy Generator of stream ``spawn`` of an episode seed."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(spawn)))


def episode_seed(base_seed: int, suite: str, config: str, index: int) -> int:
    """64-bit episode seed from ``(suite seed, suite, config, index)`` via SeedSequence."""
    ss = np.random.SeedSequence(
        base_seed, spawn_key=(key(suite), key(config), index, LAB_GENERATOR_REV)
    )
    a, b = ss.generate_state(2, dtype=np.uint32)
    return int(a) << 32 | int(b)


@dataclass(frozen=True)
class Hidden:
    """Hidden disturbance ``H`` on ``{-v, 0, v}`` added to ``affected`` with ``weight``."""

    values: tuple[float, ...]
    affected: tuple[str, ...]
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"values": list(self.values), "affected": list(self.affected), "weight": self.weight}


def lab_spec(
    scm_id: str,
    names: list[str],
    edges: list[Edge],
    terms: dict[Edge, list[float]],
    bias: dict[str, float],
    family: str,
    root_range: tuple[float, float],
    offset_halfwidth: dict[str, float],
    controllable: list[str],
    hidden: Hidden | None = None,
    target_can_be_parent: bool = False,
    metadata: dict[str, Any] | None = None,
) -> SCMSpec:
    """Assemble and validate the executable spec of a lab SCM.

    ``terms[(p, c)]`` holds the coefficients of ``p, p^2, ...`` of edge ``p -> c`` (one weight
    for ``family="linear"``); ``bias`` the intercept of every structural variable;
    ``offset_halfwidth[c] > 0`` gives ``c`` a per-crystal term ``u ~ U(-h, h)`` (uniform noise).

    Raises
    ------
    SpecError
        If the assembled spec is invalid (cycle, non-additive mechanism, unknown property).
    """
    par = {c: [p for p in names if (p, c) in set(edges)] for c in names}
    variables = []
    for n in names:
        meta = {"display_name": DISPLAY.get(n, n)}
        if not par[n]:
            variables.append(
                Variable(
                    name=n,
                    role="root",
                    root=Component(
                        family="uniform", params={"low": root_range[0], "high": root_range[1]}
                    ),
                    metadata=meta,
                )
            )
            continue
        if family == "linear":
            mech = Component(
                family="linear",
                params={"weights": [terms[(p, n)][0] for p in par[n]], "bias": bias[n]},
            )
        else:
            mech = Component(
                family="polynomial",
                params={"coefs": [list(terms[(p, n)]) for p in par[n]], "bias": bias[n]},
            )
        h = offset_halfwidth.get(n, 0.0)
        noise = (
            Component(family="uniform", params={"scale": h}) if h > 0 else Component(family="none")
        )
        variables.append(
            Variable(
                name=n,
                role="structural",
                parents=par[n],
                mechanism=mech,
                noise=noise,
                metadata=meta,
            )
        )
    lab = {
        "target": TARGET,
        "controllable": list(controllable),
        "observable": [n for n in names],
        "equation_family": family,
        "target_can_be_parent": bool(target_can_be_parent),
        "hidden": hidden.to_dict() if hidden else None,
        "semantics": "CausaLab section 3.2 shift interventions; readings rounded to 0.01",
    }
    return SCMSpec(
        scm_id=scm_id,
        family="lab",
        variables=variables,
        intervention=InterventionSpec(
            targets=list(controllable),
            protocol="shift",
            value_rule=ValueRule(kind="baseline_percentile_uniform"),
        ),
        metadata={"lab": lab, **(metadata or {})},
    )


def draw_exogenous(spec: SCMSpec, rng: np.random.Generator) -> list[float]:
    """One crystal's exogenous terms (spec order): roots ``U(low, high)``, structural
    properties ``U(-h, h)`` for uniform noise, else 0; each rounded to 0.01."""
    out = []
    for v in spec.variables:
        if v.role == "root":
            lo, hi = v.root.params["low"], v.root.params["high"]
            out.append(round(float(rng.uniform(lo, hi)), 2))
        elif v.noise.family == "uniform":
            h = v.noise.params["scale"]
            out.append(round(float(rng.uniform(-h, h)), 2))
        else:
            out.append(0.0)
    return out


@dataclass(frozen=True)
class Episode:
    """One lab episode (one released row).

    Attributes
    ----------
    episode_id, suite, config : str
    index : int
        Position in its config.
    seed : int
        64-bit episode seed; hidden-disturbance draws come from it.
    spec : SCMSpec
        The hidden SCM (shift protocol, ``metadata["lab"]``).
    budget : int
        Online interventions allowed, ``4 (k - 1)`` (appendix A).  Golden episodes keep it
        too: their offline trace is injected into ``records`` and the agent may still
        intervene online afterwards, as the public release (``budget`` 12 / 20 beside
        ``bootstrap_past_data``) and its controller, which preloads the trace and then runs
        the ordinary intervention loop, do.
    records : list of dict
        Prior records ``{"id", "props": {name: value}, "freq", ["intervention"]}``.
    manipulator, reactor : list of float
        Exogenous terms of the two crystals (spec order); hidden from agents.
    max_submissions : int
    source : dict
        Provenance (public record id, file) for converted episodes.
    """

    episode_id: str
    suite: str
    config: str
    index: int
    seed: int
    spec: SCMSpec
    budget: int
    records: list[dict[str, Any]]
    manipulator: list[float]
    reactor: list[float]
    max_submissions: int = MAX_SUBMISSIONS
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def lab(self) -> dict[str, Any]:
        return self.spec.metadata["lab"]

    @property
    def target(self) -> str:
        return self.lab["target"]

    @property
    def properties(self) -> list[str]:
        """Non-target variables, in spec order."""
        return [n for n in self.spec.names if n != self.target]

    @property
    def edges(self) -> list[Edge]:
        return sorted((p, v.name) for v in self.spec.variables for p in v.parents)

    def reactor_visible(self) -> dict[str, float]:
        vals = readings(compile_model(self.spec), self.reactor)
        return {n: float(vals[i]) for i, n in enumerate(self.spec.names) if n != self.target}

    def held_out(self) -> float:
        """The reactor's true target value (no hidden disturbance)."""
        m = compile_model(self.spec)
        return float(readings(m, self.reactor)[m.index(self.target)])

    @property
    def is_golden(self) -> bool:
        """Whether the records carry an injected offline trace (``<i>/bootstrap`` records)."""
        return any(str(r.get("id", "")).endswith("/bootstrap") for r in self.records)

    # ---------------------------------------------------------------- rows
    def to_row(self) -> dict[str, Any]:
        """The released row (JSON strings for nested fields)."""
        lab = self.lab
        return {
            "episode_id": self.episode_id,
            "suite": self.suite,
            "config": self.config,
            "index": self.index,
            "n_nodes": self.spec.d,
            "n_edges": len(self.edges),
            "equation_family": lab["equation_family"],
            "hidden": json.dumps(lab["hidden"]),
            "target_can_be_parent": lab["target_can_be_parent"],
            "golden": self.is_golden,
            "seed": str(self.seed),
            "target": self.target,
            "properties": self.properties,
            "controllable": list(lab["controllable"]),
            "edges": [list(e) for e in self.edges],
            "budget": self.budget,
            "n_prior": len(self.records),
            "max_submissions": self.max_submissions,
            "records": json.dumps(self.records, sort_keys=True),
            "manipulator": json.dumps(self.manipulator),
            "reactor": json.dumps(self.reactor),
            "reactor_visible": json.dumps(self.reactor_visible(), sort_keys=True),
            "held_out": self.held_out(),
            "source": json.dumps(self.source, sort_keys=True),
            "spec": self.spec.to_json(),
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Episode:
        """Inverse of :meth:`to_row`.

        Raises
        ------
        LabError
            If a field is missing or malformed (the message names it).
        """
        from causalarena.errors import LabError

        try:
            return cls(
                episode_id=str(row["episode_id"]),
                suite=str(row["suite"]),
                config=str(row["config"]),
                index=int(row["index"]),
                seed=int(row["seed"]),
                spec=SCMSpec.from_json(row["spec"]),
                budget=int(row["budget"]),
                records=json.loads(row["records"]),
                manipulator=[float(x) for x in json.loads(row["manipulator"])],
                reactor=[float(x) for x in json.loads(row["reactor"])],
                max_submissions=int(row.get("max_submissions", MAX_SUBMISSIONS)),
                source=json.loads(row.get("source") or "{}"),
            )
        except KeyError as exc:
            raise LabError(f"episode row: field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, LabError):
                raise
            raise LabError(
                f"episode row {row.get('episode_id')!r}: malformed field ({exc})"
            ) from None


#: Arrow schema of every lab config: one row per episode (fields of :meth:`Episode.to_row`).
def row_schema():
    """The Arrow schema shared by every lab config (one row per episode)."""
    import pyarrow as pa

    s, i, b = pa.string(), pa.int32(), pa.bool_()
    return pa.schema(
        [
            ("episode_id", s),
            ("suite", s),
            ("config", s),
            ("index", i),
            ("n_nodes", i),
            ("n_edges", i),
            ("equation_family", s),
            ("hidden", s),
            ("target_can_be_parent", b),
            ("golden", b),
            ("seed", s),
            ("target", s),
            ("properties", pa.list_(s)),
            ("controllable", pa.list_(s)),
            ("edges", pa.list_(pa.list_(s))),
            ("budget", i),
            ("n_prior", i),
            ("max_submissions", i),
            ("records", s),
            ("manipulator", s),
            ("reactor", s),
            ("reactor_visible", s),
            ("held_out", pa.float64()),
            ("source", s),
            ("spec", s),
        ]
    )


def to_arrow(episodes: list[Episode]):
    """A pyarrow Table with :func:`row_schema`, one row per episode, in the given order."""
    import pyarrow as pa

    rows = [e.to_row() for e in episodes]
    schema = row_schema()
    return pa.table(
        {f.name: pa.array([r[f.name] for r in rows], type=f.type) for f in schema}, schema=schema
    )


# -------------------------------------------------------------------- generation
@dataclass(frozen=True)
class LabConfig:
    """One generated config: graph size, equation family and variant."""

    name: str
    n_nodes: int
    family: str = "linear"
    hidden_count: int = 0
    hidden_value: float = 0.0
    hidden_on_target: bool = False
    target_can_be_parent: bool = False
    golden: bool = False
    n_episodes: int = 50


def draw_scm(base_seed: int, cfg: LabConfig, index: int, scm_id: str) -> SCMSpec:
    """The hidden SCM of graph ``index`` of size ``cfg.n_nodes``.

    The topology and linear weights depend only on ``(base_seed, n_nodes, index,
    target_can_be_parent)``, so the quadratic, hidden and golden configs reuse the main
    suite's graphs (matched controls, CausaLab section 5.2).
    """
    k = cfg.n_nodes
    g = stream(
        base_seed, key("lab-graphs"), LAB_GENERATOR_REV, k, index, int(cfg.target_can_be_parent)
    )
    names, edges = draw_graph(g, k, cfg.target_can_be_parent)
    weights = {e: [int(g.integers(1, 4))] for e in edges}
    base = {n: float(g.integers(15, 26)) for n in names}
    par = {c: [p for p, cc in edges if cc == c] for c in names}
    controllable = [n for n in names if n != TARGET]
    if cfg.family == "linear":
        bias = {n: (base[n] if n == TARGET else OFFSET_CENTRE) for n in names}
        offsets = {n: OFFSET_HALFWIDTH for n in names if n != TARGET and par[n]}
        terms, root_range = weights, LINEAR_ROOT
    else:
        q = stream(base_seed, key("lab-quadratic"), LAB_GENERATOR_REV, k, index)
        terms, axes = {}, {}
        for e in edges:
            a2 = float(QUAD_A2[int(q.integers(len(QUAD_A2)))])
            axis = round(float(q.uniform(*QUAD_AXIS)), 6)
            terms[e] = [round(-2 * a2 * axis, 6), a2]
            axes[e] = axis
        bias = {
            n: round(base[n] + sum(terms[(p, n)][1] * axes[(p, n)] ** 2 for p in par[n]), 6)
            for n in names
        }
        offsets, root_range = {}, QUAD_ROOT
    hidden = None
    if cfg.hidden_count:
        h = stream(base_seed, key("lab-hidden"), LAB_GENERATOR_REV, k, index, cfg.hidden_count)
        others = [n for n in names if n != TARGET]
        pick = [
            others[i]
            for i in h.choice(
                len(others), size=cfg.hidden_count - cfg.hidden_on_target, replace=False
            )
        ]
        affected = ([TARGET] if cfg.hidden_on_target else []) + pick
        v = cfg.hidden_value
        hidden = Hidden(values=(-v, 0.0, v), affected=tuple(affected))
    return lab_spec(
        scm_id,
        names,
        edges,
        terms,
        bias,
        cfg.family,
        root_range,
        offsets,
        controllable,
        hidden=hidden,
        target_can_be_parent=cfg.target_can_be_parent,
        metadata={"generator_rev": LAB_GENERATOR_REV},
    )


def hidden_offsets(spec: SCMSpec, rng: np.random.Generator) -> dict[int, float]:
    """One draw of the hidden disturbance as ``{variable index: weight * H}`` ({} if none)."""
    hid = spec.metadata["lab"].get("hidden")
    if not hid:
        return {}
    h = float(hid["values"][int(rng.integers(len(hid["values"])))])
    idx = spec.index()
    return {idx[a]: float(hid["weight"]) * h for a in hid["affected"]}


def record_of(spec: SCMSpec, vals: np.ndarray, rid: str, intervention: dict | None = None) -> dict:
    """A record ``{"id", "props", "freq", ["intervention"]}`` from readings ``vals``."""
    tgt = spec.metadata["lab"]["target"]
    rec = {
        "id": rid,
        "props": {n: float(vals[i]) for i, n in enumerate(spec.names) if n != tgt},
        "freq": float(vals[spec.index()[tgt]]),
    }
    if intervention is not None:
        rec["intervention"] = intervention
    return rec


def draw_episode(
    suite: str,
    base_seed: int,
    cfg: LabConfig,
    index: int,
    *,
    episode_id: str | None = None,
    suite_label: str | None = None,
) -> Episode:
    """Generate episode ``index`` of config ``cfg`` (a pure function of its arguments).

    ``episode_id`` (also the hidden SCM's ``scm_id``; default ``suite/config/index``) and
    ``suite_label`` (the episode's ``suite`` field; default ``suite``) only name the episode:
    its values depend on ``(suite, base_seed, cfg, index)`` alone (fresh streams name their
    episodes by stream position).
    """
    eid = f"{suite}/{cfg.name}/{index:03d}" if episode_id is None else episode_id
    spec = draw_scm(base_seed, cfg, index, scm_id=eid)
    seed = episode_seed(base_seed, suite, cfg.name, index)
    m = compile_model(spec)
    hid = stream(seed, _S_HIDDEN, 0)
    records = []
    crystals = [draw_exogenous(spec, stream(seed, _S_RECORD, r)) for r in range(N_PRIOR)]
    for r, exo in enumerate(crystals):
        records.append(record_of(spec, readings(m, exo, hidden_offsets(spec, hid)), f"{r}/prior"))
    budget = 4 * (cfg.n_nodes - 1)
    if cfg.golden:
        records += golden_trace(spec, crystals[0], stream(seed, _S_GOLDEN, 0), start=N_PRIOR)
    return Episode(
        episode_id=eid,
        suite=suite if suite_label is None else suite_label,
        config=cfg.name,
        index=index,
        seed=seed,
        spec=spec,
        budget=budget,
        records=records,
        manipulator=draw_exogenous(spec, stream(seed, _S_MANIP, 0)),
        reactor=draw_exogenous(spec, stream(seed, _S_REACTOR, 0)),
    )


def golden_trace(
    spec: SCMSpec, exo: list[float], rng: np.random.Generator, start: int
) -> list[dict]:
    """An offline intervention chain on the crystal of the first prior record.

    Every controllable property is set in topological order, twice over, to integer values
    in 1..99 (at most 6 interventions, like the public Golden traces), which leaves a
    singleton interventional Markov equivalence class for the controllable part.
    """
    m = compile_model(spec)
    ctrl = set(spec.metadata["lab"]["controllable"])
    order = [spec.names[j] for j in m.order if spec.names[j] in ctrl]
    chain = (order * 2)[: min(6, 2 * len(order))]
    out = []
    cur = np.array(exo, dtype=float)
    for t, prop in enumerate(chain):
        v = float(rng.integers(1, 100))
        cur = shift(m, cur, m.index(prop), v)
        out.append(
            record_of(
                spec,
                readings(m, cur),
                f"{start + t}/bootstrap",
                {"target_prop": prop, "target_value": v},
            )
        )
    return out
