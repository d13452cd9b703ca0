"""Suite registry: what each named suite contains at each scale (CausalArena paper A.1, B.1).

A suite is a pure function of ``(name, version, seed)``.  ``arena-synthetic`` crosses the 10
graph families with d in {10, 20, 30, 50, 100} and 20 SCMs per block (1,000 SCMs); each SCM
has an ``obs`` split (1,000 observational rows) and an ``obsint`` split (800 observational +
200 interventional rows), 5 replicates each (paper B.1).  Half of every block (10 SCMs,
chosen by a seeded permutation) is public; the other half is reserved.  Scales:

- ``mini``: the first public SCM of every block, 1 replicate (50 SCMs, 100 rows);
- ``full``: every public SCM, 5 replicates (500 SCMs, 5,000 rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from causalarena.generator.graphs import GRAPH_FAMILIES
from causalarena.generator.synthetic.draw import DIMENSIONS, GENERATOR_REV, suite_key


@dataclass(frozen=True)
class Scale:
    """How much of a suite a build writes."""

    public_per_block: int
    replicates: int


@dataclass(frozen=True)
class SuiteDef:
    """Definition of a named suite (frozen into the manifest)."""

    name: str
    version: str
    seed: int
    family: str = "synthetic"
    scms_per_block: int = 20
    public_per_block: int = 10
    replicates: int = 5
    n_obs: int = 1000
    n_obsint: tuple[int, int] = (800, 200)
    max_attempts: int = 50
    scales: dict[str, Scale] = field(
        default_factory=lambda: {
            "mini": Scale(public_per_block=1, replicates=1),
            "full": Scale(public_per_block=10, replicates=5),
        }
    )

    @property
    def configs(self) -> tuple[str, str]:
        """Config names, one per exported split: ``<family>-obs`` and ``<family>-obsint``."""
        return (f"{self.family}-obs", f"{self.family}-obsint")

    def blocks(self) -> list[tuple[str, int]]:
        """``(graph_family, d)`` blocks in pool order."""
        return [(f, d) for f in GRAPH_FAMILIES for d in DIMENSIONS]

    def public_positions(self, block: int) -> list[int]:
        """Block positions of the public SCMs, in release order (seeded permutation)."""
        rng = np.random.default_rng(
            np.random.SeedSequence(
                self.seed, spawn_key=(suite_key(self.name), GENERATOR_REV, 10**6 + block)
            )
        )
        return [int(k) for k in rng.permutation(self.scms_per_block)[: self.public_per_block]]

    def reserved_positions(self, block: int) -> list[int]:
        """Block positions of the reserved (held-out) SCMs."""
        pub = set(self.public_positions(block))
        return [k for k in range(self.scms_per_block) if k not in pub]

    def public_indices(self, block: int, scale: str) -> list[int]:
        """Pool indices of the public SCMs of ``block`` written at ``scale``."""
        sc = self.get_scale(scale)
        return [
            block * self.scms_per_block + k
            for k in self.public_positions(block)[: sc.public_per_block]
        ]

    def get_scale(self, scale: str) -> Scale:
        if scale not in self.scales:
            raise ValueError(
                f"unknown scale {scale!r} for suite {self.name!r}; "
                f"choose from {sorted(self.scales)}"
            )
        return self.scales[scale]


SUITES: dict[str, SuiteDef] = {
    "arena-synthetic": SuiteDef(name="arena-synthetic", version="1.0.0", seed=20260101),
}


def get_suite(name: str) -> SuiteDef:
    """Look up a suite definition.

    Raises
    ------
    ValueError
        If the suite is unknown (the message lists the known suites).
    """
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; known suites: {sorted(SUITES)}")
    return SUITES[name]
