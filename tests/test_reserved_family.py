"""The reserved half as a declaration of the Family contract: dot-generic (issue 9 §3)."""

from __future__ import annotations

import hashlib
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causalarena.family import family_of
from causalarena.generator.temporal.suites import get_temporal_suite
from causalarena.release import engine
from causalarena.release import reserved as rsv


def _cli(argv):
    from causalarena.cli import main

    return main(argv)


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    d = tmp_path_factory.mktemp("secret")
    rsv.generate_key(d / "k")
    rsv.generate_key(d / "wrong")
    return d / "k", d / "wrong"


@pytest.fixture(scope="module")
def dot_release(tmp_path_factory, keys):
    out = tmp_path_factory.mktemp("dot") / "rel"
    engine.build("dot-generic", scale="mini", out=out, quiet=True)
    V = get_temporal_suite("dot-generic").version
    public = hashlib.sha256(
        b"".join(p.read_bytes() for p in sorted((out / "data").rglob("*.parquet")))
    ).hexdigest()
    assert (
        _cli(["release", "freeze", str(out), "--version", V, "--reserved-key", str(keys[0])]) == 0
    )
    return out, public


@pytest.fixture(scope="module")
def dot_reserved(tmp_path_factory, keys):
    out = tmp_path_factory.mktemp("private") / "res"
    return rsv.build_reserved("dot-generic", key_file=keys[0], out=out, quiet=True)


def test_temporal_family_declares_reserved_units_disjoint_from_public():
    fam = family_of("dot-generic")
    assert rsv.has_reserved(fam)
    shards = get_temporal_suite("dot-generic").shards("mini")
    pub = {i for u in fam.units("dot-generic", "mini", {}) for i in shards[u.params["shard"]]}
    res = {
        int(i) for u in fam.reserved_units("dot-generic", "mini", {}) for i in u.params["indices"]
    }
    assert res and pub and not res & pub and len(res) == len(pub)


def test_freeze_commits_per_instance_and_per_pool(dot_release, keys):
    rel, _ = dot_release
    res = json.loads((rel / "manifest.json").read_text())["freeze"]["reserved"]
    assert res["scheme"] == rsv.SCHEME and res["key_id"] == rsv.key_id(rsv.read_key(keys[0]))
    assert res["count"] == len(res["commitments"]) > 0
    assert (
        set(res["pools"]) == {"dot-generic"}
        and res["pools"]["dot-generic"]["count"] == res["count"]
    )
    assert len({c["sha256"] for c in res["commitments"]}) == res["count"]
    # the key-drawn episodes are not the public ones (same index would give the same id)
    public_ids = set()
    for f in (rel / "data").rglob("*.parquet"):
        public_ids |= set(pq.read_table(f, columns=["episode_id"]).column(0).to_pylist())
    assert not public_ids & {c["instance_id"] for c in res["commitments"]}


def test_reveal_passes_with_the_key_and_fails_with_a_wrong_one(dot_release, keys):
    rel, _ = dot_release
    assert rsv.verify_reveal(rel, keys[0]) == []
    assert _cli(["verify", str(rel), "--reveal", str(keys[0])]) == 0
    probs = rsv.verify_reveal(rel, keys[1])
    kinds = {p["problem"] for p in probs}
    assert "reveal-key" in kinds and "reveal-sha256" in kinds
    assert _cli(["verify", str(rel), "--reveal", str(keys[1])]) != 0


def test_reserved_build_is_private_and_matches_commitments(dot_release, dot_reserved, keys):
    rel, _ = dot_release
    m = json.loads((dot_reserved / "manifest.json").read_text())
    assert m["reserved_build"] and m["family"] == "temporal"
    pub = json.loads((rel / "manifest.json").read_text())["freeze"]["reserved"]
    assert m["reserved"]["root_sha256"] == pub["root_sha256"]
    assert rsv.verify_reveal(rel, keys[0], reserved_dir=dot_reserved) == []


def test_one_changed_byte_in_a_reserved_shard_fails(dot_release, dot_reserved, keys, tmp_path):
    rel, _ = dot_release
    rd = tmp_path / "rd"
    shutil.copytree(dot_reserved, rd)
    m = json.loads((rd / "manifest.json").read_text())
    f = m["files"][0]
    p = rd / f["path"]
    t = pq.read_table(p)
    rows = t.to_pylist()
    rows[0]["x_obs"][3][0] = float(rows[0]["x_obs"][3][0]) + 1.0
    pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), p)
    data = p.read_bytes()
    f["bytes"], f["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (rd / "manifest.json").write_text(json.dumps(m))
    probs = rsv.verify_reveal(rel, keys[0], reserved_dir=rd)
    assert [(q["path"], q["problem"]) for q in probs] == [(rows[0]["episode_id"], "reveal-sha256")]
    # a raw flipped byte (manifest not updated) is a checksum problem and a missing reveal
    rd2 = tmp_path / "rd2"
    shutil.copytree(dot_reserved, rd2)
    b = bytearray((rd2 / f["path"]).read_bytes())
    b[len(b) // 2] ^= 0x01
    (rd2 / f["path"]).write_bytes(bytes(b))
    kinds = {q["problem"] for q in rsv.verify_reveal(rel, keys[0], reserved_dir=rd2)}
    assert "sha256" in kinds and "reveal-missing" in kinds


def test_public_episodes_rebuild_identically_after_a_keyed_freeze(dot_release, tmp_path):
    _, public = dot_release
    again = engine.build("dot-generic", scale="mini", out=tmp_path / "again", quiet=True)
    digest = hashlib.sha256(
        b"".join(p.read_bytes() for p in sorted((again / "data").rglob("*.parquet")))
    ).hexdigest()
    assert digest == public
