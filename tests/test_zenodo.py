"""Zenodo client: the token stays on its host, uploads stream from files, retries."""

from __future__ import annotations

import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("requests")

from causalarena.errors import ReleaseError  # noqa: E402
from causalarena.release import zenodo as zn  # noqa: E402

TOKEN = "zen-secret-token-123"


def _handler(log: list, routes: dict):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _serve(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            log.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers.items()),
                    "body": body,
                }
            )
            key = (self.command, self.path)
            action = routes.get(key, (200, {"ok": True}))
            if isinstance(action, list):  # a sequence of answers, the last one repeats
                action = action.pop(0) if len(action) > 1 else action[0]
            status, payload = action
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", payload)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = json.dumps(payload).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = _serve  # noqa: N815

    return H


@pytest.fixture
def servers():
    """Two servers: ``a`` plays Zenodo on 127.0.0.1, ``b`` is a foreign host (port differs)."""
    out, stop = {}, []
    for name in ("a", "b"):
        log: list = []
        routes: dict = {}
        srv = ThreadingHTTPServer(("127.0.0.1", 0), _handler(log, routes))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        out[name] = {"log": log, "routes": routes, "port": srv.server_port}
        stop.append(srv)
    out["a"]["url"] = f"http://127.0.0.1:{out['a']['port']}/api"
    out["b"]["localhost"] = f"http://localhost:{out['b']['port']}"
    out["b"]["ip"] = f"http://127.0.0.1:{out['b']['port']}"
    yield out
    for srv in stop:
        srv.shutdown()
        srv.server_close()


def _leaks(log: list) -> list:
    """Requests that carried the token anywhere (header, path or body)."""
    return [
        r
        for r in log
        if "Authorization" in r["headers"]
        or any(TOKEN in str(v) for v in r["headers"].values())
        or TOKEN in r["path"]
        or TOKEN.encode() in r["body"]
    ]


@pytest.mark.parametrize("foreign", ["localhost", "ip"])
def test_token_not_forwarded_on_redirect(servers, foreign):
    a, b = servers["a"], servers["b"]
    a["routes"][("POST", "/api/deposit/depositions")] = (302, f"{b[foreign]}/steal")
    a["routes"][("PUT", "/api/files/bkt/x.tar")] = (307, f"{b[foreign]}/steal-put")
    s = zn.session(a["url"], TOKEN, retries=0)
    assert zn.call(s, "POST", f"{a['url']}/deposit/depositions", body={}) == {"ok": True}
    assert [r["headers"].get("Authorization") for r in a["log"]] == [f"Bearer {TOKEN}"]
    # the redirect was followed (302 -> GET on the foreign host) but without the token
    assert [(r["method"], r["path"]) for r in b["log"]] == [("GET", "/steal")]
    stream = io.BytesIO(b"payload " * 1000)
    f = _tmp_file(stream.getvalue())
    zn.call(s, "PUT", f"{a['url']}/files/bkt/x.tar", upload=f)
    assert b["log"][-1]["method"] == "PUT" and b["log"][-1]["body"] == stream.getvalue()
    assert _leaks(b["log"]) == [] and len(b["log"]) == 2
    # a same-origin redirect keeps the token
    a["routes"][("GET", "/api/old")] = (302, f"{a['url']}/new")
    zn.call(s, "GET", f"{a['url']}/old")
    assert a["log"][-1]["path"] == "/api/new"
    assert a["log"][-1]["headers"]["Authorization"] == f"Bearer {TOKEN}"


def _tmp_file(data: bytes):
    import tempfile
    from pathlib import Path

    d = Path(tempfile.mkdtemp())
    p = d / "blob.bin"
    p.write_bytes(data)
    return p


def test_token_never_sent_to_another_origin_directly(servers):
    a, b = servers["a"], servers["b"]
    s = zn.session(a["url"], TOKEN, retries=0)
    zn.call(s, "GET", f"{b['localhost']}/files/x")
    zn.call(s, "GET", f"{b['ip']}/files/x")
    assert len(b["log"]) == 2 and _leaks(b["log"]) == []
    with pytest.raises(ReleaseError, match="refusing to send ZENODO_TOKEN"):
        zn.require_same_origin(f"{b['localhost']}/api/files/b", a["url"])
    zn.require_same_origin(f"{a['url']}/files/b", a["url"])  # same origin: fine
    assert "zen-secret" not in repr(s.auth)


def test_upload_streams_from_an_open_file(servers, monkeypatch, tmp_path):
    a = servers["a"]
    data = bytes(range(256)) * 8192  # 2 MiB
    p = tmp_path / "archive.tar"
    p.write_bytes(data)
    s = zn.session(a["url"], TOKEN, retries=0)
    seen = []
    real = s.request

    def spy(method, url, **kw):
        seen.append(kw.get("data"))
        return real(method, url, **kw)

    monkeypatch.setattr(s, "request", spy)
    zn.call(s, "PUT", f"{a['url']}/files/bkt/archive.tar", upload=p)
    # the body handed to requests is the open file, not bytes read into memory
    assert len(seen) == 1 and isinstance(seen[0], io.BufferedReader)
    assert seen[0].name == str(p) and seen[0].closed
    r = a["log"][-1]
    assert r["headers"]["Content-Length"] == str(len(data)) and r["body"] == data
    assert r["headers"]["Content-Type"] == "application/octet-stream"


def test_retries_idempotent_requests_only(servers, tmp_path):
    a = servers["a"]
    p = tmp_path / "f.bin"
    p.write_bytes(b"x" * 100_000)
    a["routes"][("PUT", "/api/files/bkt/f.bin")] = [(503, {"e": 1}), (200, {"key": "f.bin"})]
    s = zn.session(a["url"], TOKEN, retries=3, backoff=0)
    assert zn.call(s, "PUT", f"{a['url']}/files/bkt/f.bin", upload=p) == {"key": "f.bin"}
    puts = [r for r in a["log"] if r["method"] == "PUT"]
    assert len(puts) == 2 and all(r["body"] == p.read_bytes() for r in puts)  # body rewound
    # POST creates a deposition: a 503 is not retried (never two depositions) and is reported
    a["routes"][("POST", "/api/deposit/depositions")] = (503, {"message": "down"})
    with pytest.raises(ReleaseError, match="HTTP 503") as ei:
        zn.call(s, "POST", f"{a['url']}/deposit/depositions", body={})
    assert TOKEN not in str(ei.value)
    assert sum(r["method"] == "POST" for r in a["log"]) == 1
    # retries exhausted: the last status is reported
    a["routes"][("GET", "/api/down")] = (502, {"e": 2})
    with pytest.raises(ReleaseError, match="HTTP 502"):
        zn.call(s, "GET", f"{a['url']}/down")
    assert sum(r["path"] == "/api/down" for r in a["log"]) == 4  # 1 + 3 retries


def test_network_failure_is_a_release_error():
    s = zn.session("http://127.0.0.1:9/api", TOKEN, retries=0)
    with pytest.raises(ReleaseError, match="zenodo GET http://127.0.0.1:9/api/x: ConnectionError"):
        zn.call(s, "GET", "http://127.0.0.1:9/api/x")
