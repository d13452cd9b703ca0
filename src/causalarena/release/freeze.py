"""Freezing a release version: immutable content, a registry of frozen versions, commitments.

``causalarena release freeze DIR --version X.Y.Z`` records in ``manifest["freeze"]`` the suite
definition, seeds, package and dependency versions, every file's sha256 and a commitment to
the reserved (held-out) SCMs, writes a registry record ``<registry>/<version>.json`` (default
registry: ``DIR/frozen``) and renders the metadata files.  Freezing different content under an
existing version number -- found in the registry or in a previously frozen manifest passed
with ``against`` -- raises :class:`FreezeError` naming the differing files.

Reserved commitment: with the maintainers' secret key (``reserved_key``), the reserved
instances are regenerated from the key and committed to one by one (salted sha256 over spec
and data), per pool and as a whole; see :mod:`causalarena.release.reserved`.  At the ``full``
scale every reserved SCM is committed to; at ``mini`` the first ``public_per_block`` reserved
SCMs of each block (the commitment's ``scope`` says which).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path
from typing import Any

from causalarena.errors import ReleaseError
from causalarena.release.io import atomic_write_json, sha256_file
from causalarena.release.manifest import (  # noqa: F401  (content_* re-exported)
    MANIFEST,
    content_record,
    content_sha256,
    read_manifest,
    registry_path,
)


class FreezeError(ReleaseError):
    """Different content under an already frozen version (the message names the files)."""


def compare_content(frozen: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Differences between two content records (files and identity/definition keys)."""
    diffs = []
    for key in ("suite", "version", "scale", "seed", "generator_rev", "definition"):
        if frozen.get(key) != new.get(key):
            diffs.append(f"{key}: frozen {frozen.get(key)!r}, now {new.get(key)!r}")
    fa, fb = frozen.get("files", {}), new.get("files", {})
    for p in sorted(set(fa) | set(fb)):
        if p not in fb:
            diffs.append(f"{p}: in the frozen version, missing now")
        elif p not in fa:
            diffs.append(f"{p}: not in the frozen version")
        elif fa[p] != fb[p]:
            diffs.append(f"{p}: sha256 {fb[p][:12]}… differs from frozen {fa[p][:12]}…")
    return diffs


def check_frozen(
    manifest: dict[str, Any],
    *,
    registry: str | Path | None = None,
    folder: str | Path | None = None,
    against: str | Path | None = None,
) -> None:
    """Refuse content that differs from a frozen record of the same version.

    Parameters
    ----------
    manifest : dict
        The manifest of the content to check.
    registry : path, optional
        Registry folder (default ``folder/frozen``).
    folder : path, optional
        Release folder (for the default registry).
    against : path, optional
        A previously frozen ``manifest.json`` (or its folder) to compare with as well.

    Raises
    ------
    FreezeError
        Naming every differing file or definition key.
    """
    new = content_record(manifest)
    sources: list[tuple[str, dict[str, Any]]] = []
    if folder is not None or registry is not None:
        rp = registry_path(Path(folder or "."), registry, manifest["version"])
        if rp.is_file():
            sources.append((str(rp), json.loads(rp.read_text())["content"]))
    if against is not None:
        ap = Path(against)
        old = read_manifest(ap) if ap.is_dir() else read_manifest_file(ap)
        if old.get("version") == manifest["version"]:
            if "freeze" not in old:
                raise FreezeError(f"{ap}: --against manifest is not frozen")
            sources.append((str(ap), content_record(old)))
    for where, frozen in sources:
        diffs = compare_content(frozen, new)
        if diffs:
            shown = "\n  ".join(diffs[:20]) + (
                f"\n  … {len(diffs) - 20} more" if len(diffs) > 20 else ""
            )
            raise FreezeError(
                f"version {manifest['version']} is frozen ({where}) with different content; "
                f"bump the version instead. Differences:\n  {shown}"
            )


def read_manifest_file(path: Path) -> dict[str, Any]:
    """Read a manifest given as a file path (``…/manifest.json``)."""
    if path.name == MANIFEST:
        return read_manifest(path.parent)
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ReleaseError(f"{path}: not a readable manifest ({exc})") from None


def freeze(
    folder: str | Path,
    version: str,
    *,
    against: str | Path | None = None,
    registry: str | Path | None = None,
    reserved: bool = True,
    reserved_key: str | Path | None = None,
    reserved_blocks: list[int] | None = None,
    today: str | None = None,
    write_metadata: bool = True,
) -> dict[str, Any]:
    """Freeze a built release folder as ``version``.

    Parameters
    ----------
    folder : path
        Release folder (built, every file matching ``manifest.json``).
    version : str
        ``X.Y.Z``; must equal the manifest's (suite) version.
    against : path, optional
        A previously frozen manifest (or release folder) to compare with.
    registry : path, optional
        Registry of frozen versions (default ``folder/frozen``).
    reserved : bool, default=True
        Compute and publish the reserved commitment (needs ``reserved_key``).
    reserved_key : path, optional
        The secret key file of the reserved half (``causalarena release keygen``); it must lie
        outside ``folder``.
    reserved_blocks : list of int, optional
        Restrict the commitment to these blocks (for tests).
    today : str, optional
        Release date ``YYYY-MM-DD`` (default: today, or the date already in the registry).
    write_metadata : bool, default=True
        Re-render card, Croissant and citation files afterwards.

    Returns
    -------
    dict
        The updated manifest.

    Raises
    ------
    ReleaseError
        Version mismatch, the folder does not match its manifest, or ``reserved`` without a
        usable ``reserved_key``.
    FreezeError
        Different content already frozen under ``version``.
    """
    from causalarena.release.verify import verify

    folder = Path(folder)
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ReleaseError(f"version {version!r} is not of the form X.Y.Z")
    manifest = read_manifest(folder)
    from causalarena.release import reserved as rsv

    fam = rsv.family_or_none(manifest.get("suite"))
    has_reserved = fam is not None and rsv.has_reserved(fam, manifest.get("suite"))
    if reserved and has_reserved and reserved_key is None:
        raise ReleaseError(
            "freezing commits to the reserved half, which is drawn from the maintainers' secret "
            "key: pass reserved_key (CLI: --reserved-key KEYFILE; create one with `causalarena "
            "release keygen KEYFILE`) or reserved=False (--no-reserved)"
        )
    if manifest["version"] != version:
        raise ReleaseError(
            f"{folder}: holds suite version {manifest['version']}, not {version}; "
            "build the suite version you want to freeze"
        )
    # a manifest edited after an earlier freeze is judged by check_frozen (names the files)
    problems = [p for p in verify(folder) if p["problem"] != "freeze"]
    if problems:
        raise ReleaseError(
            f"{folder}: {len(problems)} file(s) do not match manifest.json "
            f"(first: {problems[0]['problem']} {problems[0]['path']}); run causalarena verify"
        )
    check_frozen(manifest, registry=registry, folder=folder, against=against)
    rp = registry_path(folder, registry, version)
    old = json.loads(rp.read_text()) if rp.is_file() else None
    date = today or (old or {}).get("date") or _dt.date.today().isoformat()
    rec: dict[str, Any] = {
        "version": version,
        "date": date,
        "suite": manifest["suite"],
        "scale": manifest["scale"],
        "seed": manifest.get("seed"),
        "definition": manifest.get("definition"),
        "environment": manifest.get("environment"),
        "content": content_record(manifest),
    }
    rec["content_sha256"] = content_sha256(rec["content"])
    if reserved and has_reserved:
        rsv.refuse_key_inside(reserved_key, folder)
        units = list(fam.reserved_units(manifest["suite"], manifest["scale"], {}))
        if reserved_blocks is not None:
            units = [u for u in units if u.params.get("block") in set(reserved_blocks)]
        rec["reserved"] = rsv.family_commitments(
            fam, manifest["suite"], manifest["scale"], rsv.read_key(reserved_key), units=units
        )
    if old is not None and old.get("reserved") and rec.get("reserved"):
        o, n = old["reserved"], rec["reserved"]
        if o.get("key_id") != n.get("key_id") and o.get("scheme") == n.get("scheme"):
            raise FreezeError(
                f"{rp}: {version} was frozen with reserved key {o.get('key_id')}, this key is "
                f"{n.get('key_id')}; use the same key (or bump the version)"
            )
        if o.get("root_sha256") != n.get("root_sha256") and o.get("scope") == n.get("scope"):
            raise FreezeError(f"{rp}: reserved commitment of {version} differs from the frozen one")
    manifest["freeze"] = {k: v for k, v in rec.items() if k not in ("content", "environment")}
    atomic_write_json(folder / MANIFEST, manifest)
    atomic_write_json(rp, rec)
    if write_metadata:
        from causalarena.release.render import write_metadata_files

        write_metadata_files(folder)
    return manifest


def set_doi(folder: str | Path, doi: str, *, previous_doi: str | None = None) -> dict[str, Any]:
    """Record the minted DOI in the manifest and re-render card, Croissant and citation files.

    Raises
    ------
    ReleaseError
        If ``doi`` is not a DOI (``10.<registrant>/<suffix>``).
    """
    from causalarena.release.metadata import DOI_RE
    from causalarena.release.render import write_metadata_files

    folder = Path(folder)
    for d in (doi, previous_doi):
        if d is not None and not re.match(DOI_RE, d):
            raise ReleaseError(f"{d!r} is not a DOI (expected 10.<registrant>/<suffix>)")
    manifest = read_manifest(folder)
    pub = dict(manifest.get("publication") or {})
    pub["doi"] = doi
    if previous_doi is not None:
        pub["previous_doi"] = previous_doi
    manifest["publication"] = pub
    atomic_write_json(folder / MANIFEST, manifest)
    write_metadata_files(folder)
    return manifest


def set_publication(folder: str | Path, **fields: Any) -> dict[str, Any]:
    """Set publication fields (``hf_repo_id``, ``previous_doi``) in the manifest."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    pub = dict(manifest.get("publication") or {})
    pub.update({k: v for k, v in fields.items() if v is not None})
    manifest["publication"] = pub
    atomic_write_json(folder / MANIFEST, manifest)
    return manifest


def file_digest(path: str | Path) -> str:
    """sha256 of a file (re-exported for callers of this module)."""
    return sha256_file(path)
