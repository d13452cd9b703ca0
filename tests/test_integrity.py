"""Release integrity (issue 9 §3-4): hostile JSON, corrupted folders refused by load and verify,
Parquet page checksums, Zarr/card/Croissant/manifest checks, reserved-key commitments."""

from __future__ import annotations

import json

import pytest

from causalarena.errors import ReleaseError, SpecError
from causalarena.safejson import JSONDepthError, loads, text_depth


# ------------------------------------------------------------------ nested / malformed JSON
def test_text_depth_ignores_brackets_inside_strings():
    assert text_depth(b'{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert text_depth('"\\"[[["') == 0
    assert text_depth(b"[]") == 1 and text_depth(b"3") == 0


@pytest.mark.parametrize("depth", [65, 500, 900, 100_000])
def test_deeply_nested_spec_json_is_a_spec_error(depth):
    from causalarena import SCMSpec

    base = {
        "scm_id": "a",
        "variables": [
            {"name": "X", "role": "root", "root": {"family": "gaussian", "params": {"mean": 0}}}
        ],
    }
    text = json.dumps(base).replace('"mean": 0', '"mean": ' + "[" * depth + "]" * depth)
    with pytest.raises(SpecError) as exc:
        SCMSpec.from_json(text)
    assert "deep" in str(exc.value) and "limit 64" in str(exc.value)
    if depth <= 500:  # the same object given as a dict (no JSON parsing on the way)
        with pytest.raises(SpecError) as exc:
            SCMSpec.from_dict(json.loads(text))
        assert "root.params.mean" in str(exc.value)


def test_deeply_nested_temporal_spec_json_is_a_spec_error():
    from causalarena.spec_temporal import TemporalSCM

    with pytest.raises(SpecError) as exc:
        TemporalSCM.from_json('{"a": ' + "[" * 5000 + "]" * 5000 + "}")
    assert "deep" in str(exc.value)


@pytest.mark.parametrize(
    "content, needle",
    [
        (b'{"files": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "levels deep"),
        (b"[" * 600 + b"]" * 600, "levels deep"),
        (b'{"suite": "x"', "not valid UTF-8 JSON"),
        (b"\xff\xfe", "not valid UTF-8 JSON"),
        (b"[1, 2]", "top level must be a JSON object"),
    ],
)
def test_malformed_manifest_is_a_clear_release_error(tmp_path, content, needle):
    from causalarena.release.manifest import read_manifest

    (tmp_path / "manifest.json").write_bytes(content)
    with pytest.raises(ReleaseError) as exc:
        read_manifest(tmp_path)
    assert needle in str(exc.value) and "manifest.json" in str(exc.value)


@pytest.mark.parametrize(
    "entry, field",
    [
        ({"path": "../x.parquet", "bytes": 1, "sha256": "0" * 64}, "files[0].path"),
        ({"path": "/etc/passwd", "bytes": 1, "sha256": "0" * 64}, "files[0].path"),
        ({"path": ["a"], "bytes": 1, "sha256": "0" * 64}, "files[0].path"),
        ({"path": "data/a.parquet", "bytes": "1", "sha256": "0" * 64}, "files[0].bytes"),
        ({"path": "data/a.parquet", "bytes": 1, "sha256": {"x": 1}}, "files[0].sha256"),
        ({"path": "data/a.parquet"}, "files[0]"),
    ],
)
def test_manifest_field_errors_name_the_field(tmp_path, entry, field):
    from causalarena.release.manifest import read_manifest

    m = {"suite": "s", "version": "1.0.0", "scale": "mini", "configs": {}, "files": [entry]}
    (tmp_path / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ReleaseError) as exc:
        read_manifest(tmp_path)
    assert field in str(exc.value)


def test_verify_cli_on_nested_manifest_exits_2_not_3(tmp_path, capsys):
    from causalarena.cli import main

    (tmp_path / "manifest.json").write_bytes(b"[" * 200_000 + b"]" * 200_000)
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json" in err and "Traceback" not in err


def test_loads_limit():
    with pytest.raises(JSONDepthError):
        loads("[[[1]]]", limit=2)
    assert loads("[[1]]", limit=2) == [[1]]


# ------------------------------------------------------------------ corrupted release folders
OBS = "synthetic-obs"
SHARD = SHARD_NAME = OTHER = ""  # set from the built release's manifest (shard names follow
N_OBS = N_OBSINT = 0  # the engine's shard-count rule)


@pytest.fixture(autouse=True, scope="module")
def _shard_names(mini_release):
    global SHARD, SHARD_NAME, OTHER, N_OBS, N_OBSINT
    m = json.loads((mini_release / "manifest.json").read_text())
    obs = sorted(f["path"] for f in m["files"] if f.get("config") == OBS)
    SHARD, OTHER = obs[3], obs[10]
    SHARD_NAME = SHARD.rsplit("/", 1)[1]
    N_OBS = len(obs)
    N_OBSINT = sum(1 for f in m["files"] if f.get("config") == "synthetic-obsint")


def _rows(folder, path):
    m = json.loads((folder / "manifest.json").read_text())
    return next(f["rows"] for f in m["files"] if f["path"] == path)


@pytest.fixture
def rel(mini_release, tmp_path):
    """A private copy of the mini synthetic release."""
    import shutil

    out = tmp_path / "rel"
    shutil.copytree(mini_release, out)
    return out


@pytest.fixture(scope="module")
def dot_release(tmp_path_factory):
    """A mini dot-generic temporal release (Parquet config + Zarr store), built via the CLI."""
    from causalarena.cli import main

    out = tmp_path_factory.mktemp("dot") / "dot"
    assert main(["build", "dot-generic", "--scale", "mini", "--out", str(out), "--quiet"]) == 0
    return out


def _load(folder, config=OBS, **kw):
    from causalarena.loaders.load import load

    return load(config, source=folder, **kw)


def _refused(folder, name, config=OBS, problem=None, **kw):
    """Both verify and load refuse the folder, naming ``name``."""
    from causalarena.release.verify import verify

    probs = verify(folder)
    assert any(name in str(p) for p in probs), probs
    if problem is not None:
        assert problem in {p["problem"] for p in probs}, probs
    with pytest.raises(ReleaseError) as exc:
        _load(folder, config, **kw)
    assert name in str(exc.value) and "refusing" in str(exc.value)
    return probs


def test_clean_release_verifies_and_loads(rel):
    from causalarena.release.verify import verify

    assert verify(rel) == []
    assert len(_load(rel)) == 50


def test_deleted_shard_is_refused(rel):
    (rel / SHARD).unlink()
    probs = _refused(rel, SHARD_NAME, problem="missing")
    assert [p["problem"] for p in probs] == ["missing"]  # one file, one problem


def test_added_shard_is_refused(rel):
    import shutil

    shutil.copyfile(rel / SHARD, rel / "data/synthetic-obs/test-00099-of-00099.parquet")
    probs = _refused(rel, "test-00099-of-00099.parquet", problem="extra")
    assert [p["problem"] for p in probs] == ["extra"]


def test_replaced_shard_is_refused(rel):
    import shutil

    # a valid shard of the same config copied over another one: well-formed, wrong content
    shutil.copyfile(rel / OTHER, rel / SHARD)
    _refused(rel, SHARD_NAME)


def test_replaced_shard_with_same_size_is_refused_by_checksum(rel):
    p = rel / SHARD
    b = bytearray(p.read_bytes())
    b[len(b) // 2], b[len(b) // 2 + 1] = b[len(b) // 2 + 1], b[len(b) // 2]  # same size
    if b == p.read_bytes():
        b[len(b) // 2] ^= 0x10
    p.write_bytes(bytes(b))
    _refused(rel, SHARD_NAME, problem="sha256")
    # the basic level (sizes only) does not hash; the page checksums catch the damage on read
    with pytest.raises(ReleaseError):
        ds = _load(rel, verification="basic")
        list(ds)


def test_truncated_shard_is_refused(rel):
    p = rel / SHARD
    p.write_bytes(p.read_bytes()[:-100])
    _refused(rel, SHARD_NAME, problem="size")


def test_random_single_bit_flips_are_all_refused(rel):
    import random

    from causalarena.release.verify import verify

    p = rel / SHARD
    good = p.read_bytes()
    rnd = random.Random(9)
    for _ in range(12):
        b = bytearray(good)
        b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        p.write_bytes(bytes(b))
        assert {(q["path"], q["problem"]) for q in verify(rel)} == {(SHARD, "sha256")}
        with pytest.raises(ReleaseError, match=SHARD_NAME):
            _load(rel)
    p.write_bytes(good)
    assert verify(rel) == []


def test_page_checksums_turn_flipped_bits_into_errors(rel):
    """Every shard carries page CRCs: no flip inside a data page reads back as another value."""
    import random

    import pyarrow.parquet as pq

    p = rel / SHARD
    good = p.read_bytes()
    ref = pq.read_table(p)
    meta = pq.ParquetFile(p).metadata
    x = ref.schema.get_field_index("X")
    col = meta.row_group(0).column(x)
    lo = col.dictionary_page_offset or col.data_page_offset  # X is dictionary-encoded
    hi = lo + col.total_compressed_size
    rnd = random.Random(3)
    silent_without, silent_with = 0, 0
    for _ in range(40):
        b = bytearray(good)
        b[rnd.randrange(lo + 16, hi)] ^= 1 << rnd.randrange(8)
        p.write_bytes(bytes(b))
        for verify_pages in (False, True):
            try:
                t = pq.read_table(p, page_checksum_verification=verify_pages)
            except Exception:
                continue
            if not t.equals(ref):
                silent_with += verify_pages
                silent_without += not verify_pages
    assert silent_with == 0
    assert silent_without > 0  # without the CRC check some flips do change values silently


def test_zarr_chunk_flip_is_refused(dot_release, tmp_path):
    import shutil

    from causalarena.release.manifest import read_manifest

    rel = tmp_path / "dot"
    shutil.copytree(dot_release, rel)
    from causalarena.release.verify import verify

    assert verify(rel) == []
    m = read_manifest(rel)
    chunk = next(f["path"] for f in m["files"] if f.get("store") and "/c/" in f["path"])
    b = bytearray((rel / chunk).read_bytes())
    b[len(b) // 3] ^= 0x04
    (rel / chunk).write_bytes(bytes(b))
    probs = _refused(rel, chunk, config="dot-generic", problem="sha256")
    assert {p["path"] for p in probs} == {chunk}


def test_unlisted_zarr_file_is_refused(dot_release, tmp_path):
    import shutil

    from causalarena.release.verify import verify

    rel = tmp_path / "dot"
    shutil.copytree(dot_release, rel)
    (rel / "zarr/dot-generic.zarr/x_obs/c/9").mkdir(parents=True)
    (rel / "zarr/dot-generic.zarr/x_obs/c/9/0").write_bytes(b"\0" * 8)
    assert {(p["path"], p["problem"]) for p in verify(rel)} == {
        ("zarr/dot-generic.zarr/x_obs/c/9/0", "extra")
    }


def _edit_card(folder, old, new):
    card = folder / "README.md"
    text = card.read_text()
    assert old in text
    card.write_text(text.replace(old, new, 1))


def test_card_redirected_to_another_config_is_refused(rel):
    _edit_card(rel, "path: data/synthetic-obs/*.parquet", "path: data/synthetic-obsint/*.parquet")
    probs = _refused(
        rel, f"{N_OBSINT} file(s) listed for config(s) ['synthetic-obsint']", problem="card"
    )
    assert [p["problem"] for p in probs] == ["card", "card"]  # none of its own, all foreign


def test_card_redirected_to_a_subset_is_refused(rel):
    _edit_card(
        rel, "path: data/synthetic-obs/*.parquet", "path: data/synthetic-obs/test-0000*.parquet"
    )
    probs = _refused(rel, f"{N_OBS - 10} of {N_OBS} not matched (a subset)", problem="card")
    assert len(probs) == 1


def test_card_redirected_outside_the_folder_is_refused(rel, tmp_path):
    import shutil

    outside = tmp_path / "elsewhere" / "data"
    shutil.copytree(rel / "data", outside)
    _edit_card(
        rel, "path: data/synthetic-obs/*.parquet", "path: ../elsewhere/data/synthetic-obs/*.parquet"
    )
    _refused(rel, "leaves the folder", problem="card")
    _edit_card(
        rel,
        "path: ../elsewhere/data/synthetic-obs/*.parquet",
        f"path: {outside}/synthetic-obs/*.parquet",
    )
    _refused(rel, "absolute path", problem="card")
    _edit_card(
        rel, f"path: {outside}/synthetic-obs/*.parquet", "path: hf://datasets/x/y/data/*.parquet"
    )
    _refused(rel, "URL", problem="card")


def test_card_config_missing_or_unknown_is_a_problem(rel):
    from causalarena.release.verify import verify

    _edit_card(rel, "config_name: synthetic-obsint", "config_name: synthetic-other")
    found = {p["found"] for p in verify(rel) if p["problem"] == "card"}
    assert "config 'synthetic-other' is not in the manifest" in found
    assert "not declared" in found
    assert len(_load(rel)) == 50  # the obs config itself is intact and still served


def test_manifest_inconsistency_is_reported(rel):
    from causalarena.release.verify import verify

    m = json.loads((rel / "manifest.json").read_text())
    r = m["files"][0]["rows"]
    m["configs"][OBS]["rows"] += r + 1
    m["files"].append({**m["files"][0]})  # the same path twice (r more rows in the sum)
    (rel / "manifest.json").write_text(json.dumps(m))
    found = [p["found"] for p in verify(rel) if p["problem"] == "manifest"]
    assert any("listed twice" in f for f in found)
    assert any(
        f"configs.{OBS}.rows is {51 + r}, the files of {OBS} sum to {50 + r}" in f for f in found
    )
    with pytest.raises(ReleaseError, match="manifest"):
        _load(rel)


def test_manifest_rows_disagree_with_parquet_footer(rel):
    from causalarena.release.verify import verify

    m = json.loads((rel / "manifest.json").read_text())
    k = next(i for i, f in enumerate(m["files"]) if f["path"] == SHARD)
    orig = m["files"][k]["rows"]
    m["files"][k]["rows"] = 7
    m["configs"][OBS]["rows"] += 7 - orig
    (rel / "manifest.json").write_text(json.dumps(m))
    assert [(p["path"], p["problem"], p["found"]) for p in verify(rel)] == [(SHARD, "rows", orig)]


def test_config_without_files_is_a_manifest_problem(rel):
    from causalarena.release.verify import verify

    m = json.loads((rel / "manifest.json").read_text())
    m["configs"]["synthetic-ghost"] = {"rows": 0, "shards": 0, "split": "test"}
    (rel / "manifest.json").write_text(json.dumps(m))
    found = [p["found"] for p in verify(rel)]
    assert "configs.synthetic-ghost has no file in files" in found


def test_croissant_disagreeing_with_manifest_is_reported(rel):
    from causalarena.release.verify import verify

    c = json.loads((rel / "croissant.json").read_text())
    fo = next(d for d in c["distribution"] if d.get("contentUrl") == SHARD)
    fo["sha256"] = "0" * 64
    fs = next(d for d in c["distribution"] if d["@type"].endswith("FileSet"))
    fs["includes"] = "../*.parquet"
    (rel / "croissant.json").write_text(json.dumps(c))
    probs = [p for p in verify(rel) if p["problem"] == "croissant"]
    assert any(SHARD in str(p["expected"]) and p["found"] == "0" * 64 for p in probs)
    assert any("leaves the folder" in str(p["found"]) for p in probs)


def test_load_checksum_cache_never_serves_stale(rel):
    """A second load reuses the cached hashes; any rewrite of a shard is hashed again."""
    import os

    from causalarena.loaders import load as L

    calls = []
    real = L.__dict__.get("sha256_file")
    assert real is None  # imported lazily inside _digest_cache
    from causalarena.release import io

    orig = io.sha256_file

    def counting(path, *a, **k):
        calls.append(str(path))
        return orig(path, *a, **k)

    io.sha256_file = counting
    try:
        _load(rel)
        first = len(calls)
        _load(rel)
        assert first == N_OBS and len(calls) == first  # second load: no re-hash
        # rewrite a shard with flipped content but restore size and mtime: still re-hashed
        p = rel / SHARD
        st = p.stat()
        b = bytearray(p.read_bytes())
        b[200] ^= 0x01
        p.write_bytes(bytes(b))
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
        with pytest.raises(ReleaseError, match=SHARD_NAME):
            _load(rel)
        assert len(calls) == first + 1
    finally:
        io.sha256_file = orig


def test_verification_none_skips_checks_and_bad_value_is_refused(rel):
    gone = _rows(rel, OTHER)
    (rel / OTHER).unlink()
    assert len(_load(rel, verification="none")) == 50 - gone
    with pytest.raises(ValueError, match="verification"):
        _load(rel, verification="paranoid")


def test_fixed_d_view_is_checked_like_a_config(rel):
    """A view ``<config>-dNNN`` serves only its config's shards holding that d."""
    from causalarena.release.verify import verify

    ds = _load(rel, "synthetic-obs-d010")
    assert len(ds) == 10 and set(ds["d"]) == {10}
    card = (rel / "README.md").read_text()
    head, rest = card.split("- config_name: synthetic-obs-d010\n", 1)
    entry, tail = rest.split("- config_name:", 1)
    d20 = next(ln for ln in tail.splitlines() if "data/synthetic-obs/" in ln)  # a d=20 shard
    bad = entry.replace(entry.splitlines()[3], d20, 1)  # first listed d=10 shard -> d=20 one
    (rel / "README.md").write_text(
        head + "- config_name: synthetic-obs-d010\n" + bad + "- config_name:" + tail
    )
    probs = [p for p in verify(rel) if p["problem"] == "card"]
    assert any("serves only rows of d=10" in str(p["expected"]) for p in probs), probs
    with pytest.raises(ReleaseError, match="d=10"):
        _load(rel, "synthetic-obs-d010")
