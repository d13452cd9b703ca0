"""Citation files, freeze/immutability, verify (--rebuild, --reveal), versioned load, publish."""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from causalarena import cli_release
from causalarena.errors import ReleaseError
from causalarena.release import freeze as fz
from causalarena.release.citation import (
    load_cff,
    repo_zenodo_dict,
    validate_cff,
    validate_zenodo,
)
from causalarena.release.manifest import read_manifest
from causalarena.release.render import write_metadata_files
from causalarena.release.verify import verify, verify_rebuild
from conftest import shard_of

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = [0, 1]  # reserved commitments of two blocks keep the tests fast


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` with the release verbs only and dispatch (as cli.py will)."""
    p = argparse.ArgumentParser(prog="causalarena")
    sub = p.add_subparsers(dest="cmd", required=True)
    cli_release.add_commands(sub)
    return cli_release.dispatch(p.parse_args(argv))


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    """A throwaway reserved key, generated for this test module only."""
    from causalarena.release.reserved import generate_key

    path = tmp_path_factory.mktemp("secret") / "reserved.key"
    generate_key(path)
    return path


@pytest.fixture(scope="module")
def frozen(mini_release, tmp_path_factory, key):
    """A copy of the mini release, frozen as 1.0.0 (reserved commitment for BLOCKS)."""
    out = tmp_path_factory.mktemp("release") / "rel"
    shutil.copytree(mini_release, out)
    fz.freeze(out, "1.0.0", reserved_key=key, reserved_blocks=BLOCKS, today="2026-09-10")
    return out


@pytest.fixture
def copy(frozen, tmp_path):
    out = tmp_path / "rel"
    shutil.copytree(frozen, out)
    return out


# ----------------------------------------------------------------------------- citation files
def test_repo_citation_files_validate():
    assert validate_cff(ROOT / "CITATION.cff") == []
    assert validate_zenodo(ROOT / ".zenodo.json") == []
    assert json.loads((ROOT / ".zenodo.json").read_text()) == repo_zenodo_dict()


def test_release_citation_files_validate_and_say_pending(frozen):
    assert validate_cff(frozen / "CITATION.cff") == []
    assert validate_zenodo(frozen / ".zenodo.json") == []
    cff = load_cff(frozen / "CITATION.cff")
    zen = json.loads((frozen / ".zenodo.json").read_text())
    assert "doi" not in cff and "doi" not in zen
    assert "DOI pending" in (frozen / "CITATION.cff").read_text()
    assert "pending" in zen["notes"]
    assert cff["type"] == "dataset" and cff["date-released"] == "2026-09-10"
    assert zen["upload_type"] == "dataset" and zen["license"] == "cc-by-4.0"
    assert zen["related_identifiers"][0]["identifier"] == "arXiv:2609.11897"


def test_broken_citation_files_fail(tmp_path, frozen):
    cff = load_cff(frozen / "CITATION.cff")
    bad = dict(cff)
    bad.pop("authors")
    (tmp_path / "a.cff").write_text(json.dumps(bad))
    assert any("authors" in p for p in validate_cff(tmp_path / "a.cff"))
    bad = {**cff, "doi": "not-a-doi"}
    (tmp_path / "b.cff").write_text(json.dumps(bad))
    assert any("doi" in p for p in validate_cff(tmp_path / "b.cff"))
    zen = json.loads((frozen / ".zenodo.json").read_text())
    (tmp_path / "z.json").write_text(json.dumps({**zen, "upload_type": "software"}))
    assert any("upload_type" in p for p in validate_zenodo(tmp_path / "z.json"))
    (tmp_path / "z2.json").write_text(json.dumps({**zen, "related_identifiers": []}))
    assert validate_zenodo(tmp_path / "z2.json")


def test_set_doi_updates_every_file(copy):
    doi = "10.5281/zenodo.1234567"
    assert (
        run_cli(["release", "set-doi", str(copy), doi, "--previous-doi", "10.5281/zenodo.1"]) == 0
    )
    assert read_manifest(copy)["publication"]["doi"] == doi
    assert f"DOI: {doi}." in (copy / "README.md").read_text()
    assert load_cff(copy / "CITATION.cff")["doi"] == doi
    zen = json.loads((copy / ".zenodo.json").read_text())
    assert zen["doi"] == doi
    assert {"identifier": "10.5281/zenodo.1", "relation": "isNewVersionOf", "scheme": "doi"} in zen[
        "related_identifiers"
    ]
    assert doi in (copy / "croissant.json").read_text()
    assert (
        validate_cff(copy / "CITATION.cff") == [] and validate_zenodo(copy / ".zenodo.json") == []
    )
    assert run_cli(["release", "set-doi", str(copy), "zenodo-123"]) == 2


# ----------------------------------------------------------------------------- freeze
def test_freeze_records_everything(frozen):
    m = read_manifest(frozen)
    f = m["freeze"]
    assert f["version"] == "1.0.0" and f["seed"] == m["seed"] and f["definition"] == m["definition"]
    assert m["environment"]["dependencies"]["pyarrow"]
    reg = json.loads((frozen / "frozen" / "1.0.0.json").read_text())
    assert reg["content"]["files"] == {x["path"]: x["sha256"] for x in m["files"]}
    assert reg["content_sha256"] == f["content_sha256"]
    r = f["reserved"]
    # one reserved SCM per block at mini, x 2 settings x 1 replicate
    assert r["units"] == len(BLOCKS) and r["count"] == len(r["commitments"]) == 2 * len(BLOCKS)
    from causalarena.generator.synthetic.suites import get_suite
    from causalarena.release.reserved import pool_root

    s = get_suite("arena-synthetic")
    for c in r["commitments"]:
        assert c["position"] in s.reserved_positions(c["block"])
        assert c["position"] not in s.public_positions(c["block"])
    assert r["root_sha256"] == pool_root(r["commitments"])
    assert verify(frozen) == []


def test_refreeze_same_content_is_idempotent(copy, key):
    before = (copy / "frozen" / "1.0.0.json").read_text()
    fz.freeze(copy, "1.0.0", reserved_key=key, reserved_blocks=BLOCKS, write_metadata=False)
    assert (copy / "frozen" / "1.0.0.json").read_text() == before


def _swap_two_shards(folder: Path) -> tuple[str, str]:
    """Exchange two shards' bytes and update the manifest consistently (verify still passes)."""
    m = read_manifest(folder)
    a, b = m["files"][0], m["files"][1]
    pa, pb = folder / a["path"], folder / b["path"]
    da, db = pa.read_bytes(), pb.read_bytes()
    pa.write_bytes(db)
    pb.write_bytes(da)
    for f, data in ((a, db), (b, da)):
        f["bytes"], f["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(m, indent=2, sort_keys=True))
    write_metadata_files(folder)  # card and Croissant follow the manifest
    return a["path"], b["path"]


def test_freezing_different_content_is_refused(copy, capsys):
    pa, pb = _swap_two_shards(copy)
    # the re-rendered manifest no longer matches its freeze record (tests/test_attacks_release.py)
    assert {p["problem"] for p in verify(copy)} == {"freeze"}
    with pytest.raises(fz.FreezeError) as exc:
        fz.freeze(copy, "1.0.0", reserved=False)
    assert pa in str(exc.value) and pb in str(exc.value)
    assert run_cli(["release", "freeze", str(copy), "--version", "1.0.0", "--no-reserved"]) == 2
    assert pa in capsys.readouterr().err


def test_against_previous_manifest(frozen, copy):
    _swap_two_shards(copy)
    shutil.rmtree(copy / "frozen")
    with pytest.raises(fz.FreezeError, match="differs from frozen"):
        fz.freeze(copy, "1.0.0", reserved=False, against=frozen / "manifest.json")
    with pytest.raises(ReleaseError, match="not 2.0.0"):
        fz.freeze(copy, "2.0.0", reserved=False)


# ----------------------------------------------------------------------------- verify
def test_verify_reports_corrupted_shard(copy, capsys):
    p = shard_of(copy, "synthetic-obs", "chain", 10)
    b = bytearray(p.read_bytes())
    b[1000] ^= 0xFF
    p.write_bytes(bytes(b))
    assert run_cli(["verify", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "sha256" in out and p.name in out


def test_verify_rebuild_catches_substituted_shards(copy, capsys):
    pa, pb = _swap_two_shards(copy)
    # files agree with the re-rendered manifest (only its freeze record tells) ...
    assert {p["problem"] for p in verify(copy)} == {"freeze"}
    probs = verify_rebuild(copy)  # ... but not with what the recorded suite/seed produce
    assert {(p["path"], p["problem"]) for p in probs} == {
        (pa, "rebuild-sha256"),
        (pb, "rebuild-sha256"),
    }


@pytest.mark.slow
def test_verify_rebuild_cli_clean(frozen, capsys):
    assert run_cli(["verify", str(frozen), "--rebuild", "--metadata"]) == 0


# ----------------------------------------------------------------------------- versioned loading
def test_load_passes_revision_to_datasets(monkeypatch):
    import datasets

    import causalarena as ca

    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: calls.append((a, k)) or "ds")
    assert ca.load("synthetic-obs", source="org/arena", revision="v1.0.0") == "ds"
    ((args, kwargs),) = calls
    assert args == ("org/arena", "synthetic-obs") and kwargs["revision"] == "v1.0.0"


# ----------------------------------------------------------------------------- publish
class _Recorder(BaseHTTPRequestHandler):
    calls: list = []
    tags: set = set()
    bucket_base: str | None = None  # a foreign bucket host, when a test sets one

    def log_message(self, *a):  # quiet
        pass

    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send(self, code: int, obj) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):  # noqa: N802
        body = self._body()
        self.calls.append(("POST", self.path, body, self.headers.get("Authorization")))
        base = f"http://127.0.0.1:{self.server.server_port}"
        path = self.path.split("?")[0]
        if path == "/api/repos/create":
            self._send(200, {"url": f"{base}/datasets/org/arena", "name": "org/arena"})
        elif path == "/api/validate-yaml":
            self._send(200, {"errors": [], "warnings": []})
        elif path.endswith("/preupload/main"):
            files = json.loads(body)["files"]
            self._send(
                200,
                {
                    "files": [
                        {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                        for f in files
                    ]
                },
            )
        elif path.endswith("/commit/main"):
            self._send(
                200,
                {
                    "commitUrl": f"{base}/datasets/org/arena/commit/{'a' * 40}",
                    "commitOid": "a" * 40,
                },
            )
        elif "/tag/" in path:
            tag = json.loads(body)["tag"]
            if tag in self.tags:
                self._send(409, {"error": "tag exists"})
            else:
                self.tags.add(tag)
                self._send(200, {})
        elif path == "/api/deposit/depositions":
            bucket = f"{self.bucket_base or base}/api/files/bucket-7"
            self._send(201, {"id": 7, "links": {"bucket": bucket}})
        else:
            self._send(404, {"error": f"unexpected {path}"})

    def do_PUT(self):  # noqa: N802
        body = self._body()
        self.calls.append(("PUT", self.path, body, self.headers.get("Authorization")))
        if self.path == "/api/deposit/depositions/7":
            md = json.loads(body)["metadata"]
            self._send(
                200, {"id": 7, "metadata": {**md, "prereserve_doi": {"doi": "10.5281/zenodo.7"}}}
            )
        else:
            self._send(200, {"key": self.path.rsplit("/", 1)[-1]})


@pytest.fixture
def server():
    _Recorder.calls = []
    _Recorder.tags = set()
    _Recorder.bucket_base = None
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    srv.server_close()


def test_publish_dry_run_prints_plan_without_network(frozen, capsys, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    rc = run_cli(
        [
            "publish",
            str(frozen),
            "--version",
            "1.0.0",
            "--repo-id",
            "org/arena",
            "--zenodo",
            "--dry-run",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "tag v1.0.0" in out and "data/synthetic-obs/test-00000-of-00040.parquet" in out
    assert "create deposition" in out and "causalarena-arena-synthetic-mini-v1.0.0.tar" in out
    last = out.strip().splitlines()[-1]  # a readable closing line, not a raw JSON object
    assert last.startswith("dry run, nothing sent: would publish") and "{" not in last
    assert "org/arena at tag v1.0.0" in last and "Zenodo deposition of version 1.0.0" in last
    argv = ["publish", str(frozen), "--version", "1.0.0", "--repo-id", "org/arena", "--dry-run"]
    assert run_cli([*argv, "--json"]) == 0
    raw = json.loads(capsys.readouterr().out)  # --json: the whole plan as one JSON object
    assert raw["dry_run"] is True and [t["target"] for t in raw["targets"]] == ["huggingface"]
    assert any(
        f["path"] == "data/synthetic-obs/test-00000-of-00040.parquet"
        for f in raw["targets"][0]["files"]
    )


def test_publish_refuses_unfrozen_or_wrong_version(mini_release, frozen):
    with pytest.raises(ReleaseError, match="not frozen"):
        from causalarena.release.publish import publish_hf

        publish_hf(mini_release, "org/arena", "1.0.0", dry_run=True)
    assert (
        run_cli(["publish", str(frozen), "--version", "1.0.1", "--repo-id", "o/n", "--dry-run"])
        == 2
    )


def test_publish_hf_against_local_hub(copy, server, monkeypatch):
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    from causalarena.release.publish import publish_hf

    res = publish_hf(copy, "org/arena", "1.0.0", endpoint=server)
    calls = [(m, p.split("?")[0]) for m, p, _, _ in _Recorder.calls]
    assert calls[0] == ("POST", "/api/repos/create")
    assert ("POST", "/api/datasets/org/arena/preupload/main") in calls
    assert calls[-1] == ("POST", "/api/datasets/org/arena/tag/main")
    assert all(auth == "Bearer hf_test_token" for *_, auth in _Recorder.calls)
    create = json.loads(_Recorder.calls[0][2])
    assert create["type"] == "dataset" and create["name"] == "arena"
    committed = {}
    for _m, p, body, _ in _Recorder.calls:
        if p.endswith("/commit/main"):
            for line in body.decode().splitlines():
                item = json.loads(line)
                if item["key"] == "file":
                    committed[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
    want = {f["path"] for f in res["files"]}
    assert set(committed) == want and len(want) == 86  # 80 shards + 6 metadata files
    for path, data in committed.items():
        assert data == (copy / path).read_bytes(), path
    assert b"huggingface.co/datasets/org/arena" in committed["README.md"]
    assert json.loads(_Recorder.calls[-1][2])["tag"] == "v1.0.0"
    # the same version cannot be tagged twice
    with pytest.raises(ReleaseError, match="immutable"):
        publish_hf(copy, "org/arena", "1.0.0", endpoint=server)


def test_publish_zenodo_against_local_server(copy, server, monkeypatch, tmp_path):
    monkeypatch.setenv("ZENODO_TOKEN", "zen_test")
    from causalarena.release.publish import publish_zenodo, release_archive, release_files

    with pytest.raises(ReleaseError, match="ZENODO_TOKEN"):
        monkeypatch.delenv("ZENODO_TOKEN")
        publish_zenodo(copy, "1.0.0", base_url=f"{server}/api")
    monkeypatch.setenv("ZENODO_TOKEN", "zen_test")
    res = publish_zenodo(copy, "1.0.0", base_url=f"{server}/api")
    assert res["doi"] == "10.5281/zenodo.7" and res["deposition_id"] == 7
    puts = {p: body for m, p, body, _ in _Recorder.calls if m == "PUT"}
    archive = release_archive(copy, tmp_path)
    assert puts[f"/api/files/bucket-7/{archive.name}"] == archive.read_bytes()
    assert puts["/api/files/bucket-7/README.md"] == (copy / "README.md").read_bytes()
    assert puts["/api/files/bucket-7/zenodo.json"] == (copy / ".zenodo.json").read_bytes()
    md = json.loads(puts["/api/deposit/depositions/7"])["metadata"]
    assert md["upload_type"] == "dataset" and md["prereserve_doi"] is True and "doi" not in md
    assert all(auth == "Bearer zen_test" for *_, auth in _Recorder.calls)
    (tmp_path / "again").mkdir()
    again = release_archive(copy, tmp_path / "again")
    assert again.read_bytes() == archive.read_bytes()  # deterministic archive
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert names == [f"{archive.name[:-4]}/{f['path']}" for f in release_files(copy)]


def test_publish_zenodo_refuses_a_bucket_on_another_host(copy, server, monkeypatch):
    """Zenodo answering with a bucket on a foreign host gets nothing: no token, no upload."""
    from causalarena.release.publish import publish_zenodo

    port = server.rsplit(":", 1)[1]
    _Recorder.bucket_base = f"http://localhost:{port}"  # same server, another host name
    monkeypatch.setenv("ZENODO_TOKEN", "zen_test")
    with pytest.raises(ReleaseError, match="refusing to send ZENODO_TOKEN") as ei:
        publish_zenodo(copy, "1.0.0", base_url=f"{server}/api", retries=0)
    assert "zen_test" not in str(ei.value)
    assert [(m, p) for m, p, _, _ in _Recorder.calls] == [("POST", "/api/deposit/depositions")]


def test_metadata_files_rewrite_is_deterministic(copy):
    before = {
        p: (copy / p).read_bytes()
        for p in ("README.md", "CITATION.cff", ".zenodo.json", "croissant.json")
    }
    write_metadata_files(copy)
    assert {p: (copy / p).read_bytes() for p in before} == before


def test_build_never_rewrites_a_frozen_folder(copy):
    from causalarena.errors import ReleaseError
    from causalarena.release.engine import build

    manifest_before = (copy / "manifest.json").read_bytes()
    # complete and frozen: a rebuild is a no-op that keeps the freeze record
    build("arena-synthetic", scale="mini", out=copy, quiet=True)
    assert (copy / "manifest.json").read_bytes() == manifest_before
    assert "freeze" in json.loads(manifest_before)
    # a damaged shard would have to be rebuilt: refused, naming it, nothing rewritten
    victim = copy / read_manifest(copy)["files"][3]["path"]
    victim.write_bytes(victim.read_bytes()[:-5])
    with pytest.raises(ReleaseError, match="is frozen here") as exc:
        build("arena-synthetic", scale="mini", out=copy, quiet=True)
    assert victim.relative_to(copy).as_posix() in str(exc.value)
    assert (copy / "manifest.json").read_bytes() == manifest_before


def test_verify_reveal_progress_on_stderr_off_with_quiet(frozen, key, capsys, monkeypatch):
    monkeypatch.setenv("CAUSALARENA_PROGRESS", "1")  # captured stderr is not a terminal
    assert run_cli(["verify", str(frozen), "--reveal", str(key)]) == 0
    loud = capsys.readouterr()
    assert "revealing" in loud.err  # the progress bar goes to stderr ...
    assert run_cli(["verify", str(frozen), "--reveal", str(key), "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""  # ... and --quiet silences it
    assert quiet.out == loud.out == f"{frozen}: every check passed\n"  # stdout unchanged


def test_load_shows_no_datasets_progress_bars_when_stderr_is_not_a_terminal(mini_release, capfd):
    import datasets

    import causalarena as ca

    assert not datasets.are_progress_bars_disabled()
    ds = ca.load("synthetic-obs", source=str(mini_release), cache_dir=None)
    assert ds.num_rows > 0
    err = capfd.readouterr().err
    assert "Generating" not in err and "%|" not in err, err[:300]
    assert not datasets.are_progress_bars_disabled()  # the caller's setting is restored
