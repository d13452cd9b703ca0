"""Hostile and unlucky users against the release engine, verify and load (issue 9 §4).

Each test reproduces an attack found by hand on a mini build and asserts the refusal (or the
clear one-line error) a correct implementation gives and the earlier one did not.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from causalarena.errors import ReleaseError

OBS = "synthetic-obs"


@pytest.fixture
def frozen(mini_release, tmp_path):
    """A private copy of the mini release, frozen as 1.0.0 (no reserved commitment)."""
    from causalarena.release.freeze import freeze

    out = tmp_path / "rel"
    shutil.copytree(mini_release, out, ignore=shutil.ignore_patterns(".build"))
    freeze(out, "1.0.0", reserved=False, today="2026-01-01")
    return out


def _swap_and_rerender(folder):
    """Swap two shards' bytes and rewrite their manifest entries (the freeze is left alone)."""
    m = json.loads((folder / "manifest.json").read_text())
    a, b = sorted(f["path"] for f in m["files"] if f.get("config") == OBS)[:2]
    ba, bb = (folder / a).read_bytes(), (folder / b).read_bytes()
    (folder / a).write_bytes(bb)
    (folder / b).write_bytes(ba)
    for f in m["files"]:
        if f["path"] in (a, b):
            data = (folder / f["path"]).read_bytes()
            f["sha256"], f["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (folder / "manifest.json").write_text(json.dumps(m, indent=2))
    return a, b


def test_swapped_shards_with_rerendered_manifest_break_the_freeze(frozen):
    from causalarena.release.render import write_metadata_files
    from causalarena.release.verify import verify

    assert verify(frozen) == []
    a, _ = _swap_and_rerender(frozen)
    write_metadata_files(frozen)  # the card and croissant.json now agree with the manifest too
    problems = verify(frozen)
    assert {p["problem"] for p in problems} == {"freeze"}
    assert [p["path"] for p in problems] == ["manifest.json", "frozen/1.0.0.json"]
    assert a in str(problems[0]["expected"]) or a in str(problems[0]["found"])


def test_load_refuses_a_frozen_release_whose_manifest_no_longer_matches_its_freeze(frozen):
    from causalarena.loaders.load import load
    from causalarena.release.render import write_metadata_files

    _swap_and_rerender(frozen)
    write_metadata_files(frozen)
    with pytest.raises(ReleaseError) as exc:
        load(OBS, source=frozen, streaming=True)
    assert "freeze" in str(exc.value)


def test_freeze_registry_record_disagreeing_with_manifest_is_reported(frozen):
    from causalarena.release.verify import verify

    rp = frozen / "frozen" / "1.0.0.json"
    rec = json.loads(rp.read_text())
    path = next(iter(rec["content"]["files"]))
    rec["content"]["files"][path] = "0" * 64
    rp.write_text(json.dumps(rec))
    problems = verify(frozen)
    assert [p["problem"] for p in problems] == ["freeze"]
    assert "frozen/1.0.0.json" in problems[0]["path"]


def test_huge_integer_in_manifest_is_a_clear_release_error(tmp_path):
    from causalarena.release.manifest import read_manifest

    (tmp_path / "manifest.json").write_text('{"suite": 1' + "0" * 5000 + "}")
    with pytest.raises(ReleaseError) as exc:
        read_manifest(tmp_path)
    msg = str(exc.value)
    assert "manifest.json" in msg and "5001 digits" in msg and "set_int_max_str_digits" not in msg


def test_huge_integer_in_manifest_exits_2_with_one_line(tmp_path, capsys):
    from causalarena.cli import main

    (tmp_path / "manifest.json").write_text('{"suite": 1' + "0" * 5000 + "}")
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "manifest.json" in err[0]


def test_data_folder_symlinked_outside_the_release_is_refused(mini_release, tmp_path):
    from causalarena.loaders.load import load
    from causalarena.release.verify import verify

    rel = tmp_path / "rel"
    shutil.copytree(mini_release, rel, ignore=shutil.ignore_patterns(".build"))
    outside = tmp_path / "elsewhere"
    shutil.move(rel / "data" / OBS, outside)
    (rel / "data" / OBS).symlink_to(outside, target_is_directory=True)
    problems = verify(rel)
    assert problems and {p["problem"] for p in problems} == {"not-a-file"}
    assert all(p["path"].startswith(f"data/{OBS}/") for p in problems)
    with pytest.raises(ReleaseError):
        load(OBS, source=rel, streaming=True)


@pytest.mark.parametrize(
    "name, edit",
    [
        ("croissant.json", lambda s: s.replace('"name": "', '"name": "evil ', 1)),
        ("README.md", lambda s: s.replace("## ", "## Evil ", 1)),
        (".zenodo.json", lambda s: s.replace('"title": "', '"title": "Evil ', 1)),
    ],
)
def test_hand_edited_metadata_is_reported_and_not_published(frozen, name, edit):
    from causalarena.release.publish import publish_hf
    from causalarena.release.verify import verify_metadata

    assert verify_metadata(frozen) == []
    publish_hf(frozen, "org/name", "1.0.0", dry_run=True)  # the untouched release is fine
    path = frozen / name
    text = path.read_text()
    assert edit(text) != text
    path.write_text(edit(text))
    found = [p["found"] for p in verify_metadata(frozen)]
    assert any(f.startswith(f"{name}: differs from the rendering") for f in found), found
    with pytest.raises(ReleaseError) as exc:
        publish_hf(frozen, "org/name", "1.0.0", dry_run=True)
    assert name in str(exc.value)


def test_reveal_refuses_a_key_file_inside_the_release(frozen, tmp_path):
    from causalarena.release.reserved import SCHEME, generate_key, verify_reveal

    m = json.loads((frozen / "manifest.json").read_text())
    m["freeze"]["reserved"] = {"scheme": SCHEME, "key_id": "0" * 16}
    (frozen / "manifest.json").write_text(json.dumps(m))
    inside = frozen / "arena.key"
    generate_key(inside)
    with pytest.raises(ReleaseError) as exc:
        verify_reveal(frozen, inside)
    assert "inside" in str(exc.value) and "arena.key" in str(exc.value)
    outside = tmp_path / "arena.key"
    generate_key(outside)
    found = verify_reveal(frozen, outside)  # outside the folder: checked (wrong key reported)
    assert found and found[0]["problem"].startswith("reveal")


def test_refreezing_swapped_content_names_the_changed_files(frozen):
    from causalarena.release.freeze import FreezeError, freeze
    from causalarena.release.render import write_metadata_files

    a, b = _swap_and_rerender(frozen)
    write_metadata_files(frozen)
    with pytest.raises(FreezeError) as exc:
        freeze(frozen, "1.0.0", reserved=False)
    assert a in str(exc.value) and b in str(exc.value)


@pytest.mark.parametrize(
    "field, value",
    [
        ("suite", None),
        ("version", 1),
        ("scale", ["mini"]),
        ("environment", "x"),
        ("freeze", "x"),
        ("publication", 5),
    ],
)
def test_manifest_header_of_the_wrong_type_is_a_clear_error(mini_release, tmp_path, field, value):
    from causalarena.cli import main
    from causalarena.release.manifest import read_manifest

    rel = tmp_path / "rel"
    shutil.copytree(mini_release, rel, ignore=shutil.ignore_patterns(".build", "data"))
    m = json.loads((rel / "manifest.json").read_text())
    m[field] = value
    (rel / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ReleaseError) as exc:
        read_manifest(rel)
    assert f"manifest.json: {field} must be" in str(exc.value)
    assert main(["release", "freeze", str(rel), "--version", "1.0.0", "--no-reserved"]) == 2
