"""Experiment (issue 9 §2): which Parquet layout lets plain ``datasets`` streaming read arrays fast.

Standalone (no ``causalarena`` import, the release schema is untouched).  Writes the same
synthetic rows -- ``X`` (n, d) float32, ``mask`` (n, d) bool, ``adjacency`` (d, d) int8 and the
same adjacency stored as bool (``adj_b``), plus ``n``/``d`` int32 columns -- in several candidate
layouts, each a folder with two configs (``d10``, ``d30``) of ``--shards`` Parquet shards of
``--rows`` rows and a ``README.md`` card declaring the configs and their features:

- ``a nested``: ``list<list<float32>>`` etc. (today's release columns);
- ``b Array2D``: the same Parquet bytes, the card declaring ``Array2D((None, d))`` /
  ``Array2D((d, d))`` features (``datasets`` stores Array2D as ``list<list<>>`` too);
- ``c flat``: one ``list<float32>`` buffer per row + ``n``/``d`` columns, user reshapes;
- ``d fsl-rows``: ``list<fixed_size_list<float32, d>>`` (fixed inner dimension);
- ``d fsl-flat``: ``fixed_size_list<float32, n*d>`` per row, user reshapes;
- ``f binary``: ``large_binary`` raw bytes per row, user does ``np.frombuffer(...).reshape``.

Readers (each timed with the CPU clock ``time.process_time`` over one pass of every row of both
configs, after the ``load_dataset`` call): ``pyarrow`` (``pq.read_table`` per shard, zero-copy
reshape of the leaf buffers into per-row ``(n, d)`` arrays -- the reference), and
``datasets.load_dataset(folder, config, split="train", streaming=True)`` with
``.with_format("numpy")`` / ``"torch"``, per row and in ``.iter(batch_size=8)`` batches.  The
user's reshape / ``frombuffer`` is inside the timed loop.  ``ratio`` is against the pyarrow read
of the same layout (fastest of >= 3 passes), ``vs a-pa`` against the pyarrow read of today's
nested layout.  ``numpy`` hands ``large_binary`` over as ``np.bytes_``, which drops trailing NUL
bytes: the decode pads them back to the size known from ``n``/``d``.  The X/mask/adj columns of the table
say what the reader hands over before any user conversion; every reader's first row is checked
against the written data after that conversion.

Run:  ``python bench/layout_experiment.py [--rows 40 --shards 2 --n 1000 --repeat 1]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import yaml  # noqa: E402

ARRAYS = ("X", "mask", "adjacency", "adj_b")
DTYPES = {"X": np.float32, "mask": np.bool_, "adjacency": np.int8, "adj_b": np.bool_}
SHORT = {"float32": "f32", "float64": "f64", "bool": "bool", "int8": "i8", "int64": "i64"}


# ----------------------------------------------------------------------------- data


def make_rows(rng: np.random.Generator, rows: int, n: int, d: int) -> list[dict[str, np.ndarray]]:
    out = []
    for _ in range(rows):
        adj = np.triu(rng.random((d, d)) < 0.2, 1)
        out.append(
            {
                "X": rng.standard_normal((n, d)).astype(np.float32),
                "mask": rng.random((n, d)) < 0.9,
                "adjacency": adj.astype(np.int8),
                "adj_b": adj,
            }
        )
    return out


def shape_of(name: str, n: int, d: int) -> tuple[int, int]:
    return (d, d) if name in ("adjacency", "adj_b") else (n, d)


def arrow_type(name: str) -> pa.DataType:
    return {"X": pa.float32(), "mask": pa.bool_(), "adjacency": pa.int8(), "adj_b": pa.bool_()}[
        name
    ]


def column(layout: str, name: str, values: list[np.ndarray]) -> pa.Array:
    """One array column of a shard in the given layout."""
    t = arrow_type(name)
    rows, cols = values[0].shape
    flat = pa.array(np.concatenate([v.ravel() for v in values]), type=t)
    k = len(values)
    if layout in ("a nested", "b Array2D"):
        inner = pa.ListArray.from_arrays(pa.array(np.arange(k * rows + 1) * cols, pa.int32()), flat)
        return pa.ListArray.from_arrays(pa.array(np.arange(k + 1) * rows, pa.int32()), inner)
    if layout == "c flat":
        return pa.ListArray.from_arrays(pa.array(np.arange(k + 1) * rows * cols, pa.int32()), flat)
    if layout == "d fsl-rows":
        inner = pa.FixedSizeListArray.from_arrays(flat, cols)
        return pa.ListArray.from_arrays(pa.array(np.arange(k + 1) * rows, pa.int32()), inner)
    if layout == "d fsl-flat":
        return pa.FixedSizeListArray.from_arrays(flat, rows * cols)
    if layout == "f binary":
        return pa.array([v.tobytes() for v in values], type=pa.large_binary())
    raise ValueError(layout)


LAYOUTS = ("a nested", "b Array2D", "c flat", "d fsl-rows", "d fsl-flat", "f binary")


def features_yaml(layout: str, schema: pa.Schema, n: int, d: int) -> list[dict[str, Any]]:
    import datasets

    if layout == "b Array2D":
        feats = datasets.Features(
            {
                "n": datasets.Value("int32"),
                "d": datasets.Value("int32"),
                "X": datasets.Array2D((None, d), "float32"),
                "mask": datasets.Array2D((None, d), "bool"),
                "adjacency": datasets.Array2D((d, d), "int8"),
                "adj_b": datasets.Array2D((d, d), "bool"),
            }
        )
    else:
        feats = datasets.Features.from_arrow_schema(schema)
    return feats._to_yaml_list()


def write_layout(
    root: Path, layout: str, data: dict[int, list[list[dict]]], n: int
) -> dict[str, int]:
    folder = root / layout.replace(" ", "_")
    configs, infos = [], []
    for d, shards in data.items():
        cfg = f"d{d}"
        (folder / cfg).mkdir(parents=True)
        schema = None
        for i, rows in enumerate(shards):
            cols = {
                "n": pa.array([n] * len(rows), pa.int32()),
                "d": pa.array([d] * len(rows), pa.int32()),
            }
            for name in ARRAYS:
                cols[name] = column(layout, name, [r[name] for r in rows])
            table = pa.table(cols)
            schema = table.schema
            pq.write_table(table, folder / cfg / f"train-{i:05d}.parquet")
        configs.append({"config_name": cfg, "data_files": [{"split": "train", "path": f"{cfg}/*"}]})
        infos.append({"config_name": cfg, "features": features_yaml(layout, schema, n, d)})
    card = yaml.safe_dump({"configs": configs, "dataset_info": infos}, sort_keys=False)
    (folder / "README.md").write_text(f"---\n{card}---\n\n# layout experiment: {layout}\n")
    return {f"d{d}": len(shards) for d, shards in data.items()}


# ----------------------------------------------------------------------------- readers


def _leaf(col: pa.ChunkedArray) -> np.ndarray:
    arr = col.combine_chunks()
    if pa.types.is_large_binary(arr.type):
        offsets = np.frombuffer(arr.buffers()[1], np.int64)[arr.offset : arr.offset + len(arr) + 1]
        return np.frombuffer(arr.buffers()[2], np.uint8)[offsets[0] : offsets[-1]]
    while pa.types.is_list(arr.type) or pa.types.is_fixed_size_list(arr.type):
        arr = arr.flatten()
    return arr.to_numpy(zero_copy_only=False)


def read_pyarrow(folder: Path, cfg: str, d: int, n: int) -> Iterator[dict[str, Any]]:
    for path in sorted((folder / cfg).glob("*.parquet")):
        table = pq.read_table(path)
        k = table.num_rows
        arrays = {}
        for name in ARRAYS:
            leaf = _leaf(table[name])
            if leaf.dtype == np.uint8:  # raw bytes
                leaf = leaf.view(DTYPES[name])
            arrays[name] = leaf.reshape((k, *shape_of(name, n, d)))
        for i in range(k):
            yield {name: arrays[name][i] for name in ARRAYS}


def decode(row: dict[str, Any], name: str, n: int, d: int) -> Any:
    """The user's conversion of what a reader handed over into a (n, d) / (d, d) array."""
    v = row[name]
    shape = shape_of(name, n, d)
    if isinstance(v, bytes):  # np.bytes_ drops trailing NULs: pad back to the known size
        nbytes = shape[0] * shape[1] * np.dtype(DTYPES[name]).itemsize
        return np.frombuffer(bytes(v).ljust(nbytes, b"\0"), DTYPES[name]).reshape(shape)
    if hasattr(v, "reshape") and tuple(v.shape) != shape and v.ndim == 1:
        return v.reshape(shape)
    return v


def _stream(folder: Path, cfg: str, fmt: str):
    import datasets

    return datasets.load_dataset(str(folder), cfg, split="train", streaming=True).with_format(fmt)


def read_rows(fmt: str) -> Callable:
    def read(folder: Path, cfg: str, d: int, n: int) -> Iterator[dict[str, Any]]:
        ds = _stream(folder, cfg, fmt)  # resolved before the clock starts
        return ({name: decode(row, name, n, d) for name in ARRAYS} | {"_raw": row} for row in ds)

    return read


def read_batches(fmt: str, batch_size: int = 8) -> Callable:
    def read(folder: Path, cfg: str, d: int, n: int) -> Iterator[dict[str, Any]]:
        return _batches(_stream(folder, cfg, fmt), n, d, batch_size)

    return read


def _batches(ds: Any, n: int, d: int, batch_size: int) -> Iterator[dict[str, Any]]:
    if True:
        for batch in ds.iter(batch_size=batch_size):
            b = len(batch["n"])
            out = {}
            for name in ARRAYS:
                v = batch[name]
                shape = (b, *shape_of(name, n, d))
                nbytes = shape[1] * shape[2] * np.dtype(DTYPES[name]).itemsize
                if isinstance(v, list) and v and isinstance(v[0], bytes):
                    v = b"".join(bytes(x).ljust(nbytes, b"\0") for x in v)
                    v = np.frombuffer(v, DTYPES[name]).reshape(shape)
                elif isinstance(v, np.ndarray) and v.dtype.kind == "S":  # fixed-width |S
                    if v.dtype.itemsize != nbytes:  # every row lost trailing NULs
                        v = np.array([bytes(x).ljust(nbytes, b"\0") for x in v])
                    v = np.frombuffer(v.tobytes(), DTYPES[name]).reshape(shape)
                elif hasattr(v, "reshape") and v.dtype is not np.dtype(object):
                    if tuple(v.shape) != shape and v.ndim == 2:
                        v = v.reshape(shape)
                out[name] = v
            out["_raw"] = batch
            out["_b"] = b
            yield out


def describe(v: Any, n: int, d: int, name: str, batched: bool) -> str:
    shape = shape_of(name, n, d)
    full = (8, *shape) if batched else shape
    labels = {shape: "(d,d)" if name in ("adjacency", "adj_b") else "(n,d)"}
    if batched:
        labels[full] = "(B," + labels[shape][1:]
    if isinstance(v, list):
        return f"list[{type(v[0]).__name__}]" if v else "list"
    if isinstance(v, (bytes, str)):
        return type(v).__name__
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            return f"object{v.shape}"
        return f"{SHORT.get(str(v.dtype), str(v.dtype))} {labels.get(v.shape, str(v.shape))}"
    if hasattr(v, "numpy") and hasattr(v, "dtype"):  # torch.Tensor
        dt = str(v.dtype).replace("torch.", "")
        return f"t.{SHORT.get(dt, dt)} {labels.get(tuple(v.shape), str(tuple(v.shape)))}"
    return type(v).__name__


def check(first: dict[str, Any], truth: dict[str, np.ndarray], batched: bool) -> str:
    for name in ARRAYS:
        v = first[name]
        if batched:
            v = v[0]
        v = v.numpy() if hasattr(v, "numpy") else np.asarray(v)
        if v.dtype == object:
            v = np.stack([np.asarray(r) for r in v])
        if v.shape != truth[name].shape or not np.array_equal(
            v.astype(truth[name].dtype), truth[name]
        ):
            return f"MISMATCH {name}"
    return "ok"


def measure(folder, shards, n, data, reader, batched, repeat) -> dict[str, Any]:
    best, desc, ok = None, {}, "ok"
    for _ in range(repeat):
        rows, seconds = 0, 0.0
        for cfg in shards:
            d = int(cfg[1:])
            it = reader(folder, cfg, d, n)
            t0 = time.process_time()
            first = None
            for item in it:
                if first is None:
                    first = item
                    t_pause = time.process_time()
                    raw = item.get("_raw", item)
                    desc = {name: describe(raw[name], n, d, name, batched) for name in ARRAYS}
                    ok = check(item, data[d][0][0], batched) if ok == "ok" else ok
                    t0 += time.process_time() - t_pause
                rows += item.get("_b", 1)
            seconds += time.process_time() - t0
        best = seconds if best is None else min(best, seconds)
    return {"rows": rows, "seconds": best, "desc": desc, "ok": ok}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=40, help="rows per shard")
    p.add_argument("--shards", type=int, default=2, help="shards per config (2 configs)")
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=1, help="passes per reader (fastest kept)")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated subset")
    args = p.parse_args(argv)

    import datasets

    datasets.disable_progress_bars()
    readers: list[tuple[str, Callable, bool]] = [
        ("pyarrow", read_pyarrow, False),
        ("numpy", read_rows("numpy"), False),
        ("numpy B=8", read_batches("numpy"), True),
    ]
    try:
        if args.no_torch:
            raise ImportError
        import torch

        readers += [
            ("torch", read_rows("torch"), False),
            ("torch B=8", read_batches("torch"), True),
        ]
        torch_v = torch.__version__
    except ImportError:
        torch_v = "absent"

    rng = np.random.default_rng(0)
    data = {d: [make_rows(rng, args.rows, args.n, d) for _ in range(args.shards)] for d in (10, 30)}
    print(
        f"datasets {datasets.__version__}, pyarrow {pa.__version__}, numpy {np.__version__}, "
        f"torch {torch_v}; n={args.n}, d in {{10, 30}}, {args.shards}x{args.rows} rows per config;"
        " CPU-time clock"
    )
    head = (
        f"{'layout':<11} {'reader':<10} {'rows/s':>8} {'ratio':>6} {'vs a-pa':>7}  "
        f"{'X':<16} {'mask':<16} {'adj (int8)':<16} {'adj (bool)':<16} check"
    )
    print(head)
    print("-" * len(head))
    today = None  # the pyarrow read of today's nested layout (first layout run)
    with tempfile.TemporaryDirectory(prefix="layout-exp-") as tmp:
        for layout in args.layouts.split(","):
            shards = write_layout(Path(tmp), layout, data, args.n)
            folder = Path(tmp) / layout.replace(" ", "_")
            ref = None
            for label, reader, batched in readers:
                try:
                    reps = (
                        max(3, args.repeat) if label == "pyarrow" else args.repeat
                    )  # cheap reference
                    m = measure(folder, shards, args.n, data, reader, batched, reps)
                except Exception as exc:  # noqa: BLE001 - an experiment: report and go on
                    print(f"{layout:<11} {label:<10} FAILED {type(exc).__name__}: {exc}"[:160])
                    continue
                rate = m["rows"] / max(m["seconds"], 1e-9)
                ref = rate if label == "pyarrow" else ref
                ratio = rate / ref if ref else float("nan")
                today = rate if today is None else today
                dsc = m["desc"]
                print(
                    f"{layout:<11} {label:<10} {rate:>8.0f} {ratio:>5.2f}x {rate / today:>6.2f}x  "
                    f"{dsc['X']:<16} {dsc['mask']:<16} {dsc['adjacency']:<16} "
                    f"{dsc['adj_b']:<16} {m['ok']}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
