"""Nested-k runtime harness: ``T(k) = T_fixed + k * T_graph`` (paper 5.5, B.3, Table 5).

One harness point runs a method on the first ``k`` instances of a fixed, nested sample in ONE
fresh worker process: the process start, the imports and the method's one-time ``setup``
(e.g. loading a pretrained checkpoint) are paid once, then ``k`` fits follow.  The total wall
time of the point, measured by the parent from the start of the process to the arrival of
the last result, is ``T(k)``.  Fitting ``T(k)`` over ``k = 1, 2, 4, ...``
(:func:`causalarena.eval.analyses.runtime_k_fits`) separates the load cost ``T_fixed`` from
the per-graph cost ``T_graph``, the comparable number of Table 5.

The sample is nested (the first ``k`` instances of the ``k' > k`` sample are the ``k``
sample) and balanced: at each ``d`` it takes graph families round-robin, in sorted order, so
every prefix draws equally many graphs from each family, as the paper's synthetic mix does.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

__all__ = ["nested_k_runtime", "nested_sample"]


def nested_sample(
    release: str | os.PathLike, config: str, d: int, k_max: int, *, replicate: int = 0
) -> list[str]:
    """Instance ids of the nested, family-balanced sample of size ``k_max`` at dimension ``d``.

    Parameters
    ----------
    release : path
    config : str
    d : int
        Number of variables.
    k_max : int
        Sample size (fewer when the config has fewer instances at ``d``).
    replicate : int, default 0
        Replicate index to draw from.

    Returns
    -------
    list of str
        Round-robin over sorted graph families, each family's instances in id order.

    Raises
    ------
    ValueError
        No instance of the config has ``d`` variables.
    """
    folder = Path(release) / "data" / config
    rows = []
    for shard in sorted(folder.glob("*.parquet")):
        t = pq.read_table(shard, columns=["instance_id", "graph_family", "d", "replicate"])
        rows += [r for r in t.to_pylist() if r["d"] == d and r["replicate"] == replicate]
    if not rows:
        raise ValueError(f"{folder}: no instance with d={d} (replicate {replicate})")
    by_family: dict[str, list[str]] = {}
    for r in sorted(rows, key=lambda r: (str(r["graph_family"]), r["instance_id"])):
        by_family.setdefault(str(r["graph_family"]), []).append(r["instance_id"])
    out: list[str] = []
    depth = 0
    while len(out) < k_max and any(depth < len(v) for v in by_family.values()):
        for fam in sorted(by_family):
            if depth < len(by_family[fam]) and len(out) < k_max:
                out.append(by_family[fam][depth])
        depth += 1
    return out


def _point(conn, method: str, data: list[tuple], plugins: list[str]) -> None:
    """Child: import, set up once, fit every instance; send the phase times."""
    t0 = time.perf_counter()
    try:
        from threadpoolctl import threadpool_limits

        from causalarena.baselines.registry import get_method, load_plugins

        load_plugins(plugins)
        m = get_method(method)
        t_import = time.perf_counter() - t0
        setup = getattr(m, "setup", None)
        state = setup() if callable(setup) else None
        t_setup = time.perf_counter() - t0 - t_import
        fits = []
        with threadpool_limits(1):
            for X, mask, seed in data:
                t1 = time.perf_counter()
                if state is not None and hasattr(m, "run"):
                    m.run(X, mask, seed=seed, state=state)
                else:
                    m.fit(X, mask, seed=seed)
                fits.append(time.perf_counter() - t1)
        conn.send(("ok", t_import, t_setup, fits, None))
    except BaseException:
        conn.send(("failed", None, None, None, traceback.format_exc(limit=6)[-2000:]))
    finally:
        conn.close()


def nested_k_runtime(
    release: str | os.PathLike,
    config: str,
    methods: Sequence[str],
    *,
    ks: Sequence[int] = (1, 2, 4, 8),
    dims: Sequence[int] = (10,),
    seed: int = 0,
    timeout: float = 600.0,
    quiet: bool = True,
) -> pd.DataFrame:
    """Run the nested-k harness for each method and ``d`` (see the module docstring).

    Parameters
    ----------
    release : path
        A built release folder.
    config : str
        e.g. ``"synthetic-obs"``.
    methods : sequence of str
        Registry names.
    ks : sequence of int, default (1, 2, 4, 8)
        Sample sizes; each is one fresh worker.
    dims : sequence of int, default (10,)
        Dimensions ``d``.
    seed : int, default 0
        Base seed of the per-instance seeds (:func:`causalarena.eval.runner.instance_seed`).
    timeout : float, default 600
        Wall-time budget of one point (a point over budget is recorded as ``timeout``).
    quiet : bool, default True

    Returns
    -------
    pandas.DataFrame
        One row per (method, d, k): ``T_s`` (total wall time; NaN unless ``ok``),
        ``t_import_s``, ``t_setup_s``, ``t_fit_s`` (sum of the fits), ``status``, ``error``.

    Raises
    ------
    KeyError
        Unknown method name.
    ValueError
        Empty ``ks``/``dims``, a ``k < 1`` or a ``d`` absent from the config.
    """
    from causalarena.baselines.registry import all_method_infos, load_plugins, plugin_modules
    from causalarena.eval.runner import instance_seed, iter_instances
    from causalarena.ui import progress

    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1 or not dims:
        raise ValueError(f"ks must be positive integers and dims non-empty, got {ks}, {dims}")
    plugins = plugin_modules()
    load_plugins(plugins)
    unknown = [m for m in methods if m not in all_method_infos()]
    if unknown:
        raise KeyError(
            f"unknown method(s) {', '.join(map(str, unknown))}; known: "
            f"{', '.join(sorted(all_method_infos()))}"
        )
    ctx = mp.get_context("spawn")  # a fresh interpreter: imports count in T_fixed
    rows: list[dict[str, Any]] = []
    with progress(quiet) as bar:
        task = bar.add_task("nested-k runtime", total=len(methods) * len(dims) * len(ks))
        for d in dims:
            ids = nested_sample(release, config, int(d), ks[-1])
            inst = {
                r["instance_id"]: r
                for r in iter_instances(Path(release), config, instances=set(ids))
            }
            data_all = [
                (
                    inst[i]["X"],
                    inst[i]["mask"] if inst[i]["setting"] == "obsint" else None,
                    instance_seed(i, seed),
                )
                for i in ids
            ]
            for m in methods:
                for k in ks:
                    data = data_all[:k]
                    parent, child = ctx.Pipe(duplex=False)
                    t0 = time.perf_counter()
                    proc = ctx.Process(target=_point, args=(child, m, data, plugins), daemon=True)
                    proc.start()
                    child.close()
                    rec: dict[str, Any] = {"method": m, "d": int(d), "k": len(data)}
                    if parent.poll(timeout):
                        try:
                            status, t_imp, t_set, fits, err = parent.recv()
                        except EOFError:
                            status, t_imp, t_set, fits, err = (
                                "failed",
                                None,
                                None,
                                None,
                                "worker died",
                            )
                        T = time.perf_counter() - t0
                    else:
                        proc.kill()
                        status, t_imp, t_set, fits, err = "timeout", None, None, None, None
                        T = float("nan")
                    proc.join(10)
                    parent.close()
                    rec.update(
                        T_s=T if status == "ok" else float("nan"),
                        t_import_s=t_imp,
                        t_setup_s=t_set,
                        t_fit_s=float(np.sum(fits)) if fits else None,
                        status=status,
                        error=err,
                    )
                    rows.append(rec)
                    bar.advance(task)
    return pd.DataFrame(rows)
