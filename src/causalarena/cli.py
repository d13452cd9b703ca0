"""Build, verify, publish and score causal-discovery benchmark suites.

Start with `causalarena demo` (a mini suite built, loaded and scored), `causalarena
suites` (what can be built) and `causalarena <verb> --help`.  Adjacency convention
everywhere: A[i, j] = 1 iff edge i -> j (row = parent, column = child).
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Verb modules with ``add_commands(subparsers)`` and ``dispatch(args) -> int | None``.
_VERB_MODULES = ("causalarena.cli_suites", "causalarena.cli_export", "causalarena.cli_download")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="causalarena", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build a suite into a Hugging Face dataset folder")
    b.add_argument(
        "suite",
        help="suite name (`causalarena suites` lists them all): arena-synthetic, "
        "arena-semantic, arena-formula, real (public real tables), dot-<name> "
        "(temporal suites: dot-generic, dot-identifiability, ...) or dot (all), "
        "arena-samplesize, arena-protocols (protocol-sensitivity suites), lab-<name>",
    )
    b.add_argument("--scale", default="mini", choices=["mini", "full"])
    b.add_argument("--out", default="release", help="output folder (default: release)")
    b.add_argument(
        "--workers", type=int, default=1, help="worker processes (bytes do not depend on it)"
    )
    b.add_argument(
        "--scheduler",
        default="local",
        help="local (default: --workers processes here) or a dask.distributed scheduler "
        "address, e.g. tcp://host:8786 (docs/distributed.md; bytes do not depend on it)",
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.add_argument(
        "--real-data-dir",
        default=None,
        help="real: folder with local copies of the source files (else download)",
    )
    b.add_argument(
        "--no-download",
        action="store_true",
        help="real: never download; report missing files instead",
    )
    b.add_argument(
        "--reserved-key",
        default=None,
        metavar="KEYFILE",
        help="build the reserved (held-out) half from this secret key into --out, a folder "
        "that is never published (any suite with a reserved half; resumes after a kill)",
    )
    i = sub.add_parser("info", help="print the summary table of a release folder")
    i.add_argument("folder", metavar="RELEASE")
    i.add_argument("--json", action="store_true", help="print the release facts as JSON")
    v = sub.add_parser("verify", help="check a release folder against its manifest")
    v.add_argument("folder")
    r = sub.add_parser("run", help="run causal-discovery methods on a released config")
    from causalarena.cli_run import add_run_arguments

    add_run_arguments(r)
    rp = sub.add_parser(
        "report", help="score predictions and write tables, plots and a leaderboard page"
    )
    rp.add_argument(
        "pred_dir",
        nargs="+",
        help="predictions folder(s); several (e.g. of arena-synthetic, arena-semantic and "
        "arena-formula) make one report whose Table 2 has every family",
    )
    rp.add_argument("--out", required=True, help="report folder")
    rp.add_argument("--release", default=None, help="release folder (default: the one in run.json)")
    from causalarena import cli_report

    cli_report.add_report_options(rp)  # --priors, --reference-methods, --no-ood, --runtime, ...
    cli_report.add_commands(sub)  # runtime
    rp.add_argument("--workers", type=int, default=2, help="processes scoring predictions")
    rp.add_argument(
        "--max-d",
        type=int,
        default=None,
        help="evaluate only instances with at most this many variables (coverage and the "
        "empty-graph fallback are over that subset; default: every instance of the config)",
    )
    me = sub.add_parser("methods", help="list baseline methods and whether they can run here")
    me.add_argument("--json", action="store_true", help="print a JSON list, one object per method")
    from causalarena.cli_release import add_commands

    add_commands(
        sub
    )  # release freeze/set-doi/metadata/validate, publish, verify --rebuild/--reveal
    from causalarena.cli_lab import add_commands as add_lab

    add_lab(sub)  # lab list/run/serve/schema/play/stats
    from causalarena.cli_scenario import add_commands as add_scenario_commands

    add_scenario_commands(sub)  # scenario check/new/list
    from causalarena import cli_score

    cli_score.add_commands(sub)  # causalarena score PRED --release DIR
    from causalarena import cli_overlap

    cli_overlap.add_commands(sub)  # causalarena overlap CORPUS|STREAM.json --release DIR
    from causalarena import cli_temporal

    cli_temporal.add_commands(sub)  # causalarena temporal import-dotime DIR --out OUT
    dm = sub.add_parser("demo", help="build the mini arena, load it back with datasets, summarise")
    dm.add_argument("--out", default="release")
    dm.add_argument("--workers", type=int, default=2)
    dm.add_argument("--quiet", action="store_true")
    for mod in _VERB_MODULES:  # suites, export, download
        importlib.import_module(mod).add_commands(sub)
    from causalarena.cli_common import apply_conventions

    return apply_conventions(p)  # --version, -q/-v/--progress on every verb, defaults in help


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``causalarena`` console script; returns the exit code.

    Exit codes: 0 success; 1 ``verify`` found problems; 2 bad input (message names the file,
    field or value); 3 unexpected internal error; 130 interrupted (rerun to resume).
    """
    args = _parser().parse_args(argv)
    import os

    from causalarena._extras import MissingExtraError
    from causalarena.cli_common import error_text, setup_from_args

    setup_from_args(args)

    try:
        from causalarena.cli_lab import dispatch as dispatch_lab
        from causalarena.cli_release import dispatch
        from causalarena.cli_score import dispatch as dispatch_score

        rc = dispatch(args)
        rc = dispatch_lab(args) if rc is None else rc
        rc = dispatch_score(args) if rc is None else rc
        if rc is None:
            from causalarena.cli_overlap import dispatch as dispatch_overlap

            rc = dispatch_overlap(args)
        if rc is None:
            from causalarena.cli_temporal import dispatch as dispatch_temporal

            rc = dispatch_temporal(args)
        if rc is None:
            from causalarena.cli_scenario import dispatch as scenario_dispatch

            rc = scenario_dispatch(args)
        for mod in _VERB_MODULES:
            rc = importlib.import_module(mod).dispatch(args) if rc is None else rc
        return _dispatch(args) if rc is None else rc
    except BrokenPipeError:  # stdout closed early (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(
            f"causalarena {args.cmd}: interrupted; finished work is kept, rerun the same "
            "command to resume",
            file=sys.stderr,
        )
        return 130
    except MissingExtraError as exc:  # an optional extra is not installed: one line naming it
        if os.environ.get("CAUSALARENA_DEBUG"):
            raise
        print(f"causalarena {args.cmd}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: one line, traceback on request
        if os.environ.get("CAUSALARENA_DEBUG"):
            raise
        print(
            f"causalarena {args.cmd}: internal error: {type(exc).__name__}: {error_text(exc)} "
            "(set CAUSALARENA_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 3


def _dispatch(args: argparse.Namespace) -> int:
    from causalarena.errors import CausalArenaError

    try:
        if args.cmd == "build":
            from causalarena.cli_common import unknown_name
            from causalarena.cli_suites import all_suites

            if args.suite.startswith("dot-") and args.suite != args.suite.lower():
                from causalarena.generator.temporal.suites import resolve_suite_name

                args.suite = resolve_suite_name(args.suite)  # a DoTime suite name
            known = all_suites()
            if args.suite not in (*known, "real", "dot"):
                raise unknown_name("suite", args.suite, [*known, "real", "dot"], "suite")
        if args.cmd == "build" and getattr(args, "reserved_key", None):
            from causalarena.release.cluster import is_local
            from causalarena.release.reserved import build_reserved

            if not is_local(args.scheduler):
                raise ValueError(
                    f"--scheduler {args.scheduler}: reserved builds run on this machine only "
                    "(the secret key never leaves it); use --scheduler local"
                )

            out = build_reserved(
                args.suite,
                scale=args.scale,
                key_file=args.reserved_key,
                out=args.out,
                workers=args.workers,
                quiet=args.quiet,
            )
            print(
                f"built the reserved half of {args.suite} ({args.scale}) into {out}; "
                "never publish this folder",
                file=sys.stderr,
            )
        elif args.cmd == "build" and args.suite in ("real", "arena-real"):
            from causalarena.release.engine import build
            from causalarena.release.manifest import read_manifest

            out = build(
                "arena-real",
                scale="full",
                out=args.out,
                quiet=args.quiet,
                real_data_dir=args.real_data_dir,
                download=not args.no_download,
            )
            m = read_manifest(out)
            for name, info in sorted(m["datasets"].items()):
                print(f"built {name}: {info}")
            for name, why in sorted(m["unavailable"].items()):
                print(f"unavailable {name}: {why}", file=sys.stderr)
        elif args.cmd == "build":
            from causalarena.release.engine import build
            from causalarena.summary import print_summary

            suite = "dot-all" if args.suite == "dot" else args.suite
            out = build(
                suite,
                scale=args.scale,
                out=args.out,
                workers=args.workers,
                quiet=args.quiet,
                scheduler=args.scheduler,
            )
            print(f"built {args.suite} ({args.scale}) into {out}", file=sys.stderr)
            if not args.quiet:
                print_summary(out)
        elif args.cmd == "demo":
            from causalarena.demo import run_demo

            run_demo(args.out, workers=args.workers, quiet=args.quiet)
        elif args.cmd == "run":
            from causalarena.cli_run import run_command

            return run_command(args)
        elif args.cmd == "report":
            from causalarena.cli_report import run_report

            return run_report(args)
        elif args.cmd == "runtime":
            from causalarena.cli_report import run_runtime

            return run_runtime(args)
        elif args.cmd == "methods":
            from causalarena.baselines.registry import (
                all_method_infos,
                load_plugins,
                missing_methods,
            )

            load_plugins()  # methods registered by $CAUSALARENA_METHODS modules
            missing = missing_methods()
            if args.json:
                import json

                rows = [
                    {
                        "method": name,
                        "family": info.family,
                        "supports_interventions": bool(info.supports_interventions),
                        "output_graph": info.output_graph,
                        "available": name not in missing,
                        "missing": missing.get(name),
                    }
                    for name, info in sorted(all_method_infos().items())
                ]
                print(json.dumps(rows, indent=2))
                return 0
            from rich.console import Console
            from rich.table import Table
            from rich.text import Text

            table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
            for col in ("method", "family", "interventions", "output", "state"):
                table.add_column(col, no_wrap=True)
            for name, info in sorted(all_method_infos().items()):
                state = "available" if name not in missing else f"missing: {missing[name]}"
                cells = (name, info.family, str(info.supports_interventions), info.output_graph)
                table.add_row(*(Text(c) for c in (*cells, state)))  # Text: no markup in "[extra]"
            console = Console(highlight=False)
            if console.is_terminal:
                console.print(table)
            else:  # piped: full rows (no 80-column truncation), no trailing padding
                wide = Console(width=10_000, highlight=False, no_color=True)
                with wide.capture() as cap:
                    wide.print(table)
                print("\n".join(ln.rstrip() for ln in cap.get().splitlines()))
        elif args.cmd == "info" and args.json:
            import json

            from causalarena.cli_common import release_facts

            print(json.dumps(release_facts(args.folder), indent=2, default=str))
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
    except (CausalArenaError, ValueError, KeyError, OSError, ImportError) as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        from causalarena.cli_common import error_text

        print(f"causalarena {args.cmd}: error: {error_text(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
