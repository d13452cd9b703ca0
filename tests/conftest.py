"""Shared fixtures: offline Hugging Face caches and one mini build per test session."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.pop("HF_TOKEN", None)


@pytest.fixture(scope="session", autouse=True)
def _hf_cache(tmp_path_factory):
    """Redirect every datasets/hub cache to a temporary folder."""
    root = tmp_path_factory.mktemp("hf")
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HOME", str(root))
    mp.setenv("HF_DATASETS_CACHE", str(root / "datasets"))
    yield root
    mp.undo()


@pytest.fixture(scope="session")
def mini_release(tmp_path_factory):
    """The mini scale of arena-synthetic, built once with one worker."""
    from causalarena.release.engine import build

    return build("arena-synthetic", scale="mini", out=tmp_path_factory.mktemp("rel1"), quiet=True)


def shard_of(folder, config: str, graph_family: str, d: int):
    """Path of the shard of ``config`` that holds the ``(graph_family, d)`` instance."""
    import pyarrow.parquet as pq

    for p in sorted((folder / "data" / config).glob("*.parquet")):
        t = pq.read_table(p, columns=["graph_family", "d"]).to_pylist()
        if {"graph_family": graph_family, "d": d} in t:
            return p
    raise LookupError(f"no shard of {config} holds {graph_family} d={d}")


def build_small_temporal(out, suite: str, episodes: int, shard: int):
    """Build ``suite`` at a mini scale of ``episodes`` public episodes in shards of ``shard``
    (the suite table is patched only for the build); returns the release folder."""
    from dataclasses import replace

    from causalarena.generator.temporal import suites as S
    from causalarena.release.engine import build

    mp = pytest.MonkeyPatch()
    small = dict(S.TEMPORAL_SUITES)
    full = small[suite].scales["full"]
    small[suite] = replace(
        small[suite],
        scales={"mini": episodes, "full": full},
        shard_size={"mini": shard, "full": small[suite].shard_size["full"]},
    )
    mp.setattr(S, "TEMPORAL_SUITES", small)
    try:
        return build(suite, scale="mini", out=out, quiet=True)
    finally:
        mp.undo()
