"""Atomic file writes and checksums (a crash never leaves a half-written file in place)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _publish(tmp: str, path: Path) -> None:
    """Give the temporary file normal permissions (mkstemp makes it 0600), then rename."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete ``.*.tmp`` files left under ``folder`` by an interrupted write; return them."""
    gone = [p for p in Path(folder).rglob(".*.tmp") if p.is_file()]
    for p in gone:
        p.unlink(missing_ok=True)
    return gone


KILL_AT_FIRST_TEMP = "CAUSALARENA_TEST_KILL_AT_FIRST_TEMP"


def _test_kill_hook() -> None:
    """Test hook: SIGKILL this process right after its first temporary file exists."""
    if os.environ.get(KILL_AT_FIRST_TEMP) == "1":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync, then rename over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    _test_kill_hook()
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        _publish(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: str | os.PathLike, obj: Any) -> None:
    """Canonical JSON (sorted keys, 2-space indent, trailing newline), written atomically."""
    atomic_write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode())


def parquet_bytes(table: Any, **kwargs: Any) -> bytes:
    """The Parquet file :func:`atomic_write_parquet` would write for ``table``, as bytes
    (identical bytes: same writer, same options, page checksums on by default)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    kwargs.setdefault("write_page_checksum", True)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **kwargs)
    return sink.getvalue().to_pybytes()


def atomic_write_parquet(path: str | os.PathLike, table: Any, **kwargs: Any) -> None:
    """Write a ``pyarrow.Table`` as Parquet via a temporary file and rename.

    Page checksums (CRC-32 per data page) are written unless ``write_page_checksum=False``,
    so a reader with ``page_checksum_verification=True`` (:func:`causalarena.load` does)
    turns a flipped bit in a data page into an error instead of a changed value.
    """
    import pyarrow.parquet as pq

    kwargs.setdefault("write_page_checksum", True)

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    _test_kill_hook()
    try:
        pq.write_table(table, tmp, **kwargs)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        _publish(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
