"""Check a release folder against its manifest (missing, extra, truncated, corrupted files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causalarena.release.io import sha256_file
from causalarena.release.manifest import read_manifest

#: Files that describe the release and are not listed in ``manifest["files"]``.
META_FILES = {"manifest.json", "README.md"}


def verify(folder: str | Path) -> list[dict[str, Any]]:
    """Compare every file with the manifest.

    Returns
    -------
    list of dict
        One entry per problem: ``{"path", "problem", "expected", "found"}`` with ``problem``
        in {"missing", "extra", "size", "sha256"}; empty when the folder matches.

    Raises
    ------
    ReleaseError
        If the manifest is missing or unreadable.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    problems: list[dict[str, Any]] = []
    listed = set()
    for f in manifest["files"]:
        listed.add(f["path"])
        p = folder / f["path"]
        if not p.exists():
            problems.append(
                {"path": f["path"], "problem": "missing", "expected": f["sha256"], "found": None}
            )
            continue
        size = p.stat().st_size
        if size != f["bytes"]:
            problems.append(
                {"path": f["path"], "problem": "size", "expected": f["bytes"], "found": size}
            )
            continue
        digest = sha256_file(p)
        if digest != f["sha256"]:
            problems.append(
                {"path": f["path"], "problem": "sha256", "expected": f["sha256"], "found": digest}
            )
    data = folder / "data"
    if data.is_dir():
        for p in sorted(data.rglob("*")):
            rel = p.relative_to(folder).as_posix()
            if p.is_file() and rel not in listed and not p.name.startswith("."):
                problems.append({"path": rel, "problem": "extra", "expected": None, "found": None})
    return problems
