"""The reserved (held-out) half, drawn from a secret key and committed to in the public manifest.

Why: the CausalArena paper keeps half of every (graph family, d) block out of the public files
so that a score on it cannot come from pretraining on it.  If the reserved SCMs were drawn from
the public seed, anyone with the package could regenerate them; so they are drawn from a
secret key that never enters the repository, the public seed or the public release.

Scheme (``SCHEME``):

- the key is 32 random bytes, stored as 64 hex digits in a key file kept by the maintainers
  (``causalarena release keygen KEYFILE``); its public fingerprint ``key_id`` is
  ``HMAC-SHA256(key, "causalarena/key-id")`` (first 16 hex digits);
- reserved SCM ``i`` of suite ``s`` version ``v`` is drawn exactly as a public one, with the
  suite seed replaced by the SeedSequence entropy ``HMAC-SHA256(key, "causalarena/reserved/
  seed/s/v/scm/i")`` (256 bits).  Which pool positions are reserved, and their graph family,
  d and difficulty schedule, stay public; their content does not.  Public units do not change,
  so public builds and ``verify --rebuild`` need no key and give the same bytes as before;
- each reserved instance (one SCM x setting x replicate, ``instance_id`` as in the public
  rows) gets the commitment ``sha256("causalarena reserved instance v1" NUL salt instance_id
  NUL sha256(spec JSON) n d X mask)`` with ``X`` as little-endian float32 and ``mask`` as
  uint8, both C order, and ``salt = HMAC-SHA256(key, "causalarena/reserved/salt/s/v/<id>")``.
  The salt is secret, so a guessed spec (for instance regenerated from the public code with
  a guessed seed) cannot be confirmed against the commitment;
- each reserved pool (config) and the whole reserved half get a root: sha256 over the sorted
  ``instance_id:commitment`` lines.

What a commitment proves: the reserved instances revealed later (with the key, or one instance
with its salt) are exactly the ones fixed when the version was frozen -- they were not chosen
after seeing results.  Who can reproduce what: anyone reproduces the public shards from the
package and seed; only key holders reproduce the reserved shards (``causalarena build SUITE
--reserved-key KEYFILE --out DIR``, a folder never published) and check every commitment
(``causalarena verify RELEASE --reveal KEYFILE``); after a reveal, anyone holding the revealed
key checks them the same way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.errors import ReleaseError
from causalarena.release.metadata import RESERVED_STATEMENT as STATEMENT

__all__ = ["STATEMENT", "build_reserved", "commitments", "generate_key", "verify_reveal"]

SCHEME = "hmac-sha256-seedsequence-v1"
KEY_BYTES = 32
_DOMAIN = b"causalarena reserved instance v1\0"


# ------------------------------------------------------------------ key
def generate_key(path: str | os.PathLike) -> str:
    """Write a new random key (64 hex digits, mode 0600) to ``path``; return its ``key_id``.

    Raises
    ------
    ReleaseError
        If ``path`` exists (a key is never overwritten).
    """
    path = Path(path)
    key = secrets.token_bytes(KEY_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ReleaseError(f"{path}: exists; a reserved key is never overwritten") from None
    with os.fdopen(fd, "w") as fh:
        fh.write(key.hex() + "\n")
    return key_id(key)


def read_key(path: str | os.PathLike) -> bytes:
    """Read a key file written by :func:`generate_key` (64 hex digits; ``#`` lines ignored).

    Raises
    ------
    ReleaseError
        If the file is missing, unreadable or does not hold exactly 32 bytes of hex.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError:
        raise ReleaseError(
            f"{path}: not a reserved key file (binary content; a key file holds 64 hex "
            "characters, create one with `causalarena release keygen KEYFILE`)"
        ) from None
    except OSError as exc:
        raise ReleaseError(f"{path}: cannot read the reserved key ({exc.strerror})") from None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    try:
        key = bytes.fromhex("".join(lines))
    except ValueError:
        raise ReleaseError(f"{path}: a reserved key file holds 64 hex digits") from None
    if len(key) != KEY_BYTES:
        raise ReleaseError(
            f"{path}: a reserved key is {KEY_BYTES} bytes (64 hex digits), got {len(key)} bytes"
        )
    return key


def key_id(key: bytes) -> str:
    """Public fingerprint of a key (reveals nothing about it)."""
    return hmac.new(key, b"causalarena/key-id", hashlib.sha256).hexdigest()[:16]


def refuse_key_inside(key_path: str | os.PathLike, folder: str | os.PathLike) -> None:
    """A key file inside a folder that may be published is refused (it would leak)."""
    kp, fp = Path(key_path).resolve(), Path(folder).resolve()
    if kp.is_relative_to(fp):
        raise ReleaseError(
            f"{key_path}: the reserved key lies inside {folder}; keep it outside every "
            "release folder (it must never be published)"
        )


def unit_entropy(key: bytes, suite: str, version: str, unit: str) -> int:
    """256-bit SeedSequence entropy of one reserved work unit (``unit`` e.g. ``"scm/17"``)."""
    msg = f"causalarena/reserved/seed/{suite}/{version}/{unit}".encode()
    return int.from_bytes(hmac.new(key, msg, hashlib.sha256).digest(), "big")


def instance_salt(key: bytes, suite: str, version: str, instance_id: str) -> bytes:
    """Secret salt of one reserved instance's commitment."""
    msg = f"causalarena/reserved/salt/{suite}/{version}/{instance_id}".encode()
    return hmac.new(key, msg, hashlib.sha256).digest()


def instance_commitment(
    salt: bytes, instance_id: str, spec_json: str, X: np.ndarray, mask: np.ndarray
) -> str:
    """Salted sha256 over an instance's id, spec and data (see the module docstring).

    Parameters
    ----------
    salt : bytes
    instance_id : str
    spec_json : str
        Canonical ``SCMSpec.to_json()`` text.
    X : ndarray of shape (n, d)
        Cast to little-endian float32.
    mask : ndarray of shape (n, d)
        Cast to uint8.
    """
    X = np.ascontiguousarray(X, dtype="<f4")
    mask = np.ascontiguousarray(mask, dtype=np.uint8)
    if X.ndim != 2 or mask.shape != X.shape:
        raise ValueError(f"{instance_id}: X {X.shape} and mask {mask.shape} must be equal (n, d)")
    h = hashlib.sha256(_DOMAIN)
    h.update(salt)
    h.update(instance_id.encode() + b"\0")
    h.update(hashlib.sha256(spec_json.encode("utf-8")).digest())
    h.update(np.asarray(X.shape, dtype="<u8").tobytes())
    h.update(X.tobytes())
    h.update(mask.tobytes())
    return h.hexdigest()


def pool_root(commits: list[dict[str, Any]]) -> str:
    """sha256 over the sorted ``instance_id:sha256`` lines."""
    lines = sorted(f"{c['instance_id']}:{c['sha256']}" for c in commits)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


# ------------------------------------------------------------------ the reserved units
def reserved_targets(
    suite: Any, scale: str, blocks: list[int] | None = None
) -> list[dict[str, Any]]:
    """Reserved SCMs at ``scale``: ``{"block", "position", "scm_index"}`` per SCM.

    ``full``: every reserved SCM of every block; ``mini``: the first ``public_per_block``
    reserved SCMs of each block, matching the public subset's size.
    """
    per_block = None if scale == "full" else suite.get_scale(scale).public_per_block
    out = []
    for b in blocks if blocks is not None else range(len(suite.blocks())):
        positions = suite.reserved_positions(b)
        for k in positions[:per_block] if per_block is not None else positions:
            out.append({"block": b, "position": k, "scm_index": b * suite.scms_per_block + k})
    return out


def secret_suite(suite: Any, key: bytes, index: int) -> Any:
    """The suite definition whose seed is the key-derived entropy of reserved SCM ``index``."""
    return dataclasses.replace(
        suite, seed=unit_entropy(key, suite.name, suite.version, f"scm/{index}")
    )


def reserved_scms(
    suite_name: str, scale: str, key: bytes, targets: list[dict[str, Any]] | None = None
) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """Yield ``(target, secret_suite, AuditedSCM)`` for each reserved SCM (audited as public ones).

    Raises
    ------
    AuditError
        If a reserved SCM finds no valid candidate within the attempt budget.
    """
    from threadpoolctl import threadpool_limits

    from causalarena.generator.synthetic.family import audited_scm
    from causalarena.generator.synthetic.suites import get_suite

    suite = get_suite(suite_name)
    with threadpool_limits(1):
        for t in targets if targets is not None else reserved_targets(suite, scale):
            sec = secret_suite(suite, key, t["scm_index"])
            yield t, sec, audited_scm(sec, t["scm_index"])


def _instances(suite: Any, scm: Any, replicates: int) -> Iterator[tuple[str, str, Any]]:
    """``(config, instance_id, Table)`` of one audited SCM (ids as in the public rows)."""
    from causalarena.generator.synthetic.family import SETTINGS

    for setting, config in zip(SETTINGS, suite.configs, strict=True):
        for rep in range(replicates):
            yield config, f"{scm.spec.scm_id}/{setting}/r{rep}", scm.tables[(setting, rep)]


def commitments(
    suite_name: str,
    scale: str,
    key: bytes,
    *,
    blocks: list[int] | None = None,
    targets: list[dict[str, Any]] | None = None,
    advance: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Regenerate the reserved instances from ``key`` and commit to each.

    Parameters
    ----------
    suite_name : str
    scale : {"mini", "full"}
    key : bytes
    blocks : list of int, optional
        Restrict to these blocks (tests).
    targets : list of dict, optional
        Exactly these reserved SCMs (from :func:`reserved_targets`); overrides ``blocks``.
    advance : callable, optional
        Called once per reserved SCM committed (progress display).

    Returns
    -------
    dict
        ``{"scheme", "key_id", "scope", "scms", "count", "root_sha256", "pools": {config:
        {"count", "root_sha256"}}, "commitments": [{"instance_id", "scm_id", "scm_index",
        "block", "position", "config", "sha256"}]}``.
    """
    from causalarena.generator.synthetic.suites import get_suite

    suite = get_suite(suite_name)
    if targets is None:
        targets = reserved_targets(suite, scale, blocks)
    replicates = suite.get_scale(scale).replicates
    commits = []
    for t, _sec, scm in reserved_scms(suite_name, scale, key, targets):
        spec_json = scm.spec.to_json()
        for config, iid, table in _instances(suite, scm, replicates):
            salt = instance_salt(key, suite.name, suite.version, iid)
            commits.append(
                {
                    **t,
                    "instance_id": iid,
                    "scm_id": scm.spec.scm_id,
                    "config": config,
                    "sha256": instance_commitment(salt, iid, spec_json, table.X, table.mask),
                }
            )
        if advance is not None:
            advance()
    pools = {
        c: {
            "count": sum(1 for x in commits if x["config"] == c),
            "root_sha256": pool_root([x for x in commits if x["config"] == c]),
        }
        for c in suite.configs
    }
    per = suite.get_scale(scale).public_per_block
    where = "every block" if blocks is None else f"blocks {sorted(blocks)}"
    scope = (
        f"every reserved SCM of {where}"
        if scale == "full"
        else f"first {per} reserved SCM(s) of {where}"
    ) + f", {replicates} replicate(s) per setting"
    return {
        "scheme": SCHEME,
        "key_id": key_id(key),
        "scope": scope,
        "scms": len(targets),
        "count": len(commits),
        "root_sha256": pool_root(commits),
        "pools": pools,
        "commitments": commits,
    }


# ------------------------------------------------------------------ reserved build
RESERVED_MARK = "reserved.json"


def _draw_committed(key: bytes, fam: Any, unit: Any) -> Any:
    """Engine runner of a reserved build: draw ``unit`` from the key and carry its
    commitments in the audit list (kept in the private folder's resume record)."""
    from causalarena.family import UnitResult

    res = fam.run_reserved(unit, unit_seed_sequence(key, unit))
    commits = commit_results(fam, unit.suite, unit.version, key, iter([(unit, res)]))
    return UnitResult(tables=res.tables, audit=[{"commitment": c} for c in commits])


def _check_reserved_folder(outp: Path, mark: dict[str, Any]) -> None:
    """``outp`` is missing, empty, or a (possibly interrupted) reserved build of the same
    suite, version, scale and key."""
    import json

    from causalarena.release.engine import BUILD_DIR
    from causalarena.release.manifest import MANIFEST

    if outp.exists() and not outp.is_dir():
        raise ReleaseError(f"{outp}: exists and is not a folder")
    if not outp.exists() or not any(outp.iterdir()):
        return
    mark_file = outp / BUILD_DIR / RESERVED_MARK
    if not mark_file.exists() and {p.name for p in outp.iterdir()} == {BUILD_DIR}:
        return  # killed before its first record (unit records are keyed by key_id anyway)
    try:
        old = json.loads(mark_file.read_text())
    except (OSError, ValueError):
        old = None
    if not isinstance(old, dict):
        try:
            m = json.loads((outp / MANIFEST).read_text())
        except (OSError, ValueError):
            m = None
        if isinstance(m, dict) and m.get("reserved_build"):
            old = {k: m.get(k) for k in ("suite", "version", "scale")}
            old["key_id"] = (m.get("reserved") or {}).get("key_id")
    if not isinstance(old, dict):
        raise ReleaseError(
            f"{outp}: not empty and not a reserved build; choose a new folder outside "
            "every public release"
        )
    for k in ("suite", "version", "scale", "key_id"):
        if old.get(k) != mark[k]:
            raise ReleaseError(
                f"{outp}: holds a reserved build with {k} {old.get(k)}, not {mark[k]}; "
                "choose another folder"
            )


def build_reserved(
    suite: str,
    *,
    key_file: str | os.PathLike,
    out: str | os.PathLike,
    scale: str = "mini",
    blocks: list[int] | None = None,
    workers: int = 1,
    quiet: bool = False,
    family: Any = None,
) -> Path:
    """Build the reserved (key-drawn) half of any family that declares one into ``out``.

    ``out`` is a private folder, never published: ``data/<config>/reserved-KKKKK-of-NNNNN
    .parquet`` (the config's public schema), ``manifest.json`` (``reserved_build: true``, the
    files and the same commitments ``freeze`` publishes) and a ``README.md`` saying so.  Units
    come from :attr:`Family.reserved_units` and are drawn by :attr:`Family.run_reserved` from
    the key-derived SeedSequence (:func:`unit_seed_sequence`).  It runs through the engine's
    unit machinery (:func:`causalarena.release.engine.run_and_consolidate`): the same lock,
    resume records (``.build/units/<unit>.json``, keyed also by the key's ``key_id``), parts
    deleted once consolidated, ``workers`` spawn processes and shards byte-identical for any
    worker count.  A killed reserved build resumes when the same command is run again.

    Raises
    ------
    ReleaseError
        The family declares no reserved half, ``out`` holds anything but a reserved build of
        the same suite, version, scale and key, the key file lies inside ``out`` or is
        unusable, or another build holds the lock.
    ValueError
        Unknown scale or ``workers < 1``.
    """
    import functools

    from causalarena.family import family_of, register
    from causalarena.release.engine import (
        BUILD_DIR,
        build_key,
        build_lock,
        run_and_consolidate,
        unit_is_done,
    )
    from causalarena.release.io import (
        atomic_write_bytes,
        atomic_write_json,
        remove_stale_temporaries,
    )
    from causalarena.release.manifest import MANIFEST, environment
    from causalarena.ui import progress

    if family is not None:
        register(family)
    fam = family if family is not None else family_of(suite)
    info = fam.suite(suite)
    if not has_reserved(fam, suite):
        raise ReleaseError(f"{suite} ({fam.name} family) declares no reserved half")
    if scale not in info.scales:
        raise ValueError(f"unknown scale {scale!r} for suite {suite!r}; choose from {info.scales}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    key = read_key(key_file)
    outp = Path(out)
    refuse_key_inside(key_file, outp)
    for parent in outp.resolve().parents:  # a private folder inside a release would ship with it
        if (parent / "manifest.json").is_file():
            raise ReleaseError(
                f"{outp}: the reserved half would be written inside the release folder {parent}, "
                "which is published; choose a private folder outside any release"
            )
    mark = {"suite": suite, "version": info.version, "scale": scale, "key_id": key_id(key)}
    _check_reserved_folder(outp, mark)
    units = list(fam.reserved_units(suite, scale, {}))
    if blocks is not None:
        units = [u for u in units if u.params.get("block") in set(blocks)]
    keys = {u.key: {**build_key(fam, u), "reserved_key_id": key_id(key)} for u in units}
    if len(keys) != len(units):
        raise ReleaseError(f"{suite}: reserved unit keys are not unique")
    outp.mkdir(parents=True, exist_ok=True)
    with build_lock(outp):
        atomic_write_json(outp / BUILD_DIR / RESERVED_MARK, mark)
        remove_stale_temporaries(outp)
        records: dict[str, dict[str, Any]] = {}
        todo = []
        for u in units:
            rec = unit_is_done(outp, u, keys[u.key])
            if rec is not None:
                records[u.key] = rec
            else:
                todo.append(u)
        if records and not quiet:
            import sys

            print(
                f"{outp}: reusing {len(records)} finished reserved unit(s); building {len(todo)}",
                file=sys.stderr,
            )
        with progress(quiet) as bar:
            task = bar.add_task(
                f"building reserved {suite} ({scale})", total=len(units), completed=len(records)
            )
            files = run_and_consolidate(
                outp,
                fam,
                suite,
                units,
                keys,
                records,
                todo,
                workers,
                lambda: bar.advance(task),
                runner=functools.partial(_draw_committed, key),
                prefix="reserved",
            )
        stale = {f["path"] for f in files}
        for p in sorted((outp / "data").rglob("reserved-*.parquet")):
            if p.relative_to(outp).as_posix() not in stale:
                p.unlink()  # shards of an earlier, differently split build
        commits = [a["commitment"] for u in units for a in records[u.key].get("audit", [])]
        scope = f"every reserved unit of {suite} {info.version} at scale {scale}"
        configs: dict[str, dict[str, Any]] = {}
        for f in files:
            c = configs.setdefault(f["config"], {"rows": 0, "shards": 0, "split": "reserved"})
            c["rows"] += f["rows"]
            c["shards"] += 1
        manifest = {
            "suite": suite,
            "version": info.version,
            "scale": scale,
            "family": fam.name,
            "reserved_build": True,
            "reserved": summarise(commits, key, scope, len(units)),
            "environment": environment(),
            "configs": configs,
            "files": files,
        }
        atomic_write_json(outp / MANIFEST, manifest)
        atomic_write_bytes(
            outp / "README.md",
            (
                f"# RESERVED {suite} {info.version} ({scale}) -- DO NOT PUBLISH\n\n"
                "These are the held-out instances, drawn from the maintainers' secret key "
                f"(key_id `{key_id(key)}`).  Check them against a public release with "
                "`causalarena verify RELEASE --reveal KEYFILE --reserved-dir THIS_FOLDER`.\n"
            ).encode(),
        )
    return outp


# ------------------------------------------------------------------ reveal
def _row_arrays(row: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """``X`` (n, d) and ``mask`` (n, d) of a stored row, whatever the list layout."""
    d = len(row["variables"])
    return (
        np.asarray(row["X"], dtype=np.float32).reshape(-1, d),
        np.asarray(row["mask"], dtype=bool).reshape(-1, d),
    )


def _revealed_from_folder(
    reserved_dir: Path, key: bytes, suite: str, version: str
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Commitments recomputed from a reserved build's shards (and that folder's own checks)."""
    import pyarrow.parquet as pq

    from causalarena.release.manifest import read_manifest
    from causalarena.release.verify import check_files

    m = read_manifest(reserved_dir)
    if not m.get("reserved_build"):
        raise ReleaseError(f"{reserved_dir}: not a reserved build (no reserved_build in manifest)")
    if (m["suite"], m["version"]) != (suite, version):
        raise ReleaseError(
            f"{reserved_dir}: holds {m['suite']} {m['version']}, the release is {suite} {version}"
        )
    probs = [
        {**p, "path": f"{reserved_dir.name}/{p['path']}"}
        for p in check_files(reserved_dir, m["files"])
    ]
    bad = {p["path"] for p in probs}
    fam = family_or_none(suite)
    if fam is None or not has_reserved(fam, suite):
        raise ReleaseError(f"{reserved_dir}: {suite} declares no reserved half")
    found: dict[str, str] = {}
    for f in m["files"]:
        if f"{reserved_dir.name}/{f['path']}" in bad:
            continue
        table = pq.read_table(reserved_dir / f["path"])
        for iid, spec_json, X, mask in fam.reserved_instances(f["config"], table):
            salt = instance_salt(key, suite, version, iid)
            found[iid] = instance_commitment(salt, iid, spec_json, X, mask)
    return found, probs


def verify_reveal(
    folder: str | os.PathLike,
    key_file: str | os.PathLike,
    *,
    reserved_dir: str | os.PathLike | None = None,
    quiet: bool = True,
) -> list[dict[str, Any]]:
    """Check every reserved commitment of a frozen release with the secret key.

    ``quiet=False`` shows a progress bar on stderr while the reserved SCMs are regenerated.

    Without ``reserved_dir`` the reserved instances are regenerated from the key (only the
    committed SCMs); with it, they are read from a reserved build's shards (whose files are
    checked against its own manifest first).

    Returns
    -------
    list of dict
        ``{"path", "problem", "expected", "found"}`` with ``problem`` in {"reveal-key" (the
        key's fingerprint is not the committed one), "reveal-sha256" (an instance differs from
        its commitment), "reveal-missing" (committed, not revealed), "reveal-extra" (revealed,
        not committed), "reveal-root" (a pool root disagrees with its commitments)}, ``path``
        being the instance id; empty when every commitment checks out.

    Raises
    ------
    ReleaseError
        If the release is not frozen with a key-based commitment, or the key file is unusable
        or lies inside the release folder.
    """
    from causalarena.release.manifest import read_manifest

    folder = Path(folder)
    manifest = read_manifest(folder)
    res = (manifest.get("freeze") or {}).get("reserved")
    fam = family_or_none(manifest.get("suite"))
    if not res:
        if fam is None or not has_reserved(fam, manifest.get("suite")):
            raise ReleaseError(
                f"{folder}: {manifest.get('suite')} ({manifest.get('family')} family) declares "
                "no key-drawn reserved half, so its manifest holds no reserved commitment to "
                "reveal"
            )
        raise ReleaseError(
            f"{folder}: manifest has no reserved commitment (freeze it with --reserved-key first)"
        )
    if not isinstance(res, dict) or res.get("scheme") != SCHEME:
        raise ReleaseError(
            f"{folder}: freeze.reserved uses scheme {res.get('scheme') if isinstance(res, dict) else None!r},"
            f" not {SCHEME!r} (the public-seed commitments of earlier builds cannot be revealed "
            "with a key); freeze again with --reserved-key"
        )
    refuse_key_inside(key_file, folder)
    key = read_key(key_file)
    probs: list[dict[str, Any]] = []
    if res.get("key_id") != key_id(key):
        probs.append(
            {
                "path": "manifest.json",
                "problem": "reveal-key",
                "expected": res.get("key_id"),
                "found": key_id(key),
            }
        )
    committed = {c["instance_id"]: c for c in res.get("commitments") or []}
    for name, pool in (res.get("pools") or {}).items():
        mine = [c for c in committed.values() if c.get("config") == name]
        if pool_root(mine) != pool.get("root_sha256") or len(mine) != pool.get("count"):
            probs.append(
                {
                    "path": f"pool {name}",
                    "problem": "reveal-root",
                    "expected": pool.get("root_sha256"),
                    "found": pool_root(mine),
                }
            )
    if pool_root(list(committed.values())) != res.get("root_sha256"):
        probs.append(
            {
                "path": "pool (all)",
                "problem": "reveal-root",
                "expected": res.get("root_sha256"),
                "found": pool_root(list(committed.values())),
            }
        )
    if reserved_dir is not None:
        found, fprobs = _revealed_from_folder(
            Path(reserved_dir), key, manifest["suite"], manifest["version"]
        )
        probs += fprobs
    else:
        if fam is None or not has_reserved(fam, manifest.get("suite")):
            raise ReleaseError(
                f"{folder}: {manifest.get('suite')} declares no reserved units to regenerate"
            )
        wanted = {c.get("unit") for c in committed.values()}
        units = [
            u
            for u in fam.reserved_units(manifest["suite"], manifest["scale"], {})
            if u.key in wanted
        ]
        from causalarena.ui import progress

        with progress(quiet) as bar:
            task = bar.add_task(f"revealing {manifest['suite']} reserved units", total=len(units))
            regen = family_commitments(
                fam,
                manifest["suite"],
                manifest["scale"],
                key,
                units=units,
                advance=lambda: bar.advance(task),
            )
        found = {c["instance_id"]: c["sha256"] for c in regen["commitments"]}
    for iid, c in sorted(committed.items()):
        if iid not in found:
            probs.append(
                {"path": iid, "problem": "reveal-missing", "expected": c["sha256"], "found": None}
            )
        elif found[iid] != c["sha256"]:
            probs.append(
                {
                    "path": iid,
                    "problem": "reveal-sha256",
                    "expected": c["sha256"],
                    "found": found[iid],
                }
            )
    for iid in sorted(set(found) - set(committed)):
        probs.append(
            {"path": iid, "problem": "reveal-extra", "expected": None, "found": found[iid]}
        )
    return probs


# ------------------------------------------------------------------ any family
def unit_seed_sequence(key: bytes, unit: Any) -> np.random.SeedSequence:
    """The key-derived SeedSequence a family draws reserved ``unit`` from.

    Entropy: ``HMAC-SHA256(key, "causalarena/reserved/seed/<suite>/<version>/<name>")`` with
    ``name`` = ``unit.params["entropy_name"]`` when given (synthetic: ``scm/<index>``), else
    ``unit.key``.
    """
    name = str(unit.params.get("entropy_name", unit.key))
    return np.random.SeedSequence(unit_entropy(key, unit.suite, unit.version, name))


def family_or_none(suite: Any) -> Any:
    """The registered family of ``suite``, or None when no family builds it."""
    from causalarena.family import family_of

    try:
        return family_of(str(suite))
    except ValueError:
        return None


def has_reserved(fam: Any, suite: str | None = None) -> bool:
    """Whether family ``fam`` declares a key-drawn reserved half (for ``suite``, when given:
    :attr:`Family.reserved_suites` may limit it to some of the family's suites)."""
    if fam.reserved_units is None or fam.run_reserved is None:
        return False
    only = getattr(fam, "reserved_suites", None)
    return suite is None or only is None or suite in only


def run_reserved_units(
    fam: Any, key: bytes, units: list[Any], advance: Any = None
) -> Iterator[tuple[Any, Any]]:
    """Yield ``(unit, UnitResult)`` for each reserved unit, drawn from ``key``.

    ``advance`` (optional) is called after each unit (progress bars)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        for u in units:
            res = fam.run_reserved(u, unit_seed_sequence(key, u))
            if advance is not None:
                advance()
            yield u, res


def _unit_fields(unit: Any) -> dict[str, Any]:
    """The unit's public fields in a commitment: its key and parameters, except
    ``entropy_name`` and parameters whose name starts with ``_`` (private: e.g. the name and
    sha256 of a reserved scenario file, which would tell what the reserved instance is)."""
    return {
        "unit": unit.key,
        **{k: v for k, v in unit.params.items() if k != "entropy_name" and not k.startswith("_")},
    }


def commit_results(
    fam: Any, suite: str, version: str, key: bytes, results: Iterator[tuple[Any, Any]]
) -> list[dict[str, Any]]:
    """One salted commitment per row of every reserved table (see the module docstring)."""
    commits = []
    for u, res in results:
        for config, table in res.tables.items():
            for iid, spec_json, X, mask in fam.reserved_instances(config, table):
                salt = instance_salt(key, suite, version, iid)
                commits.append(
                    {
                        **_unit_fields(u),
                        "instance_id": iid,
                        "config": config,
                        "sha256": instance_commitment(salt, iid, spec_json, X, mask),
                        "fingerprint": _fingerprint(spec_json),
                    }
                )
    return commits


def _fingerprint(spec_json: str) -> dict[str, str] | None:
    """Contamination-guard fingerprint of a reserved SCM (published apart from the
    commitments, without instance ids; see :mod:`causalarena.fingerprint`)."""
    from causalarena.fingerprint import fingerprint

    try:
        return fingerprint(spec_json)
    except (ValueError, KeyError, TypeError):
        return None


def summarise(commits: list[dict[str, Any]], key: bytes, scope: str, n_units: int) -> dict:
    """The ``freeze.reserved`` block: scheme, key_id, per-pool and overall roots, and the
    reserved SCMs' fingerprints (sorted, de-duplicated, not linked to instance ids) so a
    fresh-SCM stream can reject them without seeing their specs."""
    from causalarena.fingerprint import SCHEME as FP_SCHEME

    fps = sorted(
        {
            json.dumps({"config": c["config"], **c["fingerprint"]}, sort_keys=True)
            for c in commits
            if c.get("fingerprint")
        }
    )
    commits = [{k: v for k, v in c.items() if k != "fingerprint"} for c in commits]
    pools = {}
    for c in sorted({x["config"] for x in commits}):
        mine = [x for x in commits if x["config"] == c]
        pools[c] = {"count": len(mine), "root_sha256": pool_root(mine)}
    return {
        "scheme": SCHEME,
        "key_id": key_id(key),
        "scope": scope,
        "units": n_units,
        "count": len(commits),
        "root_sha256": pool_root(commits),
        "pools": pools,
        "commitments": commits,
        "fingerprint_scheme": FP_SCHEME,
        "fingerprints": [json.loads(x) for x in fps],
    }


def family_commitments(
    fam: Any,
    suite: str,
    scale: str,
    key: bytes,
    *,
    units: list[Any] | None = None,
    advance: Any = None,
) -> dict[str, Any]:
    """Regenerate a family's reserved units from ``key`` and commit to every instance."""
    if units is None:
        units = list(fam.reserved_units(suite, scale, {}))
    version = fam.suite(suite).version
    commits = commit_results(fam, suite, version, key, run_reserved_units(fam, key, units, advance))
    scope = f"every reserved unit of {suite} {version} at scale {scale}"
    return summarise(commits, key, scope, len(units))
