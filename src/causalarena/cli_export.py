"""``causalarena export RELEASE --config C --format npz|csv|parquet-flat [--out DIR]``.

Writes one file per instance of a verified release config for tools that do not read the
release's Parquet shards (rows are read through :func:`causalarena.loaders.load.iter_numpy`,
so a release that disagrees with its manifest is refused):

- ``npz``: TabCausal's layout, ``x`` float32 ``[n, d, 2]`` (``x[..., 0]`` the values,
  ``x[..., 1]`` the intervention mask, 1.0 where the value was set by a do-intervention) and
  ``g`` int8 ``[d, d]``; also ``X`` ``[n, d]`` float32, ``mask`` ``[n, d]`` bool,
  ``adjacency`` ``[d, d]`` int8 (``= g``), ``variables`` ``[d]`` str;
- ``csv``: ``<id>.csv`` with one column per variable and ``mask:<variable>`` columns (0/1),
  and ``<id>.adjacency.csv`` (``d x d``, rows and columns named by variable);
- ``parquet-flat``: ``<id>.parquet`` with one float32 column per variable and
  ``mask:<variable>`` bool columns; the adjacency (JSON ``[d][d]``) and the instance id in
  the schema metadata (``causalarena.adjacency``, ``causalarena.instance_id``).

Every layout uses ONE convention, written beside the files in ``README.md`` and
``export.json``: ``A[i, j] = 1`` iff edge ``i -> j`` (row = cause, column = effect).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

VERBS = ("export",)
FORMATS = ("npz", "csv", "parquet-flat")
CONVENTION = "A[i, j] = 1 iff i -> j (row i is the cause, column j the effect)"


def add_commands(subparsers: Any) -> None:
    """Register ``export`` on the main parser."""
    e = subparsers.add_parser("export", help="write one npz/csv/Parquet file per instance")
    e.add_argument("release", metavar="RELEASE", help="release folder")
    e.add_argument("--config", required=True, help="one of the release's configs")
    e.add_argument("--format", required=True, choices=FORMATS, help="file layout")
    e.add_argument("--out", default=None, help="output folder (default: export/<config>-<format>)")
    e.add_argument("--max-d", type=int, default=None, help="skip instances with more variables")


def file_stem(instance_id: str) -> str:
    """A filesystem-safe file name for ``instance_id`` (``/`` and other characters -> ``_``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", instance_id).strip("._") or "instance"


def _atomic(path: Path, write) -> None:
    """``write(tmp)`` then rename onto ``path``: an interrupted export never leaves half files."""
    import os

    tmp = path.with_name(f".{path.name}.tmp")
    write(tmp)
    os.replace(tmp, path)


def _write_npz(path: Path, r: dict[str, Any]) -> None:
    import numpy as np

    X = np.asarray(r["X"], dtype=np.float32)
    m = np.asarray(r["mask"], dtype=bool)
    x = np.stack([X, m.astype(np.float32)], axis=-1)
    g = np.asarray(r["adjacency"], dtype=np.int8)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez_compressed(
                fh, x=x, g=g, X=X, mask=m, adjacency=g, variables=np.asarray(r["variables"], str)
            )

    _atomic(path, write)


def _write_csv(path: Path, r: dict[str, Any]) -> list[str]:
    import pandas as pd

    names = list(r["variables"])
    frame = pd.DataFrame(r["X"], columns=names)
    for k, v in enumerate(names):
        frame[f"mask:{v}"] = r["mask"][:, k].astype("int8")
    adj = path.with_name(path.stem + ".adjacency.csv")
    _atomic(adj, pd.DataFrame(r["adjacency"], index=names, columns=names).to_csv)
    _atomic(path, lambda tmp: frame.to_csv(tmp, index=False))
    return [path.name, adj.name]


def _write_parquet(path: Path, r: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = list(r["variables"])
    cols = {v: pa.array(r["X"][:, k], pa.float32()) for k, v in enumerate(names)}
    cols.update({f"mask:{v}": pa.array(r["mask"][:, k], pa.bool_()) for k, v in enumerate(names)})
    meta = {
        "causalarena.adjacency": json.dumps(r["adjacency"].astype(int).tolist()),
        "causalarena.instance_id": r["instance_id"],
        "causalarena.convention": CONVENTION,
    }
    _atomic(path, lambda tmp: pq.write_table(pa.table(cols).replace_schema_metadata(meta), tmp))


def export(
    release: str | Path, config: str, fmt: str, out: str | Path, *, max_d: int | None = None
) -> dict[str, Any]:
    """Write one file per instance of ``config`` of ``release`` into ``out``.

    Returns the ``export.json`` record (release, version, config, format, convention, files).

    Raises
    ------
    causalarena.cli_common.UsageError
        Unknown config or format, or a temporal config (no ``X`` column).
    causalarena.errors.ReleaseError
        The release disagrees with its manifest.
    """
    from causalarena.cli_common import UsageError, check_config
    from causalarena.loaders.load import iter_numpy
    from causalarena.release.io import atomic_write_bytes
    from causalarena.release.manifest import read_manifest

    if fmt not in FORMATS:
        raise UsageError("--format", fmt, f"choose from {', '.join(FORMATS)}")
    check_config(str(release), config)
    manifest = read_manifest(release)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files: list[dict[str, Any]] = []
    seen: set[str] = set()
    for r in iter_numpy(config, source=release):
        if "X" not in r:
            raise UsageError(
                "--config", config, "is temporal (x_obs); export covers tabular configs"
            )
        d = len(r["variables"])
        if max_d is not None and d > max_d:
            continue
        stem = file_stem(r["instance_id"])
        while stem in seen:  # two ids that sanitise alike
            stem += "_"
        seen.add(stem)
        if fmt == "npz":
            names = [f"{stem}.npz"]
            _write_npz(out / names[0], r)
        elif fmt == "csv":
            names = _write_csv(out / f"{stem}.csv", r)
        else:
            names = [f"{stem}.parquet"]
            _write_parquet(out / names[0], r)
        files.append({"instance_id": r["instance_id"], "files": names, "n": len(r["X"]), "d": d})
    record = {
        "release": manifest["suite"],
        "version": manifest["version"],
        "scale": manifest["scale"],
        "config": config,
        "format": fmt,
        "adjacency_convention": CONVENTION,
        "instances": files,
    }
    atomic_write_bytes(out / "export.json", (json.dumps(record, indent=2) + "\n").encode())
    atomic_write_bytes(out / "README.md", _readme(record).encode())
    return record


def _readme(rec: dict[str, Any]) -> str:
    layout = {
        "npz": "`x` float32 [n, d, 2] (values, intervention mask 0/1), `g` int8 [d, d] "
        "(TabCausal's layout); also `X` [n, d], `mask` [n, d] bool, `adjacency` [d, d] "
        "(= g), `variables` [d]",
        "csv": "`<id>.csv`: one column per variable plus `mask:<variable>` (1 = set by a "
        "do-intervention); `<id>.adjacency.csv`: d x d, rows and columns named by variable",
        "parquet-flat": "`<id>.parquet`: one float32 column per variable plus "
        "`mask:<variable>` bool; adjacency as JSON [d][d] in the schema metadata key "
        "`causalarena.adjacency`",
    }[rec["format"]]
    return (
        f"# {rec['release']} {rec['version']} ({rec['scale']}), config {rec['config']}\n\n"
        f"Exported by `causalarena export` as {rec['format']}, one file per instance "
        f"({len(rec['instances'])} instances; list in export.json).\n\n"
        f"Layout: {layout}.\n\n"
        f"Adjacency convention: **{CONVENTION}**.\n"
    )


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``export``; None when the verb is not ours.  Bad input: one line, exit 2."""
    if getattr(args, "cmd", None) not in VERBS:
        return None
    from causalarena.cli_common import error_text
    from causalarena.errors import CausalArenaError

    out = args.out or str(Path("export") / f"{args.config}-{args.format}")
    try:
        rec = export(args.release, args.config, args.format, out, max_d=args.max_d)
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena export: error: {error_text(exc)}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"exported {len(rec['instances'])} instances of {args.config} to {out}")
    return 0
