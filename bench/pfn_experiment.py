"""DoTime's headline experiment on this package (issue 14 section 5; DoTime section 6).

Trains the reference PFN (:mod:`causalarena.baselines.pfn`) in two arms of identical capacity
-- interventional (pairs: observed prefix + intervened continuation) and observational (the same
episodes' factual continuation, every intervention feature zeroed) -- for several seeds on the
package's temporal stream, then scores both arms with the temporal harness
(:func:`causalarena.eval.temporal.run_model` / :func:`~causalarena.eval.temporal.score`) on
held-out *released* episodes of the same suite (the first public indices; the training stream's
seeds have bit 63 set, the suite's do not), per identification structure.

Reported per structure: effect-direction accuracy (``sign(pred - y_factual) == sign(y_true -
y_factual)``, targets with ``|y_true - y_factual| < 0.1`` excluded: the harness's near-zero
rule) of each arm (mean over seeds), the gap (interventional - observational), its per-seed
values, and a 95% BCa bootstrap CI over held-out episodes of the seed-averaged per-episode gap
(:func:`causalarena.eval.analyses.bootstrap_ci`); the same for level direction.  Reference
rows: the harness baselines ``last_value``, ``var`` and ``backdoor_ols`` on the same episodes.

Checkpoints (with model cards) are written under ``--out`` (a user path, default
``~/.cache/causalarena/pfn``), never into the repository.

Run:  ``nice -n 19 python bench/pfn_experiment.py [--steps 1500 --train-episodes 16000
--seeds 0 1 2 --eval-per-structure 200 --workers 2 --md docs/pfn_experiment.md]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _log(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


def heldout_rows(suite: str, n_per_structure: int) -> list[dict[str, Any]]:
    """The first public (released) episodes of ``suite``, ``n_per_structure`` per structure."""
    from causalarena.generator.temporal.storage import episode_columns
    from causalarena.generator.temporal.suites import generate_suite_episodes, get_temporal_suite

    s = get_temporal_suite(suite)
    n_struct = len(s.options.get("structures") or (1,))
    idx = s.public_indices("full")[: n_per_structure * n_struct]
    out = []
    for e in generate_suite_episodes(s, idx):
        row = episode_columns(e)
        del row["scm"], row["x_int"]  # neither the harness view nor the scorer reads them
        out.append(row)
    return out


def _featurise_job(a: dict[str, Any]) -> str:
    import torch

    from causalarena.baselines import pfn

    torch.set_num_threads(1)
    d = pfn.training_data(a["suite"], a["seed"], a["n"], progress=not a["quiet"])
    path = Path(a["out"]) / f"data-seed{a['seed']}.npz"
    np.savez(
        path,
        ctx=d.ctx,
        **{f"fut_{k}": v for k, v in d.fut.items()},
        **{f"y_{k}": v for k, v in d.y.items()},
    )
    return str(path)


def _direction(pred: np.ndarray, true: np.ndarray, near: float) -> np.ndarray:
    """1/0 correctness per query, NaN where ``|true| < near`` (the harness rule)."""
    c = (np.sign(pred) == np.sign(true)).astype(float)
    c[np.abs(true) < near] = np.nan
    return c


def _scores(preds: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    from causalarena.eval.temporal import NEAR_ZERO, score

    res = score([{**p, "row": r} for p, r in zip(preds, rows, strict=True)])
    mean = np.concatenate([p["mean"] for p in preds])
    y = np.concatenate([np.asarray(r["y_true"], float) for r in rows])
    yf = np.concatenate([np.asarray(r["y_factual"], float) for r in rows])
    return {
        "effect": _direction(mean - yf, y - yf, NEAR_ZERO).tolist(),
        "level": _direction(mean, y, NEAR_ZERO).tolist(),
        "slices": {
            s: {
                "effect": g.get("direction_effect", {}).get("acc"),
                "level": g.get("direction_level", {}).get("acc"),
                "rmse": g.get("rmse"),
            }
            for s, g in res["slices"]["structure"].items()
        },
        "pooled": {
            "effect": res["pooled"]["direction_effect"]["acc"],
            "level": res["pooled"]["direction_level"]["acc"],
            "rmse": res["pooled"]["rmse"],
        },
    }


def _train_job(a: dict[str, Any]) -> dict[str, Any]:
    import torch

    import causalarena
    from causalarena.baselines import pfn
    from causalarena.eval.temporal import make_input, run_model
    from causalarena.generator.temporal.suites import get_temporal_suite

    torch.set_num_threads(1)
    z = np.load(a["data"])
    arm = a["arm"]
    data = pfn.TrainData(
        ctx=z["ctx"],
        fut={arm: z[f"fut_{arm}"]},
        y={arm: z[f"y_{arm}"]},
        suite=a["suite"],
        stream_seed=a["seed"],
        n=int(z["ctx"].shape[0]),
    )
    log_every = max(1, a["steps"] // 10)
    model, hist = pfn.train_arm(
        data,
        arm,
        steps=a["steps"],
        seed=a["seed"],
        batch_size=a["batch"],
        lr=a["lr"],
        log_every=log_every,
        log=None if a["quiet"] else (lambda m: print(m, file=sys.stderr, flush=True)),
    )
    s = get_temporal_suite(a["suite"])
    folder = Path(a["out"]) / f"seed{a['seed']}" / arm
    pfn.save_checkpoint(
        model,
        arm,
        folder,
        {
            "prior": {
                "suite": s.name,
                "suite_version": s.version,
                "prior": s.options.get("prior"),
                "pair_mode": s.options.get("pair_mode"),
            },
            "stream": f"causalarena.stream('temporal', seed={a['seed']}, suite={s.name!r})",
            "stream_seed": a["seed"],
            "stream_episodes": data.n,
            "seed": a["seed"],
            "steps": a["steps"],
            "batch_size": a["batch"],
            "lr": a["lr"],
            "final_loss": hist["final_loss"],
            "loss_curve": hist["loss"],
            "train_seconds": hist["seconds"],
            "train_cpu_seconds": hist["cpu_seconds"],
            "package_version": causalarena.__version__,
        },
    )
    rows = a["rows"]
    views = [make_input(r) for r in rows]
    t = time.time()
    preds = run_model(pfn.PFNBaseline(folder), views, isolation="none")
    out = _scores(preds, rows)
    out.update(
        arm=arm,
        seed=a["seed"],
        folder=str(folder),
        params=pfn.param_count(model),
        final_loss=hist["final_loss"],
        loss_curve=hist["loss"],
        train_seconds=hist["seconds"],
        train_cpu_seconds=hist["cpu_seconds"],
        eval_seconds=time.time() - t,
    )
    return out


def _fmt(x: float | None, sign: bool = False) -> str:
    if x is None or not np.isfinite(x):
        return "--"
    return f"{x:+.3f}" if sign else f"{x:.3f}"


def aggregate(results: list[dict[str, Any]], rows: list[dict[str, Any]], metric: str) -> list:
    """Per structure (and pooled): mean accuracy per arm, gap, per-seed gaps, bootstrap CI."""
    from causalarena.eval.analyses import bootstrap_ci

    structs = np.array([r["structure"] for r in rows])
    # queries -> episodes (one structure per episode)
    q_struct = np.concatenate([[r["structure"]] * len(r["y_true"]) for r in rows])
    q_ep = np.concatenate([[i] * len(r["y_true"]) for i, r in enumerate(rows)])
    seeds = sorted({r["seed"] for r in results})
    C = {
        (r["arm"], r["seed"]): np.asarray(r[metric], dtype=float)
        for r in results  # (queries,)
    }
    out = []
    for s in [*sorted(set(structs.tolist())), "pooled"]:
        sel = np.ones_like(q_struct, dtype=bool) if s == "pooled" else q_struct == s
        acc = {
            arm: [float(np.nanmean(C[(arm, sd)][sel])) for sd in seeds]
            for arm in ("interventional", "observational")
        }
        gaps = [i - o for i, o in zip(acc["interventional"], acc["observational"], strict=True)]
        # per-episode gap, seed-averaged (kept queries are the same for both arms: the rule
        # depends on the target only)
        ci_int = np.nanmean([C[("interventional", sd)][sel] for sd in seeds], axis=0)
        ci_obs = np.nanmean([C[("observational", sd)][sel] for sd in seeds], axis=0)
        d = ci_int - ci_obs
        eps = q_ep[sel]
        keep = np.isfinite(d)
        per_ep = np.array([d[keep & (eps == e)].mean() for e in np.unique(eps[keep])], dtype=float)
        lo, hi = bootstrap_ci(per_ep, seed=0)
        # queries (summed over seeds) whose correctness differs between the arms
        differ = sum(
            int(np.sum(np.abs(C[("interventional", sd)][sel] - C[("observational", sd)][sel]) > 0))
            for sd in seeds
        )
        out.append(
            {
                "structure": s,
                "n": int(keep.sum()),
                "int": float(np.mean(acc["interventional"])),
                "obs": float(np.mean(acc["observational"])),
                "gap": float(np.mean(gaps)),
                "gap_seeds": gaps,
                "ci": (lo, hi),
                "differ": differ,
            }
        )
    return out


def _reference(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    from causalarena.baselines.temporal import EFFECT_BASELINES
    from causalarena.eval.temporal import make_input, run_model

    views = [make_input(r) for r in rows]
    out = {}
    for name in ("last_value", "var", "backdoor_ols"):
        preds = run_model(EFFECT_BASELINES[name](), views, isolation="none")
        out[name] = _scores(preds, rows)
    return out


def markdown(
    table: dict[str, list], ref: dict[str, Any], meta: dict[str, Any], results: list
) -> str:
    L = [
        "# Interventional vs observational PFN (DoTime section 6 on causalarena)",
        "",
        "Generated by `bench/pfn_experiment.py` (issue 14 section 5); rerun it to refresh.",
        "",
        "## Setup",
        "",
        f"- Prior / training data: `causalarena.stream('temporal', seed=s, suite="
        f"'{meta['suite']}')`, episodes 0..{meta['train_episodes'] - 1} for seed s in "
        f"{meta['seeds']} (stream seeds have bit 63 set: no released episode).",
        f"- Held-out: the first {meta['eval_episodes']} public (released) episodes of "
        f"`{meta['suite']}` {meta['suite_version']} ({meta['eval_per_structure']} per "
        "structure), scored by the temporal harness (`eval.temporal.run_model`/`score`).",
        f"- Network (both arms): `baselines.pfn.DoPFN`, {meta['config']}, "
        f"{meta['params']} parameters each; {meta['steps']} AdamW steps of batch "
        f"{meta['batch']}, lr {meta['lr']} (cosine), one torch thread per run.",
        "- Interventional arm: observed prefix + intervention tokens (imposed target value "
        "per row, active window, type), target the intervened arm `x_int` of the pair "
        "(pair mode of the suite: shared-noise counterfactual).",
        "- Observational arm: the same prefix tokens and the same episodes; every intervention "
        "feature of the future tokens is zero (only the row-exists flag and positions remain), "
        "target the factual continuation `x_obs`. Its do() answer is its forecast.",
        "- Direction accuracy (harness definition, near-zero rule 0.1): *effect* = "
        "`sign(pred - y_factual) == sign(y_true - y_factual)` over queries with "
        "`|y_true - y_factual| >= 0.1`; *level* = `sign(pred) == sign(y_true)` over "
        "`|y_true| >= 0.1`. Accuracies are means over seeds; gap = interventional - "
        "observational; CI = 95% BCa bootstrap over held-out episodes of the seed-averaged "
        "per-episode gap; `n` = scored queries per seed; `differ` = queries (summed over seeds) "
        "where the two arms' correctness differs. Reference columns: harness baselines on the "
        "same episodes (`var`: ridge VAR on the context; `backdoor_ols`: given the graph; the "
        "PFNs see no graph).",
        "",
    ]
    for metric, title in (("effect", "Effect direction"), ("level", "Level direction")):
        L += [
            f"## {title} accuracy",
            "",
            "| structure | n | interventional | observational | gap | 95% CI | per-seed gaps "
            "| differ | last_value | var | backdoor_ols |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in table[metric]:
            s = r["structure"]

            def refv(name, s=s, metric=metric):
                src = ref[name]["pooled"] if s == "pooled" else ref[name]["slices"].get(s, {})
                return _fmt(src.get(metric))

            seeds = ", ".join(_fmt(g, True) for g in r["gap_seeds"])
            L.append(
                f"| {s} | {r['n']} | {_fmt(r['int'])} | {_fmt(r['obs'])} | "
                f"{_fmt(r['gap'], True)} | [{_fmt(r['ci'][0], True)}, {_fmt(r['ci'][1], True)}]"
                f" | {seeds} | {r['differ']} | {refv('last_value')} | {refv('var')} | {refv('backdoor_ols')} |"
            )
        L.append("")
    L += [
        "## Training",
        "",
        "| arm | seed | final loss | train wall s | train CPU s |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in sorted(results, key=lambda r: (r["arm"], r["seed"])):
        L.append(
            f"| {r['arm']} | {r['seed']} | {r['final_loss']:.4f} | {r['train_seconds']:.0f} | "
            f"{r['train_cpu_seconds']:.0f} |"
        )
    L += [
        "",
        f"Whole run: wall {meta['wall_seconds']:.0f} s, CPU {meta['cpu_seconds']:.0f} s "
        f"(parent + workers; {meta['cpu_seconds'] / 2 / 60:.1f} min on two dedicated cores), "
        f"{meta['workers']} worker processes, `nice -n 19` on a shared 2-core machine (load "
        f"average {meta['load']:.0f} at the end); package {meta['package_version']}, torch {meta['torch_version']}.",
        "",
    ]
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="dot-identifiability")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--train-episodes", type=int, default=12000)
    ap.add_argument("--eval-per-structure", type=int, default=300)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument(
        "--out",
        type=Path,
        default=Path.home() / ".cache" / "causalarena" / "pfn",
        help="checkpoints",
    )
    ap.add_argument("--md", type=Path, default=None, help="write the table (markdown) here")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    import torch

    import causalarena
    from causalarena.baselines import pfn
    from causalarena.generator.temporal.suites import get_temporal_suite

    t0, c0 = time.time(), time.process_time()
    a.out.mkdir(parents=True, exist_ok=True)
    suite = get_temporal_suite(a.suite)
    _log(f"held-out: {a.eval_per_structure} public episodes per structure of {suite.name}", a.quiet)
    rows = heldout_rows(suite.name, a.eval_per_structure)
    with ProcessPoolExecutor(a.workers) as ex:
        _log(f"featurising {a.train_episodes} stream episodes per seed {a.seeds}", a.quiet)
        datas = list(
            ex.map(
                _featurise_job,
                [
                    {
                        "suite": suite.name,
                        "seed": s,
                        "n": a.train_episodes,
                        "out": str(a.out),
                        "quiet": a.quiet,
                    }
                    for s in a.seeds
                ],
            )
        )
        _log(f"training 2 arms x {len(a.seeds)} seeds, {a.steps} steps each", a.quiet)
        jobs = [
            {
                "suite": suite.name,
                "seed": s,
                "arm": arm,
                "data": d,
                "steps": a.steps,
                "batch": a.batch,
                "lr": a.lr,
                "out": str(a.out),
                "rows": rows,
                "quiet": a.quiet,
            }
            for s, d in zip(a.seeds, datas, strict=True)
            for arm in pfn.ARMS
        ]
        futs = [ex.submit(_train_job, j) for j in jobs]
        ref = _reference(rows)  # the parent scores the reference baselines meanwhile
        results = [f.result() for f in futs]
    # sealed check: one checkpoint through the process-isolated harness, import spec
    from causalarena.eval.temporal import evaluate, make_input, run_model

    first = next(r for r in results if r["arm"] == "interventional")
    spec = f"{first['folder']}/model.py:Model"
    sealed = evaluate(spec, rows[:20], isolation="process")
    views = [make_input(r) for r in rows[:20]]
    p_sealed = run_model(spec, views, isolation="process")
    p_here = run_model(pfn.PFNBaseline(first["folder"]), views, isolation="none")
    # float32 network: the sandbox cannot read /proc/cpuinfo, so torch may pick other kernels
    diff = max(
        float(np.max(np.abs(a["mean"] - b["mean"]) / (1 + np.abs(b["mean"]))))
        for a, b in zip(p_sealed, p_here, strict=True)
    )
    same = diff < 1e-5
    for d in datas:
        Path(d).unlink(missing_ok=True)
    params = {r["params"] for r in results}
    if len(params) != 1:
        raise SystemExit(f"arms differ in parameter count: {params}")
    # the per-query correctness must reproduce the harness's per-structure accuracy
    for r in results:
        for s, g in r["slices"].items():
            if g["effect"] is None:
                continue
            sel = np.array(
                [q == s for row in rows for q in [row["structure"]] * len(row["y_true"])]
            )
            mine = float(np.nanmean(np.asarray(r["effect"])[sel]))
            if abs(mine - g["effect"]) > 1e-12:
                raise SystemExit(f"direction accuracy mismatch for {s}: {mine} vs {g['effect']}")
    table = {m: aggregate(results, rows, m) for m in ("effect", "level")}
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    meta = {
        "suite": suite.name,
        "suite_version": suite.version,
        "seeds": a.seeds,
        "train_episodes": a.train_episodes,
        "eval_per_structure": a.eval_per_structure,
        "eval_episodes": len(rows),
        "config": ", ".join(f"{k} {v}" for k, v in pfn.asdict(pfn.PFNConfig()).items()),
        "params": params.pop(),
        "steps": a.steps,
        "batch": a.batch,
        "lr": a.lr,
        "workers": a.workers,
        "load": os.getloadavg()[0],
        "wall_seconds": time.time() - t0,
        "cpu_seconds": time.process_time() - c0 + ru.ru_utime + ru.ru_stime,
        "package_version": causalarena.__version__,
        "torch_version": torch.__version__,
        "sealed_check": {
            "spec": "seed*/interventional/model.py:Model",
            "sealed": sealed["isolation"].get("sealed"),
            "same_as_in_process": same,
        },
    }
    md = markdown(table, ref, meta, results)
    md += (
        f"Sealed check: the seed-{first['seed']} interventional checkpoint run through the "
        f"process-isolated harness by its import spec on 20 episodes (sealed = "
        f"{meta['sealed_check']['sealed']}) gives the in-process predictions to float32 precision (max relative difference "
        f"{diff:.1e}): {same}.\n"
    )
    (a.out / "results.json").write_text(
        json.dumps(
            {"meta": meta, "table": table, "runs": [{**r} for r in results]}, indent=1, default=str
        )
    )
    if a.md is not None:
        a.md.parent.mkdir(parents=True, exist_ok=True)
        a.md.write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
