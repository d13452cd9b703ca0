"""Benchmark: reading a release's arrays, ``datasets`` streaming against a direct pyarrow read.

Run with ``make bench`` (or ``python bench/bench_load.py [--folder RELEASE]``).  Builds the mini
``arena-synthetic`` release when no folder is given, then reads every config once per reader
and prints one table: rows per second and MB per second of ``X`` (float32 bytes, ``n * d * 4``
per row) for

- ``pyarrow``: the reference, ``pyarrow.parquet.ParquetFile.read`` of each shard (all columns) and a
  zero-copy reshape of the flattened ``X``/``mask``/``adjacency`` buffers into per-row arrays;
- ``datasets numpy``/``arrow``/``python``: ``datasets.load_dataset(folder, config,
  streaming=True)`` with ``with_format("numpy")``, ``"arrow"`` and no format, each row's ``X``
  turned into an ``(n, d)`` float32 ndarray the cheapest way that format allows (none for numpy);
- ``causalarena.load``: the package loader (streaming) plus :func:`causalarena.to_numpy`;
- ``datasets numpy``/``torch, d-views``: the same rows through the card's fixed-d views
  (``<config>-dNNN``, ``datasets.Array2D`` features), when the card declares them (and torch
  is installed); ``B=8``: the views in numpy batches of 8 rows (``X`` arrives ``(8, n, d)``).

The ``X``/``mask``/``adjacency`` columns say what each reader hands over before any conversion
(``f32 (n,d)`` = float32 ndarray of the row's shape), and ``ratio`` is time relative to pyarrow
measured in the same run (each reader's fastest of ``--repeat`` interleaved rounds, since the
machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SHORT = {"float32": "f32", "float64": "f64", "bool": "bool", "int8": "i8", "int64": "i64"}


def describe(value: Any, shape: tuple[int, ...], label: str = "(n,d)") -> str:
    """Short description of what a reader handed over for one array column."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return f"object{value.shape}"
        dims = label if value.shape == shape else str(value.shape)
        if len(shape) == 3 and value.shape == shape:
            dims = "(B,n,d)"
        return f"{SHORT.get(str(value.dtype), str(value.dtype))} {dims}"
    if hasattr(value, "numpy") and hasattr(value, "dtype"):  # torch.Tensor
        return f"torch {SHORT.get(str(value.dtype).replace('torch.', ''), value.dtype)}"
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        return "arrow"
    return type(value).__name__


def _leaf_values(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Fully flattened leaf buffer of an array column (any list nesting or extension type)."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    while True:
        if isinstance(arr, pa.ExtensionArray):
            arr = arr.storage
        elif pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
            arr = arr.flatten()
        elif pa.types.is_fixed_size_list(arr.type):
            arr = arr.flatten()
        else:
            break
    if pa.types.is_boolean(arr.type):
        return arr.to_numpy(zero_copy_only=False)
    return arr.to_numpy()


def arrays_of(table: pa.Table) -> Iterator[dict[str, np.ndarray]]:
    """Per-row ``X`` (n, d), ``mask`` (n, d) and ``adjacency`` (d, d) views of a table."""
    n = np.asarray(table.column("n_obs").to_numpy(), dtype=np.int64) + np.asarray(
        table.column("n_int").to_numpy(), dtype=np.int64
    )
    d = np.asarray(table.column("d").to_numpy(), dtype=np.int64)
    flat = {k: _leaf_values(table.column(k)) for k in ("X", "mask", "adjacency")}
    xo = np.concatenate([[0], np.cumsum(n * d)])
    ao = np.concatenate([[0], np.cumsum(d * d)])
    for i in range(table.num_rows):
        yield {
            "X": flat["X"][xo[i] : xo[i + 1]].reshape(n[i], d[i]),
            "mask": flat["mask"][xo[i] : xo[i + 1]].reshape(n[i], d[i]),
            "adjacency": flat["adjacency"][ao[i] : ao[i + 1]].reshape(d[i], d[i]),
        }


def read_pyarrow(folder: Path, config: str, shards: list[str]) -> Iterator[tuple[Any, ...]]:
    for rel in shards:
        table = pq.ParquetFile(folder / rel).read()
        meta = table.select(["n_obs", "n_int", "d"]).to_pylist()
        for row, arrs in zip(meta, arrays_of(table), strict=True):
            shape = (row["n_obs"] + row["n_int"], row["d"])
            yield arrs["X"], arrs["X"], arrs["mask"], arrs["adjacency"], shape


OPEN_SECONDS = [0.0]  # time spent opening datasets (load_dataset), excluded from "read rows/s"
CLOCK = [time.perf_counter]  # wall clock, or time.process_time with --clock cpu


def _stream(folder: Path, config: str, fmt: str | None):
    import datasets

    t0 = CLOCK[0]()
    ds = datasets.load_dataset(str(folder), config, split="test", streaming=True)
    ds = ds.with_format(fmt) if fmt else ds
    OPEN_SECONDS[0] += CLOCK[0]() - t0
    return ds


def read_datasets_numpy(folder: Path, config: str, shards: list[str]):
    for row in _stream(folder, config, "numpy"):
        shape = (int(row["n_obs"]) + int(row["n_int"]), int(row["d"]))
        x = row["X"]
        if not (isinstance(x, np.ndarray) and x.dtype == np.float32 and x.shape == shape):
            x = np.asarray(x.tolist() if x.dtype == object else x, dtype=np.float32)
            x = x.reshape(shape)
        yield x, row["X"], row["mask"], row["adjacency"], shape


def views_of(folder: Path, config: str) -> list[str]:
    """Names of the fixed-d views of ``config`` declared in the card (``<config>-dNNN``)."""
    import re

    import yaml

    text = (folder / "README.md").read_text(encoding="utf-8")
    fm = yaml.safe_load(text.split("---", 2)[1])
    pat = re.compile(re.escape(config) + r"-d\d{3}$")
    return [c["config_name"] for c in fm.get("configs", []) if pat.match(c["config_name"])]


def read_views(fmt: str):
    def read(folder: Path, config: str, shards: list[str]):
        views = views_of(folder, config)
        if not views:
            raise SystemExit(f"{folder}: the card declares no fixed-d views of {config}")
        for view in views:
            for row in _stream(folder, view, fmt):
                shape = (int(row["n_obs"]) + int(row["n_int"]), int(row["d"]))
                x = row["X"]
                x = x if isinstance(x, np.ndarray) else x.numpy()
                yield x, row["X"], row["mask"], row["adjacency"], shape

    return read


def read_views_batched(folder: Path, config: str, shards: list[str], batch_size: int = 8):
    """Fixed-d views in numpy batches of ``batch_size`` rows: ``X`` arrives (B, n, d)."""
    for view in views_of(folder, config):
        for b in _stream(folder, view, "numpy").iter(batch_size=batch_size):
            for i in range(len(b["X"])):
                shape = (int(b["n_obs"][i]) + int(b["n_int"][i]), int(b["d"][i]))
                yield b["X"][i], b["X"], b["mask"], b["adjacency"], shape


def read_datasets_arrow(folder: Path, config: str, shards: list[str]):
    for table in _stream(folder, config, "arrow"):
        arrs = next(arrays_of(table))
        shape = arrs["X"].shape
        yield arrs["X"], table.column("X"), table.column("mask"), table.column("adjacency"), shape


def read_datasets_python(folder: Path, config: str, shards: list[str]):
    for row in _stream(folder, config, None):
        shape = (row["n_obs"] + row["n_int"], row["d"])
        x = np.asarray(row["X"], dtype=np.float32).reshape(shape)
        yield x, row["X"], row["mask"], row["adjacency"], shape


def read_causalarena(folder: Path, config: str, shards: list[str]):
    import causalarena

    t0 = CLOCK[0]()
    ds = causalarena.load(config, source=folder, streaming=True)
    OPEN_SECONDS[0] += CLOCK[0]() - t0
    for row in ds:
        arr = causalarena.to_numpy(row)
        shape = (int(row["n_obs"]) + int(row["n_int"]), int(row["d"]))
        yield arr["X"], arr["X"], arr["mask"], arr["adjacency"], shape


READERS: dict[str, Callable] = {
    "pyarrow (reference)": read_pyarrow,
    "datasets numpy": read_datasets_numpy,
    "datasets arrow": read_datasets_arrow,
    "datasets python": read_datasets_python,
    "causalarena.load": read_causalarena,
    "datasets numpy, d-views": read_views("numpy"),
    "datasets torch, d-views": read_views("torch"),
    "datasets numpy, d-views, B=8": read_views_batched,
}


def measure(folder: Path, configs: dict[str, list[str]], reader: Callable) -> dict[str, Any]:
    rows, xbytes, checksum, seen = 0, 0, 0.0, {}
    OPEN_SECONDS[0] = 0.0
    t0 = CLOCK[0]()
    for config, shards in configs.items():
        for x, raw_x, raw_mask, raw_adj, shape in reader(folder, config, shards):
            rows += 1
            xbytes += x.size * 4
            checksum += float(x[0, 0])  # touch the data
            if not seen:
                if raw_x is not x and getattr(raw_x, "ndim", 0) == 3:  # a (B, n, d) batch
                    shape = raw_x.shape
                seen = {
                    "X": describe(raw_x, shape),
                    "mask": describe(raw_mask, shape),
                    "adjacency": describe(raw_adj, (shape[-1], shape[-1]), "(d,d)"),
                }
    wall = CLOCK[0]() - t0
    return {
        "rows": rows,
        "wall": wall,
        "open": OPEN_SECONDS[0],
        "xbytes": xbytes,
        "checksum": checksum,
        **seen,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folder", help="release folder (default: build the mini synthetic suite)")
    ap.add_argument("--out", default="bench/out/load-mini", help="where to build the default")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the fastest is kept")
    ap.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall clock, or this process's CPU time (steadier on a shared machine)",
    )
    ap.add_argument("--readers", nargs="*", default=None, choices=list(READERS))
    args = ap.parse_args(argv)
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.folder:
        folder = Path(args.folder)
    else:
        from causalarena import build

        folder = build("arena-synthetic", scale="mini", out=args.out, quiet=True)
    manifest = json.loads((folder / "manifest.json").read_text())
    configs = {
        name: sorted(f["path"] for f in manifest["files"] if f.get("config") == name)
        for name in sorted(manifest["configs"])
    }
    configs = {c: s for c, s in configs.items() if s and s[0].endswith(".parquet")}
    if args.readers is None:  # every reader this folder and environment support
        import importlib.util

        args.readers = [
            r
            for r in READERS
            if not ("d-views" in r and not views_of(folder, next(iter(configs))))
            and not (r.startswith("datasets torch") and importlib.util.find_spec("torch") is None)
        ]
    for rel in (r for s in configs.values() for r in s):  # warm the page cache for everyone
        (folder / rel).read_bytes()
    results: dict[str, dict[str, Any]] = {}
    for _ in range(args.repeat):  # interleaved rounds; keep each reader's fastest
        for name in args.readers:
            r = measure(folder, configs, READERS[name])
            if (
                name not in results
                or r["wall"] - r["open"] < results[name]["wall"] - results[name]["open"]
            ):
                results[name] = r
    ref = results.get("pyarrow (reference)")
    rows_total = sum(manifest["configs"][c]["rows"] for c in configs)
    print(
        f"bench_load: {folder} ({manifest.get('suite')}, {manifest.get('scale')}), "
        f"configs {', '.join(configs)}: {rows_total} rows, "
        f"{next(iter(results.values()))['xbytes'] / 1e6:.1f} MB of X; {args.clock} clock, "
        f"fastest of {args.repeat}"
    )
    head = f"{'reader':<30}{'open s':>7}{'rows/s':>8}{'MB/s X':>8}{'vs pyarrow':>11}"
    head += f"{'rows/s*':>8}{'MB/s X*':>8}{'vs pyarrow*':>12}  "
    print(head + f"{'X':<15}{'mask':<13}{'adjacency':<13}")
    for name, r in results.items():
        if r["rows"] != rows_total:
            raise SystemExit(f"{name} read {r['rows']} rows, the manifest lists {rows_total}")
        read = r["wall"] - r["open"]
        ratio = f"{ref['wall'] / r['wall']:.2f}x" if ref else "-"
        ratio_read = f"{ref['wall'] / read:.2f}x" if ref else "-"
        print(
            f"{name:<30}{r['open']:>7.2f}{r['rows'] / r['wall']:>8.1f}"
            f"{r['xbytes'] / r['wall'] / 1e6:>8.1f}{ratio:>11}"
            f"{r['rows'] / read:>8.1f}{r['xbytes'] / read / 1e6:>8.1f}{ratio_read:>12}  "
            f"{r['X']:<15}{r['mask']:<13}{r['adjacency']:<13}"
        )
    print(
        "open s = time in load_dataset/causalarena.load calls; * = excluding it (reading "
        "rows only); speed vs pyarrow = pyarrow time / reader time (higher is faster)"
    )


if __name__ == "__main__":
    main()
