"""Throughput and stationarity diagnostics of the temporal generator (one process).

``python -m causalarena.generator.temporal.bench throughput --n 4000 --T 200``
    Pairs per second: ``simulate`` only (SCMs and interventions drawn beforehand) and end to
    end (``generate_pairs``: draw, simulate both arms, reject/redraw diverged).
``python -m causalarena.generator.temporal.bench stationarity --n 1000``
    Over ``n`` generic draws: drawn companion radius, rescaled and rejected fractions, and the
    early/late variance ratio and standardised drift of accepted episodes.
``python -m causalarena.generator.temporal.bench suite --suite dot-generic --n 1000``
    Episodes per second of a suite's episode generator and Arrow conversion (one process),
    with the fraction of redrawn (diverged) attempts.  The comparison with dotime is
    ``bench/bench_temporal.py``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from causalarena.generator.temporal.draw import draw_intervention, draw_temporal_scm
from causalarena.generator.temporal.generate import S_DRAW, S_IV, generate_pairs
from causalarena.generator.temporal.simulate import episode_stream, simulate


def throughput(n: int = 4000, T: int = 200, seed: int = 0) -> dict[str, float]:
    """Pairs per second (counterfactual pairs, generic mix, N <= 10)."""
    scms = [draw_temporal_scm(episode_stream(seed, (i, 0), S_DRAW)) for i in range(n)]
    ivs = [draw_intervention(episode_stream(seed, (i, 0), S_IV), s) for i, s in enumerate(scms)]
    t = time.perf_counter()
    b = simulate(scms, T, ivs, seed)
    sim = time.perf_counter() - t
    t = time.perf_counter()
    ps = generate_pairs(seed, range(n), T)
    e2e = time.perf_counter() - t
    return {
        "n": n,
        "T": T,
        "simulate_pairs_per_s": n / sim,
        "end_to_end_pairs_per_s": n / e2e,
        "diverged_first_draw": float(b.diverged.mean()),
        "rejected_fraction": ps.rejected_fraction,
    }


def stationarity(n: int = 1000, T: int = 200, seed: int = 0) -> dict[str, float]:
    """Stationarity summary over ``n`` generic draws (see module docstring)."""
    ps = generate_pairs(seed, range(n), T)
    rho_drawn = np.array([e.scm.metadata["rho_drawn"] for e in ps.episodes])
    resc = np.array([e.scm.metadata["rescaled"] for e in ps.episodes])
    rho = np.array([e.diagnostics["spectral_radius"] for e in ps.episodes])
    vr = np.array([e.diagnostics["var_ratio"] for e in ps.episodes])
    dr = np.array([e.diagnostics["drift"] for e in ps.episodes])
    reg = np.array([e.scm.kind == "regime" for e in ps.episodes])
    ok = np.isfinite(vr) & ~reg
    return {
        "n": n,
        "rejected_fraction": ps.rejected_fraction,
        "rho_drawn_ge_1": float(np.mean(rho_drawn >= 1)),
        "rescaled_fraction": float(resc.mean()),
        "rho_max_after": float(rho.max()),
        "var_ratio_median_nonregime": float(np.median(vr[ok])),
        "var_ratio_within_2x_nonregime": float(np.mean((vr[ok] >= 0.5) & (vr[ok] <= 2))),
        "drift_median_nonregime": float(np.median(dr[ok])),
        "drift_below_0_5_nonregime": float(np.mean(dr[ok] < 0.5)),
        "drift_median_regime": float(np.nanmedian(dr[reg])) if reg.any() else float("nan"),
        "var_ratio_median_regime": float(np.nanmedian(vr[reg])) if reg.any() else float("nan"),
    }


def suite_throughput(suite: str = "dot-generic", n: int = 1000) -> dict[str, float]:
    """Episodes per second of :func:`generate_suite_episodes` + Arrow rows for ``n`` indices."""
    from causalarena.generator.temporal.storage import episodes_to_arrow
    from causalarena.generator.temporal.suites import generate_suite_episodes, get_temporal_suite

    s = get_temporal_suite(suite)
    idx = s.public_indices("full")[:n]
    t = time.perf_counter()
    eps = generate_suite_episodes(s, idx)
    gen = time.perf_counter() - t
    t = time.perf_counter()
    tab = episodes_to_arrow(eps)
    conv = time.perf_counter() - t
    att = np.array([e.attempt + 1 for e in eps])
    return {
        "suite": suite,
        "n": len(eps),
        "episodes_per_s": len(eps) / gen,
        "with_arrow_episodes_per_s": len(eps) / (gen + conv),
        "arrow_mb": tab.nbytes / 2**20,
        "rejected_fraction": float((att - 1).sum() / att.sum()),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m causalarena.generator.temporal.bench")
    ap.add_argument("what", choices=["throughput", "stationarity", "suite"])
    ap.add_argument("--suite", default="dot-generic")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--T", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.what == "throughput":
        out = throughput(a.n or 4000, a.T, a.seed)
    elif a.what == "suite":
        out = suite_throughput(a.suite, a.n or 1000)
    else:
        out = stationarity(a.n or 1000, a.T, a.seed)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
