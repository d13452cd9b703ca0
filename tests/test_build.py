"""Release building: schema, manifest, loading through datasets, determinism, resume, verify."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena import SCMSpec, load, sample, to_numpy
from causalarena.generator.rows import ROW_SCHEMA
from causalarena.release.engine import build
from causalarena.release.io import sha256_file
from causalarena.release.verify import verify
from conftest import shard_of


def _shas(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): sha256_file(p) for p in sorted(folder.rglob("*.parquet"))
    }


def test_manifest_lists_every_shard_with_checksums(mini_release):
    m = json.loads((mini_release / "manifest.json").read_text())
    assert m["suite"] == "arena-synthetic" and m["scale"] == "mini"
    assert m["configs"]["synthetic-obs"]["rows"] == 50
    assert m["configs"]["synthetic-obsint"]["rows"] == 50
    # 8 shards per d and config (40 per config): multiples of 8 for split_dataset_by_node, and
    # every shard holds one d (the card's fixed-d views)
    assert len(m["files"]) == 80
    assert all(m["configs"][c]["shards"] == 40 for c in m["configs"])
    for f in m["files"]:
        p = mini_release / f["path"]
        assert p.stat().st_size == f["bytes"] and sha256_file(p) == f["sha256"]
        assert pq.ParquetFile(p).metadata.num_rows == f["rows"]
        assert len(set(pq.read_table(p, columns=["d"])["d"].to_pylist())) == 1
    assert verify(mini_release) == []
    assert {"numpy", "pyarrow", "datasets"} <= set(m["environment"]["dependencies"])


def test_every_shard_has_the_same_schema(mini_release):
    for p in sorted((mini_release / "data").rglob("*.parquet")):
        assert pq.read_schema(p).remove_metadata().equals(ROW_SCHEMA), p


def test_card_declares_configs(mini_release):
    text = (mini_release / "README.md").read_text()
    assert "config_name: synthetic-obs" in text and "path: data/synthetic-obsint/*.parquet" in text


def test_rows_are_consistent_with_their_spec(mini_release):
    t = pq.read_table(shard_of(mini_release, "synthetic-obsint", "chain", 20)).to_pylist()
    row = to_numpy(next(r for r in t if (r["graph_family"], r["d"]) == ("chain", 20)))
    spec = SCMSpec.from_json(row["spec"])
    assert row["graph_family"] == "chain" and row["d"] == 20 == spec.d
    np.testing.assert_array_equal(row["adjacency"], spec.adjacency())
    assert row["X"].shape == (1000, 20) and row["mask"].shape == (1000, 20)
    assert not row["mask"][:800].any() and (row["mask"][800:].sum(axis=1) >= 1).all()
    masked = {spec.names[j] for j in np.flatnonzero(row["mask"].any(axis=0))}
    assert masked <= set(row["intervention_targets"])
    # the stored X is exactly what the spec samples with the recorded seed
    from causalarena.generator.synthetic.family import sample_dataset
    from causalarena.generator.synthetic.suites import get_suite

    again = sample_dataset(get_suite("arena-synthetic"), spec, row["scm_index"], "obsint", 0)
    np.testing.assert_array_equal(again.X, row["X"])
    np.testing.assert_array_equal(again.mask, row["mask"])


def test_factor_columns_cover_the_grid(mini_release):
    t = pq.read_table(mini_release / "data", columns=["graph_family", "d", "setting"]).to_pylist()
    grid = {(r["graph_family"], r["d"]) for r in t}
    assert len(grid) == 50
    assert {r["setting"] for r in t} == {"obs", "obsint"}


@pytest.mark.parametrize("streaming", [False, True])
def test_load_with_datasets_offline(mini_release, streaming):
    ds = load("synthetic-obsint", source=mini_release, streaming=streaming)
    rows = list(ds)
    assert len(rows) == 50
    first = to_numpy(rows[0])
    d = len(first["variables"])
    assert first["X"].shape == (first["n_obs"] + first["n_int"], d)
    assert first["X"].dtype == np.float32 and first["adjacency"].dtype == np.int8
    ids = sorted(r["instance_id"] for r in rows)
    ref = sorted(
        pq.read_table(mini_release / "data/synthetic-obsint", columns=["instance_id"])
        .column(0)
        .to_pylist()
    )
    assert ids == ref


def test_two_workers_give_identical_bytes(mini_release, tmp_path):
    other = build("arena-synthetic", scale="mini", out=tmp_path / "w2", workers=2, quiet=True)
    assert _shas(other) == _shas(mini_release)
    assert (other / "manifest.json").read_bytes() == (mini_release / "manifest.json").read_bytes()
    assert (other / "README.md").read_bytes() == (mini_release / "README.md").read_bytes()


def test_resume_rebuilds_only_damaged_blocks(mini_release, tmp_path):
    import shutil

    folder = tmp_path / "resume"
    shutil.copytree(mini_release, folder)
    gone = shard_of(folder, "synthetic-obs", "tree", 10)
    gone.unlink()
    bad = shard_of(folder, "synthetic-obsint", "layered", 30)
    bad.write_bytes(bad.read_bytes()[:-10])
    keep = shard_of(folder, "synthetic-obs", "erdos_renyi", 10)
    before = keep.stat().st_mtime_ns
    problems = {(p["path"], p["problem"]) for p in verify(folder)}
    assert problems == {
        (gone.relative_to(folder).as_posix(), "missing"),
        (bad.relative_to(folder).as_posix(), "size"),
    }
    build("arena-synthetic", scale="mini", out=folder, quiet=True)
    assert keep.stat().st_mtime_ns == before  # untouched: skipped by checksum
    assert _shas(folder) == _shas(mini_release)
    assert verify(folder) == []


def test_verify_reports_corruption_and_extras(mini_release, tmp_path):
    import shutil

    folder = tmp_path / "v"
    shutil.copytree(mini_release, folder)
    p = shard_of(folder, "synthetic-obs", "chain", 10)
    data = bytearray(p.read_bytes())
    data[100] ^= 0xFF
    p.write_bytes(bytes(data))
    (folder / "data/synthetic-obs/stray.parquet").write_bytes(b"x")
    problems = {(q["path"], q["problem"]) for q in verify(folder)}
    assert problems == {
        (p.relative_to(folder).as_posix(), "sha256"),
        ("data/synthetic-obs/stray.parquet", "extra"),
    }
    from causalarena.cli import main

    assert main(["verify", str(folder)]) == 1
    assert main(["verify", str(mini_release)]) == 0


def test_bad_arguments_fail_clearly(tmp_path):
    with pytest.raises(ValueError, match="unknown suite"):
        build("arena-nope", out=tmp_path)
    with pytest.raises(ValueError, match="unknown scale"):
        build("arena-synthetic", scale="huge", out=tmp_path)
    from causalarena.errors import ReleaseError

    with pytest.raises(ReleaseError, match="no manifest.json"):  # not a release folder
        load("synthetic-nope", source=Path(__file__).parent)
    with pytest.raises(ReleaseError, match="no config"):
        load("synthetic-nope", source=Path(__file__).parent, verification="none")


def test_sample_is_independent_of_process_state():
    """Same spec and seed in a fresh interpreter gives the same bytes (no global RNG)."""
    import subprocess
    import sys

    from causalarena.generator.synthetic import draw_spec

    spec = draw_spec(5, 321, 0)
    here = sample(spec, 50, 10, seed=3).X.tobytes()
    code = (
        "import sys,causalarena as ca;from causalarena.generator.synthetic import draw_spec;"
        "import numpy as np;np.random.seed(123);"
        "sys.stdout.buffer.write(ca.sample(draw_spec(5,321,0),50,10,seed=3).X.tobytes())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, env={**os.environ}
    ).stdout
    assert out == here


def test_build_refuses_foreign_or_mismatched_folders(mini_release, tmp_path):
    from causalarena.errors import ReleaseError

    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("my thesis")
    with pytest.raises(ReleaseError, match="not a causalarena release"):
        build("arena-synthetic", scale="mini", out=foreign, quiet=True)
    assert (foreign / "notes.txt").read_text() == "my thesis"
    with pytest.raises(
        ReleaseError, match=r"holds the release arena-synthetic 1\.0\.0 \(mini\), not"
    ):
        build("arena-synthetic", scale="full", out=mini_release, quiet=True)
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(ReleaseError, match="not a folder"):
        build("arena-synthetic", out=f, quiet=True)


def test_resume_ignores_blocks_built_for_another_key(mini_release):
    from causalarena.family import family_of
    from causalarena.release.engine import build_key, unit_is_done

    fam = family_of("arena-synthetic")
    mini = fam.units("arena-synthetic", "mini", {})[0]
    full = fam.units("arena-synthetic", "full", {})[0]
    assert unit_is_done(mini_release, mini, build_key(fam, mini)) is not None
    assert unit_is_done(mini_release, full, build_key(fam, full)) is None


def test_load_is_not_served_from_a_stale_cache(mini_release, tmp_path):
    import shutil

    from causalarena.errors import ReleaseError

    copy = tmp_path / "release"
    shutil.copytree(mini_release, copy)
    shards = sorted((copy / "data/synthetic-obs").glob("*.parquet"))
    ones = [s for s in shards if pq.read_metadata(s).num_rows == 1]  # two 1-row shards
    shards = [ones[0], ones[1], shards[-1]]
    before = set(load("synthetic-obs", source=copy)["instance_id"])
    assert len(before) == 50
    # same folder name and row count, different content: refused (never served from a cache)
    shutil.copyfile(shards[0], shards[1])
    with pytest.raises(ReleaseError, match=shards[1].name):
        load("synthetic-obs", source=copy)
    # opting out of verification reads the files as they are, still not from the cache
    after = load("synthetic-obs", source=copy, verification="none")["instance_id"]
    assert len(after) == 50 and len(set(after)) == 49
    # a damaged release fails loudly, naming the folder and the way to find the damage
    shards[2].unlink()
    with pytest.raises(ReleaseError, match=f"missing: data/synthetic-obs/{shards[2].name}"):
        load("synthetic-obs", source=copy)


def test_cli_exit_codes(mini_release, tmp_path, capsys):
    from causalarena.cli import main

    assert main(["verify", str(tmp_path / "nope")]) == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text("[]")
    assert main(["verify", str(bad)]) == 2
    assert "must be a JSON object" in capsys.readouterr().err
    (bad / "manifest.json").write_text(
        '{"suite": "a", "version": "1", "scale": "mini", "configs": {},'
        ' "files": [{"path": "../../etc/passwd", "bytes": 1, "sha256": "x"}]}'
    )
    assert main(["verify", str(bad)]) == 2
    assert "inside the folder" in capsys.readouterr().err
    assert main(["build", "arena-synthetic", "--out", str(bad / "manifest.json"), "--quiet"]) == 2


def test_release_files_are_world_readable(mini_release):
    for p in [
        mini_release / "manifest.json",
        mini_release / "README.md",
        *sorted((mini_release / "data").rglob("*.parquet"))[:3],
    ]:
        assert p.stat().st_mode & 0o044 == 0o044, p


def test_no_local_path_in_manifest_or_metadata(mini_release):
    for name in ("manifest.json", "README.md", "croissant.json", "CITATION.cff", ".zenodo.json"):
        text = (mini_release / name).read_text()
        assert str(mini_release.parent) not in text and "/tmp/" not in text, name
