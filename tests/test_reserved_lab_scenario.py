"""Reserved halves of the lab, semantic and formula families through the Family contract
(issue 9 §3): drawn from a throwaway key (lab) or read from a throwaway private scenario
folder (semantic/formula), committed at freeze, checked by ``verify --reveal``."""

from __future__ import annotations

import hashlib
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causalarena.errors import ReleaseError
from causalarena.family import family_of
from causalarena.generator.scenario.family import RESERVED_ENV
from causalarena.generator.scenario.pool import scenario_files
from causalarena.release import engine
from causalarena.release import reserved as rsv
from causalarena.release.freeze import freeze


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    d = tmp_path_factory.mktemp("secret")
    rsv.generate_key(d / "k")
    rsv.generate_key(d / "wrong")
    return d / "k", d / "wrong"


def _changed_byte(reserved_dir, tmp_path, column):
    """Copy of a reserved build with one value of ``column`` in its first row changed (the
    manifest's checksums updated, so only the commitment can tell)."""
    rd = tmp_path / "changed"
    shutil.copytree(reserved_dir, rd)
    m = json.loads((rd / "manifest.json").read_text())
    f = m["files"][0]
    t = pq.read_table(rd / f["path"])
    rows = t.to_pylist()
    rows[0][column] = column_change(rows[0][column])
    pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), rd / f["path"])
    data = (rd / f["path"]).read_bytes()
    f["bytes"], f["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (rd / "manifest.json").write_text(json.dumps(m))
    return rd, rows[0]


def column_change(value):
    if isinstance(value, str):  # one character of a JSON/text column
        return value[:-2] + ("0" if value[-2] != "0" else "1") + value[-1]
    first = value[0]
    if isinstance(first, list):
        return [[first[0] + 1.0, *first[1:]], *value[1:]]
    return [first + 1.0, *value[1:]]


# ----------------------------------------------------------------------------- lab
@pytest.fixture(scope="module")
def lab(tmp_path_factory, keys):
    root = tmp_path_factory.mktemp("lab")
    rel = engine.build("lab-freqparent", scale="mini", out=root / "rel", quiet=True)
    freeze(rel, "0.1.0", reserved_key=keys[0], today="2026-12-01")
    res = rsv.build_reserved("lab-freqparent", key_file=keys[0], out=root / "res", quiet=True)
    return rel, res


def test_lab_reserved_episodes_come_from_the_key_not_the_public_seed(lab, keys):
    rel, res = lab
    m = json.loads((rel / "manifest.json").read_text())["freeze"]["reserved"]
    pub = pa.concat_tables([pq.read_table(p) for p in sorted((rel / "data").rglob("*.parquet"))])
    priv = pa.concat_tables([pq.read_table(p) for p in sorted((res / "data").rglob("*.parquet"))])
    assert m["count"] == priv.num_rows == pub.num_rows > 0
    assert {c["instance_id"] for c in m["commitments"]} == set(priv["episode_id"].to_pylist())
    assert not set(priv["episode_id"].to_pylist()) & set(pub["episode_id"].to_pylist())
    # same positions, different hidden SCMs and records: drawn from the key, not the seed
    assert priv["index"].to_pylist() == pub["index"].to_pylist()
    assert not set(priv["records"].to_pylist()) & set(pub["records"].to_pylist())
    other = rsv.family_commitments(
        family_of("lab-freqparent"), "lab-freqparent", "mini", rsv.read_key(keys[1])
    )
    assert other["root_sha256"] != m["root_sha256"]


def test_lab_reveal_passes_with_the_key_fails_with_a_wrong_key_or_a_changed_byte(
    lab, keys, tmp_path
):
    rel, res = lab
    assert rsv.verify_reveal(rel, keys[0]) == []
    assert rsv.verify_reveal(rel, keys[0], reserved_dir=res) == []
    kinds = {p["problem"] for p in rsv.verify_reveal(rel, keys[1])}
    assert {"reveal-key", "reveal-sha256"} <= kinds
    rd, row = _changed_byte(res, tmp_path, "reactor")
    probs = rsv.verify_reveal(rel, keys[0], reserved_dir=rd)
    assert [(p["path"], p["problem"]) for p in probs] == [(row["episode_id"], "reveal-sha256")]


def test_lab_card_states_the_commitment_and_croissant_url_is_not_the_package_page(lab):
    rel, _ = lab
    m = json.loads((rel / "manifest.json").read_text())["freeze"]["reserved"]
    card = (rel / "README.md").read_text()
    assert f"Reserved commitment: {m['count']} reserved instances" in card
    assert m["root_sha256"] in card and "drawn from a secret key" in card
    js = json.loads((rel / "croissant.json").read_text())
    assert js["url"] == "./"  # unpublished: this folder, not https://pypi.org/...


def test_converted_causalab_suite_has_no_reserved_half():
    fam = family_of("lab-causalab-v0.0.2")
    assert not rsv.has_reserved(fam, "lab-causalab-v0.0.2") and rsv.has_reserved(fam, "lab-main")


# ----------------------------------------------------------------------------- scenarios
def _private_folder(root, kind: str, n: int = 2, *, vary: bool = True):
    """A throwaway reserved pool: ``n`` public formula scenario files under new ids, with the
    first declared constant raised by 0.1% (``vary``) so they are new SCMs, not renamed ones."""
    import re

    for f in scenario_files(kind)[:n]:
        new = f"{f.stem}_private"
        dest = root / kind / f.parent.name / f"{new}.yaml"
        dest.parent.mkdir(parents=True, exist_ok=True)
        text = f.read_text().replace(f"id: {f.stem}\n", f"id: {new}\n", 1)
        if vary:
            m = re.search(r"\{value: ([-0-9.eE+]+),", text)
            text = text[: m.start(1)] + repr(float(m.group(1)) * 1.001) + text[m.end(1) :]
        assert text != f.read_text()
        dest.write_text(text)
    return root


def _data_shas(folder):
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((folder / "data").rglob("*.parquet"))
    }


@pytest.fixture(scope="module")
def formula(tmp_path_factory, keys, formula_release):
    root = tmp_path_factory.mktemp("formula")
    private = _private_folder(root / "private", "formula")
    mp = pytest.MonkeyPatch()
    # a copy of the session-wide public build (made without any private folder), frozen here
    rel = root / "rel"
    shutil.copytree(formula_release, rel)
    public = _data_shas(rel)
    with pytest.raises(ReleaseError, match=RESERVED_ENV):  # no private folder: refused
        freeze(rel, "0.1.0", reserved_key=keys[0])
    mp.setenv(RESERVED_ENV, str(private))
    freeze(rel, "0.1.0", reserved_key=keys[0], today="2026-12-01")
    res = rsv.build_reserved("arena-formula", key_file=keys[0], out=root / "res", quiet=True)
    yield rel, res, private, public
    mp.undo()


def test_public_build_needs_no_private_folder_and_is_every_repository_file(formula):
    rel, _, _, public = formula
    m = json.loads((rel / "manifest.json").read_text())
    assert m["definition"]["public"] == [
        f"{f.parent.name}/{f.stem}" for f in scenario_files("formula")
    ]
    again = engine.build("arena-formula", scale="mini", out=rel.parent / "again", quiet=True)
    assert _data_shas(again) == public


def test_formula_commitments_name_no_reserved_scenario(formula):
    rel, res, private, _ = formula
    m = json.loads((rel / "manifest.json").read_text())
    r = m["freeze"]["reserved"]
    assert r["count"] == 2 * 2 and set(r["pools"]) == {"formula-obs", "formula-obsint"}
    text = json.dumps(m)
    for f in private.rglob("*.yaml"):
        assert f.stem not in text and hashlib.sha256(f.read_bytes()).hexdigest() not in text
    priv = pq.read_table(res / "data" / "formula-obs").to_pylist()
    assert sorted(x["scenario"] for x in priv) == sorted(f.stem for f in private.rglob("*.yaml"))
    assert all(x["scm_id"].startswith("formula-reserved-") for x in priv)


def test_formula_reveal_right_key_wrong_key_changed_byte(formula, keys, tmp_path):
    rel, res, _, _ = formula
    assert rsv.verify_reveal(rel, keys[0]) == []
    assert rsv.verify_reveal(rel, keys[0], reserved_dir=res) == []
    kinds = {p["problem"] for p in rsv.verify_reveal(rel, keys[1])}
    assert {"reveal-key", "reveal-sha256"} <= kinds
    rd, row = _changed_byte(res, tmp_path, "X")
    probs = rsv.verify_reveal(rel, keys[0], reserved_dir=rd)
    assert [(p["path"], p["problem"]) for p in probs] == [(row["instance_id"], "reveal-sha256")]


def test_an_edited_private_scenario_file_fails_the_reveal(formula, keys, tmp_path, monkeypatch):
    rel, _, private, _ = formula
    copy = tmp_path / "p"
    shutil.copytree(private, copy)
    f = sorted(copy.rglob("*.yaml"))[0]
    f.write_text(f.read_text().replace("title: ", "title: X", 1))  # one changed byte
    monkeypatch.setenv(RESERVED_ENV, str(copy))
    kinds = {p["problem"] for p in rsv.verify_reveal(rel, keys[0])}
    assert kinds == {"reveal-sha256"}


def test_private_folder_must_not_repeat_a_public_scenario(tmp_path, monkeypatch):
    from causalarena.generator.scenario.family import reserved_units

    f = scenario_files("semantic")[0]
    dest = tmp_path / "semantic" / f.parent.name / f.name
    dest.parent.mkdir(parents=True)
    shutil.copy(f, dest)
    monkeypatch.setenv(RESERVED_ENV, str(tmp_path))
    with pytest.raises(ReleaseError, match="also a public scenario"):
        reserved_units("arena-semantic", "mini")
    # the same SCM under another id (only names differ): refused by its fingerprint
    renamed = _private_folder(tmp_path / "renamed", "formula", n=1, vary=False)
    monkeypatch.setenv(RESERVED_ENV, str(renamed))
    with pytest.raises(ReleaseError, match="compiles to the same SCM as the public scenario"):
        reserved_units("arena-formula", "mini")
    monkeypatch.setenv(RESERVED_ENV, str(f.parents[2]))  # the package's own folder
    with pytest.raises(ReleaseError, match="inside the package"):
        reserved_units("arena-semantic", "mini")
