"""Baseline agents for lab episodes (CausaLab section 5; issue 12).

- ``random``: spends the whole budget on random interventions (a random controllable
  property set to ``U(0, 100)``), states a random DAG whose target equation has zero
  coefficients, and submits the mean observed frequency once.
- ``scientist``: a scripted experimenter.  It uses the prior records, sets every controllable
  property once (twice for the quadratic family) by a fixed step, reads which properties moved
  (their descendants), fits each property's equation on its ancestors by least squares on the
  manipulator's differences (linear: ``dY = sum w dA``; quadratic: features ``dA, d(A^2)``)
  and the target equation on every record, keeps the terms that matter, verifies the
  hypothesis with the environment's consistency check (section 5.5), spends any remaining
  budget on further interventions when the check fails, and submits; after a wrong submission
  it refits without pruning and submits again (at most 3).

Both agents use only the public :class:`causalarena.generator.lab.env.LabEnv` methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from causalarena.generator.lab.env import LabEnv

STEP = 40.0


def _hyp(
    target: str, edges: set, base: float, terms: dict[str, tuple[float, ...]], quad: bool
) -> dict:
    parts, coefs = ["base"], {"base": float(base)}
    for p in sorted(terms):
        cs = terms[p]
        if quad:
            parts += [f"c_{p}_1*{p}", f"c_{p}_2*{p}**2"]
            coefs[f"c_{p}_1"], coefs[f"c_{p}_2"] = (
                float(cs[0]),
                float(cs[1] if len(cs) > 1 else 0.0),
            )
        else:
            parts.append(f"c_{p}*{p}")
            coefs[f"c_{p}"] = float(cs[0])
    edges = {e for e in edges if e[1] != target} | {(p, target) for p in terms}
    return {
        "edges": [{"from": a, "to": b} for a, b in sorted(edges)],
        "freq_equation": f"{target} = " + " + ".join(parts),
        "coefficients": coefs,
    }


def play_random(env: LabEnv, seed: int = 0) -> None:
    """The ``random`` agent (see module docstring)."""
    rng = np.random.default_rng(seed)
    d = env.describe()
    tgt, props, ctrl = d["target"], d["properties"], d["controllable"]

    def hypothesis() -> dict:
        order = [props[i] for i in rng.permutation(len(props))] + [tgt]
        edges = {(a, b) for i, a in enumerate(order) for b in order[i + 1 :] if rng.random() < 0.5}
        freqs = [o["freq"] for o in env.observations()]
        parents = {a for a, b in edges if b == tgt}
        return _hyp(
            tgt,
            edges,
            float(np.mean(freqs)),
            {p: (0.0, 0.0) for p in parents},
            d["equation_family"] == "quadratic",
        )

    env.record(hypothesis())
    while ctrl and env.describe()["budget_left"] > 0:
        env.intervene(ctrl[int(rng.integers(len(ctrl)))], float(np.round(rng.uniform(0, 100), 2)))
        env.record(hypothesis())
    mean = float(np.mean([o["freq"] for o in env.observations()]))
    env.submit(mean, hypothesis())


# ------------------------------------------------------------------------ scientist
def _pairs(obs: list[dict]) -> list[tuple[dict, dict]]:
    """(before, after) reading pairs of each intervention on one crystal."""
    last: dict[str, dict] = {}
    out = []
    for r in obs:
        c = r.get("crystal")
        if r.get("intervention") and c in last:
            out.append((last[c], r))
        if c is not None:
            last[c] = r
    return out


def _vals(r: dict, tgt: str) -> dict[str, float]:
    return {**r["props"], tgt: r["freq"]}


def _descendants(obs: list[dict], tgt: str, tol: float) -> dict[str, set[str]]:
    """Majority vote over interventions on each property: which variables moved."""
    votes: dict[str, dict[str, int]] = {}
    count: dict[str, int] = {}
    for a, b in _pairs(obs):
        p = b["intervention"]["target_prop"]
        va, vb = _vals(a, tgt), _vals(b, tgt)
        if abs(vb[p] - va[p]) < 1e-9:
            continue  # a null intervention says nothing about descendants
        count[p] = count.get(p, 0) + 1
        for q in vb:
            if q != p and abs(vb[q] - va[q]) > tol:
                votes.setdefault(p, {}).setdefault(q, 0)
                votes[p][q] += 1
    return {p: {q for q, n in votes.get(p, {}).items() if 2 * n > count[p]} for p in count}


def _features(x: np.ndarray, quad: bool) -> np.ndarray:
    return np.column_stack([x, x**2]) if quad else x


def _round(w: float) -> float:
    r = round(w)
    return float(r) if abs(w - r) < 1e-3 else round(float(w), 6)


def _keep(cs: np.ndarray, quad: bool, span: float) -> bool:
    """Does a fitted term matter?  Its effect over a span of the parent exceeds 2 units."""
    if quad:
        return abs(cs[0]) * span + abs(cs[1]) * span**2 > 2.0
    return abs(cs[0]) > 0.3


def fit_hypothesis(
    obs: list[dict], describe: dict[str, Any], prune: bool = True, tol: float = 1e-6
) -> dict:
    """The scientist's hypothesis from the records so far (see module docstring)."""
    tgt, props = describe["target"], describe["properties"]
    quad = describe["equation_family"] == "quadratic"
    desc = _descendants(obs, tgt, tol)
    known = set(desc)

    def n_anc(y: str) -> int:
        return sum(1 for p in known if y in desc[p])

    rank = {y: (n_anc(y), y) for y in [*props, tgt]}
    tgt_moves = {p for p in known if tgt in desc[p]}

    def anc(y: str) -> list[str]:
        out = [p for p in props if p != y and p in known and y in desc[p]]
        out += [p for p in props if p != y and p not in known]  # untested: candidates
        if y != tgt and any(y in desc[p] for p in tgt_moves):
            out.append(tgt)  # the target may be a parent (FreqParent suites)
        return [p for p in out if rank[p] < rank[y]]  # a strict order keeps the graph acyclic

    edges: set[tuple[str, str]] = set()
    pairs = _pairs(obs)
    for y in props:
        cand = anc(y)
        if not cand:
            continue
        rows = [(a, b) for a, b in pairs if b["intervention"]["target_prop"] != y]
        X = np.array(
            [[_vals(b, tgt)[c] - _vals(a, tgt)[c] for c in cand] for a, b in rows]
        ).reshape(-1, len(cand))
        if quad:
            X2 = np.array(
                [[_vals(b, tgt)[c] ** 2 - _vals(a, tgt)[c] ** 2 for c in cand] for a, b in rows]
            ).reshape(-1, len(cand))
            X = np.column_stack([X, X2])
        yv = np.array([_vals(b, tgt)[y] - _vals(a, tgt)[y] for a, b in rows])
        if len(rows) >= X.shape[1] and np.linalg.matrix_rank(X) == X.shape[1]:
            w = np.linalg.lstsq(X, yv, rcond=None)[0]
            k = len(cand)
            for i, c in enumerate(cand):
                cs = np.array([w[i], w[k + i]]) if quad else np.array([w[i]])
                if _keep(cs, quad, 50.0):
                    edges.add((c, y))
        else:  # too little data: the direct ancestors only (transitive reduction)
            for c in cand:
                if c in known and not any(c in anc(o) for o in cand if o != c and o in known):
                    edges.add((c, y))
    cand = anc(tgt)
    if len(obs) >= len(props) + 3:  # enough records: regress on every property, prune after
        cand = list(props)
    A = np.array([[r["props"][c] for c in cand] for r in obs]).reshape(len(obs), len(cand))
    F = np.column_stack([np.ones(len(obs)), _features(A, quad)]) if cand else np.ones((len(obs), 1))
    fv = np.array([r["freq"] for r in obs])
    w = np.linalg.lstsq(F, fv, rcond=None)[0]
    k = len(cand)

    def term(i: int) -> np.ndarray:
        return np.array([w[1 + i], w[1 + k + i]]) if quad else np.array([w[1 + i]])

    keep = [c for i, c in enumerate(cand) if not prune or _keep(term(i), quad, 50.0)]
    if prune and len(keep) < len(cand) and keep:
        A = np.array([[r["props"][c] for c in keep] for r in obs]).reshape(len(obs), len(keep))
        F = np.column_stack([np.ones(len(obs)), _features(A, quad)])
        w = np.linalg.lstsq(F, fv, rcond=None)[0]
        k = len(keep)
        cand = keep
    elif prune and not keep:
        w, k, cand = np.array([fv.mean()]), 0, []
    terms = {}
    for i, c in enumerate(cand):
        cs = term(i)
        terms[c] = (
            tuple(_round(x) for x in cs) if not quad else tuple(round(float(x), 8) for x in cs)
        )
    # the target's terms first, then property edges from the lowest rank; skip any edge that
    # would close a cycle
    kept: set[tuple[str, str]] = {(p, tgt) for p in terms}
    for a, b in sorted(edges, key=lambda e: (rank[e[1]], rank[e[0]])):
        if b != tgt and not _reaches(kept, b, a):
            kept.add((a, b))
    return _hyp(tgt, kept, round(float(w[0]), 6), terms, quad)


def _reaches(edges: set[tuple[str, str]], a: str, b: str) -> bool:
    """Is there a directed path a -> ... -> b?"""
    stack, seen = [a], {a}
    while stack:
        x = stack.pop()
        if x == b:
            return True
        for u, v in edges:
            if u == x and v not in seen:
                seen.add(v)
                stack.append(v)
    return False


def _predict(h: dict, props: dict[str, float]) -> float:
    """Evaluate a hypothesis built by :func:`_hyp` on property readings."""
    c = h["coefficients"]
    total = c["base"]
    for p, x in props.items():
        total += c.get(f"c_{p}", 0.0) * x
        total += c.get(f"c_{p}_1", 0.0) * x + c.get(f"c_{p}_2", 0.0) * x**2
    return float(total)


def play_scientist(env: LabEnv, seed: int = 0) -> None:
    """The ``scientist`` agent (see module docstring)."""
    rng = np.random.default_rng(seed)
    d = env.describe()
    ctrl = d["controllable"]
    quad = d["equation_family"] == "quadratic"
    env.record(fit_hypothesis(env.observations(), d))
    tol = 1e-6
    rounds = 2 if quad else 1
    if d["budget_left"] > rounds * len(ctrl) and ctrl:  # noise probe: a null intervention
        before = env.manipulator()
        p = ctrl[0]
        after = env.intervene(p, before["props"][p])
        noise = max(abs(after["props"][q] - before["props"][q]) for q in before["props"])
        noise = max(noise, abs(after["freq"] - before["freq"]))
        tol = max(1e-6, 2.5 * noise)
    for r in range(rounds):
        for p in ctrl:
            if env.describe()["budget_left"] <= 0:
                break
            cur = env.manipulator()["props"][p]
            env.intervene(p, round(cur + (STEP if r == 0 else -2 * STEP), 2))
            env.record(fit_hypothesis(env.observations(), d, tol=tol))
    h = fit_hypothesis(env.observations(), d, tol=tol)
    while not env.check(h)["consistent"] and env.describe()["budget_left"] > 0 and ctrl:
        p = ctrl[int(rng.integers(len(ctrl)))]
        env.intervene(p, float(np.round(rng.uniform(0, 100), 2)))
        h = fit_hypothesis(env.observations(), d, tol=tol)
        env.record(h)
    reactor = env.reactor()
    tried: list[float] = []
    for cand in (h, fit_hypothesis(env.observations(), d, prune=False, tol=tol)):
        pred = _predict(cand, reactor)
        if env.done or any(abs(pred - t) < 1e-6 for t in tried):
            continue
        tried.append(pred)
        if env.submit(pred, cand)["correct"]:
            return
    if not env.done and not tried:
        env.submit(float(np.mean([o["freq"] for o in env.observations()])), h)


LAB_AGENTS: dict[str, Callable[[LabEnv, int], None]] = {
    "random": play_random,
    "scientist": play_scientist,
}


def get_agent(name: str) -> Callable[[LabEnv, int], None]:
    """Look up a lab agent.

    Raises
    ------
    LabError
        If the name is unknown (the message lists the agents).
    """
    from causalarena.errors import LabError

    if name not in LAB_AGENTS:
        raise LabError(f"unknown lab agent {name!r}; agents: {sorted(LAB_AGENTS)}")
    return LAB_AGENTS[name]
