"""Benchmark: start-up time and overhead per run of ``causalarena run`` (issue 10, section 2).

Runs the RandomRegress control (``random-regress``), one worker, on the d = 10 instances of the
mini ``arena-synthetic`` release (``--max-d 10``), each repeat in a fresh interpreter:

* CLI wall time: ``causalarena run ... --max-d 10`` as a user runs it;
* split: the runner's journal timestamps each finished run, so (in a fresh interpreter that
  calls :func:`causalarena.eval.runner.run_methods`) the wall time divides into the method's own
  time (``runtime_s``, measured inside the worker around ``fit``), the overhead per run
  (``(t_last - t_first - method time of runs 2..N) / (N - 1)``: reading the instance, sending it
  to the worker, validating and journaling the result) and the start-up (everything else: the
  imports of the command, measured in a separate interpreter, the worker pool's start, reading
  the release, the first run's overhead, writing the predictions).

The reference measured in the same run is the bare interpreter (``python -c pass``) and
``import numpy``.  Targets (issue 10): start-up <= 3 s and overhead <= 50 ms per run.  The
minimum over ``--repeat`` fresh processes is shown (the machine is shared).  Usage:
``python bench/bench_run.py [--release DIR] [--repeat 3]`` (``make bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

METHOD = "random-regress"
CONFIG = "synthetic-obs"


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of a child command."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


IMPORTS = (
    "import causalarena.cli, causalarena.eval.runner, causalarena.ui, causalarena.release.io; "
    "import importlib.util as u; "
    "[__import__(m) for m in ('causalarena.cli_run', 'causalarena.eval.workers') "
    "if u.find_spec(m)]"
)


def _measure(release: str, out: str) -> None:
    """Child process: one run_methods call with journal timestamps; prints JSON."""
    t0 = time.perf_counter()
    import psutil

    from causalarena.eval import runner

    me = psutil.Process()

    def cpu_tree() -> tuple[float, float]:
        """CPU seconds of this process, and of it plus its descendants (fork server, workers)."""
        own = sum(me.cpu_times()[:2])
        kids = 0.0
        for c in me.children(recursive=True):
            try:
                kids += sum(c.cpu_times()[:2])
            except psutil.Error:
                pass
        return own, own + kids

    stamps: list[float] = []
    cpus: list[tuple[float, float]] = []
    append = runner._Journal.append

    def stamped(self, row):
        append(self, row)
        stamps.append(time.perf_counter())
        cpus.append(cpu_tree())

    runner._Journal.append = stamped
    run = getattr(runner, "run_methods", runner.run)
    run(release, CONFIG, [METHOD], out, max_d=10, workers=1, quiet=True)
    t_end = time.perf_counter()
    rows = pq.read_table(Path(out) / CONFIG / f"{METHOD}.parquet").to_pylist()
    assert rows and all(r["status"] == "ok" for r in rows), [r["status"] for r in rows]
    m = [r["runtime_s"] for r in rows]
    print(json.dumps({"t0": t0, "stamps": stamps, "cpus": cpus, "t_end": t_end, "method": m}))


def _child(release: Path, env: dict[str, str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        res = subprocess.run(
            [sys.executable, __file__, "--measure", str(release), str(Path(tmp) / "pred")],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(res.stdout.strip().splitlines()[-1])


def _cli_wall(release: Path, env: dict[str, str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        out = Path(tmp) / "pred"
        cmd = [sys.executable, "-m", "causalarena.cli", "run", "--release", str(release)]
        cmd += ["--config", CONFIG, "--methods", METHOD, "--out", str(out), "--max-d", "10"]
        wall = _wall([*cmd, "--workers", "1", "--quiet"], env)
        rows = pq.read_table(out / CONFIG / f"{METHOD}.parquet").to_pylist()
        return wall, sum(r["runtime_s"] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", default="bench/out/arena-synthetic-mini")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement")
    ap.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        _measure(*args.measure)
        return
    release = Path(args.release)
    src = Path(__file__).resolve().parents[1] / "src"
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    if not (release / "manifest.json").exists():
        from causalarena.release.engine import build

        shutil.rmtree(release, ignore_errors=True)
        build("arena-synthetic", scale="mini", out=release, quiet=True)
    ref_py = min(_wall([sys.executable, "-c", "pass"], env) for _ in range(3))
    ref_np = min(_wall([sys.executable, "-c", "import numpy"], env) for _ in range(3))
    imports = min(_wall([sys.executable, "-c", IMPORTS], env) for _ in range(3)) - ref_py
    imports_cpu = min(_cpu([sys.executable, "-c", IMPORTS], env) for _ in range(3))
    cli = min(_cli_wall(release, env) for _ in range(args.repeat))
    splits = []
    for _ in range(args.repeat):
        c = _child(release, env)
        s, m = c["stamps"], c["method"]
        n = len(m)
        per_run = ((s[-1] - s[0]) - sum(m[1:])) / (n - 1)
        total = c["t_end"] - c["t0"] + imports + ref_py
        startup = total - sum(m) - (n - 1) * per_run
        cp = c["cpus"]  # CPU clock: (own, whole tree) seconds at each finished run
        cpu_start = cp[0][1]  # tree CPU until the first result (imports, pool, first run)
        cpu_main = (cp[-1][0] - cp[0][0]) / (n - 1)  # this process's CPU per run
        cpu_tree = (cp[-1][1] - cp[0][1]) / (n - 1)  # all processes' CPU per run (method too)
        splits.append((startup, per_run, sum(m), n, cpu_start, cpu_main, cpu_tree))
    startup = min(x[0] for x in splits)
    per_run = min(x[1] for x in splits)
    method = min(x[2] for x in splits)
    n = splits[0][3]
    cpu_start, cpu_main, cpu_tree = (min(x[k] for x in splits) for k in (4, 5, 6))
    print(
        f"\n## bench_run: `causalarena run --methods {METHOD} --max-d 10 --workers 1` on the "
        f"{n} d=10 instances of {CONFIG} (mini); min of {args.repeat} fresh processes\n"
    )
    print("| quantity | value | target | method's own time |")
    print("|---|---:|---:|---:|")
    print(f"| CLI wall time, {n} runs | {cli[0]:.2f} s | | {cli[1]:.3f} s |")
    print(f"| start-up (imports {imports:.2f} s included) | {startup:.2f} s | <= 3 s | |")
    print(
        f"| overhead per run | {per_run * 1e3:.1f} ms | <= 50 ms | {method / n * 1e3:.1f} ms "
        "per run |"
    )
    print(f"| overhead / method time per run | {per_run / (method / n):.2f}x | | |")
    print(
        f"| CPU clock: start-up incl. first run, all processes (CLI imports alone {imports_cpu:.2f} s) | "
        f"{cpu_start:.2f} CPU-s | | |"
    )
    print(f"| CPU clock: this process per run (overhead) | {cpu_main * 1e3:.1f} ms | | |")
    print(f"| CPU clock: all processes per run (method included) | {cpu_tree * 1e3:.1f} ms | | |")
    print(f"| load average (1 min) at the end | {os.getloadavg()[0]:.1f} | | |")
    print(f"| reference: `python -c pass` | {ref_py:.2f} s | | |")
    print(f"| reference: `python -c 'import numpy'` | {ref_np:.2f} s | | |")
    print(f"| start-up / `import numpy` | {startup / ref_np:.1f}x | | |")
    print(
        json.dumps(
            {
                "runs": n,
                "cli_wall_s": round(cli[0], 3),
                "startup_s": round(startup, 3),
                "overhead_per_run_ms": round(per_run * 1e3, 1),
                "method_ms_per_run": round(method / n * 1e3, 1),
                "cpu_startup_s": round(cpu_start, 3),
                "cpu_main_ms_per_run": round(cpu_main * 1e3, 1),
                "cpu_tree_ms_per_run": round(cpu_tree * 1e3, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
