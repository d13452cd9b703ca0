"""Fresh SCM streams for pretraining, with a contamination guard (issue 13 §2).

:func:`stream` returns an unbounded :class:`datasets.IterableDataset` of freshly generated
instances -- never a released one.  Determinism: instance ``k`` of shard ``s`` is a pure
function of ``(family, seed, options, k)``; the stream is split into ``shards`` interleaved
shards (shard ``s`` yields instances ``s, s + shards, s + 2 shards, ...`` forever), which is
what ``datasets`` hands out to ranks (:func:`datasets.distributed.split_dataset_by_node`; use a
``shards`` divisible by the world size) and to PyTorch ``DataLoader`` workers, so every rank
and worker reads a disjoint, repeat-free part.  (``datasets`` iterates a rank's or worker's
shards one after another, and each shard is unbounded, so a rank reads its first shard.)

Disjoint from releases by construction (stream seeds have bit 63 set, release seeds are below
``2**63``; see :mod:`causalarena.generator.synthetic.fresh`) and by check: with ``exclude``,
each generated SCM's fingerprint (:mod:`causalarena.fingerprint`) is compared with every
public instance of the given releases (read from manifest-checked shards) and with the reserved
fingerprints their manifests publish (``freeze.reserved.fingerprints``); a match at
``reject`` level or stricter is skipped (the skip is deterministic, so the stream stays
reproducible) and counted in the rows' ``skipped_before`` column.

Families: ``"synthetic"`` (the arena's design; options ``d``, ``graph_families``,
``setting``), ``"temporal"`` (a ``dot-*`` suite's design; option ``suite``), ``"protocols"``
(fresh d = 30 arena SCMs under the ``arena-protocols`` intervention protocols or at the
``arena-samplesize`` nested sample sizes; options ``suite``, ``protocols``, ``sizes``; one row
per protocol or size of each instance, see :mod:`causalarena.generator.protocols.fresh`) and
``"lab"`` (episodes of a generated lab suite's design on fresh hidden SCMs; options ``suite``,
``config``).  The guard fingerprints the SCM of every family: a protocol instance by its SCM
(the same in all its rows; a rejected SCM skips all of them), a lab episode by its hidden SCM
including the hidden disturbance (:mod:`causalarena.fingerprint`).

Lab SCMs are small (3-7 nodes, integer weights), so streams repeat SCMs and match releases far
more often than the arena's: at ``reject="graph"`` a 3-node lab config has two isomorphism
classes and nothing passes.  After :data:`MAX_SKIPS` consecutive rejections the stream stops
with a :class:`StreamError` naming the family and level instead of spinning.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.errors import CausalArenaError

FAMILIES = ("synthetic", "temporal", "protocols", "lab")
LEVELS = ("exact", "mix", "graph")
#: Consecutive guard rejections after which a stream gives up (see the module docstring).
MAX_SKIPS = 1000
#: Largest shard count :func:`stream` accepts (``datasets`` holds one entry per shard, and
#: 65,536 covers e.g. 8,192 ranks x 8 DataLoader workers).
MAX_SHARDS = 2**16


class StreamError(CausalArenaError):
    """A stream option or an exclusion release is unusable (the message names it)."""


# ------------------------------------------------------------------ exclusion index
def release_items(
    folder: str | os.PathLike,
) -> tuple[dict[str, Any], list[dict[str, str]], list[dict[str, Any]]]:
    """A release's manifest, one fingerprint per distinct public spec, and the reserved
    fingerprints its manifest publishes.

    Public instances come from the ``spec`` (static) or ``scm`` (temporal) column of every
    config's shards, checked against ``manifest.json`` first; reserved ones from the manifest's
    ``freeze.reserved.fingerprints`` (absent for an unfrozen release).

    Raises
    ------
    ReleaseError
        A shard disagrees with the manifest (from :func:`causalarena.loaders.load.check_folder`).
    StreamError
        The manifest lists a data file of a config missing from its ``configs`` (an emptied or
        edited ``configs`` would otherwise exclude nothing).
    """
    import pyarrow.parquet as pq

    from causalarena.fingerprint import fingerprint
    from causalarena.loaders.load import check_folder
    from causalarena.release.manifest import read_manifest

    folder = Path(folder)
    manifest = read_manifest(folder)
    listed = set(manifest.get("configs") or {})
    files = [f for f in manifest.get("files") or [] if isinstance(f, dict) and "config" in f]
    orphan = next((f for f in files if f["config"] not in listed), None)
    if orphan is not None or (files and not listed):
        what = f"file {orphan.get('path')} of config {orphan['config']}" if orphan else "files"
        raise StreamError(
            f"exclude: {folder / 'manifest.json'} lists {what} under no entry of its configs; "
            "the guard would skip those instances (run causalarena verify on the release)"
        )
    public: dict[str, dict[str, str]] = {}
    for config in manifest["configs"]:
        for shard in check_folder(folder, config):
            names = pq.read_schema(shard).names
            col = "spec" if "spec" in names else "scm" if "scm" in names else None
            if col is None:
                continue
            for s in pq.read_table(shard, columns=[col]).column(col).to_pylist():
                if s is not None and s not in public:
                    public[s] = fingerprint(s)
    rsv = ((manifest.get("freeze") or {}).get("reserved") or {}).get("fingerprints") or []
    return manifest, list(public.values()), [r for r in rsv if isinstance(r, dict)]


def release_fingerprints(folder: str | os.PathLike) -> dict[str, set[str]]:
    """Every public and published reserved fingerprint of a release (:func:`release_items`).

    Returns
    -------
    dict
        ``{"exact" | "mix" | "graph": set of digests}``.
    """
    _, public, reserved = release_items(folder)
    out: dict[str, set[str]] = {lv: set() for lv in LEVELS}
    for fp in public + reserved:
        for lv in LEVELS:
            if isinstance(fp.get(lv), str):
                out[lv].add(fp[lv])
    return out


def _merge(indices: Sequence[dict[str, set[str]]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {lv: set() for lv in LEVELS}
    for idx in indices:
        for lv in LEVELS:
            out[lv] |= idx.get(lv, set())
    return out


def _rejected(fp: dict[str, str], index: dict[str, set[str]] | None, reject: str) -> bool:
    if not index:
        return False
    strict = LEVELS[: LEVELS.index(reject) + 1]  # exact <= mix <= graph
    return any(fp[lv] in index[lv] for lv in strict)


def _levels(index: dict[str, set[str]] | None, reject: str) -> tuple[str, ...]:
    """The fingerprint levels a stream needs: the exact digest (a column) and, with a guard,
    every level up to ``reject``."""
    return LEVELS[: LEVELS.index(reject) + 1] if index else ("exact",)


def _too_many(skipped: int, family: str, reject: str) -> None:
    if skipped >= MAX_SKIPS:
        raise StreamError(
            f"the contamination guard rejected {skipped} consecutive {family} instances at "
            f"reject={reject!r}: the design has too few distinct SCMs at that level; use a "
            "stricter level (reject='exact') or fewer exclusion releases"
        )


# ------------------------------------------------------------------ per-family rows
def _synthetic_rows(seed: int, shard: int, shards: int, opts: dict, index, reject) -> Iterator:
    from causalarena.fingerprint import fingerprint
    from causalarena.generator.synthetic.fresh import instance, pool

    positions = pool(opts.get("d"), opts.get("graph_families"))
    setting = opts.get("setting", "obs")
    k, skipped, levels = shard, 0, _levels(index, reject)
    while True:
        spec, t, attempts = instance(seed, k, positions, setting)
        sj = spec.to_json()
        fp = fingerprint(sj, levels)
        if _rejected(fp, index, reject):
            skipped += 1
            _too_many(skipped, "synthetic", reject)
        else:
            yield {
                "instance_id": f"stream-synthetic/{seed}/{k}",
                "stream_index": k,
                "scm_id": spec.scm_id,
                "graph_family": spec.metadata["graph_family"],
                "d": spec.d,
                "n_obs": t.n_obs,
                "n_int": t.n_int,
                "X": t.X.astype(np.float32),
                "mask": t.mask.astype(bool),
                "adjacency": spec.adjacency().astype(np.int8),
                "intervention_targets": list(spec.intervention.targets),
                "audit_attempts": attempts,
                "fingerprint": fp["exact"],
                "skipped_before": skipped,
                "spec": sj,
            }
            skipped = 0
        k += shards


def _temporal_rows(seed: int, shard: int, shards: int, opts: dict, index, reject) -> Iterator:
    from causalarena.fingerprint import fingerprint
    from causalarena.generator.synthetic.fresh import stream_seed
    from causalarena.generator.temporal.storage import episode_columns
    from causalarena.generator.temporal.suites import generate_suite_episodes, get_temporal_suite

    suite = get_temporal_suite(opts.get("suite", "dot-generic"))
    ss = np.random.SeedSequence(stream_seed(seed, f"temporal/{suite.name}", 0))
    k, skipped, levels = shard, 0, _levels(index, reject)
    while True:
        ep = generate_suite_episodes(suite, [k], ss=ss)[0]
        row = episode_columns(ep)
        fp = fingerprint(row["scm"], levels)
        if _rejected(fp, index, reject):
            skipped += 1
            _too_many(skipped, "temporal", reject)
        else:
            row["episode_id"] = f"stream-{suite.name}/{seed}/{k}"
            row["suite"] = f"stream-{suite.name}"
            row["version"] = "stream"
            row["fingerprint"] = fp["exact"]
            row["skipped_before"] = skipped
            yield row
            skipped = 0
        k += shards


def _protocol_rows(seed: int, shard: int, shards: int, opts: dict, index, reject) -> Iterator:
    from causalarena.fingerprint import fingerprint
    from causalarena.generator.protocols import fresh

    k, skipped, levels = shard, 0, _levels(index, reject)
    while True:
        spec, attempts = fresh.base_spec(seed, k)
        fp = fingerprint(spec.to_json(), levels)
        got = (
            []
            if _rejected(fp, index, reject)
            else list(
                fresh.rows(seed, k, spec, attempts, opts["suite"], opts["protocols"], opts["sizes"])
            )
        )
        if not got:  # rejected by the guard, or a variant failed every audit attempt
            skipped += 1
            _too_many(skipped, "protocols", reject)
        for r in got:
            yield {
                "instance_id": r["instance_id"],
                "stream_index": k,
                "scm_id": spec.scm_id,
                "graph_family": r["graph_family"],
                "d": r["d"],
                "n_obs": r["n_obs"],
                "n_int": r["n_int"],
                "X": np.asarray(r["X"], dtype=np.float32),
                "mask": np.asarray(r["mask"], dtype=bool),
                "adjacency": np.asarray(r["adjacency"], dtype=np.int8),
                "intervention_targets": r["intervention_targets"],
                "audit_attempts": r["audit_attempts"],
                "fingerprint": fp["exact"],
                "skipped_before": skipped,
                "spec": r["spec"],
                "n": r["n"],
                "protocol": r["protocol"],
            }
        if got:
            skipped = 0
        k += shards


def _lab_rows(seed: int, shard: int, shards: int, opts: dict, index, reject) -> Iterator:
    from causalarena.fingerprint import fingerprint_spec
    from causalarena.generator.lab.episode import draw_episode
    from causalarena.generator.lab.suites import get_lab_suite
    from causalarena.generator.synthetic.fresh import order, stream_seed

    suite = get_lab_suite(opts["suite"])
    cfgs = [suite.config(opts["config"])] if opts.get("config") else list(suite.configs)
    # one base seed per stream, as per suite: the quadratic/hidden/golden configs reuse the
    # main configs' graphs (matched controls, CausaLab section 5.2)
    base = stream_seed(seed, f"lab/{suite.name}", 0)
    name = f"stream-{suite.name}"
    k, skipped, levels = shard, 0, _levels(index, reject)
    epoch, perm = -1, None
    while True:
        i, c = divmod(k, len(cfgs))  # config order permuted per epoch (no aliasing by shard)
        if i != epoch:  # consecutive instances of a shard often share the epoch
            epoch, perm = i, order(seed, f"lab/{suite.name}", i, len(cfgs))
        c = int(perm[c])
        eid = f"{name}/{seed}/{k}"
        ep = draw_episode(f"{name}/{seed}", base, cfgs[c], i, episode_id=eid, suite_label=name)
        row = ep.to_row()
        fp = fingerprint_spec(ep.spec, levels)  # the digests of row["spec"], unparsed
        if _rejected(fp, index, reject):
            skipped += 1
            _too_many(skipped, "lab", reject)
        else:
            row["stream_index"] = k
            row["fingerprint"] = fp["exact"]
            row["skipped_before"] = skipped
            yield row
            skipped = 0
        k += shards


def _synthetic_features(d: int | None, extra: dict | None = None):
    import datasets as hf

    if d is not None:
        mat = {
            "X": hf.Array2D((None, d), "float32"),
            "mask": hf.Array2D((None, d), "bool"),
            "adjacency": hf.Array2D((d, d), "int8"),
        }
    else:
        mat = {
            "X": hf.List(hf.List(hf.Value("float32"))),
            "mask": hf.List(hf.List(hf.Value("bool"))),
            "adjacency": hf.List(hf.List(hf.Value("int8"))),
        }
    v = hf.Value
    return hf.Features(
        {
            "instance_id": v("string"),
            "stream_index": v("int64"),
            "scm_id": v("string"),
            "graph_family": v("string"),
            "d": v("int32"),
            "n_obs": v("int32"),
            "n_int": v("int32"),
            **mat,
            "intervention_targets": hf.List(v("string")),
            "audit_attempts": v("int32"),
            "fingerprint": v("string"),
            "skipped_before": v("int64"),
            "spec": v("string"),
            **(extra or {}),
        }
    )


def _lab_features():
    import datasets as hf
    import pyarrow as pa

    from causalarena.generator.lab.episode import row_schema

    schema = (
        row_schema()
        .append(pa.field("stream_index", pa.int64()))
        .append(pa.field("fingerprint", pa.string()))
        .append(pa.field("skipped_before", pa.int64()))
    )
    return hf.Features.from_arrow_schema(schema)


def _temporal_features():
    import datasets as hf
    import pyarrow as pa

    from causalarena.generator.temporal.storage import EPISODE_SCHEMA

    schema = EPISODE_SCHEMA.append(pa.field("fingerprint", pa.string())).append(
        pa.field("skipped_before", pa.int64())
    )
    return hf.Features.from_arrow_schema(schema)


def _gen(shard_ids: list[int], family: str, seed: int, shards: int, opts: dict, exclude, reject):
    index = _merge([release_fingerprints(f) for f in exclude]) if exclude else None
    rows = ROWS[family]
    for s in shard_ids:  # datasets gives each rank/worker its own shard ids
        yield from rows(seed, int(s), shards, opts, index, reject)


ROWS = {
    "synthetic": _synthetic_rows,
    "temporal": _temporal_rows,
    "protocols": _protocol_rows,
    "lab": _lab_rows,
}


def _check_release_seeds() -> None:
    from causalarena.family import families

    for fam in families().values():
        for name, info in fam.suites.items():
            if info.seed is not None and not 0 <= int(info.seed) < 2**63:
                raise StreamError(
                    f"suite {name} has seed {info.seed} >= 2**63, the stream seed domain"
                )


def options(
    family: str,
    *,
    d: int | Sequence[int] | None = None,
    graph_families: Sequence[str] | None = None,
    setting: str = "obs",
    suite: str | None = None,
    protocols: Sequence[str] | None = None,
    sizes: Sequence[int] | None = None,
    config: str | None = None,
) -> dict[str, Any]:
    """Validated generator options of a stream of ``family`` (see :func:`stream`).

    Raises
    ------
    StreamError
        Unknown family or option value (the message lists the valid ones).
    """
    if family not in FAMILIES:
        raise StreamError(f"unknown stream family {family!r}; choose from {', '.join(FAMILIES)}")
    if family == "synthetic":
        ds = None if d is None else [d] if isinstance(d, int) else list(d)
        if setting not in ("obs", "obsint"):
            raise StreamError(f"setting must be 'obs' or 'obsint', got {setting!r}")
        try:
            from causalarena.generator.synthetic.fresh import pool

            pool(ds, graph_families)
        except ValueError as exc:
            raise StreamError(str(exc)) from None
        return {"d": ds, "graph_families": graph_families, "setting": setting}
    if family == "temporal":
        from causalarena.generator.temporal.suites import TEMPORAL_SUITES

        suite = suite or "dot-generic"
        if suite not in TEMPORAL_SUITES:
            raise StreamError(
                f"unknown temporal suite {suite!r}; choose from {', '.join(sorted(TEMPORAL_SUITES))}"
            )
        return {"suite": suite}
    if family == "protocols":
        from causalarena.generator.protocols.fresh import check_options

        try:
            s, ps, ns = check_options(suite or "arena-protocols", protocols, sizes)
        except ValueError as exc:
            raise StreamError(str(exc)) from None
        return {"suite": s, "protocols": ps, "sizes": ns}
    from causalarena.errors import LabError
    from causalarena.generator.lab.suites import LAB_SUITES, get_lab_suite

    suite = suite or "lab-main"
    if suite not in LAB_SUITES:
        raise StreamError(
            f"unknown lab suite {suite!r} for a stream; choose from {', '.join(sorted(LAB_SUITES))} "
            "(the converted public suite has no generator)"
        )
    if config is not None:
        try:
            get_lab_suite(suite).config(config)
        except LabError as exc:
            raise StreamError(str(exc)) from None
    return {"suite": suite, "config": config}


def features(family: str, opts: dict[str, Any]):
    """The :class:`datasets.Features` of a stream's rows."""
    if family == "synthetic":
        ds = opts.get("d")
        return _synthetic_features(ds[0] if ds is not None and len(ds) == 1 else None)
    if family == "temporal":
        return _temporal_features()
    if family == "protocols":
        import datasets as hf

        from causalarena.generator.protocols.suites import D

        return _synthetic_features(D, {"n": hf.Value("int32"), "protocol": hf.Value("string")})
    return _lab_features()


def exclude_folders(exclude: Any) -> tuple[str, ...]:
    """The release folders of an ``exclude`` argument: one path (str or PathLike) or a sequence.

    Raises
    ------
    StreamError
        ``exclude`` is neither a path nor a sequence of paths (the message names the value).
    """
    if isinstance(exclude, (str, os.PathLike)):
        exclude = (exclude,)
    elif isinstance(exclude, (bytes, dict)) or not isinstance(exclude, (Sequence, set, frozenset)):
        raise StreamError(
            f"exclude must be a release folder or a sequence of them, got {type(exclude).__name__}"
        )
    out = []
    for f in exclude:
        if not isinstance(f, (str, os.PathLike)):
            raise StreamError(f"exclude: {f} is not a path (a {type(f).__name__})")
        out.append(os.fspath(f))
    return tuple(out)


def check_stream_args(seed: Any, shards: Any, exclude: Any, reject: str) -> tuple[str, ...]:
    """Raise :class:`StreamError` for a bad seed, shard count, level or exclusion folder.

    Returns the exclusion folders as a tuple of paths (:func:`exclude_folders`); ``shards``
    must be an int in ``1 ..`` :data:`MAX_SHARDS`.
    """
    if reject not in LEVELS:
        raise StreamError(f"reject must be one of {', '.join(LEVELS)}, got {reject!r}")
    if not isinstance(shards, int) or isinstance(shards, bool) or shards < 1:
        raise StreamError(f"shards must be a positive int, got {shards!r}")
    if shards > MAX_SHARDS:
        raise StreamError(
            f"shards must be at most {MAX_SHARDS:,} (MAX_SHARDS), got {shards:,}; one shard per "
            "rank x DataLoader worker is enough"
        )
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise StreamError(f"seed must be a non-negative int, got {seed!r}")
    _check_release_seeds()
    folders = exclude_folders(exclude)
    for f in folders:
        if not (Path(f) / "manifest.json").is_file():
            raise StreamError(f"exclude: {f} is not a release folder (no manifest.json)")
    return folders


def stream(
    family: str,
    seed: int = 0,
    *,
    shards: int = 64,
    exclude: Sequence[str | os.PathLike] = (),
    reject: str = "exact",
    d: int | Sequence[int] | None = None,
    graph_families: Sequence[str] | None = None,
    setting: str = "obs",
    suite: str | None = None,
    protocols: Sequence[str] | None = None,
    sizes: Sequence[int] | None = None,
    config: str | None = None,
):
    """An unbounded, deterministic, shardable stream of fresh instances.

    Parameters
    ----------
    family : {"synthetic", "temporal", "protocols", "lab"}
    seed : int
        Stream seed (any non-negative int; the same seed gives the same stream).
    shards : int, default=64
        Number of interleaved shards, at most :data:`MAX_SHARDS` (65,536); choose a multiple
        of ``world_size * num_workers``.
    exclude : release folder or sequence of release folders
        Reject instances whose fingerprint matches one of theirs (public and reserved); one
        ``str`` or ``os.PathLike`` is one folder.
    reject : {"exact", "mix", "graph"}, default="exact"
        Strictest level that rejects: ``"graph"`` also rejects isomorphic graphs,
        ``"mix"`` the same graph with the same mechanism/noise family assignment.
    d : int or sequence of int, optional
        Synthetic: the dimensions to draw (arena design: 10, 20, 30, 50, 100).  One int gives
        ``datasets.Array2D`` features, so ``.with_format("numpy").iter(batch_size=B)`` yields
        ``X`` as ``(B, n, d)`` float32 (protocol streams always have d = 30).
    graph_families : sequence of str, optional
        Synthetic: restrict to these graph families.
    setting : {"obs", "obsint"}, default="obs"
        Synthetic: observation-only (1,000 rows) or observation + intervention (800 + 200).
    suite : str, optional
        Temporal: the ``dot-*`` suite whose design is streamed (default ``"dot-generic"``);
        protocols: ``"arena-protocols"`` (default) or ``"arena-samplesize"``; lab: a generated
        lab suite (default ``"lab-main"``).
    protocols : sequence of str, optional
        Protocols (``arena-protocols``): the protocols of each instance, in this order
        (default: all six, paper order); one row per protocol.
    sizes : sequence of int, optional
        Protocols (``arena-samplesize``): the nested sample sizes of each instance (default
        100 ... 10,000); one row per size.
    config : str, optional
        Lab: stream one config of the suite (default: all; each run of ``n_configs``
        consecutive instances holds every config once, in a seeded order).

    Returns
    -------
    datasets.IterableDataset
        Columns as in the family's release configs (synthetic and protocols: the matrices,
        shape columns, ``spec``, protocols also ``n`` and ``protocol``; temporal: the episode
        schema; lab: the episode row schema plus ``stream_index``), plus ``fingerprint``
        (exact level) and ``skipped_before`` (instances rejected by the guard just before
        this one).

    Raises
    ------
    StreamError
        Unknown family or option value (the message lists the valid ones), ``shards`` outside
        ``1 ..`` :data:`MAX_SHARDS`, an ``exclude`` folder without ``manifest.json``; while
        iterating, :data:`MAX_SKIPS` consecutive guard rejections.
    """
    import datasets as hf

    opts = options(
        family,
        d=d,
        graph_families=graph_families,
        setting=setting,
        suite=suite,
        protocols=protocols,
        sizes=sizes,
        config=config,
    )
    exclude = check_stream_args(seed, shards, exclude, reject)
    feats = features(family, opts)
    typed = family in TYPED_ROWS
    ds = hf.IterableDataset.from_generator(
        _gen,
        features=None if typed else feats,
        gen_kwargs={
            "shard_ids": list(range(shards)),
            "family": family,
            "seed": seed,
            "shards": shards,
            "opts": opts,
            "exclude": tuple(str(Path(f).resolve()) for f in exclude),
            "reject": reject,
        },
    )
    if typed:
        # declared, not re-encoded: ``datasets`` casts and copies every row of a generator
        # with features (~0.1 ms a lab row, a fifth of a lab episode's cost); rows of these
        # families already hold the feature types (plain str/int/bool/float and lists of
        # them, in feature order; ``tests/test_stream_families.py`` checks it), so an identity
        # map with ``features`` (the documented way to state a map's output types) yields
        # the same rows without the conversion
        ds = ds.map(_identity, features=feats)
    return ds


def _identity(row: dict[str, Any]) -> dict[str, Any]:
    return row


#: Families whose rows are yielded with their feature types as built (see :func:`stream`).
TYPED_ROWS = ("lab",)


def stream_config(path: str | os.PathLike) -> dict[str, Any]:
    """Read a stream configuration file (JSON: ``{"family", "seed", ...stream options}``)."""
    from causalarena import safejson

    p = Path(path)
    try:
        cfg = safejson.loads(p.read_text())
    except (OSError, ValueError) as exc:  # JSONDecodeError, JSONDepthError, UnicodeDecodeError
        raise StreamError(f"{p}: not a readable JSON stream configuration ({exc})") from None
    if not isinstance(cfg, dict) or "family" not in cfg:
        raise StreamError(f"{p}: a stream configuration needs a 'family' field")
    for k in ("seed", "n", "shards"):
        v = cfg.get(k)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise StreamError(f"{p}: field {k!r} = {v!r} must be a non-negative integer")
    return cfg
