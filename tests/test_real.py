"""Real-data track: registry, loaders, checksums, downloads, build, load and score."""

from __future__ import annotations

import csv
import functools
import hashlib
import http.server
import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from causalarena.generator.real import (
    REGISTRY,
    MissingSourceError,
    RealDataError,
    SourceChecksumError,
    SourceFile,
    chamber_graph,
    drop_constant_columns,
    expand_adjacency,
    fetch,
    fit_without_constant_columns,
    induced_subgraph,
    is_acyclic,
    load_real,
    lt_experiment_target,
    resolve,
    source_file,
    subsample,
)
from causalarena.generator.real.registry import LT_EXPERIMENTS, WT_REGIME_TARGETS
from causalarena.generator.real.sources import registry


def _real_dir() -> Path:
    """$CAUSALARENA_REAL_DATA, else ``shared/data/real`` beside the repository (as in CI)."""
    import os

    env = os.environ.get("CAUSALARENA_REAL_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "data" / "real"


REAL = _real_dir()
needs_data = pytest.mark.skipif(not REAL.is_dir(), reason="shared real-data copies not present")

CDCSG = {  # dataset -> (file stem, columns)
    "cdcsg-abalone": ("abalone", 8),
    "cdcsg-autompg": ("autompg", 4),
    "cdcsg-cardiac-arrhythmia": ("cad", 4),
    "cdcsg-concrete": ("concrete", 9),
    "cdcsg-dwd": ("dwd", 5),
    "cdcsg-ozone": ("ozone", 4),
}


# --------------------------------------------------------------------------- independent counts
def _sachs_condition_counts() -> dict[int, int]:
    counts: dict[int, int] = {}
    with open(REAL / "sachs/aci_sachs_14conditions.tsv") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    for r in rows[1:]:
        counts[int(float(r[-1]))] = counts.get(int(float(r[-1])), 0) + 1
    return counts


def _nonblank_rows(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines() if ln.strip()]


def _petshop_expected(scenario: str) -> dict[str, int]:
    base = REAL / "petshop" / scenario
    with open(base / "graph.csv") as fh:
        g = list(csv.reader(fh))
    edges = sum(float(x) != 0 for r in g[1:] for x in r[1:])
    n_obs = len((base / "noissue/metrics.csv").read_text().strip().splitlines()) - 4
    episodes = sorted(base.glob("*/issue_*/metrics.csv"))
    n_int = sum(len(p.read_text().strip().splitlines()) - 4 for p in episodes)
    roots = {
        json.loads((p.parent / "target.json").read_text())["root_cause"]["node"] for p in episodes
    }
    return {"d": len(g) - 1, "edges": edges, "n_obs": n_obs, "n_int": n_int, "targets": len(roots)}


def build_real(out, data, *, quiet=True, **options):
    """Build arena-real through the engine; return the built/unavailable summary."""
    from causalarena.release.engine import build
    from causalarena.release.manifest import read_manifest

    m = read_manifest(
        build("arena-real", scale="full", out=out, quiet=quiet, real_data_dir=data, **options)
    )
    return {"built": m["datasets"], "unavailable": m["unavailable"]}


def _row(out, config, dataset):
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "data" / config).to_pylist()
    return next(r for r in rows if r["scm_id"] == f"real-{dataset}")


@pytest.fixture(scope="module")
def real_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "release"
    summary = build_real(out, REAL, quiet=True)
    return out, summary


# ------------------------------------------------------------------------------------ registry
def test_registry_entries_are_complete():
    assert len(REGISTRY) == 13
    for ds in REGISTRY.values():
        assert ds.citation.startswith("@")
        assert ds.licence and ds.variables and ds.preprocessing and ds.intervention_encoding
        assert ds.graphs[0].name == ds.reference_graph
        for f in ds.files:
            assert f.url.startswith("https://")
            assert f.sha256 or f.md5 or "temporal_traffic" in f.path, f.path
    sachs = REGISTRY["sachs"]
    assert sachs.reference_graph == "bnlearn-17"
    assert sachs.alternative_references == ("cdt-18", "jci-19", "cmu-20")
    assert {f.path: f.sha256 for f in sachs.files}["sachs/bnlearn_sachs.bif"] == (
        "b7bd3931192f9e529f0f88bba15fca6cc61ba3c805d5c8ae57eba57ed3b332ec"
    )


# --------------------------------------------------------------------------------------- build
@needs_data
def test_build_reproduces_counts(real_release):
    out, summary = real_release
    built, unavailable = summary["built"], summary["unavailable"]
    # Sachs: 11 proteins, 17 reference edges, conditions 1-2 observational
    counts = _sachs_condition_counts()
    assert sorted(counts) == list(range(1, 15))
    s = built["sachs"]
    assert (s["columns"], s["edges"], s["rows"]) == (11, 17, sum(counts.values()))
    assert s["rows_obs"] == counts[1] + counts[2] == 853 + 902
    assert s["interventions"] == sum(counts.values()) - counts[1] - counts[2]
    assert s["intervention_targets"] == 6  # Akt, PKC, PIP2, Mek, PIP3, PKA
    # CD-CSG
    for name, (stem, d) in CDCSG.items():
        rows = _nonblank_rows(REAL / f"cdcsg/{stem}.txt")
        gt = np.array(_nonblank_rows(REAL / f"cdcsg/{stem}_gt.txt"), dtype=float)
        if stem == "autompg":
            rows = [r for r in rows if float(r[1]) != 0]
            assert len(rows) == 392
        b = built[name]
        assert (b["rows"], b["columns"], b["edges"], b["interventions"]) == (
            len(rows),
            d,
            int(gt.sum()),
            0,
        )
    # PetShop with noissue data
    for scenario in ("high_traffic", "low_traffic"):
        e = _petshop_expected(scenario)
        b = built[f"petshop-{scenario.replace('_', '-')}"]
        assert (b["columns"], b["edges"], b["rows_obs"], b["interventions"]) == (
            e["d"],
            e["edges"],
            e["n_obs"],
            e["n_int"],
        )
        assert b["intervention_targets"] == e["targets"]
    assert built["petshop-high-traffic"]["columns"] == 44
    assert built["petshop-high-traffic"]["edges"] == 47
    # unavailable datasets name the missing file
    assert set(unavailable) == {
        "petshop-temporal-traffic1",
        "petshop-temporal-traffic2",
        "chambers-light-tunnel",
        "chambers-wind-tunnel",
    }
    assert "temporal_traffic1/noissue/metrics.csv" in unavailable["petshop-temporal-traffic1"]
    assert "lt_interventions_standard_v1.zip" in unavailable["chambers-light-tunnel"]
    assert "476664d024f88e8b7640998bb5e9ee33" in unavailable["chambers-light-tunnel"]


@needs_data
def test_shards_schema_manifest_and_metadata(real_release):
    import pyarrow.parquet as pq

    from causalarena.generator.real.family import REAL_ROW_SCHEMA
    from causalarena.release.manifest import read_manifest
    from causalarena.release.verify import verify

    out, summary = real_release
    for config in ("real-obs", "real-obsint"):
        shards = sorted((out / "data" / config).glob("*.parquet"))
        assert shards
        for s in shards:
            assert pq.read_schema(s).remove_metadata().equals(REAL_ROW_SCHEMA)
    # 9 real-obs rows -> 8 shards (a multiple of 8), 3 real-obsint rows -> 1 shard
    assert len(list((out / "data/real-obs").glob("*.parquet"))) == 8
    assert len(list((out / "data/real-obsint").glob("*.parquet"))) == 1
    m = read_manifest(out)
    assert (m["suite"], m["version"], m["scale"], m["family"]) == (
        "arena-real",
        "1.0.0",
        "full",
        "real",
    )
    assert "not independently verified" in m["reference_caveat"]
    assert all("redistributable" in d and "licence" in d for d in m["datasets"].values())
    assert m["configs"]["real-obs"]["rows"] == 9 and m["configs"]["real-obsint"]["rows"] == 3
    assert set(m["unavailable"]) == set(summary["unavailable"])
    assert verify(out) == []
    for name in ("manifest.json", "README.md", "CITATION.cff", ".zenodo.json"):
        text = (out / name).read_text()
        assert str(REAL) not in text and str(out.parent) not in text  # no local paths
    row = _row(out, "real-obsint", "sachs")
    spec = json.loads(row["spec"])
    assert spec["family"] == "real" and spec["executable"] is False
    alts = json.loads(row["alternative_references"])
    assert {k: v["n_edges"] for k, v in alts.items()} == {"cdt-18": 18, "jci-19": 19, "cmu-20": 20}
    assert alts["jci-19"]["acyclic"] is False
    assert row["reference_graph_name"] == "bnlearn-17" and row["graph_family"] == "real"
    X = np.asarray(row["X"])
    mask = np.asarray(row["mask"])
    assert (
        not mask[: row["n_obs"]].any()
        and mask[row["n_obs"] :].sum(axis=1).tolist() == [1] * row["n_int"]
    )
    assert X.shape == (row["n_obs"] + row["n_int"], 11)
    obs = _row(out, "real-obs", "petshop-high-traffic")
    assert obs["n_int"] == 0 and obs["constant_columns"]  # nodes without metrics are constant
    assert set(obs["constant_columns"]) <= set(obs["variables"])


@needs_data
def test_load_and_read_truth(real_release):
    import causalarena as ca
    from causalarena.eval.score import read_truth

    out, _ = real_release
    ds = ca.load("real-obs", source=out)
    assert ds.num_rows == 9
    rows = {r["instance_id"]: ca.to_numpy(r) for r in ds}
    sachs = rows["real-sachs/obs/r0"]
    assert sachs["X"].shape == (1755, 11) and sachs["adjacency"].sum() == 17
    truth = read_truth(out, "real-obsint")
    assert truth["real-sachs/obsint/r0"]["adjacency"].sum() == 17
    assert truth["real-sachs/obsint/r0"]["n"] == 11672


@needs_data
def test_runner_random_regress(real_release, tmp_path):
    pytest.importorskip("causalarena.baselines.registry")
    from causalarena.eval.runner import run
    from causalarena.eval.score import score_predictions

    out, _ = real_release
    res = run(out, "real-obs", ["random-regress"], tmp_path / "pred", quiet=True, timeout=120)
    assert res["counts"]["random-regress"].get("ok", 0) == 9
    scores = score_predictions(out, tmp_path / "pred")
    assert len(scores) == 9 and scores["f1"].notna().all()


# ------------------------------------------------------------------------ corrupt / missing
@needs_data
def test_damaged_file_names_file_and_checksum(tmp_path):
    data = tmp_path / "real"
    shutil.copytree(REAL / "cdcsg", data / "cdcsg")
    p = data / "cdcsg/dwd.txt"
    p.write_bytes(p.read_bytes()[:-10] + b"9999999999")
    expected = REGISTRY["cdcsg-dwd"].file("cdcsg/dwd.txt").sha256
    with pytest.raises(SourceChecksumError) as ei:
        build_real(tmp_path / "out", data, quiet=True, datasets=["cdcsg-dwd", "cdcsg-ozone"])
    assert str(p) in str(ei.value) and expected in str(ei.value)
    # every source is verified before anything is written: no shard, part or manifest
    out = tmp_path / "out"
    assert not (out / "data").exists() and not (out / "manifest.json").exists()
    assert not (out / ".build" / "parts").exists()


@needs_data
def test_missing_file_reported_unavailable(tmp_path):
    data = tmp_path / "real"
    shutil.copytree(REAL / "cdcsg", data / "cdcsg")
    (data / "cdcsg/ozone_gt.txt").unlink()
    sha = REGISTRY["cdcsg-ozone"].file("cdcsg/ozone_gt.txt").sha256
    with pytest.raises(MissingSourceError, match=sha):
        load_real("cdcsg-ozone", data)
    s = build_real(tmp_path / "out", data, quiet=True, datasets=["cdcsg-ozone", "cdcsg-dwd"])
    assert list(s["built"]) == ["cdcsg-dwd"]
    assert "ozone_gt.txt" in s["unavailable"]["cdcsg-ozone"]
    assert sha in s["unavailable"]["cdcsg-ozone"]


@needs_data
def test_autompg_missing_option():
    kept = load_real("cdcsg-autompg", REAL, autompg_missing="keep")
    dropped = load_real("cdcsg-autompg", REAL)
    assert kept.X.shape == (398, 4) and dropped.X.shape == (392, 4)
    assert (kept.X[:, 1] == 0).sum() == 6 and (dropped.X[:, 1] == 0).sum() == 0
    with pytest.raises(ValueError, match="autompg_missing"):
        load_real("cdcsg-autompg", REAL, autompg_missing="zero")


# ------------------------------------------------------------------------------- download
@pytest.fixture
def http_dir(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield root, f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_download_verifies_sha256(http_dir, tmp_path):
    """pooch path: a good file is stored, a tampered one is refused and never reaches the cache."""
    root, base = http_dir
    payload = b"0 1\n0 0\n"
    (root / "g.txt").write_bytes(payload)
    sha = hashlib.sha256(payload).hexdigest()
    sf = SourceFile(path="x/g.txt", url=f"{base}/g.txt", sha256=sha, bytes=len(payload))
    dest = fetch(sf, tmp_path / "cache", retries=0)
    assert dest == tmp_path / "cache/x/g.txt" and dest.read_bytes() == payload
    # the server now serves tampered bytes: refused, the destination is not created
    (root / "g.txt").write_bytes(b"0 1\n1 0\n")
    with pytest.raises(SourceChecksumError, match=sha):
        fetch(sf, tmp_path / "fresh", retries=0)
    assert not (tmp_path / "fresh/x/g.txt").exists()
    assert not [p for p in (tmp_path / "fresh").rglob("*") if p.is_file()]
    # a damaged cached copy is downloaded again -- and refused again while the server is bad
    dest.write_bytes(b"garbage")
    with pytest.raises(SourceChecksumError):
        resolve(sf, cache_dir=tmp_path / "cache", retries=0)
    (root / "g.txt").write_bytes(payload)
    assert resolve(sf, cache_dir=tmp_path / "cache", retries=0).read_bytes() == payload
    absent = SourceFile(path="x/absent.txt", url=f"{base}/absent.txt", sha256=sha)
    with pytest.raises(MissingSourceError, match="404|Not Found"):
        resolve(absent, cache_dir=tmp_path / "cache", retries=0)
    # resolve(): second call served from the verified cache, server not needed
    (root / "g.txt").unlink()
    assert resolve(sf, cache_dir=tmp_path / "cache") == dest
    wrong = SourceFile(path="x/h.txt", url=f"{base}/g.txt", sha256="1" * 64)
    with pytest.raises(MissingSourceError):
        resolve(wrong, cache_dir=tmp_path / "cache", download_missing=False)
    # offline mode checks a cached copy too
    with pytest.raises(SourceChecksumError, match="1" * 64):
        resolve(SourceFile("x/g.txt", sf.url, "1" * 64), cache_dir=tmp_path / "cache",
                download_missing=False)  # fmt: skip


def test_md5_zip_is_unzipped_by_pooch(http_dir, tmp_path):
    import zipfile

    import pooch

    root, base = http_dir
    with zipfile.ZipFile(root / "d.zip", "w") as z:
        z.writestr("d/a.csv", "x,y\n1,2\n")
        z.writestr("d/b.csv", "x,y\n3,4\n")
    md5 = hashlib.md5((root / "d.zip").read_bytes(), usedforsecurity=False).hexdigest()
    sf = SourceFile(path="chambers/d.zip", url=f"{base}/d.zip", sha256=None, md5=md5)
    names = fetch(sf, tmp_path / "c", processor=pooch.Unzip(), retries=0)
    got = {Path(n).name: Path(n).read_text() for n in names}
    assert got == {"a.csv": "x,y\n1,2\n", "b.csv": "x,y\n3,4\n"}
    bad = SourceFile(path="chambers/e.zip", url=f"{base}/d.zip", sha256=None, md5="0" * 32)
    with pytest.raises(SourceChecksumError, match="md5 " + "0" * 32):
        fetch(bad, tmp_path / "c", processor=pooch.Unzip(), retries=0)
    assert not (tmp_path / "c/chambers/e.zip").exists()
    assert not (tmp_path / "c/chambers/e.zip.unzip").exists()


def test_registry_file_is_pooch_format_and_complete():
    from importlib.resources import files

    import pooch

    reg = registry()
    pup = pooch.create(path="unused", base_url="")
    with files("causalarena.generator.real").joinpath("sources.txt").open() as fh:
        pup.load_registry(fh)  # pooch's own parser reads the same table
    assert {
        p: (None if h == "unpinned" else h, pup.urls[p]) for p, h in pup.registry.items()
    } == reg
    assert len(reg) == 178  # 176 files copied from git repositories + 2 Causal Chambers zips
    unpinned = sorted(p for p, (h, _) in reg.items() if h is None)
    assert unpinned == [
        "petshop/temporal_traffic1/noissue/metrics.csv",
        "petshop/temporal_traffic2/noissue/metrics.csv",
    ]
    sf = source_file("cdcsg/abalone.txt")
    assert sf.origin == (
        "LawrenceZhao9676/CD-CSG@22e944d345b1610b0fdeff26a09246cf5b5c1227:"
        "real-world data/abalone.txt"
    )
    assert sf.url.endswith("/real-world%20data/abalone.txt") and sf.verification == "sha256"
    z = REGISTRY["chambers-light-tunnel"].file("chambers/lt_interventions_standard_v1.zip")
    assert z.verification == "md5" and z.md5 == "476664d024f88e8b7640998bb5e9ee33"
    with pytest.raises(KeyError):
        source_file("cdcsg/nosuch.txt")


@needs_data
def test_every_local_copy_matches_the_registry():
    """The offline folder verifies file by file against the pooch registry (no network)."""
    from causalarena.generator.real.sources import check_file

    present = [p for p in registry() if (REAL / p).is_file()]
    assert len(present) >= 170
    for p in present:
        sf = source_file(p)
        check_file(REAL / p, sf, allow_unpinned=True)


# ------------------------------------------------------------------------------- chambers
@needs_data
def test_chamber_graphs():
    ch = REAL / "chambers"
    lt = chamber_graph(ch / "adjacency_lt_standard.csv")
    wt = chamber_graph(ch / "adjacency_wt_standard.csv")
    pc = chamber_graph(ch / "adjacency_wt_pressure-control.csv")
    cam = chamber_graph(ch / "adjacency_lt_camera.csv")
    assert (lt.shape, int(lt.sum()), is_acyclic(lt)) == ((38, 38), 57, True)
    assert (wt.shape, int(wt.sum()), is_acyclic(wt)) == ((32, 32), 42, True)
    assert (pc.shape, int(pc.sum()), is_acyclic(pc)) == ((32, 32), 44, False)
    assert (cam.shape, int(cam.sum())) == ((42, 42), 65)
    lt_vars = list(REGISTRY["chambers-light-tunnel"].variables)
    case20 = "red green blue current ir_1 ir_2 ir_3 vis_1 vis_2 vis_3 pol_1 pol_2 angle_1 angle_2 l_11 l_12 l_21 l_22 l_31 l_32".split()
    sub, names = induced_subgraph(
        chamber_graph(ch / "adjacency_lt_standard.csv", lt_vars), lt_vars, case20
    )
    assert names == case20 and int(sub.sum()) == 39
    case16 = "hatch load_in load_out pot_1 pot_2 current_in current_out pressure_downwind pressure_upwind rpm_in rpm_out mic pressure_intake pressure_ambient signal_1 signal_2".split()
    assert int(chamber_graph(ch / "adjacency_wt_standard.csv", case16).sum()) == 26
    assert lt_experiment_target("uniform_reference", lt_vars) is None
    assert lt_experiment_target("uniform_t_ir_1_strong", lt_vars) == "t_ir_1"
    assert lt_experiment_target("uniform_l_11_mid", lt_vars) == "l_11"
    with pytest.raises(RealDataError):
        lt_experiment_target("validate_red", lt_vars)


def _fake_chamber_dir(tmp_path: Path) -> Path:
    """Real graphs plus made-up measurement CSVs in the documented layout (extracted zips)."""
    data = tmp_path / "real"
    (data / "chambers").mkdir(parents=True)
    for f in (REAL / "chambers").glob("adjacency_*.csv"):
        shutil.copy(f, data / "chambers" / f.name)
    rng = np.random.default_rng(0)
    lt_vars = REGISTRY["chambers-light-tunnel"].variables
    folder = data / "chambers/lt_interventions_standard_v1"
    folder.mkdir()
    for k, e in enumerate(LT_EXPERIMENTS):
        n = 6 if e == "uniform_reference" else 2
        cols = ["timestamp", "flag", "intervention", *lt_vars, "camera"]
        rows = np.column_stack(
            [
                np.arange(n),
                np.zeros(n),
                np.ones(n),
                rng.normal(size=(n, len(lt_vars))) + k,
                np.zeros(n),
            ]
        )
        _write_csv(folder / f"{e}.csv", cols, rows)
    wt_vars = REGISTRY["chambers-wind-tunnel"].variables
    folder = data / "chambers/wt_walks_v1"
    folder.mkdir()
    flags = np.repeat(np.arange(1, 33), 3)
    rows = np.column_stack([np.arange(96), flags, rng.normal(size=(96, len(wt_vars)))])
    _write_csv(folder / "regime_jumps_single.csv", ["timestamp", "flag", *wt_vars], rows)
    return data


def _write_csv(path: Path, cols: list[str], rows: np.ndarray) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        w.writerows(rows.tolist())


@needs_data
def test_chamber_loaders_on_documented_format(tmp_path):
    data = _fake_chamber_dir(tmp_path)
    with pytest.raises(RealDataError, match="no published checksum"):
        load_real("chambers-light-tunnel", data)
    lt = load_real("chambers-light-tunnel", data, allow_unpinned=True)
    assert (lt.d, lt.n_edges, lt.n_obs, lt.n_int) == (38, 57, 6, 40)
    assert sorted(lt.intervention_targets) == sorted(
        lt_experiment_target(e, lt.variables) for e in LT_EXPERIMENTS[1:]
    )
    assert lt.mask[lt.n_obs :].sum(axis=1).tolist() == [1] * 40
    wt = load_real("chambers-wind-tunnel", data, allow_unpinned=True)
    n_free = sum(1 for t in WT_REGIME_TARGETS if not t)
    assert (wt.d, wt.n_edges, wt.n_obs, wt.n_int) == (32, 42, 3 * n_free, 3 * (32 - n_free))
    assert int(wt.alternatives["wt-pressure-control"].sum()) == 44
    assert set(wt.intervention_targets) == {t for ts in WT_REGIME_TARGETS for t in ts}


# -------------------------------------------------------------------------------- repairs
def test_constant_column_repair_roundtrip():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 5))
    X[:, 1] = 3.0
    X[:, 4] = 0.0
    mask = np.zeros(X.shape, dtype=bool)
    Xk, mk, keep = drop_constant_columns(X, mask)
    assert keep.tolist() == [0, 2, 3] and Xk.shape == (50, 3) and mk.shape == (50, 3)
    A = expand_adjacency(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]), keep, 5)
    assert A.shape == (5, 5) and A[0, 2] == 1 and A[2, 3] == 1 and A.sum() == 2
    pred, dropped = fit_without_constant_columns(
        lambda x, m: np.ones((x.shape[1],) * 2) - np.eye(x.shape[1]), X, mask
    )
    assert dropped == [1, 4] and pred[:, [1, 4]].sum() == 0 and pred[[1, 4]].sum() == 0


def test_subsample_is_deterministic():
    X = np.arange(200, dtype=float).reshape(100, 2)
    mask = np.zeros_like(X, dtype=bool)
    mask[80:, 0] = True
    a = subsample(X, mask, 20, seed=3)
    b = subsample(X, mask, 20, seed=3)
    c = subsample(X, mask, 20, seed=4)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[2], c[2])
    assert np.all(np.diff(a[2]) > 0) and a[0].shape == (20, 2) and a[1].shape == (20, 2)
    assert np.array_equal(a[1], mask[a[2]])
    assert subsample(X, None, 500, seed=0)[0].shape == (100, 2)
    with pytest.raises(ValueError):
        subsample(X, mask, 0, seed=0)


# ------------------------------------------------------------------- card and metadata files
@needs_data
def test_real_card_describes_real_data(real_release):
    from causalarena.release.card import read_front_matter, render_card, validate_card
    from causalarena.release.manifest import read_manifest
    from causalarena.release.metadata import collect_metadata

    out, summary = real_release
    m = read_manifest(out)
    body = (out / "README.md").read_text()
    meta = collect_metadata(out)
    assert meta.family == "real" and meta.coverage is None and meta.audit is None
    assert validate_card(out, meta) == []
    assert body == render_card(meta)
    # the header is huggingface_hub's DatasetCardData dump (long values folded at 80 columns)
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(out / "README.md")
    assert str(card) == body and card.data.to_dict() == read_front_matter(out / "README.md")
    assert card.data.license == "other" and "Licence section" in card.data.license_details
    assert m["reference_caveat"] in body and "not verified truth" in body
    lines = body.splitlines()
    for name, b in summary["built"].items():
        row = next(ln for ln in lines if ln.startswith(f"| `{name}` | `real-obs`"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2:8] == [
            str(b["rows"]),
            str(b["columns"]),
            str(b["edges"]),
            str(b["interventions"]),
            b["licence"],
            "yes" if b["redistributable"] else "no",
        ]
        assert f"### `{name}`" in body and f"Licence: {b['licence']}." in body
        assert REGISTRY[name].citation.strip() in body
    for name in summary["unavailable"]:
        assert f"| `{name}` | missing (" in body
    assert str(REAL) not in body  # no local paths in the published card
    low = body.lower()
    for synthetic_only in (
        "all data are synthetic",
        "purely synthetic",
        "scms per graph_family",
        "shares by mechanism",
        "(`synthetic`)",
    ):
        assert synthetic_only not in low
    assert "horsepower = 0" in low and "398 → 392 rows" in body
    assert "`invalid_AWS::DynamoDB::Table`" in body and "subsample(X, mask, n, seed=...)" in body
    fm = read_front_matter(out / "README.md")
    assert (fm["license"], fm["license_name"]) == ("other", "per-dataset-licences")
    assert all(lic in fm["license_details"] for lic in ("MIT", "CC-BY-4.0", "BSD-2-Clause"))
    assert "real-world-data" in fm["tags"] and "synthetic" not in fm["tags"]


@needs_data
def test_real_metadata_files_validate(real_release):
    import yaml

    from causalarena.release.citation import validate_cff, validate_zenodo
    from causalarena.release.verify import verify, verify_metadata

    out, _ = real_release
    assert verify(out) == []
    assert validate_cff(out / "CITATION.cff") == []
    assert validate_zenodo(out / ".zenodo.json") == []
    cff = yaml.safe_load((out / "CITATION.cff").read_text())
    assert "license" not in cff and "not independently verified" in cff["abstract"]
    assert "MIT (cdcsg-abalone" in cff["abstract"]
    zen = json.loads((out / ".zenodo.json").read_text())
    assert zen["license"] == "other-at" and "BSD-2-Clause (sachs)" in zen["description"]
    if (out / "croissant.json").is_file():
        assert verify_metadata(out) == []
        js = json.loads((out / "croissant.json").read_text())
        assert "https://opensource.org/licenses/MIT" in js["license"]
        assert "not independently verified" in js["description"]
        fields = {f["name"]: f for f in js["recordSet"][0]["field"]}
        assert "literature" in fields["adjacency"]["description"]


@needs_data
def test_real_card_loads_with_datasets(real_release):
    import datasets

    out, _ = real_release
    ds = datasets.load_dataset(str(out), "real-obs", split="test")
    assert ds.num_rows == 9 and set(ds["family"]) == {"real"}
    assert len(datasets.load_dataset(str(out), "real-obsint", split="test")) == 3


@needs_data
def test_real_card_validation_catches_problems(real_release, tmp_path):
    from causalarena.release.card import validate_card
    from causalarena.release.manifest import read_manifest

    out, _ = real_release
    copy = tmp_path / "rel"
    shutil.copytree(out, copy)
    caveat = read_manifest(copy)["reference_caveat"]
    card = copy / "README.md"
    text = card.read_text()
    card.write_text(text.replace(caveat, "Reference graphs are the truth."))
    assert any("reference_caveat" in p for p in validate_card(copy))
    card.write_text(text.replace("| BSD-2-Clause |", "| MIT |"))
    assert any("'sachs' with licence BSD-2-Clause" in p for p in validate_card(copy))
    card.write_text(text.replace("license: other", "license: cc-by-4.0"))
    assert any("expected 'other'" in p for p in validate_card(copy))
    card.write_text(text + "\nAll data are synthetic.\n")
    assert any("synthetic" in p for p in validate_card(copy))


@needs_data
def test_real_metadata_model_is_strict(real_release):
    from pydantic import ValidationError

    from causalarena.release.metadata import ReleaseMetadata, collect_metadata

    out, _ = real_release
    data = collect_metadata(out).model_dump()
    with pytest.raises(ValidationError, match="needs `real`"):
        ReleaseMetadata.model_validate({**data, "real": None})
    with pytest.raises(ValidationError, match="synthetic release"):
        ReleaseMetadata.model_validate({**data, "family": "synthetic"})
    with pytest.raises(ValidationError):
        ReleaseMetadata.model_validate({**data, "license": "mit"})


@needs_data
def test_info_summarises_a_real_release(real_release, capsys):
    from causalarena.cli import main

    out, summary = real_release
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    for name, d in summary["built"].items():
        assert name in text and d["licence"] in text
    assert "not verified truth" in text


@needs_data
def test_real_bytes_do_not_depend_on_worker_count(real_release, tmp_path):
    from causalarena.release.engine import build
    from causalarena.release.io import sha256_file

    out, _ = real_release
    other = build(
        "arena-real", scale="full", out=tmp_path / "w2", workers=2, quiet=True, real_data_dir=REAL
    )

    def shas(folder):
        return {
            p.relative_to(folder).as_posix(): sha256_file(p)
            for p in sorted(folder.rglob("*"))
            if p.is_file() and ".build" not in p.parts
        }

    assert shas(other) == shas(out)


@pytest.mark.parametrize("bad", ["../../etc/passwd", "/abs/file.csv", "sachs/../../x.csv"])
def test_registry_refuses_paths_that_leave_the_data_folder(bad):
    from causalarena.generator.real.sources import parse_registry

    good = "sachs/x.csv sha256:" + "0" * 64 + " https://example.org/x.csv\n"
    assert list(parse_registry(good)) == ["sachs/x.csv"]
    with pytest.raises(ValueError, match=r"line 2: path .* must be relative"):
        parse_registry(good + f"{bad} sha256:{'0' * 64} https://example.org/y.csv\n")
