"""HTTP client of the Zenodo REST API: retries, streamed uploads, a token kept to its host.

Built on :mod:`requests` with a :class:`urllib3.util.Retry` adapter:

* connection errors are retried for every method (the request never reached the server);
  HTTP 429/500/502/503/504 and read errors only for idempotent methods (GET, PUT, DELETE), so a
  deposition is never created twice; ``Retry-After`` is honoured, back-off doubles per attempt;
* uploads stream from an open file (``Content-Length`` from its size, 8 KiB blocks), never
  from bytes held in memory, and are rewound on a retry;
* the ``Authorization: Bearer <token>`` header is attached only to requests whose scheme, host
  and port are those of the configured API URL.  It is dropped when a redirect leads to any
  other origin (requests already strips it on a host change; :class:`ZenodoSession` also drops
  it on a port or scheme change), and a bucket URL on another origin is refused before any
  byte is sent (:func:`require_same_origin`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.auth import AuthBase
from urllib3.util import Retry

from causalarena.errors import ReleaseError

#: Retries of a failing request (see the module docstring for which failures).
RETRIES = 5
#: ``(connect, read)`` timeouts in seconds; a read timeout is per socket read, not per upload.
TIMEOUT = (30.0, 300.0)
_RETRY_STATUS = (429, 500, 502, 503, 504)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a URL, the default port filled in, host lower-cased."""
    u = urlsplit(url)
    scheme = u.scheme.lower()
    return scheme, (u.hostname or "").lower(), u.port or _DEFAULT_PORTS.get(scheme, 0)


class HostBoundToken(AuthBase):
    """Bearer-token auth attached only to requests for one origin (scheme, host, port)."""

    def __init__(self, token: str, base_url: str):
        self._token = token
        self.origin = origin(base_url)

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        if origin(r.url or "") == self.origin:
            r.headers["Authorization"] = f"Bearer {self._token}"
        else:
            r.headers.pop("Authorization", None)
        return r

    def __repr__(self) -> str:  # never show the token
        return f"HostBoundToken(<hidden>, {self.origin})"


class ZenodoSession(requests.Session):
    """A :class:`requests.Session` that never carries the token off its origin on a redirect."""

    def __init__(self, auth: HostBoundToken):
        super().__init__()
        self.auth = auth

    def rebuild_auth(self, prepared_request, response):  # called on every redirect hop
        super().rebuild_auth(prepared_request, response)
        auth = self.auth
        if isinstance(auth, HostBoundToken):
            auth(prepared_request)


def session(
    base_url: str, token: str, *, retries: int = RETRIES, backoff: float = 1.0
) -> ZenodoSession:
    """A session for ``base_url`` with the token bound to its origin and a retry adapter.

    Parameters
    ----------
    base_url : str
        API root, e.g. ``"https://zenodo.org/api"``; its origin is the only one that gets the
        token.
    token : str
        Zenodo personal access token.
    retries : int, default=RETRIES
    backoff : float, default=1.0
        urllib3 ``backoff_factor`` (seconds; 0 in tests).
    """
    s = ZenodoSession(HostBoundToken(token, base_url))
    retry = Retry(
        total=retries,
        connect=retries,
        read=retries,
        status=retries,
        backoff_factor=backoff,
        status_forcelist=_RETRY_STATUS,
        allowed_methods=frozenset({"GET", "PUT", "DELETE", "HEAD", "OPTIONS"}),
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    adapter = HTTPAdapter(max_retries=retry)
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    s.headers["User-Agent"] = "causalarena"
    return s


def require_same_origin(url: str, base_url: str) -> None:
    """Refuse a URL (e.g. a deposition's bucket) outside the configured API origin.

    Raises
    ------
    ReleaseError
        Names both hosts; the token is not sent.
    """
    if origin(url) != origin(base_url):
        raise ReleaseError(
            f"zenodo returned {url}, outside the configured {base_url} "
            f"({origin(url)[1]}:{origin(url)[2]} vs {origin(base_url)[1]}:{origin(base_url)[2]});"
            " refusing to send ZENODO_TOKEN there"
        )


def call(
    s: requests.Session,
    method: str,
    url: str,
    *,
    body: Any = None,
    upload: str | Path | None = None,
) -> Any:
    """One API request; the parsed JSON response (``None`` for an empty body).

    Parameters
    ----------
    s : requests.Session
        From :func:`session`.
    method, url : str
    body : JSON-serialisable, optional
        Sent as ``application/json``.
    upload : path, optional
        File streamed as the ``application/octet-stream`` body (opened here, read in blocks).

    Raises
    ------
    ReleaseError
        HTTP status >= 400 (status and the first 300 characters of the body) or a network
        failure after the retries; the message names method and URL, never the token.
    """
    try:
        if upload is not None:
            with open(upload, "rb") as fh:
                r = s.request(
                    method,
                    url,
                    data=fh,
                    headers={"Content-Type": "application/octet-stream"},
                    timeout=TIMEOUT,
                )
        else:
            r = s.request(method, url, json=body, timeout=TIMEOUT)
    except requests.RequestException as exc:
        raise ReleaseError(f"zenodo {method} {url}: {type(exc).__name__}: {exc}") from None
    if r.status_code >= 400:
        raise ReleaseError(f"zenodo {method} {url}: HTTP {r.status_code}: {r.text[:300]}")
    if not r.content:
        return None
    try:
        return r.json()
    except ValueError:
        raise ReleaseError(
            f"zenodo {method} {url}: HTTP {r.status_code} body is not JSON: {r.text[:300]}"
        ) from None
