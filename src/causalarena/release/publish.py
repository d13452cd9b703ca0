"""Publishing a frozen release: Hugging Face Hub (repo, upload, tag) and a Zenodo deposition.

Tokens come from the environment only: ``HF_TOKEN`` for the Hub and ``ZENODO_TOKEN`` for
Zenodo; they are never read from arguments or files.  ``dry_run=True`` returns the plan
(files, sizes, tag / deposition steps) without touching the network.

Hub sequence (:func:`publish_hf`): ``create_repo(repo_type="dataset", exist_ok=True)`` ->
``upload_folder`` (only the release files: card, manifest, Croissant, citation files,
``data/**`` shards, ``frozen/*.json``) -> ``create_tag("vX.Y.Z")``.

Zenodo sequence (:func:`publish_zenodo`, REST API): create a deposition (or a new version of
an earlier one) -> upload a deterministic tar of the release plus the metadata files into the
deposition's bucket -> set the metadata (``.zenodo.json`` content, DOI pre-reserved) ->
optionally publish.  Record the resulting DOI with ``causalarena release set-doi``.
"""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path
from typing import Any

from causalarena.errors import ReleaseError
from causalarena.release.manifest import read_manifest

ZENODO_URL = "https://zenodo.org/api"
META_UPLOADS = ("README.md", "manifest.json", "croissant.json", "CITATION.cff", ".zenodo.json")


def release_files(folder: str | Path) -> list[dict[str, Any]]:
    """Files a publication uploads: ``{"path", "bytes"}``, sorted by path."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    paths = [p for p in META_UPLOADS if (folder / p).is_file()]
    paths += [f["path"] for f in manifest["files"]]
    frozen = folder / "frozen"
    if frozen.is_dir():
        paths += [p.relative_to(folder).as_posix() for p in sorted(frozen.glob("*.json"))]
    return [{"path": p, "bytes": (folder / p).stat().st_size} for p in sorted(paths)]


def check_publishable(folder: str | Path, version: str) -> dict[str, Any]:
    """Refuse to publish a folder that is not frozen as ``version`` or fails verification.

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    ReleaseError
        Not frozen, frozen as another version, files not matching the manifest, or invalid
        card / citation files (the message names the first problem).
    """
    from causalarena.release.verify import verify

    folder = Path(folder)
    manifest = read_manifest(folder)
    frz = manifest.get("freeze") or {}
    if frz.get("version") != version:
        state = f"frozen as {frz['version']}" if frz.get("version") else "never frozen"
        raise ReleaseError(
            f"{folder}: not frozen as {version} ({state}); run "
            f"`causalarena release freeze {folder} --version {version}` first"
        )
    problems = verify(folder)
    if problems:
        p = problems[0]
        raise ReleaseError(f"{folder}: {p['problem']} {p['path']}; run causalarena verify")
    from causalarena.release.card import validate_card
    from causalarena.release.citation import validate_cff, validate_zenodo

    msgs = validate_card(folder)
    for name, fn in (("CITATION.cff", validate_cff), (".zenodo.json", validate_zenodo)):
        msgs += [f"{name}: missing"] if not (folder / name).is_file() else fn(folder / name)
    if not msgs:
        from causalarena.release.verify import stale_metadata

        msgs = stale_metadata(folder)
    if msgs:
        raise ReleaseError(f"{folder}: metadata invalid: {msgs[0]}")
    return manifest


def hf_plan(folder: str | Path, repo_id: str, version: str) -> dict[str, Any]:
    """The Hub publication plan (no network)."""
    files = release_files(folder)
    return {
        "target": "huggingface",
        "repo_id": repo_id,
        "repo_type": "dataset",
        "tag": f"v{version}",
        "commit_message": f"Release v{version}",
        "files": files,
        "total_bytes": sum(f["bytes"] for f in files),
        "steps": ["create_repo(exist_ok=True)", "upload_folder", f"create_tag(v{version})"],
    }


def publish_hf(
    folder: str | Path,
    repo_id: str,
    version: str,
    *,
    dry_run: bool = False,
    endpoint: str | None = None,
    private: bool = False,
) -> dict[str, Any]:
    """Publish a frozen release folder to a Hugging Face dataset repo and tag it.

    Parameters
    ----------
    folder : path
    repo_id : str
        ``ORG/NAME``.
    version : str
        Frozen version ``X.Y.Z``; the tag is ``vX.Y.Z``.
    dry_run : bool, default=False
        Return the plan only.
    endpoint : str, optional
        Hub endpoint (default: the library's; tests pass a local server).
    private : bool, default=False

    Returns
    -------
    dict
        The plan, plus ``commit_url`` after a real run.

    Raises
    ------
    ReleaseError
        Not publishable (see :func:`check_publishable`), ``HF_TOKEN`` unset, or the tag exists.
    """
    import re

    from causalarena.release.metadata import REPO_ID_RE

    if not re.match(REPO_ID_RE, repo_id):
        raise ReleaseError(f"repo id {repo_id!r} must be ORG/NAME")
    folder = Path(folder)
    check_publishable(folder, version)
    if dry_run:
        return {**hf_plan(folder, repo_id, version), "dry_run": True}
    token = os.environ.get("HF_TOKEN")
    if not token:
        raise ReleaseError("HF_TOKEN is not set; export a Hub write token as HF_TOKEN")
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    from causalarena.release.freeze import set_publication
    from causalarena.release.render import write_metadata_files

    set_publication(folder, hf_repo_id=repo_id)
    write_metadata_files(folder)
    plan = hf_plan(folder, repo_id, version)
    api = HfApi(endpoint=endpoint, token=token)
    api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
    info = api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type="dataset",
        allow_patterns=[f["path"] for f in plan["files"]],
        commit_message=plan["commit_message"],
    )
    try:
        api.create_tag(
            repo_id,
            tag=plan["tag"],
            repo_type="dataset",
            tag_message=f"causalarena frozen release {version}",
        )
    except HfHubHTTPError as exc:
        status = getattr(exc.response, "status_code", None)
        if status == 409:
            raise ReleaseError(
                f"{repo_id}: tag {plan['tag']} already exists; a frozen version is immutable, "
                "publish a new version instead"
            ) from None
        raise
    return {**plan, "dry_run": False, "commit_url": str(getattr(info, "commit_url", info))}


# ----------------------------------------------------------------------------- Zenodo
def archive_name(folder: str | Path) -> str:
    """``causalarena-<suite>-<scale>-v<version>.tar``."""
    m = read_manifest(Path(folder))
    return f"causalarena-{m['suite']}-{m['scale']}-v{m['version']}.tar"


def release_archive(folder: str | Path, dest_dir: str | Path) -> Path:
    """Write the deterministic tar of the release files into ``dest_dir``; return its path.

    Members are sorted, mtime 0, uid/gid 0, mode 0644, PAX format, each streamed from its file
    (the archive never sits in memory).  Same release folder -> same bytes.
    """
    folder = Path(folder)
    name = archive_name(folder)
    path = Path(dest_dir) / name
    with tarfile.open(path, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for f in release_files(folder):
            info = tarfile.TarInfo(f"{name[:-4]}/{f['path']}")
            info.size = f["bytes"]
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with open(folder / f["path"], "rb") as fh:
                tar.addfile(info, fh)
    return path


def zenodo_plan(
    folder: str | Path, version: str, *, new_version_of: str | None = None
) -> dict[str, Any]:
    """The Zenodo deposition plan (no network)."""
    folder = Path(folder)
    meta = json.loads((folder / ".zenodo.json").read_text())
    m = read_manifest(folder)
    archive = f"causalarena-{m['suite']}-{m['scale']}-v{version}.tar"
    uploads = [archive] + [p for p in META_UPLOADS if (folder / p).is_file()]
    return {
        "target": "zenodo",
        "version": version,
        "steps": [
            f"new version of deposition {new_version_of}"
            if new_version_of
            else "create deposition",
            f"upload {len(uploads)} file(s): {', '.join(uploads)}",
            "set metadata from .zenodo.json (prereserve_doi)",
        ],
        "files": uploads,
        "archive_bytes": sum(f["bytes"] for f in release_files(folder)),
        "metadata": meta,
    }


def publish_zenodo(
    folder: str | Path,
    version: str,
    *,
    dry_run: bool = False,
    base_url: str = ZENODO_URL,
    new_version_of: str | None = None,
    publish: bool = False,
    retries: int = 5,
    backoff: float = 1.0,
) -> dict[str, Any]:
    """Deposit a frozen release on Zenodo through its REST API (:mod:`.zenodo` client).

    The token goes only to the origin of ``base_url``; the archive is written to a temporary
    file and streamed from it.

    Parameters
    ----------
    folder : path
    version : str
        Frozen version ``X.Y.Z``.
    dry_run : bool, default=False
        Return the plan only (no network, no token needed).
    base_url : str, default="https://zenodo.org/api"
    new_version_of : str, optional
        Deposition id of the previous version (creates a new version of it).
    publish : bool, default=False
        Publish the deposition (irreversible); otherwise it stays a draft.
    retries, backoff : int, float
        Retry policy of the client (:func:`causalarena.release.zenodo.session`).

    Returns
    -------
    dict
        The plan plus ``deposition_id``, ``doi`` (pre-reserved or published) after a real run.

    Raises
    ------
    ReleaseError
        Not publishable, ``ZENODO_TOKEN`` unset, an HTTP error (status and body shown), or a
        bucket / draft URL outside the configured origin.
    """
    folder = Path(folder)
    check_publishable(folder, version)
    plan = zenodo_plan(folder, version, new_version_of=new_version_of)
    if dry_run:
        return {**plan, "dry_run": True}
    token = os.environ.get("ZENODO_TOKEN")
    if not token:
        raise ReleaseError("ZENODO_TOKEN is not set; export a Zenodo token as ZENODO_TOKEN")
    import tempfile

    from causalarena._extras import require

    require("requests", "build", "causalarena publish --zenodo")
    from causalarena.release import zenodo as zn

    base = base_url.rstrip("/")
    s = zn.session(base, token, retries=retries, backoff=backoff)
    if new_version_of:
        r = zn.call(s, "POST", f"{base}/deposit/depositions/{new_version_of}/actions/newversion")
        latest = r["links"]["latest_draft"]
        zn.require_same_origin(latest, base)
        dep = zn.call(s, "GET", latest)
    else:
        dep = zn.call(s, "POST", f"{base}/deposit/depositions", body={})
    dep_id, bucket = dep["id"], dep["links"]["bucket"].rstrip("/")
    zn.require_same_origin(bucket, base)  # the token never goes to a bucket on another host
    with tempfile.TemporaryDirectory(prefix="causalarena-zenodo-") as tmp:
        archive = release_archive(folder, tmp)
        zn.call(s, "PUT", f"{bucket}/{archive.name}", upload=archive)
    for p in plan["files"][1:]:
        zn.call(s, "PUT", f"{bucket}/{p.lstrip('.')}", upload=folder / p)
    md = {k: v for k, v in plan["metadata"].items() if k != "doi"}
    md["prereserve_doi"] = True
    res = zn.call(s, "PUT", f"{base}/deposit/depositions/{dep_id}", body={"metadata": md})
    doi = ((res.get("metadata") or {}).get("prereserve_doi") or {}).get("doi")
    if publish:
        res = zn.call(s, "POST", f"{base}/deposit/depositions/{dep_id}/actions/publish")
        doi = res.get("doi", doi)
    return {**plan, "dry_run": False, "deposition_id": dep_id, "doi": doi, "published": publish}
