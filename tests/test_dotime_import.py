"""DoTime interoperability: decoding its on-disk schema and importing suite folders (issue 14 §2)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causalarena.cli import main
from causalarena.generator.dotime.decode import (
    ENCODINGS,
    DoTimeFormatError,
    encode_rows,
    query_rows,
)

T, N = 50, 3


def _times(rng):
    return np.cumsum(rng.exponential(0.1, T)) - 0.05


@pytest.mark.parametrize("enc", ENCODINGS)
def test_every_time_encoding_round_trips(enc):
    rng = np.random.default_rng(0)
    times = _times(rng)
    rows = [0, 1, 17, 37, T - 2, T - 1]
    q = np.asarray(encode_rows(rows, T, enc, times), dtype=np.float32)  # DoTime stores float32
    assert query_rows(q.tolist(), T, enc, times) == rows


def test_wrong_encoding_is_refused_not_shifted():
    """index/T data read as index/(T-1) (DoTime's recorded off-by-one) is an error."""
    q = encode_rows([37], 200, "index/T")
    assert query_rows(q, 200, "index/T") == [37]
    with pytest.raises(DoTimeFormatError, match="not a whole row under 'index/\\(T-1\\)'"):
        query_rows(q, 200, "index/(T-1)")
    with pytest.raises(DoTimeFormatError, match="needs 200 observation times"):
        query_rows(q, 200, "time/span")


def _md5(p):
    return hashlib.md5(p.read_bytes()).hexdigest()


def _fixture(folder, name="dot-ContinuousIrregular-v1", schema="2", n=5, shard_size=3):
    """A DoTime suite folder written by hand in DoTime's documented schema."""
    rng = np.random.default_rng(1)
    folder.mkdir()
    truth, shards = [], []
    enc = {"dot-ContinuousIrregular-v1": "time/span", "dot-Identifiability-v1": "index/T"}[name]
    for s0 in range(0, n, shard_size):
        rows = []
        for i in range(s0, min(n, s0 + shard_size)):
            x_obs = rng.normal(size=(T, N)).astype(np.float32)
            x_int = (x_obs + 1).astype(np.float32)
            obs = rng.random((T, N)) > 0.2
            times = _times(rng)
            qrows = sorted(rng.choice(np.arange(10, T), 3, replace=False).tolist())
            q = np.asarray(encode_rows(qrows, T, enc, times), dtype=np.float32)
            y = x_int[qrows, 1]
            truth.append({"x_obs": x_obs, "obs": obs, "times": times, "rows": qrows, "y": y})
            row = {
                "scm_id": i,
                "structure": "backdoor",
                "tier": 1,
                "n_vars": N,
                "length": T,
                "x_obs": x_obs.reshape(-1).astype(np.float64).tolist(),
                "x_int": x_int.reshape(-1).astype(np.float64).tolist(),
                "intervention_json": json.dumps({"target": 0, "type": "hard", "value": 1.0}),
                "query_target": [1, 1, 1],
                "query_time": q.astype(np.float64).tolist(),
                "y_true": y.astype(np.float64).tolist(),
                "metadata_json": json.dumps({"structure": "backdoor"}),
            }
            if schema == "2":
                row["obs_times"] = times.tolist()
                row["obs_mask"] = obs.reshape(-1).tolist()
            rows.append(row)
        f = folder / f"shard-{len(shards):04d}.parquet"
        pq.write_table(pa.Table.from_pylist(rows), f)
        shards.append({"file": f.name, "n_episodes": len(rows), "md5": _md5(f)})
    manifest = {
        "name": name,
        "version": "1.2",
        "schema_version": schema,
        "package_version": "0.2.0",
        "seed": 7,
        "n_episodes": n,
        "structures": ["backdoor"],
        "license": "CC-BY-4.0",
        "shards": shards,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return truth


def _rows(out):
    shards = sorted((out / "data" / "dotime-episodes").glob("*.parquet"))
    return [r for s in shards for r in pq.read_table(s).to_pylist()]


def test_import_hand_written_schema2_fixture(tmp_path):
    truth = _fixture(tmp_path / "src")
    out = tmp_path / "rel"
    assert main(["temporal", "import-dotime", str(tmp_path / "src"), "--out", str(out), "-q"]) == 0
    rows = _rows(out)
    assert len(rows) == len(truth) == 5
    for r, t in zip(rows, truth, strict=True):
        assert r["query_time_encoding"] == "time/span"
        assert r["query_times"] == t["rows"]
        np.testing.assert_array_equal(np.asarray(r["x_obs"], dtype=np.float32), t["x_obs"])
        np.testing.assert_array_equal(np.asarray(r["mask"]), ~t["obs"])  # True = missing here
        np.testing.assert_array_equal(np.asarray(r["y_true"]), t["y"].astype(np.float64))
        np.testing.assert_array_equal(np.asarray(r["times"]), t["times"])
    assert [r["episode_id"] for r in rows][:2] == [
        "dot-ContinuousIrregular-v1/1.2/0000000",
        "dot-ContinuousIrregular-v1/1.2/0000001",
    ]
    m = json.loads((out / "manifest.json").read_text())
    assert m["source"]["name"] == "dot-ContinuousIrregular-v1"
    assert m["source"]["query_time_encoding"] == "time/span"
    assert str(tmp_path) not in json.dumps(m)  # no local path in the manifest
    assert main(["verify", str(out)]) == 0


def test_tampered_shard_is_refused_before_anything_is_written(tmp_path, capsys):
    _fixture(tmp_path / "src", name="dot-Identifiability-v1", schema="1")
    f = tmp_path / "src" / "shard-0001.parquet"
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0xFF
    f.write_bytes(bytes(b))
    out = tmp_path / "rel"
    assert main(["temporal", "import-dotime", str(tmp_path / "src"), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert "shard-0001.parquet: md5" in err and "Traceback" not in err
    assert not (out / "data").exists()


def test_unknown_suite_name_needs_an_explicit_encoding(tmp_path, capsys):
    _fixture(tmp_path / "src", name="dot-Identifiability-v1", schema="1")
    m = json.loads((tmp_path / "src" / "manifest.json").read_text())
    m["name"] = "my-own-suite"
    (tmp_path / "src" / "manifest.json").write_text(json.dumps(m))
    out = tmp_path / "rel"
    assert main(["temporal", "import-dotime", str(tmp_path / "src"), "--out", str(out), "-q"]) == 2
    assert "declares no query_time encoding for suite 'my-own-suite'" in capsys.readouterr().err
    argv = [
        "temporal",
        "import-dotime",
        str(tmp_path / "src"),
        "--out",
        str(out),
        "-q",
        "--time-encoding",
        "index/T",
    ]
    assert main(argv) == 0


@pytest.mark.parametrize("name", ["dot-Generic-100k", "dot-Identifiability-v1"])
def test_import_suite_written_by_dotime_itself(tmp_path, name):
    """A folder written by dotime 0.2.0's own writer; our rows equal dotime's own reader's."""
    pytest.importorskip("torch", reason="dotime needs torch")
    B = pytest.importorskip("dotime.benchmarks", reason="dotime==0.2.0 not installed (extra)")
    from dotime._release_io import read_suite, write_suite

    meta = next(v[name] for v in vars(B).values() if isinstance(v, dict) and name in v)
    eps = list(B._generate_fallback(meta, n=5))
    src = tmp_path / "src"
    write_suite(meta, eps, src, package_version="0.2.0", seed=0, shard_size=2)
    out = tmp_path / "rel"
    assert main(["temporal", "import-dotime", str(src), "--out", str(out), "-q"]) == 0
    theirs = list(read_suite(meta, src))
    ours = _rows(out)
    assert len(ours) == len(theirs) == 5
    for r, e in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(np.asarray(r["x_obs"], np.float32), e.x_obs.numpy())
        np.testing.assert_array_equal(np.asarray(r["x_int"], np.float32), e.x_int.numpy())
        assert r["query_times"] == list(e.metadata["query_time_idx"])
        np.testing.assert_array_equal(np.asarray(r["y_true"], np.float32), e.y_true.numpy())


def _rewrite(folder, shard, fn):
    """Apply ``fn`` to the rows of one shard and refresh its md5 in the manifest."""
    f = folder / shard
    rows = pq.read_table(f).to_pylist()
    fn(rows)
    pq.write_table(pa.Table.from_pylist(rows), f)
    m = json.loads((folder / "manifest.json").read_text())
    for s in m["shards"]:
        if s["file"] == shard:
            s["md5"] = _md5(f)
    (folder / "manifest.json").write_text(json.dumps(m))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda rows: rows[0].__setitem__("y_true", [float("inf")] * 3), "'y_true' has a non"),
        (lambda rows: rows[0].__setitem__("query_target", [-5, 1, 1]), "'query_target' = -5"),
        (
            lambda rows: rows[0].__setitem__("intervention_json", json.dumps({"target": 99})),
            "target 99 is outside 0..2",
        ),
        (lambda rows: rows[0].__setitem__("intervention_json", "{"), "not valid JSON"),
        (
            lambda rows: rows[0].__setitem__("x_int", [float("nan")] * (T * N)),
            "'x_int' has a non-finite value",
        ),
    ],
)
def test_corrupt_episodes_are_refused_naming_file_and_field(tmp_path, capsys, edit, message):
    """Found by the breaker: these imported silently (md5s recomputed, so only content checks
    can catch them)."""
    _fixture(tmp_path / "src", name="dot-Identifiability-v1", schema="1")
    _rewrite(tmp_path / "src", "shard-0000.parquet", edit)
    out = tmp_path / "rel"
    assert main(["temporal", "import-dotime", str(tmp_path / "src"), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and "shard-0000.parquet: episode 0" in err and "Traceback" not in err


def test_bad_manifests_are_clear_errors(tmp_path, capsys):
    _fixture(tmp_path / "src", name="dot-Identifiability-v1", schema="1")
    mp = tmp_path / "src" / "manifest.json"
    m = json.loads(mp.read_text())
    mp.write_text(json.dumps({**m, "n_episodes": -3}))
    argv = ["temporal", "import-dotime", str(tmp_path / "src"), "--out", str(tmp_path / "r"), "-q"]
    assert main(argv) == 2
    assert "'n_episodes' = -3" in capsys.readouterr().err
    mp.write_text(json.dumps({**m, "n_episodes": 4}))
    assert main(argv) == 2
    assert "'n_episodes' = 4 but the shards hold 5" in capsys.readouterr().err
    mp.write_text("[" * 50000 + "]" * 50000)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "not a readable DoTime manifest" in err and "internal error" not in err
