"""Command-line interface: ``causalarena build | info | verify``."""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="causalarena", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build a suite into a Hugging Face dataset folder")
    b.add_argument("suite", help="suite name, e.g. arena-synthetic")
    b.add_argument("--scale", default="mini", choices=["mini", "full"])
    b.add_argument("--out", default="release", help="output folder (default: release)")
    b.add_argument(
        "--workers", type=int, default=1, help="worker processes (bytes do not depend on it)"
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    i = sub.add_parser("info", help="print the summary table of a release folder")
    i.add_argument("folder")
    v = sub.add_parser("verify", help="check a release folder against its manifest")
    v.add_argument("folder")
    dm = sub.add_parser("demo", help="build the mini arena, load it back with datasets, summarise")
    dm.add_argument("--out", default="release")
    dm.add_argument("--workers", type=int, default=1)
    dm.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``causalarena`` console script; returns the exit code."""
    args = _parser().parse_args(argv)
    from causalarena.errors import CausalArenaError

    try:
        if args.cmd == "build":
            from causalarena.release.build import build
            from causalarena.summary import print_summary

            out = build(
                args.suite, scale=args.scale, out=args.out, workers=args.workers, quiet=args.quiet
            )
            print(f"built {args.suite} ({args.scale}) into {out}", file=sys.stderr)
            if not args.quiet:
                print_summary(out)
        elif args.cmd == "demo":
            from causalarena.demo import run_demo

            run_demo(args.out, workers=args.workers, quiet=args.quiet)
        elif args.cmd == "info":
            from causalarena.summary import print_summary

            print_summary(args.folder)
        elif args.cmd == "verify":
            from causalarena.release.verify import verify

            problems = verify(args.folder)
            for pr in problems:
                print(
                    f"{pr['problem']:8s} {pr['path']}  expected={pr['expected']} found={pr['found']}"
                )
            if problems:
                print(f"{len(problems)} problem(s) in {args.folder}", file=sys.stderr)
                return 1
            print(f"{args.folder}: every file matches manifest.json")
    except (CausalArenaError, ValueError) as exc:
        print(f"causalarena {args.cmd}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
