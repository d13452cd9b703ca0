"""Fresh protocol-variant instances for pretraining streams (issue 13 §2; paper appendix A.2).

Stream instance ``k`` is one fresh d = 30 SCM of the arena's design (all ten graph families in
the arena's proportions; :func:`causalarena.generator.synthetic.fresh.instance` with the
stream family ``"protocols"``, audited for the obs+int setting) observed as the protocol
suites observe their SCMs:

- ``arena-protocols``: the SCM under each requested protocol
  (:func:`~causalarena.generator.protocols.family.audited_variant`; all protocols of one SCM
  share one data seed per attempt, the paired design of the suite);
- ``arena-samplesize``: one observational sample of ``max(sizes)`` rows whose prefixes of every
  requested size pass the gates (:func:`~causalarena.generator.protocols.family.nested_sample`),
  so a larger n extends every smaller n.

Seeds: the SCM comes from the ``"protocols"`` stream epoch seed (bit 63 set, never a release
seed); the data and the protocol draws from :func:`data_seed` / :func:`variant_rng`, keyed by
the stream seed, the suite and ``k``.  Both suites share the SCMs of a stream seed, as the
released suites share theirs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from causalarena.generator.protocols.family import (
    OBSERVATIONAL,
    audited_variant,
    instance_row,
    nested_sample,
    prefix,
)
from causalarena.generator.protocols.protocols import PROTOCOLS, get_protocol
from causalarena.generator.protocols.suites import N_GRID, SUITES, D
from causalarena.generator.sample import _stream
from causalarena.generator.synthetic.fresh import instance, pool, stream_seed

STREAM_FAMILY = "protocols"
MAX_ATTEMPTS = 20


#: Most rows a fresh protocol instance may ask for (100x the design's largest n; a d = 30
#: float32 instance of this size is 120 MB).
MAX_ROWS = 1_000_000


def check_options(suite: str, protocols: Sequence[str] | None, sizes: Sequence[int] | None):
    """Validated ``(suite, protocol names, sizes)`` of a protocol stream.

    Raises
    ------
    ValueError
        Unknown suite or protocol, or a size that is not a positive integer (the message names
        the value and lists the valid ones).
    """
    if suite not in SUITES:
        raise ValueError(f"unknown protocol suite {suite!r}; choose from {sorted(SUITES)}")
    if isinstance(protocols, str):  # a bare name, not a list of its characters
        protocols = [protocols]
    names = [p.name for p in PROTOCOLS] if protocols is None else [str(p) for p in protocols]
    for p in names:
        get_protocol(p)
    if not names:
        raise ValueError("protocols must name at least one protocol")
    ns = list(N_GRID) if sizes is None else list(sizes)
    bad = [n for n in ns if isinstance(n, bool) or not isinstance(n, int) or n < 1]
    if bad or not ns:
        raise ValueError(f"sizes must be positive integers, got {ns!r}")
    if max(ns) > MAX_ROWS:
        raise ValueError(
            f"sizes: {max(ns)} rows exceed the stream's limit of {MAX_ROWS:,} rows per instance "
            "(the largest arena-samplesize n is 10,000)"
        )
    return suite, names, sorted(set(ns))


def data_seed(seed: int, suite: str, k: int, attempt: int) -> np.random.SeedSequence:
    """Seed of instance ``k``'s data at ``attempt`` (shared by its protocols)."""
    return np.random.SeedSequence(
        stream_seed(seed, f"{STREAM_FAMILY}/{suite}/data", 0), spawn_key=(int(k), attempt, 0)
    )


def variant_rng(seed: int, suite: str, k: int, attempt: int, p: int) -> np.random.Generator:
    """Generator of protocol ``p``'s draws (pool top-up, shifts) for instance ``k``."""
    return _stream(stream_seed(seed, f"{STREAM_FAMILY}/{suite}/variant", 0), int(k), attempt, p)


def base_spec(seed: int, k: int) -> tuple[Any, int]:
    """The fresh audited d = 30 SCM of instance ``k`` and its audit attempts."""
    spec, _, attempts = instance(seed, k, pool([D]), "obsint", family=STREAM_FAMILY)
    return spec, attempts


def rows(
    seed: int, k: int, spec: Any, attempts: int, suite: str, protocols: list[str], sizes: list[int]
) -> Iterator[dict[str, Any]]:
    """The rows of instance ``k`` (one per protocol or size; the protocol row schema).

    Yields nothing when a variant (or the nested sample) fails the gates in every attempt, so
    the caller can skip the SCM deterministically.
    """
    kind = SUITES[suite].kind
    tag = f"stream-{suite}/{seed}/{k}"
    out = []
    if kind == "samplesize":
        t, a, reasons = nested_sample(
            spec, lambda att: data_seed(seed, suite, k, att), MAX_ATTEMPTS, sizes
        )
        if t is None:
            return
        for n in sizes:
            out.append(
                instance_row(
                    spec,
                    prefix(t, n),
                    family=kind,
                    setting="obs",
                    n=n,
                    protocol=OBSERVATIONAL,
                    instance=f"{tag}/n{n}",
                    attempts=attempts + a - 1,
                    reasons=reasons,
                )
            )
    else:
        order = [p.name for p in PROTOCOLS]
        for name in protocols:
            p = get_protocol(name)
            j = order.index(name)
            var, t, a, reasons = audited_variant(
                spec,
                p,
                lambda att, j=j: variant_rng(seed, suite, k, att, j),
                lambda att: data_seed(seed, suite, k, att),
                MAX_ATTEMPTS,
            )
            if var is None:
                return
            out.append(
                instance_row(
                    var,
                    t,
                    family=kind,
                    setting="obsint",
                    n=p.n_obs + p.n_int,
                    protocol=p.name,
                    instance=f"{tag}/{p.name}",
                    attempts=attempts + a - 1,
                    reasons=reasons,
                )
            )
    yield from out
