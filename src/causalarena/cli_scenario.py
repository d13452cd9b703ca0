"""``causalarena scenario check | new | list``: the scenario release gate and scaffolding."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

VERBS = ("scenario",)


def add_commands(subparsers: Any) -> None:
    """Register ``scenario`` and its sub-verbs on the main parser."""
    sp = subparsers.add_parser("scenario", help="check or scaffold semantic/formula scenarios")
    sub = sp.add_subparsers(dest="scenario_cmd", required=True)
    c = sub.add_parser(
        "check",
        help="run the release gate on scenario files (exit 1 on a blocking finding)",
    )
    c.add_argument(
        "files",
        nargs="*",
        help="YAML files or folders (default: every scenario shipped with the package)",
    )
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.add_argument("--quiet", action="store_true", help="no progress on stderr")
    n = sub.add_parser("new", help="write a scenario skeleton to fill in")
    n.add_argument("--family", required=True, choices=["semantic", "formula"])
    n.add_argument("--domain", required=True)
    n.add_argument("--id", default=None, help="scenario id (default: <domain>_new_scenario)")
    n.add_argument("--out", default=None, help="output file (default: ./<id>.yaml)")
    n.add_argument("--force", action="store_true", help="overwrite an existing file")
    sub.add_parser("list", help="list the scenarios shipped with the package")
    st = sub.add_parser("stats", help="pool statistics beside the paper's (variables, edges, mix)")
    st.add_argument("files", nargs="*", help="YAML files or folders (default: the shipped pool)")
    st.add_argument("--json", action="store_true", help="print JSON")


def dispatch(args: argparse.Namespace) -> int | None:
    """Run a scenario verb; ``None`` if ``args.cmd`` is not ``scenario``.

    Exit codes: 0 pass, 1 a blocking gate finding, 2 bad input (message names file/field).
    """
    if getattr(args, "cmd", None) not in VERBS:
        return None
    from causalarena.errors import CausalArenaError

    try:
        return _run(args)
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena scenario {args.scenario_cmd}: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from causalarena.generator.scenario.pool import scenario_files

    if args.scenario_cmd == "list":
        for f in scenario_files():
            print(f"{f.parent.parent.parent.name}/{f.parent.name}/{f.stem}")
        return 0
    if args.scenario_cmd == "stats":
        from causalarena.generator.scenario.schema import load_scenario
        from causalarena.generator.scenario.stats import format_stats, pool_stats

        files, refused = _files(args.files)
        if refused:
            f, why = refused[0]
            raise ValueError(f"{f} {why}")
        scs = [load_scenario(f) for f in files]
        stats = pool_stats(scs)
        print(json.dumps(stats, indent=2) if args.json else format_stats(stats))
        return 0
    if args.scenario_cmd == "new":
        from causalarena.generator.scenario.scaffold import template

        sid = args.id or f"{args.domain}_new_scenario"
        out = Path(args.out or f"{sid}.yaml")
        if out.exists() and not args.force:
            raise ValueError(f"{out} exists; pass --force to overwrite it")
        text = template(args.family, args.domain, sid, str(out))
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
        print(f"wrote {out}; fill in the TODOs, then: causalarena scenario check {out}")
        return 0
    from causalarena.generator.scenario.gate import (
        check_file,
        check_pool,
        format_report,
        refused_file,
    )
    from causalarena.ui import progress

    files, refused = _files(args.files)
    reports = [refused_file(f, why) for f, why in refused]
    scenarios = []
    with progress(args.quiet) as bar:  # stderr, and only on a terminal (or --progress)
        task = bar.add_task("scenario check", total=len(files))
        for f in files:
            bar.update(task, description=f"checking {f.name}")
            rep, sc = check_file(f)
            reports.append(rep)
            if sc is not None and rep.graph is not None:
                scenarios.append(sc)
            bar.advance(task)
    pool = check_pool(reports, scenarios)
    if args.json:
        print(
            json.dumps(
                {
                    "scenarios": [r.as_dict() for r in reports],
                    "pool": [f.__dict__ for f in pool],
                },
                indent=2,
            )
        )
    else:
        print(format_report(reports, pool))
    blocked = any(r.blocking for r in reports) or any(f.blocking for f in pool)
    return 1 if blocked else 0


def _files(paths: list[str]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """YAML files named or found in folders (default: the shipped pool), and the refused
    links out of a folder (see :func:`~causalarena.generator.scenario.pool.find_scenario_files`).

    Raises
    ------
    ValueError
        A path that does not exist.
    """
    from causalarena.generator.scenario.pool import find_scenario_files, scenario_files

    return find_scenario_files(list(paths) or [str(f) for f in scenario_files()])
