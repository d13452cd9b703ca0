"""Check a release folder against its manifest (missing, extra, truncated, corrupted files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causalarena.release.io import sha256_file
from causalarena.release.manifest import read_manifest

#: Files that describe the release and are not listed in ``manifest["files"]``.
META_FILES = {
    "manifest.json",
    "README.md",
    "croissant.json",
    "CITATION.cff",
    ".zenodo.json",
}


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
    for data in (folder / "data", folder / "zarr"):
        if not data.is_dir():
            continue
        for p in sorted(data.rglob("*")):
            rel = p.relative_to(folder).as_posix()
            if p.is_file() and rel not in listed and not p.name.startswith("."):
                problems.append({"path": rel, "problem": "extra", "expected": None, "found": None})
    return problems


def verify_rebuild(
    folder: str | Path, *, workers: int = 1, tmp_dir: str | Path | None = None
) -> list[dict[str, Any]]:
    """Regenerate every shard from the recorded suite/version/scale/seed and compare checksums.

    The rebuild goes to a temporary folder (deleted afterwards) through
    :func:`causalarena.release.engine.build` (any family; options recorded in the manifest's
    ``options`` are passed back).

    Parameters
    ----------
    folder : path
        Release folder.
    workers : int, default=1
        Worker processes of the rebuild (the bytes do not depend on it).
    tmp_dir : path, optional
        Parent of the temporary folder.

    Returns
    -------
    list of dict
        ``{"path", "problem", "expected", "found"}`` with ``problem`` in {"rebuild-sha256",
        "rebuild-missing" (listed but not regenerated), "rebuild-extra" (regenerated but not
        listed)}; empty when every shard is reproduced byte for byte.

    Raises
    ------
    ReleaseError
        If the recorded suite, version or seed is not what this package builds (the rebuild
        could not reproduce it by construction).
    """
    import tempfile

    from causalarena.errors import ReleaseError
    from causalarena.family import family_of
    from causalarena.release.engine import build, rebuild_options

    folder = Path(folder)
    manifest = read_manifest(folder)
    try:
        sdef = family_of(manifest["suite"]).suite(manifest["suite"])
    except ValueError as exc:
        raise ReleaseError(f"{folder}: {exc}") from None
    if (sdef.version, sdef.seed) != (manifest["version"], manifest.get("seed")):
        raise ReleaseError(
            f"{folder}: records {manifest['suite']} version {manifest['version']} seed "
            f"{manifest.get('seed')}; this package builds version {sdef.version} seed "
            f"{sdef.seed}: install the causalarena version recorded in the manifest "
            f"({(manifest.get('environment') or {}).get('causalarena')})"
        )
    with tempfile.TemporaryDirectory(prefix="causalarena-rebuild-", dir=tmp_dir) as tmp:
        out = build(
            manifest["suite"],
            scale=manifest["scale"],
            out=Path(tmp) / "rebuild",
            workers=workers,
            quiet=True,
            **rebuild_options(manifest),
        )
        rebuilt = {f["path"]: f["sha256"] for f in read_manifest(out)["files"]}
    problems: list[dict[str, Any]] = []
    listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    for path, sha in listed.items():
        if path not in rebuilt:
            problems.append(
                {"path": path, "problem": "rebuild-missing", "expected": sha, "found": None}
            )
        elif rebuilt[path] != sha:
            problems.append(
                {"path": path, "problem": "rebuild-sha256", "expected": sha, "found": rebuilt[path]}
            )
    for path in sorted(set(rebuilt) - set(listed)):
        problems.append(
            {"path": path, "problem": "rebuild-extra", "expected": None, "found": rebuilt[path]}
        )
    return problems


def verify_metadata(folder: str | Path, *, records: bool = False) -> list[dict[str, Any]]:
    """Validate the card, Croissant and citation files of a release folder.

    Returns
    -------
    list of dict
        ``{"path", "problem": "metadata", "expected": None, "found": message}`` per problem.
        A missing ``croissant.json``/``CITATION.cff``/``.zenodo.json`` is a problem.
    """
    from causalarena.release.card import validate_card
    from causalarena.release.citation import validate_cff, validate_zenodo

    folder = Path(folder)
    msgs = list(validate_card(folder))
    for name, fn in (("CITATION.cff", validate_cff), (".zenodo.json", validate_zenodo)):
        msgs += [f"{name}: missing"] if not (folder / name).is_file() else fn(folder / name)
    if not (folder / "croissant.json").is_file():
        msgs.append("croissant.json: missing")
    else:
        from causalarena.release.croissant import validate_croissant

        msgs += validate_croissant(folder, records=records)
    return [
        {"path": m.split(":", 1)[0], "problem": "metadata", "expected": None, "found": m}
        for m in msgs
    ]
