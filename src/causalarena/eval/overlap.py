"""Pretraining-overlap disclosure: how many test instances a corpus or a stream reproduces.

CausalArena (paper section 3.2) asks leaderboard entries to disclose overlap between their
pretraining data and the benchmark.  :func:`overlap` compares a *corpus* -- a folder of
instances (Parquet files with a ``spec``/``scm`` JSON column or an ``adjacency`` column;
``.npz`` files with ``g`` or ``adjacency`` as TabCausal and AVICI write them) -- or a *stream
configuration* (JSON ``{"family", "seed", "n", ...}``, see
:func:`causalarena.loaders.stream.stream`) with the releases given, at three levels
(:mod:`causalarena.fingerprint`): ``exact`` (the same SCM under any relabelling), ``mix`` (the
same graph and mechanism/noise family assignment up to isomorphism), ``graph`` (isomorphic
graphs, WL hash).  Adjacency-only corpus items can only match at ``graph`` level.

Counts are of *test instances reproduced*: a public release instance counts once at the
strictest level any corpus item matches it; reserved instances are known only by their
published fingerprints, so their counts are of distinct reserved fingerprints matched.
The result is JSON-serialisable and can be attached to a predictions file's disclosure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LEVELS = ("exact", "mix", "graph")


def corpus_fingerprints(
    source: str | os.PathLike, *, n: int | None = None, quiet: bool = False
) -> dict[str, Any]:
    """Fingerprints of a corpus folder or stream configuration file (a stream shows a progress
    bar on stderr unless ``quiet``).

    Returns
    -------
    dict
        ``{"kind": "corpus"|"stream", "items": int, "index": {level: set}}``.

    Raises
    ------
    ValueError
        The source is neither a folder nor a JSON stream configuration, or an item is unreadable
        (the message names the file).
    """
    import numpy as np

    from causalarena.fingerprint import fingerprint, fingerprint_adjacency

    src = Path(source)
    index: dict[str, set[str]] = {lv: set() for lv in LEVELS}
    items = 0
    if src.is_file() and src.suffix == ".json":
        from causalarena.loaders.stream import stream, stream_config

        cfg = dict(stream_config(src))
        family = cfg.pop("family")
        count = int(cfg.pop("n", n or 100))
        if n is not None:
            count = n
        seed = int(cfg.pop("seed", 0))
        col = "scm" if family == "temporal" else "spec"
        from causalarena.ui import progress

        with progress(quiet) as bar:
            task = bar.add_task(f"fingerprinting the {family} stream", total=count)
            for row in stream(family, seed, **cfg).take(count):
                for lv, h in fingerprint(row[col]).items():
                    index[lv].add(h)
                items += 1
                bar.advance(task)
        return {"kind": "stream", "source": str(src), "items": items, "index": index}
    if not src.exists():
        raise ValueError(
            f"{src}: no such file or folder (expected a corpus folder or a .json "
            "stream configuration)"
        )
    if not src.is_dir():
        raise ValueError(f"{src}: not a corpus folder or a .json stream configuration")
    import pyarrow.parquet as pq

    for f in sorted(src.rglob("*")):
        if f.suffix == ".parquet":
            try:
                names = pq.read_schema(f).names
                col = next((c for c in ("spec", "scm", "adjacency") if c in names), None)
                if col is None:
                    continue
                for v in pq.read_table(f, columns=[col]).column(col).to_pylist():
                    if col == "adjacency":
                        index["graph"].add(fingerprint_adjacency(np.asarray(v)))
                    else:
                        for lv, h in fingerprint(v).items():
                            index[lv].add(h)
                    items += 1
            except (OSError, ValueError) as exc:
                raise ValueError(f"{f}: unreadable corpus file ({exc})") from None
        elif f.suffix == ".npz":
            try:
                with np.load(f, allow_pickle=False) as z:
                    key = "g" if "g" in z.files else "adjacency" if "adjacency" in z.files else None
                    if key is None:
                        continue
                    index["graph"].add(fingerprint_adjacency(z[key] != 0))
                    items += 1
            except (OSError, ValueError) as exc:
                raise ValueError(f"{f}: unreadable corpus file ({exc})") from None
    return {"kind": "corpus", "source": str(src), "items": items, "index": index}


def _count(fps: list[dict[str, str]], index: dict[str, set[str]]) -> dict[str, int]:
    out = {lv: 0 for lv in LEVELS}
    for fp in fps:
        for lv in LEVELS:  # strictest level first
            if fp.get(lv) in index[lv]:
                out[lv] += 1
                break
    return out


def overlap(
    source: str | os.PathLike,
    releases: list[str | os.PathLike],
    *,
    n: int | None = None,
    quiet: bool = False,
) -> dict[str, Any]:
    """Overlap of a corpus or stream with each release (see the module docstring).

    Returns
    -------
    dict
        ``{"scheme", "source", "kind", "items", "releases": [{"folder", "suite", "version",
        "family", "public": {"scms", "exact", "mix", "graph"}, "reserved": {"fingerprints",
        "exact", "mix", "graph"}}]}``; each level counts instances whose strictest match is
        that level.
    """
    from causalarena.fingerprint import SCHEME
    from causalarena.loaders.stream import release_items

    corpus = corpus_fingerprints(source, n=n, quiet=quiet)
    out: dict[str, Any] = {
        "scheme": SCHEME,
        "source": corpus["source"],
        "kind": corpus["kind"],
        "items": corpus["items"],
        "releases": [],
    }
    for r in releases:
        folder = Path(r)
        manifest, pub, rsv = release_items(folder)
        out["releases"].append(
            {
                "folder": folder.name,
                "suite": manifest.get("suite"),
                "version": manifest.get("version"),
                "family": manifest.get("family"),
                "public": {"scms": len(pub), **_count(pub, corpus["index"])},
                "reserved": {"fingerprints": len(rsv), **_count(rsv, corpus["index"])},
            }
        )
    return out


def format_overlap(rep: dict[str, Any]) -> str:
    """Plain-text table of :func:`overlap`'s result."""
    lines = [
        f"overlap of {rep['kind']} {rep['source']} ({rep['items']} items; {rep['scheme']})",
        f"{'release':<28} {'half':<9} {'instances':>9} {'exact':>6} {'mix':>6} {'graph':>6}",
    ]
    for r in rep["releases"]:
        name = f"{r['suite']} {r['version']}"
        for half, key in (("public", "scms"), ("reserved", "fingerprints")):
            c = r[half]
            lines.append(
                f"{name:<28} {half:<9} {c[key]:>9} {c['exact']:>6} {c['mix']:>6} {c['graph']:>6}"
            )
    return "\n".join(lines)


def to_json(rep: dict[str, Any]) -> str:
    """The report as JSON (sets never appear in it)."""
    return json.dumps(rep, indent=2, sort_keys=True)
