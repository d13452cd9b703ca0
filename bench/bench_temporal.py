"""Throughput of generic discrete pairs: causalarena.generator.temporal vs dotime 0.2.0 (one process each).

    python bench/bench_temporal.py [--n 1000 10000] [--T 200] [--dotime-python /tmp/dotime-venv/bin/python]
        [--regime-n 300]

Second table (``--regime-n``, 0 to skip): comparable regime-switching episodes, i.e.
``dot-regimes`` episodes (:func:`generate_suite_episodes`: R in {2, 3, 5} by index, per-regime
graphs, DoTime's intervention prior, interventional pairs, diverged draws redrawn) against
``DoTime(seed=i).generate_regime_pair(T, num_regimes=(2, 3, 5)[i % 3])`` with live parent weights
(``regime_canonical_weights=True``, the setting whose mechanisms read their parents), as
``dotime``'s suite builder calls it per episode.

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


OURS_REGIME = r"""
import json, resource, sys, time
from threadpoolctl import threadpool_limits
from causalarena.generator.temporal.suites import generate_suite_episodes, get_temporal_suite
n, T = int(sys.argv[1]), int(sys.argv[2])
s = get_temporal_suite("dot-regimes")
idx = s.public_indices("full")[:n]
with threadpool_limits(1):
    t = time.perf_counter()
    eps = generate_suite_episodes(s, idx)
    dt = time.perf_counter() - t
att = sum(e.attempt + 1 for e in eps)
print(json.dumps({"pairs_per_s": n / dt, "seconds": dt,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "diverged_fraction": (att - n) / att, "released_zeroed_fraction": 0.0}))
"""

THEIRS_REGIME = r"""
import json, resource, sys, time, warnings
import numpy as np, torch
torch.set_num_threads(1)
warnings.simplefilter("ignore")
from dotime import DoTime
n, T = int(sys.argv[1]), int(sys.argv[2])
zeroed = 0
t = time.perf_counter()
for i in range(n):
    torch.manual_seed(i)
    p = DoTime(config={"regime_canonical_weights": True}, seed=i)
    xo, xi, iv, scm = p.generate_regime_pair(T=T, num_regimes=(2, 3, 5)[i % 3])
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
    ap.add_argument("--regime-n", type=int, default=300)
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
    plan = [(n, "generic", OURS, THEIRS) for n in a.n]
    if a.regime_n:
        plan.append((a.regime_n, "regime", OURS_REGIME, THEIRS_REGIME))
    for n, workload, ours, theirs in plan:
        if workload == "regime":
            print("comparable regime-switching episodes (dot-regimes / generate_regime_pair):")
        runs = [("causalarena", sys.executable, ours)]
        if have:
            runs.append((f"dotime {ver}", a.dotime_python, theirs))
        for name, py, code in runs:
            try:
                r = _run(py, code, n, a.T)
            except Exception as exc:  # noqa: BLE001 - report and continue
                print(f"{name:<22}{n:>7}  failed: {exc}")
                continue
            rows.append({"system": name, "workload": workload, "n": n, **r})
            print(
                f"{name:<22}{n:>7}{r['pairs_per_s']:>11.1f}{r['seconds']:>10.2f}"
                f"{r['peak_rss_mb']:>10.0f}{r['diverged_fraction']:>10.3f}"
                f"{r['released_zeroed_fraction']:>9.3f}"
            )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
