"""Check a release folder against its manifest, end to end (issue 9 §4).

Everything a consumer is served must be what the manifest lists: Parquet shards and Zarr
chunks (existence, size, sha256, nothing unlisted), the card's ``configs``/``data_files``
(exactly the manifest's files of each config, only from inside the folder), the Croissant
FileObjects (sha256, size, URL) and the manifest's own bookkeeping (rows per config, no entry
without a file).  :func:`causalarena.load` runs :func:`served_problems` before serving a
config; ``causalarena verify`` runs :func:`verify`.  A problem is a dict ``{"path", "problem",
"expected", "found"}``; a manifest that cannot be read at all is a ``ReleaseError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from causalarena.release.io import sha256_file
from causalarena.release.manifest import (
    content_record,
    content_sha256,
    read_manifest,
    registry_path,
)

#: Files that describe the release and are not listed in ``manifest["files"]``.
META_FILES = {
    "manifest.json",
    "README.md",
    "croissant.json",
    "CITATION.cff",
    ".zenodo.json",
}
#: Folders whose every file must be listed in the manifest (served data: Parquet and Zarr).
DATA_ROOTS = ("data", "zarr")

Problem = dict[str, Any]


def _problem(path: str, problem: str, expected: Any = None, found: Any = None) -> Problem:
    return {"path": path, "problem": problem, "expected": expected, "found": found}


# ------------------------------------------------------------------ manifest entries
def manifest_entries(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Every file the manifest lists: ``manifest["files"]`` plus the Zarr stores' files.

    Temporal releases list their Zarr chunk and metadata files under
    ``manifest["zarr"][<store>]["files"]``; each returned entry has ``path``, ``bytes`` and
    ``sha256`` (and ``config``/``rows`` for Parquet shards), sorted by path, one per path.
    """
    from causalarena.errors import ReleaseError
    from causalarena.release.manifest import check_file_entry

    out: dict[str, dict[str, Any]] = {}
    for f in manifest.get("files") or []:
        out.setdefault(f["path"], f)
    zarr = manifest.get("zarr")
    for store in zarr.values() if isinstance(zarr, dict) else []:
        files = store.get("files") if isinstance(store, dict) else None
        for f in files if isinstance(files, list) else []:
            try:
                check_file_entry(Path("manifest.json"), "zarr", f)
            except ReleaseError:
                continue  # reported by check_manifest
            out.setdefault(f["path"], {**f, "store": store.get("path")})
    return [out[p] for p in sorted(out)]


def check_manifest(manifest: dict[str, Any], where: str = "manifest.json") -> list[Problem]:
    """The manifest's own consistency.

    Checks: no path listed twice; every Parquet entry names a config of ``configs`` and has
    integer ``rows``; every config has at least one file, and its ``rows``/``shards`` equal the
    sums over its files; every Zarr entry lies inside its store; every Zarr file entry is
    well formed (relative path inside the folder, integer bytes, hex sha256).

    Returns
    -------
    list of dict
        ``{"path": "manifest.json", "problem": "manifest", "expected", "found"}`` per problem
        (``found`` says which field disagrees).
    """
    from causalarena.errors import ReleaseError
    from causalarena.release.manifest import check_file_entry

    probs: list[Problem] = []
    seen: dict[str, str] = {}

    def note(msg: str, expected: Any = None, found: Any = None) -> None:
        probs.append(_problem(where, "manifest", expected, msg if found is None else found))

    for k, f in enumerate(manifest["files"]):
        if f["path"] in seen:
            note(f"files[{k}].path {f['path']!r} is listed twice")
        seen[f["path"]] = f"files[{k}]"
        store = f.get("store")
        if store is not None and not (
            isinstance(store, str) and f["path"].startswith(store.rstrip("/") + "/")
        ):
            note(f"files[{k}].path {f['path']!r} is outside its store {store!r}")
    zarr = manifest.get("zarr") or {}
    if not isinstance(zarr, dict):
        note(f"zarr must be an object, got {type(zarr).__name__}")
        zarr = {}
    for name, store in zarr.items():
        if not isinstance(store, dict) or not isinstance(store.get("files"), list):
            note(f"zarr.{name} needs a 'files' list")
            continue
        root = str(store.get("path") or "")
        for k, f in enumerate(store["files"]):
            field = f"zarr.{name}.files[{k}]"
            try:
                check_file_entry(Path(where), field, f)
            except ReleaseError as exc:
                note(str(exc))
                continue
            if f["path"] in seen:
                note(f"{field}.path {f['path']!r} is also listed as {seen[f['path']]}")
            seen[f["path"]] = field
            if root and not f["path"].startswith(root.rstrip("/") + "/"):
                note(f"{field}.path {f['path']!r} is outside its store {root!r}")
    configs = manifest["configs"]
    per: dict[str, dict[str, int]] = {c: {"rows": 0, "shards": 0} for c in configs}
    for k, f in enumerate(manifest["files"]):
        c = f.get("config")
        if c is None:
            continue  # a file that belongs to no config (none are written today)
        if c not in configs:
            note(f"files[{k}] ({f['path']}) names config {c!r}, which configs does not list")
            continue
        rows = f.get("rows")
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 0:
            note(f"files[{k}].rows must be an integer >= 0, got {rows!r}")
            continue
        per[c]["rows"] += rows
        per[c]["shards"] += 1
    for c, info in configs.items():
        if per[c]["shards"] == 0:
            note(f"configs.{c} has no file in files")
            continue
        for key in ("rows", "shards"):
            if key in info and info[key] != per[c][key]:
                note(
                    f"configs.{c}.{key} is {info[key]}, the files of {c} sum to {per[c][key]}",
                    per[c][key],
                    None,
                )
    return probs


# ------------------------------------------------------------------ files on disk
def _data_files_on_disk(folder: Path) -> list[str]:
    out = []
    for root in DATA_ROOTS:
        base = folder / root
        if base.is_dir():
            for p in base.rglob("*"):
                rel = p.relative_to(folder)
                if p.is_file() and not any(part.startswith(".") for part in rel.parts):
                    out.append(rel.as_posix())
    return sorted(out)


def check_files(
    folder: str | Path,
    entries: list[dict[str, Any]],
    *,
    checksums: bool = True,
    digest: Callable[[Path], str] = sha256_file,
    extra_roots: list[str] | None = None,
) -> list[Problem]:
    """Compare files with manifest entries: missing, size, sha256; and unlisted files.

    Parameters
    ----------
    folder : path
    entries : list of dict
        Manifest entries to check (``path``, ``bytes``, ``sha256``).
    checksums : bool, default=True
        Also compare sha256 (else existence and size only).
    digest : callable, default=sha256_file
        ``Path -> hex sha256`` (the loader passes a cached one).
    extra_roots : list of str, optional
        Folders (relative) scanned for unlisted files; default :data:`DATA_ROOTS`.

    Returns
    -------
    list of dict
        ``problem`` in {"missing", "size", "sha256", "extra", "not-a-file"}.
    """
    folder = Path(folder)
    probs: list[Problem] = []
    for f in entries:
        p = folder / f["path"]
        if not p.exists():
            probs.append(_problem(f["path"], "missing", f["sha256"]))
            continue
        if not p.is_file() or not p.resolve().is_relative_to(folder.resolve()):
            probs.append(_problem(f["path"], "not-a-file", "regular file inside the folder"))
            continue
        size = p.stat().st_size
        if size != f["bytes"]:
            probs.append(_problem(f["path"], "size", f["bytes"], size))
            continue
        if checksums:
            got = digest(p)
            if got != f["sha256"]:
                probs.append(_problem(f["path"], "sha256", f["sha256"], got))
    listed = {f["path"] for f in entries}
    roots = DATA_ROOTS if extra_roots is None else tuple(extra_roots)
    for rel in _data_files_on_disk(folder):
        if rel not in listed and any(rel.startswith(r.rstrip("/") + "/") for r in roots):
            probs.append(_problem(rel, "extra"))
    return probs


def check_parquet_rows(folder: str | Path, entries: list[dict[str, Any]]) -> list[Problem]:
    """Row count in each Parquet footer vs the manifest's ``rows`` (reads footers only)."""
    import pyarrow.parquet as pq

    probs = []
    for f in entries:
        if not f["path"].endswith(".parquet") or "rows" not in f:
            continue
        try:
            n = pq.ParquetFile(Path(folder) / f["path"]).metadata.num_rows
        except Exception as exc:  # damaged footer: ArrowInvalid, OSError
            probs.append(_problem(f["path"], "unreadable", "a Parquet file", str(exc)[:120]))
            continue
        if n != f["rows"]:
            probs.append(_problem(f["path"], "rows", f["rows"], n))
    return probs


# ------------------------------------------------------------------ card
def read_card_configs(folder: str | Path) -> dict[str, dict[str, list[str]]]:
    """``{config_name: {split: [patterns]}}`` from the card's YAML ``configs``.

    Accepts every form ``datasets`` does: ``data_files`` as a string, a list of strings
    (split ``train``), or a list of ``{split, path}`` with ``path`` a string or list.

    Raises
    ------
    ReleaseError
        If ``README.md`` is missing, has no YAML front matter, or its ``configs`` are malformed
        (names the field).
    """
    import yaml

    from causalarena.errors import ReleaseError

    path = Path(folder) / "README.md"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReleaseError(f"{path}: cannot read the dataset card ({exc})") from None
    if not text.startswith("---\n") or (end := text.find("\n---", 4)) < 0:
        raise ReleaseError(f"{path}: no YAML front matter (---) with configs")
    from causalarena.safejson import JSONDepthError, check_object

    try:
        fm = yaml.safe_load(text[4:end])
        check_object(fm)
    except (yaml.YAMLError, RecursionError, JSONDepthError) as exc:
        raise ReleaseError(f"{path}: front matter is not valid YAML ({str(exc)[:200]})") from None
    if not isinstance(fm, dict) or not isinstance(fm.get("configs"), list):
        raise ReleaseError(f"{path}: front matter needs a 'configs' list")
    out: dict[str, dict[str, list[str]]] = {}
    for k, c in enumerate(fm["configs"]):
        where = f"{path}: configs[{k}]"
        if not isinstance(c, dict) or not isinstance(c.get("config_name"), str):
            raise ReleaseError(f"{where} needs a string config_name")
        name = c["config_name"]
        if name in out:
            raise ReleaseError(f"{where}: config {name!r} is declared twice")
        df = c.get("data_files")
        splits: dict[str, list[str]] = {}
        items = [df] if isinstance(df, (str, dict)) else df
        if not isinstance(items, list) or not items:
            raise ReleaseError(f"{where} ({name}).data_files must be a string or a list")
        for j, it in enumerate(items):
            if isinstance(it, str):
                split, pats = "train", [it]
            elif isinstance(it, dict) and isinstance(it.get("split"), str):
                split, pats = it["split"], it.get("path")
                pats = [pats] if isinstance(pats, str) else pats
            else:
                raise ReleaseError(f"{where} ({name}).data_files[{j}] needs split and path")
            if not isinstance(pats, list) or not all(isinstance(q, str) for q in pats):
                raise ReleaseError(f"{where} ({name}).data_files[{j}].path must be strings")
            splits.setdefault(split, []).extend(pats)
        out[name] = splits
    return out


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """fsspec-style glob: ``*``/``?`` stay inside one path segment, ``**`` crosses them."""
    rx, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            rx, i = rx + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            rx, i = rx + ".*", i + 2
        elif pattern[i] == "*":
            rx, i = rx + "[^/]*", i + 1
        elif pattern[i] == "?":
            rx, i = rx + "[^/]", i + 1
        else:
            rx, i = rx + re.escape(pattern[i]), i + 1
    return re.compile(rx + r"\Z")


def unsafe_pattern(pattern: str) -> str | None:
    """Why a card ``data_files`` pattern could read outside the folder (None when safe)."""
    if "://" in pattern or pattern.startswith(("hf:", "~", "/", "\\")) or ":" in pattern:
        return "is a URL or absolute path"
    if ".." in pattern.replace("\\", "/").split("/"):
        return "leaves the folder (..)"
    if "[" in pattern or "{" in pattern:
        return "uses [ ] or { } globs (not supported in a release card)"
    return None


def check_card(
    folder: str | Path,
    manifest: dict[str, Any],
    configs: list[str] | None = None,
    *,
    reported_roots: tuple[str, ...] = DATA_ROOTS,
) -> list[Problem]:
    """The card's ``configs`` serve exactly the manifest's files, and only from the folder.

    For each config (all, or those in ``configs``): the card declares it with the manifest's
    split; no ``data_files`` pattern is a URL, absolute, uses ``..`` or bracket globs; the
    patterns match every manifest file of the config (not a subset) and no file the manifest
    lists for another config or does not list at all.  Every card config must be in the
    manifest.

    Unlisted files under ``reported_roots`` are left to :func:`check_files` (reported there as
    ``extra``), so one stray file is one problem.

    Returns
    -------
    list of dict
        ``{"path": "README.md", "problem": "card", "expected", "found"}`` per problem.
    """
    from causalarena.errors import ReleaseError

    folder = Path(folder)
    try:
        card = read_card_configs(folder)
    except ReleaseError as exc:
        return [_problem("README.md", "card", "configs matching manifest.json", str(exc))]
    probs: list[Problem] = []
    mconf = manifest["configs"]
    by_config: dict[str, set[str]] = {}
    owner: dict[str, str] = {}
    for f in manifest["files"]:
        if f.get("config") is not None:
            by_config.setdefault(f["config"], set()).add(f["path"])
            owner[f["path"]] = f["config"]
    names = list(mconf) if configs is None else list(configs)
    if configs is None:
        for extra in sorted(set(card) - set(mconf)):
            if view_base(extra, mconf) is not None:
                names.append(extra)  # a fixed-d view of a manifest config
                continue
            probs.append(
                _problem("README.md", "card", None, f"config {extra!r} is not in the manifest")
            )
    on_disk = None
    for name in names:
        if name not in card:
            probs.append(_problem("README.md", "card", f"config {name!r}", "not declared"))
            continue
        view = view_base(name, mconf) if name not in mconf else None
        base = view[0] if view else name
        want_split = (mconf.get(base) or {}).get("split", "test")
        if set(card[name]) != {want_split}:
            probs.append(
                _problem(
                    "README.md",
                    "card",
                    f"{name}: split {want_split!r}",
                    f"splits {sorted(card[name])}",
                )
            )
        pats = [q for qs in card[name].values() for q in qs]
        bad = [(q, why) for q in pats if (why := unsafe_pattern(q))]
        for q, why in bad:
            probs.append(
                _problem(
                    "README.md", "card", f"{name}: a pattern inside the folder", f"{q!r} {why}"
                )
            )
        if bad:
            continue
        rxs = [_glob_regex(q.lstrip("./") if q.startswith("./") else q) for q in pats]
        served = {p for p in owner if any(rx.match(p) for rx in rxs)}
        mine = by_config.get(base, set())
        if view:  # a view serves the shards of its config that hold its d, and nothing else
            probs += _check_view(folder, name, view[1], sorted(served & mine))
            probs += _check_view_columns(folder, name, sorted(served & mine))
            mine = served & mine
        unserved = sorted(mine - served)
        if unserved:
            probs.append(
                _problem(
                    "README.md",
                    "card",
                    f"data_files of {name} match its {len(mine)} manifest files",
                    f"{len(unserved)} of {len(mine)} not matched (a subset), e.g. "
                    + ", ".join(unserved[:3]),
                )
            )
        foreign = sorted(served - mine)
        if foreign:
            others = sorted({owner[p] for p in foreign})
            probs.append(
                _problem(
                    "README.md",
                    "card",
                    f"data_files of {name} match only its own files",
                    f"{len(foreign)} file(s) listed for config(s) {others}, e.g. "
                    + ", ".join(foreign[:3]),
                )
            )
        if on_disk is None:
            on_disk = [
                p.relative_to(folder).as_posix()
                for p in folder.rglob("*")
                if p.is_file()
                and ".build" not in p.relative_to(folder).parts
                and not any(
                    p.relative_to(folder).as_posix().startswith(r + "/") for r in reported_roots
                )
            ]
        for p in sorted(q for q in on_disk if q not in owner and any(rx.match(q) for rx in rxs)):
            probs.append(
                _problem(
                    "README.md",
                    "card",
                    f"{name} serves only listed files",
                    f"{p} (not in manifest)",
                )
            )
    return probs


def view_base(name: str, configs: dict[str, Any]) -> tuple[str, int] | None:
    """``(config, d)`` if ``name`` is a fixed-d view ``<config>-d<ddd>`` of a manifest config."""
    from causalarena.schema import VIEW_RE

    m = VIEW_RE.match(name)
    if m is None or m["config"] not in configs:
        return None
    return m["config"], int(m["d"])


def _card_columns(folder: Path) -> dict[str, Any]:
    """``{config: columns or None}`` from the card's YAML ``configs`` (the ``columns:`` key)."""
    import yaml

    text = (Path(folder) / "README.md").read_text(encoding="utf-8")
    end = text.find("\n---", 4)
    fm = yaml.safe_load(text[4:end]) if text.startswith("---\n") and end > 0 else {}
    out: dict[str, Any] = {}
    for c in (fm or {}).get("configs") or []:
        if isinstance(c, dict) and isinstance(c.get("config_name"), str):
            out[c["config_name"]] = c.get("columns")
    return out


def _check_view_columns(folder: Path, name: str, files: list[str]) -> list[Problem]:
    """A view's card ``columns:`` are exactly :data:`causalarena.schema.VIEW_COLUMNS` (so the
    join key is never dropped), and each is a column of its shards."""
    import pyarrow.parquet as pq

    from causalarena.schema import VIEW_COLUMNS

    try:
        cols = _card_columns(folder).get(name)
    except Exception:  # unreadable card: reported by the card check itself
        return []
    if cols is None:
        return []
    probs = []
    if not isinstance(cols, list) or cols != list(VIEW_COLUMNS):
        probs.append(
            _problem("README.md", "card", f"{name}: columns {list(VIEW_COLUMNS)}", f"{cols}")
        )
    for rel in files[:1]:
        try:
            names = set(pq.read_schema(folder / rel).names)
        except Exception:  # missing or damaged: reported by check_files
            continue
        missing = [c for c in cols or [] if c not in names] if isinstance(cols, list) else []
        if missing:
            probs.append(
                _problem("README.md", "card", f"{name}: columns of {rel}", f"missing {missing}")
            )
    return probs


def _check_view(folder: Path, name: str, d: int, files: list[str]) -> list[Problem]:
    """A view's shards exist and every row has its ``d`` (reads the ``d`` column only)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if not files:
        return [_problem("README.md", "card", f"view {name} serves shards of d={d}", "none")]
    probs = []
    for rel in files:
        try:
            ds = pc.unique(pq.read_table(folder / rel, columns=["d"]).column("d")).to_pylist()
        except Exception:  # missing or damaged: reported by check_files
            continue
        if ds != [d]:
            probs.append(
                _problem(
                    "README.md", "card", f"view {name} serves only rows of d={d}", f"{rel}: d={ds}"
                )
            )
    return probs


def view_files(folder: Path, manifest: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Manifest entries a card view serves (empty if the card does not declare ``name``)."""
    from causalarena.errors import ReleaseError

    vb = view_base(name, manifest["configs"])
    try:
        card = read_card_configs(folder)
    except ReleaseError:
        return []
    if vb is None or name not in card:
        return []
    pats = [q for qs in card[name].values() for q in qs]
    if any(unsafe_pattern(q) for q in pats):
        return []
    rxs = [_glob_regex(q) for q in pats]
    return [
        f
        for f in manifest["files"]
        if f.get("config") == vb[0] and any(rx.match(f["path"]) for rx in rxs)
    ]


# ------------------------------------------------------------------ Croissant
def check_croissant(folder: str | Path, manifest: dict[str, Any]) -> list[Problem]:
    """``croissant.json`` FileObjects and FileSets agree with the manifest.

    Every FileObject's ``sha256`` and ``contentSize`` equal the manifest's for its path, its
    ``contentUrl`` is that path (or an ``https://`` URL ending in ``/<path>``); every manifest
    Parquet file has a FileObject or is matched by a FileSet ``includes`` pattern, which must
    stay inside the folder.  An absent ``croissant.json`` is not a problem here (``verify
    --metadata`` requires it).

    Returns
    -------
    list of dict
        ``{"path": "croissant.json", "problem": "croissant", "expected", "found"}``.
    """
    from causalarena.safejson import JSONDepthError, loads

    path = Path(folder) / "croissant.json"
    if not path.is_file():
        return []
    try:
        js = loads(path.read_bytes().decode("utf-8"))
    except (JSONDepthError, ValueError, UnicodeDecodeError) as exc:
        return [_problem("croissant.json", "croissant", "valid JSON", str(exc)[:200])]
    dist = js.get("distribution") if isinstance(js, dict) else None
    if not isinstance(dist, list):
        return [_problem("croissant.json", "croissant", "a distribution list", type(dist).__name__)]
    listed = {f["path"]: f for f in manifest_entries(manifest)}
    probs: list[Problem] = []
    covered: set[str] = set()

    def note(exp: Any, found: Any) -> None:
        probs.append(_problem("croissant.json", "croissant", exp, found))

    for k, d in enumerate(dist):
        if not isinstance(d, dict):
            note(f"distribution[{k}] an object", type(d).__name__)
            continue
        kind = str(d.get("@type", ""))
        if kind.endswith("FileObject") and str(d.get("encodingFormat", "")).startswith("git+"):
            continue  # the repository that contains the FileSets (Hub convention)
        if kind.endswith("FileObject"):
            url = d.get("contentUrl")
            rel = url if isinstance(url, str) else ""
            if rel.startswith("https://"):
                rel = next((p for p in listed if rel.endswith("/" + p)), rel)
            if rel not in listed:
                note(f"distribution[{k}].contentUrl a manifest file", url)
                continue
            if ".." in rel.split("/"):
                note(f"distribution[{k}].contentUrl inside the folder", url)
            covered.add(rel)
            if d.get("sha256") != listed[rel]["sha256"]:
                note(f"{rel}: sha256 {listed[rel]['sha256']}", d.get("sha256"))
            size = d.get("contentSize")
            if size is not None and str(size).split()[0] != str(listed[rel]["bytes"]):
                note(f"{rel}: contentSize {listed[rel]['bytes']} B", size)
        elif kind.endswith("FileSet"):
            inc = d.get("includes")
            pats = [inc] if isinstance(inc, str) else inc if isinstance(inc, list) else []
            for q in pats:
                why = unsafe_pattern(str(q))
                if why:
                    note(f"distribution[{k}].includes inside the folder", f"{q!r} {why}")
                    continue
                rx = _glob_regex(str(q))
                covered |= {p for p in listed if rx.match(p)}
    for f in manifest["files"]:
        if f["path"].endswith(".parquet") and f["path"] not in covered:
            note(f"a FileObject or FileSet for {f['path']}", "none")
    return probs


# ------------------------------------------------------------------ everything
def check_freeze(folder: str | Path, manifest: dict[str, Any]) -> list[Problem]:
    """A frozen manifest must still hash to its ``freeze.content_sha256``, and agree with the
    folder's registry record ``frozen/<version>.json`` when there is one.

    Catches shards swapped or replaced together with a re-rendered manifest (and card and
    Croissant) whose freeze was not redone.  Problems are ``"freeze"`` entries naming
    ``manifest.json`` (or the registry record) and the first differing file.
    """
    fr = manifest.get("freeze")
    if fr is None:
        return []
    if not isinstance(fr, dict) or not isinstance(fr.get("content_sha256"), str):
        return [_problem("manifest.json", "freeze", "freeze.content_sha256 (a string)", fr)]
    try:
        rec = content_record(manifest)
    except (AttributeError, KeyError, TypeError):
        return [_problem("manifest.json", "freeze", "a well-formed frozen manifest", "malformed")]
    problems = []
    if content_sha256(rec) != fr["content_sha256"]:
        problems.append(
            _problem(
                "manifest.json",
                "freeze",
                f"content sha256 {fr['content_sha256']} recorded by freeze",
                f"{content_sha256(rec)} (the manifest was edited after `release freeze`)",
            )
        )
    rp = registry_path(Path(folder), None, str(manifest.get("version")))
    if rp.is_file():
        from causalarena.safejson import loads

        try:
            reg = loads(rp.read_text())
            files = reg["content"]["files"]
            ok = isinstance(files, dict)
        except (ValueError, KeyError, TypeError, OSError, UnicodeDecodeError):
            ok = False
        rel = rp.relative_to(folder).as_posix()
        if not ok:
            problems.append(_problem(rel, "freeze", "a readable registry record", "malformed"))
        elif files != rec["files"]:
            diff = sorted(set(files.items()) ^ set(rec["files"].items()))
            problems.append(
                _problem(
                    rel, "freeze", "the manifest's files and sha256", f"differs at {diff[0][0]}"
                )
            )
    if problems and problems[0]["path"] == "manifest.json":
        want = fr.get("files") if isinstance(fr.get("files"), dict) else None
        if want is None and rp.is_file() and ok:
            want = files
        if want is not None:
            diff = sorted(set(want.items()) ^ set(rec["files"].items()))
            if diff:
                problems[0]["found"] += f"; first differing file {diff[0][0]}"
    return problems


def verify(folder: str | Path, *, checksums: bool = True) -> list[Problem]:
    """Check a release folder against its manifest, end to end.

    Checks, in order: the manifest's own consistency (:func:`check_manifest`); every listed
    file -- Parquet shards and Zarr chunk/metadata files alike -- exists with its size and
    sha256, and no unlisted file lies under ``data/`` or ``zarr/`` (:func:`check_files`); the
    Parquet footers' row counts (:func:`check_parquet_rows`); the card's ``configs``
    (:func:`check_card`); ``croissant.json`` when present (:func:`check_croissant`).

    Returns
    -------
    list of dict
        One entry per problem: ``{"path", "problem", "expected", "found"}`` with ``problem``
        in {"missing", "size", "sha256", "extra", "not-a-file", "rows", "unreadable",
        "manifest", "card", "croissant", "freeze"}; empty when the folder matches.

    Raises
    ------
    ReleaseError
        If the manifest is missing, unreadable, malformed or absurdly nested (names the file
        and field).
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    problems = check_manifest(manifest)
    entries = manifest_entries(manifest)
    problems += check_files(folder, entries, checksums=checksums)
    bad = {p["path"] for p in problems}
    problems += check_parquet_rows(folder, [f for f in entries if f["path"] not in bad])
    problems += check_card(folder, manifest)
    problems += check_croissant(folder, manifest)
    problems += check_freeze(folder, manifest)
    return problems


def served_problems(
    folder: str | Path,
    config: str,
    *,
    checksums: bool = True,
    digest: Callable[[Path], str] = sha256_file,
) -> list[Problem]:
    """What :func:`causalarena.load` checks before serving ``config`` from a local folder.

    The manifest parses and is consistent; the card declares ``config`` with patterns that
    match exactly the manifest's files of ``config``; those files exist with their sizes (and
    sha256 when ``checksums``); no unlisted file is under ``data/<config>/``.  A temporal
    config's Zarr store (``manifest["zarr"][config]``) is checked the same way, since it holds
    the same trajectories.

    Raises
    ------
    ReleaseError
        If the manifest is missing or malformed.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    problems = check_manifest(manifest) + check_freeze(folder, manifest)
    vb = view_base(config, manifest["configs"]) if config not in manifest["configs"] else None
    if config not in manifest["configs"] and vb is None:
        from causalarena.errors import ReleaseError

        raise ReleaseError(
            f"{folder}: no config {config!r} in manifest.json (found: {sorted(manifest['configs'])})"
        )
    if vb is not None:  # a fixed-d view: the shards of its config that the card lists
        entries = view_files(folder, manifest, config)
        problems += check_files(folder, entries, checksums=checksums, digest=digest, extra_roots=[])
        problems += check_card(folder, manifest, [config])
        return problems
    entries = [f for f in manifest["files"] if f.get("config") == config]
    roots = [f"data/{config}"]
    legacy = (manifest.get("zarr") or {}).get(config)
    store = legacy.get("path") if isinstance(legacy, dict) else f"zarr/{config}.zarr"
    twin = [f for f in manifest_entries(manifest) if f.get("store") == store]
    if twin:  # a temporal config's Zarr store holds the same trajectories
        roots.append(str(store))
        entries += twin
    problems += check_files(folder, entries, checksums=checksums, digest=digest, extra_roots=roots)
    problems += check_card(folder, manifest, [config], reported_roots=tuple(roots))
    return problems


def verify_rebuild(
    folder: str | Path,
    *,
    workers: int = 1,
    tmp_dir: str | Path | None = None,
    quiet: bool = True,
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
    quiet : bool, default=True
        ``False`` shows the rebuild's progress bar on stderr.

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
            quiet=quiet,
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
    msgs += stale_metadata(folder)
    return [
        {"path": m.split(":", 1)[0], "problem": "metadata", "expected": None, "found": m}
        for m in msgs
    ]


def stale_metadata(folder: str | Path) -> list[str]:
    """Metadata files that differ from what the manifest and shards render to.

    ``README.md``, ``CITATION.cff``, ``.zenodo.json`` and ``croissant.json`` are pure
    functions of the folder (:func:`causalarena.release.render.write_metadata_files`), so a
    byte that differs from a fresh in-memory rendering is a hand edit or tampering.  Missing
    files are left to the validators.

    Returns
    -------
    list of str
        ``"<file>: differs from ..."`` per edited file.
    """
    import json

    from causalarena.release.card import render_card
    from causalarena.release.citation import render_cff, zenodo_dict
    from causalarena.release.metadata import collect_metadata

    folder = Path(folder)
    meta = collect_metadata(folder)
    want = {
        "README.md": lambda: render_card(meta),
        "CITATION.cff": lambda: render_cff(meta),
        ".zenodo.json": lambda: json.dumps(zenodo_dict(meta), indent=2) + "\n",
    }
    from causalarena.release.croissant import build_croissant

    want["croissant.json"] = lambda: (
        json.dumps(build_croissant(folder, meta), indent=2, default=str) + "\n"
    )
    msgs = []
    for name, render in want.items():
        path = folder / name
        if not path.is_file():
            continue
        try:
            text = render()
        except ImportError:  # mlcroissant not installed: croissant.json is not rendered either
            continue
        if path.read_bytes() != text.encode():
            msgs.append(
                f"{name}: differs from the rendering of manifest.json and the shards (edited "
                f"after the build?); re-render it with `causalarena release metadata {folder}`"
            )
    return msgs
