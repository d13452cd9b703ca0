"""Croissant metadata: mlcroissant validation, records equal datasets rows, broken files fail."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

mlc = pytest.importorskip("mlcroissant")

from causalarena.release.croissant import load_records, validate_croissant, write_croissant  # noqa: E402
from causalarena.release.metadata import collect_metadata  # noqa: E402


@pytest.fixture(scope="module")
def rel(mini_release, tmp_path_factory):
    """A copy of the mini release with croissant.json written."""
    out = tmp_path_factory.mktemp("croissant") / "rel"
    shutil.copytree(mini_release, out)
    write_croissant(out, collect_metadata(out))
    return out


@pytest.fixture
def copy(rel, tmp_path):
    """A fresh copy (real files, so a test may damage a shard)."""
    out = tmp_path / "rel"
    shutil.copytree(rel, out)
    return out


def _edit(folder: Path, fn) -> None:
    p = folder / "croissant.json"
    js = json.loads(p.read_text())
    fn(js)
    p.write_text(json.dumps(js))


def test_structure(rel):
    js = json.loads((rel / "croissant.json").read_text())
    manifest = json.loads((rel / "manifest.json").read_text())
    assert js["conformsTo"] == [
        "http://mlcommons.org/croissant/1.1",
        "http://mlcommons.org/croissant/RAI/1.0",
    ]
    assert js["rai:dataCollection"] and js["rai:dataLimitations"]
    objs = [d for d in js["distribution"] if d["@type"] == "cr:FileObject"]
    assert len(objs) == len(manifest["files"]) == 80
    assert {o["encodingFormat"] for o in objs} == {"application/x-parquet"}
    by_path = {f["path"]: f["sha256"] for f in manifest["files"]}
    assert all(o["sha256"] == by_path[o["contentUrl"]] for o in objs)
    sets = [d for d in js["distribution"] if d["@type"] == "cr:FileSet"]
    assert sorted(s["includes"] for s in sets) == [
        "data/synthetic-obs/*.parquet",
        "data/synthetic-obsint/*.parquet",
    ]
    rs = {r["@id"]: r for r in js["recordSet"]}
    fields = {f["name"]: f for f in rs["synthetic-obs"]["field"]}
    assert len(fields) == 26
    assert fields["X"]["dataType"] == "cr:Float32" and fields["X"]["cr:arrayShape"] == "-1,-1"
    assert fields["adjacency"]["dataType"] == "cr:Int8"
    assert (
        fields["variables"]["cr:isArray"] is True and fields["variables"]["cr:arrayShape"] == "-1"
    )
    assert "cr:isArray" not in fields["d"] and fields["d"]["dataType"] == "cr:Int32"


def test_validates_with_mlcroissant_cli(rel):
    exe = Path(sys.executable).with_name("mlcroissant")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "mlcroissant"]
    r = subprocess.run(
        [*cmd, "validate", "--jsonld", str(rel / "croissant.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert validate_croissant(rel) == []


def test_records_of_every_config_match_datasets(rel):
    """Every mlcroissant record equals the datasets row field by field; the matrix columns
    arrive as ndarrays of the stored dtype and shape (n_obs + n_int, d) / (d, d)."""
    import datasets
    import numpy as np

    manifest = json.loads((rel / "manifest.json").read_text())
    for config, info in manifest["configs"].items():
        recs = load_records(rel, config)
        assert len(recs) == info["rows"] == 50  # the zero-records trap fails here
        ds = datasets.load_dataset(str(rel), config, split="test")
        want = {r["instance_id"]: r for r in ds}
        got = {r["instance_id"]: r for r in recs}
        assert set(got) == set(want)
        for iid, row in want.items():
            assert set(got[iid]) == set(row)
            n, d = row["n_obs"] + row["n_int"], row["d"]
            for k, v in row.items():
                g = got[iid][k]
                if k in ("X", "mask", "adjacency"):
                    dtype = {"X": np.float32, "mask": np.bool_, "adjacency": np.int8}[k]
                    shape = (d, d) if k == "adjacency" else (n, d)
                    assert isinstance(g, np.ndarray) and g.dtype == dtype and g.shape == shape
                    np.testing.assert_array_equal(g, np.asarray(v, dtype=dtype))
                else:
                    assert g == v, (config, iid, k)


def test_fileset_that_loads_zero_records_is_caught(copy):
    """mlcroissant validation passes, but the record set is empty: the count check fails."""

    def bad(js):
        for d in js["distribution"]:
            if d["@type"] == "cr:FileSet":
                d["includes"] = d["includes"].replace("data/", "./data/")

    _edit(copy, bad)
    mlc.Dataset(jsonld=str(copy / "croissant.json"))  # still "valid"
    assert len(load_records(copy, "synthetic-obs")) == 0
    probs = validate_croissant(copy, records=True)
    assert probs and any("includes" in p or "0 records" in p for p in probs)


def test_wrong_checksum_fails(copy):
    def bad(js):
        js["distribution"][0]["sha256"] = "0" * 64

    _edit(copy, bad)
    assert any("sha256" in p for p in validate_croissant(copy))


def test_missing_field_fails(copy):
    def bad(js):
        js["recordSet"][0]["field"] = [
            f for f in js["recordSet"][0]["field"] if f["name"] != "mask"
        ]

    _edit(copy, bad)
    assert any("no field for column mask" in p for p in validate_croissant(copy))


def test_wrong_type_and_encoding_fail(copy):
    def bad(js):
        js["distribution"][1]["encodingFormat"] = "application/parquet"
        for f in js["recordSet"][0]["field"]:
            if f["name"] == "X":
                f.pop("cr:arrayShape")
                f.pop("cr:isArray")

    _edit(copy, bad)
    probs = validate_croissant(copy)
    assert any("encodingFormat" in p for p in probs)
    assert any("/X array declaration" in p for p in probs)


def test_changed_shard_fails(copy):
    from conftest import shard_of

    p = shard_of(copy, "synthetic-obs", "chain", 10)
    b = bytearray(p.read_bytes())
    b[2000] ^= 0xFF
    p.write_bytes(bytes(b))
    assert any(p.name in q and "does not match" in q for q in validate_croissant(copy))


def test_missing_required_property_fails_mlcroissant(copy):
    _edit(copy, lambda js: js.pop("license"))
    assert any("required property 'license'" in p for p in validate_croissant(copy))
    _edit(copy, lambda js: js["recordSet"][0]["field"][0]["source"].pop("fileSet"))
    probs = validate_croissant(copy)
    assert probs and "mlcroissant validation failed" in probs[0]


def test_unfrozen_release_validates_without_the_date_published_warning(copy, caplog):
    # an unfrozen release has no date yet: mlcroissant's lone datePublished warning is dropped
    assert "datePublished" not in json.loads((copy / "croissant.json").read_text())
    caplog.set_level("WARNING", logger="absl")
    assert validate_croissant(copy) == []
    assert not [r for r in caplog.records if "datePublished" in r.getMessage()]
    # any other mlcroissant warning still reaches the log
    _edit(copy, lambda js: js.pop("citeAs"))
    caplog.clear()
    validate_croissant(copy)
    msgs = [r.getMessage() for r in caplog.records if r.name == "absl"]
    assert msgs and any("citeAs" in m or "citation" in m.lower() for m in msgs), msgs
