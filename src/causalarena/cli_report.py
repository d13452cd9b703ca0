"""CLI verbs of the report layer: ``causalarena report`` options and ``causalarena runtime``.

Registered from :mod:`causalarena.cli` with two lines; the argument parsing of ``report`` and
``runtime`` lives here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_report_options(rp: argparse.ArgumentParser) -> None:
    """Options of ``causalarena report`` beyond the predictions folder, --out and --release."""
    rp.add_argument(
        "--priors",
        default=None,
        help="pretraining-priors JSON for the OOD score (default: the audited file shipped "
        "with causalarena, see causalarena/eval/data/pretraining_priors.json)",
    )
    rp.add_argument(
        "--reference-methods",
        default=None,
        help="comma-separated OOD reference group (default: the paper's, CDIS/GIES/IGSP/PC, "
        "as far as they were run)",
    )
    rp.add_argument("--no-ood", action="store_true", help="skip the OOD score")
    rp.add_argument(
        "--no-edges", action="store_true", help="skip the edge-level mechanism/noise breakdown"
    )
    rp.add_argument(
        "--runtime",
        default=None,
        help="runtime_k.csv from `causalarena runtime`, added as the T(k) section",
    )
    rp.add_argument("--seed", type=int, default=0, help="seed of the bootstrap CIs")
    rp.add_argument(
        "--replicates",
        default=None,
        help="comma-separated replicate indices to evaluate (a documented subset like "
        "--max-d: coverage and the empty-graph fallback are over it; default: all)",
    )
    rp.add_argument(
        "--no-sid", action="store_true", help="skip SID and its CPDAG bounds (the costly metrics)"
    )
    rp.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object on stdout: the output folder, the files written and the "
        "leaderboard rows (leaderboard.csv; NaN as null)",
    )
    rp.add_argument(
        "--only-run-instances",
        action="store_true",
        help="Table 3 / Figure 6 (protocol and sample-size analyses) over the instances each "
        "method ran only, instead of scoring instances not run as the empty graph",
    )


def add_commands(sub) -> None:
    """Register ``causalarena runtime``."""
    rt = sub.add_parser(
        "runtime",
        help="nested-k runtime harness: fit T(k) = T_fixed + k T_graph per method (Table 5)",
    )
    rt.add_argument("--release", required=True, help="release folder")
    rt.add_argument("--config", default="synthetic-obs")
    rt.add_argument("--methods", required=True, help="comma-separated method names")
    rt.add_argument("--k", default="1,2,4,8", help="comma-separated sample sizes (default 1,2,4,8)")
    rt.add_argument("--d", default="10", help="comma-separated dimensions (default 10)")
    rt.add_argument("--timeout", type=float, default=600.0, help="seconds per harness point")
    rt.add_argument("--out", default="runtime_k.csv", help="CSV of the harness points")
    rt.add_argument("--seed", type=int, default=0)
    rt.add_argument("--quiet", action="store_true")


def _ints(text: str, option: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{option}: expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise ValueError(f"{option}: expected positive integers, got {text!r}")
    return values


def run_runtime(args: argparse.Namespace) -> int:
    """``causalarena runtime``: write the harness points and print the fits."""
    from causalarena.eval.analyses import runtime_k_fits
    from causalarena.eval.timing import nested_k_runtime

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise ValueError("--methods: name at least one method")
    points = nested_k_runtime(
        args.release,
        args.config,
        methods,
        ks=_ints(args.k, "--k"),
        dims=_ints(args.d, "--d"),
        seed=args.seed,
        timeout=args.timeout,
        quiet=args.quiet,
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    points.to_csv(out, index=False)
    fits = runtime_k_fits(points)
    print(f"{'method':20s} {'d':>5s} {'T_fixed (s)':>12s} {'T_graph (s)':>12s} {'R2':>6s}")
    for r in fits.itertuples():
        print(f"{r.method:20s} {r.d!s:>5s} {r.t_fixed_s:12.4g} {r.t_graph_s:12.4g} {r.r2:6.3f}")
    bad = points[points["status"] != "ok"]
    for r in bad.itertuples():
        print(f"{r.method} d={r.d} k={r.k}: {r.status} {r.error or ''}".strip(), file=sys.stderr)
    print(f"points written to {out}", file=sys.stderr)
    return 0


def _note_run_subset(
    pred_dir: str,
    max_d: int | None,
    replicates: str | None,
    what: str = "the report covers",
    options: tuple[str, ...] = ("--max-d", "--replicates"),
) -> None:
    """Say on stderr when every run of a folder used one ``--max-d``/``--replicates`` subset
    that the report is not restricted to (the other instances score as missing, empty-graph
    fallback; the coverage rule of issue 10 §1).  ``what`` names the output (``causalarena
    score``: "the scores cover"); ``options`` are the ones the command has."""
    from causalarena.safejson import loads

    try:
        doc = loads((Path(pred_dir) / "run.json").read_text(encoding="utf-8"))
        runs = [m for c in doc["runs"].values() for m in c["methods"].values()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return
    for key, option, given in (
        ("max_d", "--max-d", max_d),
        ("replicates", "--replicates", replicates),
    ):
        vals = {json_key(r.get(key)) for r in runs if isinstance(r, dict)}
        if len(vals) == 1 and None not in vals and given is None:
            (val,) = vals
            advice = (
                f"Pass {option} {val} to evaluate that subset."
                if option in options
                else f"causalarena report {option} {val} evaluates that subset."
            )
            print(
                f"note: every run in {pred_dir} used {option} {val} (run.json); {what} "
                f"the whole config, so the other instances score as missing (the empty graph). "
                + advice,
                file=sys.stderr,
            )


def json_key(v) -> str | None:
    """A hashable, printable form of a run.json subset value (None stays None)."""
    if v is None:
        return None
    if isinstance(v, list):
        return ",".join(str(x) for x in v)
    return str(v)


def run_report(args: argparse.Namespace) -> int:
    """``causalarena report``: score, OOD with the audited priors, edges, T(k), write pages."""
    import pandas as pd

    from causalarena.eval.edges import edge_counts
    from causalarena.eval.lab_report import is_lab_results
    from causalarena.eval.priors import coverage_table, load_priors
    from causalarena.eval.report import write_report
    from causalarena.eval.score import release_of, score_predictions

    dirs = [args.pred_dir] if isinstance(args.pred_dir, str) else list(args.pred_dir)
    if len(dirs) == 1 and is_lab_results(dirs[0]):  # `lab run --out`: the lab leaderboards
        from causalarena.cli_lab import run_lab_report

        return run_lab_report(dirs[0], args.out, args.seed, as_json=getattr(args, "json", False))
    if len(dirs) > 1 and args.release:
        raise ValueError(
            "--release: give it with one predictions folder only (with several, each "
            "folder's run.json names its release)"
        )
    seen: dict = {}
    for d in dirs:  # the same predictions twice would count every instance twice
        key = Path(d).resolve()
        if key in seen:
            raise ValueError(
                f"predictions folder {d} is given twice (also as {seen[key]}); give each once"
            )
        seen[key] = d
    releases = [args.release or release_of(d) for d in dirs]
    for d in dirs:
        _note_run_subset(d, getattr(args, "max_d", None), getattr(args, "replicates", None))
    from causalarena.cli_common import refuse_out_inside

    refuse_out_inside(args.out, releases)
    # a report inside a predictions folder would be read as predictions by the next report
    refuse_out_inside(
        args.out,
        dirs,
        kind="predictions folder",
        why="the report would be read as predictions next time",
    )
    if Path(args.out).exists() and not Path(args.out).is_dir():
        from causalarena.cli_common import UsageError

        raise UsageError("--out", args.out, "is an existing file; give a folder")
    reps = getattr(args, "replicates", None)
    if reps is not None:
        try:
            reps = [int(r) for r in reps.split(",") if r.strip()]
        except ValueError:
            print(f"error: --replicates {args.replicates}: not a list of integers", file=sys.stderr)
            return 2
        if not reps:
            print("error: --replicates is empty", file=sys.stderr)
            return 2
    scores = pd.concat(
        [
            score_predictions(
                rel,
                d,
                workers=max(1, getattr(args, "workers", 1)),
                max_d=getattr(args, "max_d", None),
                replicates=reps,
                sid=not getattr(args, "no_sid", False),
            )
            for rel, d in zip(releases, dirs, strict=True)
        ],
        ignore_index=True,
    )
    present = set(scores["method"].dropna())
    kwargs: dict = {"seed": args.seed}
    if getattr(args, "only_run_instances", False):
        kwargs["only_run_instances"] = True
    if not args.no_ood:
        priors = load_priors(args.priors)
        refs = (
            [m.strip() for m in args.reference_methods.split(",") if m.strip()]
            if args.reference_methods
            else list(priors.reference_methods)
        )
        refs_here = [r for r in refs if r in present]
        audited = {m: c for m, c in priors.audited().items() if m in present}
        kwargs["prior_coverage"] = coverage_table(priors).assign(priors_version=priors.version)
        if audited and refs_here:
            kwargs.update(priors=audited, reference_methods=refs_here)
            missing = sorted(set(refs) - set(refs_here))
            if missing:
                print(
                    f"OOD reference group without {', '.join(missing)} (not in the predictions)",
                    file=sys.stderr,
                )
        else:
            why = (
                "no predictions of a method with audited priors "
                f"({', '.join(sorted(priors.audited()))})"
                if not audited
                else f"no reference method ({', '.join(refs)}) in the predictions"
            )
            print(f"OOD score skipped: {why}", file=sys.stderr)
    if not args.no_edges:
        parts = [edge_counts(rel, d) for rel, d in zip(releases, dirs, strict=True)]
        parts = [e for e in parts if not e.empty]
        if parts:
            kwargs["edges"] = pd.concat(parts, ignore_index=True)
    if args.runtime:
        kwargs["runtime_points"] = pd.read_csv(args.runtime)
    paths = write_report(
        scores,
        args.out,
        title=f"causalarena leaderboard ({', '.join(Path(r).name for r in releases)})",
        **kwargs,
    )
    if getattr(args, "json", False):
        print(_report_json(args.out, paths, releases))
        return 0
    print(
        f"report written to {args.out} ({len(paths)} files); open {Path(args.out) / 'index.html'}"
    )
    return 0


def _report_json(out: str, paths: dict, releases: list) -> str:
    """``report --json``: ``{"out", "releases", "files", "leaderboard"}`` (schema in the
    README); the leaderboard rows are ``leaderboard.csv``'s, NaN written as null."""
    import json
    import math

    import pandas as pd

    board = pd.read_csv(Path(out) / "leaderboard.csv")
    rows = [
        {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
        for r in board.to_dict("records")
    ]
    doc = {
        "out": str(out),
        "releases": [str(r) for r in releases],
        "files": sorted(str(p) for p in paths),
        "leaderboard": rows,
    }
    return json.dumps(doc, indent=2, allow_nan=False, default=str)
