"""Fresh synthetic SCMs for pretraining streams (issue 13 §2; CausalArena paper section 3.2).

Instance ``k`` of a stream with seed ``s`` is SCM ``pool[order(s, e)[k % len(pool)]]`` of a
virtual suite ``stream-synthetic`` whose seed is :func:`stream_seed` ``(s, "synthetic", e)``,
``e = k // len(pool)`` (one *epoch* per pass over the pool; :func:`order` is a seeded
permutation of the pool per epoch, so a shard reading every ``G``-th instance gets a random part
of the design, not the aliased ``k % 4`` slice of the difficulty schedule or the same few
blocks), drawn with the arena's own design (:func:`draw_spec`:
graph family, d, family mixing, root dependency, difficulty schedule; paper appendix A.1) and
audited with the arena's gates for the one setting it samples (redrawn until they pass, paper
A.2).  ``pool`` is the list of arena pool positions whose block matches the requested ``d``
and graph families, so the design proportions are the arena's.

Domain separation by construction: every stream seed has bit 63 set (:func:`stream_seed`),
while every released suite's seed is below ``2**63`` (checked by
:func:`causalarena.loaders.stream.stream`), so no stream SCM shares a seed sequence with a
public suite; reserved halves draw from a 256-bit HMAC of the maintainers' key.  The
contamination guard checks fingerprints on top (:mod:`causalarena.fingerprint`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from causalarena.errors import AuditError, SpecError
from causalarena.generator.audit import audit_graph, audit_table
from causalarena.generator.graphs import GRAPH_FAMILIES
from causalarena.generator.sample import sample
from causalarena.generator.synthetic.draw import DIMENSIONS, _Reject, block_of, draw_spec

STREAM_SUITE = "stream-synthetic"
SCMS_PER_BLOCK = 20
N_OBS, N_OBSINT = 1000, (800, 200)
MAX_ATTEMPTS = 50


def stream_seed(seed: int, family: str, epoch: int) -> int:
    """64-bit seed of one epoch of a stream, with bit 63 set (never a release seed)."""
    h = hashlib.sha256(f"causalarena/stream/{family}/{int(seed)}/{int(epoch)}".encode()).digest()
    return int.from_bytes(h[:8], "big") | (1 << 63)


def order(seed: int, family: str, epoch: int, size: int) -> np.ndarray:
    """The seeded permutation of ``range(size)`` that orders one epoch of a stream.

    Interleaved shards read instances ``s, s + G, ...``; without it a shard would see the pool
    positions ``= s (mod gcd(G, size))`` only -- with 64 shards and the 1,000-SCM pool, one
    difficulty level of the schedule (A.1) per shard.
    """
    rng = np.random.default_rng(stream_seed(seed, f"{family}/order", epoch))
    return rng.permutation(int(size))


def pool(d: Sequence[int] | None = None, graph_families: Sequence[str] | None = None) -> list[int]:
    """Arena pool positions (``block * 20 + k``) of the blocks matching ``d`` and families.

    Raises
    ------
    ValueError
        An unknown ``d`` or graph family (the message lists the valid ones), or an empty
        ``d`` or ``graph_families``.
    """
    ds = tuple(DIMENSIONS) if d is None else tuple(int(x) for x in d)
    fams = tuple(GRAPH_FAMILIES) if graph_families is None else tuple(graph_families)
    if not ds:  # an empty pool would fail only at the first row (a modulo by its size)
        raise ValueError("d must name at least one dimension (or be None for all), got none")
    if not fams:
        raise ValueError(
            "graph_families must name at least one family (or be None for all), got none"
        )
    bad_d = [x for x in ds if x not in DIMENSIONS]
    if bad_d:
        raise ValueError(f"d {bad_d} not in the arena's dimensions {list(DIMENSIONS)}")
    bad_f = [f for f in fams if f not in GRAPH_FAMILIES]
    if bad_f:
        raise ValueError(f"graph families {bad_f} unknown; choose from {list(GRAPH_FAMILIES)}")
    out = []
    for i in range(len(GRAPH_FAMILIES) * len(DIMENSIONS) * SCMS_PER_BLOCK):
        f, dd, _ = block_of(i, SCMS_PER_BLOCK)
        if f in fams and dd in ds:
            out.append(i)
    return out


@functools.lru_cache(maxsize=8)
def _order(seed: int, family: str, epoch: int, size: int) -> np.ndarray:
    return order(seed, family, epoch, size)


def instance(
    seed: int, k: int, positions: Sequence[int], setting: str = "obs", family: str = "synthetic"
) -> tuple[Any, Any, int]:
    """Draw and audit stream instance ``k``: ``(spec, table, attempts)``.

    ``family`` keys the epoch seeds (:func:`stream_seed`), so streams of other families that
    draw arena-design SCMs (the protocol variants) never share an SCM with this one by seed.

    Raises
    ------
    AuditError
        No candidate passed the gates in :data:`MAX_ATTEMPTS` attempts.
    """
    if setting not in ("obs", "obsint"):
        raise ValueError(f"setting must be 'obs' or 'obsint', got {setting!r}")
    epoch, j = divmod(int(k), len(positions))
    index = int(positions[int(_order(seed, family, epoch, len(positions))[j])])
    s = stream_seed(seed, family, epoch)
    n_obs, n_int = (N_OBS, 0) if setting == "obs" else N_OBSINT
    reasons: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        try:
            spec = draw_spec(s, index, attempt, suite=STREAM_SUITE, scms_per_block=SCMS_PER_BLOCK)
        except (_Reject, SpecError) as exc:
            reasons.append(str(exc))
            continue
        bad = audit_graph(spec)
        if not bad:
            ss = np.random.SeedSequence(s, spawn_key=(index, attempt, 2))
            try:
                t = sample(spec, n_obs, n_int, ss, counterfactual_check=n_int > 0)
            except SpecError as exc:
                reasons.append(str(exc))
                continue
            bad = audit_table(spec, t)
            if not bad:
                return spec, t, attempt + 1
        reasons.append("; ".join(bad[:2]))
    raise AuditError(f"stream instance {k}: no candidate passed the audit: {reasons[-3:]}")
