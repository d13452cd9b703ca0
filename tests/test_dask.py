"""Builds and method runs on a dask ``LocalCluster`` (2 worker processes, 1 thread each) give the
bytes and scores of the local scheduler, also after a worker is killed mid-unit; the runner's
budget and memory limit still hold on dask workers.

The build is a six-block subset of arena-synthetic mini (d = 10 and 20 of three graph families:
real SCM generation, audit and consolidation, a few seconds) instead of the whole mini suite.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import psutil
import pyarrow.parquet as pq
import pytest

distributed = pytest.importorskip(
    "distributed",
    reason="dask.distributed is not installed (pip install 'causalarena[distributed]')",
)

from causalarena.generator.synthetic.family import FAMILY as SYNTHETIC  # noqa: E402
from causalarena.generator.synthetic.family import units as synthetic_units  # noqa: E402
from causalarena.release.cluster import KILL_WORKER_ONCE  # noqa: E402
from causalarena.release.engine import build  # noqa: E402
from causalarena.release.io import sha256_file  # noqa: E402

HERE = Path(__file__).resolve().parent
BLOCKS = (0, 1, 5, 6, 10, 11)  # (graph family, d) blocks with d in {10, 20}


def subset_units(suite, scale, options=None):
    return [u for u in synthetic_units(suite, scale, options) if u.params["block"] in BLOCKS]


SUBSET = dataclasses.replace(SYNTHETIC, name="synthetic-subset", units=subset_units)


@pytest.fixture(scope="module", autouse=True)
def _subset_known_only_here():
    """Register the subset after the real families (so ``family_of("arena-synthetic")`` stays
    the synthetic family) and forget it after this module (other tests' mini builds)."""
    from causalarena import family

    family.families()
    yield
    family._REGISTRY.pop(SUBSET.name, None)


def build_subset(out: Path, **kw) -> Path:
    return build("arena-synthetic", scale="mini", out=out, quiet=True, family=SUBSET, **kw)


def _shas(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): sha256_file(p)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".build" not in p.parts
    }


def _cluster(**kw):
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # never the shared default port 8787
        memory_limit="2GiB",
        **kw,
    )


@pytest.fixture(scope="module")
def kill_marker(tmp_path_factory):
    """The kill hook's file: present (disarmed) until a test deletes it."""
    path = tmp_path_factory.mktemp("kill") / "killed-pid"
    path.write_text("disarmed")
    return path


@pytest.fixture(scope="module")
def cluster(kill_marker):
    # workers import the fake methods plugin and this module (the subset family), and see
    # the kill hook (armed by deleting its file)
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(HERE / "plugins"))
    mp.syspath_prepend(str(HERE))
    mp.setenv("CAUSALARENA_METHODS", "causalarena_fake_methods")
    mp.setenv(KILL_WORKER_ONCE, str(kill_marker))
    with _cluster() as c:
        yield c
    mp.undo()


@pytest.fixture(scope="module")
def local_release(tmp_path_factory):
    return build_subset(tmp_path_factory.mktemp("local") / "rel", workers=1)


@pytest.fixture(scope="module")
def dask_release(tmp_path_factory, cluster):
    return build_subset(
        tmp_path_factory.mktemp("dask") / "rel", scheduler=cluster.scheduler_address
    )


def test_dask_build_is_byte_identical_to_local(local_release, dask_release):
    local, dask = _shas(local_release), _shas(dask_release)
    shards = [p for p in local if p.startswith("data/")]
    assert len(shards) == 2 and pq.read_table(local_release / shards[0]).num_rows == len(BLOCKS)
    assert dask == local
    records = sorted((dask_release / ".build/units").glob("*.json"))
    assert [p.stem for p in records] == [f"block-{b:03d}" for b in BLOCKS]
    # parts and records were written by this process; the workers wrote nothing else there
    assert not list(dask_release.rglob(".*.tmp"))


def test_a_killed_worker_is_retried_without_duplicate_or_missing_shards(
    local_release, cluster, kill_marker, tmp_path
):
    kill_marker.unlink()  # arm: the first unit started kills its worker
    out = build_subset(tmp_path / "rel", scheduler=cluster.scheduler_address)
    pid = int(kill_marker.read_text())  # a worker really started a unit and killed itself
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert _shas(out) == _shas(local_release)
    manifest = json.loads((out / "manifest.json").read_text())
    listed = sorted(f["path"] for f in manifest["files"] if f["path"].startswith("data/"))
    on_disk = sorted(p.relative_to(out).as_posix() for p in (out / "data").rglob("*.parquet"))
    assert on_disk == listed
    for config in ("synthetic-obs", "synthetic-obsint"):
        ids = pq.read_table(out / "data" / config, columns=["instance_id"])["instance_id"]
        want = pq.read_table(local_release / "data" / config, columns=["instance_id"])
        assert ids.to_pylist() == want["instance_id"].to_pylist()
        assert len(set(ids.to_pylist())) == len(ids)


def test_reserved_builds_refuse_a_dask_scheduler(tmp_path):
    from causalarena.cli import main

    key = tmp_path / "key"
    key.write_text("0" * 64)
    code = main(
        ["build", "arena-synthetic", "--reserved-key", str(key), "--out", str(tmp_path / "r"),
         "--scheduler", "tcp://127.0.0.1:1", "--quiet"]
    )  # fmt: skip
    assert code == 2 and not (tmp_path / "r").exists()


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, monkeypatch):
    from causalarena.errors import ReleaseError
    from causalarena.release import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    with pytest.raises(ReleaseError, match=r"tcp://127\.0\.0\.1:9: cannot reach a dask scheduler"):
        build_subset(tmp_path / "rel", scheduler="tcp://127.0.0.1:9")
    assert not (tmp_path / "rel").exists()  # nothing built: no empty folder with a .build left


def test_cli_unreachable_scheduler_is_exit_2_naming_it(dask_release, tmp_path, monkeypatch, capsys):
    from causalarena.cli import main
    from causalarena.release import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    addr = "tcp://127.0.0.1:9"
    run = ["run", str(dask_release), "--config", "synthetic-obs", "--methods", "var-sort-regress",
           "--out", str(tmp_path / "p"), "--scheduler", addr, "--quiet"]  # fmt: skip
    assert main(run) == 2
    assert f"--scheduler {addr}: cannot reach a dask scheduler" in capsys.readouterr().err
    build_args = ["build", "arena-synthetic", "--out", str(tmp_path / "b"), "--scheduler", addr,
                  "--quiet"]  # fmt: skip
    assert main(build_args) == 2
    err = capsys.readouterr().err
    assert f"--scheduler {addr}: cannot reach a dask scheduler" in err and "Traceback" not in err
    assert not (tmp_path / "b").exists()
    assert not (tmp_path / "p" / "synthetic-obs").exists()


def test_a_worker_with_other_versions_is_refused():
    from causalarena.errors import ReleaseError
    from causalarena.family import register
    from causalarena.release.engine import _compute_unit, build_key

    register(SUBSET)
    unit = subset_units("arena-synthetic", "mini")[0]
    key = build_key(SUBSET, unit)
    assert _compute_unit(
        SUBSET.name, unit, None, (), {k: key[k] for k in ("environment", "code_sha256")}
    )
    env = {**key["environment"], "python": "3.0.1"}
    with pytest.raises(
        ReleaseError, match=r"environment\.python is '3\.\d+\.\d+' there but '3\.0\.1'"
    ):
        _compute_unit(
            SUBSET.name, unit, None, (), {"environment": env, "code_sha256": key["code_sha256"]}
        )
    with pytest.raises(ReleaseError, match="code_sha256 is"):
        _compute_unit(
            SUBSET.name,
            unit,
            None,
            (),
            {"environment": key["environment"], "code_sha256": "0" * 64},
        )


def _rows(out: Path, method: str) -> list[dict]:
    keep = ("instance_id", "status", "seed", "adjacency", "memory_limit_bytes", "timeout_s")
    rows = pq.read_table(out / "synthetic-obs" / f"{method}.parquet").to_pylist()
    return sorted(({k: r[k] for k in keep} for r in rows), key=lambda r: r["instance_id"])


def test_dask_run_gives_the_local_scores(dask_release, cluster, tmp_path):
    from causalarena.eval.runner import run_methods
    from causalarena.eval.score import score_predictions

    methods = ["random-regress", "var-sort-regress"]
    kw = dict(timeout=120, memory_limit="1G", quiet=True)
    run_methods(dask_release, "synthetic-obs", methods, tmp_path / "local", workers=1, **kw)
    res = run_methods(
        dask_release,
        "synthetic-obs",
        methods,
        tmp_path / "dask",
        scheduler=cluster.scheduler_address,
        **kw,
    )
    assert res["counts"] == {m: {"ok": len(BLOCKS)} for m in methods}
    for m in methods:
        assert _rows(tmp_path / "dask", m) == _rows(tmp_path / "local", m)
    a = score_predictions(dask_release, tmp_path / "local").sort_values(["method", "instance_id"])
    b = score_predictions(dask_release, tmp_path / "dask").sort_values(["method", "instance_id"])
    assert len(a) == 2 * len(BLOCKS) and a.f1.notna().all()
    for col in ("shd", "f1", "precision", "recall"):
        assert a[col].tolist() == b[col].tolist(), col
    record = json.loads((tmp_path / "dask/run.json").read_text())["runs"]["synthetic-obs"]
    info = record["methods"]["random-regress"]
    assert info["executor"] == "dask" and info["scheduler"] == cluster.scheduler_address
    local = json.loads((tmp_path / "local/run.json").read_text())["runs"]["synthetic-obs"]
    assert local["methods"]["random-regress"]["executor"] == "local"


def test_budget_and_memory_limit_hold_on_dask_workers(dask_release, cluster, tmp_path):
    from causalarena.eval.runner import run_methods

    first = pq.read_table(dask_release / "data/synthetic-obs", columns=["instance_id"])
    ids = first["instance_id"].to_pylist()[:1]
    res = run_methods(
        dask_release,
        "synthetic-obs",
        ["test-sleepy", "test-hog", "test-empty"],
        tmp_path / "p",
        timeout=3,
        memory_limit="300M",
        instances=ids,
        scheduler=cluster.scheduler_address,
        quiet=True,
    )
    assert res["counts"] == {
        "test-sleepy": {"timeout": 1},
        "test-hog": {"failed": 1},
        "test-empty": {"ok": 1},
    }
    hog = pq.read_table(tmp_path / "p/synthetic-obs/test-hog.parquet").to_pylist()[0]
    assert "above the memory limit of 300 MiB" in hog["error"], hog["error"]
    sleepy = pq.read_table(tmp_path / "p/synthetic-obs/test-sleepy.parquet").to_pylist()[0]
    assert "3 s wall-time budget" in sleepy["error"] and sleepy["runtime_s"] < 30


def test_auto_memory_limit_comes_from_the_dask_workers(dask_release, cluster, tmp_path):
    from causalarena.eval.runner import run_methods

    first = pq.read_table(dask_release / "data/synthetic-obs", columns=["instance_id"])
    run_methods(
        dask_release,
        "synthetic-obs",
        ["test-empty"],
        tmp_path / "p",
        instances=first["instance_id"].to_pylist()[:1],
        scheduler=cluster.scheduler_address,
        quiet=True,
    )
    row = pq.read_table(tmp_path / "p/synthetic-obs/test-empty.parquet").to_pylist()[0]
    assert row["status"] == "ok"
    assert row["memory_limit_bytes"] == int(2 * 2**30 * 0.8)  # 80 % of the 2 GiB worker limit


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_port_that_accepts_but_never_answers_is_an_error_not_a_hang(monkeypatch):
    """Breaker finding: ``Client`` waited forever in its handshake with a silent peer."""
    import socket
    import time

    from causalarena.errors import ReleaseError
    from causalarena.release import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 2)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)  # the kernel accepts connections; nobody ever reads or writes
    addr = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    t0 = time.monotonic()
    try:
        with pytest.raises(ReleaseError, match="cannot reach a dask scheduler there"):
            cluster.connect(addr)
    finally:
        srv.close()
    assert time.monotonic() - t0 < 30
