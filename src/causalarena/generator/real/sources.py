"""Locating, downloading and checksum-verifying the source files of the real-data track.

Every source file has a path relative to a *real-data folder* (the layout of the offline
copies: ``sachs/...``, ``cdcsg/...``, ``petshop/<scenario>/...``, ``chambers/...``), a canonical
URL (a commit-pinned ``raw.githubusercontent.com`` address, or the dataset's own download
address) and, where published, an expected sha256 (or, for the Causal Chambers zips, only the
md5 their authors publish).  A file is used only after its bytes match that checksum.

Two ways to supply the files:

* ``real_data_dir`` -- an offline folder with that layout; nothing is downloaded.
* a cache folder (default ``$CAUSALARENA_REAL_CACHE`` or ``~/.cache/causalarena/real``): files
  found there are re-verified; missing ones are downloaded from their canonical URL with
  :mod:`urllib` when ``download=True`` and the network allows.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from causalarena.errors import CausalArenaError, ChecksumError
from causalarena.generator.real._checksums import SOURCE_FILES

#: Environment variable naming the download cache of real-data source files.
CACHE_ENV = "CAUSALARENA_REAL_CACHE"


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
        return "sha256" if self.sha256 else ("md5" if self.md5 else "unpinned")

    def expected(self) -> str:
        """Human-readable expected checksum, for error messages."""
        if self.sha256:
            size = f", {self.bytes} bytes" if self.bytes else ""
            return f"sha256 {self.sha256}{size}"
        if self.md5:
            return f"md5 {self.md5}"
        return "no published checksum"


def github_file(path: str) -> SourceFile:
    """The :class:`SourceFile` of a file copied from a git repository (see ``_checksums.py``).

    Parameters
    ----------
    path : str
        Path under the real-data folder, e.g. ``"sachs/bnlearn_sachs.bif"``.

    Raises
    ------
    KeyError
        If the path is not a recorded source file.
    """
    repo, commit, src, size, sha = SOURCE_FILES[path]
    return SourceFile(
        path=path,
        url=f"https://raw.githubusercontent.com/{repo}/{commit}/{quote(src)}",
        sha256=sha,
        bytes=size,
        origin=f"{repo}@{commit}:{src}",
    )


def default_cache_dir() -> Path:
    """``$CAUSALARENA_REAL_CACHE`` if set, else ``~/.cache/causalarena/real``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "causalarena" / "real"


def file_digests(path: str | os.PathLike, chunk: int = 1 << 20) -> tuple[str, str, int]:
    """``(sha256, md5, size)`` of a file, read in 1 MiB chunks."""
    h, m, n = hashlib.sha256(), hashlib.md5(usedforsecurity=False), 0
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
            m.update(block)
            n += len(block)
    return h.hexdigest(), m.hexdigest(), n


def check_file(path: Path, sf: SourceFile, *, allow_unpinned: bool = False) -> None:
    """Verify a local file against ``sf``.

    Raises
    ------
    SourceChecksumError
        If the sha256 (or, without one, the md5) differs; the message names the file, the
        expected and the found checksum, and where to get a good copy.
    RealDataError
        If ``sf`` has no checksum at all and ``allow_unpinned`` is false.
    """
    sha, md5, size = file_digests(path)
    if sf.sha256:
        if sha != sf.sha256:
            raise SourceChecksumError(
                f"{path}: sha256 {sha} ({size} bytes) does not match the expected "
                f"{sf.expected()} for {sf.path} (source {sf.origin}); the file is damaged or a "
                f"different version -- replace it with a copy from {sf.url}"
            )
    elif sf.md5:
        if md5 != sf.md5:
            raise SourceChecksumError(
                f"{path}: md5 {md5} does not match the expected {sf.expected()} for {sf.path} "
                f"(source {sf.origin}); replace it with a copy from {sf.url}"
            )
    elif not allow_unpinned:
        raise RealDataError(
            f"{path}: {sf.path} has no published checksum, so it cannot be verified; pass "
            "allow_unpinned=True to use it anyway (recorded as 'unpinned' in the metadata)"
        )


def download(
    url: str,
    dest: str | os.PathLike,
    *,
    sha256: str | None = None,
    md5: str | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download ``url`` to ``dest`` atomically, refusing bytes that fail the checksum.

    The body is streamed into a temporary file beside ``dest`` while hashing; only when the
    sha256 (or, if only that is given, the md5) matches is it renamed over ``dest``.

    Parameters
    ----------
    url : str
        ``http``, ``https`` or ``file`` URL.
    dest : path
        Destination file; parent folders are created.
    sha256, md5 : str, optional
        Expected hex digests (sha256 takes precedence).
    timeout : float, default=60
        Socket timeout in seconds.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    SourceChecksumError
        If the downloaded bytes do not match (``dest`` is left untouched).
    MissingSourceError
        If the URL cannot be fetched (HTTP error, no network); the message names the URL.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    h, m = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    try:
        try:
            req = urllib.request.Request(url, headers={"User-Agent": "causalarena"})
            with urllib.request.urlopen(req, timeout=timeout) as resp, os.fdopen(fd, "wb") as fh:
                while block := resp.read(1 << 20):
                    h.update(block)
                    m.update(block)
                    fh.write(block)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise MissingSourceError(f"could not download {url}: {exc}") from None
        if sha256 and h.hexdigest() != sha256:
            raise SourceChecksumError(
                f"{url}: downloaded bytes have sha256 {h.hexdigest()}, expected {sha256}; "
                f"refusing to store them as {dest}"
            )
        if not sha256 and md5 and m.hexdigest() != md5:
            raise SourceChecksumError(
                f"{url}: downloaded bytes have md5 {m.hexdigest()}, expected {md5}; "
                f"refusing to store them as {dest}"
            )
        os.replace(tmp, dest)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return dest


def resolve(
    sf: SourceFile,
    real_data_dir: str | os.PathLike | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    download_missing: bool = True,
    allow_unpinned: bool = False,
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
        Download files missing from (or damaged in) the cache.
    allow_unpinned : bool, default=False
        Accept files without any published checksum.

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
        re-downloaded instead when ``download_missing``).
    """
    if real_data_dir is not None:
        p = Path(real_data_dir) / sf.path
        if not p.is_file():
            raise MissingSourceError(
                f"{p}: missing ({sf.path}, expected {sf.expected()}); get it from {sf.url}"
            )
        check_file(p, sf, allow_unpinned=allow_unpinned)
        return p
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    p = cache / sf.path
    if p.is_file():
        try:
            check_file(p, sf, allow_unpinned=allow_unpinned)
            return p
        except SourceChecksumError:
            if not download_missing:
                raise
    elif not download_missing:
        raise MissingSourceError(
            f"{p}: not in the cache ({sf.path}, expected {sf.expected()}) and downloading is "
            f"off; get it from {sf.url} or pass real_data_dir"
        )
    if sf.verification == "unpinned" and not allow_unpinned:
        raise MissingSourceError(
            f"{sf.path}: no published checksum, so a download could not be verified; fetch it "
            f"yourself from {sf.url} and pass allow_unpinned=True"
        )
    try:
        return download(sf.url, p, sha256=sf.sha256, md5=sf.md5)
    except MissingSourceError as exc:
        raise MissingSourceError(
            f"{sf.path}: not in {cache} and the download failed ({exc}); expected "
            f"{sf.expected()}; get it from {sf.url} or pass real_data_dir"
        ) from None
