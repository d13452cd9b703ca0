"""``causalarena temporal ...``: DoTime interoperability.

``import-dotime DIR --out OUT``   a DoTime suite folder as a release of this package.
``evaluate RELEASE --config C --model SPEC|--baseline NAME [--submission OUT.json]``
                                  score a model with the sealed harness; write the result as
                                  DoTime's ``ctp-submission/1`` leaderboard file.
``check-submission FILE``         read a ``ctp-submission/1`` file (DoTime's or ours).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

VERBS = ("temporal",)


def add_commands(subparsers: Any) -> None:
    """Register ``temporal`` and its sub-verbs on the main parser."""
    t = subparsers.add_parser(
        "temporal", help="temporal suites: DoTime import, evaluation and ctp-submission/1 files"
    )
    sub = t.add_subparsers(dest="temporal_cmd", required=True)
    i = sub.add_parser(
        "import-dotime",
        help="convert a DoTime suite folder (schema 1 or 2) into a release of this package",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    i.add_argument("dir", help="DoTime suite folder (manifest.json + shard-*.parquet)")
    i.add_argument("--out", required=True, help="release folder to write")
    i.add_argument(
        "--time-encoding",
        default=None,
        choices=["step", "index/T", "index/(T-1)", "time/span"],
        help="query_time encoding (default: the one DoTime declares for the suite's name)",
    )
    i.add_argument("--workers", type=int, default=1)
    i.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    e = sub.add_parser(
        "evaluate",
        help="score a model on a temporal config (sealed harness); write ctp-submission/1",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    e.add_argument("release", help="release folder (built dot-* suite)")
    e.add_argument("--config", required=True, help="config (suite name, or its DoTime name)")
    g = e.add_mutually_exclusive_group(required=True)
    g.add_argument("--model", help="import spec 'module:attr' or 'file.py:attr' (sandboxed)")
    g.add_argument("--baseline", help="a baseline of causalarena.baselines.temporal (trusted)")
    e.add_argument("--name", default=None, help="display name (default: the model's)")
    e.add_argument("--limit", type=int, default=None, help="score the first N episodes only")
    e.add_argument("--timeout", type=float, default=None, help="seconds for the model's run")
    e.add_argument(
        "--dir-target", default="auto", choices=["auto", "level", "effect"], help="dir_acc target"
    )
    e.add_argument("--submission", default=None, help="write the ctp-submission/1 JSON here")
    e.add_argument(
        "--no-verify",
        action="store_true",
        help="score shards without checking them against manifest.json (a folder that is not a "
        "release, e.g. hand-made shards); a release is always checked by default",
    )
    c = sub.add_parser(
        "check-submission",
        help="read a ctp-submission/1 file (written by dotime or causalarena) and summarise it",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    c.add_argument("file", help="the submission JSON")


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``temporal ...``; None when the verb is not ours."""
    if getattr(args, "cmd", None) != "temporal":
        return None
    if args.temporal_cmd == "evaluate":
        return _evaluate(args)
    if args.temporal_cmd == "check-submission":
        return _check(args)
    from causalarena.errors import CausalArenaError
    from causalarena.release.engine import build

    if args.workers < 1:
        print(
            f"causalarena temporal: error: --workers must be >= 1, got {args.workers}",
            file=sys.stderr,
        )
        return 2
    try:
        out = build(
            "dotime-import",
            scale="full",
            out=args.out,
            workers=args.workers,
            quiet=args.quiet,
            dotime_dir=args.dir,
            time_encoding=args.time_encoding,
        )
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena temporal import-dotime: error: {exc}", file=sys.stderr)
        return 2
    print(f"imported {args.dir} into {out}")
    return 0


def _line(d: dict) -> str:
    p = d["pooled"]

    def f(v):
        return "n/a" if v is None else f"{v:.4f}"

    return (
        f"{d['suite']} | {d['model'] or 'unnamed model'}: {d['n_episodes']} episodes, "
        f"{d['n_queries']} queries; "
        f"rmse {f(p['rmse'])}, mae {f(p['mae'])}, nmse {f(p['nmse'])}, r2 {f(p['r2'])}, "
        f"dir_acc ({d['dir_target']}) {f(p['dir_acc'])} +- {f(p['dir_acc_se'])}"
    )


def _check(args: argparse.Namespace) -> int:
    from causalarena.eval.temporal_submission import SubmissionError, read_submission

    try:
        d = read_submission(args.file)
    except SubmissionError as exc:
        print(f"causalarena temporal check-submission: error: {exc}", file=sys.stderr)
        return 2
    print(_line(d))
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from causalarena.eval.temporal import HarnessError, evaluate, load_rows
    from causalarena.eval.temporal_submission import write_submission
    from causalarena.generator.temporal.suites import resolve_suite_name

    err = "causalarena temporal evaluate: error:"
    if args.limit is not None and args.limit < 1:
        print(f"{err} --limit must be >= 1, got {args.limit}", file=sys.stderr)
        return 2
    try:
        config = resolve_suite_name(args.config)
    except ValueError as exc:
        print(f"{err} {exc}", file=sys.stderr)
        return 2
    if args.submission and Path(args.submission).is_dir():  # refused before any scoring
        print(
            f"{err} --submission {args.submission}: is a folder; name a .json file", file=sys.stderr
        )
        return 2
    folder = Path(args.release)
    if not (folder / "data" / config).is_dir():
        print(f"{err} {folder} has no config {config!r} (data/{config}/)", file=sys.stderr)
        return 2
    from causalarena.errors import CausalArenaError

    try:
        rows = load_rows(folder, config, limit=args.limit, verify=not args.no_verify)
    except (CausalArenaError, OSError) as exc:  # no manifest, or shards disagreeing with it
        print(f"{err} {exc} (--no-verify scores shards that are not a release)", file=sys.stderr)
        return 2
    if not rows:
        print(f"{err} config {config!r} of {folder} has no episodes", file=sys.stderr)
        return 2
    if args.baseline is not None:
        from causalarena.baselines.temporal import EFFECT_BASELINES

        if args.baseline not in EFFECT_BASELINES:
            known = ", ".join(sorted(EFFECT_BASELINES))
            print(f"{err} unknown baseline {args.baseline!r}; known: {known}", file=sys.stderr)
            return 2
        model, iso = EFFECT_BASELINES[args.baseline](), "none"
    else:
        model, iso = args.model, "process"
    try:
        res = evaluate(
            model,
            rows,
            isolation=iso,
            timeout=args.timeout,
            release=folder,
            name=args.name,
            dir_target=args.dir_target,
        )
    except (HarnessError, ValueError) as exc:
        print(f"{err} {exc}", file=sys.stderr)
        return 2
    sub = res["dotime"]
    print(_line(sub))
    if args.submission:
        write_submission(sub, args.submission)
        print(f"wrote {args.submission}")
    return 0
