"""Benchmark: start-up time and overhead per run of ``causalarena run`` (issue 10, section 2).

Runs the RandomRegress control (``random-regress``) through the command line, one worker, on the
d = 10 instances of the mini ``arena-synthetic`` release, twice: on one instance and on all of
them.  The method's own time is the sum of ``runtime_s`` of the result rows (measured inside the
worker around ``fit``); everything else is runner cost:

* overhead per run = ((wall_N - method_N) - (wall_1 - method_1)) / (N - 1);
* start-up = (wall_1 - method_1) - overhead per run (interpreter, imports, worker pool start,
  reading the release, writing the predictions).

The reference measured in the same run is the bare interpreter start-up (``python -c pass``) and
an ``import numpy`` on top of it.  Targets (issue 10): start-up <= 3 s and overhead <= 50 ms per
run.  Usage: ``python bench/bench_run.py [--release DIR] [--repeat 3]`` (``make bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

METHOD = "random-regress"
CONFIG = "synthetic-obs"


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def _supports_instances(env: dict[str, str]) -> bool:
    out = subprocess.run(
        [sys.executable, "-m", "causalarena.cli", "run", "--help"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return "--instances" in out


def _one_run(release: Path, ids: list[str], env: dict[str, str], use_instances: bool):
    """Wall time and summed method time of one ``causalarena run`` over ``ids``."""
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        out = Path(tmp) / "pred"
        cmd = [
            sys.executable,
            "-m",
            "causalarena.cli",
            "run",
            "--release",
            str(release),
            "--config",
            CONFIG,
            "--methods",
            METHOD,
            "--out",
            str(out),
            "--max-d",
            "10",
            "--workers",
            "1",
            "--quiet",
        ]
        if use_instances:
            cmd += ["--instances", ",".join(ids)]
        elif len(ids) == 1:
            # an older runner without --instances: journal every other instance as done so
            # that exactly one run is left (resume skips the rest)
            _wall(cmd, env)
            journal = out / CONFIG / f".{METHOD}.jsonl"
            lines = [ln for ln in journal.read_text().splitlines() if ids[0] not in ln]
            journal.write_text("\n".join(lines) + "\n")
        wall = _wall(cmd, env)
        rows = pq.read_table(out / CONFIG / f"{METHOD}.parquet").to_pylist()
        ran = [r for r in rows if r["instance_id"] in ids]
        assert len(ran) == len(ids) and all(r["status"] == "ok" for r in ran), ran
        return wall, sum(r["runtime_s"] for r in ran)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", default="bench/out/arena-synthetic-mini")
    ap.add_argument("--repeat", type=int, default=3, help="measurements per cell (median)")
    args = ap.parse_args()
    release = Path(args.release)
    src = Path(__file__).resolve().parents[1] / "src"
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    if not (release / "manifest.json").exists():
        from causalarena.release.engine import build

        shutil.rmtree(release, ignore_errors=True)
        build("arena-synthetic", scale="mini", out=release, quiet=True)
    ids = [
        r["instance_id"]
        for r in pq.read_table(release / "data" / CONFIG, columns=["instance_id", "d"]).to_pylist()
        if r["d"] == 10
    ]
    use_instances = _supports_instances(env)
    ref_py = statistics.median(_wall([sys.executable, "-c", "pass"], env) for _ in range(3))
    ref_np = statistics.median(_wall([sys.executable, "-c", "import numpy"], env) for _ in range(3))
    one = [_one_run(release, ids[:1], env, use_instances) for _ in range(args.repeat)]
    many = [_one_run(release, ids, env, use_instances) for _ in range(args.repeat)]
    w1, m1 = statistics.median(w for w, _ in one), statistics.median(m for _, m in one)
    wn, mn = statistics.median(w for w, _ in many), statistics.median(m for _, m in many)
    n = len(ids)
    overhead = ((wn - mn) - (w1 - m1)) / (n - 1)
    startup = (w1 - m1) - overhead
    print(
        f"\n## bench_run: `causalarena run --methods {METHOD}` on the {n} d=10 instances of "
        f"{CONFIG} (mini), 1 worker, median of {args.repeat}\n"
    )
    print("| quantity | value | target | method time beside it |")
    print("|---|---:|---:|---:|")
    print(f"| wall time, {n} runs | {wn:.2f} s | | {mn:.3f} s |")
    print(f"| wall time, 1 run | {w1:.2f} s | | {m1:.3f} s |")
    print(f"| start-up | {startup:.2f} s | <= 3 s | |")
    print(
        f"| overhead per run | {overhead * 1e3:.0f} ms | <= 50 ms | {mn / n * 1e3:.0f} ms per run |"
    )
    print(f"| overhead / method time per run | {overhead / (mn / n):.2f}x | | |")
    print(f"| reference: `python -c pass` | {ref_py:.2f} s | | |")
    print(f"| reference: `python -c 'import numpy'` | {ref_np:.2f} s | | |")
    print(f"| start-up / `import numpy` | {startup / ref_np:.1f}x | | |")
    print(
        json.dumps(
            {
                "runs": n,
                "startup_s": round(startup, 3),
                "overhead_per_run_ms": round(overhead * 1e3, 1),
                "method_s_per_run": round(mn / n, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
