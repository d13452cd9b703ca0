"""Scoring of lab episodes: task success and mechanism recovery (CausaLab section 3.3,
appendix A.9 Tables 7 and 8).

- task success: ``|prediction - held-out| < 5`` (strict) for the best of at most 3
  submissions;
- all-edge precision / recall / F1 over directed edges; directed SHD = missing + extra +
  reversed, a reversed edge counted once;
- target-edge P/R/F1 over the parents of the target; target-weight P/R/F1: a predicted parent
  is a hit when it is a true parent and every coefficient of its term is within ``1e-6``;
- root P/R/F1 over the parentless ancestors of the target (each graph's own);
- formula error: ``|f_H(reactor) - held-out|`` for the final hypothesis;
- IMEC size: the number of DAGs in the interventional Markov equivalence class of the true
  DAG given the observational regime plus every single-property intervention the agent had
  data from (Hauser and Buehlmann 2012: same skeleton, same v-structures, and the same
  orientation of every edge with exactly one endpoint in an intervention target), counted by
  enumerating the orientations of the skeleton's free edges (exact for lab-sized graphs).

Conventions: ``P = TP / |predicted|`` (0 when nothing is predicted), ``R = TP / |true|``
(1 when the truth is empty), ``F1 = 2PR / (P + R)`` (0 when both are 0); when both sets are
empty, P = R = F1 = 1.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from causalarena.generator.lab.episode import SUCCESS_TOL, Episode
from causalarena.generator.lab.graph import Edge, ancestors
from causalarena.generator.lab.hypothesis import Hypothesis, consistency, parse_hypothesis

WEIGHT_TOL = 1e-6
#: Largest number of free skeleton edges enumerated by :func:`imec_size`.
MAX_FREE_EDGES = 22


def prf(pred: Iterable, true: Iterable) -> tuple[float, float, float]:
    """Precision, recall and F1 of a predicted set against a true set (module conventions)."""
    p_set, t_set = set(pred), set(true)
    if not p_set and not t_set:
        return 1.0, 1.0, 1.0
    tp = len(p_set & t_set)
    p = tp / len(p_set) if p_set else 0.0
    r = tp / len(t_set) if t_set else 1.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def shd(pred: Iterable[Edge], true: Iterable[Edge]) -> int:
    """Directed SHD: missing + extra + reversed edges, a reversal counted once."""
    P, T = set(pred), set(true)
    pairs = {frozenset(e) for e in P | T}
    d = 0
    for pr in pairs:
        a, b = tuple(pr)
        tp = {e for e in ((a, b), (b, a)) if e in P}
        tt = {e for e in ((a, b), (b, a)) if e in T}
        if tp != tt:
            d += 1
    return d


def target_parents(edges: Iterable[Edge], target: str) -> set[str]:
    return {a for a, b in edges if b == target}


def target_roots(edges: Iterable[Edge], target: str) -> set[str]:
    """Parentless ancestors of the target."""
    es = list(edges)
    children = {b for _, b in es}
    return {a for a in ancestors(target, es) if a not in children}


def true_terms(episode: Episode) -> dict[str, tuple[float, ...]]:
    """``{parent: coefficients of p, p^2}`` of the target's true equation."""
    v = next(x for x in episode.spec.variables if x.name == episode.target)
    p = v.mechanism.params
    if v.mechanism.family == "linear":
        return {q: (float(w),) for q, w in zip(v.parents, p["weights"], strict=True)}
    return {q: tuple(float(c) for c in cs) for q, cs in zip(v.parents, p["coefs"], strict=True)}


def weight_prf(
    terms: Mapping[str, Sequence[float]],
    truth: Mapping[str, Sequence[float]],
    tol: float = WEIGHT_TOL,
) -> tuple[float, float, float]:
    """Target-weight P/R/F1: a hit is a true parent whose every coefficient is within ``tol``."""

    def close(a: Sequence[float], b: Sequence[float]) -> bool:
        n = max(len(a), len(b))
        a = list(a) + [0.0] * (n - len(a))
        b = list(b) + [0.0] * (n - len(b))
        return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))

    hits = {p for p, cs in terms.items() if p in truth and close(cs, truth[p])}
    if not terms and not truth:
        return 1.0, 1.0, 1.0
    pr = len(hits) / len(terms) if terms else 0.0
    rc = len(hits) / len(truth) if truth else 1.0
    return pr, rc, (2 * pr * rc / (pr + rc) if pr + rc > 0 else 0.0)


def _acyclic(nodes: Sequence[str], edges: Iterable[Edge]) -> bool:
    indeg = dict.fromkeys(nodes, 0)
    ch: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        indeg[b] += 1
        ch[a].append(b)
    stack = [n for n in nodes if indeg[n] == 0]
    seen = 0
    while stack:
        n = stack.pop()
        seen += 1
        for c in ch[n]:
            indeg[c] -= 1
            if indeg[c] == 0:
                stack.append(c)
    return seen == len(nodes)


def v_structures(edges: Iterable[Edge]) -> set[tuple[str, str, str]]:
    """Unshielded colliders ``(a, c, b)`` with ``a < b``: ``a -> c <- b``, a and b non-adjacent."""
    es = set(edges)
    adj = {frozenset(e) for e in es}
    par: dict[str, list[str]] = {}
    for a, b in es:
        par.setdefault(b, []).append(a)
    out = set()
    for c, ps in par.items():
        for a, b in itertools.combinations(sorted(ps), 2):
            if frozenset((a, b)) not in adj:
                out.add((a, c, b))
    return out


def imec_size(
    nodes: Sequence[str], edges: Iterable[Edge], targets: Iterable[Iterable[str]] = ()
) -> int:
    """Number of DAGs interventionally Markov equivalent to ``edges`` (see module docstring).

    Parameters
    ----------
    nodes : sequence of str
    edges : iterable of (parent, child)
        The true DAG.
    targets : iterable of iterables of str
        Intervention targets (the observational regime, the empty target, is always included).

    Raises
    ------
    ValueError
        If more than :data:`MAX_FREE_EDGES` edges are left free (enumeration too large).
    """
    es = sorted(set(edges))
    tsets = [set(t) for t in targets if t]
    fixed = [e for e in es if any((e[0] in t) != (e[1] in t) for t in tsets)]
    free = [e for e in es if e not in fixed]
    if len(free) > MAX_FREE_EDGES:
        raise ValueError(
            f"imec_size: {len(free)} free edges exceed the enumeration limit {MAX_FREE_EDGES}"
        )
    vs = v_structures(es)
    n = 0
    for flips in itertools.product((False, True), repeat=len(free)):
        g = fixed + [(b, a) if f else (a, b) for (a, b), f in zip(free, flips, strict=True)]
        if _acyclic(nodes, g) and v_structures(g) == vs:
            n += 1
    return n


def _parse(episode: Episode, h: Any) -> Hypothesis | None:
    if h is None:
        return None
    try:
        return parse_hypothesis(
            h, episode.properties, episode.lab["equation_family"], episode.target
        )
    except Exception:  # noqa: BLE001 - a hypothesis that does not parse scores as empty
        return None


def mechanism_metrics(episode: Episode, h: Hypothesis | None) -> dict[str, float]:
    """Every recovery metric of one hypothesis against the episode's hidden SCM."""
    true_e = set(episode.edges)
    tgt = episode.target
    pred_e = set(h.edges) if h else set()
    ep, er, ef = prf(pred_e, true_e)
    tp, tr, tf = prf(target_parents(pred_e, tgt), target_parents(true_e, tgt))
    wp, wr, wf = weight_prf(h.terms if h else {}, true_terms(episode))
    rp, rr, rf = prf(target_roots(pred_e, tgt), target_roots(true_e, tgt))
    ferr = abs(h.predict(episode.reactor_visible()) - episode.held_out()) if h else math.nan
    return {
        "edge_precision": ep,
        "edge_recall": er,
        "edge_f1": ef,
        "shd": float(shd(pred_e, true_e)),
        "target_edge_precision": tp,
        "target_edge_recall": tr,
        "target_edge_f1": tf,
        "target_weight_precision": wp,
        "target_weight_recall": wr,
        "target_weight_f1": wf,
        "root_precision": rp,
        "root_recall": rr,
        "root_f1": rf,
        "formula_error": ferr,
    }


def task_success(
    predictions: Sequence[float], truth: float, tol: float = SUCCESS_TOL
) -> tuple[bool, float]:
    """``(success, best absolute error)`` over at most the first 3 submissions."""
    errs = [abs(float(p) - truth) for p in list(predictions)[:3]]
    best = min(errs) if errs else math.inf
    return best < tol, best


def score_episode(episode: Episode, transcript: Mapping[str, Any]) -> dict[str, Any]:
    """One result row from an episode and the environment's transcript.

    The final hypothesis is the last valid recorded one (none: every recovery metric scores
    the empty graph).  ``trajectory`` lists ``(step, edge_f1, target_edge_f1,
    target_weight_f1, shd)`` per recorded hypothesis.
    """
    hyps = transcript.get("hypotheses", [])
    valid = [x for x in hyps if x.get("valid")]
    final = _parse(episode, valid[-1]["hypothesis"]) if valid else None
    succ, best = task_success(
        [s["prediction"] for s in transcript.get("submissions", [])], episode.held_out()
    )
    m = mechanism_metrics(episode, final)
    traj = []
    for x in hyps:
        hm = mechanism_metrics(
            episode, _parse(episode, x.get("hypothesis")) if x.get("valid") else None
        )
        traj.append(
            [x["step"], hm["edge_f1"], hm["target_edge_f1"], hm["target_weight_f1"], hm["shd"]]
        )
    obs = transcript.get("observations", [])
    targets = {o["intervention"]["target_prop"] for o in obs if o.get("intervention")}
    imec = imec_size(episode.spec.names, episode.edges, [{t} for t in targets])
    cons = consistency(final, obs)["consistent"] if final and obs else False
    return {
        "episode_id": episode.episode_id,
        "suite": episode.suite,
        "config": episode.config,
        "n_nodes": episode.spec.d,
        "success": bool(succ),
        "best_error": best if math.isfinite(best) else None,
        "n_submissions": len(transcript.get("submissions", [])),
        "budget": episode.budget,
        "budget_used": int(transcript.get("budget_used", 0)),
        "n_hypotheses": len(hyps),
        "n_invalid_hypotheses": len(hyps) - len(valid),
        "final_consistent": bool(cons),
        "imec_size": imec,
        **{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in m.items()},
        "trajectory": json.dumps(traj),
    }
