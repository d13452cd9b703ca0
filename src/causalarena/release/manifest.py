"""The release manifest: every file with bytes, rows and sha256, plus provenance.

The manifest is deterministic (no timestamps), so building the same suite twice gives the same
``manifest.json`` bytes on the same platform and library versions, which it records.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from causalarena.release.io import atomic_write_json
from causalarena.release.suites import SuiteDef

MANIFEST = "manifest.json"
RECORDED_PACKAGES = (
    "numpy",
    "scipy",
    "pyarrow",
    "datasets",
    "pydantic",
    "networkx",
    "threadpoolctl",
)


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
        "python": sys.version.split()[0],
        "platform": f"{platform.system()}-{platform.machine()}",
        "dependencies": deps,
    }


def write_manifest(out: Path, suite: SuiteDef, scale: str, records: list[dict[str, Any]]) -> dict:
    """Aggregate the block records into ``manifest.json`` (written atomically)."""
    from causalarena.generator.synthetic import GENERATOR_REV

    files = sorted((f for r in records for f in r["files"]), key=lambda f: f["path"])
    configs: dict[str, dict[str, Any]] = {}
    for f in files:
        c = configs.setdefault(f["config"], {"rows": 0, "shards": 0, "split": "test"})
        c["rows"] += f["rows"]
        c["shards"] += 1
    scms = [s for r in records for s in r["scms"]]
    manifest = {
        "suite": suite.name,
        "version": suite.version,
        "scale": scale,
        "seed": suite.seed,
        "generator_rev": GENERATOR_REV,
        "family": suite.family,
        "definition": {
            "scms_per_block": suite.scms_per_block,
            "public_per_block": suite.public_per_block,
            "replicates": suite.get_scale(scale).replicates,
            "n_obs": suite.n_obs,
            "n_obsint": list(suite.n_obsint),
            "max_attempts": suite.max_attempts,
        },
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
    if not path.exists():
        raise ReleaseError(f"{path}: no manifest.json; is {folder} a causalarena release folder?")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ReleaseError(f"{path}: invalid JSON ({exc})") from None
