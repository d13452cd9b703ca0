"""Array layout: what plain ``datasets`` (no causalarena import) serves, fixed-d views, batching,
``split_dataset_by_node`` and a torch DataLoader over the stream, Croissant URLs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.schema import VIEW_COLUMNS, VIEW_RE

datasets = pytest.importorskip("datasets")

CONFIGS = ("synthetic-obs", "synthetic-obsint")


def _plain(code: str, folder: Path) -> dict:
    """Run ``code`` in a fresh interpreter that imports only datasets/numpy; return its JSON."""
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import datasets
        folder = sys.argv[1]
        out = {}
        """
    )
    script += textwrap.dedent(code)
    script += textwrap.dedent(
        """
        out["causalarena_imported"] = any(m.split(".")[0] == "causalarena" for m in sys.modules)
        print(json.dumps(out), flush=True)
        import os
        os._exit(0)  # skip interpreter teardown: datasets' streaming threads can abort it
        """
    )
    r = subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out.pop("causalarena_imported") is False
    return out


def _stored(folder: Path, config: str) -> dict[str, dict]:
    """instance_id -> (n, d, adjacency sum, X sum) read directly with pyarrow."""
    t = pq.read_table(folder / "data" / config, columns=["instance_id", "n_obs", "n_int", "d"])
    return {r["instance_id"]: {"n": r["n_obs"] + r["n_int"], "d": r["d"]} for r in t.to_pylist()}


def test_plain_datasets_numpy_streaming_types_and_shapes(mini_release):
    """No causalarena import: X (n, d) float32, mask (n, d) bool, adjacency (d, d) integer
    equal to the stored int8 (datasets' numpy format widens integers to int64; arrow keeps
    int8), in the config and in every fixed-d view."""
    out = _plain(
        """
        rows = {}
        for config in ("synthetic-obs", "synthetic-obs-d020"):
            ds = datasets.load_dataset(folder, config, split="test", streaming=True)
            for r in ds.with_format("numpy"):
                rows.setdefault(config, []).append({
                    "id": str(r["instance_id"]),
                    "X": [str(r["X"].dtype), list(r["X"].shape)],
                    "mask": [str(r["mask"].dtype), list(r["mask"].shape)],
                    "adj": [str(r["adjacency"].dtype), list(r["adjacency"].shape)],
                    "adj_sum": int(r["adjacency"].sum()),
                    "x00": float(r["X"][0, 0]),
                    "mask_any": bool(r["mask"].any()),
                })
            t = next(iter(ds.with_format("arrow")))
            ty = t.schema.field("adjacency").type
            out[config + "/arrow"] = str(getattr(ty, "storage_type", ty))
        out["rows"] = rows
        """,
        mini_release,
    )
    stored = _stored(mini_release, "synthetic-obs")
    table = pq.read_table(mini_release / "data" / "synthetic-obs")
    by_id = {r: i for i, r in enumerate(table.column("instance_id").to_pylist())}
    rows = out["rows"]
    assert len(rows["synthetic-obs"]) == 50 and len(rows["synthetic-obs-d020"]) == 10
    for config, got in rows.items():
        for r in got:
            n, d = stored[r["id"]]["n"], stored[r["id"]]["d"]
            assert r["X"] == ["float32", [n, d]]
            assert r["mask"] == ["bool", [n, d]]
            assert r["adj"] == ["int64", [d, d]]  # datasets' numpy format widens int8
            i = by_id[r["id"]]
            A = np.asarray(table.column("adjacency")[i].as_py(), dtype=np.int8)
            X = np.asarray(table.column("X")[i].as_py(), dtype=np.float32)
            assert r["adj_sum"] == int(A.sum()) > 0 and r["x00"] == float(X[0, 0])
        if config.endswith("d020"):
            assert {stored[r["id"]]["d"] for r in got} == {20}
    # the stored int8 reaches arrow-format readers unchanged (config: list<list<int8>>,
    # view: Array2D over the same storage)
    assert out["synthetic-obs/arrow"].endswith("int8>>")
    assert out["synthetic-obs-d020/arrow"].endswith("int8>>")


def test_adjacency_dtype_plain_datasets_returns_per_format(mini_release):
    """The adjacency is stored int8; plain datasets hands it over as int64 in the numpy and
    torch formats (their formatters widen every integer array, config and view alike), as
    int8 in the arrow format and as Python ints in the default format.  The README states
    this; causalarena.to_numpy casts back to int8."""
    out = _plain(
        """
        import importlib.util
        fmts = ["numpy", "arrow", None]
        if importlib.util.find_spec("torch"):
            fmts.append("torch")
        for config in ("synthetic-obs", "synthetic-obsint-d010"):
            ds = datasets.load_dataset(folder, config, split="test", streaming=True)
            for fmt in fmts:
                r = next(iter(ds.with_format(fmt) if fmt else ds))
                a = r["adjacency"]
                if fmt == "arrow":
                    ty = a.type
                    got = [str(getattr(ty, "storage_type", ty).value_type.value_type)]
                    a = np.asarray(a[0].as_py() if hasattr(a[0], "as_py") else a.to_pylist()[0])
                elif fmt is None:
                    got = [type(a).__name__, type(a[0][0]).__name__]
                    a = np.asarray(a)
                else:
                    got = [str(a.dtype).replace("torch.", "")]
                    a = np.asarray(a)
                out[f"{config}/{fmt}"] = got + [int(a.sum()), list(a.shape)]
            b = next(ds.with_format("numpy").iter(batch_size=2))["adjacency"]
            out[f"{config}/numpy-batch"] = str(b.dtype) if b.dtype != object else str(b[0].dtype)
        """,
        mini_release,
    )
    table = pq.read_table(mini_release / "data" / "synthetic-obs")
    assert str(table.schema.field("adjacency").type.value_type.value_type) == "int8"
    first = {}
    for config in ("synthetic-obs", "synthetic-obsint-d010"):
        assert out[f"{config}/numpy"][0] == "int64"
        assert out[f"{config}/numpy-batch"] == "int64"
        assert out[f"{config}/arrow"][0] == "int8"
        assert out[f"{config}/None"][:2] == ["list", "int"]
        if f"{config}/torch" in out:
            assert out[f"{config}/torch"][0] == "int64"
        sums = {
            tuple(map(str, v[-2:]))
            for k, v in out.items()
            if k.startswith(config + "/") and isinstance(v, list)
        }
        assert len(sums) == 1  # the same matrix whatever the format
        first[config] = out[f"{config}/numpy"][-2:]
    A = np.asarray(table.column("adjacency")[0].as_py(), dtype=np.int8)
    assert first["synthetic-obs"] == [int(A.sum()), list(A.shape)] and A.sum() > 0


def test_fixed_d_selections_batch_into_b_n_d(mini_release):
    """A fixed-d view and a d-filtered config both stack into (B, n, d) numpy batches."""
    out = _plain(
        """
        for name, ds in {
            "view": datasets.load_dataset(folder, "synthetic-obsint-d030", split="test", streaming=True),
            "filter": datasets.load_dataset(folder, "synthetic-obsint", split="test", streaming=True)
                .filter(lambda r: r["d"] == 30),
        }.items():
            shapes = []
            for b in ds.with_format("numpy").iter(batch_size=4):
                shapes.append([list(b["X"].shape), str(b["X"].dtype), list(b["mask"].shape),
                               str(b["mask"].dtype), list(b["adjacency"].shape)])
            out[name] = shapes
        """,
        mini_release,
    )
    n = {r["n"] for r in _stored(mini_release, "synthetic-obsint").values()}
    assert len(n) == 1
    (n,) = n
    for name in ("view", "filter"):
        assert [s[0] for s in out[name]] == [[4, n, 30], [4, n, 30], [2, n, 30]], name
        assert all(s[1] == "float32" and s[3] == "bool" and s[4][1:] == [30, 30] for s in out[name])


def test_views_cover_their_configs_exactly_once(mini_release):
    """The views of a config partition its rows by d (same shards, no copy)."""
    from causalarena.release.card import read_front_matter

    fm = read_front_matter(mini_release / "README.md")
    manifest = json.loads((mini_release / "manifest.json").read_text())
    for config in CONFIGS:
        views = [
            c
            for c in fm["configs"]
            if (m := VIEW_RE.match(c["config_name"])) and m["config"] == config
        ]
        paths = [p for v in views for p in v["data_files"][0]["path"]]
        shards = sorted(f["path"] for f in manifest["files"] if f["config"] == config)
        assert sorted(paths) == shards
        (n,) = {r["n"] for r in _stored(mini_release, config).values()}  # 1000 in both
        for v in views:
            d = int(VIEW_RE.match(v["config_name"])["d"])
            # datasets reads the Array2D features from the card's dataset_info (no script):
            # a fixed first dimension (every row of an arena config has the same n)
            ds = datasets.load_dataset(
                str(mini_release), v["config_name"], split="test", streaming=True
            )
            feats = ds.features
            assert feats["X"] == datasets.Array2D((n, d), "float32")
            assert feats["mask"] == datasets.Array2D((n, d), "bool")
            assert feats["adjacency"] == datasets.Array2D((d, d), "int8")
            # the view serves the join keys, shape columns and matrices only
            assert v["columns"] == list(VIEW_COLUMNS) == list(feats)
            assert list(next(iter(ds))) == list(VIEW_COLUMNS)
            for p in v["data_files"][0]["path"]:
                assert set(pq.read_table(mini_release / p, columns=["d"])["d"].to_pylist()) == {d}


def test_causalarena_load_serves_views_and_to_numpy_any_format(mini_release):
    import causalarena as ca

    ds = ca.load("synthetic-obs-d050", source=mini_release, streaming=True)
    rows = list(ds.with_format("numpy"))
    assert len(rows) == 10
    for r in rows:
        a = ca.to_numpy(r)
        n = int(r["n_obs"]) + int(r["n_int"])
        assert a["X"].dtype == np.float32 and a["X"].shape == (n, 50)
        assert a["mask"].dtype == np.bool_ and a["adjacency"].dtype == np.int8
        assert a["adjacency"].shape == (50, 50)
    with pytest.raises(ca.ReleaseError, match="no config 'synthetic-obs-d040'") as err:
        ca.load("synthetic-obs-d040", source=mini_release)
    assert "found: synthetic-obs, synthetic-obsint, synthetic-obs-d010" in str(
        err.value
    )  # no list repr


def test_with_format_torch(mini_release):
    torch = pytest.importorskip("torch")
    ds = datasets.load_dataset(
        str(mini_release), "synthetic-obs-d010", split="test", streaming=True
    )
    rows = list(ds.with_format("torch"))
    assert len(rows) == 10
    for r in rows:
        n = int(r["n_obs"]) + int(r["n_int"])
        assert r["X"].dtype == torch.float32 and tuple(r["X"].shape) == (n, 10)
        assert r["mask"].dtype == torch.bool and tuple(r["adjacency"].shape) == (10, 10)
    b = next(ds.with_format("torch").iter(batch_size=4))
    assert tuple(b["X"].shape) == (4, n, 10) and b["X"].dtype == torch.float32
    import causalarena as ca

    a = ca.to_numpy(rows[0])  # torch rows convert back to the stored dtypes
    assert a["X"].dtype == np.float32 and a["adjacency"].dtype == np.int8
    np.testing.assert_array_equal(a["X"], rows[0]["X"].numpy())


@pytest.mark.parametrize("world_size", [1, 2, 4, 8])
def test_split_dataset_by_node_gives_disjoint_shards(mini_release, world_size):
    """Every rank reads its own shards (not every shard with rows skipped), and the ranks
    together read every instance exactly once."""
    from datasets.distributed import split_dataset_by_node

    manifest = json.loads((mini_release / "manifest.json").read_text())
    for config in CONFIGS:
        ds = datasets.load_dataset(str(mini_release), config, split="test", streaming=True)
        total = ds.n_shards
        assert total == manifest["configs"][config]["shards"]
        if total % world_size:
            pytest.xfail(
                f"{config} has {total} shards, not a multiple of {world_size}: needs the "
                "[engine] shard counts in multiples of 8 (issue 9 section 2)"
            )
        seen: list[str] = []
        for rank in range(world_size):
            part = split_dataset_by_node(ds, rank=rank, world_size=world_size)
            assert part.n_shards == total // world_size  # shard-level split
            seen += [r["instance_id"] for r in part.select_columns(["instance_id"])]
        assert len(seen) == len(set(seen)) == manifest["configs"][config]["rows"]


def test_torch_dataloader_two_workers_yields_every_instance_once(mini_release):
    torch = pytest.importorskip("torch")
    ds = datasets.load_dataset(str(mini_release), "synthetic-obs", split="test", streaming=True)
    ds = ds.select_columns(["instance_id", "d", "X"]).with_format("torch")
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
    ids, dims = [], []
    for r in loader:
        ids.append(r["instance_id"])
        assert r["X"].dtype == torch.float32 and r["X"].shape[1] == int(r["d"])
        dims.append(int(r["d"]))
    want = set(_stored(mini_release, "synthetic-obs"))
    assert len(ids) == len(set(ids)) == len(want) and set(ids) == want


def test_croissant_urls_resolve_from_the_hub_once_published(mini_release, tmp_path):
    """With a Hub repo id the FileObjects point at resolve/v<version>/<path> and the FileSets
    live inside the repository; unpublished, the paths stay relative (tested elsewhere)."""
    pytest.importorskip("mlcroissant")
    import shutil

    from causalarena.release.croissant import build_croissant
    from causalarena.release.freeze import set_publication
    from causalarena.release.metadata import collect_metadata

    out = tmp_path / "rel"
    shutil.copytree(mini_release, out, symlinks=True)
    set_publication(out, hf_repo_id="org/arena-synthetic")
    meta = collect_metadata(out)
    js = build_croissant(out, meta)
    assert js["url"] == "https://huggingface.co/datasets/org/arena-synthetic"
    objs = [d for d in js["distribution"] if d["@type"] == "cr:FileObject"]
    repo = next(o for o in objs if o["@id"] == "hub-repository")
    assert repo["contentUrl"] == js["url"] and repo["encodingFormat"] == "git+https"
    shards = [o for o in objs if o["@id"] != "hub-repository"]
    assert shards and all(
        o["contentUrl"]
        == f"https://huggingface.co/datasets/org/arena-synthetic/resolve/v{meta.version}/{o['@id']}"
        for o in shards
    )
    sets = [d for d in js["distribution"] if d["@type"] == "cr:FileSet"]
    assert all(s["containedIn"] == {"@id": "hub-repository"} for s in sets)
    assert js["rai:dataImputationProtocol"].startswith("Rows whose 'difficulty' includes")
    assert "feature warping" in js["rai:dataManipulationProtocol"]
    x = next(
        f for f in js["recordSet"][0]["field"] if f["name"] == "X"
    )  # shape stated in terms of the record's columns
    assert x["cr:arrayShape"] == "-1,-1" and "(n_obs + n_int, d)" in x["description"]


def test_manifest_records_each_shards_d_and_the_views_follow(mini_release):
    from causalarena.schema import manifest_views

    manifest = json.loads((mini_release / "manifest.json").read_text())
    shards = [f for f in manifest["files"] if f.get("config")]
    for f in shards:
        assert {f["d"]} == set(
            pq.read_table(mini_release / f["path"], columns=["d"])["d"].to_pylist()
        )
    views = manifest_views(manifest)
    assert len(views) == 10 and all(
        len(v["files"]) == 8 and v["rows"] == 10 for v in views.values()
    )
    # a manifest without per-shard d (e.g. a shard mixing d) implies no views for that config
    stripped = {**manifest, "files": [{k: v for k, v in f.items() if k != "d"} for f in shards]}
    assert manifest_views(stripped) == {}
