"""Throughput of generic discrete pairs: causalarena.generator.temporal vs dotime 0.2.0 (one process each).

    python bench/bench_temporal.py [--n 1000 10000] [--T 200] [--dotime-python /tmp/dotime-venv/bin/python]

Workload: ``n`` factual/intervened pairs of the generic prior (N <= 10, K <= 3), T = 200, one
process, single-threaded BLAS.  causalarena: :func:`causalarena.generator.temporal.generate_pairs`
(counterfactual pairs, diverged draws rejected and redrawn).  dotime: ``DoTime(seed).
generate_pair(T)`` in a loop (its default interventional mode, diverged episodes zeroed).
dotime is installed in a separate virtualenv (``python -m venv /tmp/dotime-venv &&
/tmp/dotime-venv/bin/pip install dotime==0.2.0``) and run via subprocess, so it is never a
dependency.  Each run reports pairs per second, peak resident memory (``ru_maxrss`` of the
child) and the fraction of diverged (ours: rejected attempts / attempts) or zeroed (dotime:
an arm that is all zeros or non-finite) episodes.  If dotime cannot be run, that is said and
our numbers are still printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

OURS = r"""
import json, resource, sys, time
from threadpoolctl import threadpool_limits
from causalarena.generator.temporal.generate import generate_pairs
n, T = int(sys.argv[1]), int(sys.argv[2])
with threadpool_limits(1):
    t = time.perf_counter()
    ps = generate_pairs(0, range(n), T)
    dt = time.perf_counter() - t
print(json.dumps({"pairs_per_s": n / dt, "seconds": dt,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "diverged_fraction": ps.rejected_fraction,
                  "released_zeroed_fraction": 0.0}))
"""

THEIRS = r"""
import json, resource, sys, time
import numpy as np, torch
torch.set_num_threads(1)
from dotime import DoTime
n, T = int(sys.argv[1]), int(sys.argv[2])
prior = DoTime(seed=0)
zeroed = 0
t = time.perf_counter()
for _ in range(n):
    xo, xi, iv, scm = prior.generate_pair(T=T)
    a, b = xo.detach().cpu().numpy(), xi.detach().cpu().numpy()
    if (not np.isfinite(a).all()) or (not np.isfinite(b).all()) or not a.any() or not b.any():
        zeroed += 1
dt = time.perf_counter() - t
print(json.dumps({"pairs_per_s": n / dt, "seconds": dt,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "diverged_fraction": zeroed / n, "released_zeroed_fraction": zeroed / n}))
"""


def _run(python: str, code: str, n: int, T: int) -> dict:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    p = subprocess.run(
        [python, "-c", code, str(n), str(T)], capture_output=True, text=True, env=env, timeout=3600
    )
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--T", type=int, default=200)
    ap.add_argument("--dotime-python", default="/tmp/dotime-venv/bin/python")
    a = ap.parse_args(argv)
    have = os.path.exists(a.dotime_python)
    if have:
        chk = subprocess.run(
            [a.dotime_python, "-c", "import dotime; print(dotime.__version__)"],
            capture_output=True,
            text=True,
        )
        have = chk.returncode == 0
        ver = chk.stdout.strip() if have else None
    if not have:
        print(
            f"dotime: not runnable at {a.dotime_python}; install it with "
            "'python -m venv /tmp/dotime-venv && /tmp/dotime-venv/bin/pip install "
            "dotime==0.2.0'. Printing causalarena only."
        )
    print(
        f"{'system':<22}{'n':>7}{'pairs/s':>11}{'seconds':>10}{'peak MB':>10}"
        f"{'diverged':>10}{'zeroed':>9}"
    )
    rows = []
    for n in a.n:
        runs = [("causalarena", sys.executable, OURS)]
        if have:
            runs.append((f"dotime {ver}", a.dotime_python, THEIRS))
        for name, py, code in runs:
            try:
                r = _run(py, code, n, a.T)
            except Exception as exc:  # noqa: BLE001 - report and continue
                print(f"{name:<22}{n:>7}  failed: {exc}")
                continue
            rows.append({"system": name, "n": n, **r})
            print(
                f"{name:<22}{n:>7}{r['pairs_per_s']:>11.1f}{r['seconds']:>10.2f}"
                f"{r['peak_rss_mb']:>10.0f}{r['diverged_fraction']:>10.3f}"
                f"{r['released_zeroed_fraction']:>9.3f}"
            )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
