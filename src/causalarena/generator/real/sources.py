"""Locating, downloading and checksum-verifying the source files of the real-data track.

Every source file has a path relative to a *real-data folder* (the layout of the offline
copies: ``sachs/...``, ``cdcsg/...``, ``petshop/<scenario>/...``, ``chambers/...``), a canonical
URL (a commit-pinned ``raw.githubusercontent.com`` address, or the dataset's own download
address) and, where published, an expected sha256 (or, for the Causal Chambers zips, only the
md5 their authors publish).  A file is used only after its bytes match that checksum.

The table of files is a `pooch <https://www.fatiando.org/pooch>`_ registry file,
``sources.txt`` beside this module (one ``<path> <alg>:<hex> <url>`` line per file), and
downloads go through :mod:`pooch` (streamed into a temporary file, checksum-verified before the
rename, retried on network errors).

Two ways to supply the files:

* ``real_data_dir`` -- an offline folder with that layout; nothing is downloaded, every file is
  verified against the registry before it is read.
* a cache folder (default ``$CAUSALARENA_REAL_CACHE`` or ``~/.cache/causalarena/real``): files
  found there are re-verified; missing or damaged ones are downloaded from their canonical URL
  when ``download=True`` and the network allows.
"""

from __future__ import annotations

import functools
import os
import shlex
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from causalarena.errors import CausalArenaError, ChecksumError

#: Environment variable naming the download cache of real-data source files.
CACHE_ENV = "CAUSALARENA_REAL_CACHE"
#: Registry file (pooch format) beside this module.
REGISTRY_FILE = "sources.txt"
#: Download attempts after the first one fails (network error or checksum mismatch).
RETRIES = 2
#: Checksum column of files for which no checksum was available.
UNPINNED = "unpinned"


class RealDataError(CausalArenaError):
    """A real-data source file is missing, unreadable or not in its documented format."""


class MissingSourceError(RealDataError, FileNotFoundError):
    """A source file is not in the real-data folder or cache and could not be downloaded."""


class SourceChecksumError(ChecksumError, RealDataError):
    """A source file's bytes do not match the checksum recorded for it (never used)."""


@dataclass(frozen=True)
class SourceFile:
    """One source file of a real dataset.

    Attributes
    ----------
    path : str
        Path relative to the real-data folder (or cache), POSIX separators.
    url : str
        Canonical download address (commit-pinned where the source is a git repository).
    sha256 : str or None
        Expected hex sha256 of the bytes; ``None`` when no checksum was published or recorded.
    bytes : int or None
        Expected size in bytes, when known.
    md5 : str or None
        Expected hex md5, used only when ``sha256`` is unknown (Causal Chambers zips, whose
        ``directory.yaml`` publishes md5 only).
    origin : str
        ``"<owner>/<repo>@<commit>:<path>"`` or a description of the publisher.
    """

    path: str
    url: str
    sha256: str | None
    bytes: int | None = None
    md5: str | None = None
    origin: str = ""

    @property
    def verification(self) -> str:
        """``"sha256"``, ``"md5"`` or ``"unpinned"`` (no published checksum)."""
        return "sha256" if self.sha256 else ("md5" if self.md5 else UNPINNED)

    @property
    def known_hash(self) -> str | None:
        """The checksum in pooch's ``alg:hex`` form, ``None`` when unpinned."""
        if self.sha256:
            return f"sha256:{self.sha256}"
        return f"md5:{self.md5}" if self.md5 else None

    def expected(self) -> str:
        """Human-readable expected checksum, for error messages."""
        if self.sha256:
            size = f", {self.bytes} bytes" if self.bytes else ""
            return f"sha256 {self.sha256}{size}"
        if self.md5:
            return f"md5 {self.md5}"
        return "no published checksum"

    def expected_note(self) -> str:
        """``"expected <checksum>"``, or ``"no published checksum"`` (for messages)."""
        return f"expected {self.expected()}" if (self.sha256 or self.md5) else self.expected()


@functools.cache
def registry() -> dict[str, tuple[str | None, str]]:
    """``{path: (known_hash or None, url)}`` of ``sources.txt``.

    Read without importing pooch (the real family is imported by every family lookup, also in
    a core install); the file is in pooch's registry format and
    ``tests/test_real.py::test_registry_file_is_pooch_format_and_complete`` checks that
    :meth:`pooch.Pooch.load_registry` reads exactly these entries.

    Raises
    ------
    ValueError
        If a line does not have 3 fields, or its path is absolute or contains ``..`` (names
        the line).
    """
    text = files("causalarena.generator.real").joinpath(REGISTRY_FILE).read_text("utf-8")
    return parse_registry(text)


def parse_registry(text: str) -> dict[str, tuple[str | None, str]]:
    """Parse registry text in pooch's format (see :func:`registry`; same errors)."""
    out: dict[str, tuple[str | None, str]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = shlex.split(line)
        if len(fields) != 3:
            raise ValueError(f"{REGISTRY_FILE} line {n}: expected <path> <alg>:<hex> <url>")
        path, known, url = fields
        parts = PurePosixPath(path).parts
        if path.startswith("/") or "\\" in path or ".." in parts or not parts:
            raise ValueError(
                f"{REGISTRY_FILE} line {n}: path {path!s} must be relative, without '..'"
            )
        out[path] = (None if known == UNPINNED else known.lower(), url)
    return out


def _pooch_module() -> Any:
    from causalarena._extras import require

    return require("pooch", "build", "real-data source files")


def _github_origin(url: str) -> str:
    """``owner/repo@commit:path`` of a ``raw.githubusercontent.com`` URL (else the URL)."""
    parts = urlsplit(url)
    if parts.netloc != "raw.githubusercontent.com":
        return url
    owner, repo, commit, path = parts.path.lstrip("/").split("/", 3)
    return f"{owner}/{repo}@{commit}:{unquote(path)}"


def source_file(path: str, *, origin: str | None = None) -> SourceFile:
    """The :class:`SourceFile` of a path listed in ``sources.txt``.

    Parameters
    ----------
    path : str
        Path under the real-data folder, e.g. ``"sachs/bnlearn_sachs.bif"``.
    origin : str, optional
        Publisher description; default: ``owner/repo@commit:path`` from a GitHub URL.

    Raises
    ------
    KeyError
        If the path is not in the registry.
    """
    known, url = registry()[path]
    alg, _, hexdigest = (known or "").partition(":")
    return SourceFile(
        path=path,
        url=url,
        sha256=hexdigest if alg == "sha256" else None,
        md5=hexdigest if alg == "md5" else None,
        origin=origin if origin is not None else _github_origin(url),
    )


def default_cache_dir() -> Path:
    """``$CAUSALARENA_REAL_CACHE`` if set, else ``~/.cache/causalarena/real``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "causalarena" / "real"


def check_file(path: Path, sf: SourceFile, *, allow_unpinned: bool = False) -> None:
    """Verify a local file against ``sf`` (digest by :func:`pooch.file_hash`).

    Raises
    ------
    SourceChecksumError
        If the sha256 (or, without one, the md5) differs; the message names the file, the
        expected and the found checksum, and where to get a good copy.
    RealDataError
        If ``sf`` has no checksum at all and ``allow_unpinned`` is false.
    """
    pooch = _pooch_module()

    if sf.known_hash is None:
        if not allow_unpinned:
            raise RealDataError(
                f"{path}: {sf.path} has no published checksum, so it cannot be verified; pass "
                "allow_unpinned=True to use it anyway (recorded as 'unpinned' in the metadata)"
            )
        return
    alg = sf.verification
    found = pooch.file_hash(str(path), alg=alg)
    if found != (sf.sha256 or sf.md5):
        size = f" ({path.stat().st_size} bytes)" if alg == "sha256" else ""
        raise SourceChecksumError(
            f"{path}: {alg} {found}{size} does not match the expected {sf.expected()} for "
            f"{sf.path} (source {sf.origin}); the file is damaged or a different version -- "
            f"replace it with a copy from {sf.url}"
        )


def _pooch(cache: Path, sf: SourceFile, retries: int) -> Any:
    pooch = _pooch_module()

    pooch.get_logger().setLevel("WARNING")
    return pooch.create(
        path=cache,
        base_url="",
        registry={sf.path: sf.known_hash},
        urls={sf.path: sf.url},
        retry_if_failed=retries,
    )


def fetch(
    sf: SourceFile,
    cache_dir: str | os.PathLike,
    *,
    processor: Any = None,
    retries: int = RETRIES,
    timeout: float = 60.0,
) -> Any:
    """Download ``sf`` into ``cache_dir`` (or re-use a verified copy there) with :mod:`pooch`.

    The body is streamed into a temporary file beside the destination; only bytes whose sha256
    (or md5) matches ``sf`` are renamed into place, so a tampered or truncated download never
    reaches the cache.  A copy already in the cache that fails the checksum is downloaded again.

    Parameters
    ----------
    sf : SourceFile
    cache_dir : path
        Cache root; the file lands at ``cache_dir / sf.path``.
    processor : pooch processor, optional
        E.g. :class:`pooch.Unzip`; its return value is returned.
    retries : int, default=RETRIES
        Further attempts after a failed or mismatching download (1 s, 2 s, ... apart).
    timeout : float, default=60
        Socket timeout in seconds.

    Returns
    -------
    pathlib.Path or processor result

    Raises
    ------
    SourceChecksumError
        The downloaded bytes do not match (nothing is stored).
    MissingSourceError
        The URL cannot be fetched (HTTP error, no network); the message names the URL.
    """
    pooch = _pooch_module()
    import requests

    pup = _pooch(Path(cache_dir), sf, retries)
    downloader = pooch.HTTPDownloader(
        progressbar=False, timeout=timeout, headers={"User-Agent": "causalarena"}
    )
    try:
        out = pup.fetch(sf.path, processor=processor, downloader=downloader)
    except ValueError as exc:
        if "hash" not in str(exc):
            raise MissingSourceError(f"could not download {sf.url}: {exc}") from None
        raise SourceChecksumError(
            f"{sf.url}: downloaded bytes do not match the expected {sf.expected()} ({exc}); "
            f"refusing to store them as {Path(cache_dir) / sf.path}"
        ) from None
    except (requests.RequestException, OSError) as exc:
        raise MissingSourceError(f"could not download {sf.url}: {exc}") from None
    return out if processor is not None else Path(out)


def resolve(
    sf: SourceFile,
    real_data_dir: str | os.PathLike | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    download_missing: bool = True,
    allow_unpinned: bool = False,
    retries: int = RETRIES,
) -> Path:
    """Local, verified path of a source file.

    Parameters
    ----------
    sf : SourceFile
    real_data_dir : path, optional
        Offline folder with the documented layout.  When given, nothing is downloaded.
    cache_dir : path, optional
        Download cache (default :func:`default_cache_dir`); used when ``real_data_dir`` is None.
    download_missing : bool, default=True
        Download files missing from (or damaged in) the cache (:func:`fetch`).
    allow_unpinned : bool, default=False
        Accept files without any published checksum.
    retries : int, default=RETRIES
        Download retries (see :func:`fetch`).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    MissingSourceError
        The file is absent and could not be obtained; the message names the file, its expected
        checksum and its canonical URL.
    SourceChecksumError
        A file in ``real_data_dir`` does not match its checksum (files in the cache are
        re-downloaded instead when ``download_missing``), or a download does not match.
    """
    if real_data_dir is not None:
        p = Path(real_data_dir) / sf.path
        if not p.is_file():
            raise MissingSourceError(
                f"{p}: missing ({sf.path}, {sf.expected_note()}); get it from {sf.url}"
            )
        check_file(p, sf, allow_unpinned=allow_unpinned)
        return p
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    p = cache / sf.path
    if sf.known_hash is None and not allow_unpinned:
        if p.is_file():
            check_file(p, sf, allow_unpinned=False)  # raises: cannot be verified
        raise MissingSourceError(
            f"{sf.path}: no published checksum, so a download could not be verified; fetch it "
            f"yourself from {sf.url} and pass allow_unpinned=True"
        )
    if not download_missing:
        if not p.is_file():
            raise MissingSourceError(
                f"{p}: not in the cache ({sf.path}, {sf.expected_note()}) and downloading "
                f"is off; get it from {sf.url} or pass real_data_dir"
            )
        check_file(p, sf, allow_unpinned=allow_unpinned)
        return p
    try:
        return fetch(sf, cache, retries=retries)
    except MissingSourceError as exc:
        raise MissingSourceError(
            f"{sf.path}: not in {cache} and the download failed ({exc}); expected "
            f"{sf.expected()}; get it from {sf.url} or pass real_data_dir"
        ) from None
