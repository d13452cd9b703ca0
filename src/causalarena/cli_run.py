"""``causalarena run``: options (checked before anything runs) and the command.

Every bad option is a usage error (exit code 2) whose message names the option and the value:
values argparse can check alone are checked by the ``type`` functions here; those that need the
release (``--config``, ``--out``, ``--replicates``, ``--instances``) by
:func:`causalarena.eval.runner.run_methods`, which raises
:class:`~causalarena.eval.runner.RunOptionError`.
"""

from __future__ import annotations

import argparse
import math
import sys


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text}: must be a finite number of seconds > 0")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: must be a positive integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: must be a positive integer")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: must be an integer") from None


def _names(text: str) -> list[str]:
    names = list(dict.fromkeys(x.strip() for x in text.split(",") if x.strip()))
    if not names:
        shown = text if text.strip() else "(empty)"
        raise argparse.ArgumentTypeError(f"{shown}: name at least one (comma-separated)")
    return names


def _replicates(text: str) -> list[int]:
    out = []
    for part in _names(text):
        try:
            value = int(part)
        except ValueError:
            value = -1
        if value < 0:
            raise argparse.ArgumentTypeError(f"{part}: replicate indices are integers >= 0")
        out.append(value)
    return out


def _memory(text: str) -> str:
    from causalarena.eval.workers import parse_memory_limit

    try:
        parse_memory_limit(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_run_arguments(r: argparse.ArgumentParser) -> None:
    """Options of ``causalarena run``."""
    r.add_argument("release", nargs="?", metavar="RELEASE", help="release folder")
    r.add_argument(
        "--release",
        dest="release_option",
        default=None,
        metavar="RELEASE",
        help="the release folder (alias of the positional RELEASE, kept for one version)",
    )
    r.add_argument(
        "--config", required=True, help="one of the release's configs, e.g. synthetic-obs"
    )
    r.add_argument(
        "--methods",
        required=True,
        type=_names,
        help="comma-separated method names (see `causalarena methods`; plugins from "
        "$CAUSALARENA_METHODS)",
    )
    r.add_argument("--out", required=True, help="predictions folder (outside the release)")
    r.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=3600.0,
        help="wall-time budget in seconds per (method, instance) run (default 3600)",
    )
    r.add_argument(
        "--memory-limit",
        type=_memory,
        default="auto",
        help="resident memory per worker and its subprocesses, e.g. 4G, 512M, 40%% or none "
        "(default auto: 80%% of the machine's memory / --workers)",
    )
    r.add_argument("--workers", type=_positive_int, default=1, help="runs at once (default 1)")
    r.add_argument("--seed", type=_int, default=0, help="base seed (default 0)")
    r.add_argument(
        "--max-d", type=_positive_int, default=None, help="skip instances with more variables"
    )
    r.add_argument(
        "--replicates",
        type=_replicates,
        default=None,
        help="comma-separated replicate indices to run (default: all)",
    )
    r.add_argument(
        "--instances",
        type=_names,
        default=None,
        help="comma-separated instance ids to run (default: all)",
    )
    r.add_argument(
        "--isolation",
        choices=["process", "none"],
        default="process",
        help="process (default): warm isolated workers; none: in this process (debugging)",
    )
    r.add_argument(
        "--scheduler",
        default="local",
        help="local (default: --workers slots here) or a dask.distributed scheduler address, "
        "e.g. tcp://host:8786: each run in an isolated worker on a node (docs/distributed.md)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar")


def run_command(args: argparse.Namespace) -> int:
    """Run ``causalarena run``; returns the exit code (2 for a bad option)."""
    from causalarena.cli_common import UsageError, check_config, one_release, unknown_name

    try:  # names first, with a did-you-mean, before any worker starts
        args.release = one_release(args.release, getattr(args, "release_option", None))
        check_config(args.release, args.config)
        from causalarena.baselines.registry import all_method_infos, load_plugins

        load_plugins()
        known = all_method_infos()
        for m in args.methods:
            if m not in known:
                raise unknown_name("--methods", m, known, "method")
    except UsageError as exc:
        print(f"causalarena run: error: {exc}", file=sys.stderr)
        return 2
    from causalarena.release.cluster import is_local

    local = is_local(getattr(args, "scheduler", None))
    if args.isolation == "process" and local:  # its imports overlap with ours and the release
        from causalarena.eval.workers import preload_modules, start_fork_server

        start_fork_server(preload_modules(args.methods))
    from causalarena.errors import CausalArenaError
    from causalarena.eval.runner import RunOptionError, run_methods

    try:
        res = run_methods(
            args.release,
            args.config,
            args.methods,
            args.out,
            timeout=args.timeout,
            memory_limit=args.memory_limit,
            workers=args.workers,
            seed=args.seed,
            max_d=args.max_d,
            replicates=args.replicates,
            instances=args.instances,
            isolation=args.isolation,
            quiet=args.quiet,
            **({} if local else {"scheduler": args.scheduler}),
        )
    except RunOptionError as exc:
        print(f"causalarena run: error: {exc.cli_message()}", file=sys.stderr)
        return 2
    except (CausalArenaError, ImportError) as exc:  # e.g. an unreachable scheduler
        print(f"causalarena run: error: {exc}", file=sys.stderr)
        return 2
    for m, reason in res["missing"].items():
        print(f"skipped {m}: {reason}", file=sys.stderr)
    if res["missing"] and not res["counts"]:
        print(
            "causalarena run: error: no method could run here (every one was skipped for a "
            "missing dependency; install what the lines above name)",
            file=sys.stderr,
        )
        return 2
    for m, counts in res["counts"].items():
        reused = res["reused"].get(m, 0)
        print(
            f"{m}: "
            + ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
            + (f" ({reused} reused from an earlier run)" if reused else "")
        )
    return 0
