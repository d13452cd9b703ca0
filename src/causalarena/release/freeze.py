"""Freezing a release version: immutable content, a registry of frozen versions, commitments.

``causalarena release freeze DIR --version X.Y.Z`` records in ``manifest["freeze"]`` the suite
definition, seeds, package and dependency versions, every file's sha256 and a commitment to
the reserved (held-out) SCMs, writes a registry record ``<registry>/<version>.json`` (default
registry: ``DIR/frozen``) and renders the metadata files.  Freezing different content under an
existing version number -- found in the registry or in a previously frozen manifest passed
with ``against`` -- raises :class:`FreezeError` naming the differing files.

Reserved-SCM commitment: for every block, the spec of each reserved SCM
(:meth:`SuiteDef.reserved_positions`) is generated with :func:`audited_scm` and its
``spec.to_json()`` hashed with sha256.  At the ``full`` scale every reserved SCM is
committed to; at the ``mini`` scale only the first ``public_per_block`` (= 1) reserved SCMs
of each block, matching the public subset's size (documented as the commitment's ``scope``).
The commitments are cached in ``DIR/.build/reserved-<key>.json``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from causalarena.errors import ReleaseError
from causalarena.release.io import atomic_write_json, sha256_file
from causalarena.release.manifest import (
    MANIFEST,
    environment,
    read_manifest,
    registry_path,
)


class FreezeError(ReleaseError):
    """Different content under an already frozen version (the message names the files)."""


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


def reserved_targets(
    suite: Any, scale: str, blocks: list[int] | None = None
) -> list[dict[str, Any]]:
    """Reserved SCMs committed to: ``{"block", "position", "scm_index"}`` per SCM."""
    per_block = None if scale == "full" else suite.get_scale(scale).public_per_block
    out = []
    for b in blocks if blocks is not None else range(len(suite.blocks())):
        positions = suite.reserved_positions(b)
        for k in positions[:per_block] if per_block is not None else positions:
            out.append({"block": b, "position": k, "scm_index": b * suite.scms_per_block + k})
    return out


def reserved_commitments(
    suite_name: str,
    scale: str,
    *,
    cache_dir: str | Path | None = None,
    blocks: list[int] | None = None,
) -> dict[str, Any]:
    """Compute (or read from cache) the sha256 commitments to reserved SCM specs.

    Parameters
    ----------
    suite_name : str
    scale : {"mini", "full"}
    cache_dir : path, optional
        Folder for the cache file (keyed by suite, version, seed, scale, blocks and source hash).
    blocks : list of int, optional
        Restrict to these blocks (tests); default: every block.

    Returns
    -------
    dict
        ``{"scope", "count", "root_sha256", "commitments": [{"scm_id", "scm_index", "block",
        "position", "sha256"}]}``; ``root_sha256`` hashes the sorted ``scm_id:sha256`` lines.
    """
    from threadpoolctl import threadpool_limits

    from causalarena.generator.synthetic.family import audited_scm
    from causalarena.generator.synthetic.suites import get_suite

    suite = get_suite(suite_name)
    targets = reserved_targets(suite, scale, blocks)
    env = environment()
    key = hashlib.sha256(
        json.dumps(
            [suite.name, suite.version, suite.seed, scale, blocks, env["generation_source_sha256"]]
        ).encode()
    ).hexdigest()[:16]
    cache = Path(cache_dir) / f"reserved-{key}.json" if cache_dir is not None else None
    if cache is not None and cache.is_file():
        return json.loads(cache.read_text())
    commits = []
    with threadpool_limits(1):
        for t in targets:
            spec = audited_scm(suite, t["scm_index"]).spec
            commits.append(
                {
                    **t,
                    "scm_id": spec.scm_id,
                    "sha256": hashlib.sha256(spec.to_json().encode("utf-8")).hexdigest(),
                }
            )
    scope = (
        "every reserved SCM of every block"
        if scale == "full" and blocks is None
        else f"first {suite.get_scale(scale).public_per_block if scale != 'full' else 'all'} "
        f"reserved SCM(s) of {'every block' if blocks is None else f'blocks {blocks}'}"
    )
    out = {
        "scope": scope,
        "count": len(commits),
        "root_sha256": root_hash(commits),
        "commitments": commits,
    }
    if cache is not None:
        atomic_write_json(cache, out)
    return out


def root_hash(commits: list[dict[str, Any]]) -> str:
    """sha256 over the sorted ``scm_id:sha256`` lines of the commitments."""
    lines = sorted(f"{c['scm_id']}:{c['sha256']}" for c in commits)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def freeze(
    folder: str | Path,
    version: str,
    *,
    against: str | Path | None = None,
    registry: str | Path | None = None,
    reserved: bool = True,
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
        Compute and publish the reserved-SCM commitment.
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
        Version mismatch, or the folder does not match its manifest.
    FreezeError
        Different content already frozen under ``version``.
    """
    from causalarena.release.verify import verify

    folder = Path(folder)
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ReleaseError(f"version {version!r} is not of the form X.Y.Z")
    manifest = read_manifest(folder)
    if manifest["version"] != version:
        raise ReleaseError(
            f"{folder}: holds suite version {manifest['version']}, not {version}; "
            "build the suite version you want to freeze"
        )
    problems = verify(folder)
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
    if reserved and manifest.get("family", "synthetic") == "synthetic":
        rec["reserved"] = reserved_commitments(
            manifest["suite"],
            manifest["scale"],
            cache_dir=folder / ".build",
            blocks=reserved_blocks,
        )
    if old is not None and old.get("reserved") and rec.get("reserved"):
        if (
            old["reserved"]["root_sha256"] != rec["reserved"]["root_sha256"]
            and old["reserved"]["scope"] == rec["reserved"]["scope"]
        ):
            raise FreezeError(
                f"{rp}: reserved-SCM commitment of {version} differs from the frozen one"
            )
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


def verify_reveal(folder: str | Path, reveal: str | Path) -> list[dict[str, Any]]:
    """Check a reveal (JSON list of ``{"scm_id", "spec"}``) against the frozen commitment.

    ``spec`` may be the JSON text (hashed as is, then in canonical form) or an object (hashed
    in the canonical form ``SCMSpec.model_validate(obj).to_json()``).

    Returns
    -------
    list of dict
        ``{"scm_id", "problem", "expected", "found"}`` with ``problem`` in
        {"not-committed", "sha256", "invalid-spec"}; empty when every revealed spec matches.

    Raises
    ------
    ReleaseError
        If the release has no reserved commitment or the reveal file is unreadable.
    """
    from causalarena.spec import SCMSpec

    manifest = read_manifest(folder)
    res = (manifest.get("freeze") or {}).get("reserved")
    if not res:
        raise ReleaseError(f"{folder}: manifest has no reserved-SCM commitment (freeze it first)")
    committed = {c["scm_id"]: c["sha256"] for c in res["commitments"]}
    try:
        items = json.loads(Path(reveal).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ReleaseError(f"{reveal}: not readable JSON ({exc})") from None
    if not isinstance(items, list):
        raise ReleaseError(f"{reveal}: must be a JSON list of {{scm_id, spec}}")
    problems = []
    for k, it in enumerate(items):
        if not isinstance(it, dict) or "scm_id" not in it or "spec" not in it:
            raise ReleaseError(f"{reveal}: item {k} needs 'scm_id' and 'spec'")
        sid, spec = it["scm_id"], it["spec"]
        if sid not in committed:
            problems.append(
                {"scm_id": sid, "problem": "not-committed", "expected": None, "found": None}
            )
            continue
        candidates = []
        try:
            if isinstance(spec, str):
                candidates.append(spec)
                candidates.append(SCMSpec.from_json(spec).to_json())
            else:
                candidates.append(SCMSpec.model_validate(spec).to_json())
        except Exception as exc:  # SpecError or pydantic ValidationError
            if not candidates:
                problems.append(
                    {
                        "scm_id": sid,
                        "problem": "invalid-spec",
                        "expected": committed[sid],
                        "found": str(exc)[:200],
                    }
                )
                continue
        digests = [hashlib.sha256(c.encode("utf-8")).hexdigest() for c in candidates]
        if committed[sid] not in digests:
            problems.append(
                {
                    "scm_id": sid,
                    "problem": "sha256",
                    "expected": committed[sid],
                    "found": digests[0],
                }
            )
    return problems


def file_digest(path: str | Path) -> str:
    """sha256 of a file (re-exported for callers of this module)."""
    return sha256_file(path)
