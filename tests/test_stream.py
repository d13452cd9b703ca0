"""Fresh SCM streams, fingerprints and the contamination guard (issue 13 §2)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.fingerprint import fingerprint, fingerprint_adjacency, same_graph
from causalarena.loaders.stream import StreamError, release_fingerprints, stream


def _relabel(spec_json: str, seed: int = 0) -> str:
    """The same SCM with variables renamed by a random permutation and listed in another order
    (every reference to a name is renamed; parent lists keep their order, as the mechanism
    parameters refer to parents by position)."""
    d = json.loads(spec_json)
    names = [v["name"] for v in d["variables"]]
    perm = np.random.default_rng(seed).permutation(len(names))
    new = {n: f"V{int(p)}" for n, p in zip(names, perm, strict=True)}

    def ren(x):
        if isinstance(x, str):
            return new.get(x, x)
        if isinstance(x, list):
            return [ren(y) for y in x]
        if isinstance(x, dict):
            return {k: ren(y) for k, y in x.items()}
        return x

    d = {k: (v if k == "scm_id" else ren(v)) for k, v in d.items()}
    d["variables"] = [d["variables"][i] for i in np.argsort(perm)]
    return json.dumps(d)


def _first(ds, n):
    return list(ds.take(n))


def test_stream_is_deterministic_and_seeded():
    a = _first(stream("synthetic", 3, d=10, shards=4), 3)
    b = _first(stream("synthetic", 3, d=10, shards=4), 3)
    c = _first(stream("synthetic", 4, d=10, shards=4), 3)
    assert [r["instance_id"] for r in a] == [
        "stream-synthetic/3/0",
        "stream-synthetic/3/4",
        "stream-synthetic/3/8",
    ]
    for x, y in zip(a, b, strict=True):
        assert x["spec"] == y["spec"] and np.array_equal(np.asarray(x["X"]), np.asarray(y["X"]))
    assert all(x["spec"] != z["spec"] for x, z in zip(a, c, strict=True))
    assert {r["d"] for r in a} == {10}


def test_fixed_d_batches_have_the_stored_types():
    ds = stream("synthetic", 1, d=20, shards=2, setting="obsint").with_format("numpy")
    batch = next(iter(ds.iter(batch_size=2)))
    assert batch["X"].shape == (2, 1000, 20) and batch["X"].dtype == np.float32
    assert batch["mask"].dtype == bool and batch["mask"].shape == (2, 1000, 20)
    assert batch["mask"][:, 800:].any() and not batch["mask"][:, :800].any()
    assert batch["adjacency"].shape == (2, 20, 20)


def test_ranks_read_disjoint_repeat_free_parts():
    from datasets.distributed import split_dataset_by_node

    ids = []
    for rank in range(2):
        part = split_dataset_by_node(stream("synthetic", 5, d=10, shards=4), rank, 2)
        got = [r["stream_index"] for r in part.take(3)]
        assert len(set(got)) == 3
        ids.append(set(got))
    assert not ids[0] & ids[1]
    # rank 0 holds shards 0 and 1 and reads its first shard: instances 0, 4, 8
    assert ids[0] == {0, 4, 8}


def test_dataloader_workers_disjoint():
    torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
    ds = stream("synthetic", 2, d=10, shards=4)
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
    seen = []
    for i, row in enumerate(loader):
        seen.append(int(row["stream_index"]))
        if i == 5:
            break
    assert len(set(seen)) == len(seen) == 6
    # worker w gets shards {w, w + 2} and reads shard w: instances w, w + 4, ...
    assert {s % 4 for s in seen} == {0, 1}


def test_temporal_stream_rows():
    rows = _first(stream("temporal", 9, shards=2, suite="dot-identifiability"), 2)
    assert [r["episode_id"] for r in rows] == [
        "stream-dot-identifiability/9/0",
        "stream-dot-identifiability/9/2",
    ]
    assert rows[0]["suite"] == "stream-dot-identifiability" and rows[0]["structure"]
    assert rows[0]["fingerprint"] == fingerprint(rows[0]["scm"])["exact"]


def test_bad_options_are_clear_errors():
    with pytest.raises(StreamError) as exc:
        stream("nope")
    assert str(exc.value) == (
        "unknown stream family 'nope'; choose from synthetic, temporal, protocols, lab"
    )
    with pytest.raises(StreamError, match=r"d \[11\] not in the arena's dimensions"):
        stream("synthetic", d=11)
    with pytest.raises(StreamError, match="^reject must be one of exact, mix, graph, got 'iso'$"):
        stream("synthetic", reject="iso")
    with pytest.raises(StreamError, match="not a release folder"):
        stream("synthetic", exclude=["/nonexistent"])


def test_shard_bound_and_single_exclude_path(mini_release):
    from pathlib import Path

    from causalarena.loaders.stream import MAX_SHARDS, exclude_folders

    with pytest.raises(StreamError) as exc:  # was a MemoryError with an empty message
        stream("synthetic", d=10, shards=10**12)
    assert str(exc.value) == (
        "shards must be at most 65,536 (MAX_SHARDS), got 1,000,000,000,000; one shard per "
        "rank x DataLoader worker is enough"
    )
    assert MAX_SHARDS == 65536
    stream("synthetic", d=10, shards=MAX_SHARDS)  # the bound itself is accepted
    # one path is one folder, not a sequence of characters ("/" used to be the folder checked)
    for one in ("/nonexistent/rel", Path("/nonexistent/rel")):
        with pytest.raises(StreamError) as exc:
            stream("synthetic", d=10, exclude=one)
        assert (
            str(exc.value) == "exclude: /nonexistent/rel is not a release folder (no manifest.json)"
        )
    assert exclude_folders(str(mini_release)) == (str(mini_release),)
    assert exclude_folders(mini_release) == (str(mini_release),)
    assert exclude_folders([mini_release, "b"]) == (str(mini_release), "b")
    stream("synthetic", d=10, exclude=str(mini_release))
    for bad, msg in ((7, "got int"), ({"a": 1}, "got dict"), ([3], "exclude: 3 is not a path")):
        with pytest.raises(StreamError, match=msg):
            stream("synthetic", d=10, exclude=bad)


def test_fingerprint_levels():
    from causalarena.generator.synthetic.draw import draw_spec

    sj = draw_spec(11, 0, 0).to_json()
    fp = fingerprint(sj)
    assert fingerprint(_relabel(sj, 1)) == fp  # relabelled: identical at every level
    assert same_graph(sj, _relabel(sj, 2))
    d = json.loads(sj)
    v = next(v for v in d["variables"] if v["mechanism"])
    v["out_loc"] = v["out_loc"] + 0.5  # a parameter: exact changes, mix and graph do not
    fp2 = fingerprint(d)
    assert fp2["exact"] != fp["exact"] and fp2["mix"] == fp["mix"] and fp2["graph"] == fp["graph"]
    v["noise"] = {"family": "laplace_not_the_same", "params": {}}  # a family: mix changes
    fp3 = fingerprint(d)
    assert fp3["mix"] != fp["mix"] and fp3["graph"] == fp["graph"]
    A = draw_spec(11, 0, 0).adjacency()
    assert fingerprint_adjacency(A) == fp["graph"]
    B = A.copy()
    i, j = map(int, np.argwhere(A)[0])
    B[i, j] = 0
    assert fingerprint_adjacency(B) != fp["graph"]


def test_fast_wl_hash_is_networkx_digest():
    """fingerprint hashes plain dicts with its own WL loop; it must give networkx's digest on
    labelled digraphs of every shape (self-loops, isolated nodes, repeated labels, a repeated
    edge keeping its last label), else published fingerprints would silently change."""
    import warnings

    import networkx as nx

    from causalarena import fingerprint as fpm

    rng = np.random.default_rng(5)
    alphabet = ["", "0", "1", "2", "ab", "c3"]
    for _ in range(300):
        k = int(rng.integers(1, 9))
        nodes = {f"n{i}": alphabet[int(rng.integers(len(alphabet)))] for i in range(k)}
        edges: dict = {}
        for _ in range(int(rng.integers(0, 3 * k))):
            u, v = (f"n{int(x)}" for x in rng.integers(0, k, 2))
            edges[(u, v)] = alphabet[int(rng.integers(len(alphabet)))]
        g = nx.DiGraph()
        for n, lab in nodes.items():
            g.add_node(n, l=lab)
        for (u, v), lab in edges.items():
            g.add_edge(u, v, l=lab)
        with warnings.catch_warnings():  # networkx's note on directed hashes
            warnings.simplefilter("ignore", UserWarning)
            h = nx.weisfeiler_lehman_graph_hash(
                g, node_attr="l", edge_attr="l", iterations=4, digest_size=16
            )
        assert fpm._wl((nodes, edges)) == f"{k}-{len(edges)}-{h}"
    with pytest.raises(KeyError):  # an edge to an unlabelled node: networkx's own error
        fpm._wl(({"a": ""}, {("a", "b"): ""}))


def test_fingerprint_level_subsets_and_memo():
    """``levels`` returns the same digests for the requested levels only; the exact-label memo
    (used for JSON text) never changes a digest: the text and the dict of an SCM agree, also
    when a parameter differs from a memoised one below the 9-digit rounding."""
    from causalarena.generator.lab.episode import draw_episode
    from causalarena.generator.lab.suites import get_lab_suite

    cfg = get_lab_suite("lab-main").configs[0]
    sj = draw_episode("t", 3, cfg, 0).spec.to_json()
    full = fingerprint(sj)
    assert list(full) == ["graph", "mix", "exact"]
    for lv in ("exact", "mix", "graph"):
        assert fingerprint(sj, (lv,)) == {lv: full[lv]}
        assert fingerprint(sj, (lv,)) == {lv: full[lv]}  # memo warm
    assert fingerprint(json.loads(sj)) == full
    with pytest.raises(ValueError, match="unknown fingerprint level"):
        fingerprint(sj, ("iso",))
    d = json.loads(sj)
    v = next(v for v in d["variables"] if v["mechanism"])
    bias = v["mechanism"]["params"]["bias"]
    v["mechanism"]["params"]["bias"] = bias * (1 + 1e-12)  # rounds to the same 9 digits
    assert fingerprint(d) == fingerprint(json.dumps(d)) == full
    v["mechanism"]["params"]["bias"] = bias * (1 + 1e-6)  # beyond the rounding
    assert fingerprint(json.dumps(d))["exact"] != full["exact"]
    assert fingerprint(json.dumps(d))["mix"] == full["mix"]


def test_fingerprint_of_a_spec_object_is_that_of_its_json(monkeypatch):
    """The lab stream fingerprints each SCM from its attributes (``fingerprint_spec``); the
    digests must be those of its JSON text at every level, for lab SCMs with and without a
    hidden disturbance, arena SCMs of every mechanism family, and hand-made specs whose
    parameters were given as ints, tuples and numpy scalars (converted by the spec)."""
    from causalarena import fingerprint as fpm
    from causalarena.generator.lab.episode import draw_episode
    from causalarena.generator.lab.suites import LAB_SUITES
    from causalarena.generator.synthetic.draw import draw_spec
    from causalarena.spec import SCMSpec

    specs = [
        draw_episode("t", 5, cfg, i).spec
        for suite in LAB_SUITES.values()
        for cfg in suite.configs
        for i in range(3)
    ]
    specs += [draw_spec(11, 0, 0), draw_spec(11, 1, 0)]
    variables = [
        {
            "name": "a",
            "role": "root",
            "root": {"family": "uniform", "params": {"low": 1, "high": 4}},
        },
        {
            "name": "b",
            "role": "structural",
            "parents": ["a"],
            "mechanism": {
                "family": "linear",
                "params": {"weights": (np.float64(2.5),), "bias": np.int64(3)},
            },
            "strength": 2,
            "noise": {"family": "gaussian", "params": {"scale": 0.1}},
        },
    ]
    specs.append(SCMSpec(scm_id="hand", variables=variables))
    assert any(s.metadata.get("lab", {}).get("hidden") for s in specs)
    assert len({fpm.fingerprint(s.to_json())["mix"] for s in specs}) > 10
    for s in specs:
        for levels in (fpm.LEVELS, ("exact",), ("graph", "mix")):
            assert fpm.fingerprint_spec(s, levels) == fpm.fingerprint(s.to_json(), levels)
    with pytest.raises(ValueError, match="unknown fingerprint level"):
        fpm.fingerprint_spec(specs[0], ("iso",))
    # another variable model (a field added) takes the JSON path, with its digests
    monkeypatch.setattr(fpm, "_VAR_FIELDS", fpm._VAR_FIELDS + ("new_field",))
    calls = []
    real = fpm.fingerprint
    monkeypatch.setattr(fpm, "fingerprint", lambda *a: calls.append(a) or real(*a))
    assert fpm.fingerprint_spec(specs[0]) == real(specs[0].to_json()) and calls


def _release_spec(folder):
    shard = sorted((folder / "data" / "synthetic-obs").glob("*.parquet"))[0]
    return pq.read_table(shard, columns=["spec"]).column("spec")[0].as_py()


def test_guard_rejects_planted_and_relabelled_duplicates(mini_release, monkeypatch):
    from causalarena.generator.synthetic import fresh
    from causalarena.spec import SCMSpec

    idx = release_fingerprints(mini_release)
    planted = _release_spec(mini_release)
    assert fingerprint(planted)["exact"] in idx["exact"]
    assert fingerprint(_relabel(planted, 3))["exact"] in idx["exact"]
    real = fresh.instance

    def plant(seed, k, positions, setting="obs"):  # instances 0 and 2 are release SCMs
        spec, t, a = real(seed, k, positions, setting)
        if k == 0:
            spec = SCMSpec.from_json(planted)
        if k == 2:
            spec = SCMSpec.from_json(_relabel(planted, 4))
        return spec, t, a

    monkeypatch.setattr(fresh, "instance", plant)
    rows = _first(stream("synthetic", 0, d=10, shards=1, exclude=[mini_release]), 2)
    assert [r["stream_index"] for r in rows] == [1, 3]
    assert [r["skipped_before"] for r in rows] == [1, 1]
    free = _first(stream("synthetic", 0, d=10, shards=1), 1)
    assert free[0]["stream_index"] == 0  # without the guard the planted SCM comes through


def test_overlap_report_counts_reproduced_instances(mini_release, tmp_path):
    from causalarena.cli import main

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    planted = _release_spec(mini_release)
    import pyarrow as pa

    pq.write_table(pa.table({"spec": [_relabel(planted, 5)]}), corpus / "a.parquet")
    from causalarena.spec import SCMSpec

    A = SCMSpec.from_json(planted).adjacency()
    np.savez(corpus / "b.npz", x=np.zeros((3, A.shape[0], 2)), g=A)
    out = tmp_path / "overlap.json"
    assert main(["overlap", str(corpus), "--release", str(mini_release), "--out", str(out)]) == 0
    rep = json.loads(out.read_text())
    pub = rep["releases"][0]["public"]
    assert rep["items"] == 2 and pub["exact"] == 1  # the relabelled spec
    assert pub["graph"] + pub["mix"] <= 1  # the bare graph matches the same SCM, counted once
    assert pub["scms"] == len({r for r in _all_specs(mini_release)})
    assert main(["overlap", str(tmp_path / "missing"), "--release", str(mini_release)]) == 2


def _all_specs(folder):
    out = set()
    for config in ("synthetic-obs", "synthetic-obsint"):
        for p in (folder / "data" / config).glob("*.parquet"):
            out.update(pq.read_table(p, columns=["spec"]).column("spec").to_pylist())
    return out


def test_bad_stream_configs_are_clear_errors(tmp_path, mini_release, capsys):
    from causalarena.cli import main

    deep = tmp_path / "deep.json"
    deep.write_text("{" + '"a":{' * 5000 + "}" * 5001)
    big = tmp_path / "big.json"
    big.write_text('{"family": "synthetic", "seed": 1e400}')
    word = tmp_path / "word.json"
    word.write_text('{"family": "synthetic", "seed": "x"}')
    for f, msg in ((deep, "not a readable JSON"), (big, "'seed'"), (word, "'seed' = 'x'")):
        assert main(["overlap", str(f), "--release", str(mini_release)]) == 2
        err = capsys.readouterr().err
        assert msg in err and "internal error" not in err and "invalid literal" not in err


@pytest.mark.parametrize("keep", [[], ["synthetic-obsint"]])
def test_exclusion_release_with_edited_configs_is_refused(mini_release, tmp_path, keep):
    # An emptied (or trimmed) manifest "configs" used to give an empty index: the guard then
    # excluded nothing, silently (breaker finding).
    import shutil

    rel = tmp_path / "rel"
    shutil.copytree(mini_release, rel)
    m = json.loads((rel / "manifest.json").read_text())
    m["configs"] = {k: v for k, v in m["configs"].items() if k in keep}
    (rel / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(StreamError) as exc:
        release_fingerprints(rel)
    msg = str(exc.value)
    assert msg.startswith(f"exclude: {rel / 'manifest.json'} lists ")
    assert "under no entry of its configs" in msg and "synthetic-obs" in msg
    assert sum(map(len, release_fingerprints(mini_release).values())) > 0  # the intact one


def test_empty_dimension_or_family_list_is_refused_up_front():
    # d=[] used to be accepted and raise ZeroDivisionError at the first row (breaker finding)
    for kw, msg in (
        ({"d": []}, "d must name at least one dimension (or be None for all), got none"),
        (
            {"graph_families": []},
            "graph_families must name at least one family (or be None for all), got none",
        ),
    ):
        with pytest.raises(StreamError) as exc:
            stream("synthetic", 0, shards=2, **kw)
        assert str(exc.value) == msg
