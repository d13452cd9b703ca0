"""The reserved half from a secret key: commitments, reserved builds, reveal (issue 9 §3)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from causalarena.errors import ReleaseError
from causalarena.release import freeze as fz
from causalarena.release import reserved as rsv

BLOCKS = [0, 1]


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    path = tmp_path_factory.mktemp("secret") / "reserved.key"
    rsv.generate_key(path)
    return path


@pytest.fixture(scope="module")
def other_key(tmp_path_factory):
    path = tmp_path_factory.mktemp("secret2") / "other.key"
    rsv.generate_key(path)
    return path


@pytest.fixture(scope="module")
def frozen(mini_release, tmp_path_factory, key):
    out = tmp_path_factory.mktemp("rsv") / "rel"
    shutil.copytree(mini_release, out)
    fz.freeze(out, "1.0.0", reserved_key=key, reserved_blocks=BLOCKS, today="2026-09-10")
    return out


@pytest.fixture(scope="module")
def reserved_dir(tmp_path_factory, key):
    out = tmp_path_factory.mktemp("private") / "reserved"
    return rsv.build_reserved("arena-synthetic", key_file=key, out=out, blocks=BLOCKS, quiet=True)


def _cli(argv):
    from causalarena.cli import main

    return main(argv)


# ------------------------------------------------------------------ key files
def test_key_file_is_private_random_and_never_overwritten(tmp_path):
    p = tmp_path / "k"
    kid = rsv.generate_key(p)
    assert oct(p.stat().st_mode & 0o777) == "0o600"
    key = rsv.read_key(p)
    assert len(key) == 32 and kid == rsv.key_id(key)
    with pytest.raises(ReleaseError, match="never overwritten"):
        rsv.generate_key(p)
    q = tmp_path / "k2"
    rsv.generate_key(q)
    assert rsv.read_key(q) != key


@pytest.mark.parametrize("content", ["", "zz" * 32, "ab" * 16, "ab" * 33])
def test_bad_key_files_are_clear_errors(tmp_path, content):
    p = tmp_path / "bad.key"
    p.write_text(content)
    with pytest.raises(ReleaseError, match="bad.key"):
        rsv.read_key(p)


def test_keygen_cli(tmp_path, capsys):
    assert _cli(["release", "keygen", str(tmp_path / "new.key")]) == 0
    assert "key_id" in capsys.readouterr().out
    assert _cli(["release", "keygen", str(tmp_path / "new.key")]) == 2


# ------------------------------------------------------------------ what the key changes
def test_reserved_scms_come_from_the_key_not_the_public_seed(key, other_key):
    from causalarena.generator.synthetic.family import audited_scm
    from causalarena.generator.synthetic.suites import get_suite

    suite = get_suite("arena-synthetic")
    (t,) = rsv.reserved_targets(suite, "mini", [0])
    i = t["scm_index"]
    public_way = audited_scm(suite, i).spec  # what anyone with the package could draw
    k1 = audited_scm(rsv.secret_suite(suite, rsv.read_key(key), i), i).spec
    k1_again = audited_scm(rsv.secret_suite(suite, rsv.read_key(key), i), i).spec
    k2 = audited_scm(rsv.secret_suite(suite, rsv.read_key(other_key), i), i).spec
    assert k1.to_json() == k1_again.to_json()  # deterministic given the key
    assert k1.scm_id == public_way.scm_id == k2.scm_id  # same pool slot ...
    assert k1.to_json() != public_way.to_json() and k1.to_json() != k2.to_json()  # ... content
    assert k1.metadata["graph_family"] == public_way.metadata["graph_family"]
    assert k1.metadata["difficulty"] == public_way.metadata["difficulty"]


def test_commitment_is_salted_and_sensitive_to_every_byte():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3)).astype(np.float32)
    mask = np.zeros((20, 3), dtype=bool)
    spec = '{"scm_id": "a"}'
    salt = b"s" * 32
    base = rsv.instance_commitment(salt, "a/obs/r0", spec, X, mask)
    assert base != rsv.instance_commitment(b"t" * 32, "a/obs/r0", spec, X, mask)
    assert base != rsv.instance_commitment(salt, "a/obs/r1", spec, X, mask)
    assert base != rsv.instance_commitment(salt, "a/obs/r0", spec.replace("a", "b"), X, mask)
    raw = bytearray(X.tobytes())
    raw[17] ^= 0x01
    X2 = np.frombuffer(bytes(raw), dtype=np.float32).reshape(20, 3)
    assert base != rsv.instance_commitment(salt, "a/obs/r0", spec, X2, mask)
    m2 = mask.copy()
    m2[3, 1] = True
    assert base != rsv.instance_commitment(salt, "a/obs/r0", spec, X, m2)
    assert base != rsv.instance_commitment(
        salt, "a/obs/r0", spec, X.reshape(30, 2), mask.reshape(30, 2)
    )


# ------------------------------------------------------------------ freeze and reveal
def test_freeze_needs_a_key_outside_the_folder(mini_release, tmp_path, key):
    out = tmp_path / "rel"
    shutil.copytree(mini_release, out)
    with pytest.raises(ReleaseError, match="--reserved-key"):
        fz.freeze(out, "1.0.0")
    inside = out / "reserved.key"
    shutil.copyfile(key, inside)
    with pytest.raises(ReleaseError, match="inside"):
        fz.freeze(out, "1.0.0", reserved_key=inside, reserved_blocks=BLOCKS)
    assert "freeze" not in json.loads((out / "manifest.json").read_text())


def test_cli_freeze_reports_scms_and_instances(mini_release, tmp_path, key, monkeypatch, capsys):
    out = tmp_path / "rel"
    shutil.copytree(mini_release, out)
    real = fz.freeze
    monkeypatch.setattr(fz, "freeze", lambda *a, **k: real(*a, **k, reserved_blocks=BLOCKS))
    assert (
        _cli(["release", "freeze", str(out), "--version", "1.0.0", "--reserved-key", str(key)]) == 0
    )
    # 2 SCMs x (obs, obsint) = 4 instances; the count of instances is not called SCMs
    assert "reserved half committed: 2 units, 4 instances (root " in capsys.readouterr().out


def test_frozen_manifest_carries_commitments_not_the_key(frozen, key):
    res = json.loads((frozen / "manifest.json").read_text())["freeze"]["reserved"]
    assert res["scheme"] == rsv.SCHEME and res["key_id"] == rsv.key_id(rsv.read_key(key))
    assert res["units"] == 2 and res["count"] == 4
    assert set(res["pools"]) == {"synthetic-obs", "synthetic-obsint"}
    assert all(p["count"] == 2 for p in res["pools"].values())
    secret = rsv.read_key(key).hex()
    for f in frozen.rglob("*"):
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f
    card = (frozen / "README.md").read_text()
    assert "secret key" in card and "--reveal KEYFILE" in card


def test_reveal_with_the_key_checks_every_commitment(frozen, key, capsys):
    assert rsv.verify_reveal(frozen, key) == []
    assert _cli(["verify", str(frozen), "--reveal", str(key)]) == 0


def test_reveal_with_a_wrong_key_fails_every_commitment(frozen, other_key, capsys):
    probs = rsv.verify_reveal(frozen, other_key)
    kinds = [p["problem"] for p in probs]
    assert kinds.count("reveal-key") == 1 and kinds.count("reveal-sha256") == 4
    assert _cli(["verify", str(frozen), "--reveal", str(other_key)]) == 1


def test_one_changed_byte_in_a_published_commitment_fails(frozen, key, tmp_path):
    rel = tmp_path / "rel"
    shutil.copytree(frozen, rel)
    m = json.loads((rel / "manifest.json").read_text())
    c = m["freeze"]["reserved"]["commitments"][1]
    c["sha256"] = ("1" if c["sha256"][0] != "1" else "2") + c["sha256"][1:]
    (rel / "manifest.json").write_text(json.dumps(m))
    probs = rsv.verify_reveal(rel, key)
    assert {(p["path"], p["problem"]) for p in probs} == {
        (c["instance_id"], "reveal-sha256"),
        (f"pool {c['config']}", "reveal-root"),
        ("pool (all)", "reveal-root"),
    }


def test_reserved_build_matches_the_published_commitments(frozen, key, reserved_dir):
    m = json.loads((reserved_dir / "manifest.json").read_text())
    assert m["reserved_build"] and "DO NOT PUBLISH" in (reserved_dir / "README.md").read_text()
    pub = json.loads((frozen / "manifest.json").read_text())["freeze"]["reserved"]
    assert m["reserved"]["root_sha256"] == pub["root_sha256"]
    assert {f["config"] for f in m["files"]} == {"synthetic-obs", "synthetic-obsint"}
    assert rsv.verify_reveal(frozen, key, reserved_dir=reserved_dir) == []
    assert (
        _cli(["verify", str(frozen), "--reveal", str(key), "--reserved-dir", str(reserved_dir)])
        == 0
    )
    # none of the reserved instances is in the public release
    import pyarrow.parquet as pq

    public = set()
    for f in (frozen / "data").rglob("*.parquet"):
        public |= set(pq.read_table(f, columns=["spec"]).column(0).to_pylist())
    for f in reserved_dir.rglob("*.parquet"):
        assert not set(pq.read_table(f, columns=["spec"]).column(0).to_pylist()) & public


def _rewrite_reserved_row(folder, change):
    """Apply ``change(row)`` to the first row of the first reserved shard; fix its manifest."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    m = json.loads((folder / "manifest.json").read_text())
    f = m["files"][0]
    p = folder / f["path"]
    t = pq.read_table(p)
    rows = t.to_pylist()
    change(rows[0])
    pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), p)
    data = p.read_bytes()
    f["bytes"], f["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(m))
    return rows[0]["instance_id"]


def test_one_changed_byte_in_reserved_data_or_spec_fails(frozen, key, reserved_dir, tmp_path):
    for name, change in (
        (
            "x",
            lambda r: r["X"][5].__setitem__(0, r["X"][5][0] + 1.0),
        ),
        ("spec", lambda r: r.__setitem__("spec", r["spec"].replace('"X1"', '"X1 "', 1))),
    ):
        rd = tmp_path / name
        shutil.copytree(reserved_dir, rd)
        iid = _rewrite_reserved_row(rd, change)
        probs = rsv.verify_reveal(frozen, key, reserved_dir=rd)
        assert [(p["path"], p["problem"]) for p in probs] == [(iid, "reveal-sha256")], name


def test_damaged_reserved_shard_is_reported(frozen, key, reserved_dir, tmp_path):
    rd = tmp_path / "dmg"
    shutil.copytree(reserved_dir, rd)
    f = json.loads((rd / "manifest.json").read_text())["files"][0]["path"]
    b = bytearray((rd / f).read_bytes())
    b[len(b) // 2] ^= 0x01
    (rd / f).write_bytes(bytes(b))
    probs = rsv.verify_reveal(frozen, key, reserved_dir=rd)
    kinds = {p["problem"] for p in probs}
    assert "sha256" in kinds and "reveal-missing" in kinds


def test_reserved_build_refuses_a_public_folder(mini_release, tmp_path, key):
    out = tmp_path / "rel"
    shutil.copytree(mini_release, out)
    with pytest.raises(ReleaseError, match="not a reserved build"):
        rsv.build_reserved("arena-synthetic", key_file=key, out=out, blocks=[0], quiet=True)
    os.makedirs(tmp_path / "p")
    shutil.copyfile(key, tmp_path / "p" / "k")
    with pytest.raises(ReleaseError, match="inside"):
        rsv.build_reserved(
            "arena-synthetic", key_file=tmp_path / "p" / "k", out=tmp_path / "p", quiet=True
        )


def test_reveal_of_an_old_public_seed_commitment_is_refused(frozen, key, tmp_path):
    rel = tmp_path / "rel"
    shutil.copytree(frozen, rel)
    m = json.loads((rel / "manifest.json").read_text())
    del m["freeze"]["reserved"]["scheme"]
    (rel / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ReleaseError, match="scheme"):
        rsv.verify_reveal(rel, key)


def test_reserved_fingerprints_published_without_ids_and_guard_uses_them(frozen, reserved_dir):
    """freeze publishes one fingerprint per reserved SCM (issue 13 §2), apart from the
    commitments and without instance ids; the stream guard's index contains them, and the
    fingerprint of a reserved spec (read with the key's private build) is among them."""
    import pyarrow.parquet as pq

    from causalarena.fingerprint import fingerprint
    from causalarena.loaders.stream import release_fingerprints

    r = json.loads((frozen / "manifest.json").read_text())["freeze"]["reserved"]
    fps = r["fingerprints"]
    assert fps and r["fingerprint_scheme"].startswith("wl4")
    assert all(set(f) == {"config", "exact", "mix", "graph"} for f in fps)
    assert all("fingerprint" not in c for c in r["commitments"])
    shard = sorted((reserved_dir / "data" / "synthetic-obs").glob("*.parquet"))[0]
    spec = pq.read_table(shard, columns=["spec"]).column("spec")[0].as_py()
    fp = fingerprint(spec)
    assert {"config": "synthetic-obs", **fp} in fps
    idx = release_fingerprints(frozen)
    assert fp["exact"] in idx["exact"] and fp["graph"] in idx["graph"]
