"""Conventions shared by every ``causalarena`` verb (issue 15 §1).

- ``causalarena --version`` / ``-V`` prints the package version;
- every verb accepts ``-q/--quiet`` (no progress, fewer lines) and ``-v/--verbose`` (log
  messages of the package on stderr; ``-vv`` for debug) and ``--progress`` (show progress on
  stderr even when it is not a terminal);
- every ``--help`` shows the defaults (:class:`argparse.ArgumentDefaultsHelpFormatter`);
- an unknown name (suite, config, method) is reported with the valid names and the closest
  ones (:func:`difflib.get_close_matches`), as ``<option> <value>: ...`` with exit code 2.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import sys
from collections.abc import Iterable

from causalarena.errors import CausalArenaError

#: Environment variable that forces progress on stderr when it is not a terminal
#: (set by ``--progress``; read by :func:`causalarena.ui.progress`, also in worker processes).
PROGRESS_ENV = "CAUSALARENA_PROGRESS"


class UsageError(CausalArenaError, ValueError):
    """A command-line value is wrong: names the option, the value and why (exit code 2)."""

    def __init__(self, option: str, value: object, reason: str) -> None:
        self.option, self.value, self.reason = option, value, reason
        super().__init__(f"{option} {value}: {reason}")


def package_version() -> str:
    """The installed version of ``causalarena`` (``0+unknown`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("causalarena")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "0+unknown"


def unknown_name(option: str, value: str, valid: Iterable[str], what: str) -> UsageError:
    """A :class:`UsageError` for ``value`` not among ``valid``, with a did-you-mean.

    Example: ``--config synthetic-ob: unknown config; did you mean synthetic-obs? known
    configs: synthetic-obs, synthetic-obsint``.
    """
    valid = sorted(set(valid))
    close = difflib.get_close_matches(value, valid, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return UsageError(option, value, f"unknown {what}; {hint}known {what}s: {', '.join(valid)}")


def release_configs(folder: str) -> list[str]:
    """The configs recorded in ``folder``'s manifest (empty when it has none)."""
    from causalarena.release.manifest import read_manifest

    return sorted(read_manifest(folder).get("configs", {}))


def check_config(folder: str, config: str, option: str = "--config") -> None:
    """Raise :class:`UsageError` when ``config`` is not a config of the release ``folder``."""
    configs = release_configs(folder)
    if config not in configs:
        close = difflib.get_close_matches(config, configs, n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UsageError(
            option,
            config,
            f"not a config of the release {folder}{hint} (its configs: {', '.join(configs)})",
        )


def release_facts(folder: str) -> dict:
    """What ``causalarena info --json`` prints: the manifest's facts and the verify result.

    Keys: ``folder, suite, version, scale, family, configs`` (name -> the manifest's record),
    ``files`` (count), ``bytes`` (total size), ``frozen``, ``publication``, ``problems``
    (:func:`causalarena.release.verify.verify`; empty when every file matches).
    """
    from causalarena.release.manifest import read_manifest
    from causalarena.release.verify import verify

    m = read_manifest(folder)
    return {
        "folder": str(folder),
        "suite": m["suite"],
        "version": m["version"],
        "scale": m["scale"],
        "family": m.get("family"),
        "configs": m["configs"],
        "files": len(m["files"]),
        "bytes": sum(int(f["bytes"]) for f in m["files"]),
        "frozen": bool(m.get("freeze")),
        "publication": m.get("publication"),
        "problems": verify(folder),
    }


def one_release(positional: str | None, option: str | None) -> str:
    """The release folder named by the positional ``RELEASE`` or its alias ``--release``.

    Raises :class:`UsageError` when neither or two different folders are given.
    """
    if positional and option and positional != option:
        raise UsageError("--release", option, f"differs from the positional RELEASE {positional}")
    folder = positional or option
    if not folder:
        raise UsageError("RELEASE", "(missing)", "name the release folder")
    return folder


def error_text(exc: BaseException) -> str:
    """One readable line for ``exc``: never a Python repr such as ``KeyError('x')``."""
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]  # str(KeyError) quotes its message
    text = str(exc) or type(exc).__name__
    return text


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows ``(default: X)`` unless the help already names a default or there is none."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text.replace("%(default)", "") or action.default in (
            None,
            False,
            argparse.SUPPRESS,
            [],
        ):
            return text
        return super()._get_help_string(action)


def _int_value(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: must be an integer") from None


def _float_value(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: must be a number") from None


def _add_common(p: argparse.ArgumentParser) -> None:
    actions = p._option_string_actions
    quiet = actions.get("--quiet")
    if quiet is None:
        p.add_argument(
            *(("-q",) if "-q" not in actions else ()),
            "--quiet",
            action="store_true",
            help="no progress, fewer lines",
        )
    elif "-q" not in actions:  # the verb declared --quiet itself: add the short spelling
        quiet.option_strings.insert(0, "-q")
        actions["-q"] = quiet
    if "--verbose" not in actions:
        p.add_argument(
            *(("-v",) if "-v" not in actions else ()),
            "--verbose",
            action="count",
            default=0,
            help="log messages on stderr (-vv: debug)",
        )
    if "--progress" not in actions:
        p.add_argument(
            "--progress",
            action="store_true",
            help="show progress on stderr even when it is not a terminal",
        )


def _subparsers(p: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = []
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.extend(dict.fromkeys(action.choices.values()))  # aliases map to one parser
    return out


def apply_conventions(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``--version``, the common options and the defaults in help to ``p`` and its verbs.

    Leaves (verbs without sub-verbs) get ``-q/--quiet``, ``-v/--verbose`` and ``--progress``;
    every parser shows the defaults in its help.  Returns ``p``.
    """
    p.add_argument("-V", "--version", action="version", version=f"causalarena {package_version()}")

    def walk(parser: argparse.ArgumentParser) -> None:
        parser.formatter_class = DefaultsHelpFormatter
        for action in parser._actions:  # argparse's own messages quote the value (a repr)
            if action.type is int:
                action.type = _int_value
            elif action.type is float:
                action.type = _float_value
        for action in parser._actions:  # an option without help would hide its default
            if action.help is None and action.default not in (None, False, [], argparse.SUPPRESS):
                action.help = "(default: %(default)s)"
        subs = _subparsers(parser)
        if parser is not p and not subs:
            _add_common(parser)
        for s in subs:
            walk(s)

    walk(p)
    return p


def setup_from_args(args: argparse.Namespace) -> None:
    """Apply ``--verbose`` (logging on stderr) and ``--progress`` (env for :mod:`causalarena.ui`)."""
    verbose = getattr(args, "verbose", 0) or 0
    if verbose:
        logging.basicConfig(
            level=logging.DEBUG if verbose > 1 else logging.INFO,
            stream=sys.stderr,
            format="%(levelname)s %(name)s: %(message)s",
        )
    if getattr(args, "progress", False):
        os.environ[PROGRESS_ENV] = "1"


def refuse_out_inside(
    out: str | None,
    releases: Iterable[str],
    option: str = "--out",
    *,
    kind: str = "release folder",
    why: str = "a release is never written to",
) -> None:
    """Refuse an output path inside (or equal to) one of ``releases``: by default release
    folders, which are never written to (they would no longer match their manifest);
    ``kind``/``why`` name other folders an output must stay out of (e.g. predictions folders).

    Raises
    ------
    UsageError
        Naming the option, the value and the folder.
    """
    if not out:
        return
    from pathlib import Path

    dst = Path(out).resolve()
    for r in releases:
        rel = Path(r).resolve()
        if dst == rel or rel in dst.parents:
            raise UsageError(
                option, out, f"is inside the {kind} {r}; {why} -- choose a folder outside it"
            )
