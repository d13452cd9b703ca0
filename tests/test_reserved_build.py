"""Reserved builds through the engine's unit machinery (issue 9 §3): resume after a kill,
``--workers`` byte identity, and parts deleted once consolidated (public and reserved), with a
toy family defined here whose reserved half is drawn from the key."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causalarena.errors import ReleaseError
from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.release import reserved as rsv
from causalarena.release.engine import build
from causalarena.release.io import sha256_file
from causalarena.release.verify import verify

HERE = Path(__file__).resolve().parent
SCHEMA = pa.schema(
    [("instance_id", pa.string()), ("x", pa.list_(pa.float32())), ("note", pa.string())]
)
N_UNITS, ROWS = 12, 3


def _table(prefix: str, i: int, rng: np.random.Generator) -> pa.Table:
    xs = [rng.standard_normal(4).astype(np.float32).tolist() for _ in range(ROWS)]
    return pa.table(
        {
            "instance_id": [f"{prefix}/{i:02d}/{k}" for k in range(ROWS)],
            "x": pa.array(xs, pa.list_(pa.float32())),
            "note": [f"unit {i}"] * ROWS,
        },
        schema=SCHEMA,
    )


def _sleep() -> None:
    if os.environ.get("TOYR_SLEEP"):
        time.sleep(float(os.environ["TOYR_SLEEP"]))


def toyr_units(suite, scale, options):
    return [Unit(suite, "0.1.0", 5, scale, f"u{i:02d}", {"i": i}) for i in range(N_UNITS)]


def toyr_run(unit: Unit) -> UnitResult:
    _sleep()
    i = int(unit.params["i"])
    rng = np.random.default_rng(np.random.SeedSequence(unit.seed, spawn_key=(i,)))
    return UnitResult(tables={"toyr-rows": _table("pub", i, rng)})


def toyr_reserved_units(suite, scale, options):
    return [
        Unit(suite, "0.1.0", None, scale, f"r{i:02d}", {"i": i, "_private": f"secret-{i}"})
        for i in range(N_UNITS)
    ]


def toyr_run_reserved(unit: Unit, ss) -> UnitResult:
    _sleep()
    rng = np.random.default_rng(ss)
    return UnitResult(tables={"toyr-rows": _table("res", int(unit.params["i"]), rng)})


def toyr_instances(config, table):
    for row in table.to_pylist():
        X = np.asarray(row["x"], dtype=np.float32).reshape(1, -1)
        yield row["instance_id"], json.dumps({"note": row["note"]}), X, np.zeros(X.shape, bool)


TOYR = Family(
    name="toyr",
    suites={"toyr-suite": SuiteInfo("toyr-suite", "0.1.0", 5, ("mini",))},
    configs=lambda suite: [Config("toyr-rows", SCHEMA, "toy rows")],
    units=toyr_units,
    run_unit=toyr_run,
    header=lambda suite, scale, options: {"definition": {"units": N_UNITS}},
    text=lambda suite: CardText(pretty_name="Toy reserved", summary="Random vectors."),
    reserved_units=toyr_reserved_units,
    run_reserved=toyr_run_reserved,
    reserved_instances=toyr_instances,
)


def build_res(out, key, workers=1, quiet=True):
    return rsv.build_reserved(
        "toyr-suite", key_file=key, out=out, workers=workers, quiet=quiet, family=TOYR
    )


def _shas(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): sha256_file(p)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".build" not in p.parts and p.name != "manifest.json"
    }


def _parts(folder: Path) -> list[Path]:
    return sorted((folder / ".build").rglob("*.parquet"))


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    d = tmp_path_factory.mktemp("secret")
    rsv.generate_key(d / "k")
    rsv.generate_key(d / "other")
    return d / "k"


@pytest.fixture(scope="module")
def clean(tmp_path_factory, key):
    return build_res(tmp_path_factory.mktemp("res") / "clean", key)


def _subprocess(out: Path, key: Path, workers: int, env: dict) -> subprocess.Popen:
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_reserved_build as t; "
        f"from pathlib import Path; t.build_res({str(out)!r}, Path({str(key)!r}), {workers})"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_reserved_build_commits_like_freeze_and_keeps_private_params_private(clean, key):
    m = json.loads((clean / "manifest.json").read_text())
    want = rsv.family_commitments(TOYR, "toyr-suite", "mini", rsv.read_key(key))
    assert m["reserved"]["root_sha256"] == want["root_sha256"]
    assert m["reserved"]["count"] == N_UNITS * ROWS
    assert all("_private" not in c for c in m["reserved"]["commitments"])
    assert "secret-" not in json.dumps(m)
    rows = pa.concat_tables([pq.read_table(clean / f["path"]) for f in m["files"]]).column(
        "instance_id"
    )
    assert rows.to_pylist() == [f"res/{i:02d}/{k}" for i in range(N_UNITS) for k in range(ROWS)]
    assert all(Path(f["path"]).name.startswith("reserved-") for f in m["files"])


def test_reserved_bytes_do_not_depend_on_worker_count(clean, key, tmp_path):
    two = build_res(tmp_path / "w2", key, workers=2)
    assert _shas(two) == _shas(clean) and _shas(clean)
    a = json.loads((clean / "manifest.json").read_text())
    b = json.loads((two / "manifest.json").read_text())
    assert a["files"] == b["files"] and a["reserved"] == b["reserved"]


@pytest.mark.parametrize("workers", [1, 2])
def test_reserved_build_killed_at_first_temporary_file_resumes(clean, key, tmp_path, workers):
    out = tmp_path / "killed"
    proc = _subprocess(out, key, workers, {"CAUSALARENA_TEST_KILL_AT_FIRST_TEMP": "1"})
    proc.communicate(timeout=120)
    assert proc.returncode != 0 and list(out.rglob("*.tmp"))
    assert not (out / "manifest.json").exists()
    build_res(out, key, workers=workers)
    assert not list(out.rglob("*.tmp"))
    assert _shas(out) == _shas(clean)


def test_reserved_build_killed_mid_way_reuses_finished_units(clean, key, tmp_path, capsys):
    out = tmp_path / "mid"
    proc = _subprocess(out, key, 1, {"TOYR_SLEEP": "0.4"})
    units = out / ".build" / "units"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(units.glob("*.json"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    done = len(list(units.glob("*.json")))
    assert 3 <= done < N_UNITS and not (out / "manifest.json").exists()
    build_res(out, key, quiet=False)
    assert f"reusing {done} finished reserved unit(s)" in capsys.readouterr().err
    assert _shas(out) == _shas(clean)


def test_reserved_folder_of_another_key_is_refused(clean, key, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(clean, copy)
    with pytest.raises(ReleaseError, match="key_id"):
        build_res(copy, key.parent / "other")


def test_parts_are_deleted_once_consolidated_and_a_damaged_shard_is_rebuilt(tmp_path, key):
    pub = build("toyr-suite", scale="mini", out=tmp_path / "pub", quiet=True, family=TOYR)
    assert _parts(pub) == []  # no second copy of the data under .build
    before = _shas(pub)
    assert verify(pub) == []
    # rerun of a complete build: every unit reused, nothing rewritten
    rec = sorted((pub / ".build" / "units").glob("*.json"))
    mtimes = [p.stat().st_mtime_ns for p in (pub / "data").rglob("*.parquet")]
    build("toyr-suite", scale="mini", out=pub, quiet=True, family=TOYR)
    assert [p.stat().st_mtime_ns for p in (pub / "data").rglob("*.parquet")] == mtimes
    assert len(rec) == N_UNITS
    # damage one shard: its units are run again from their records, bytes as before
    shard = sorted((pub / "data").rglob("*.parquet"))[5]
    shard.write_bytes(b"garbage")
    build("toyr-suite", scale="mini", out=pub, quiet=True, family=TOYR)
    assert _shas(pub) == before and verify(pub) == [] and _parts(pub) == []
    # the reserved build too
    res = build_res(tmp_path / "res", key)
    assert _parts(res) == []
    before = _shas(res)
    sorted((res / "data").rglob("*.parquet"))[0].unlink()
    build_res(res, key)
    assert _shas(res) == before
