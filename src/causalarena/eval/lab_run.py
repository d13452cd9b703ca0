"""Play lab episodes with an agent and write one result row per episode (issue 12).

Results go to ``<out>/<agent>.jsonl`` (one JSON object per line, appended and flushed per
episode), so an interrupted run resumes: episodes whose id is already in the file are
skipped.  An agent that raises is recorded with ``status = "error: ..."`` and the episode's
scores at that point; nothing is dropped.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from causalarena.errors import LabError
from causalarena.eval.lab_metrics import score_episode
from causalarena.generator.lab.env import LabEnv
from causalarena.generator.lab.episode import Episode

#: Summary columns (means over episodes), in report order.
SUMMARY = (
    "success",
    "edge_precision",
    "edge_recall",
    "edge_f1",
    "shd",
    "target_edge_f1",
    "target_weight_f1",
    "root_f1",
    "imec_size",
    "budget_used",
)


def play(episode: Episode, agent: str, seed: int = 0) -> dict[str, Any]:
    """Play one episode with agent ``agent``; the scored row (see :func:`score_episode`)."""
    from causalarena.baselines.lab_agents import get_agent

    fn = get_agent(agent)
    env = LabEnv(episode)
    t0 = time.perf_counter()
    status = "ok"
    try:
        fn(env, seed)
    except LabError as exc:
        status = f"error: {exc}"
    except Exception as exc:  # noqa: BLE001 - an agent bug is a recorded failure, not a crash
        status = f"error: {type(exc).__name__}: {exc}"
    row = score_episode(episode, env.transcript())
    row.update(agent=agent, seed=seed, status=status, seconds=round(time.perf_counter() - t0, 4))
    return row


def run_episodes(
    episodes: Sequence[Episode],
    agent: str,
    out: str | Path | None = None,
    seed: int = 0,
    quiet: bool = False,
) -> list[dict[str, Any]]:
    """Play every episode; append rows to ``<out>/<agent>.jsonl`` and resume from it."""
    from causalarena.ui import progress

    rows: list[dict[str, Any]] = []
    path = None
    done: dict[str, dict] = {}
    if out is not None:
        path = Path(out) / f"{agent}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            for i, line in enumerate(path.read_text().splitlines()):
                try:
                    r = json.loads(line)
                    done[r["episode_id"]] = r
                except (json.JSONDecodeError, KeyError, TypeError):
                    raise LabError(
                        f"{path}: line {i + 1} is not a result row; move the file away"
                    ) from None
    fh = path.open("a") if path else None
    try:
        with progress(quiet) as bar:
            task = bar.add_task(f"lab {agent}", total=len(episodes))
            for ep in episodes:
                if ep.episode_id in done:
                    rows.append(done[ep.episode_id])
                else:
                    row = play(ep, agent, seed)
                    rows.append(row)
                    if fh:
                        fh.write(json.dumps(row, sort_keys=True) + "\n")
                        fh.flush()
                bar.advance(task)
    finally:
        if fh:
            fh.close()
    return rows


def summarise(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Means of :data:`SUMMARY` per ``(agent, suite, config)``; ``n`` and ``errors`` counts."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r.get("agent"), r["suite"], r["config"]), []).append(r)
    out = []
    for (agent, suite, config), rs in groups.items():
        s: dict[str, Any] = {"agent": agent, "suite": suite, "config": config, "n": len(rs)}
        s["errors"] = sum(1 for r in rs if r.get("status", "ok") != "ok")
        for k in SUMMARY:
            vals = [
                float(r[k])
                for r in rs
                if r.get(k) is not None and not (isinstance(r[k], float) and math.isnan(r[k]))
            ]
            s[k] = sum(vals) / len(vals) if vals else None
        out.append(s)
    return out


def format_summary(summary: Sequence[dict[str, Any]]) -> str:
    """A plain-text table of :func:`summarise` (success in percent)."""
    head = f"{'agent':10s} {'config':30s} {'n':>4s} {'acc%':>6s} {'edgeP/R/F1':>17s} {'SHD':>6s} {'tgtF1':>6s} {'wF1':>6s} {'rootF1':>6s} {'IMEC':>5s}"
    lines = [head]
    for s in summary:

        def f(k: str, fmt: str = ".3f", s: dict = s) -> str:
            return format(s[k], fmt) if s[k] is not None else "-"

        lines.append(
            f"{s['agent']!s:10s} {s['suite'] + '/' + s['config']:30s} {s['n']:4d} {100 * s['success']:6.1f} "
            f"{f('edge_precision')}/{f('edge_recall')}/{f('edge_f1')} {f('shd', '.2f'):>6s} "
            f"{f('target_edge_f1'):>6s} {f('target_weight_f1'):>6s} {f('root_f1'):>6s} {f('imec_size', '.2f'):>5s}"
        )
    return "\n".join(lines)


def load_release_episodes(folder: str | Path, config: str) -> list[Episode]:
    """Episodes of one config of a built lab release folder (rows -> :class:`Episode`).

    Raises
    ------
    LabError
        If the config folder has no Parquet shards.
    """
    import pyarrow.parquet as pq

    files = sorted((Path(folder) / "data" / config).glob("*.parquet"))
    if not files:
        raise LabError(
            f"{Path(folder) / 'data' / config}: no Parquet shards (is this a lab release?)"
        )
    return [Episode.from_row(r) for f in files for r in pq.read_table(f).to_pylist()]


def demo_lab(
    out: str | Path = "release-lab",
    results: str | Path = "predictions/lab",
    console: Any = None,
    quiet: bool = False,
) -> list[dict[str, Any]]:
    """The lab part of ``make demo``: build ``lab-main`` at mini scale, load its 4-node config
    back and play it with both agents; returns the summary rows."""
    say = console.print if console is not None else print
    config = "main-4nodes"
    try:  # the release engine, once it hosts the lab family
        from causalarena.family import family_of

        family_of("lab-main")
        from causalarena.release.engine import build
    except (ImportError, ValueError):
        build = None
    if build is not None:
        folder = build("lab-main", scale="mini", out=Path(out), quiet=quiet)
        eps = load_release_episodes(folder, config)
        say(f"lab-main (mini) built into {folder}; {len(eps)} episodes of {config} loaded")
    else:  # pragma: no cover - before the release engine hosts the lab family
        from causalarena.generator.lab.suites import episodes

        eps = episodes("lab-main", config, "mini")[config]
        say(f"lab-main/{config}: {len(eps)} episodes generated")
    rows = []
    for agent in ("random", "scientist"):
        rows += run_episodes(eps, agent, results, quiet=quiet)
    summary = summarise(rows)
    say(format_summary(summary))
    return summary


def trajectory_curves(rows: Sequence[dict[str, Any]], metric: int = 1) -> dict[str, list[float]]:
    """Mean trajectory per ``agent / config``: the metric of the latest recorded hypothesis
    after each intervention step (carried forward; 0 before the first), averaged over episodes.

    ``metric`` indexes the trajectory tuples ``(step, edge_f1, target_edge_f1,
    target_weight_f1, shd)``.
    """
    groups: dict[str, list[list[float]]] = {}
    for r in rows:
        traj = json.loads(r.get("trajectory") or "[]")
        last = max([int(t[0]) for t in traj] + [int(r.get("budget_used") or 0)])
        curve, cur, k = [], 0.0, 0
        for step in range(last + 1):
            while k < len(traj) and int(traj[k][0]) <= step:
                cur = float(traj[k][metric])
                k += 1
            curve.append(cur)
        groups.setdefault(f"{r.get('agent')} / {r['config']}", []).append(curve)
    out = {}
    for name, curves in groups.items():
        n = max(len(c) for c in curves)
        padded = [c + [c[-1]] * (n - len(c)) for c in curves]
        out[name] = [sum(c[i] for c in padded) / len(padded) for i in range(n)]
    return out


def plot_trajectories(rows: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """Line plot of :func:`trajectory_curves` (all-edge F1 by intervention step), PNG."""
    from causalarena._extras import require

    require("matplotlib", "plots", "drawing lab trajectory plots").use("Agg")
    import matplotlib.pyplot as plt

    curves = trajectory_curves(rows)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, ys in sorted(curves.items()):
        ax.plot(range(len(ys)), ys, label=name, marker="o", markersize=2)
    ax.set_xlabel("interventions so far")
    ax.set_ylabel("all-edge F1 of the recorded hypothesis")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("lab trajectories (mean over episodes)")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
