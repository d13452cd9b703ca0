"""Benchmark: one build on the local scheduler and on a dask ``LocalCluster`` of 1 and 2 workers.

Run with ``python bench/bench_dask.py [--suite arena-synthetic --scale mini]`` (needs the
``distributed`` extra).  One table, all rows measured in the same run: wall time, CPU-seconds
of the engine process (on a LocalCluster it also hosts the scheduler and the nannies) and of
its workers (local pool: ``RUSAGE_CHILDREN``; dask: each worker process's own ``cpu_times``
before and after, via ``Client.run``), the wall-time speed-up and the total-CPU ratio against
``local, 1 worker``, and whether the manifest sha256 equals the
reference's (it must: bytes never depend on the scheduler or worker count).  The machine is
shared and noisy: read the CPU-seconds beside the wall times.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _self_cpu() -> float:
    return time.process_time()


def _worker_cpu() -> float:
    import psutil

    t = psutil.Process().cpu_times()
    return t.user + t.system


def _run(label, build_fn, dask_client=None):
    """``(label, wall, engine CPU, worker CPU, out)``; for a local pool the workers' CPU is
    ``RUSAGE_CHILDREN`` (this process's own time is the engine's); on a LocalCluster the
    engine's includes the scheduler and nannies, which run in this process."""
    s0, c0 = _self_cpu(), _children_cpu()
    w0 = sum(dask_client.run(_worker_cpu).values()) if dask_client is not None else 0.0
    t0 = time.perf_counter()
    out = build_fn()
    wall = time.perf_counter() - t0
    engine, workers = _self_cpu() - s0, _children_cpu() - c0
    if dask_client is not None:
        workers += sum(dask_client.run(_worker_cpu).values()) - w0
    return label, wall, engine, workers, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="arena-synthetic")
    ap.add_argument("--scale", default="mini")
    args = ap.parse_args(argv)

    import distributed

    from causalarena.release.engine import build
    from causalarena.release.io import sha256_file

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        root = Path(tmp)

        def one(name, **kw):
            return lambda: build(args.suite, scale=args.scale, out=root / name, quiet=True, **kw)

        rows.append(_run("local, 1 worker", one("l1", workers=1)))
        rows.append(_run("local, 2 workers", one("l2", workers=2)))
        for n in (1, 2):
            with (
                distributed.LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                client.run(lambda: __import__("causalarena.release.engine"))  # warm imports
                rows.append(
                    _run(
                        f"dask LocalCluster, {n} worker{'s' if n > 1 else ''}",
                        one(f"d{n}", scheduler=cluster.scheduler_address),
                        client,
                    )
                )
        ref_wall, ref_cpu = rows[0][1], rows[0][2] + rows[0][3]
        ref_sha = sha256_file(rows[0][4] / "manifest.json")
        print(f"build {args.suite} ({args.scale}); {sys.platform}, {_ncpu()} CPUs, load {_load()}")
        print(f"{'scheduler':30s} {'wall s':>7s} {'engine CPU s':>12s} {'worker CPU s':>12s} "
              f"{'speed-up':>8s} {'CPU ratio':>9s}  same bytes")  # fmt: skip
        for label, wall, engine, workers, out in rows:
            same = sha256_file(out / "manifest.json") == ref_sha
            print(
                f"{label:30s} {wall:7.1f} {engine:12.1f} {workers:12.1f} {ref_wall / wall:7.2f}x "
                f"{(engine + workers) / ref_cpu:8.2f}x  {'yes' if same else 'NO'}"
            )
    return 0


def _ncpu() -> int:
    import os

    return os.cpu_count() or 1


def _load() -> str:
    import os

    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
