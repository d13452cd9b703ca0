"""Sampling an executable SCM: observational and do-interventional rows in one sweep.

The sampler evaluates the structural assignments of an :class:`~causalarena.spec.SCMSpec` in a
topological order, vectorised over all rows (CausalArena paper, section 3.1, eq. 1).
Interventional rows (appendix A.1, "Interventions") are produced in the *same* sweep as the
observational ones: when a targeted node is reached, its natural values are computed for every
row, the do-values of the rows that target it are drawn from the ``[low_q, high_q]`` percentile
range of that node's values in the observational rows, and the targeted cells are overwritten
before any child is computed, so every descendant is recomputed from the intervened values.
Two targets where one is an ancestor of the other both keep their set values.

The protocol suites (appendix A.2) add, through fields of the intervention spec: random target
counts per row (:func:`assign_target_sets`), fixed percentile setpoints, and parameter shifts
that change the target's mechanism instead of setting its value; with several modes the
targeted cells are split among them (:func:`assign_modes`).  Specs without these fields use
the original streams and give the original bytes.

Random streams are keyed, so the sample is a pure function of ``(spec, n_obs, n_int, seed)``:
each node draws its noise from its own ``numpy.random.Generator`` spawned from
``SeedSequence(seed)`` by column index, and intervention assignment/values, dependent root
blocks and observation stressors each have their own stream.  A consequence used by the audit
is that re-running the sweep without interventions reproduces the same noise (a counterfactual
run), so "descendants regenerated" can be checked exactly.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.random.bit_generator import ISeedSequence

from causalarena.errors import SpecError
from causalarena.generator.distributions import _no_clip
from causalarena.spec import SCMSpec, kahn_order

DISCRETE_KINDS = frozenset({"binary", "ordinal", "categorical", "count"})

# Stream identifiers (second element of the spawn key).
_S_ASSIGN, _S_VALUES, _S_ROOTBLOCK, _S_STRESS, _S_NODE, _S_HIGHNOISE = range(6)
# Streams of the protocol-suite additions (appendix A.2): cell modes, setpoint values.
_S_MODES, _S_SETPOINT = 6, 7
#: Codes of :data:`causalarena.spec.InterventionMode` in the ``modes`` diagnostics matrix
#: (0 = not intervened or resample).
MODE_CODES: dict[str, int] = {"resample": 0, "setpoint": 1, "parameter_shift": 2}


@dataclass(frozen=True)
class Table:
    """A sampled dataset.

    Attributes
    ----------
    X : ndarray of shape (n, d), float32
        Observations; rows ``[0, n_obs)`` are observational, rows ``[n_obs, n)`` interventional.
    mask : ndarray of shape (n, d), bool
        ``mask[r, j]`` is True iff variable ``j`` was intervened on in row ``r``: its value was
        set (do-resampling, fixed setpoint) or its mechanism was changed (parameter shift,
        paper A.2); ``diagnostics["modes"]`` tells which, when the spec has modes.
    adjacency : ndarray of shape (d, d), int8
        ``A[i, j] = 1`` iff ``i -> j``.
    names : list of str
        Column names.
    n_obs, n_int : int
        Numbers of observational and interventional rows.
    diagnostics : dict
        Facts used by the audit: per-target affected rows and changed rows, explicit clipping
        bounds per column, the counterfactual (no-intervention) check results and, for specs
        with intervention modes, ``"modes"``: int8 (n, d) of :data:`MODE_CODES`.
    """

    X: np.ndarray
    mask: np.ndarray
    adjacency: np.ndarray
    names: list[str]
    n_obs: int
    n_int: int
    diagnostics: dict[str, Any] = field(default_factory=dict)


def _stream(seed: int | np.random.SeedSequence, *key: int) -> np.random.Generator:
    if isinstance(seed, np.random.SeedSequence):
        child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, *key))
    else:  # SeedSequence(seed) holds entropy=seed and no spawn key: skip building it
        child = np.random.SeedSequence(seed, spawn_key=key)
    return np.random.default_rng(child)


# numpy's SeedSequence hashing (numpy/random/bit_generator.pyx) and PCG64 seeding (pcg64.c)
# constants; used to compute many node streams' initial states at once (_node_states).
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R, _M32 = 0xCA01F9DD, 0x4973F715, 0xFFFFFFFF


def _u32_words(x: Any) -> list[int]:
    """``SeedSequence``'s coercion of entropy/spawn keys to 32-bit words (little-endian)."""
    if isinstance(x, (int, np.integer)):
        x = int(x)
        if x < 0:
            raise TypeError("negative")
        out = [] if x else [0]
        while x:
            out.append(x & _M32)
            x >>= 32
        return out
    if isinstance(x, (list, tuple)):
        return [w for v in x for w in _u32_words(v)]
    raise TypeError(type(x).__name__)


def _prefix_pool(ent: list[int]) -> tuple[list[int], int]:
    """SeedSequence's pool after hashing the words ``ent`` (>= 4), and the hash constant."""
    hc = _INIT_A
    pool = []
    for w in ent[:4]:  # _hashmix inlined (the loops run per sample() call)
        w ^= hc
        hc = (hc * _MULT_A) & _M32
        w = (w * hc) & _M32
        pool.append(w ^ (w >> 16))
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                h = pool[i_src] ^ hc
                hc = (hc * _MULT_A) & _M32
                h = (h * hc) & _M32
                r = (_MIX_L * pool[i_dst] - _MIX_R * (h ^ (h >> 16))) & _M32
                pool[i_dst] = r ^ (r >> 16)
    for w in ent[4:]:
        for i_dst in range(4):
            h = w ^ hc
            hc = (hc * _MULT_A) & _M32
            h = (h * hc) & _M32
            r = (_MIX_L * pool[i_dst] - _MIX_R * (h ^ (h >> 16))) & _M32
            pool[i_dst] = r ^ (r >> 16)
    return pool, hc


@lru_cache(maxsize=64)
def _key_terms(hc: int, d: int) -> np.ndarray:
    """``_MIX_R * hashmix(j, .)`` of the last (per-key) word ``j < d`` for the four pool words.

    It depends only on the hash constant ``hc`` reached after the shared words (a function of
    their count, not their values) and on ``d``, so it is computed once per ``(hc, d)``.

    Returns
    -------
    ndarray of shape (4, d), uint32 (read-only)
    """
    pre, post = [], []
    for _ in range(4):
        pre.append(hc)
        hc = (hc * _MULT_A) & _M32
        post.append(hc)
    sh = np.uint32(16)
    h = np.arange(d, dtype=np.uint32)[None, :] ^ np.array(pre, dtype=np.uint32)[:, None]
    h *= np.array(post, dtype=np.uint32)[:, None]
    h ^= h >> sh
    h *= np.uint32(_MIX_R)
    h.flags.writeable = False
    return h


def _state_consts() -> tuple[np.ndarray, np.ndarray]:
    """Hash constants of ``generate_state``'s 8 output words, (8, 1) uint32 each."""
    pre, post = [], []
    hb = _INIT_B
    for _ in range(8):
        pre.append(hb)
        hb = (hb * _MULT_B) & _M32
        post.append(hb)
    return np.array(pre, dtype=np.uint32)[:, None], np.array(post, dtype=np.uint32)[:, None]


_PRE_B, _POST_B = _state_consts()
_LITTLE = sys.byteorder == "little"


def _node_words(seed: int | np.random.SeedSequence, d: int) -> np.ndarray | None:
    """``generate_state(4, uint64)`` of the node streams' seed sequences, for ``j < d``.

    Row ``j`` equals ``SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, _S_NODE, j))
    .generate_state(4, np.uint64)`` (what PCG64 is seeded from; a test checks it against
    numpy), but the hashing shared by all ``d`` keys is done once and the per-key part is
    vectorised: far cheaper than ``d`` separate ``SeedSequence`` objects, which were the
    sampler's largest overhead.  Returns None for seeds it does not handle (then the caller
    builds each stream the ordinary way).

    Returns
    -------
    ndarray of shape (d, 4), uint64, or None
    """
    if d >= 2**32:
        return None
    if isinstance(seed, np.random.SeedSequence):
        if seed.pool_size != 4:
            return None
        entropy, spawn_key = seed.entropy, seed.spawn_key
    else:  # what SeedSequence(seed) would hold, without building it
        entropy, spawn_key = seed, ()
    try:
        run = _u32_words(entropy)
        shared = _u32_words((*spawn_key, _S_NODE))
    except TypeError:
        return None
    run += [0] * (4 - len(run))  # SeedSequence pads the run entropy when there is a spawn key
    # then one word per key: j.  Its four mixing steps (one per pool word) are independent,
    # so they run as one (4, d) pass in uint32, whose arithmetic wraps modulo 2**32 like
    # SeedSequence's
    pool, hc = _prefix_pool(run + shared)
    lp = np.array([(_MIX_L * p) & _M32 for p in pool], dtype=np.uint32)[:, None]
    r = lp - _key_terms(hc, d)
    sh = np.uint32(16)
    r ^= r >> sh
    # generate_state(4, uint64): 8 32-bit words cycling over the pool
    v = np.concatenate((r, r))
    v ^= _PRE_B
    v *= _POST_B
    v ^= v >> sh
    # SeedSequence views the words as little-endian uint64 pairs
    if _LITTLE:
        return v.T.copy().view(np.uint64)
    return np.ascontiguousarray(v.T).astype("<u4").view("<u8").astype(np.uint64)


class _Words(ISeedSequence):
    """A seed sequence whose ``generate_state(4, uint64)`` is known (row of _node_words)."""

    __slots__ = ("words",)

    def __init__(self, words: np.ndarray):
        self.words = words

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        if n_words != 4 or np.dtype(dtype) != np.uint64:
            raise ValueError("_Words only seeds PCG64 (4 uint64 words)")
        return self.words


def _node_streams(seed: int | np.random.SeedSequence, d: int):
    """``j -> _stream(seed, _S_NODE, j)``: each node's Generator, seeded from _node_words."""
    words = _node_words(seed, d)
    if words is None:
        return lambda j: _stream(seed, _S_NODE, j)
    rows = list(words)  # one (4,) view per node, made once

    def node(j: int, rows=rows, gen=np.random.Generator, pcg=np.random.PCG64, w=_Words):
        return gen(pcg(w(rows[j])))

    return node


@dataclass
class _Compiled:
    spec: SCMSpec
    order: list[int]
    parents: list[np.ndarray]
    mechs: list[Any]
    noises: list[Any]
    roots: list[Any]
    kinds: list[str]
    block_of: dict[int, tuple[int, int]]  # column -> (block index, position)
    stressors: dict[str, dict[str, Any]]
    target_idx: list[int]
    flat: np.ndarray  # every node's parent indices, concatenated in column order
    n_parents: list[int]


def compile_spec(spec: SCMSpec) -> _Compiled:
    """Resolve family tags and parent indices once per call (internal, cheap: one pass)."""
    from causalarena.generator.scenario.operations import ALL_MECHANISMS as MECHANISMS
    from causalarena.generator.scenario.operations import ALL_NOISES as NOISES
    from causalarena.generator.scenario.operations import ALL_ROOTS as ROOTS

    variables = spec.variables
    idx = {v.name: i for i, v in enumerate(variables)}
    block_of: dict[int, tuple[int, int]] = {}
    for b, block in enumerate(spec.root_dependency):
        for pos, r in enumerate(block.roots):
            block_of[idx[r]] = (b, pos)
    pa, flat_list, ends = [], [], []
    mechs, noises, roots, kinds = [], [], [], []
    ordered = True  # every parent has a smaller index
    for j, v in enumerate(variables):
        ps = [idx[p] for p in v.parents]
        if ps and max(ps) >= j:
            ordered = False
        pa.append(ps)
        flat_list += ps
        ends.append(len(flat_list))
        m, r = v.mechanism, v.root
        mechs.append(MECHANISMS[m.family] if m else None)
        noises.append(NOISES[v.noise.family])
        roots.append(ROOTS[r.family] if r else None)
        kinds.append(v.kind)
    # one index array for all nodes, then a view per node (cheaper than d small arrays)
    flat = np.array(flat_list, dtype=np.intp)
    parents = [flat[e - len(ps) : e] for ps, e in zip(pa, ends, strict=True)]
    return _Compiled(
        spec=spec,
        order=list(range(len(pa))) if ordered else _topological_order(spec, pa),
        parents=parents,
        mechs=mechs,
        noises=noises,
        roots=roots,
        kinds=kinds,
        block_of=block_of,
        stressors={s.kind: s.params for s in spec.stressors},
        target_idx=[idx[t] for t in spec.intervention.targets] if spec.intervention else [],
        flat=flat,
        n_parents=[len(ps) for ps in pa],
    )


def _topological_order(spec: SCMSpec, pa: list[list[int]]) -> list[int]:
    """``spec.topological_order()`` (the same :func:`causalarena.spec.kahn_order`, so the same
    order) from the parent indices already resolved; a cycle is left to the spec's own method
    to report."""
    if all(i < j for j, ps in enumerate(pa) for i in ps):
        # columns already in a topological order: the heap pops them in index order
        return list(range(len(pa)))
    order = kahn_order(pa)
    if len(order) != len(pa):
        return spec.topological_order()  # raises SpecError naming the cycle
    return order


def _adjacency(c: _Compiled) -> np.ndarray:
    """``spec.adjacency()`` from the compiled parent indices: int8 (d, d), A[i, j] = 1 iff i -> j."""
    d = len(c.parents)
    a = np.zeros((d, d), dtype=np.int8)
    if c.flat.size:
        a[c.flat, np.repeat(np.arange(d), c.n_parents)] = 1
    return a


def assign_targets(
    n_int: int, pool_size: int, targets_per_row: int, rng: np.random.Generator
) -> np.ndarray:
    """Assign interventional rows to targets (paper A.1, "Row assignment").

    With one target per row the assignment is balanced: every target gets ``n_int // m`` rows
    and the remainder goes to the first targets of a seeded permutation; rows are then shuffled.
    With several targets per row each row draws distinct targets uniformly.

    Returns
    -------
    ndarray of shape (n_int, targets_per_row), intp
        Positions in the target pool.
    """
    if targets_per_row == 1:
        counts = np.full(pool_size, n_int // pool_size, dtype=np.intp)
        counts[rng.permutation(pool_size)[: n_int % pool_size]] += 1
        rows = np.repeat(np.arange(pool_size), counts)
        return rng.permutation(rows)[:, None]
    keys = rng.random((n_int, pool_size))
    return np.argsort(keys, axis=1)[:, :targets_per_row]


def assign_target_sets(
    n_int: int, pool_size: int, low: int, high: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Random target counts per row (paper A.2, "Multi-target per sample").

    Each row draws its count uniformly from ``[low, high]`` and that many distinct targets
    uniformly from the pool.

    Returns
    -------
    list of ndarray of intp
        One array of pool positions per interventional row (length between low and high).
    """
    counts = rng.integers(low, high + 1, size=n_int)
    order = np.argsort(rng.random((n_int, pool_size)), axis=1)
    return [order[r, : counts[r]] for r in range(n_int)]


def assign_modes(mask: np.ndarray, modes: list[str], rng: np.random.Generator) -> np.ndarray:
    """Split the targeted cells among the intervention modes in equal shares (paper A.2).

    Cells are taken in row-major order; every mode gets ``K // m`` of the ``K`` cells and the
    remainder goes to the first modes of a seeded permutation; the labels are then shuffled.

    Returns
    -------
    ndarray of shape mask.shape, int8
        :data:`MODE_CODES` of each targeted cell (0 elsewhere).
    """
    cells = np.flatnonzero(mask)
    m = len(modes)
    counts = np.full(m, cells.size // m, dtype=np.intp)
    counts[rng.permutation(m)[: cells.size % m]] += 1
    codes = np.repeat(np.array([MODE_CODES[x] for x in modes], dtype=np.int8), counts)
    out = np.zeros(mask.shape, dtype=np.int8)
    out.flat[cells] = rng.permutation(codes)
    return out


def _iqr(x: np.ndarray) -> float:
    q75, q25 = np.percentile(x, [75, 25])
    return float(q75 - q25)


def _setpoint_values(
    rule: Any, baseline: np.ndarray, kind: str, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Fixed-setpoint values (paper A.2): a baseline percentile per cell, plus jitter."""
    qs = np.asarray(rule.percentiles, dtype=np.float64)
    pick = qs[rng.integers(0, qs.size, size=k)]
    if kind in DISCRETE_KINDS:
        return np.percentile(baseline, pick, method="nearest")
    jitter = rng.uniform(-1.0, 1.0, size=k) * float(rule.jitter_iqr) * _iqr(baseline)
    return np.percentile(baseline, pick) + jitter


def _shifted_values(
    c: _Compiled,
    j: int,
    P: np.ndarray,
    n: int,
    n_obs: int,
    natural: np.ndarray,
    seed: int | np.random.SeedSequence,
) -> np.ndarray:
    """Values of node ``j`` for all rows under its parameter shift (paper A.2).

    The shifted mechanism is evaluated on the rows' own parents and with the node's own noise
    stream (the same draws as the natural values), so only the mechanism differs.
    """
    v = c.spec.variables[j]
    ps = c.spec.intervention.parameter_shifts[v.name]
    Pin = P * float(ps.factor) if ps.kind == "parent_scale" else P
    raw = np.asarray(c.mechs[j].evaluate(v.mechanism.params, Pin), dtype=np.float64)
    if c.mechs[j].output_kind == "continuous":
        s = v.strength * (raw - v.out_loc) / v.out_scale
    else:
        s = raw
    if ps.kind == "strength_scale":
        s = s * float(ps.factor)
    elif ps.kind == "bias_shift":
        s = s + float(ps.shift_iqr) * _iqr(natural[:n_obs])
    x = np.asarray(
        c.noises[j].apply(v.noise.params, s, P, _stream(seed, _S_NODE, j)), dtype=np.float64
    )
    high_noise = c.stressors.get("high_noise")
    if high_noise is not None:
        x = x + float(high_noise.get("scale", 0.35)) * _stream(
            seed, _S_HIGHNOISE, j
        ).standard_normal(n)
    if c.kinds[j] in DISCRETE_KINDS:
        hi_level = float(v.mechanism.params.get("n_bins", np.inf)) - 1
        x = np.clip(np.round(x), 0, hi_level)
    _check_finite(v, x)
    return x


def _do_values(
    baseline: np.ndarray, kind: str, k: int, low_q: float, high_q: float, rng: np.random.Generator
) -> np.ndarray:
    lo, hi = np.percentile(baseline, [low_q, high_q])
    if kind in DISCRETE_KINDS:
        levels = np.unique(baseline[(baseline >= lo) & (baseline <= hi)])
        if levels.size == 0:
            levels = np.unique(baseline)
        return levels[rng.integers(0, levels.size, size=k)]
    return rng.uniform(lo, hi, size=k)


def _resample(
    r: dict[str, Any], baseline: np.ndarray, kind: str, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Do-values of one scenario intervention handle (``ValueRule.kind == "per_target"``)."""
    if r["kind"] == "percentile":
        return _do_values(baseline, kind, k, r["low_q"], r["high_q"], rng)
    if r["kind"] == "uniform":
        return rng.uniform(r["low"], r["high"], size=k)
    if r["kind"] == "choice":
        vals = np.asarray(r["values"], dtype=np.float64)
        return vals[rng.integers(0, vals.size, size=k)]
    return np.full(k, float(r["value"]))


def _sweep(
    c: _Compiled,
    n: int,
    n_obs: int,
    seed: int | np.random.SeedSequence,
    mask: np.ndarray | None,
    calibrate: bool = False,
    modes: np.ndarray | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """One topological pass over all rows; see module docstring.

    ``modes`` (same shape as ``mask``, :data:`MODE_CODES`) is given only for specs with
    intervention modes other than ``["resample"]``; without it every targeted cell is
    resampled exactly as before those modes existed (same streams, same bytes).
    """
    spec = c.spec
    variables = spec.variables
    d = len(variables)
    X = np.empty((n, d), dtype=np.float64)
    # "rows": each targeted column's intervened rows (reused by sample()'s diagnostics)
    info: dict[str, Any] = {"natural": {}, "calibration": {}, "rows": {}}
    # dependent root blocks: copula uniforms, one stream per block
    block_u = [
        _dependency(block.kind).uniforms(block.params, n, _stream(seed, _S_ROOTBLOCK, b))
        for b, block in enumerate(spec.root_dependency)
    ]
    # the do-values' stream only when there are do-rows (an unused stream changes no draw)
    values_rng = _stream(seed, _S_VALUES) if mask is not None else None
    node_stream = _node_streams(seed, d)
    targeted = mask.any(axis=0).tolist() if mask is not None else [False] * d
    iv = spec.intervention
    soft = c.stressors.get("soft_intervention")
    shift = c.stressors.get("intervention_shift")
    high_noise = c.stressors.get("high_noise")
    parents, mechs, noises, roots, kinds = c.parents, c.mechs, c.noises, c.roots, c.kinds
    block_of = c.block_of
    f64 = np.float64
    for j in c.order:
        v = variables[j]
        rng = node_stream(j)
        if v.role == "root":
            if j in block_of:
                b, pos = block_of[j]
                u = block_u[b][:, pos]
            else:
                u = rng.random(n)  # clipped to [1e-12, 1 - 1e-12] (np.clip without its wrapper)
                np.minimum(np.maximum(u, 1e-12, out=u), 1 - 1e-12, out=u)
            x = np.asarray(roots[j].ppf(v.root.params, u), dtype=f64)
        else:
            P = X[:, parents[j]]
            mech = mechs[j]
            raw = np.asarray(mech.evaluate(v.mechanism.params, P), dtype=f64)
            if mech.output_kind == "continuous":
                if calibrate:
                    loc, scale = float(raw.mean()), float(raw.std())
                    if not np.isfinite(scale) or scale < 1e-9:
                        raise _Degenerate(v.name, "mechanism output is constant on the pilot")
                    info["calibration"][j] = {"out_loc": loc, "out_scale": scale}
                else:
                    loc, scale = v.out_loc, v.out_scale
                # v.strength * (raw - loc) / scale, in place on the one temporary
                s = np.subtract(raw, loc)
                np.multiply(v.strength, s, out=s)
                np.divide(s, scale, out=s)
            else:
                if calibrate and np.unique(raw).size < 2:
                    raise _Degenerate(v.name, "discrete mechanism output is constant on the pilot")
                s = raw
            noise_params = v.noise.params
            if calibrate:
                noise_params = noises[j].calibrate(v.noise.params, s, P, rng)
                info["calibration"].setdefault(j, {})["noise"] = noise_params
                rng = node_stream(j)
            x = np.asarray(noises[j].apply(noise_params, s, P, rng), dtype=f64)
            if high_noise is not None:
                x = x + float(high_noise.get("scale", 0.35)) * _stream(
                    seed, _S_HIGHNOISE, j
                ).standard_normal(n)
            if kinds[j] in DISCRETE_KINDS:
                hi_level = float(v.mechanism.params.get("n_bins", np.inf)) - 1
                x = np.clip(np.round(x), 0, hi_level)
        # _check_finite's fast path inline; the full check only when it does not decide
        if x.size and not x.dot(x) < _F32_OVERFLOW_SQ:
            _check_finite(v, x)
        if targeted[j] and modes is not None:
            x = _intervene_modes(c, j, x, X, n, n_obs, seed, mask, modes, values_rng, info)
        elif targeted[j]:
            rows = info["rows"][j] = np.flatnonzero(mask[:, j])
            info["natural"][j] = x[rows].copy()
            rule = iv.value_rule
            if rule.kind == "fixed":
                vals = np.full(rows.size, float(rule.values[v.name]))
            elif rule.kind == "per_target":
                vals = _resample(
                    rule.resamplers[v.name], x[:n_obs], c.kinds[j], rows.size, values_rng
                )
            else:
                vals = _do_values(
                    x[:n_obs], c.kinds[j], rows.size, rule.low_q, rule.high_q, values_rng
                )
            if shift is not None and v.name in shift.get("targets", []):
                k = shift["targets"].index(v.name)
                iqr = float(np.subtract(*np.percentile(x[:n_obs], [75, 25])))
                vals = vals * float(shift["scales"][k]) + float(shift["shifts"][k]) * iqr
            if soft is not None:
                w = float(soft.get("softness", 0.45))
                vals = w * x[rows] + (1.0 - w) * vals
            x[rows] = vals
        X[:, j] = x
    return X, info


def _intervene_modes(
    c: _Compiled,
    j: int,
    x: np.ndarray,
    X: np.ndarray,
    n: int,
    n_obs: int,
    seed: int | np.random.SeedSequence,
    mask: np.ndarray,
    modes: np.ndarray,
    values_rng: np.random.Generator,
    info: dict[str, Any],
) -> np.ndarray:
    """Intervene on node ``j`` cell by cell according to its mode (paper A.2).

    ``resample`` and ``setpoint`` cells get do-values (then the soft-intervention and
    intervention-shift stressors, as for every do-value); ``parameter_shift`` cells get the
    shifted mechanism's values (no stressor: nothing was set).
    """
    v = c.spec.variables[j]
    iv = c.spec.intervention
    rows = info["rows"][j] = np.flatnonzero(mask[:, j])
    info["natural"][j] = x[rows].copy()
    m = modes[rows, j]
    baseline = x[:n_obs]
    out = x.copy()
    do_rows = rows[m != MODE_CODES["parameter_shift"]]
    if do_rows.size:
        vals = np.empty(do_rows.size)
        md = modes[do_rows, j]
        res = md == MODE_CODES["resample"]
        rule = iv.value_rule
        k = int(res.sum())
        if k:
            if rule.kind == "fixed":
                vals[res] = float(rule.values[v.name])
            elif rule.kind == "per_target":
                vals[res] = _resample(rule.resamplers[v.name], baseline, c.kinds[j], k, values_rng)
            else:
                vals[res] = _do_values(baseline, c.kinds[j], k, rule.low_q, rule.high_q, values_rng)
        if (~res).any():
            vals[~res] = _setpoint_values(
                iv.setpoint,
                baseline,
                c.kinds[j],
                int((~res).sum()),
                _stream(seed, _S_SETPOINT, j),
            )
        shift = c.stressors.get("intervention_shift")
        if shift is not None and v.name in shift.get("targets", []):
            q = shift["targets"].index(v.name)
            vals = vals * float(shift["scales"][q]) + float(shift["shifts"][q]) * _iqr(baseline)
        soft = c.stressors.get("soft_intervention")
        if soft is not None:
            w = float(soft.get("softness", 0.45))
            vals = w * x[do_rows] + (1.0 - w) * vals
        out[do_rows] = vals
    ps_rows = rows[m == MODE_CODES["parameter_shift"]]
    if ps_rows.size:
        shifted = _shifted_values(c, j, X[:, c.parents[j]], n, n_obs, x, seed)
        out[ps_rows] = shifted[ps_rows]
    return out


#: Largest magnitude a value may have: the released ``X`` is float32.
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: Smallest float64 magnitude whose float32 cast is inf: 2**128 - 2**103.
_F32_OVERFLOW = 2.0**128 - 2.0**103
_F32_OVERFLOW_SQ = _F32_OVERFLOW * _F32_OVERFLOW


def _check_finite(v: Any, x: np.ndarray) -> None:
    """Refuse a node whose values are non-finite in float64 or after the float32 cast.

    Raises
    ------
    SpecError
        Naming the variable, its mechanism (or root) family and the largest magnitude.
    """
    # fast path: the float32 cast of a float64 is finite iff |x| < _F32_OVERFLOW (the midpoint
    # between float32's max and 2**128, round to nearest even).  A sum of squares is at least
    # each rounded square (non-negative terms, monotone rounding, any order or FMA), so
    # x.x < _F32_OVERFLOW**2 implies every |x_i| < _F32_OVERFLOW; nan/inf fail the comparison
    # and large but valid values just take the exact check below.
    # (x.dot(x): the same BLAS dot as np.dot(x, x), without the function's dispatch)
    if x.size == 0 or x.dot(x) < _F32_OVERFLOW_SQ:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        ok = np.isfinite(x).all() and np.isfinite(x.astype(np.float32)).all()
    if ok:
        return
    finite = x[np.isfinite(x)]
    worst = float(np.abs(finite).max()) if finite.size else float("nan")
    what = "non-finite values" if finite.size < x.size else f"values up to {worst:.3g}"
    raise SpecError(
        v.name,
        "mechanism" if v.role == "structural" else "root",
        (v.mechanism or v.root).family,
        f"produced {what}, outside the float32 range (|x| <= {FLOAT32_MAX:.4g}) of the "
        "released data; check parameter magnitudes (out_loc, out_scale, strength, weights)",
    )


class _Degenerate(Exception):
    def __init__(self, variable: str, reason: str):
        super().__init__(f"{variable}: {reason}")
        self.variable = variable
        self.reason = reason


def _dependency(kind: str):
    from causalarena.generator.distributions import DEPENDENCIES

    return DEPENDENCIES[kind]


def _apply_observation_stressors(
    c: _Compiled, X: np.ndarray, seed: int | np.random.SeedSequence
) -> np.ndarray:
    """Observation stressors of appendix A.1 ("Observation stressors"), applied after sampling."""
    st = c.stressors
    if not st:
        return X
    rng = _stream(seed, _S_STRESS)
    n, d = X.shape
    idx = c.spec.index()
    if "feature_warping" in st:
        p = st["feature_warping"]
        for name, how in zip(p["columns"], p["transforms"], strict=True):
            j = idx[name]
            col = X[:, j]
            if how == "signed_log":
                X[:, j] = np.sign(col) * np.log1p(np.abs(col))
            elif how == "tanh":
                X[:, j] = np.tanh(col)
            elif how == "signed_sqrt":
                X[:, j] = np.sign(col) * np.sqrt(np.abs(col))
    cont = np.array([k == "continuous" for k in c.kinds])
    if "outliers" in st:
        frac = float(st["outliers"].get("fraction", 0.025))
        hit = (rng.random((n, d)) < frac) & cont[None, :]
        sd = X.std(axis=0)
        jumps = rng.standard_t(2.0, size=(n, d)) * 3.0 * sd[None, :]
        X = np.where(hit, X + jumps, X)
    if "missingness" in st:
        frac = float(st["missingness"].get("fraction", 0.05))
        miss = rng.random((n, d)) < frac
        Xm = np.where(miss, np.nan, X)
        means = np.nanmean(Xm, axis=0)
        sd = np.nanstd(Xm, axis=0)
        jitter = 0.01 * sd[None, :] * rng.standard_normal((n, d))
        fill = means[None, :] + np.where(cont[None, :], jitter, 0.0)
        if (~cont).any():  # discrete columns are imputed with the rounded mean
            fill[:, ~cont] = np.round(means[~cont])[None, :]
        X = np.where(miss, fill, X)
    if "feature_corruption" in st:
        frac = float(st["feature_corruption"].get("fraction", 0.03))
        for j in range(d):
            rows = np.flatnonzero(rng.random(n) < frac)
            if rows.size > 1:
                X[rows, j] = X[rng.permutation(rows), j]
    return X


def _check_args(spec: Any, n_obs: Any, n_int: Any, seed: Any) -> None:
    if not isinstance(spec, SCMSpec):
        raise TypeError(
            f"spec must be an SCMSpec (use SCMSpec.from_json/from_dict), got {type(spec).__name__}"
        )
    for name, val in (("n_obs", n_obs), ("n_int", n_int)):
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, (int, np.integer)) or val < 0:
            raise SpecError(None, name, val, "row counts must be integers >= 0")
    if isinstance(seed, np.random.SeedSequence):
        return
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpecError(None, "seed", seed, "seed must be an integer >= 0 or a numpy SeedSequence")


def sample(
    spec: SCMSpec,
    n_obs: int,
    n_int: int = 0,
    seed: int | np.random.SeedSequence = 0,
    *,
    counterfactual_check: bool = False,
) -> Table:
    """Draw ``n_obs`` observational and ``n_int`` interventional rows from an SCM.

    Parameters
    ----------
    spec : SCMSpec
        The executable SCM.
    n_obs : int
        Observational rows (first rows of the table); must be >= 1 when ``n_int > 0`` because
        do-values are drawn from the observational baseline (paper A.1, "Intervention value").
    n_int : int, default=0
        Interventional rows; targets are assigned from ``spec.intervention`` (balanced
        single-target assignment by default, paper A.1, "Row assignment").
    seed : int or numpy.random.SeedSequence, default=0
        Root of every random stream used.
    counterfactual_check : bool, default=False
        Also run the sweep without interventions (same noise) and store in ``diagnostics``
        which interventional rows changed non-descendants (must be none) and descendants.

    Returns
    -------
    Table
        ``X`` float32 of shape (n, d), ``mask`` bool of shape (n, d), ``adjacency`` int8 (d, d).

    Raises
    ------
    SpecError
        If ``n_int > 0`` and the spec has no intervention definition, or sizes are negative;
        or a variable's values are non-finite or overflow float32 (the dtype of ``X``), e.g. a
        root with ``out_loc=-1e308`` or a long chain with a huge ``strength`` -- the error
        names the variable, so ``X`` never holds ``inf`` or ``nan``.
    """
    _check_args(spec, n_obs, n_int, seed)
    if n_int > 0 and spec.intervention is None:
        raise SpecError(None, "intervention", None, "n_int > 0 needs an intervention definition")
    if n_int > 0 and n_obs < 1:
        raise SpecError(
            None, "n_obs", n_obs, "do-values need an observational baseline (n_obs >= 1)"
        )
    c = compile_spec(spec)
    n = n_obs + n_int
    d = spec.d
    mask = np.zeros((n, d), dtype=bool)
    row_targets = None
    modes = None
    if n_int > 0:
        iv = spec.intervention
        tidx = np.asarray(c.target_idx, dtype=np.intp)
        if iv.targets_per_row_max is None or iv.targets_per_row_max == iv.targets_per_row:
            pos = assign_targets(
                n_int, len(iv.targets), iv.targets_per_row, _stream(seed, _S_ASSIGN)
            )
            cols = tidx[pos]
            row_targets = cols
            mask[np.arange(n_obs, n)[:, None], cols] = True
        else:
            sets = assign_target_sets(
                n_int,
                len(iv.targets),
                iv.targets_per_row,
                iv.targets_per_row_max,
                _stream(seed, _S_ASSIGN),
            )
            row_targets = [tidx[p] for p in sets]
            for r, tg in enumerate(row_targets):
                mask[n_obs + r, tg] = True
        if iv.modes != ["resample"]:
            modes = assign_modes(mask, list(iv.modes), _stream(seed, _S_MODES))
    X, info = _sweep(c, n, n_obs, seed, mask if n_int else None, modes=modes)
    diagnostics: dict[str, Any] = {}
    if modes is not None:
        diagnostics["modes"] = modes
    if n_int > 0:
        per_target = {}
        for j in c.target_idx:
            rows = info["rows"].get(j)  # the sweep's, else the column has no do-rows
            if rows is None:
                rows = np.flatnonzero(mask[:, j])
            nat = info["natural"].get(j, np.empty(0))
            # np.isclose(rtol=0, atol=1e-12) on finite values (both are checked finite), cheaper
            changed = int(np.count_nonzero(np.abs(X[rows, j] - nat) > 1e-12)) if rows.size else 0
            per_target[spec.variables[j].name] = {"rows": int(rows.size), "changed": changed}
        diagnostics["targets"] = per_target
        if counterfactual_check:
            X0, _ = _sweep(c, n, n_obs, seed, None)
            diagnostics["counterfactual"] = _counterfactual_report(
                c, X, X0, mask, row_targets, n_obs
            )
    X = _apply_observation_stressors(c, X, seed)
    clip = {}
    if "high_noise" not in c.stressors:
        for nz, v in zip(c.noises, spec.variables, strict=True):
            if nz.clip_bounds is not _no_clip:  # the families without bounds skip the call
                b = nz.clip_bounds(v.noise.params)
                if b is not None:
                    clip[v.name] = b
    diagnostics["clip_bounds"] = clip
    if not c.stressors and n_int == 0:
        # every column is a node's values as checked in the sweep (_check_finite: finite after
        # the float32 cast), nothing changed them since: the cast cannot overflow
        X32 = X.astype(np.float32)
        bad = ()
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            X32 = X.astype(np.float32)
        finite = np.isfinite(X32)
        bad = np.empty(0, dtype=np.intp) if finite.all() else np.flatnonzero(~finite.all(axis=0))
    if len(bad):  # an observation stressor (outliers, warping) pushed a column out of range
        v = spec.variables[int(bad[0])]
        raise SpecError(
            v.name,
            "stressors",
            sorted(c.stressors),
            "observation stressors produced values outside the float32 range of the data",
        )
    return Table(
        X=X32,
        mask=mask,
        adjacency=_adjacency(c),
        names=spec.names,
        n_obs=n_obs,
        n_int=n_int,
        diagnostics=diagnostics,
    )


def _counterfactual_report(
    c: _Compiled,
    X: np.ndarray,
    X0: np.ndarray,
    mask: np.ndarray,
    row_targets: np.ndarray,
    n_obs: int,
) -> dict[str, int]:
    """Compare the intervened sweep with the no-intervention sweep (same noise)."""
    import networkx as nx

    A = c.spec.adjacency()
    g = nx.from_numpy_array(A, create_using=nx.DiGraph)
    desc = {j: np.array(sorted(nx.descendants(g, j)), dtype=np.intp) for j in set(c.target_idx)}
    d = X.shape[1]
    bad_nondesc = 0
    desc_rows = 0
    desc_changed_rows = 0
    obs_changed = int(np.sum(np.any(X[:n_obs] != X0[:n_obs], axis=1)))
    for r in range(n_obs, X.shape[0]):
        tg = row_targets[r - n_obs]
        affected = np.zeros(d, dtype=bool)
        affected[tg] = True
        for t in tg:
            affected[desc[t]] = True
        if np.any(X[r, ~affected] != X0[r, ~affected]):
            bad_nondesc += 1
        dcols = np.flatnonzero(affected & ~mask[r])
        target_changed = np.any(X[r, tg] != X0[r, tg])
        if dcols.size and target_changed:
            desc_rows += 1
            if np.any(X[r, dcols] != X0[r, dcols]):
                desc_changed_rows += 1
    return {
        "observational_rows_changed": obs_changed,
        "rows_with_nondescendant_change": bad_nondesc,
        "rows_with_descendants": desc_rows,
        "rows_with_descendants_changed": desc_changed_rows,
    }


def calibrate(
    spec: SCMSpec, n_pilot: int = 2000, seed: int | np.random.SeedSequence = 0
) -> SCMSpec:
    """Fix the data-dependent constants of a spec on an observational pilot sample.

    Sets each continuous structural node's ``out_loc``/``out_scale`` (mean and standard
    deviation of its raw mechanism output) and lets each noise family store its own constants
    (e.g. the target-R² scale, censoring bounds).  Nodes are calibrated in topological order, so
    each node sees standardised parents.  The returned spec samples without batch statistics.

    Raises
    ------
    SpecError
        If a mechanism output is constant on the pilot (names the variable).
    """
    if isinstance(n_pilot, bool) or not isinstance(n_pilot, int) or n_pilot < 10:
        raise SpecError(None, "n_pilot", n_pilot, "the pilot needs an integer >= 10 rows")
    c = compile_spec(spec)
    try:
        _, info = _sweep(c, n_pilot, n_pilot, seed, None, calibrate=True)
    except _Degenerate as exc:
        raise SpecError(
            exc.variable,
            "mechanism",
            spec.variables[spec.index()[exc.variable]].mechanism.family,
            exc.reason,
        ) from None
    data = spec.model_dump()
    for j, upd in info["calibration"].items():
        var = data["variables"][j]
        if "out_loc" in upd:
            var["out_loc"], var["out_scale"] = upd["out_loc"], upd["out_scale"]
        if "noise" in upd:
            var["noise"]["params"] = upd["noise"]
    return SCMSpec.from_dict(data)
