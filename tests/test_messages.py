"""Bad input gets one line naming the file and the value, never a Python repr (breaker and
tester findings of the second session)."""

from __future__ import annotations

import json

import pytest

from causalarena.errors import CausalArenaError


def test_binary_key_file_is_named_not_decoded(tmp_path):
    from causalarena.release.reserved import read_key

    key = tmp_path / "k.key"
    key.write_bytes(bytes(range(128, 256)))
    with pytest.raises(CausalArenaError) as e:
        read_key(key)
    msg = str(e.value)
    assert msg.startswith(f"{key}: not a reserved key file (binary content")
    assert "codec" not in msg and "0x" not in msg
    with pytest.raises(CausalArenaError, match="cannot read the reserved key"):
        read_key(tmp_path / "missing.key")


def test_output_folder_of_another_release_is_described_not_a_dict(tmp_path):
    from causalarena.release.engine import check_output_folder

    m = {"suite": "arena-synthetic", "version": "1.0.0", "scale": "mini", "configs": {}}
    (tmp_path / "manifest.json").write_text(json.dumps({**m, "files": []}))
    with pytest.raises(CausalArenaError) as e:
        check_output_folder(tmp_path, "dotime-import", "1.0.0", "full")
    assert str(e.value) == (
        f"{tmp_path}: holds the release arena-synthetic 1.0.0 (mini), not dotime-import "
        "1.0.0 (full); choose another folder"
    )


def test_overlap_of_a_missing_path_says_so(tmp_path):
    from causalarena.eval.overlap import corpus_fingerprints

    with pytest.raises(ValueError, match=r"nope: no such file or folder \(expected a corpus"):
        corpus_fingerprints(tmp_path / "nope")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(ValueError, match=r"f\.txt: not a corpus folder or a \.json stream"):
        corpus_fingerprints(tmp_path / "f.txt")
