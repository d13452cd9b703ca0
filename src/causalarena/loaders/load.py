"""Loading released suites through Hugging Face ``datasets``.

A release folder (or a Hub dataset repo built from one) is a plain Parquet dataset whose card
declares one config per split family (e.g. ``synthetic-obs``), so ``datasets.load_dataset``
reads it without a loading script, streaming or not.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.errors import ReleaseError

#: Accepted ``verification`` values and the ``datasets`` ``verification_mode`` each maps to.
VERIFICATION = {
    "all": "all_checks",
    "basic": "basic_checks",
    "none": "no_checks",
    "all_checks": "all_checks",
    "basic_checks": "basic_checks",
    "no_checks": "no_checks",
}


def load(
    config: str,
    split: str = "test",
    *,
    source: str | os.PathLike = "release",
    streaming: bool = False,
    revision: str | None = None,
    cache_dir: str | None = None,
    verification: str = "all",
):
    """Load one config of a released suite with :func:`datasets.load_dataset`.

    A local folder is checked against its ``manifest.json`` before anything is served
    (:func:`causalarena.release.verify.served_problems`): the card must declare ``config``
    with ``data_files`` matching exactly the manifest's files of that config and only from
    inside the folder; every such file must exist with its recorded size and, under
    ``verification="all"``, its sha256; no unlisted file may sit in ``data/<config>/``.
    Parquet page checksums (written by every build) are verified while reading unless
    ``verification="none"``.

    Parameters
    ----------
    config : str
        Config name, e.g. ``"synthetic-obs"`` or ``"synthetic-obsint"``; a DoTime suite name
        (``"dot-Identifiability-v1"``, ...) resolves to the ``dot-*`` config reproducing it.
    split : str, default="test"
        Public instances form the ``test`` split.
    source : path or str, default="release"
        A local release folder, or a Hub dataset id (``"ORG/NAME"``).
    streaming : bool, default=False
        Return an ``IterableDataset`` that reads shards lazily.
    revision : str, optional
        Git revision (tag such as ``"v1.0.0"``) of a Hub dataset, passed through to ``datasets``.
    cache_dir : str, optional
    verification : {"all", "basic", "none"}, default="all"
        Mirrors ``datasets``' ``verification_mode`` (whose names ``"all_checks"``,
        ``"basic_checks"``, ``"no_checks"`` are accepted too, and which is passed on).
        ``"all"``: manifest, card, file set, sizes and sha256 of every served file (a file's
        sha256 is cached by its path, size, inode, mtime and ctime, so an unchanged folder is
        hashed once; any write to a file changes its ctime and forces a re-hash), plus Parquet
        page checksums on read.  ``"basic"``: the same without sha256 (page checksums still
        catch almost every flipped bit in data pages, but not in footers or unused bytes).
        ``"none"``: no check at all.  Hub sources rely on the Hub's own per-file sha256 and
        ``datasets``.

    Returns
    -------
    datasets.Dataset or datasets.IterableDataset
        One row per dataset instance (see the README schema); use :func:`to_numpy` on a row.

    Raises
    ------
    ReleaseError
        If ``source`` is a local folder without the config or whose files disagree with its
        manifest (deleted, added, truncated, replaced or bit-flipped shard; card redirected to
        another config, a subset or outside the folder) -- the message names the files -- or
        is neither an existing folder nor a Hub id of the form ``ORG/NAME`` (so a typo never
        falls back to a cached copy).
    ValueError
        If ``verification`` is not one of the accepted values.
    """
    import datasets

    if config.startswith("dot-") and config != config.lower():  # a DoTime suite name
        from causalarena.generator.temporal.suites import resolve_suite_name

        config = resolve_suite_name(config)
    if verification not in VERIFICATION:
        raise ValueError(
            f"verification must be one of 'all', 'basic', 'none', got {verification!r}"
        )
    mode = VERIFICATION[verification]
    read_opts: dict[str, Any] = {"verification_mode": mode}
    if mode != "no_checks":
        import pyarrow.dataset as pds

        read_opts["fragment_scan_options"] = pds.ParquetFragmentScanOptions(
            page_checksum_verification=True
        )
    src = Path(source)
    looks_like_hub_id = (
        isinstance(source, str) and source.count("/") == 1 and not source.startswith((".", "/"))
    )
    if not src.exists() and not looks_like_hub_id:
        raise ReleaseError(
            f"no local release folder {str(source)!r} (relative to {Path.cwd()}); "
            "pass the folder's path or a Hub dataset id ORG/NAME"
        )
    if not src.exists():
        try:
            return datasets.load_dataset(
                str(source),
                config,
                split=split,
                streaming=streaming,
                revision=revision,
                cache_dir=cache_dir,
                **read_opts,
            )
        except (ConnectionError, FileNotFoundError, ValueError) as exc:
            raise ReleaseError(
                f"hub dataset {source!r}, config {config!r}, split {split!r}: {exc}"
            ) from None
    if not src.is_dir():
        raise ReleaseError(f"{src}: is a file, not a release folder")
    if mode != "no_checks":
        shards = check_folder(src, config, checksums=mode == "all_checks")
    else:
        data = src / "data"
        have = sorted(p.name for p in data.iterdir() if p.is_dir()) if data.is_dir() else []
        views = _card_views(src)
        if not config or (config not in have and config not in views):
            raise ReleaseError(
                f"{src}: no config {config!r} (found: {', '.join(have + sorted(views))})"
            )
        if config in views:  # a fixed-d view: a subset of its config's shards, Array2D features
            shards = [src / rel for rel in views[config]]
        else:
            shards = sorted((data / config).glob("*.parquet"))
        if not shards:
            raise ReleaseError(f"{src}: config {config!r} has no Parquet shards")
    if cache_dir is None and not streaming:
        cache_dir = str(_local_cache_dir(src, shards))
    try:
        with _no_progress_bars_off_terminal(datasets):
            return datasets.load_dataset(
                str(src.resolve()),
                config,
                split=split,
                streaming=streaming,
                revision=revision,
                cache_dir=cache_dir,
                **read_opts,
            )
    except ValueError as exc:
        raise ReleaseError(f"{src}: config {config!r}, split {split!r}: {exc}") from None
    except Exception as exc:  # datasets wraps Arrow errors of damaged shards in several types
        if type(exc).__name__ in (
            "DatasetGenerationError",
            "ArrowInvalid",
            "ArrowException",
            "OSError",
            "NonMatchingSplitsSizesError",
            "ExpectedMoreSplitsError",
        ):
            raise ReleaseError(
                f"{src}: config {config!r} could not be read ({exc}); run "
                f"`causalarena verify {src}` to find the damaged file"
            ) from None
        raise


def _card_views(folder: Path) -> dict[str, list[str]]:
    """Fixed-d views declared in a release card: name -> shard paths (empty if none)."""
    from causalarena.schema import VIEW_RE

    try:
        import yaml

        text = (folder / "README.md").read_text(encoding="utf-8")
        fm = yaml.safe_load(text.split("---", 2)[1]) if text.startswith("---") else {}
    except (OSError, IndexError, UnicodeDecodeError, ValueError):
        return {}
    out: dict[str, list[str]] = {}
    for c in (fm or {}).get("configs") or []:
        if not isinstance(c, dict) or not VIEW_RE.match(str(c.get("config_name", ""))):
            continue
        paths = ((c.get("data_files") or [{}])[0] or {}).get("path")
        if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
            out[str(c["config_name"])] = paths
    return out


def check_folder(folder: Path, config: str, *, checksums: bool = True) -> list[Path]:
    """Refuse a local folder whose served files of ``config`` disagree with its manifest.

    Returns
    -------
    list of Path
        The config's shards as listed in the manifest (checked).

    Raises
    ------
    ReleaseError
        Naming every disagreeing file (missing, size, sha256, extra, card), or the missing
        config.
    """
    from causalarena.release.manifest import read_manifest
    from causalarena.release.verify import served_problems, view_base, view_files

    manifest = read_manifest(folder)
    views = view_files(folder, manifest, config) if config not in manifest["configs"] else []
    if config not in manifest["configs"] and not views:
        known = sorted(manifest["configs"]) + sorted(_card_views(folder))
        raise ReleaseError(f"{folder}: no config {config!r} (found: {', '.join(known)})")
    digest, flush = _digest_cache(folder)
    problems = served_problems(folder, config, checksums=checksums, digest=digest)
    flush()
    if problems:
        lines = [
            f"  {p['problem']}: {p['path']}"
            + (
                f" (expected {p['expected']}, found {p['found']})"
                if p["problem"] != "extra"
                else ""
            )
            for p in problems[:10]
        ]
        more = f"\n  … {len(problems) - 10} more" if len(problems) > 10 else ""
        raise ReleaseError(
            f"{folder}: refusing to serve config {config!r}: {len(problems)} file(s) disagree "
            "with manifest.json (run `causalarena verify "
            f"{folder}`; pass verification='none' to load anyway):\n" + "\n".join(lines) + more
        )
    if views and view_base(config, manifest["configs"]):
        return [folder / f["path"] for f in views]
    return [folder / f["path"] for f in manifest["files"] if f.get("config") == config]


def _digest_cache(folder: Path):
    """sha256 of a file, cached on disk by (path, size, inode, mtime_ns, ctime_ns).

    Returns ``(digest, flush)``: ``digest(path)`` hashes or reuses; ``flush()`` writes the
    cache once after a check.

    The cache lives in the ``datasets`` cache (``causalarena-verified/``); a file whose stat
    changed in any of these fields is re-hashed, so the cache never vouches for changed bytes
    (``ctime`` cannot be set back by user programs).  Unwritable caches are skipped.
    """
    import hashlib
    import json

    from datasets import config as ds_config

    from causalarena.release.io import atomic_write_json, sha256_file

    root = folder.resolve()
    cache = (
        Path(ds_config.HF_DATASETS_CACHE)
        / "causalarena-verified"
        / f"{hashlib.sha256(str(root).encode()).hexdigest()[:20]}.json"
    )
    try:
        known = json.loads(cache.read_text()) if cache.is_file() else {}
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}

    def digest(path: Path) -> str:
        st = path.stat()
        key = str(path.resolve())
        stamp = [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]
        hit = known.get(key)
        if isinstance(hit, list) and len(hit) == 5 and hit[:4] == stamp:
            return str(hit[4])
        sha = sha256_file(path)
        known[key] = [*stamp, sha]
        dirty.append(key)
        return sha

    def flush() -> None:
        if dirty:
            try:
                atomic_write_json(cache, known)
            except OSError:
                pass

    dirty: list[str] = []
    return digest, flush


def _local_cache_dir(folder: Path, shards: list[Path]) -> Path:
    """A ``datasets`` cache folder keyed by the shards' paths, sizes, inodes and times.

    ``datasets`` keys the cache of a local folder by its name, so a changed or different folder
    with the same name could be served from a stale cache; keying by the files avoids that.
    """
    import hashlib

    from datasets import config as ds_config

    h = hashlib.sha256(str(folder.resolve()).encode())
    for p in shards:
        st = p.stat()
        h.update(f"{p.name}:{st.st_size}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}".encode())
    return Path(ds_config.HF_DATASETS_CACHE) / "causalarena-local" / h.hexdigest()[:20]


@contextmanager
def _no_progress_bars_off_terminal(datasets: Any) -> Iterator[None]:
    """Silence ``datasets``' progress bars for one call when stderr is not a terminal (logs,
    CI, pipes); restore the caller's setting afterwards."""
    off = not sys.stderr.isatty() and not datasets.are_progress_bars_disabled()
    if off:
        datasets.disable_progress_bars()
    try:
        yield
    finally:
        if off:
            datasets.enable_progress_bars()


def to_numpy(row: dict[str, Any]) -> dict[str, Any]:
    """Convert one loaded row to numpy arrays.

    Accepts a row in any ``datasets`` format (python lists, numpy or torch arrays) of a
    config or of a fixed-d view; the shapes come from the row (``n = n_obs + n_int``,
    ``d = len(variables)``, or the ``d`` column in a view, which serves no ``variables``;
    :data:`causalarena.schema.ARRAY_COLUMNS`).

    A row of a temporal ``dot-*`` config (it has ``x_obs`` instead of ``X``) is converted the
    same way: ``x_obs``, ``x_int`` of shape (T, N) float32, ``mask`` (T, N) bool (True =
    missing; all False for suites whose ``mask`` column is null, i.e. every suite but
    ``dot-observed``),
    ``adjacency_inst`` (N, N) int8 and ``adjacency_lag`` (K, N, N) int8, with ``N =
    len(variables)``.

    Returns
    -------
    dict
        ``X`` ndarray of shape (n, d) float32; ``mask`` ndarray of shape (n, d) bool;
        ``adjacency`` ndarray of shape (d, d) int8 (``A[i, j] = 1`` iff i -> j; ``datasets``'
        numpy/torch formats hand it over as int64, cast back here);
        ``variables`` list of str; every other column unchanged.

    Raises
    ------
    ValueError
        If the row has neither an ``X`` column nor an ``x_obs`` column, or neither a
        ``variables`` nor a ``d`` column.
    """
    out = dict(row)
    if "variables" not in row and "d" not in row:
        raise ValueError(
            "to_numpy: the row has neither a variables nor a d column to take d from; its "
            f"columns are {', '.join(sorted(row))}"
        )
    d = len(row["variables"]) if "variables" in row else int(row["d"])
    if "X" not in row and "x_obs" in row:
        for k in ("x_obs", "x_int"):
            out[k] = np.asarray(row[k], dtype=np.float32).reshape(-1, d)
        if row.get("mask") is not None:
            out["mask"] = np.asarray(row["mask"], dtype=bool).reshape(-1, d)
        else:  # only dot-observed has missing values; elsewhere nothing is missing
            out["mask"] = np.zeros(out["x_obs"].shape, dtype=bool)
        out["adjacency_inst"] = np.asarray(row["adjacency_inst"], dtype=np.int8).reshape(d, d)
        out["adjacency_lag"] = np.asarray(row["adjacency_lag"], dtype=np.int8).reshape(-1, d, d)
        return out
    if "X" not in row:
        raise ValueError(
            "to_numpy: the row has no X column (arena configs) and no x_obs column (temporal "
            f"dot-* configs); its columns are {', '.join(sorted(row))}"
        )
    out["X"] = np.asarray(row["X"], dtype=np.float32).reshape(-1, d)
    out["mask"] = np.asarray(row["mask"], dtype=bool).reshape(-1, d)
    out["adjacency"] = np.asarray(row["adjacency"], dtype=np.int8).reshape(d, d)
    return out


def iter_numpy(config: str, split: str = "test", **kwargs: Any) -> Iterator[dict[str, Any]]:
    """Stream a config and yield rows converted by :func:`to_numpy`."""
    kwargs.setdefault("streaming", True)
    for row in load(config, split, **kwargs):
        yield to_numpy(row)
