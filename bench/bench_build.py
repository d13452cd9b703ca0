"""Benchmark: full arena-synthetic build and sampler throughput against a numpy reference.

Run with ``make bench`` (or ``python bench/bench_build.py --scale full --workers 2``).  Prints:

1. the build: wall time, SCMs, instances and rows x variables per second, peak memory (sum of
   the resident memory of the build process and its workers, polled every 0.2 s);
2. sampling throughput of ``causalarena.sample`` against a plain vectorised numpy reference
   (topological order, one vectorised evaluation per node over all rows, the same mechanism
   functions, Gaussian noise, do-rows set in the same sweep) on the built public SCMs;
3. linear-Gaussian SCMs at d = 50, n = 1,000, about 100 edges, per CPU-second, observational
   and with 200 do-rows (the figures quoted in the foundation issue for peers).
"""

from __future__ import annotations

import argparse
import json
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pyarrow.parquet as pq

from causalarena import SCMSpec, sample
from causalarena.generator.mechanisms import MECHANISMS
from causalarena.release.engine import build


class PeakMemory:
    """Poll the resident memory of this process and its children."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for p in [me, *me.children(recursive=True)]:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self) -> PeakMemory:
        self._t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._t.join()


def reference_sample(spec: SCMSpec, n_obs: int, n_int: int, rng: np.random.Generator) -> np.ndarray:
    """Plain numpy reference: one vectorised evaluation per node, do-rows in the same sweep.

    Uses the same mechanism, root and noise functions as the package (so the same work per
    node), but one random stream, no spec compilation, no dependent blocks, no stressors, no
    keyed streams and no diagnostics: the ratio to it is the sampler's framework overhead.
    """
    from causalarena.generator.distributions import NOISES, ROOTS

    d = spec.d
    n = n_obs + n_int
    idx = spec.index()
    X = np.empty((n, d))
    targets = [idx[t] for t in spec.intervention.targets] if n_int else []
    row_target = rng.integers(0, len(targets), n_int) if n_int else None
    for j in spec.topological_order():
        v = spec.variables[j]
        if v.role == "root":
            x = ROOTS[v.root.family].ppf(v.root.params, rng.random(n))
        else:
            P = X[:, [idx[p] for p in v.parents]]
            raw = MECHANISMS[v.mechanism.family].evaluate(v.mechanism.params, P)
            if MECHANISMS[v.mechanism.family].output_kind == "continuous":
                raw = v.strength * (raw - v.out_loc) / v.out_scale
            x = NOISES[v.noise.family].apply(v.noise.params, raw, P, rng)
        if n_int and j in targets:
            rows = n_obs + np.flatnonzero(row_target == targets.index(j))
            lo, hi = np.percentile(x[:n_obs], [10, 90])
            x[rows] = rng.uniform(lo, hi, rows.size)
        X[:, j] = x
    return X.astype(np.float32)


def linear_gaussian_spec(d: int, n_edges: int, seed: int) -> SCMSpec:
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    chosen = {pairs[k] for k in rng.choice(len(pairs), n_edges, replace=False)}
    variables = []
    for j in range(d):
        parents = [f"X{i}" for i in range(j) if (i, j) in chosen]
        if parents:
            variables.append(
                {
                    "name": f"X{j}",
                    "role": "structural",
                    "parents": parents,
                    "mechanism": {
                        "family": "linear",
                        "params": {
                            "weights": (
                                rng.uniform(0.5, 1.5, len(parents))
                                * rng.choice([-1, 1], len(parents))
                            ).tolist(),
                            "bias": 0.0,
                        },
                    },
                    "noise": {"family": "gaussian", "params": {"scale": 1.0}},
                }
            )
        else:
            variables.append(
                {
                    "name": f"X{j}",
                    "role": "root",
                    "root": {"family": "gaussian", "params": {"mean": 0.0, "std": 1.0}},
                }
            )
    return SCMSpec(
        scm_id="lg",
        variables=variables,
        intervention={"targets": [f"X{j}" for j in range(0, d, 5)]},
    )


def per_cpu_second(fn, min_time: float = 2.0) -> float:
    start_cpu, count = time.process_time(), 0
    while time.process_time() - start_cpu < min_time:
        fn()
        count += 1
    return count / (time.process_time() - start_cpu)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="full")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="bench/out/arena-synthetic")
    ap.add_argument("--keep", action="store_true", help="reuse an existing build (resume)")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists() and not args.keep:
        shutil.rmtree(out)

    t0 = time.perf_counter()
    with PeakMemory() as mem:
        build("arena-synthetic", scale=args.scale, out=out, workers=args.workers, quiet=True)
    wall = time.perf_counter() - t0
    manifest = json.loads((out / "manifest.json").read_text())
    instances = sum(c["rows"] for c in manifest["configs"].values())
    meta = pq.read_table(out / "data", columns=["n_obs", "n_int", "d", "spec", "setting"])
    cells = int(
        sum(
            (a + b) * d
            for a, b, d in zip(
                meta["n_obs"].to_pylist(),
                meta["n_int"].to_pylist(),
                meta["d"].to_pylist(),
                strict=True,
            )
        )
    )
    print(
        f"build {args.scale} with {args.workers} workers: {wall:.1f} s wall, "
        f"{manifest['audit']['scms']} SCMs, {instances} instances "
        f"({instances / wall:.1f}/s), {cells / wall / 1e6:.2f} M rows*variables/s, "
        f"peak memory {mem.peak / 2**30:.2f} GiB, "
        f"audit redraw rate {manifest['audit']['resampled_scms'] / manifest['audit']['scms']:.1%}"
    )

    specs = [
        SCMSpec.from_json(s)
        for s, st in zip(meta["spec"].to_pylist(), meta["setting"].to_pylist(), strict=True)
        if st == "obs"
    ]
    specs = list({s.scm_id: s for s in specs}.values())[:100]
    for n_obs, n_int in ((1000, 0), (800, 200)):
        rng = np.random.default_rng(0)
        t = time.process_time()
        for s in specs:
            reference_sample(s, n_obs, n_int, rng)
        ref = time.process_time() - t
        t = time.process_time()
        for k, s in enumerate(specs):
            sample(s, n_obs, n_int, seed=k)
        ours = time.process_time() - t
        print(
            f"arena SCMs, n_obs={n_obs} n_int={n_int}: causalarena {len(specs) / ours:.1f} SCMs/CPU-s, "
            f"numpy reference {len(specs) / ref:.1f} SCMs/CPU-s, ratio {ours / ref:.2f}x"
        )

    lg = linear_gaussian_spec(50, 100, 0)
    rng = np.random.default_rng(1)
    for n_obs, n_int in ((1000, 0), (800, 200)):
        ours = per_cpu_second(lambda a=n_obs, b=n_int: sample(lg, a, b, seed=0))
        ref = per_cpu_second(lambda a=n_obs, b=n_int: reference_sample(lg, a, b, rng))
        print(
            f"linear-Gaussian d=50, 100 edges, n_obs={n_obs} n_int={n_int}: causalarena "
            f"{ours:.0f} SCMs/CPU-s, numpy reference {ref:.0f} SCMs/CPU-s"
        )


if __name__ == "__main__":
    main()
