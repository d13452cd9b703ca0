"""``causalarena overlap SOURCE --release DIR``: the pretraining-overlap disclosure."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

VERBS = ("overlap",)


def add_commands(subparsers: Any) -> None:
    """Register ``overlap`` on the main parser."""
    o = subparsers.add_parser(
        "overlap",
        help="how many test instances a pretraining corpus or stream reproduces",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    o.add_argument(
        "source",
        help="corpus folder (Parquet with spec/scm/adjacency, .npz with g/adjacency) or a "
        "JSON stream configuration {family, seed, n, ...}",
    )
    o.add_argument("--release", action="append", required=True, help="release folder (repeatable)")
    o.add_argument("-n", type=int, default=None, help="stream instances to draw (stream only)")
    o.add_argument("--json", action="store_true", help="print the report as JSON")
    o.add_argument("--out", default=None, help="also write the JSON report to this file")


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``overlap``; None when the verb is not ours."""
    if getattr(args, "cmd", None) != "overlap":
        return None
    from causalarena.errors import CausalArenaError
    from causalarena.eval.overlap import format_overlap, overlap, to_json

    if args.n is not None and args.n < 1:
        print(f"causalarena overlap: error: -n must be >= 1, got {args.n}", file=sys.stderr)
        return 2
    try:
        rep = overlap(args.source, args.release, n=args.n, quiet=getattr(args, "quiet", False))
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena overlap: error: {exc}", file=sys.stderr)
        return 2
    text = to_json(rep)
    if args.out:
        from causalarena.release.io import atomic_write_bytes

        atomic_write_bytes(Path(args.out), (text + "\n").encode())
    print(text if args.json else format_overlap(rep))
    return 0
