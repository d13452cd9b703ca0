"""The release manifest: every file with bytes, rows and sha256, plus provenance.

The manifest is deterministic (no timestamps), so building the same suite twice gives the same
``manifest.json`` bytes on the same platform and library versions, which it records.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from causalarena.release.io import atomic_write_json

MANIFEST = "manifest.json"
#: Default registry of frozen versions inside a release folder (see :mod:`.freeze`).
REGISTRY_DIR = "frozen"
RECORDED_PACKAGES = (
    "numpy",
    "scipy",
    "pyarrow",
    "datasets",
    "pydantic",
    "networkx",
    "threadpoolctl",
)


#: The package code that determines the bytes of a built suite.
GENERATION_CODE = (
    "spec.py",
    "spec_temporal.py",
    "schema.py",
    "sortability.py",
    "errors.py",
    "generator",
    "release",
)


def source_sha256() -> str:
    """sha256 over the generation code's ``.py`` files (path + bytes, sorted).

    Covers :data:`GENERATION_CODE` only, so a change to, say, the scorer does not invalidate a
    build, while any change to sampling or writing does.
    """
    import hashlib

    root = Path(__file__).resolve().parents[1]
    files = [
        f
        for part in GENERATION_CODE
        for f in ([root / part] if part.endswith(".py") else (root / part).rglob("*.py"))
    ]
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def environment() -> dict[str, Any]:
    """Package, Python, platform and dependency versions (bytes are identical only on these)."""
    deps = {}
    for name in RECORDED_PACKAGES:
        try:
            deps[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            deps[name] = None
    return {
        "causalarena": metadata.version("causalarena"),
        "generation_source_sha256": source_sha256(),
        "python": sys.version.split()[0],
        "platform": f"{platform.system()}-{platform.machine()}",
        "dependencies": deps,
    }


def write_manifest(
    out: Path,
    header: dict[str, Any],
    records: list[dict[str, Any]],
    *,
    extra_files: list[dict[str, Any]] | None = None,
) -> dict:
    """Aggregate build records into ``manifest.json`` (written atomically).

    Parameters
    ----------
    out : Path
        Release folder.
    header : dict
        Suite identity: at least ``suite``, ``version``, ``scale`` .
    records : list of dict
        One per build unit, each with ``files`` (dicts with ``path``, ``config``, ``rows``,
        ``bytes``, ``sha256``) and optionally ``scms`` (dicts with ``attempts``).
    extra_files : list of dict, optional
        Files that belong to no config (Zarr store files: ``path``, ``store``, ``bytes``,
        ``sha256``); listed in ``files`` like the shards.

    Returns
    -------
    dict
        The manifest as written.
    """
    shards = [f for r in records for f in r["files"]]
    files = sorted(shards + list(extra_files or []), key=lambda f: f["path"])
    configs: dict[str, dict[str, Any]] = {}
    for f in sorted(shards, key=lambda f: f["path"]):
        c = configs.setdefault(f["config"], {"rows": 0, "shards": 0, "split": "test"})
        c["rows"] += f["rows"]
        c["shards"] += 1
    scms = [s for r in records for s in r.get("scms", [])]
    manifest = {
        **header,
        "environment": environment(),
        "configs": configs,
        "audit": {
            "scms": len(scms),
            "resampled_scms": sum(1 for s in scms if s["attempts"] > 1),
            "total_attempts": sum(s["attempts"] for s in scms),
        },
        "files": files,
    }
    atomic_write_json(out / MANIFEST, manifest)
    return manifest


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """Read ``manifest.json`` of a release folder.

    Raises
    ------
    ReleaseError
        If the file is missing or not valid JSON (names the path).
    """
    from causalarena.errors import ReleaseError

    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise ReleaseError(
            f"{path}: no manifest.json file; is {folder} a causalarena release folder?"
        )
    from causalarena.safejson import JSONDepthError, loads

    try:
        data = loads(path.read_bytes().decode("utf-8"))
    except JSONDepthError as exc:
        raise ReleaseError(f"{path}: malformed manifest: the JSON {exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ReleaseError(f"{path}: not valid UTF-8 JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ReleaseError(f"{path}: top level must be a JSON object, got {type(data).__name__}")
    for key in ("suite", "version", "scale", "configs", "files"):
        if key not in data:
            raise ReleaseError(f"{path}: required field {key!r} is missing")
    if not isinstance(data["files"], list) or not isinstance(data["configs"], dict):
        raise ReleaseError(f"{path}: 'files' must be a list and 'configs' an object")
    for key in ("suite", "version", "scale"):
        if not isinstance(data[key], str):
            raise ReleaseError(f"{path}: {key} must be a string, got {_short(data[key])}")
    for key in ("environment", "freeze", "publication", "options"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise ReleaseError(f"{path}: {key} must be an object, got {_short(data[key])}")
    for k, f in enumerate(data["files"]):
        check_file_entry(path, f"files[{k}]", f)
    for name, c in data["configs"].items():
        if not isinstance(c, dict):
            raise ReleaseError(f"{path}: configs.{name} must be an object, got {_short(c)}")
        for key in ("rows", "shards"):
            if key in c and (isinstance(c[key], bool) or not isinstance(c[key], int)):
                raise ReleaseError(
                    f"{path}: configs.{name}.{key} must be an integer, got {_short(c[key])}"
                )
    return data


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_file_entry(where: Path, field: str, f: Any) -> None:
    """Check one manifest file entry: relative ``path`` inside the folder, int ``bytes``, hex
    ``sha256``.

    Raises
    ------
    ReleaseError
        Naming the manifest, the field (e.g. ``files[3].sha256``) and the value.
    """
    import re

    from causalarena.errors import ReleaseError

    if not isinstance(f, dict) or not {"path", "bytes", "sha256"} <= set(f):
        raise ReleaseError(f"{where}: {field} needs 'path', 'bytes' and 'sha256', got {_short(f)}")
    p = f["path"]
    if (
        not isinstance(p, str)
        or not p
        or p.startswith("/")
        or ".." in Path(p).parts
        or "\\" in p
        or ":" in p
    ):
        raise ReleaseError(
            f"{where}: {field}.path {_short(p)} must be a relative path inside the folder"
        )
    if isinstance(f["bytes"], bool) or not isinstance(f["bytes"], int) or f["bytes"] < 0:
        raise ReleaseError(
            f"{where}: {field}.bytes must be an integer >= 0, got {_short(f['bytes'])}"
        )
    if not isinstance(f["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", f["sha256"]):
        raise ReleaseError(
            f"{where}: {field}.sha256 must be 64 lowercase hex digits, got {_short(f['sha256'])}"
        )


def registry_path(folder: Path, registry: str | Path | None, version: str) -> Path:
    """Registry record path of ``version``."""
    base = Path(registry) if registry is not None else Path(folder) / REGISTRY_DIR
    return base / f"{version}.json"


def content_record(manifest: dict[str, Any]) -> dict[str, Any]:
    """What a frozen version fixes: identity, definition, environment and file checksums."""
    env = manifest.get("environment") or {}
    return {
        "suite": manifest["suite"],
        "version": manifest["version"],
        "scale": manifest["scale"],
        "seed": manifest.get("seed"),
        "generator_rev": manifest.get("generator_rev"),
        "definition": manifest.get("definition"),
        "package": env.get("causalarena"),
        "generation_source_sha256": env.get("generation_source_sha256"),
        "files": {f["path"]: f["sha256"] for f in manifest["files"]},
    }


def content_sha256(record: dict[str, Any]) -> str:
    """sha256 of a :func:`content_record` (canonical JSON)."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
