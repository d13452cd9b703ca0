"""Streams of protocol variants and lab episodes, and the guard on them (issue 13 §2)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.fingerprint import fingerprint
from causalarena.loaders.stream import StreamError, release_fingerprints, stream


@pytest.fixture(scope="module")
def lab_release(tmp_path_factory):
    from causalarena.release.engine import build

    return build("lab-main", scale="mini", out=tmp_path_factory.mktemp("labrel"), quiet=True)


def _spec_of(rows):
    return [r["spec"] for r in rows]


# ------------------------------------------------------------------ design coverage per shard
def test_a_shard_sees_the_whole_design_not_an_aliased_slice():
    """Shard s of G reads instances s, s + G, ...; the per-epoch permutation of the pool keeps
    that a random part of the design (without it, with G = 64 and the 1,000-SCM pool, shard s
    held only pool positions = s mod 8: one level of the difficulty schedule, k % 4)."""
    from causalarena.generator.synthetic.fresh import order, pool

    pos = pool()
    assert len(pos) == 1000
    for s in (0, 3):
        seen = [pos[order(0, "synthetic", 0, len(pos))[j]] for j in range(s, len(pos), 64)]
        assert {i % 20 % 4 for i in seen} == {0, 1, 2, 3}  # all four difficulty levels
        assert len({i // 100 for i in seen}) >= 6  # 16 draws: most of the 10 graph families
    perm = order(0, "synthetic", 0, len(pos))
    assert sorted(perm.tolist()) == list(range(len(pos)))  # an epoch is the pool once
    assert not np.array_equal(perm, order(0, "synthetic", 1, len(pos)))
    # lab: with as many shards as configs, a shard still cycles through the configs
    rows = list(stream("lab", 0, shards=5).take(8))
    assert len({r["config"] for r in rows}) >= 3


# ------------------------------------------------------------------ protocols
def test_protocol_stream_is_deterministic_paired_and_seed_separated():
    ps = ["default", "dense-mixed"]
    a = list(stream("protocols", 7, shards=3, protocols=ps).take(2))
    b = list(stream("protocols", 7, shards=3, protocols=ps).take(2))
    assert [r["instance_id"] for r in a] == [
        "stream-arena-protocols/7/0/default",
        "stream-arena-protocols/7/0/dense-mixed",
    ]
    for x, y in zip(a, b, strict=True):
        assert x["spec"] == y["spec"] and np.array_equal(np.asarray(x["X"]), np.asarray(y["X"]))
    # the protocols of one instance share its SCM (paired design), not its intervention
    assert a[0]["scm_id"] == a[1]["scm_id"] and a[0]["fingerprint"] == a[1]["fingerprint"]
    i0, i1 = (json.loads(r["spec"])["intervention"] for r in a[:2])
    assert "parameter_shifts" not in i0 and i0["targets_per_row"] == 1
    assert i1["modes"] == ["resample", "setpoint", "parameter_shift"] and i1["parameter_shifts"]
    assert (a[0]["n_obs"], a[0]["n_int"]) == (800, 200) and (a[1]["n_obs"], a[1]["n_int"]) == (
        200,
        800,
    )
    assert all(r["d"] == 30 and r["n"] == 1000 for r in a)
    # the same stream seed gives other SCMs in the synthetic family (domain separation)
    syn = list(stream("synthetic", 7, d=30, shards=1).take(2))
    assert not {fingerprint(r["spec"])["exact"] for r in syn} & {r["fingerprint"] for r in a}


def test_samplesize_stream_is_nested():
    rows = list(stream("protocols", 2, suite="arena-samplesize", sizes=[300, 100]).take(2))
    assert [r["n"] for r in rows] == [100, 300] and {r["protocol"] for r in rows} == {
        "observational"
    }
    x100, x300 = (np.asarray(r["X"]) for r in rows)
    assert x100.shape == (100, 30) and x300.shape == (300, 30) and x100.dtype == np.float32
    assert np.array_equal(x100, x300[:100]) and not np.asarray(rows[1]["mask"]).any()


def test_protocol_stream_numpy_batches_are_fixed_d():
    ds = stream("protocols", 1, protocols=["high-fraction"], shards=2).with_format("numpy")
    batch = next(iter(ds.iter(batch_size=2)))
    assert batch["X"].shape == (2, 1000, 30) and batch["X"].dtype == np.float32
    assert batch["mask"].shape == (2, 1000, 30) and batch["mask"].dtype == bool
    assert batch["mask"][:, :200].sum() == 0 and batch["mask"][:, 200:].any(axis=2).all()
    assert batch["adjacency"].shape == (2, 30, 30)


def test_protocol_guard_rejects_a_planted_release_scm(mini_release, monkeypatch):
    from causalarena.generator.protocols import fresh
    from causalarena.spec import SCMSpec

    specs = [
        r
        for shard in sorted((mini_release / "data" / "synthetic-obs").glob("*.parquet"))
        for r in pq.read_table(shard, columns=["spec", "d"]).to_pylist()
    ]
    planted = next(r["spec"] for r in specs if r["d"] == 30)
    real = fresh.base_spec

    def plant(seed, k):  # instance 1 is a released d = 30 SCM
        if k == 1:
            return SCMSpec.from_json(planted), 1
        return real(seed, k)

    monkeypatch.setattr(fresh, "base_spec", plant)
    kw = dict(shards=1, protocols=["default"])
    rows = list(stream("protocols", 0, exclude=[mini_release], **kw).take(2))
    assert [r["stream_index"] for r in rows] == [0, 2]
    assert [r["skipped_before"] for r in rows] == [0, 1]
    free = list(stream("protocols", 0, **kw).take(2))
    assert [r["stream_index"] for r in free] == [0, 1]
    assert free[1]["fingerprint"] in release_fingerprints(mini_release)["exact"]


# ------------------------------------------------------------------ lab
def test_lab_stream_rows_are_playable_episodes_and_deterministic():
    from causalarena.generator.lab import LAB_SUITES, Episode
    from causalarena.generator.lab.env import LabEnv
    from causalarena.generator.synthetic.fresh import order

    a = list(stream("lab", 4, shards=2, suite="lab-hidden").take(5))
    b = list(stream("lab", 4, shards=2, suite="lab-hidden").take(5))
    assert [r["episode_id"] for r in a] == [f"stream-lab-hidden/4/{k}" for k in (0, 2, 4, 6, 8)]
    assert _spec_of(a) == _spec_of(b) and [r["records"] for r in a] == [r["records"] for r in b]
    cfgs = [c.name for c in LAB_SUITES["lab-hidden"].configs]
    perm = order(4, "lab/lab-hidden", 0, len(cfgs))  # epoch 0: instances 0 .. 8
    assert [r["config"] for r in a] == [cfgs[perm[k]] for k in (0, 2, 4, 6, 8)]
    assert all(json.loads(r["hidden"]) for r in a)  # every lab-hidden episode has H
    ep = Episode.from_row(a[0])
    assert ep.held_out() == pytest.approx(a[0]["held_out"])
    LabEnv(ep)  # a stream row plays like a released one
    other = list(stream("lab", 5, shards=2, suite="lab-hidden").take(5))
    assert _spec_of(other) != _spec_of(a)


def _typed(v):
    """A value with the type of every element spelled out (1 == 1.0 == True otherwise)."""
    if isinstance(v, dict):
        return [(k, _typed(x)) for k, x in v.items()]
    if isinstance(v, list):
        return ["list", [_typed(x) for x in v]]
    return (type(v).__name__, v)


@pytest.mark.parametrize("suite", ["lab-main", "lab-golden", "lab-hidden"])
def test_lab_rows_are_already_what_the_features_encode(suite):
    """Lab rows are declared to ``datasets``, not re-encoded (``stream.TYPED_ROWS``), so each
    row must be exactly what ``Features.encode_example``/``decode_example`` make of it: the
    same keys in feature order, values and Python types (a numpy int or a tuple would pass
    through the declared path unconverted)."""
    from causalarena.loaders.stream import TYPED_ROWS

    assert "lab" in TYPED_ROWS
    ds = stream("lab", 2, shards=3, suite=suite)
    feats = ds.features
    rows = list(ds.take(12))
    assert all(list(r) == list(feats) for r in rows)
    for r in rows:
        assert _typed(feats.decode_example(feats.encode_example(r))) == _typed(r)
    got = next(ds.with_format("arrow").iter(batch_size=4))
    assert got.schema == feats.arrow_schema and got.to_pylist() == rows[:4]


def test_lab_ranks_and_workers_are_disjoint():
    from datasets.distributed import split_dataset_by_node

    seen = []
    for rank in range(2):
        part = split_dataset_by_node(stream("lab", 1, shards=4), rank, 2)
        seen.append([r["stream_index"] for r in part.take(4)])
    # each rank holds two of the four shards and reads its first: instances s, s + 4, ...
    assert seen[0] == [0, 4, 8, 12] and seen[1] == [1, 5, 9, 13]
    torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
    loader = torch.utils.data.DataLoader(stream("lab", 1, shards=4), batch_size=None, num_workers=2)
    got = []
    for i, row in enumerate(loader):
        got.append(int(row["stream_index"]))
        if i == 7:
            break
    assert len(set(got)) == 8 and {k % 4 for k in got} == {0, 1}


def test_lab_fingerprint_sees_the_hidden_disturbance():
    from causalarena.generator.lab.suites import episodes

    main = episodes("lab-main", "main-4nodes", "mini")["main-4nodes"][0]
    hid = episodes("lab-hidden", "hidden-n1", "mini")["hidden-n1"][0]
    assert main.edges == hid.edges  # matched controls: the same graph and weights
    fm, fh = fingerprint(main.spec.to_json()), fingerprint(hid.spec.to_json())
    assert fm["graph"] == fh["graph"] and fm["exact"] != fh["exact"] and fm["mix"] != fh["mix"]
    # a released row (as the reserved commitments serialise it) is fingerprinted by its SCM
    assert fingerprint(json.dumps(main.to_row(), sort_keys=True)) == fm


def test_lab_reserved_rows_publish_fingerprints():
    from causalarena.generator.lab.episode import to_arrow
    from causalarena.generator.lab.family import reserved_instances
    from causalarena.generator.lab.suites import episodes
    from causalarena.release.reserved import _fingerprint

    eps = episodes("lab-main", "main-3nodes", "mini")["main-3nodes"][:2]
    got = list(reserved_instances("main-3nodes", to_arrow(eps)))
    fps = [_fingerprint(spec_json) for _, spec_json, _, _ in got]
    assert fps == [fingerprint(e.spec.to_json()) for e in eps]


def test_temporal_reserved_rows_publish_fingerprints():
    from causalarena.generator.temporal.family import reserved_instances
    from causalarena.generator.temporal.storage import episodes_to_arrow
    from causalarena.generator.temporal.suites import generate_suite_episodes, get_temporal_suite
    from causalarena.release.reserved import _fingerprint

    suite = get_temporal_suite("dot-generic")
    table = episodes_to_arrow(generate_suite_episodes(suite, [0, 1]))
    got = list(reserved_instances(suite.config, table))
    # the commitment row has a `variables` column (names), yet its SCM is the `scm` field
    assert all("variables" in json.loads(sj) for _, sj, _, _ in got)
    fps = [_fingerprint(sj) for _, sj, _, _ in got]
    assert fps == [fingerprint(s) for s in table.column("scm").to_pylist()] and all(fps)


def test_lab_guard_rejects_a_planted_release_episode(lab_release, monkeypatch):
    import dataclasses

    from causalarena.generator.lab import episode as episode_mod
    from causalarena.generator.lab.episode import Episode
    from causalarena.generator.synthetic.fresh import order

    shard = sorted((lab_release / "data" / "main-5nodes").glob("*.parquet"))[0]
    planted = Episode.from_row(pq.read_table(shard).to_pylist()[0])
    real = episode_mod.draw_episode

    def plant(suite, base_seed, cfg, index, **names):  # the first 5-node episode is released
        ep = real(suite, base_seed, cfg, index, **names)
        if cfg.name == "main-5nodes" and index == 0:
            return dataclasses.replace(ep, spec=planted.spec)
        return ep

    monkeypatch.setattr(episode_mod, "draw_episode", plant)
    # the 5-node config's place in epoch 0 (configs in a seeded order per epoch)
    j = list(order(0, "lab/lab-main", 0, 5)).index(2)
    rows = list(stream("lab", 0, shards=1, exclude=[lab_release]).take(4))
    assert [r["stream_index"] for r in rows] == [k for k in range(5) if k != j]
    assert [r["skipped_before"] for r in rows] == [int(k == j + 1) for k in range(5) if k != j]
    free = list(stream("lab", 0, shards=1).take(5))
    assert free[j]["fingerprint"] == fingerprint(planted.spec.to_json())["exact"]


def test_guard_gives_up_on_an_exhausted_design(lab_release, monkeypatch):
    from causalarena.loaders import stream as stream_mod

    idx = release_fingerprints(lab_release)
    three = list(stream("lab", 0, shards=1, config="main-3nodes").take(40))
    classes = {fingerprint(r["spec"])["graph"] for r in three}
    assert classes <= idx["graph"]  # the mini release holds every 3-node graph class
    monkeypatch.setattr(stream_mod, "MAX_SKIPS", 25)
    ds = stream("lab", 0, shards=1, config="main-3nodes", exclude=[lab_release], reject="graph")
    with pytest.raises(StreamError, match="rejected 25 consecutive lab instances"):
        list(ds.take(1))


def test_bad_family_options_are_clear_errors():
    with pytest.raises(StreamError, match="unknown protocol 'nope'"):
        stream("protocols", protocols=["nope"])
    with pytest.raises(StreamError, match="unknown protocol suite"):
        stream("protocols", suite="arena-synthetic")
    with pytest.raises(StreamError, match="sizes must be positive integers"):
        stream("protocols", suite="arena-samplesize", sizes=[0])
    with pytest.raises(StreamError, match="unknown lab suite 'lab-causalab-v0.0.2'"):
        stream("lab", suite="lab-causalab-v0.0.2")
    with pytest.raises(StreamError, match="has no config 'x'"):
        stream("lab", config="x")


def test_overlap_of_a_lab_stream_config_counts_release_episodes(lab_release, tmp_path):
    from causalarena.eval.overlap import overlap
    from causalarena.loaders.stream import release_items

    cfg = tmp_path / "lab.json"
    cfg.write_text(json.dumps({"family": "lab", "seed": 0, "n": 60, "config": "main-3nodes"}))
    rep = overlap(cfg, [lab_release])
    rows = list(stream("lab", 0, config="main-3nodes").take(60))
    mine = {fingerprint(r["spec"])["exact"] for r in rows}
    _, pub, _ = release_items(lab_release)
    r = rep["releases"][0]
    assert rep["items"] == 60 and r["family"] == "lab"
    assert r["public"]["exact"] == sum(fp["exact"] in mine for fp in pub)
    # 3-node lab SCMs repeat: the 3-node release episodes are all reproduced at graph level
    three = [fp for fp in pub if fp["graph"].startswith("3-")]
    assert three and r["public"]["exact"] + r["public"]["mix"] + r["public"]["graph"] >= len(three)


def test_protocol_stream_bounds_sizes_and_takes_a_bare_protocol_name():
    """Breaker findings: sizes=[10**12] died with a 27 TiB MemoryError; protocols="default"
    was iterated as its characters."""

    with pytest.raises(StreamError, match="exceed the stream's limit of 1,000,000 rows"):
        next(iter(stream("protocols", seed=1, suite="arena-samplesize", sizes=[10**12])))
    with pytest.raises(StreamError, match="unknown protocol"):
        next(iter(stream("protocols", seed=1, protocols="nosuch")))
    row = next(iter(stream("protocols", seed=1, protocols="default")))
    assert row["protocol"] == "default"
