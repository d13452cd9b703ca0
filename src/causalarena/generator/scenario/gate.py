"""The release gate of semantic and formula scenarios (CausalArena paper, appendix A.3 stage 5).

:func:`check_scenario` runs every per-scenario rule on one file and returns a :class:`Report`
with the scenario's statistics (variables, edges, roots, sinks, depth, targets, mechanism and
noise mix) and its findings; :func:`check_pool` adds the pool-level anti-template rules over
many scenarios.  The gate is deterministic: data gates sample the scenario's obs split
(1,000 rows) and obs+int split (800 + 200 rows) with seeds derived from the scenario id only.

Every finding names the scenario, the variable (when there is one) and the rule (a key of
:data:`RULES`).  Blocking findings keep a scenario out of a release; warnings do not.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.errors import SpecError
from causalarena.generator.scenario import expressions as ex
from causalarena.generator.scenario import schema as sch
from causalarena.generator.scenario.compile import (
    CompileError,
    compile_scenario,
    formula_of,
    references,
    sympy_symbols,
    tag_of,
)

#: Rule name -> what it checks (paper A.3 stage 5 unless noted).
RULES: dict[str, str] = {
    "file": "the path is a regular file of at most 1 MiB, not a link out of its folder",
    "schema": "the file parses and follows the scenario format (unknown fields rejected)",
    "duplicate_id": "variable names, constant names, targets and scenario ids are unique",
    "unknown_reference": "parents and intervention targets name declared variables",
    "cycle": "the parent lists form a DAG",
    "hidden_parent": "a mechanism reads only its declared parents",
    "omitted_parent": "every declared parent changes the mechanism output (static + perturbation)",
    "batch_dependence": "a mechanism is row-wise (no row-batch statistics)",
    "isolated": "every variable has a parent or a child",
    "not_intervenable": "intervention targets are declared intervenable",
    "resampler_range": "intervention resamplers draw inside the target's declared range",
    "spec": "the compiled SCMSpec is valid",
    "non_finite": "sampled values are finite (also in a 20,000-row stress sample)",
    "constant": "no sampled column is constant",
    "out_of_range": "sampled values stay inside the declared numeric range",
    "target_unchanged": "every target has interventional rows whose value changed",
    "descendants_not_recomputed": "descendants of intervened targets are recomputed",
    "nondescendant_changed": "an intervention changes only the target and its descendants",
    "recompute_mismatch": "noise-free nodes equal their mechanism at the sampled parents",
    "artifact_mismatch": "adjacency, columns, masks, shapes and spec JSON agree",
    "count_integer": "a count-scale variable has integer values in every sampled row (warning)",
    "boundary_mass": "<= 10% exact mass at a range boundary unless a declared boundary op",
    "near_copy": "continuous pairs with |corr| >= 0.90 are justified in the file",
    "dominant_category": "no binary/ordinal/categorical level above 90% unless justified",
    "scale_noise": "a binary/ordinal/categorical node's noise keeps its measurement scale",
    "formula_missing": "a formula scenario has at least one formula node",
    "formula_noise": "formula nodes carry no noise (readouts do)",
    "formula_scale": "formula nodes are continuous (never rounded)",
    "formula_clipped": "formula outputs are never clipped (no min/max bounds, no boundary pile-up)",
    "formula_residual": "non-intervened rows satisfy the relation within tolerance",
    "formula": "the equation parses and solves for its node",
    "unit": "units parse (pint) and formula equations are dimensionally consistent",
    "size": "semantic 15-25 variables, formula 16-25 (paper A.3 stage 2)",
    "mechanism_families": ">= 3 mechanism families per scenario (paper A.3 stage 2)",
    "sigmoid_share": "<= 25% generic sigmoid children (paper A.3 stage 2)",
    "duplicate_topology": "no two scenarios have isomorphic graphs (pool)",
    "repeated_role_topology": "no two scenarios share a coarse role topology (pool)",
    "family_dominance": "no mechanism/root/noise family dominates the pool",
    "self_review": "the reviewer is not the author",
    "unreviewed": "the scenario has independent review scores (warning)",
}
SIZE = {"semantic": (15, 25), "formula": (16, 25)}
N_OBS, N_MIX_OBS, N_MIX_INT = 1000, 800, 200
#: Rows of the extra observational sample that only has to be finite.
N_STRESS = 20000
BOUNDARY_MAX = 0.10
NEAR_COPY = 0.90
#: |corr| at which two count, binary or ordinal columns are aliases.
ALIAS = 0.99
DOMINANT = 0.90
SIGMOID_MAX = 0.25
MIN_FAMILIES = 3
PERTURB_MIN = 0.01
RESIDUAL_RTOL = 1e-4
DOMINANCE = {"mechanism": 0.30, "root": 0.60, "noise": 0.60}
DOMINANCE_MIN_POOL = 5
_BOUNDARY_OPS = {
    "clamp",
    "minmax",
    "stock_flow",
    "saturating",
    "threshold",
    "piecewise",
    "product",
    "regime_switch",
    "formula",
}


@dataclass(frozen=True)
class Finding:
    """One gate finding."""

    scenario: str
    variable: str | None
    rule: str
    message: str
    blocking: bool = True

    def line(self) -> str:
        tag = "BLOCK" if self.blocking else "warn "
        var = f" variable={self.variable}" if self.variable else ""
        return f"  {tag} [{self.rule}] scenario={self.scenario}{var}: {self.message}"


@dataclass
class Report:
    """Gate result of one scenario (``stats`` empty when it could not be compiled)."""

    scenario: str
    file: str | None
    family: str | None = None
    domain: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    graph: Any = None  # networkx DiGraph (not serialised)
    roles: Any = None

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.blocking]

    def as_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "file": self.file,
            "family": self.family,
            "domain": self.domain,
            "passed": not self.blocking,
            "stats": self.stats,
            "findings": [asdict(f) for f in self.findings],
        }


def scenario_seed(scenario_id: str, split: int) -> np.random.SeedSequence:
    """Seed of the gate's split ``split`` (0 obs, 1 obs+int): a function of the id only."""
    return np.random.SeedSequence([zlib.crc32(scenario_id.encode()), 11, split])


# ------------------------------------------------------------------------------ entry points


def check_file(path: str | Path, *, data: bool = True) -> tuple[Report, sch.Scenario | None]:
    """Load and gate one file; schema errors become a blocking ``schema`` finding.

    ``data=False`` runs the structure rules only (no compile, no sampling): enough for the
    pool-level rules of :func:`check_pool`, which read the graph, roles and statistics.
    """
    path = Path(path)
    try:
        sc = sch.load_scenario(path)
    except sch.ScenarioError as exc:
        if exc.field == "<file>":
            return refused_file(path, exc.reason), None
        rep = Report(scenario=path.stem, file=str(path))
        rep.findings.append(Finding(path.stem, exc.variable, "schema", str(exc)))
        return rep, None
    return check_scenario(sc, str(path), data=data), sc


def refused_file(path: str | Path, reason: str) -> Report:
    """Report of a path that is not read (a FIFO, a link out of its folder, above the cap)."""
    path = Path(path)
    rep = Report(scenario=path.stem, file=str(path))
    rep.findings.append(Finding(path.stem, None, "file", f"{path} {reason}"))
    return rep


def check_scenario(sc: sch.Scenario, file: str | None = None, *, data: bool = True) -> Report:
    """Run every per-scenario rule of :data:`RULES` (see module docstring).

    ``data=False``: the structure rules only (see :func:`check_file`).
    """
    rep = Report(scenario=sc.id, file=file, family=sc.family, domain=sc.domain)
    add = _adder(rep)
    if not _static(sc, rep, add) or not data:
        return rep
    try:
        spec = compile_scenario(sc)
    except CompileError as exc:
        add(exc.variable, "formula" if "equation" in exc.field else "spec", exc.reason)
        return rep
    except SpecError as exc:
        add(exc.variable, "spec", str(exc))
        return rep
    _data(sc, spec, rep, add)
    return rep


def check_pool(reports: list[Report], scenarios: list[sch.Scenario]) -> list[Finding]:
    """Pool-level anti-template rules over compiled scenarios (paper A.3 stage 5)."""
    import networkx as nx

    out: list[Finding] = []
    seen: dict[str, str] = {}
    for r in reports:
        if r.scenario in seen and r.file != seen[r.scenario]:
            out.append(
                Finding(r.scenario, None, "duplicate_id", f"id also used by {seen[r.scenario]}")
            )
        seen.setdefault(r.scenario, r.file)
    ok = [r for r in reports if r.graph is not None]
    by_hash: dict[str, list[Report]] = {}
    for r in ok:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = nx.weisfeiler_lehman_graph_hash(r.graph, iterations=3)
        for other in by_hash.get(h, []):
            if nx.is_isomorphic(other.graph, r.graph):
                out.append(
                    Finding(
                        r.scenario,
                        None,
                        "duplicate_topology",
                        f"graph is isomorphic to scenario {other.scenario!r} (same support "
                        "topology: a renamed copy, not a new process)",
                    )
                )
                break
        by_hash.setdefault(h, []).append(r)
    sigs: dict[tuple, str] = {}
    for r in ok:
        key = (r.family, r.roles)
        if key in sigs:
            out.append(
                Finding(
                    r.scenario,
                    None,
                    "repeated_role_topology",
                    f"same coarse role topology as {sigs[key]!r} (role counts and role-to-role "
                    "edge counts all equal)",
                )
            )
        sigs.setdefault(key, r.scenario)
    fams = {r.family for r in ok}
    for fam in sorted(fams):
        group = [s for s in scenarios if s.family == fam]
        if len(group) < DOMINANCE_MIN_POOL:
            continue
        mech = Counter(tag_of(v) for s in group for v in s.variables if v.mechanism)
        root = Counter(v.distribution.family for s in group for v in s.variables if v.distribution)
        noise = Counter(
            v.noise.family for s in group for v in s.variables if v.noise.family != "none"
        )
        for what, cnt in (("mechanism", mech), ("root", root), ("noise", noise)):
            total = sum(cnt.values())
            if not total:
                continue
            top, n = cnt.most_common(1)[0]
            if n / total > DOMINANCE[what]:
                out.append(
                    Finding(
                        f"<pool:{fam}>",
                        None,
                        "family_dominance",
                        f"{what} family {top!r} is {n / total:.0%} of the {fam} pool "
                        f"(max {DOMINANCE[what]:.0%})",
                    )
                )
    return out


# ------------------------------------------------------------------------------ static rules


def _adder(rep: Report):
    def add(variable: str | None, rule: str, message: str, blocking: bool = True) -> None:
        rep.findings.append(Finding(rep.scenario, variable, rule, message, blocking))

    return add


def _static(sc: sch.Scenario, rep: Report, add) -> bool:
    """Structure rules; returns False when the scenario cannot be compiled."""
    import networkx as nx

    names = [v.name for v in sc.variables]
    fatal = False
    for n, c in Counter(names).items():
        if c > 1:
            add(n, "duplicate_id", f"variable name used {c} times")
            fatal = True
    for k in sc.constants:
        if k in names:
            add(k, "duplicate_id", "a constant and a variable share this name")
            fatal = True
    known = set(names)
    for v in sc.variables:
        for p in v.parents:
            if p not in known:
                add(v.name, "unknown_reference", f"parent {p!r} is not a declared variable")
                fatal = True
            if p == v.name:
                add(v.name, "cycle", "a variable cannot be its own parent")
                fatal = True
    targets = [iv.target for iv in sc.interventions]
    for t, c in Counter(targets).items():
        if c > 1:
            add(t, "duplicate_id", f"intervention target listed {c} times")
            fatal = True
    for iv in sc.interventions:
        var = sc.variable(iv.target)
        if var is None:
            add(iv.target, "unknown_reference", "intervention target is not a declared variable")
            fatal = True
            continue
        if not var.intervenable:
            add(iv.target, "not_intervenable", "target is not declared intervenable: true")
        _check_resampler(var, iv.resampler, add)
    if fatal:
        return False
    g = nx.DiGraph()
    g.add_nodes_from(names)
    g.add_edges_from((p, v.name) for v in sc.variables for p in v.parents)
    try:
        cyc = nx.find_cycle(g)
        add(cyc[0][1], "cycle", "directed cycle " + " -> ".join([e[0] for e in cyc] + [cyc[0][0]]))
        return False
    except nx.NetworkXNoCycle:
        pass
    for v in sc.variables:
        if g.degree(v.name) == 0:
            add(v.name, "isolated", "no parents and no children")
    # parents used by the mechanism
    for v in sc.variables:
        if v.mechanism is None:
            continue
        try:
            refs = references(sc, v)
        except CompileError as exc:
            add(v.name, "formula", exc.reason)
            fatal = True
            continue
        hidden = sorted(refs - set(v.parents))
        if hidden:
            add(v.name, "hidden_parent", f"mechanism reads {hidden} but they are not parents")
            fatal = True
        omitted = [p for p in v.parents if p not in refs]
        if omitted:
            add(v.name, "omitted_parent", f"parents {omitted} are not used by the mechanism")
    _check_scale_noise(sc, add)
    _check_formula_static(sc, add)
    _check_units_parse(sc, add)
    # size, families, sigmoid share
    lo, hi = SIZE[sc.family]
    if not lo <= len(names) <= hi:
        add(None, "size", f"{len(names)} variables; a {sc.family} scenario has {lo}-{hi}")
    structural = [v for v in sc.variables if v.mechanism is not None]
    tags = Counter(tag_of(v) for v in structural)
    if len(tags) < MIN_FAMILIES:
        add(None, "mechanism_families", f"{len(tags)} mechanism families {sorted(tags)}; need >= 3")
    if structural and tags.get("sigmoid_index", 0) / len(structural) > SIGMOID_MAX:
        add(
            None,
            "sigmoid_share",
            f"{tags['sigmoid_index']} of {len(structural)} children are generic sigmoids (> 25%)",
        )
    if sc.review is None:
        add(None, "unreviewed", "no independent review scores yet", blocking=False)
    elif is_self_review(sc.author, sc.review.reviewer):
        add(None, "self_review", f"reviewer {sc.review.reviewer!r} is the author")
    rep.graph = g
    rep.roles = _role_signature(sc, g)
    rep.stats = _stats(sc, g)
    return not fatal


def is_self_review(author: str, reviewer: str) -> bool:
    """Whether ``reviewer`` names the author: the reviewer's name (the text before any
    parenthesis) equals the author string, or equals one of its words, or contains the
    author's last word ("causalarena scenario author frm-b" vs "frm-b (independent)")."""
    name = reviewer.split("(", 1)[0].strip().lower()
    who = author.strip().lower()
    if not name or not who:
        return False
    words = who.split()
    return name == who or name in words or (len(words[-1]) > 2 and words[-1] in name.split())


def _check_resampler(var: sch.Variable, r: sch.Resampler, add) -> None:
    lo, hi = var.range
    vals: list[float] = []
    if r.kind == "uniform":
        vals = [r.low, r.high]
        if not r.low < r.high:
            add(var.name, "resampler_range", "uniform resampler needs low < high")
    elif r.kind == "choice":
        vals = list(r.values or [])
    elif r.kind == "fixed":
        vals = [r.value]
    elif r.kind == "percentile" and not 0 <= r.low_q < r.high_q <= 100:
        add(var.name, "resampler_range", "percentile resampler needs 0 <= low_q < high_q <= 100")
    for x in vals:
        if not lo <= x <= hi:
            add(var.name, "resampler_range", f"resampler value {x} is outside range [{lo}, {hi}]")
        if var.scale != "continuous" and float(x) != int(x):
            add(var.name, "resampler_range", f"{var.scale} value {x} is not an integer code")


#: Noise families that keep a discrete measurement scale: the value the mechanism writes is a
#: probability and the channel draws a code from it (Bernoulli: 0/1; binomial: 0..trials).
#: Every other family (additive, multiplicative, continuous or unbounded-count draws) moves a
#: code by a numeric amount before rounding, which treats a binary flag or an ordinal level as
#: an interval quantity and a categorical label as a number.
_SCALE_NOISES = {"binary": ("bernoulli",), "ordinal": ("bernoulli", "binomial"), "categorical": ()}


def _check_scale_noise(sc: sch.Scenario, add) -> None:
    """``scale_noise``: noise on a binary/ordinal/categorical child keeps its scale.

    Allowed: ``none`` everywhere; ``bernoulli`` on binary nodes, on ordinal nodes and on
    two-level categorical nodes (codes 0/1); ``binomial`` on binary nodes with ``trials: 1``
    and on ordinal nodes with ``trials`` <= K - 1 (codes 0..trials, in order).  Any other
    noise family on such a node is blocking (paper A.3 stage 4: node-level noise must respect
    the variable's measurement scale and range policy).
    """
    for v in sc.variables:
        fam = v.noise.family
        if v.mechanism is None or fam == "none" or v.scale not in _SCALE_NOISES:
            continue
        k = len(v.levels) if v.levels else 2
        allowed = list(_SCALE_NOISES[v.scale]) + (["bernoulli"] if k == 2 else [])
        if v.scale == "binary":
            allowed.append("binomial")  # with trials: 1, checked below
        if fam not in allowed:
            ok = ", ".join(dict.fromkeys(["none", *allowed]))
            add(
                v.name,
                "scale_noise",
                f"{fam} noise on a {v.scale} node breaks its measurement scale (it moves a "
                f"code by a numeric amount before rounding); allowed noise: {ok}",
            )
        elif fam == "binomial" and float(v.noise.params.get("trials", 0)) > k - 1:
            add(
                v.name,
                "scale_noise",
                f"binomial noise with trials={v.noise.params.get('trials')} draws codes above "
                f"the top {v.scale} code {k - 1}; use trials <= {k - 1}",
            )


def _check_formula_static(sc: sch.Scenario, add) -> None:
    formulas = [v for v in sc.variables if isinstance(v.mechanism, sch.OpFormula)]
    if sc.family != "formula":
        return
    if not formulas:
        add(None, "formula_missing", "a formula scenario needs at least one formula node")
    for v in formulas:
        if v.noise.family != "none":
            add(
                v.name,
                "formula_noise",
                f"formula node has {v.noise.family} noise; put it on a readout",
            )
        if v.scale != "continuous":
            add(v.name, "formula_scale", f"formula node is {v.scale}; its output would be rounded")
        try:
            f = formula_of(sc, v)
        except CompileError:
            continue
        lo, hi = v.range
        for tree in (f.explicit, f.relation[1]):
            for fname, args in ex.calls(tree):
                if fname in ("min", "max") and any(a[0] == "num" for a in args):
                    bound = [a[1] for a in args if a[0] == "num"][0]
                    near = " (a declared range bound)" if bound in (lo, hi) else ""
                    add(
                        v.name,
                        "formula_clipped",
                        f"equation clips with {fname}(..., {bound}){near}; formula outputs are "
                        "computed exactly, never clipped",
                    )
                    break


def _check_units_parse(sc: sch.Scenario, add) -> None:
    if sc.family != "formula":
        return
    from causalarena.generator.scenario.units import parse_unit

    for v in sc.variables:
        try:
            parse_unit(v.unit)
        except ValueError as exc:
            add(v.name, "unit", str(exc))
    for k, c in sc.constants.items():
        try:
            parse_unit(c.unit)
        except ValueError as exc:
            add(k, "unit", f"constant: {exc}")


def _role_signature(sc: sch.Scenario, g) -> tuple:
    def role(n: str) -> str:
        if g.in_degree(n) == 0:
            return "root"
        tag = tag_of(sc.variable(n))
        if tag in ("measurement_error", "calibration_offset"):
            return "readout"
        return "sink" if g.out_degree(n) == 0 else "inner"

    roles = {n: role(n) for n in g.nodes}
    nodes = tuple(sorted(Counter(roles.values()).items()))
    edges = tuple(sorted(Counter((roles[a], roles[b]) for a, b in g.edges).items()))
    return nodes, edges


def _stats(sc: sch.Scenario, g) -> dict[str, Any]:
    import networkx as nx

    structural = [v for v in sc.variables if v.mechanism is not None]
    noise = Counter(v.noise.family for v in sc.variables if v.mechanism is not None)
    return {
        "variables": g.number_of_nodes(),
        "edges": g.number_of_edges(),
        "roots": sum(1 for n in g if g.in_degree(n) == 0),
        "sinks": sum(1 for n in g if g.out_degree(n) == 0),
        "depth": nx.dag_longest_path_length(g),
        "targets": len(sc.interventions),
        "formula_nodes": sum(isinstance(v.mechanism, sch.OpFormula) for v in sc.variables),
        "mechanisms": dict(sorted(Counter(tag_of(v) for v in structural).items())),
        "roots_by_family": dict(
            sorted(Counter(v.distribution.family for v in sc.variables if v.distribution).items())
        ),
        "noise": dict(sorted(noise.items())),
        "no_noise_share": round(
            (sum(1 for v in sc.variables if v.noise.family == "none")) / len(sc.variables), 4
        ),
    }


# ------------------------------------------------------------------------------ data rules


def _data(sc: sch.Scenario, spec, rep: Report, add) -> None:
    from causalarena.generator.sample import sample
    from causalarena.generator.scenario.operations import ALL_MECHANISMS
    from causalarena.spec import SCMSpec

    try:
        obs = sample(spec, N_OBS, 0, scenario_seed(sc.id, 0))
        mix = sample(spec, N_MIX_OBS, N_MIX_INT, scenario_seed(sc.id, 1), counterfactual_check=True)
    except SpecError as exc:
        add(exc.variable, "non_finite", exc.reason + _non_finite_hint(sc, exc.variable))
        return
    try:  # rare rows: releases sample other seeds and more replicates than the gate
        sample(spec, N_STRESS, 0, scenario_seed(sc.id, 2))
    except SpecError as exc:
        add(
            exc.variable,
            "non_finite",
            f"in a {N_STRESS}-row stress sample: {exc.reason} (e.g. a noise mean that can turn "
            "negative, a ratio whose denominator can reach zero)"
            + _non_finite_hint(sc, exc.variable),
        )
        return
    d = spec.d
    idx = spec.index()
    # artifact agreement
    problems = []
    if obs.X.shape != (N_OBS, d) or mix.X.shape != (N_MIX_OBS + N_MIX_INT, d):
        problems.append(f"shapes {obs.X.shape}/{mix.X.shape}")
    if obs.names != spec.names or mix.names != [v.name for v in sc.variables]:
        problems.append("column names differ from the variables")
    want = np.zeros((d, d), dtype=np.int8)
    for v in sc.variables:
        for p in v.parents:
            want[idx[p], idx[v.name]] = 1
    if not (np.array_equal(mix.adjacency, want) and np.array_equal(obs.adjacency, want)):
        problems.append("adjacency differs from the declared parents")
    tcols = np.zeros(d, dtype=bool)
    tcols[[idx[iv.target] for iv in sc.interventions]] = True
    if mix.mask[:N_MIX_OBS].any() or obs.mask.any():
        problems.append("observational rows carry intervention marks")
    if mix.mask[:, ~tcols].any():
        problems.append("mask marks a variable outside the target pool")
    if not (mix.mask[N_MIX_OBS:].sum(axis=1) == 1).all():
        problems.append("an interventional row does not have exactly one target")
    if SCMSpec.from_json(spec.to_json()) != spec:
        problems.append("spec JSON does not round-trip")
    for pmsg in problems:
        add(None, "artifact_mismatch", pmsg)
    X = obs.X.astype(np.float64)
    XM = mix.X.astype(np.float64)
    M = mix.mask
    for j, v in enumerate(sc.variables):
        col = X[:, j]
        lo, hi = v.range
        if np.unique(col).size < 2:
            add(v.name, "constant", f"constant column (value {col[0]:.6g})")
            continue
        # columns are float32: compare with the float32 bounds, exactly
        flo, fhi = float(np.float32(lo)), float(np.float32(hi))
        allv = np.concatenate([col, XM[~M[:, j], j]])
        out = (allv < flo) | (allv > fhi)
        if out.any():
            add(
                v.name,
                "out_of_range",
                f"{int(out.sum())} of {allv.size} values outside [{lo}, {hi}] "
                f"(min {allv.min():.6g}, max {allv.max():.6g})",
            )
        if v.scale == "count":
            _count_integer(v, np.concatenate([col, XM[:, j]]), add)
        if v.scale == "continuous":
            at = float(np.mean((col == flo) | (col == fhi)))
            op = v.mechanism.op if v.mechanism else None
            if sc.family == "formula" and isinstance(v.mechanism, sch.OpFormula):
                if at > 0.01:
                    add(
                        v.name,
                        "formula_clipped",
                        f"{at:.1%} of formula values sit exactly on a range bound",
                    )
            elif at > BOUNDARY_MAX and not (v.justify.boundary and op in _BOUNDARY_OPS):
                add(
                    v.name,
                    "boundary_mass",
                    f"{at:.1%} of rows sit exactly on a range bound (max 10% without a "
                    "declared boundary op and justify.boundary)",
                )
        else:
            share = np.unique(col, return_counts=True)[1].max() / col.size
            if v.scale != "count" and share > DOMINANT and not v.justify.dominant_category:
                add(
                    v.name,
                    "dominant_category",
                    f"one level holds {share:.1%} of rows (max 90% without justify.dominant_category)",
                )
    _near_copies(sc, X, add)
    # mechanism use of parents: perturbation and batch checks
    perm = np.random.default_rng(zlib.crc32(sc.id.encode())).permutation(N_OBS)
    for j, v in enumerate(spec.variables):
        if v.role == "root":
            continue
        mech = ALL_MECHANISMS[v.mechanism.family]
        pidx = [idx[p] for p in v.parents]
        P = X[:, pidx]
        with np.errstate(all="ignore"):
            y = mech.evaluate(v.mechanism.params, P)
            head = mech.evaluate(v.mechanism.params, P[:7])
        if not np.allclose(head, y[:7], rtol=1e-12, atol=0, equal_nan=True):
            add(
                v.name, "batch_dependence", "output on 7 rows differs from the same rows in a batch"
            )
        for k, pname in enumerate(v.parents):
            P2 = P.copy()
            P2[:, k] = P[perm, k]
            with np.errstate(all="ignore"):
                y2 = mech.evaluate(v.mechanism.params, P2)
            changed = float(np.mean(~np.isclose(y, y2, rtol=1e-9, atol=1e-12, equal_nan=True)))
            if changed < PERTURB_MIN:
                add(
                    v.name,
                    "omitted_parent",
                    f"permuting parent {pname!r} changes the mechanism output in {changed:.1%} "
                    "of rows: the parent is not really used",
                )
        if v.noise.family == "none":
            with np.errstate(all="ignore"):
                f = mech.evaluate(v.mechanism.params, XM[:, pidx])
            if v.kind != "continuous":
                f = np.round(f)
            rows = ~M[:, j]
            scale = np.nanstd(XM[rows, j]) + 1e-12
            bad = ~np.isclose(XM[rows, j], f[rows], rtol=1e-5, atol=1e-5 * scale)
            if bad.mean() > 0.005:
                add(
                    v.name,
                    "recompute_mismatch",
                    f"{int(bad.sum())} non-intervened rows differ from the mechanism at their parents",
                )
    # interventions
    for t, info in mix.diagnostics.get("targets", {}).items():
        if info["rows"] == 0 or info["changed"] == 0:
            add(t, "target_unchanged", f"{info['changed']} of {info['rows']} targeted rows changed")
    cf = mix.diagnostics.get("counterfactual", {})
    if cf.get("observational_rows_changed", 0) or cf.get("rows_with_nondescendant_change", 0):
        add(None, "nondescendant_changed", f"counterfactual check: {cf}")
    if cf.get("rows_with_descendants", 0) and not cf.get("rows_with_descendants_changed", 0):
        add(None, "descendants_not_recomputed", f"counterfactual check: {cf}")
    if sc.family == "formula":
        _formula_data(sc, X, XM, M, add)


def _count_integer(v: sch.Variable, values: np.ndarray, add) -> None:
    """Warn when a count-scale variable has non-integer values (obs and obs+int rows).

    A warning, not a block: some shipped sub-counts are expected counts (means), which the
    lead reviews; see :data:`RULES`.
    """
    frac = values != np.round(values)
    if not frac.any():
        return
    example = float(values[np.flatnonzero(frac)[0]])
    add(
        v.name,
        "count_integer",
        f"{int(frac.sum())} of {values.size} sampled values are not integers (e.g. "
        f"{example:.6g}) on a count scale; give the node count noise (poisson, "
        "negative_binomial, binomial), a count resampler, or declare scale: continuous",
        blocking=False,
    )


def _non_finite_hint(sc: sch.Scenario, variable: str | None) -> str:
    """What a non-finite node needs: a negative-binomial mean inside its range (draws are nan
    outside it), or a formula written for its node instead of ``1/T = ...``."""
    from causalarena.generator.scenario.operations import NB_MAX_MEAN

    v = sc.variable(variable) if variable else None
    if v is None:
        return ""
    if v.noise.family == "negative_binomial":
        return (
            f"; negative-binomial noise needs its mean (the mechanism output) in "
            f"[0, {NB_MAX_MEAN:g}] in every row: lower the event rate or its exposure"
        )
    if isinstance(v.mechanism, sch.OpFormula):
        try:
            f = formula_of(sc, v)
        except CompileError:
            return ""
        if f.relation[0] != ("sym", f.target):
            m = v.mechanism
            out = next((a for a, t in m.symbols.items() if t == v.name), v.name)
            return (
                f"; '{m.equation}' defines {out} through its reciprocal (or another inverse), "
                "which is non-finite where the other side reaches zero: write the node explicitly as "
                f"'{out} = 1/(...)' and keep the denominator away from zero over the declared "
                "ranges"
            )
    return ""


def _near_copies(sc: sch.Scenario, X: np.ndarray, add) -> None:
    """Pearson |corr| >= 0.90 between continuous columns (paper A.3 stage 5), and
    |corr| >= 0.99 between two count, two binary or two ordinal columns (an exact or
    near-exact alias, which the continuous rule does not see).  A categorical parent's
    property lookup (material -> density) is a mechanism, not a pair of the same scale."""
    if len(sc.variables) < 2:
        return
    ok = X.std(axis=0) > 0
    with np.errstate(all="ignore"):
        C = np.abs(np.corrcoef(X, rowvar=False))
    scale = [v.scale for v in sc.variables]
    for a in range(len(sc.variables)):
        for b in range(a + 1, len(sc.variables)):
            if not (ok[a] and ok[b]) or scale[a] != scale[b]:
                continue
            r = C[a, b]
            limit = NEAR_COPY if scale[a] == "continuous" else ALIAS
            if r >= limit:
                va, vb = sc.variables[a], sc.variables[b]
                if vb.name in va.justify.near_copy or va.name in vb.justify.near_copy:
                    continue
                add(
                    vb.name,
                    "near_copy",
                    f"|corr| with {va.name!r} is {r:.3f} (>= {limit:.2f}); add noise, drop the "
                    "alias, or justify it under justify.near_copy",
                )


def _formula_data(sc: sch.Scenario, X: np.ndarray, XM: np.ndarray, M: np.ndarray, add) -> None:
    from causalarena._extras import require

    sp = require("sympy", "build", "compiling semantic/formula scenarios")

    from causalarena.generator.scenario.units import check_formula

    names = [v.name for v in sc.variables]
    col = {n: i for i, n in enumerate(names)}
    medians = {n: float(np.median(X[:, i])) for n, i in col.items()}
    for v in sc.variables:
        if not isinstance(v.mechanism, sch.OpFormula):
            continue
        f = formula_of(sc, v)
        values = {**medians, **{k: c.value for k, c in sc.constants.items()}}
        units = {
            **{u.name: u.unit for u in sc.variables},
            **{k: c.unit for k, c in sc.constants.items()},
        }
        problem = check_formula(f.explicit, v.unit, values, units)
        if problem:
            add(v.name, "unit", problem)
        # residual of the relation as written, via an independent sympy.lambdify path
        used = sorted(ex.symbols(f.relation[0]) | ex.symbols(f.relation[1]))
        syms = sympy_symbols(sc, set(used))
        resid = ex.to_sympy(f.relation[0], syms) - ex.to_sympy(f.relation[1], syms)
        # scale: |lhs| + |rhs| plus the float32 rounding of every stored input propagated
        # through the relation (sum of |x * d resid / dx|), so a relation that cancels near
        # zero (log(C / C_0) at C ~ C_0) is judged by what float32 columns can represent
        scale_expr = (
            sp.Abs(ex.to_sympy(f.relation[0], syms))
            + sp.Abs(ex.to_sympy(f.relation[1], syms))
            + sum(sp.Abs(syms[u] * sp.diff(resid, syms[u])) for u in used if u in col)
        )
        fn = sp.lambdify([syms[u] for u in used], [resid, scale_expr], modules="numpy")
        for data, mask in ((X, np.zeros_like(M[: X.shape[0]])), (XM, M)):
            rows = ~mask[:, col[v.name]]
            args = [
                data[rows, col[u]] if u in col else np.full(rows.sum(), sc.constants[u].value)
                for u in used
            ]
            with np.errstate(all="ignore"):
                r, s = (np.broadcast_to(np.asarray(a, float), (rows.sum(),)) for a in fn(*args))
            bad = ~(np.abs(r) <= RESIDUAL_RTOL * s + 1e-12)
            if bad.any():
                worst = float(np.nanmax(np.abs(r) / np.maximum(s, 1e-300)))
                add(
                    v.name,
                    "formula_residual",
                    f"{int(bad.sum())} non-intervened rows violate '{v.mechanism.equation}' "
                    f"(worst relative residual {worst:.3g} > {RESIDUAL_RTOL:g})",
                )
                break


# ------------------------------------------------------------------------------ output


def format_report(reports: list[Report], pool: list[Finding]) -> str:
    """Plain-text report: one block per scenario, then pool findings and a summary line."""
    lines = []
    for r in reports:
        status = "FAIL" if r.blocking else "PASS"
        head = f"{status} {r.scenario}"
        if r.family:
            head += f" ({r.family}/{r.domain})"
        if r.file:
            head += f"  [{r.file}]"
        lines.append(head)
        s = r.stats
        if s:
            lines.append(
                f"  {s['variables']} variables, {s['edges']} edges, {s['roots']} roots, "
                f"{s['sinks']} sinks, depth {s['depth']}, {s['targets']} targets, "
                f"{s['formula_nodes']} formula nodes, no-noise share {s['no_noise_share']:.0%}"
            )
            lines.append(
                "  mechanisms: " + ", ".join(f"{k} {n}" for k, n in s["mechanisms"].items())
            )
            if s["noise"]:
                lines.append("  noise: " + ", ".join(f"{k} {n}" for k, n in s["noise"].items()))
        lines += [f.line() for f in r.findings]
    if pool:
        lines.append("pool:")
        lines += [f.line() for f in pool]
    nblock = sum(len(r.blocking) for r in reports) + sum(f.blocking for f in pool)
    npass = sum(1 for r in reports if not r.blocking)
    lines.append(
        f"{npass} of {len(reports)} scenarios pass; {nblock} blocking finding(s)"
        + ("" if math.isfinite(nblock) else "")
    )
    return "\n".join(lines)


def check_paths(paths: list[str | Path]) -> tuple[list[Report], list[Finding]]:
    """Gate files (folders are searched for ``*.yaml``) and the pool they form.

    Links out of a folder are refused (see
    :func:`causalarena.generator.scenario.pool.find_scenario_files`) with a ``file`` finding.
    """
    from causalarena.generator.scenario.pool import find_scenario_files

    files, refused = find_scenario_files(list(paths))
    reports = [refused_file(f, why) for f, why in refused]
    scenarios = []
    for f in files:
        rep, sc = check_file(f)
        reports.append(rep)
        if sc is not None and rep.graph is not None:
            scenarios.append(sc)
    return reports, check_pool(reports, scenarios)
