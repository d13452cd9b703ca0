"""Shared fixtures: offline Hugging Face caches and one mini build per suite per test run."""

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


def _shared_build(request, tmp_path_factory, suite: str):
    """``suite`` at the mini scale, built once per test run with one worker.

    Under pytest-xdist (``make test`` runs two workers) the first worker to ask builds it in
    the run's common temporary folder while holding a file lock; the others wait and reuse it.
    The result is read-only: a test that edits or tampers with a release copies it first.
    """
    from causalarena.release.engine import build

    name = suite.replace("-", "_")
    if not hasattr(request.config, "workerinput"):  # not under xdist: a plain session build
        return build(suite, scale="mini", out=tmp_path_factory.mktemp(name), quiet=True)
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp().parent
    out, done = root / name, root / f"{name}.done"
    with FileLock(str(root / f"{name}.lock")):
        if not done.is_file():
            build(suite, scale="mini", out=out, quiet=True)
            done.write_text("built\n")
    return out


@pytest.fixture(scope="session")
def mini_release(request, tmp_path_factory):
    """The mini scale of arena-synthetic, built once with one worker (read-only)."""
    return _shared_build(request, tmp_path_factory, "arena-synthetic")


@pytest.fixture(scope="session")
def formula_release(request, tmp_path_factory):
    """The mini scale of arena-formula (every public formula scenario, each through the
    release gate in its unit), built once per run (read-only)."""
    return _shared_build(request, tmp_path_factory, "arena-formula")


@pytest.fixture(scope="session")
def semantic_release(request, tmp_path_factory):
    """The mini scale of arena-semantic, built once per run (read-only)."""
    return _shared_build(request, tmp_path_factory, "arena-semantic")


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
