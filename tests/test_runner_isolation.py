"""The warm isolated runner: budgets, process groups, memory limit, crashes, capture, reruns, CLI."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from pathlib import Path

import psutil
import pyarrow.parquet as pq
import pytest

from causalarena.eval.runner import NOTES_CHARS, RunOptionError, instance_seed, run_methods
from causalarena.eval.workers import CAPTURE_CHARS, parse_memory_limit


@pytest.fixture()
def plugins(monkeypatch):
    monkeypatch.setenv("CAUSALARENA_METHODS", "causalarena_fake_methods")
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "plugins"))
    from causalarena.baselines.registry import load_plugins

    load_plugins()


@pytest.fixture(scope="module")
def d10(mini_release):
    rows = pq.read_table(mini_release / "data/synthetic-obs", columns=["instance_id", "d"])
    return [r["instance_id"] for r in rows.to_pylist() if r["d"] == 10]


def _rows(out, method, config="synthetic-obs"):
    return pq.read_table(Path(out) / config / f"{method}.parquet").to_pylist()


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_partial_message_then_stall_is_killed_at_the_budget(mini_release, tmp_path, plugins, d10):
    t0 = time.perf_counter()
    res = run_methods(
        mini_release, "synthetic-obs", ["test-stall-partial"], tmp_path / "p",
        timeout=1.0, instances=d10[:2], quiet=True,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    assert res["counts"]["test-stall-partial"] == {"timeout": 2}
    assert wall < 15  # two 1 s budgets and start-up, not two 60 s stalls (or forever)
    for row in _rows(tmp_path / "p", "test-stall-partial"):
        assert 1.0 <= row["runtime_s"] < 6
        assert "exceeded the 1 s wall-time budget" in row["error"]
        pid = int(re.search(r"process group (\d+) killed", row["error"]).group(1))
        assert _gone(pid)


def test_timeout_kills_the_subprocesses_of_the_method(mini_release, tmp_path, plugins, d10):
    res = run_methods(
        mini_release, "synthetic-obs", ["test-spawner"], tmp_path / "p",
        timeout=1.5, instances=d10[:1], quiet=True,
    )  # fmt: skip
    assert res["counts"]["test-spawner"] == {"timeout": 1}
    row = _rows(tmp_path / "p", "test-spawner")[0]
    child = int(re.search(r"child pid (\d+)", row["stdout"]).group(1))  # captured before the kill
    deadline = time.time() + 5
    while not _gone(child) and time.time() < deadline:
        time.sleep(0.05)
    assert _gone(child), f"subprocess {child} of the timed-out method is still running"


def test_memory_hog_is_killed_at_the_limit(mini_release, tmp_path, plugins, d10):
    res = run_methods(
        mini_release, "synthetic-obs", ["test-hog", "test-empty"], tmp_path / "p",
        timeout=30, memory_limit="300M", instances=d10[:1], quiet=True,
    )  # fmt: skip
    row = _rows(tmp_path / "p", "test-hog")[0]
    assert res["counts"] == {"test-hog": {"failed": 1}, "test-empty": {"ok": 1}}, row
    assert "above the memory limit of 300 MiB" in row["error"]
    rss = float(re.search(r"reached ([\d.]+) (MiB|GiB)", row["error"]).group(1))
    assert row["memory_limit_bytes"] == 300 * 2**20
    assert row["runtime_s"] < 25  # killed before the 30 s budget (the hog alone takes > 5 s)
    assert rss > 300 or "GiB" in row["error"]


def test_crashed_worker_is_replaced_and_warm_workers_are_reused(
    mini_release, tmp_path, plugins, d10
):
    res = run_methods(
        mini_release, "synthetic-obs", ["test-crash-odd"], tmp_path / "p",
        timeout=30, max_d=10, quiet=True,
    )  # fmt: skip
    rows = _rows(tmp_path / "p", "test-crash-odd")
    odd = [r for r in rows if instance_seed(r["instance_id"]) % 2]
    even = [r for r in rows if not instance_seed(r["instance_id"]) % 2]
    assert odd and even, "the mini release has instances of both seed parities"
    assert res["counts"]["test-crash-odd"] == {"failed": len(odd), "ok": len(even)}
    for r in odd:
        assert "was killed by signal SIGABRT (exit code -6)" in r["error"]
    pids = [json.loads(r["notes"])["pid"] for r in rows if r["status"] == "ok"]
    # one warm worker serves runs in a row; a crash replaces it with a new process
    runs_of = {}
    prev_failed = False
    for r in rows:
        if r["status"] == "ok":
            pid = json.loads(r["notes"])["pid"]
            runs_of.setdefault(pid, []).append(prev_failed)
        prev_failed = r["status"] == "failed"
    assert len(set(pids)) <= len(odd) + 1
    assert all(not any(flags[1:]) for flags in runs_of.values())  # a pid never survives a crash


def test_setup_hook_runs_once_per_worker(mini_release, tmp_path, plugins):
    res = run_methods(
        mini_release, "synthetic-obs", ["test-setup"], tmp_path / "p", max_d=10, quiet=True
    )
    assert res["counts"]["test-setup"] == {"ok": 10}
    notes = [json.loads(r["notes"]) for r in _rows(tmp_path / "p", "test-setup")]
    assert len({n["setup_pid"] for n in notes}) == 1
    assert sorted(n["calls"] for n in notes) == list(range(1, 11))


def test_output_is_captured_capped_and_not_printed(mini_release, tmp_path, plugins, d10, capfd):
    res = run_methods(
        mini_release, "synthetic-obs", ["test-chatty"], tmp_path / "p",
        instances=d10[:1], quiet=True,
    )  # fmt: skip
    assert res["counts"]["test-chatty"] == {"ok": 1}
    row = _rows(tmp_path / "p", "test-chatty")[0]
    out, err = capfd.readouterr()
    assert "out line" not in out + err and "err line" not in out + err
    assert row["stdout"].rstrip().endswith("out line 01999 " + "o" * 34)
    assert row["stderr"].rstrip().endswith("err line 01999 " + "e" * 34)
    assert "bytes cut" in row["stdout"] and "out line 00000" not in row["stdout"]
    for text in (row["stdout"], row["stderr"]):
        assert len(text) <= CAPTURE_CHARS + 40
    assert len(row["notes"]) <= NOTES_CHARS + 100
    assert json.loads(row["notes"])["notes_chars"] > 100_000


def test_isolation_none_gives_the_same_rows(mini_release, tmp_path, plugins, d10):
    for iso in ("process", "none"):
        run_methods(
            mini_release, "synthetic-obs", ["random-regress"], tmp_path / iso,
            instances=d10[:3], isolation=iso, quiet=True,
        )  # fmt: skip
    a, b = _rows(tmp_path / "process", "random-regress"), _rows(tmp_path / "none", "random-regress")
    assert [r["adjacency"] for r in a] == [r["adjacency"] for r in b]
    assert all(r["status"] == "ok" for r in a + b)
    assert a[0]["memory_limit_bytes"] > 0 and b[0]["memory_limit_bytes"] is None


# ------------------------------------------------------------------------ rerun invalidation


def _journal_lines(out, method="test-empty"):
    return len((Path(out) / "synthetic-obs" / f".{method}.jsonl").read_text().splitlines())


@pytest.mark.parametrize(
    "change", ["none", "timeout", "memory", "seed", "version", "library", "manifest"]
)
def test_rerun_reuses_a_row_only_when_nothing_that_determines_it_changed(
    mini_release, tmp_path, plugins, d10, monkeypatch, change
):
    import shutil

    from causalarena.baselines import registry
    from causalarena.baselines.base import Method

    release = mini_release
    if change == "manifest":
        release = tmp_path / "rel"
        shutil.copytree(mini_release, release)
    out = tmp_path / "p"
    base = dict(timeout=30.0, memory_limit="1G", seed=0, instances=d10[:3], quiet=True)
    first = run_methods(release, "synthetic-obs", ["test-empty"], out, **base)
    assert first["reused"] == {"test-empty": 0} and _journal_lines(out) == 3
    kw = dict(base)
    if change == "timeout":
        kw["timeout"] = 31.0
    elif change == "memory":
        kw["memory_limit"] = "2G"
    elif change == "seed":
        kw["seed"] = 1
    elif change == "version":
        m = registry.registered("test-empty")
        new = dataclasses.replace(m, info=dataclasses.replace(m.info, version="2"))
        monkeypatch.setitem(registry._REGISTRY, "test-empty", new)
    elif change == "library":
        monkeypatch.setattr(Method, "library_version", lambda self: "9.9.9")
    elif change == "manifest":
        manifest = release / "manifest.json"
        manifest.write_text(manifest.read_text() + "\n")
    second = run_methods(release, "synthetic-obs", ["test-empty"], out, **kw)
    rows = _rows(out, "test-empty")
    info = json.loads((out / "run.json").read_text())["runs"]["synthetic-obs"]["methods"]
    if change == "none":
        assert second["reused"] == {"test-empty": 3} and _journal_lines(out) == 3
    else:
        assert second["reused"] == {"test-empty": 0} and _journal_lines(out) == 6
    assert len(rows) == 3
    want = {
        "timeout_s": kw["timeout"],
        "memory_limit_bytes": parse_memory_limit(kw["memory_limit"]),
        "method_version": "2" if change == "version" else "1",
        "library_version": "9.9.9" if change == "library" else None,
    }
    for key, value in want.items():  # run.json and every row agree
        assert info["test-empty"][key] == value
        assert {r[key] for r in rows} == {value}
    assert {r["seed"] for r in rows} == {instance_seed(i, kw["seed"]) for i in d10[:3]}
    assert {r["manifest_sha256"] for r in rows} == {info["test-empty"]["manifest_sha256"]}


def test_rerun_with_a_smaller_selection_keeps_the_journal_for_later(
    mini_release, tmp_path, plugins, d10
):
    out = tmp_path / "p"
    run_methods(mini_release, "synthetic-obs", ["test-empty"], out, instances=d10[:4], quiet=True)
    run_methods(mini_release, "synthetic-obs", ["test-empty"], out, instances=d10[:2], quiet=True)
    assert [r["instance_id"] for r in _rows(out, "test-empty")] == d10[:2]
    res = run_methods(
        mini_release, "synthetic-obs", ["test-empty"], out, instances=d10[:4], quiet=True
    )
    assert res["reused"] == {"test-empty": 4} and _journal_lines(out) == 4


# ------------------------------------------------------------------------ options and the CLI


def _cli(capsys, *argv):
    from causalarena.cli import main

    try:
        rc = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        rc = exc.code
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--config", "../data"], "--config ../data: not a config of the release"),
        (["--config", "synthetic-obs/../synthetic-obs"], "--config synthetic-obs/../synthetic-obs"),
        (["--timeout", "nan"], "argument --timeout: nan: must be a finite number"),
        (["--timeout", "-3"], "argument --timeout: -3: must be a finite number"),
        (["--methods", ","], "argument --methods: ,: name at least one"),
        (["--methods", ""], "argument --methods: (empty): name at least one"),
        (["--max-d", "-1"], "argument --max-d: -1: must be a positive integer"),
        (["--replicates", "7"], "--replicates 7: not in config synthetic-obs (its replicates: 0)"),
        (["--replicates", "a"], "argument --replicates: a: replicate indices are integers"),
        (["--memory-limit", "lots"], "argument --memory-limit: memory limit lots is not a size"),
        (["--workers", "0"], "argument --workers: 0: must be a positive integer"),
        (["--methods", "no-such"], "--methods no-such: unknown method; known methods: "),
        (["--instances", "x/y"], "--instances x/y: not instance ids of config synthetic-obs"),
    ],
)
def test_cli_run_usage_errors_name_the_option_and_value(
    mini_release, tmp_path, capsys, extra, needle
):
    args = {"--config": "synthetic-obs", "--methods": "random-regress"}
    args.update(dict(zip(extra[::2], extra[1::2], strict=True)))
    argv = ["run", "--release", str(mini_release), "--out", str(tmp_path / "p"), "--quiet"]
    for k, v in args.items():
        argv += [k, v]
    rc, _, err = _cli(capsys, *argv)
    assert rc == 2
    assert needle in err
    assert "Traceback" not in err and "['" not in err and "{'" not in err
    assert not (tmp_path / "p").exists()  # nothing ran, nothing written


def test_out_inside_the_release_is_refused(mini_release, capsys):
    rc, _, err = _cli(
        capsys, "run", "--release", str(mini_release), "--config", "synthetic-obs",
        "--methods", "random-regress", "--out", str(mini_release / "pred"), "--quiet",
    )  # fmt: skip
    assert rc == 2 and "--out " in err and "is inside the release folder" in err
    assert not (mini_release / "pred").exists()
    with pytest.raises(RunOptionError, match="out="):
        run_methods(mini_release, "synthetic-obs", ["random-regress"], mini_release, quiet=True)


def test_plugin_methods_are_listed(plugins, capsys):
    rc, out, _ = _cli(capsys, "methods")
    assert rc == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("test-setup "))
    assert "available" in line


def test_failed_setup_fails_every_run_once(mini_release, tmp_path, plugins, d10):
    res = run_methods(
        mini_release, "synthetic-obs", ["test-bad-setup", "test-empty"], tmp_path / "p",
        instances=d10[:3], quiet=True,
    )  # fmt: skip
    assert res["counts"] == {"test-bad-setup": {"failed": 3}, "test-empty": {"ok": 3}}
    for row in _rows(tmp_path / "p", "test-bad-setup"):
        assert "setup of test-bad-setup failed" in row["error"]
        assert "no checkpoint at /nonexistent" in row["error"]


def test_run_one(plugins):
    import numpy as np

    from causalarena.eval.runner import run_one

    X = np.random.default_rng(0).normal(size=(200, 4))
    X[:, 1] += 2 * X[:, 0]
    ok = run_one("random-regress", X, seed=3, timeout=60)
    same = run_one("random-regress", X, seed=3, isolation="none")
    assert ok.status == "ok" and ok.adjacency.shape == (4, 4) and ok.adjacency.dtype == np.int8
    assert np.array_equal(ok.adjacency, same.adjacency)
    slow = run_one("test-sleepy", X, timeout=0.5)
    assert slow.status == "timeout" and slow.adjacency is None
    bad = run_one("test-bad-shape", X)
    assert bad.status == "invalid" and "adjacency has shape 2 x 2" in bad.error
    with pytest.raises(RunOptionError, match="timeout=nan"):
        run_one("random-regress", X, timeout=float("nan"))


def test_method_objects_reach_isolated_workers(mini_release, tmp_path, d10):
    import os

    import numpy as np

    from causalarena.baselines.base import Method, MethodInfo, MethodResult

    info = MethodInfo(
        name="chain-guess", display_name="chain", family="control",
        supports_interventions=False, requires_interventions=False, outputs_edge_scores=False,
        output_graph="dag", library=None, extra=None, defaults={}, reference="test",
    )  # fmt: skip

    def fit(X, mask=None, *, seed=0):  # a closure over this test: needs cloudpickle
        A = np.eye(X.shape[1], k=1, dtype=np.int8)
        return MethodResult(A, None, "dag", {"pid": os.getpid()})

    res = run_methods(
        mini_release, "synthetic-obs", [Method(info=info, fit=fit)], tmp_path / "p",
        instances=d10[:2], quiet=True,
    )  # fmt: skip
    assert res["counts"] == {"chain-guess": {"ok": 2}}
    rows = _rows(tmp_path / "p", "chain-guess")
    assert all(np.array_equal(np.array(r["adjacency"]), np.eye(10, k=1)) for r in rows)
    assert {json.loads(r["notes"])["pid"] for r in rows} != {os.getpid()}  # ran elsewhere


def test_methods_table_columns_align_on_the_longest_name(capsys):
    rc, out, _ = _cli(capsys, "methods")
    lines = out.splitlines()
    assert rc == 0 and lines[0].split() == ["method", "family", "interventions", "output", "state"]
    rows = {ln.split()[0]: ln for ln in lines[1:]}
    assert "reverse-r2-sort-regress" in rows and "pc" in rows
    col = lines[0].index("family")  # every row's family starts under the header
    assert col > len("reverse-r2-sort-regress")
    assert {ln.index(ln.split()[1], len(ln.split()[0])) for ln in lines[1:]} == {col}
    assert all(ln == ln.rstrip() for ln in lines)
