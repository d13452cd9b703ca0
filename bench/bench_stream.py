"""Benchmark: fresh-SCM stream throughput and the contamination guard's cost (issue 13 §4).

Run with ``make bench`` (or ``python bench/bench_stream.py [--n 24 --d 30 --release DIR]``).
One table, all rows measured in the same run with the CPU clock (``time.process_time``; the
machine is shared), instances per CPU-second and ratios against the reference:

- ``reference``: the same generator calls in a plain loop --
  :func:`causalarena.generator.synthetic.fresh.instance` (draw an arena-design SCM, calibrate,
  audit, sample the setting) for instances ``0 .. n-1`` -- what the stream must not slow down;
- ``sample alone``: :func:`causalarena.sample` on the already drawn specs (for scale: the SCM
  draw, calibration and audit are most of a fresh instance's cost);
- ``stream python`` / ``stream numpy B=8``: ``causalarena.stream("synthetic", d=D)`` through
  ``datasets`` (no format; numpy batches of 8), one shard so the same instances are drawn;
- ``stream + guard``: the same with ``exclude=[release]`` (the mini synthetic release, built when
  ``--release`` is not given); ``guard per instance`` is the fingerprint-and-lookup cost alone
  (:func:`causalarena.fingerprint.fingerprint` of each spec), ``guard index`` the one-off cost
  of reading the release's fingerprints.

Target (issue 13 §4): the stream >= 0.8x the reference.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path


def _cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=24, help="instances per reader")
    ap.add_argument("--d", type=int, default=30, help="dimension of the drawn SCMs")
    ap.add_argument("--setting", default="obs", choices=["obs", "obsint"])
    ap.add_argument("--release", default=None, help="release folder for the guard rows")
    args = ap.parse_args(argv)

    import numpy as np

    from causalarena.fingerprint import fingerprint
    from causalarena.generator.sample import sample
    from causalarena.generator.synthetic.fresh import instance, pool
    from causalarena.loaders.stream import release_fingerprints, stream

    n, d = args.n, args.d
    pos = pool([d])
    rows = []

    # warm-up (first-call imports and caches), outside the timed instances
    list(stream("synthetic", 1, d=d, shards=1, setting=args.setting).take(2))
    [instance(1, 10**6 + k, pos, args.setting) for k in range(2)]
    t_ref, made = _cpu(lambda: [instance(0, k, pos, args.setting) for k in range(n)])
    rows.append(("reference (plain loop)", t_ref))
    specs = [m[0] for m in made]
    n_obs, n_int = (1000, 0) if args.setting == "obs" else (800, 200)
    t_s, _ = _cpu(
        lambda: [sample(s, n_obs, n_int, np.random.SeedSequence(k)) for k, s in enumerate(specs)]
    )
    rows.append(("sample alone (drawn specs)", t_s))
    ds = stream("synthetic", 0, d=d, shards=1, setting=args.setting)
    t_py, _ = _cpu(lambda: list(ds.take(n)))
    rows.append(("stream python", t_py))
    t_np, _ = _cpu(lambda: list(islice(ds.with_format("numpy").iter(batch_size=8), n // 8)))
    rows.append(("stream numpy B=8", t_np * n / (8 * (n // 8))))

    folder = args.release
    if folder is None:
        from causalarena.release.engine import build

        tmp = tempfile.mkdtemp(prefix="bench-stream-")
        print("building the mini arena-synthetic release for the guard rows", file=sys.stderr)
        folder = str(build("arena-synthetic", scale="mini", out=Path(tmp) / "rel", quiet=True))
    t_idx, idx = _cpu(lambda: release_fingerprints(folder))
    dsg = stream("synthetic", 0, d=d, shards=1, setting=args.setting, exclude=[folder])
    t_g, _ = _cpu(lambda: list(dsg.take(n)))
    rows.append(("stream + guard", t_g - t_idx))  # the index is read once per stream
    sj = [s.to_json() for s in specs]
    t_fp, _ = _cpu(lambda: [fingerprint(s) for s in sj])

    print(f"\nfresh-SCM stream, synthetic d={d} {args.setting}, n={n} instances, CPU clock")
    print(f"{'reader':<28} {'inst/CPU-s':>11} {'vs reference':>13}")
    for name, t in rows:
        print(f"{name:<28} {n / t:>11.2f} {t_ref / t:>12.2f}x")
    print(f"{'guard per instance':<28} {1000 * t_fp / n:>9.2f} ms")
    print(f"{'guard index (one-off)':<28} {t_idx:>9.2f} s  ({len(idx['exact'])} release SCMs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
