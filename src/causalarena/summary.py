"""Summary of a release folder (``causalarena info``), read back through ``datasets``.

Reads only the factor columns of every config (streaming), and prints: instances per graph
family x d, mean edges, mechanism/noise/root tag coverage, audit redraws, and mean
varsortability / R²-sortability per graph family (Reisach et al. 2021, 2023).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.schema import SLICE_FACTORS

FACTOR_COLUMNS = [
    "instance_id",
    "scm_id",
    "setting",
    *SLICE_FACTORS,
    "varsortability",
    "r2_sortability",
    "audit_attempts",
]


def collect(folder: str | Path) -> dict[str, Any]:
    """Stream every config's factor columns and aggregate them.

    Returns
    -------
    dict
        ``configs`` (rows per config), ``grid`` ((family, d) -> SCM count), ``edges``,
        ``coverage`` (tag -> number of SCMs using it, per kind), ``audit``, ``sortability``.
    """
    from causalarena.loaders.load import load
    from causalarena.release.manifest import read_manifest

    manifest = read_manifest(folder)
    rows_per_config: dict[str, int] = {}
    scm_rows: dict[str, dict[str, Any]] = {}
    sort: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for config in sorted(manifest["configs"]):
        ds = load(config, source=folder, streaming=True)
        ds = ds.select_columns(FACTOR_COLUMNS)
        n = 0
        for row in ds:
            n += 1
            scm_rows.setdefault(row["scm_id"], row)
            if row["setting"] == "obs":
                sort[row["graph_family"]].append((row["varsortability"], row["r2_sortability"]))
        rows_per_config[config] = n
    grid: dict[tuple[str, int], int] = defaultdict(int)
    edges: dict[tuple[str, int], list[int]] = defaultdict(list)
    cov: dict[str, dict[str, int]] = {
        "mechanism_tags": defaultdict(int),
        "noise_tags": defaultdict(int),
        "root_tags": defaultdict(int),
        "root_dependency": defaultdict(int),
        "difficulty": defaultdict(int),
    }
    attempts = []
    for r in scm_rows.values():
        key = (r["graph_family"], r["d"])
        grid[key] += 1
        edges[key].append(r["n_edges"])
        for k in ("mechanism_tags", "noise_tags", "root_tags"):
            for t in r[k]:
                cov[k][t] += 1
        cov["root_dependency"][r["root_dependency"]] += 1
        for s in r["difficulty"].split("+"):
            cov["difficulty"][s] += 1
        attempts.append(r["audit_attempts"])
    return {
        "manifest": manifest,
        "configs": rows_per_config,
        "grid": dict(grid),
        "edges": {k: float(np.mean(v)) for k, v in edges.items()},
        "coverage": {k: dict(v) for k, v in cov.items()},
        "audit": {
            "scms": len(attempts),
            "resampled": sum(a > 1 for a in attempts),
            "mean_attempts": float(np.mean(attempts)) if attempts else 0.0,
        },
        "sortability": {
            f: (float(np.nanmean([a for a, _ in v])), float(np.nanmean([b for _, b in v])))
            for f, v in sort.items()
        },
    }


def print_summary(folder: str | Path, console=None) -> dict[str, Any]:
    """Print the summary of any release folder (synthetic, real or temporal)."""
    return _print_summary(folder, console)


def _print_summary(folder: str | Path, console=None) -> dict[str, Any]:
    """Print the summary tables with rich and return :func:`collect`'s result."""
    from rich.console import Console
    from rich.table import Table

    from causalarena.generator.distributions import NOISES, ROOTS
    from causalarena.generator.mechanisms import MECHANISM_TAGS
    from causalarena.release.verify import verify

    term = Console().is_terminal
    console = console or Console(width=None if term else 120, soft_wrap=not term)
    problems = verify(folder)
    if problems:
        console.print(
            f"[bold red]warning[/bold red]: {len(problems)} file(s) differ from "
            f"manifest.json (run `causalarena verify {folder}`): "
            + ", ".join(f"{p['path']} ({p['problem']})" for p in problems[:5])
        )
    from causalarena.release.manifest import read_manifest

    family = read_manifest(folder).get("family", "synthetic")
    if family == "real":
        return _print_real(folder, console)
    if family == "temporal":
        return _print_temporal(folder, console)
    if family != "synthetic":
        return _print_generic(folder, console)
    s = collect(folder)
    m = s["manifest"]
    console.print(
        f"[bold]{m['suite']}[/bold] v{m['version']} ({m['scale']}), seed {m['seed']}, "
        f"configs: " + ", ".join(f"{c}={n} rows" for c, n in s["configs"].items())
    )
    dims = sorted({d for _, d in s["grid"]})
    fams = sorted({f for f, _ in s["grid"]})
    t = Table(title="SCMs per graph family x d (mean edges); sortability = mean over obs instances")
    t.add_column("graph family")
    for d in dims:
        t.add_column(f"d={d}", justify="right")
    t.add_column("varsort", justify="right")
    t.add_column("R2-sort", justify="right")
    for f in fams:
        vs, r2 = s["sortability"].get(f, (float("nan"), float("nan")))
        t.add_row(
            f,
            *[f"{s['grid'].get((f, d), 0)} ({s['edges'].get((f, d), 0):.0f})" for d in dims],
            f"{vs:.3f}",
            f"{r2:.3f}",
        )
    console.print(t)
    cov = s["coverage"]
    totals = {
        "mechanism_tags": len(MECHANISM_TAGS),
        "noise_tags": len(NOISES),
        "root_tags": len(ROOTS),
    }
    c = Table(title="Coverage (SCMs using each tag)")
    c.add_column("factor")
    c.add_column("covered", justify="right")
    c.add_column("tags (count)")
    for k in ("mechanism_tags", "noise_tags", "root_tags", "root_dependency", "difficulty"):
        tags = cov[k]
        total = totals.get(k, len(tags))
        c.add_row(k, f"{len(tags)}/{total}", ", ".join(f"{t}={n}" for t, n in sorted(tags.items())))
    console.print(c)
    a = s["audit"]
    console.print(
        f"audit: {a['scms']} SCMs, {a['resampled']} redrawn at least once, "
        f"mean candidates per SCM {a['mean_attempts']:.2f}"
    )
    return s


def _print_real(folder: str | Path, console) -> dict[str, Any]:
    """Summary of a real-data release: one line per dataset from the manifest header."""
    from rich.table import Table

    from causalarena.release.manifest import read_manifest

    m = read_manifest(folder)
    console.print(
        f"[bold]{m['suite']}[/bold] v{m['version']}: "
        + ", ".join(f"{c}={v['rows']} datasets" for c, v in sorted(m["configs"].items()))
    )
    t = Table(title="Real tables (reference graphs are literature references, not verified truth)")
    names = sorted(m.get("datasets", {}))
    t.add_column("dataset", no_wrap=True, min_width=max(map(len, names), default=7))
    for col in (
        "rows (obs)",
        "variables",
        "reference edges",
        "interventional rows",
        "licence",
        "configs",
    ):
        t.add_column(col)
    for name, d in sorted(m.get("datasets", {}).items()):
        t.add_row(
            name,
            f"{d['rows']} ({d['rows_obs']})",
            str(d["columns"]),
            str(d["edges"]),
            str(d["interventions"]),
            d["licence"],
            ", ".join(d["configs"]),
        )
    console.print(t)
    for name, why in sorted(m.get("unavailable", {}).items()):
        console.print(f"unavailable {name}: {why}")
    return {"manifest": m}


def _print_temporal(folder: str | Path, console) -> dict[str, Any]:
    """Summary of a temporal release: episodes, structures and stability per suite."""
    import pyarrow.parquet as pq
    from rich.table import Table

    from causalarena.release.manifest import read_manifest

    m = read_manifest(folder)
    t = Table(title=f"{m['suite']} v{m['version']} ({m['scale']}): temporal episodes")
    for col in (
        "config",
        "episodes",
        "N (mean)",
        "T",
        "structures",
        "pair modes",
        "spectral radius (mean)",
        "redraws",
    ):
        t.add_column(col)
    out = {}
    for config in sorted(m["configs"]):
        tab = pq.read_table(
            Path(folder) / "data" / config,
            columns=["n_vars", "T", "structure", "pair_mode", "spectral_radius", "attempts"],
        ).to_pandas()
        out[config] = len(tab)
        t.add_row(
            config,
            str(len(tab)),
            f"{tab.n_vars.mean():.1f}",
            _span(sorted(int(x) for x in tab["T"].unique())),
            str(tab.structure.nunique()),
            ",".join(sorted(tab.pair_mode.unique())),
            f"{tab.spectral_radius.mean():.2f}",
            str(int((tab.attempts > 1).sum())),
        )
    console.print(t)
    return {"manifest": m, "episodes": out}


def _print_generic(folder: str | Path, console) -> dict[str, Any]:
    """Summary of a release of any other family (lab, semantic, formula, plug-ins): rows and
    shards per config, from the manifest alone (no family-specific columns assumed)."""
    from rich.table import Table

    from causalarena.release.manifest import read_manifest

    m = read_manifest(folder)
    t = Table(title=f"{m['suite']} v{m['version']} ({m['scale']}): family {m.get('family')}")
    for col in ("config", "rows", "shards"):
        t.add_column(col)
    out = {}
    for config in sorted(m["configs"]):
        files = [f for f in m.get("files", []) if f.get("config") == config]
        rows = sum(int(f.get("rows", 0)) for f in files)
        out[config] = rows
        t.add_row(config, str(rows), str(len(files)))
    console.print(t)
    return {"manifest": m, "configs": out}


def _span(values: list[int]) -> str:
    return ",".join(map(str, values)) if len(values) <= 3 else f"{values[0]}-{values[-1]}"
