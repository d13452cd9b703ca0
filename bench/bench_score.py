"""Scoring throughput: ``score_graph`` at d = 100 and ``causalarena report`` on 5,000 rows.

    python bench/bench_score.py [--release DIR] [--rows 5000] [--repeat 200] [--workers 2]

Truth: the 20 instances with d = 100 of a mini ``arena-synthetic`` release (10 in
``synthetic-obs``, 10 in ``synthetic-obsint``; built into a temporary folder when ``--release``
is not given, about 25 s).

Predictions: each synthetic prediction is its instance's true DAG with seeded damage: about
10 % of the true edges dropped, as many absent pairs added (only forward in the true
topological order, so the prediction stays a DAG) and about 10 % of the kept edges reversed
when that keeps the graph acyclic; one prediction in four is handed in as the CPDAG of the
damaged DAG (``graph_type = "cpdag"``) and one in two carries edge scores (the damaged matrix
plus uniform jitter).

Table rows (one table; ratio = rate / rate of the first row, measured in the same run):

1. ``score_graph`` per instance, all metrics (SID, the SID bounds of CPDAG predictions and
   pattern SHD), one core;
2. the same with ``sid_bounds=False`` (SID of the seeded orientation only);
3. ``sid=False`` (pattern SHD kept);
4. ``sid=False, pattern=False`` (directed metrics only);
5. ``causalarena report`` (``score_predictions`` + ``write_report``) on ``--rows`` prediction
   rows: 250 synthetic methods x the 20 instances (``rows / 20`` methods, each submitting every
   d = 100 instance of both configs once); its scoring part and its report part are also
   printed.  This runs with ``--workers`` cores if the scorer supports it.

Rows 1-4 pass the truth's CPDAG (``true_cpdag=``, computed once per instance as the scorer
does) and use ``threadpool_limits(1)``: single-core numbers.  When the installed scorer lacks an
option (``sid=``, ``pattern=``, ``workers=``) the row says so instead of a number, so the
same script measured the code before the change.

Last runs on 2 shared cores (``--release release-mini --repeat 50``; CPU-s = user + system):

==============================================  ====================  ====================
row                                             before (load 0.1)     after (load 2.4-6.7)
==============================================  ====================  ====================
SID + CPDAG SID bounds, per instance            38/s                  76/s (149/CPU-s)
SID without bounds                              317/s                 104/s (203/CPU-s)
``sid=False``                                   1,126/s               367/s (883/CPU-s)
report, 5,000 rows: score_predictions           32.5 s (52.1 CPU-s)   112.9 s (55.1 CPU-s)
report, 5,000 rows: write_report                24.5 s (28.2 CPU-s)   46.6 s (27.0 CPU-s)
==============================================  ====================  ====================

The after column ran while other jobs loaded the machine (load 6.7 at the end), which inflates
wall and CPU time alike; compare rates within one run (the ratio column).  After the bounds
change the seeded-orientation SID (one ``gadjid.sid`` call, about 3 ms at d = 100) is the
largest part of scoring.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from threadpoolctl import threadpool_limits

from causalarena.eval import metrics
from causalarena.eval.predictions import prediction_table

D = 100


def true_graphs(release: Path) -> dict[str, dict[str, np.ndarray]]:
    """``{config: {instance_id: adjacency (int8, (d, d))}}`` of the d = 100 instances."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for config in ("synthetic-obs", "synthetic-obsint"):
        t = pq.read_table(release / "data" / config, columns=["instance_id", "d", "adjacency"])
        for r in t.to_pylist():
            if r["d"] == D:
                out.setdefault(config, {})[r["instance_id"]] = np.asarray(
                    r["adjacency"], dtype=np.int8
                ).reshape(D, D)
    return out


def damaged(truth: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A DAG near ``truth`` (see the module docstring)."""
    rank = _topo_rank(truth)
    a = truth.copy()
    edges = np.argwhere(a == 1)
    drop = edges[rng.random(len(edges)) < 0.1]
    a[drop[:, 0], drop[:, 1]] = 0
    fwd = np.argwhere((rank[:, None] < rank[None, :]) & (a == 0) & (a.T == 0))
    add = fwd[rng.choice(len(fwd), size=min(len(drop), len(fwd)), replace=False)]
    a[add[:, 0], add[:, 1]] = 1
    for i, j in np.argwhere(a == 1):
        if rng.random() < 0.1:
            a[i, j] = 0
            a[j, i] = 1
            if not metrics._is_acyclic(a):
                a[j, i] = 0
                a[i, j] = 1
    return a


def _topo_rank(a: np.ndarray) -> np.ndarray:
    indeg = a.sum(0).astype(int)
    rank = np.zeros(a.shape[0], dtype=int)
    ready = list(np.flatnonzero(indeg == 0))
    k = 0
    while ready:
        v = ready.pop()
        rank[v] = k
        k += 1
        for c in np.flatnonzero(a[v]):
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    return rank


def bench_score_graph(
    pairs: list[tuple[np.ndarray, np.ndarray]], repeat: int, **kw
) -> tuple[float, float]:
    """Instances per wall-second and per CPU-second of ``score_graph(truth, pred, **kw)``."""
    cached = kw.pop("true_cpdag", None) == "cached"
    cpdags = [metrics.cpdag(t) for t, _ in pairs] if cached else None
    n = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while n < repeat:
        truth, pred = pairs[n % len(pairs)]
        extra = {"true_cpdag": cpdags[n % len(pairs)]} if cached else {}
        metrics.score_graph(truth, pred, seed=n, **kw, **extra)
        n += 1
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def write_predictions(
    graphs: dict[str, dict[str, np.ndarray]], rows: int, out: Path, release: Path
) -> int:
    """Write ``rows / 20`` synthetic methods into ``out/<config>/<method>.parquet``."""
    from causalarena.eval.runner import provenance

    prov = provenance(release)
    n_inst = sum(len(v) for v in graphs.values())
    n_methods = max(1, rows // n_inst)
    rng = np.random.default_rng(np.random.SeedSequence(20261201))
    total = 0
    for config, inst in graphs.items():
        (out / config).mkdir(parents=True, exist_ok=True)
        for m in range(n_methods):
            recs = []
            for k, (iid, truth) in enumerate(sorted(inst.items())):
                a = damaged(truth, rng)
                gtype = "dag"
                if (m + k) % 4 == 0:
                    a, gtype = metrics.cpdag(a), "cpdag"
                scores = None
                if m % 2 == 0:
                    scores = (a + rng.random(a.shape)).astype(np.float32)
                    np.fill_diagonal(scores, 0)
                recs.append(
                    {
                        "instance_id": iid,
                        "config": config,
                        "method": f"m{m:03d}",
                        "method_version": "0",
                        "library_version": "bench",
                        "graph_type": gtype,
                        "adjacency": a,
                        "edge_scores": scores,
                        "status": "ok",
                        "runtime_s": float(rng.random()),
                        "error": None,
                        "notes": "{}",
                        "seed": 0,
                        **prov,
                    }
                )
            pq.write_table(prediction_table(recs), out / config / f"m{m:03d}.parquet")
            total += len(recs)
    (out / "run.json").write_text(json.dumps({"release": str(release.resolve()), "runs": {}}))
    return total


def bench_report(
    release: Path, pred: Path, out: Path, workers: int, sid: bool | str = True
) -> dict[str, float]:
    import resource

    from causalarena.eval.report import write_report
    from causalarena.eval.score import score_predictions

    def cpu() -> float:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # reaped scoring workers
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    kw: dict = {} if sid is True else {"sid": sid}
    if "workers" in inspect.signature(score_predictions).parameters:
        kw["workers"] = workers
    t0, c0 = time.perf_counter(), cpu()
    scores = score_predictions(release, pred, **kw)
    t1, c1 = time.perf_counter(), cpu()
    write_report(scores, out, title="bench")
    t2, c2 = time.perf_counter(), cpu()
    return {
        "score_s": t1 - t0,
        "report_s": t2 - t1,
        "score_cpu_s": c1 - c0,
        "report_cpu_s": c2 - c1,
        "rows": len(scores),
        "workers": kw,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", type=Path, default=None)
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=200, help="score_graph calls per row")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-report", action="store_true")
    ap.add_argument(
        "--no-sid-bounds", action="store_true", help="report row: score without CPDAG SID bounds"
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-score-"))
    try:
        release = args.release
        if release is None:
            release = tmp / "release"
            print(f"building a mini arena-synthetic release into {release} ...", file=sys.stderr)
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "causalarena.cli",
                    "build",
                    "arena-synthetic",
                    "--scale",
                    "mini",
                    "--out",
                    str(release),
                    "--quiet",
                ],
                check=True,
            )
        graphs = true_graphs(release)
        rng = np.random.default_rng(np.random.SeedSequence(7))
        pairs = []
        for k, (_, truth) in enumerate(sorted(i for c in graphs.values() for i in c.items())):
            a = damaged(truth, rng)
            pairs.append((truth, metrics.cpdag(a) if k % 4 == 0 else a))
        params = inspect.signature(metrics.score_graph).parameters
        table: list[tuple[str, str, str]] = []
        ref = None
        with threadpool_limits(1):
            for label, kw in (
                ("score_graph, SID + CPDAG SID bounds + pattern SHD (1 core)", {}),
                ("score_graph, SID (no bounds) + pattern SHD (1 core)", {"sid_bounds": False}),
                ("score_graph, sid=False (1 core)", {"sid": False}),
                (
                    "score_graph, sid=False, pattern=False (1 core)",
                    {"sid": False, "pattern": False},
                ),
            ):
                if any(k not in params for k in kw):
                    table.append((label, "n/a (option missing)", ""))
                    continue
                if "true_cpdag" in params:  # as the scorer does: the truth's CPDAG once
                    kw = {**kw, "true_cpdag": "cached"}
                warm = {k: v for k, v in kw.items() if k != "true_cpdag"}
                metrics.score_graph(*pairs[0], **warm)  # warm-up (imports)
                rate, cpu_rate = bench_score_graph(pairs, args.repeat, **kw)
                ref = ref or rate
                table.append(
                    (
                        label,
                        f"{rate:,.0f} instances/s",
                        f"{rate / ref:.2f}x  ({cpu_rate:,.0f} per CPU-second)",
                    )
                )
                print("  ".join(table[-1]), file=sys.stderr, flush=True)
        if not args.skip_report:
            pred = tmp / "pred"
            n = write_predictions(graphs, args.rows, pred, release)
            sid = "no-bounds" if args.no_sid_bounds else True
            r = bench_report(release, pred, tmp / "report", args.workers, sid)
            w = r["workers"].get("workers", 1)
            w = f"{w}, no SID bounds" if args.no_sid_bounds else w
            table.append(
                (
                    f"causalarena report, {n:,} rows at d = {D} ({w} worker(s))",
                    f"{r['score_s'] + r['report_s']:.1f} s",
                    f"{n / (r['score_s'] + r['report_s']):,.0f} rows/s  "
                    f"({r['score_cpu_s'] + r['report_cpu_s']:.1f} CPU-s)",
                )
            )
            table.append(
                (
                    "  of which score_predictions",
                    f"{r['score_s']:.1f} s",
                    f"{r['score_cpu_s']:.1f} CPU-s",
                )
            )
            table.append(
                (
                    "  of which write_report",
                    f"{r['report_s']:.1f} s",
                    f"{r['report_cpu_s']:.1f} CPU-s",
                )
            )
        w0 = max(len(t[0]) for t in table)
        w1 = max(len(t[1]) for t in table)
        load = os.getloadavg()[0]
        print(
            f"\nScoring throughput at d = {D} ({len(pairs)} true graphs from {release}; "
            f"load average {load:.1f} on {os.cpu_count()} cores at the end)"
        )
        print(f"{'benchmark':<{w0}}  {'result':>{w1}}  ratio / rate")
        for a, b, c in table:
            print(f"{a:<{w0}}  {b:>{w1}}  {c}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
