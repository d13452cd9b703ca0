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
