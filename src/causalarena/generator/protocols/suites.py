"""Suite definitions of the protocol-sensitivity suites (paper section 5.3, appendix A.2).

Both suites use the same SCMs: the public d = 30 SCMs of ``arena-synthetic`` (the synthetic
pool's audited draw, unchanged), taken per graph family in the synthetic suite's public order.
``full``: 10 per graph family (100 SCMs); ``mini``: the first of each graph family (10 SCMs,
the SCMs of the ``arena-synthetic`` mini scale at d = 30).  The build option ``scms=k`` keeps
the first ``k`` SCMs of the scale (tests, quick looks); it is recorded in the manifest.

- ``arena-samplesize``: observation-only, one config per n in :data:`N_GRID`
  (``samplesize-n100`` ... ``samplesize-n10000``).  Nested: the n rows of an SCM are the
  first n rows of one 10,000-row sample, so a larger n extends every smaller n.
- ``arena-protocols``: one config per protocol (``protocols-<name>``,
  :data:`~causalarena.generator.protocols.protocols.PROTOCOLS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from causalarena.generator.synthetic.suites import get_suite as get_synthetic

#: Sample sizes of the sample-size suite (paper 5.3).
N_GRID: tuple[int, ...] = (100, 200, 500, 1000, 2000, 5000, 10000)
#: Dimension of every SCM of both suites.
D = 30
POOL_SUITE = "arena-synthetic"


@dataclass(frozen=True)
class ProtocolSuite:
    """Definition of one protocol-sensitivity suite (frozen into the manifest)."""

    name: str
    version: str
    seed: int
    kind: str  # "samplesize" or "protocols"
    max_attempts: int = 20
    scales: dict[str, int] = field(default_factory=lambda: {"mini": 1, "full": 10})

    def get_scale(self, scale: str) -> int:
        """SCMs per graph family at ``scale``.

        Raises
        ------
        ValueError
            Unknown scale (lists the known ones).
        """
        if scale not in self.scales:
            raise ValueError(
                f"unknown scale {scale!r} for suite {self.name!r}; choose from {sorted(self.scales)}"
            )
        return self.scales[scale]

    def pool(self, scale: str, options: dict[str, Any] | None = None) -> list[int]:
        """``arena-synthetic`` pool indices of the suite's SCMs at ``scale``, in release order.

        Raises
        ------
        ValueError
            Unknown scale, or option ``scms`` not an integer in ``[1, len(pool)]``.
        """
        per_family = self.get_scale(scale)
        synth = get_synthetic(POOL_SUITE)
        blocks = [b for b, (_, d) in enumerate(synth.blocks()) if d == D]
        out = [i for b in blocks for i in synth.public_indices(b, "full")[:per_family]]
        k = (options or {}).get("scms")
        if k is not None:
            if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(out):
                raise ValueError(
                    f"option scms = {k!r}: must be an integer in [1, {len(out)}] for "
                    f"{self.name} at scale {scale}"
                )
            out = out[:k]
        return out


SUITES: dict[str, ProtocolSuite] = {
    "arena-samplesize": ProtocolSuite("arena-samplesize", "0.1.0", 20260301, "samplesize"),
    "arena-protocols": ProtocolSuite("arena-protocols", "0.1.0", 20260302, "protocols"),
}


def get_suite(name: str) -> ProtocolSuite:
    """Look up a protocol-sensitivity suite.

    Raises
    ------
    ValueError
        Unknown suite (lists the known ones).
    """
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; known suites: {sorted(SUITES)}")
    return SUITES[name]
