"""The main job on the embedded default.

1. build the ``mini`` scale of ``arena-synthetic``, verify it, load it back with ``datasets``
   (in memory and streaming) and print the summary;
2. run the default baselines on the observation-only split (instances with d <= 30, so the demo
   takes minutes; drop ``--max-d`` in ``causalarena run`` for the whole split), score them and
   print the leaderboard; the report (tables, plots, HTML page) goes to ``reports/synthetic``;
3. build the ``mini`` scale of ``arena-semantic`` and ``arena-formula`` with one public
   scenario per domain (build option ``per_domain=1``; one replicate), run the same baselines on their
   observation-only configs and print one leaderboard in the paper's Table 2 layout
   (Synthetic / Semantic / Formula obs cells, F1 / SHD); the report of the three families
   together (with the section-6.3 domain shifts) goes to ``reports/arena``;
4. if the public real tables are on disk (``$CAUSALARENA_REAL_DATA`` or ``../shared/data/real``),
   build the ``real`` configs and score the same baselines on them; otherwise say how to get them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from rich.console import Console

DEFAULT_METHODS = ("random-regress", "var-sort-regress", "pc", "direct-lingam")


def _real_data_dir() -> Path | None:
    for cand in (os.environ.get("CAUSALARENA_REAL_DATA"), "../shared/data/real"):
        if cand and (Path(cand) / "SOURCES.md").exists():
            return Path(cand)
    return None


def _leaderboard(
    release: Path,
    config: str,
    methods: list[str],
    pred: Path,
    report: Path | None,
    *,
    max_d: int | None,
    workers: int,
    quiet: bool,
    console: Console,
):
    """Run, score and (unless ``report`` is None) write and print the report; the scores."""
    from causalarena.baselines.registry import missing_methods
    from causalarena.eval.report import write_report
    from causalarena.eval.runner import run
    from causalarena.eval.score import score_predictions

    missing = missing_methods()
    runnable = [m for m in methods if m not in missing]
    for m in methods:
        if m in missing:
            console.print(f"[yellow]skipping {m}[/yellow]: {missing[m]}")
    if not runnable:
        return None
    res = run(
        release, config, runnable, pred, timeout=300, workers=workers, max_d=max_d, quiet=quiet
    )
    for m, counts in res["counts"].items():
        console.print(f"  {m}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    # the evaluated set is the documented subset d <= max_d: coverage and fallback are over it
    scores = score_predictions(release, pred, max_d=max_d, configs=[config], workers=workers)
    if report is not None:
        write_report(scores, report, title=f"causalarena demo: {config}")
        console.print((report / "summary.md").read_text())
        console.print(f"report: {report / 'index.html'}")
    return scores


def _scenario_leaderboards(
    out: str | Path, synthetic, *, workers: int, quiet: bool, console: Console
) -> float:
    """Step 3: mini arena-semantic and arena-formula, baselines on ``*-obs``, one Table 2.

    Returns the seconds the step took.
    """
    import pandas as pd

    from causalarena.eval import analyses as an
    from causalarena.release.engine import build

    t0 = time.perf_counter()
    frames = [] if synthetic is None else [synthetic]
    for kind in ("semantic", "formula"):
        # one scenario per domain: the step's cost does not grow with the authored pool
        folder = build(
            f"arena-{kind}",
            scale="mini",
            out=f"{out}-{kind}",
            workers=workers,
            quiet=quiet,
            per_domain=1,
        )
        console.print(f"[green]release ready[/green] {folder}")
        scores = _leaderboard(
            Path(folder),
            f"{kind}-obs",
            list(DEFAULT_METHODS),
            Path(f"predictions/{kind}"),
            None,
            max_d=None,
            workers=workers,
            quiet=quiet,
            console=console,
        )
        if scores is not None:
            frames.append(scores)
    if frames:
        from causalarena.eval.report import write_report

        scores = pd.concat(frames, ignore_index=True)
        report = Path("reports/arena")
        write_report(scores, report, title="causalarena demo: synthetic, semantic, formula")
        table = an.format_benchmark_table(an.benchmark_table(scores, ("f1", "shd")))
        console.print(
            "Observation-only leaderboard, paper Table 2 layout: mean (sd) F1 / SHD over the "
            "replicate-averaged instances of each family (synthetic d <= 30); Avg = unweighted "
            "mean F1 over the cells. SHD is not commensurate across families."
        )
        console.print(_markdown_table(table))
        console.print(f"report (Table 2, domain shifts, slices): {report / 'index.html'}")
    return time.perf_counter() - t0


def _markdown_table(frame) -> str:
    header = ["Method", *map(str, frame.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join([str(i), *map(str, r)]) + " |" for i, r in frame.iterrows()]
    return "\n".join(lines)


def run_demo(out: str | Path = "release", *, workers: int = 2, quiet: bool = False) -> dict:
    """Run the demo (see module docstring); returns the summary of the synthetic release."""
    import datasets

    from causalarena.loaders.load import load, to_numpy
    from causalarena.release.engine import build
    from causalarena.release.verify import verify
    from causalarena.summary import print_summary

    datasets.disable_progress_bars()  # local Parquet files: the download bars are noise
    term = Console().is_terminal
    # piped: never wrap (a wrapped markdown row no longer renders), rich tables stay 120 wide
    console = Console(quiet=quiet, width=None if term else 120, soft_wrap=not term)
    workers = max(1, min(workers, os.cpu_count() or 1))
    t0 = time.perf_counter()
    folder = build("arena-synthetic", scale="mini", out=out, workers=workers, quiet=quiet)
    console.print(f"[green]release ready[/green] {folder} ({time.perf_counter() - t0:.1f} s)")
    from causalarena.release.verify import verify_metadata

    problems = verify(folder)
    console.print(f"verify: {'OK, every file matches manifest.json' if not problems else problems}")
    meta_problems = verify_metadata(folder)
    console.print(
        "metadata: "
        + (
            "card (README.md), croissant.json, CITATION.cff and .zenodo.json validate"
            if not meta_problems
            else str(meta_problems)
        )
    )
    for config in ("synthetic-obs", "synthetic-obsint"):
        ds = load(config, source=folder)
        row = to_numpy(next(iter(load(config, source=folder, streaming=True))))
        console.print(
            f"loaded {config}: {len(ds)} instances (in memory); first streamed "
            f"instance {row['instance_id']}: X {row['X'].shape} {row['X'].dtype}, "
            f"mask {int(row['mask'].sum())} intervened cells, "
            f"{int(row['adjacency'].sum())} edges"
        )
    summary = print_summary(folder, console=console)

    console.rule("baselines on synthetic-obs (d <= 30)")
    synthetic = _leaderboard(
        Path(folder),
        "synthetic-obs",
        list(DEFAULT_METHODS),
        Path("predictions/synthetic"),
        Path("reports/synthetic"),
        max_d=30,
        workers=workers,
        quiet=quiet,
        console=console,
    )

    console.rule("semantic and formula scenarios (mini): baselines on the obs configs")
    secs = _scenario_leaderboards(out, synthetic, workers=workers, quiet=quiet, console=console)
    console.print(f"semantic + formula step: {secs:.1f} s")

    console.rule("lab episodes (lab-main, 4 nodes): random and scientist agents")
    from causalarena.eval.lab_run import demo_lab

    demo_lab(console=console, quiet=quiet)

    console.rule("real tables")
    real = _real_data_dir()
    if real is None:
        console.print(
            "real tables not found: set CAUSALARENA_REAL_DATA to a folder with the "
            "source files (see `causalarena build real --help`), or run "
            "`causalarena build real --out release-real` to download them"
        )
        return summary
    from causalarena.release.engine import build
    from causalarena.release.manifest import read_manifest

    res = read_manifest(
        build(
            "arena-real",
            scale="full",
            out="release-real",
            quiet=True,
            real_data_dir=real,
            download=False,
        )
    )
    for name, info in sorted(res["datasets"].items()):
        console.print(
            f"  {name}: {info['rows']} rows, {info['columns']} variables, "
            f"{info['edges']} reference edges, {info['interventions']} interventional rows"
        )
    for name, why in sorted(res["unavailable"].items()):
        console.print(f"  [yellow]unavailable[/yellow] {name}: {why}")
    _leaderboard(
        Path("release-real"),
        "real-obs",
        list(DEFAULT_METHODS),
        Path("predictions/real"),
        Path("reports/real"),
        max_d=None,
        workers=workers,
        quiet=quiet,
        console=console,
    )
    return summary
