"""``causalarena lab ...``: play, serve and run lab episodes (CausaLab; issue 12).

Verbs:

- ``lab list`` - suites and configs;
- ``lab run --agent NAME --suite SUITE [--config C] [--scale mini|full] [--out DIR]`` - play
  a whole suite with progress, one result row per episode, then print a summary table;
- ``lab serve --episode ID`` - the JSON-lines protocol on stdin/stdout
  (:mod:`causalarena.generator.lab.protocol`);
- ``lab schema`` - print the protocol's JSON Schema;
- ``lab play --episode ID`` - a person at a terminal;
- ``lab stats`` - graph statistics per size beside appendix Table 1 and the public release;
- ``lab report RESULTS --out DIR`` - a leaderboard per suite with bootstrap CIs and trajectory
  plots (:mod:`causalarena.eval.lab_report`; `causalarena report RESULTS` does the same).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_commands(subparsers: Any) -> None:
    """Register ``lab`` and its verbs on the CLI's subparsers."""
    lab = subparsers.add_parser("lab", help="lab episodes: run agents, serve, play")
    ls = lab.add_subparsers(dest="lab_cmd", required=True)
    ls.add_parser("list", help="list lab suites and configs")
    r = ls.add_parser("run", help="play a suite with an agent (random, scientist)")
    r.add_argument("--agent", required=True)
    r.add_argument("--suite", default=None, help="generated suite or lab-causalab-v0.0.2")
    r.add_argument(
        "--release", default=None, help="or: a built lab release folder (needs --config)"
    )
    r.add_argument("--config", default=None)
    r.add_argument("--scale", default="full", choices=["mini", "full"])
    r.add_argument("--out", default=None, help="results folder (<out>/<agent>.jsonl, resumable)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--data-dir", default=None, help="public CausaLab release folder")
    r.add_argument("--quiet", action="store_true")
    s = ls.add_parser("serve", help="JSON-lines protocol on stdin/stdout for one episode")
    s.add_argument("--episode", required=True, help="<suite>/<config>/<index>")
    s.add_argument(
        "--data-dir",
        default=None,
        help="public CausaLab release folder (lab-causalab-v0.0.2 episodes only)",
    )
    ls.add_parser("schema", help="print the JSON Schema of the serve protocol")
    p = ls.add_parser("play", help="play one episode in the terminal")
    p.add_argument(
        "--episode", required=True, help="<suite>/<config>/<index>, e.g. lab-main/main-3nodes/000"
    )
    p.add_argument(
        "--data-dir",
        default=None,
        help="public CausaLab release folder (lab-causalab-v0.0.2 episodes only)",
    )
    rep = ls.add_parser(
        "report", help="leaderboard per suite and trajectory plots of `lab run --out` results"
    )
    rep.add_argument("results", help="folder written by `causalarena lab run --out`")
    rep.add_argument("--out", required=True, help="report folder")
    rep.add_argument("--seed", type=int, default=0, help="seed of the bootstrap CIs")
    st = ls.add_parser("stats", help="graph statistics per size vs appendix Table 1")
    st.add_argument(
        "--data-dir",
        default=None,
        help="public CausaLab release folder (lab-causalab-v0.0.2 episodes only)",
    )


def dispatch(args: argparse.Namespace) -> int | None:
    """Run a lab verb; ``None`` if ``args.cmd`` is not ``lab``.  Errors: one line, exit 2."""
    if getattr(args, "cmd", None) != "lab":
        return None
    from causalarena.errors import CausalArenaError

    try:
        return _run(args)
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena lab {args.lab_cmd}: error: {exc}", file=sys.stderr)
        return 2


def run_lab_report(results: str, out: str, seed: int = 0, as_json: bool = False) -> int:
    """``causalarena lab report`` (also ``causalarena report`` on a lab results folder);
    ``as_json``: print ``{out, results, files}`` instead of the summary line."""
    from pathlib import Path

    from causalarena.eval.lab_report import write_lab_report

    paths = write_lab_report(results, out, seed=seed)
    if as_json:
        files = sorted(
            str(Path(p).relative_to(out)) if Path(p).is_absolute() else str(p) for p in paths
        )
        print(json.dumps({"out": str(out), "results": str(results), "files": files}, indent=2))
        return 0
    print(f"lab report written to {out} ({len(paths)} files); open {Path(out) / 'index.html'}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from causalarena.generator.lab.suites import LAB_SUITES, PUBLIC_SUITE, episodes, find_episode

    if args.lab_cmd == "list":
        for s in LAB_SUITES.values():
            print(f"{s.name} {s.version}: {', '.join(c.name for c in s.configs)}")
        from causalarena.generator.lab.causalab import FILES

        print(f"{PUBLIC_SUITE}: {', '.join(FILES)}")
        return 0
    if args.lab_cmd == "schema":
        from causalarena.generator.lab.protocol import SCHEMA

        print(json.dumps(SCHEMA, indent=2))
        return 0
    if args.lab_cmd == "serve":
        from causalarena.generator.lab.env import LabEnv
        from causalarena.generator.lab.protocol import bounded_lines, serve

        env = LabEnv(find_episode(args.episode, args.data_dir))
        try:
            serve(env, bounded_lines(sys.stdin.buffer), sys.stdout)
        except BrokenPipeError:  # the agent closed its end: nothing left to answer
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # quiet exit
            return 0
        return 0
    if args.lab_cmd == "play":
        from causalarena.generator.lab.env import LabEnv

        return _play(LabEnv(find_episode(args.episode, args.data_dir)))
    if args.lab_cmd == "report":
        return run_lab_report(args.results, args.out, args.seed)
    if args.lab_cmd == "stats":
        _stats(args.data_dir)
        return 0
    from causalarena.baselines.lab_agents import get_agent
    from causalarena.errors import LabError
    from causalarena.eval.lab_run import (
        format_summary,
        load_release_episodes,
        run_episodes,
        summarise,
    )

    get_agent(args.agent)
    if (args.suite is None) == (args.release is None):
        raise LabError("lab run: give exactly one of --suite and --release")
    if args.release is not None:
        if args.config is None:
            raise LabError("lab run --release needs --config (a folder under <release>/data/)")
        eps = load_release_episodes(args.release, args.config)
    else:
        got = episodes(args.suite, args.config, args.scale, args.data_dir)
        eps = [e for v in got.values() for e in v]
    rows = run_episodes(eps, args.agent, args.out, args.seed, args.quiet)
    print(format_summary(summarise(rows)))
    if args.out is not None:
        from pathlib import Path

        from causalarena.eval.lab_run import plot_trajectories

        png = plot_trajectories(rows, Path(args.out) / f"{args.agent}-trajectories.png")
        print(f"trajectory plot: {png}", file=sys.stderr)
    return 0


def _stats(data_dir: str | None) -> None:
    from causalarena.generator.lab.causalab import data_dir as find
    from causalarena.generator.lab.causalab import load_public
    from causalarena.generator.lab.graph import PAPER_TABLE1, graph_stats
    from causalarena.generator.lab.suites import episodes

    gen = episodes("lab-main")
    pub = load_public(data_dir, [f"{k}nodes" for k in PAPER_TABLE1]) if find(data_dir) else None
    print(
        f"{'nodes':>5s} {'source':10s} {'edge mean':>9s} {'edge var':>8s} {'fork':>6s} {'collider':>8s}"
    )
    for k, (em, ev, fm, cm) in PAPER_TABLE1.items():
        print(f"{k:5d} {'Table 1':10s} {em:9.2f} {ev:8.2f} {fm:6.2f} {cm:8.2f}")
        rows = [("lab-main", gen[f"main-{k}nodes"])]
        if pub:
            rows.append(("public", pub[f"{k}nodes"]))
        for name, eps in rows:
            st = graph_stats([e.edges for e in eps])
            print(
                f"{k:5d} {name:10s} {st['edge_mean']:9.2f} {st['edge_var']:8.2f} "
                f"{st['fork_mean']:6.2f} {st['collider_mean']:8.2f}"
            )


def _play(env) -> int:
    """Terminal play: commands ``obs``, ``set PROP VALUE``, ``reactor``, ``check JSON``,
    ``record JSON``, ``submit VALUE [JSON]``, ``help``, ``quit``."""
    from causalarena.errors import LabError

    d = env.describe()
    print(f"episode {d['episode_id']}: predict {d['target']} of the reactor crystal")
    print(f"properties: {', '.join(d['properties'])}; controllable: {', '.join(d['controllable'])}")
    print(f"budget {d['budget']} interventions, {d['max_submissions']} submissions; type 'help'")

    def show(r: dict) -> None:
        props = "  ".join(f"{k}={v:g}" for k, v in r["props"].items())
        print(f"  {r['id']:16s} {props}  {d['target']}={r['freq']:g}")

    for r in env.observations():
        show(r)
    print("reactor: " + "  ".join(f"{k}={v:g}" for k, v in env.reactor().items()))
    while not env.done:
        try:
            line = input("lab> ").strip()
        except EOFError:
            break
        cmd, _, rest = line.partition(" ")
        try:
            if cmd in ("quit", "exit"):
                break
            if cmd == "help":
                print(_play.__doc__)
            elif cmd == "obs":
                for r in env.observations():
                    show(r)
            elif cmd == "reactor":
                print("  ".join(f"{k}={v:g}" for k, v in env.reactor().items()))
            elif cmd == "set":
                prop, _, val = rest.partition(" ")
                try:
                    v = float(val)
                except ValueError:
                    raise LabError(f"set: value {val!r} is not a number") from None
                show(env.intervene(prop, v))
                print(f"  budget left: {env.describe()['budget_left']}")
            elif cmd in ("check", "record"):
                res = env.check(rest) if cmd == "check" else env.record(rest)
                print(json.dumps({k: v for k, v in res.items() if k != "residuals"}, indent=1))
            elif cmd == "submit":
                val, _, hyp = rest.partition(" ")
                try:
                    v = float(val)
                except ValueError:
                    raise LabError(f"submit: prediction {val!r} is not a number") from None
                res = env.submit(v, hyp or None)
                print(
                    "correct!"
                    if res["correct"]
                    else f"not within 5; {res['submissions_left']} left"
                )
            elif cmd:
                print(f"unknown command {cmd!r}; type 'help'")
        except LabError as exc:
            print(f"error: {exc}")
    return 0
