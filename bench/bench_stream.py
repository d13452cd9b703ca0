"""Benchmark: fresh-SCM stream throughput and the contamination guard's cost (issue 13 §4).

Run with ``make bench`` (or ``python bench/bench_stream.py [--n 24 --d 30 --release DIR]``).
One table, all rows measured in the same run with the CPU clock (``time.process_time``; the
machine is shared; ``--rounds`` interleaved rounds, each reader's best kept), instances per
CPU-second and ratios against the reference:

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

``--family protocols`` (fresh d = 30 SCMs under ``--protocols``; the reference is the base
draw and the protocol rows in a loop) and ``--family lab`` (lab-main episodes; guard against
the mini lab-main release) measure the other streams the same way.  ``stream start`` is the
one-off cost of a new stream's first row (``datasets`` set-up), included in every stream row
above; a lab episode is cheap (~0.5 ms), so the lab default is ``--n 480``.

Target (issue 13 §4): the stream >= 0.8x the reference.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path


def _cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _family(args):
    """``(reference, make_stream, rows_per_instance, spec_of)`` of the benchmarked family:
    ``reference(seed, n)`` runs the generator calls of ``n`` instances in a plain loop and
    returns their SCM specs (JSON); ``make_stream(**kw)`` the one-shard stream."""
    from causalarena.loaders.stream import stream

    if args.family == "synthetic":
        from causalarena.generator.synthetic.fresh import instance, pool

        pos = pool([args.d])

        def ref(seed, n):
            return [instance(seed, k, pos, args.setting)[0].to_json() for k in range(n)]

        def mk(**kw):
            return stream("synthetic", d=args.d, shards=1, setting=args.setting, **kw)

        return ref, mk, 1
    if args.family == "protocols":
        from causalarena.generator.protocols import fresh

        ps = args.protocols.split(",")
        _, names, sizes = fresh.check_options("arena-protocols", ps, None)

        def ref(seed, n):
            out = []
            for k in range(n):
                spec, att = fresh.base_spec(seed, k)
                list(fresh.rows(seed, k, spec, att, "arena-protocols", names, sizes))
                out.append(spec.to_json())
            return out

        def mk(**kw):
            return stream("protocols", shards=1, protocols=names, **kw)

        return ref, mk, len(names)
    from causalarena.generator.lab.episode import draw_episode
    from causalarena.generator.lab.suites import get_lab_suite
    from causalarena.generator.synthetic.fresh import order, stream_seed

    suite = get_lab_suite("lab-main")

    def ref(seed, n):
        # the stream's episodes, names included: instance k is episode k // 5 of the config
        # at place k % 5 of that epoch's seeded config order (loaders.stream._lab_rows)
        base, cfgs, name = stream_seed(seed, "lab/lab-main", 0), suite.configs, "stream-lab-main"
        out, epoch, perm = [], -1, None
        for k in range(n):
            i, c = divmod(k, len(cfgs))
            if i != epoch:
                epoch, perm = i, order(seed, "lab/lab-main", i, len(cfgs))
            ep = draw_episode(
                f"{name}/{seed}",
                base,
                cfgs[int(perm[c])],
                i,
                episode_id=f"{name}/{seed}/{k}",
                suite_label=name,
            )
            out.append(ep.to_row()["spec"])
        return out

    def mk(**kw):
        return stream("lab", shards=1, **kw)

    return ref, mk, 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="synthetic", choices=["synthetic", "protocols", "lab"])
    ap.add_argument(
        "--n",
        type=int,
        default=None,
        help="instances per reader (default 24; lab 480: a lab episode costs ~0.5 ms, so 24 "
        "would time ~12 ms, mostly the stream's one-off start)",
    )
    ap.add_argument("--d", type=int, default=30, help="dimension of the drawn SCMs (synthetic)")
    ap.add_argument("--setting", default="obs", choices=["obs", "obsint"])
    ap.add_argument(
        "--protocols", default="default", help="comma-separated protocols (protocols family)"
    )
    ap.add_argument("--release", default=None, help="release folder for the guard rows")
    ap.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds; each reader's best is kept"
    )
    args = ap.parse_args(argv)

    import numpy as np

    from causalarena.fingerprint import fingerprint
    from causalarena.generator.sample import sample
    from causalarena.loaders.stream import release_fingerprints
    from causalarena.spec import SCMSpec

    n, d = args.n or (480 if args.family == "lab" else 24), args.d
    ref, mk, per = _family(args)

    # warm-up (first-call imports and caches), outside the timed instances
    list(mk(seed=1).take(2 * per))
    ref(1, 2)
    specs = ref(0, n)
    folder = args.release
    if folder is None:
        from causalarena.release.engine import build

        suite = "lab-main" if args.family == "lab" else "arena-synthetic"
        tmp = tempfile.mkdtemp(prefix="bench-stream-")
        print(f"building the mini {suite} release for the guard rows", file=sys.stderr)
        folder = str(build(suite, scale="mini", out=Path(tmp) / "rel", quiet=True))
    t_idx, idx = _cpu(lambda: release_fingerprints(folder))

    readers = [("reference (plain loop)", lambda: ref(0, n))]
    if args.family == "synthetic":
        drawn = [SCMSpec.from_json(s) for s in specs]
        n_obs, n_int = (1000, 0) if args.setting == "obs" else (800, 200)
        readers.append(
            (
                "sample alone (drawn specs)",
                lambda: [
                    sample(s, n_obs, n_int, np.random.SeedSequence(k)) for k, s in enumerate(drawn)
                ],
            )
        )
    ds = mk(seed=0)
    m = min(n, 40)  # protocol rows hold the variant's spec, the reference the base draw's
    if args.family != "protocols" and [r["spec"] for r in ds.take(m)] != specs[:m]:
        raise SystemExit("the reference does not draw the stream's instances")
    readers.append(("stream python", lambda: list(ds.take(n * per))))
    if args.family != "lab":
        b = 8 * per
        readers.append(
            (
                "stream numpy B=8",
                lambda: list(islice(ds.with_format("numpy").iter(batch_size=b), n // 8)),
            )
        )
    dsg = mk(seed=0, exclude=[folder])
    readers.append(("stream + guard", lambda: list(dsg.take(n * per))))
    # rounds interleave the readers and keep each one's best time, so a load burst on the
    # shared machine does not land on one reader only
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, fn in readers:
            t, out = _cpu(fn)
            best[name] = min(best.get(name, t), t)
            if name == "stream + guard":
                got = out
    # a guarded stream reads the index once, at its first row (each reader call is a new
    # iteration): what its first row costs beyond an unguarded one's is taken off (the
    # index read alone is ~0.1 s, a quarter of the reader, and too noisy to subtract)
    t_start = min(_cpu(lambda: list(mk(seed=2).take(1)))[0] for _ in range(3))
    t_gstart = min(_cpu(lambda: list(mk(seed=2, exclude=[folder]).take(1)))[0] for _ in range(3))
    best["stream + guard"] -= max(0.0, t_gstart - t_start)
    if args.family == "synthetic" or args.family == "protocols":
        scale = {"stream numpy B=8": n / (8 * (n // 8))}
    else:
        scale = {}
    rows = [(name, best[name] * scale.get(name, 1.0)) for name, _ in readers]
    t_ref = best["reference (plain loop)"]
    skipped = sum(int(r["skipped_before"]) for r in got)
    t_fp, fps = _cpu(lambda: [fingerprint(s) for s in specs])
    t_look, _ = _cpu(lambda: [fp["exact"] in idx["exact"] for fp in fps for _ in range(100)])

    what = f"d={d} {args.setting}" if args.family == "synthetic" else ""
    if args.family == "protocols":
        what = f"d=30, protocols {args.protocols}"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\nfresh {args.family} stream {what}, n={n} instances, CPU clock, best of "
        f"{args.rounds} interleaved rounds (load average {load})"
    )
    print(f"{'reader':<28} {'inst/CPU-s':>11} {'vs reference':>13}")
    for name, t in rows:
        print(f"{name:<28} {n / t:>11.2f} {t_ref / t:>12.2f}x")
    print(f"{'stream start (one-off)':<28} {1000 * t_start:>9.2f} ms  (first row of a new stream)")
    print(f"{'guard per instance':<28} {1000 * t_fp / n:>9.2f} ms  (fingerprint, all levels)")
    print(f"{'guard lookup per instance':<28} {1e6 * t_look / (100 * n):>9.2f} us")
    print(
        f"{'guard index (one-off)':<28} {t_gstart - t_start:>9.2f} s  ({len(idx['exact'])} release SCMs, "
        f"first read {t_idx:.2f} s; "
        f"{skipped} stream instances rejected)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
