"""The main job on the embedded default: build the mini arena, load it back, summarise."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console


def run_demo(out: str | Path = "release", *, workers: int = 1, quiet: bool = False) -> dict:
    """Build ``arena-synthetic`` at ``mini`` scale into ``out``, reload it with ``datasets``
    (streaming and in memory), check one instance as numpy arrays, print the summary.

    Returns the summary dict of :func:`causalarena.summary.collect`.
    """
    import datasets

    from causalarena.loaders.load import load, to_numpy
    from causalarena.release.build import build
    from causalarena.release.verify import verify
    from causalarena.summary import print_summary

    datasets.disable_progress_bars()  # local Parquet files: the download bars are noise
    console = Console(quiet=quiet, width=None if Console().is_terminal else 120)
    t0 = time.perf_counter()
    folder = build("arena-synthetic", scale="mini", out=out, workers=workers, quiet=quiet)
    console.print(f"[green]release ready[/green] {folder} ({time.perf_counter() - t0:.1f} s)")
    problems = verify(folder)
    console.print(f"verify: {'OK, every file matches manifest.json' if not problems else problems}")
    for config in ("synthetic-obs", "synthetic-obsint"):
        ds = load(config, source=folder)
        row = to_numpy(next(iter(load(config, source=folder, streaming=True))))
        console.print(
            f"loaded {config}: {len(ds)} instances (in memory); first streamed "
            f"instance {row['instance_id']}: X {row['X'].shape} {row['X'].dtype}, "
            f"mask {int(row['mask'].sum())} intervened cells, "
            f"{int(row['adjacency'].sum())} edges"
        )
    return print_summary(folder, console=console)
