"""The synthetic SCM family of the arena (CausalArena paper, section 4.1 and appendix A.1).

An SCM of the synthetic pool is identified by its index ``i`` in the pool of
``len(GRAPH_FAMILIES) * len(DIMENSIONS) * scms_per_block`` configurations (block = one graph
family x one dimension d).  :func:`draw_spec` turns ``(seed, i, attempt)`` into a calibrated
:class:`~causalarena.spec.SCMSpec`:

1. graph: :func:`causalarena.generator.graphs.sample_graph` for the block's family and d
   (validity filters of A.1/A.2, nodes shuffled out of topological order);
2. family mixing (A.1, "Family mixing"): the number of active mechanism and noise families
   grows with d (2-4 at d=10, 3-5 at 20, 4-6 at 30, 5-8 at 50, 6-10 at 100); the number of
   active root families depends on the number of roots (1; 1-2 for <= 3 roots; 2-4 for <= 8;
   3-6 otherwise); every active family is used by at least one node when there are enough
   nodes, the rest are assigned uniformly; at most 10% of the nodes get the no-noise option;
3. root dependency (A.1, "Root dependency"): 4 of every 20 SCMs in a block (200 of 1,000) use a
   dependent root block, cycling over common-factor, random-covariance and uniform-ball;
4. difficulty schedule (A.1, "Difficulty variants"): within a block, SCM ``k`` is clean when
   ``k % 4 == 0``, has one stressor when ``k % 4`` is 1 or 2, and two stressors from different
   groups when ``k % 4 == 3``; stressors cycle deterministically so all 8 are covered;
5. interventions (A.1, "Interventions"): a target pool whose size grows with d (2-4, 3-6,
   4-8, 5-12, 8-20), roots allowed, hard do-resampling from the 10th-90th percentile;
6. calibration: :func:`causalarena.generator.sample.calibrate` fixes every node's output
   standardisation and data-dependent noise constants on a 2,000-row pilot.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from causalarena.generator.graphs import GRAPH_FAMILIES, sample_graph
from causalarena.generator.sample import _stream as stream
from causalarena.generator.sample import calibrate
from causalarena.spec import STRESSOR_GROUPS, SCMSpec

DIMENSIONS: tuple[int, ...] = (10, 20, 30, 50, 100)
STRESSORS: tuple[str, ...] = tuple(STRESSOR_GROUPS)
DEPENDENT_KINDS: tuple[str, ...] = ("common_factor", "random_covariance", "uniform_ball")
#: Active mechanism/noise family counts by d (paper A.1, "Family mixing").
FAMILY_COUNT: dict[int, tuple[int, int]] = {
    10: (2, 4),
    20: (3, 5),
    30: (4, 6),
    50: (5, 8),
    100: (6, 10),
}
#: Intervention target-pool size by d (paper A.1, "Target-pool size").
TARGET_POOL: dict[int, tuple[int, int]] = {
    10: (2, 4),
    20: (3, 6),
    30: (4, 8),
    50: (5, 12),
    100: (8, 20),
}
NO_NOISE_CAP = 0.10
PILOT_ROWS = 2000
GENERATOR_REV = 1


def _bucket(d: int, table: dict[int, tuple[int, int]]) -> tuple[int, int]:
    for key in sorted(table):
        if d <= key:
            return table[key]
    return table[max(table)]


def suite_key(name: str) -> int:
    """Stable 32-bit key of a suite name (CRC-32), used in every seed spawn key."""
    return zlib.crc32(name.encode())


def block_of(index: int, scms_per_block: int) -> tuple[str, int, int]:
    """``(graph_family, d, k)`` of pool index ``index`` (k = position inside the block)."""
    b, k = divmod(index, scms_per_block)
    f, di = divmod(b, len(DIMENSIONS))
    if f >= len(GRAPH_FAMILIES):
        raise IndexError(f"SCM index {index} is outside the pool")
    return GRAPH_FAMILIES[f], DIMENSIONS[di], k


def dependency_for(index: int, scms_per_block: int) -> str:
    """Root-dependency label of pool index ``index``: 4 of 20 per block are dependent."""
    _, _, k = block_of(index, scms_per_block)
    per_block = max(1, round(scms_per_block * 0.2))
    step = scms_per_block / per_block
    slots = [int(step * s + step - 1) for s in range(per_block)]
    if k not in slots:
        return "independent"
    b = index // scms_per_block
    return DEPENDENT_KINDS[(b * per_block + slots.index(k)) % len(DEPENDENT_KINDS)]


def difficulty_for(index: int, scms_per_block: int) -> list[str]:
    """Stressors of pool index ``index`` following the clean/single/single/paired cycle."""
    _, _, k = block_of(index, scms_per_block)
    b = index // scms_per_block
    phase = k % 4
    if phase == 0:
        return []
    cycle = b * scms_per_block + k
    if phase in (1, 2):
        return [STRESSORS[(2 * (cycle // 4) + phase - 1) % len(STRESSORS)]]
    first = STRESSORS[(cycle // 4) % len(STRESSORS)]
    groups = [s for s in STRESSORS if STRESSOR_GROUPS[s] != STRESSOR_GROUPS[first]]
    return [first, groups[(cycle // 4 * 3) % len(groups)]]


def _assign(names: list[str], families: list[str], rng: np.random.Generator) -> list[str]:
    """Give every active family at least one node (if possible), the rest uniformly."""
    n = len(names)
    out = list(rng.choice(families, size=n))
    order = rng.permutation(n)
    for f, pos in zip(families, order, strict=False):
        out[pos] = f
    return [str(x) for x in out]


def _stressor_params(
    kind: str, names: list[str], kinds: list[str], targets: list[str], rng: np.random.Generator
) -> dict[str, Any]:
    if kind == "weak_signal":
        return {"factor": 0.45}
    if kind == "high_noise":
        return {"scale": 0.35}
    if kind == "feature_warping":
        cont = [n for n, k in zip(names, kinds, strict=True) if k == "continuous"]
        m = max(1, round(0.55 * len(cont)))
        cols = sorted(rng.choice(cont, size=m, replace=False).tolist(), key=names.index)
        return {
            "columns": cols,
            "transforms": rng.choice(["signed_log", "tanh", "signed_sqrt"], size=m).tolist(),
        }
    if kind == "outliers":
        return {"fraction": 0.025}
    if kind == "missingness":
        return {"fraction": 0.05}
    if kind == "feature_corruption":
        return {"fraction": 0.03}
    if kind == "intervention_shift":
        m = max(1, len(targets) // 2)
        sel = sorted(rng.choice(targets, size=m, replace=False).tolist(), key=targets.index)
        return {
            "targets": sel,
            "scales": rng.uniform(1.2, 2.0, m).round(6).tolist(),
            "shifts": (rng.choice([-1.0, 1.0], m) * rng.uniform(0.5, 1.5, m)).round(6).tolist(),
        }
    if kind == "soft_intervention":
        return {"softness": 0.45}
    raise ValueError(f"unknown stressor {kind!r}")


def draw_spec(
    seed: int, index: int, attempt: int, *, suite: str = "arena-synthetic", scms_per_block: int = 20
) -> SCMSpec:
    """Draw synthetic SCM ``index`` of a suite (attempt ``attempt`` of the audit loop).

    Parameters
    ----------
    seed : int
        Suite seed.
    index : int
        Position in the pool (see :func:`block_of`).
    attempt : int
        0 for the first candidate; the audit loop increments it after a rejection, so the
        next candidate is derived deterministically from the same seed.
    suite : str
        Suite name, hashed into the spawn key.
    scms_per_block : int, default=20

    Returns
    -------
    SCMSpec
        Calibrated spec whose ``metadata`` holds the construction factors.
    """
    from causalarena.generator.distributions import NOISES, ROOTS
    from causalarena.generator.mechanisms import MECHANISMS

    family, d, k = block_of(index, scms_per_block)
    rng = stream(seed, suite_key(suite), GENERATOR_REV, index, attempt)
    dep = dependency_for(index, scms_per_block)
    g = sample_graph(family, d, rng)
    redraws = 0
    # a dependent root block needs >= 2 roots: redraw the graph (same stream) a few times
    while dep != "independent" and int((g.adjacency.sum(axis=0) == 0).sum()) < 2 and redraws < 25:
        g = sample_graph(family, d, rng)
        redraws += 1
    A = g.adjacency
    names = [f"X{j}" for j in range(d)]
    parents = [[names[i] for i in np.flatnonzero(A[:, j])] for j in range(d)]
    roots = [j for j in range(d) if not parents[j]]
    structural = [j for j in range(d) if parents[j]]

    lo, hi = _bucket(d, FAMILY_COUNT)
    mech_forms = sorted(MECHANISMS)
    n_mech = min(int(rng.integers(lo, hi + 1)), len(mech_forms))
    active_mech = sorted(rng.choice(mech_forms, size=n_mech, replace=False).tolist())
    noise_fams = sorted(f for f in NOISES if f != "none")
    n_noise = min(int(rng.integers(lo, hi + 1)), len(noise_fams))
    active_noise = sorted(rng.choice(noise_fams, size=n_noise, replace=False).tolist())
    r = len(roots)
    rlo, rhi = (1, 1) if r <= 1 else (1, 2) if r <= 3 else (2, 4) if r <= 8 else (3, 6)
    root_fams = sorted(ROOTS)
    active_roots = sorted(
        rng.choice(root_fams, size=min(int(rng.integers(rlo, rhi + 1)), r), replace=False).tolist()
    )

    mech_of = dict(
        zip(structural, _assign([names[j] for j in structural], active_mech, rng), strict=True)
    )
    noise_of = dict(
        zip(structural, _assign([names[j] for j in structural], active_noise, rng), strict=True)
    )
    n_none = int(rng.integers(0, int(NO_NOISE_CAP * d) + 1))
    for j in rng.permutation(structural)[:n_none]:
        noise_of[int(j)] = "none"
    root_of = dict(zip(roots, _assign([names[j] for j in roots], active_roots, rng), strict=True))

    stressors = difficulty_for(index, scms_per_block)
    strength = 0.45 if "weak_signal" in stressors else 1.0
    variables: list[dict[str, Any]] = []
    for j in range(d):
        if j in root_of:
            fam = ROOTS[root_of[j]]
            variables.append(
                {
                    "name": names[j],
                    "kind": fam.kind,
                    "role": "root",
                    "root": {"family": fam.name, "params": fam.sample_params(rng)},
                }
            )
        else:
            mf = MECHANISMS[mech_of[j]]
            nf = NOISES[noise_of[j]]
            variables.append(
                {
                    "name": names[j],
                    "kind": "ordinal" if mf.output_kind == "ordinal" else "continuous",
                    "role": "structural",
                    "parents": parents[j],
                    "mechanism": {
                        "family": mf.name,
                        "params": mf.sample_params(rng, len(parents[j])),
                    },
                    "noise": {"family": nf.name, "params": nf.sample_params(rng)},
                    "strength": strength,
                }
            )

    blocks = []
    if dep != "independent":
        from causalarena.generator.distributions import DEPENDENCIES

        if r < 2:
            raise _Reject(f"root dependency {dep} needs >= 2 roots, graph has {r}")
        size = int(rng.integers(2, min(r, 8) + 1))
        members = sorted(rng.choice(roots, size=size, replace=False).tolist())
        blocks.append(
            {
                "kind": dep,
                "roots": [names[j] for j in members],
                "params": DEPENDENCIES[dep].sample_params(rng, size),
            }
        )

    plo, phi = _bucket(d, TARGET_POOL)
    m = int(rng.integers(plo, phi + 1))
    targets = [names[j] for j in sorted(rng.choice(d, size=m, replace=False).tolist())]
    kinds = [v["kind"] for v in variables]
    stress = [
        {"kind": s, "params": _stressor_params(s, names, kinds, targets, rng)} for s in stressors
    ]
    spec = SCMSpec(
        scm_id=f"{suite}/{index:04d}",
        family="synthetic",
        variables=variables,
        root_dependency=blocks,
        stressors=stress,
        intervention={"targets": targets},
        metadata={
            "suite": suite,
            "index": index,
            "attempt": attempt,
            "graph_family": family,
            "d": d,
            "block_position": k,
            "density": g.density,
            "in_degree_cap": g.in_degree_cap,
            "graph_attempts": g.attempts,
            "graph_redraws_for_roots": redraws,
            "root_dependency": dep,
            "difficulty": "+".join(stressors) if stressors else "clean",
            "active_mechanisms": active_mech,
            "active_noises": active_noise,
            "active_roots": active_roots,
        },
    )
    return calibrate(
        spec,
        PILOT_ROWS,
        np.random.SeedSequence(
            seed, spawn_key=(suite_key(suite), GENERATOR_REV, index, attempt, 1)
        ),
    )


class _Reject(Exception):
    """A candidate that cannot be built (recorded as an audit reason, then redrawn)."""


def node_tags(spec: SCMSpec) -> dict[str, list[str]]:
    """Per-SCM factor tags: sorted unique mechanism tags, noise families and root families."""
    from causalarena.generator.mechanisms import MECHANISMS

    mech = sorted({MECHANISMS[v.mechanism.family].tag for v in spec.variables if v.mechanism})
    noise = sorted({v.noise.family for v in spec.variables if v.role == "structural"})
    root = sorted({v.root.family for v in spec.variables if v.root})
    return {"mechanism_tags": mech, "noise_tags": noise, "root_tags": root}
