"""Benchmark: full arena build against the numpy reference of its sampling (issue 13 §4).

Run with ``make bench`` (or ``python bench/bench_build.py --scale mini --workers 2``).  Builds
the synthetic, semantic, formula, protocol and sample-size suites one after the other with the
release engine and prints ONE table, one row per suite plus a total:

- wall time of the build, its CPU time (this process and its worker processes), rows x
  variables of the released data per wall-second, and peak memory (resident memory of the
  build process and its workers summed, polled every 0.2 s);
- ``sample CPU``: CPU time of :func:`causalarena.sample` re-drawing every released instance
  (same spec, rows and do-rows), and ``numpy ref CPU``: the same draws by
  :func:`reference_sample`, the plain numpy floor (one vectorised evaluation per node with the
  package's mechanism and noise functions, one random stream, do-rows in the same sweep; no
  spec compilation, keyed streams, stressors, dependent roots, discrete rounding, protocol modes
  or diagnostics).  ``wall / ref`` is the build's wall time over the reference's CPU time and
  ``CPU / ref`` its CPU time over it: what the whole pipeline (SCM draws, calibration, audit,
  metadata, Parquet) costs beside the numpy work of producing the same numbers.  On a shared
  machine the CPU columns are the steadier ones.

A full-scale build of every suite is long on a shared two-core machine: ``--scale`` picks mini
(the default) or full, ``--suites`` a subset (e.g. ``--scale full --suites synthetic``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psutil

from causalarena import SCMSpec

SUITES = {
    "synthetic": "arena-synthetic",
    "semantic": "arena-semantic",
    "formula": "arena-formula",
    "protocols": "arena-protocols",
    "samplesize": "arena-samplesize",
}


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
    keyed streams, no protocol modes and no diagnostics: the ratio to it is the sampler's
    framework overhead.  Do-rows: one target per row, uniform between the 10th and 90th
    percentile of the node's observational values.

    Returns
    -------
    ndarray of shape (n_obs + n_int, d), float32
    """
    from causalarena.generator.scenario.operations import ALL_MECHANISMS as MECHANISMS
    from causalarena.generator.scenario.operations import ALL_NOISES as NOISES
    from causalarena.generator.scenario.operations import ALL_ROOTS as ROOTS

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
            mech = MECHANISMS[v.mechanism.family]
            raw = mech.evaluate(v.mechanism.params, P)
            if mech.output_kind == "continuous":
                raw = v.strength * (raw - v.out_loc) / v.out_scale
            x = NOISES[v.noise.family].apply(v.noise.params, raw, P, rng)
        if n_int and j in targets:
            rows = n_obs + np.flatnonzero(row_target == targets.index(j))
            lo, hi = np.percentile(x[:n_obs], [10, 90])
            x[rows] = rng.uniform(lo, hi, rows.size)
        X[:, j] = x
    return X.astype(np.float32)


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def released_instances(out: Path) -> list[tuple[str, int, int, int]]:
    """(spec JSON, n_obs, n_int, d) of every released row of a built suite."""
    import pyarrow.parquet as pq

    rows = []
    for f in sorted((out / "data").rglob("*.parquet")):
        t = pq.read_table(f, columns=["spec", "n_obs", "n_int", "d"])
        rows += list(
            zip(
                t["spec"].to_pylist(),
                t["n_obs"].to_pylist(),
                t["n_int"].to_pylist(),
                t["d"].to_pylist(),
                strict=True,
            )
        )
    return rows


def sampling_parts(rows) -> tuple[float, float, int]:
    """CPU seconds of causalarena.sample and of the numpy reference over the same draws."""
    from causalarena import sample

    specs = [SCMSpec.from_json(s) for s, *_ in rows]
    t = time.process_time()
    for k, (spec, (_, a, b, _d)) in enumerate(zip(specs, rows, strict=True)):
        sample(spec, a, b, seed=k)
    ours = time.process_time() - t
    ref, failed = 0.0, 0
    for k, (spec, (_, a, b, _d)) in enumerate(zip(specs, rows, strict=True)):
        t = time.process_time()
        try:
            reference_sample(spec, a, b, np.random.default_rng(k))
        except Exception:  # a scenario form the plain reference does not cover
            failed += 1
        ref += time.process_time() - t
    return ours, ref, failed


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({model})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="mini", choices=["mini", "full"])
    ap.add_argument("--suites", default=",".join(SUITES), help="comma-separated subset")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="bench/out/build", help="parent folder of the builds")
    ap.add_argument("--keep", action="store_true", help="resume existing builds (timing!)")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = [s for s in names if s not in SUITES]
    if unknown:
        ap.error(f"--suites: unknown {unknown}; known: {', '.join(SUITES)}")

    from causalarena.release.engine import build

    loads = [os.getloadavg()[0]]
    table = []
    for name in names:
        out = Path(args.out) / f"{SUITES[name]}-{args.scale}"
        if out.exists() and not args.keep:
            shutil.rmtree(out)
        cpu0, t0 = _cpu_children(), time.perf_counter()
        with PeakMemory() as mem:
            build(SUITES[name], scale=args.scale, out=out, workers=args.workers, quiet=True)
        wall, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
        loads.append(os.getloadavg()[0])
        rows = released_instances(out)
        cells = sum((a + b) * d for _, a, b, d in rows)
        ours, ref, failed = sampling_parts(rows)
        table.append((name, len(rows), cells, wall, cpu, mem.peak, ours, ref, failed))
        print(f"built {SUITES[name]} ({args.scale}) in {wall:.1f} s", file=sys.stderr)

    print(
        f"Arena build, scale {args.scale}, {args.workers} workers; {machine()}; "
        f"load average (1 min) during the run {min(loads):.2f}-{max(loads):.2f}"
    )
    print()
    print(
        "| suite | instances | rows*vars | wall s | CPU s | M rows*vars/s | peak GiB "
        "| sample CPU s | numpy ref CPU s | wall / ref | CPU / ref |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot = [0, 0, 0.0, 0.0, 0, 0.0, 0.0, 0]
    for name, n, cells, wall, cpu, peak, ours, ref, failed in table:
        note = f" ({failed} not covered)" if failed else ""
        print(
            f"| {name} | {n} | {cells:,} | {wall:.1f} | {cpu:.1f} | {cells / wall / 1e6:.3f} | "
            f"{peak / 2**30:.2f} | {ours:.2f} | {ref:.2f}{note} | {wall / ref:.0f}x | {cpu / ref:.0f}x |"
        )
        for i, v in enumerate((n, cells, wall, cpu, peak, ours, ref, failed)):
            tot[i] = max(tot[i], v) if i == 4 else tot[i] + v
    n, cells, wall, cpu, peak, ours, ref, failed = tot
    note = f" ({failed} not covered)" if failed else ""
    print(
        f"| **total** | {n} | {cells:,} | {wall:.1f} | {cpu:.1f} | {cells / wall / 1e6:.3f} | "
        f"{peak / 2**30:.2f} (max) | {ours:.2f} | {ref:.2f}{note} | {wall / ref:.0f}x | {cpu / ref:.0f}x |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
