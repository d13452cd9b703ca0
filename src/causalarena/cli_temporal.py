"""``causalarena temporal import-dotime DIR --out OUT``: DoTime suite folders as releases."""

from __future__ import annotations

import argparse
import sys
from typing import Any

VERBS = ("temporal",)


def add_commands(subparsers: Any) -> None:
    """Register ``temporal`` and its sub-verbs on the main parser."""
    t = subparsers.add_parser("temporal", help="temporal suites: import DoTime suite folders")
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


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``temporal ...``; None when the verb is not ours."""
    if getattr(args, "cmd", None) != "temporal":
        return None
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
