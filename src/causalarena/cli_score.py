"""``causalarena score PRED --release DIR``: score external predictions in the schema.

``PRED`` is one predictions file (its config is ``--config``, else its ``config`` column,
else the name of its folder) or a predictions folder ``<config>/<file>.parquet``.  Truth and
provenance come from the verified release (:mod:`causalarena.eval.score`).  Prints one line
per method and config (instances, coverage, F1 with the fallback and over ok runs only, SHD,
SID) and writes the per-instance scores with ``--out`` (``.parquet`` or ``.csv``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

VERBS = ("score",)


def add_commands(subparsers: Any) -> None:
    """Add ``score`` to the CLI's ``subparsers``."""
    s = subparsers.add_parser(
        "score", help="score a predictions file or folder against a verified release"
    )
    s.add_argument("pred", help="predictions Parquet file, or folder <config>/<file>.parquet")
    s.add_argument("--release", required=True, help="release folder holding the truth")
    s.add_argument("--config", default=None, help="config of a single file (default: its rows)")
    s.add_argument("--out", default=None, help="write the scores table (.parquet or .csv)")
    s.add_argument("--no-sid", action="store_true", help="skip SID and its bounds (faster)")
    s.add_argument(
        "--max-d",
        type=int,
        default=None,
        help="score only instances with at most this many variables (the subset a run with "
        "--max-d made; coverage and the empty-graph fallback are over it)",
    )
    s.add_argument(
        "--no-sid-bounds",
        action="store_true",
        help="skip the SID bounds of CPDAG predictions (their cost: one gadjid call per "
        "candidate parent set)",
    )
    s.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    s.add_argument("--quiet", action="store_true", help="print nothing but errors")


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``score``; None when ``args.cmd`` is another verb.  Bad input: one line, exit 2."""
    if getattr(args, "cmd", None) not in VERBS:
        return None
    from causalarena.errors import CausalArenaError

    try:
        return _run(args)
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena score: error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from causalarena.eval.score import score_file, score_predictions

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.max_d is not None and args.max_d < 1:
        raise ValueError(f"--max-d must be at least 1, got {args.max_d}")
    from causalarena.cli_common import refuse_out_inside

    refuse_out_inside(args.out, [args.release])
    if args.config is not None:  # unknown config: the list and a did-you-mean
        from causalarena.cli_common import check_config

        check_config(args.release, args.config)
    sid: bool | str = False if args.no_sid else ("no-bounds" if args.no_sid_bounds else True)
    pred = Path(args.pred)
    if pred.is_dir() and not args.quiet:  # the same coverage note as report's
        from causalarena.cli_report import _note_run_subset

        _note_run_subset(str(pred), args.max_d, None, "the scores cover", ("--max-d",))
    if pred.is_dir():
        if args.config is not None:
            scores = score_predictions(
                args.release,
                pred,
                workers=args.workers,
                sid=sid,
                configs=[args.config],
                max_d=args.max_d,
            )
        else:
            scores = score_predictions(
                args.release, pred, workers=args.workers, sid=sid, max_d=args.max_d
            )
    elif pred.is_file():
        scores = score_file(
            pred, args.release, config=args.config, workers=args.workers, sid=sid, max_d=args.max_d
        )
    else:
        raise FileNotFoundError(f"{pred}: no such predictions file or folder")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix == ".csv":
            flat = scores.copy()
            for c in flat.columns:
                if flat[c].map(lambda v: isinstance(v, list | tuple | np.ndarray)).any():
                    flat[c] = flat[c].map(
                        lambda v: (
                            ";".join(map(str, v)) if isinstance(v, list | tuple | np.ndarray) else v
                        )
                    )
            flat.to_csv(out, index=False)
        else:
            scores.to_parquet(out, index=False)
    if not args.quiet:
        print(_summary(scores))
        if args.out:
            print(f"scores written to {args.out}")
    return 0


def _summary(scores) -> str:
    """One line per (config, method): coverage and the main / ok-only means."""
    lines = [
        f"release {scores['release_version'].iloc[0]} (manifest sha256 "
        f"{scores['manifest_sha256'].iloc[0][:12]}...)",
        f"{'config':<18} {'method':<24} {'inst':>5} {'ok':>5} {'cover':>6} {'F1':>6} "
        f"{'F1 ok':>6} {'SHD':>7} {'SID':>8}",
    ]
    for (config, method), g in scores.groupby(["config", "method"], sort=True):
        ranked = g[g["scored_as"].notna()]
        ok = g[g["status"] == "ok"]
        lines.append(
            f"{config:<18} {method:<24} {len(g):>5} {len(ok):>5} "
            f"{len(ok) / len(g):>6.1%} {_m(ranked, 'f1', 3):>6} {_m(ok, 'f1', 3):>6} "
            f"{_m(ranked, 'shd', 1):>7} {_m(ranked, 'sid', 1):>8}"
        )
    lines.append(
        "F1/SHD/SID: every instance of the config, missing/failed/timed-out/invalid ones "
        "scored as the empty graph; F1 ok: ok runs only"
    )
    return "\n".join(lines)


def _m(frame, col: str, digits: int) -> str:
    v = frame[col].mean() if len(frame) else float("nan")
    return "–" if v != v else f"{v:.{digits}f}"
