"""The sampler's fast paths give exactly what the plain constructions give (bytes unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.generator import mechanisms, sample

SEEDS = [
    0,
    1,
    2**32 - 1,
    2**32,
    2**64 + 3,
    2**127 + 12345678901234567890,
    2**200 + 1,
    np.random.SeedSequence(3, spawn_key=(1, 2)),
    np.random.SeedSequence(7, spawn_key=(2**33,)),
    np.random.SeedSequence([1, 2, 3, 4, 5]),
    np.random.SeedSequence(0).spawn(3)[2],
]


@pytest.mark.parametrize("seed", SEEDS, ids=range(len(SEEDS)))
def test_node_states_equal_numpy_seedsequence_streams(seed):
    """Vectorised SeedSequence/PCG64 seeding == SeedSequence(entropy, spawn_key+(node, j))."""
    words = sample._node_words(seed, 70)
    node = sample._node_streams(seed, 70)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    for j in (0, 1, 5, 31, 69):
        plain = sample._stream(seed, sample._S_NODE, j)
        child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, sample._S_NODE, j))
        assert np.array_equal(words[j], child.generate_state(4, np.uint64))
        assert node(j).bit_generator.state == plain.bit_generator.state
        a = node(j).standard_normal(7)
        assert np.array_equal(a, plain.standard_normal(7))


def test_node_streams_fall_back_for_other_pool_sizes():
    seed = np.random.SeedSequence(5, pool_size=8)
    assert sample._node_words(seed, 3) is None
    node = sample._node_streams(seed, 3)
    assert np.array_equal(node(2).random(4), sample._stream(seed, sample._S_NODE, 2).random(4))


def test_check_finite_fast_path_boundary_matches_float32_cast():
    """Finite after the float32 cast iff |x| < 2**128 - 2**103; anything else is refused."""
    from causalarena.errors import SpecError
    from causalarena.spec import SCMSpec

    v = SCMSpec(
        scm_id="one",
        variables=[
            {
                "name": "X",
                "role": "root",
                "root": {"family": "gaussian", "params": {"mean": 0.0, "std": 1.0}},
            }
        ],
    ).variables[0]
    edge = 2.0**128 - 2.0**103
    sample._check_finite(v, np.array([0.0, -np.nextafter(edge, 0), np.nextafter(edge, 0)]))
    # many large valid values overflow the fast path's sum of squares: the exact check passes
    sample._check_finite(v, np.full(5000, np.nextafter(edge, 0)))
    for bad in (edge, -edge, 1e200, np.inf, -np.inf, np.nan):
        with pytest.raises(SpecError, match="X"):
            sample._check_finite(v, np.array([0.0, bad]))


def test_seeded_draws_cache_is_read_only_and_equal():
    z, u = mechanisms._seeded_draws(123, 10, 4)
    z0, u0 = mechanisms._seeded_draws_uncached(123, 10, 4)
    assert np.array_equal(z, z0) and np.array_equal(u, u0)
    assert mechanisms._seeded_draws(123, 10, 4)[0] is z
    with pytest.raises(ValueError):
        z[0] = 1.0
