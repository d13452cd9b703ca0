"""``causalarena download NAME|ORG/REPO [--revision vX.Y.Z] [--out DIR]``.

Downloads a published release with :func:`huggingface_hub.snapshot_download` into a
temporary folder beside ``--out``, verifies every file against the release's
``manifest.json`` (:func:`causalarena.release.verify.verify`: sizes, sha256, card, Croissant,
freeze record) and only then moves it to ``--out``.  A download that disagrees with its
manifest is refused: nothing is written at ``--out``, the problems are printed, the files are
kept at ``<out>.refused`` for inspection and the exit code is 1.

``NAME`` (a suite name, e.g. ``arena-synthetic``) means the dataset repo
``$CAUSALARENA_HUB_ORG/NAME`` (default org ``causalarena``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

VERBS = ("download",)
HUB_ORG_ENV = "CAUSALARENA_HUB_ORG"
DEFAULT_ORG = "causalarena"


def add_commands(subparsers: Any) -> None:
    """Register ``download`` on the main parser."""
    d = subparsers.add_parser(
        "download", help="download a published release from the Hub and verify it"
    )
    d.add_argument("name", metavar="NAME|ORG/REPO", help="suite name or Hub dataset repo id")
    d.add_argument("--revision", default=None, help="tag such as v1.0.0 (default: main)")
    d.add_argument("--out", default=None, help="release folder (default: ./<name>-<revision>)")
    d.add_argument("--hf-endpoint", default=None, help="Hub endpoint (default: huggingface.co)")


def repo_id_of(name: str) -> str:
    """The Hub dataset repo of ``name``: ``ORG/REPO`` as given, a suite name under the org.

    Raises :class:`causalarena.cli_common.UsageError` for an unknown suite name.
    """
    if "/" in name:
        import re

        from causalarena.cli_common import UsageError
        from causalarena.release.metadata import REPO_ID_RE

        if not re.match(REPO_ID_RE, name):
            raise UsageError("NAME", name, "must be a suite name or ORG/REPO")
        return name
    from causalarena.cli_common import unknown_name
    from causalarena.cli_suites import all_suites

    suites = all_suites()
    if name not in suites:
        raise unknown_name("NAME", name, suites, "suite")
    return f"{os.environ.get(HUB_ORG_ENV) or DEFAULT_ORG}/{name}"


def download(
    name: str,
    out: str | Path,
    *,
    revision: str | None = None,
    endpoint: str | None = None,
) -> list[dict[str, Any]]:
    """Download ``name`` at ``revision`` into ``out`` and verify it; returns the problems.

    An empty list means ``out`` now holds the verified release.  Otherwise nothing is written
    at ``out`` and the download is kept at ``<out>.refused``.

    Raises
    ------
    causalarena.cli_common.UsageError
        Unknown suite name or malformed repo id.
    causalarena.errors.ReleaseError
        ``out`` already exists, or the download has no readable manifest.
    """
    from huggingface_hub import snapshot_download

    from causalarena.errors import ReleaseError
    from causalarena.release.verify import verify

    repo_id = repo_id_of(name)
    out = Path(out)
    if out.exists():
        raise ReleaseError(f"--out {out}: already exists; choose a new folder")
    tmp = out.with_name(f".{out.name}.download")
    snapshot_download(
        repo_id,
        repo_type="dataset",
        revision=revision,
        local_dir=tmp,
        endpoint=endpoint,
    )
    shutil.rmtree(tmp / ".cache", ignore_errors=True)  # huggingface_hub's local bookkeeping
    if not (tmp / "manifest.json").is_file():
        raise ReleaseError(f"{repo_id}@{revision or 'main'}: no manifest.json; not a release")
    problems = verify(tmp)
    if problems:
        refused = out.with_name(f"{out.name}.refused")
        shutil.rmtree(refused, ignore_errors=True)
        os.replace(tmp, refused)
        return problems
    os.replace(tmp, out)
    return []


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``download``; None when the verb is not ours.  Bad input: one line, exit 2."""
    if getattr(args, "cmd", None) not in VERBS:
        return None
    from causalarena.cli_common import error_text
    from causalarena.errors import CausalArenaError

    base = args.name.rsplit("/", 1)[-1]
    out = args.out or f"{base}-{args.revision or 'main'}"
    try:
        problems = download(args.name, out, revision=args.revision, endpoint=args.hf_endpoint)
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena download: error: {error_text(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # huggingface_hub's errors (not found, network): one line
        if os.environ.get("CAUSALARENA_DEBUG"):
            raise
        line = error_text(exc).strip().splitlines()[0]
        print(f"causalarena download: error: {args.name}: {line}", file=sys.stderr)
        return 2
    if problems:
        for pr in problems:
            print(f"{pr['problem']:8s} {pr['path']}  expected={pr['expected']} found={pr['found']}")
        print(
            f"causalarena download: refused: {len(problems)} file(s) disagree with "
            f"manifest.json; nothing written at {out} (download kept at {out}.refused)",
            file=sys.stderr,
        )
        return 1
    if not args.quiet:
        print(f"downloaded and verified {args.name} ({args.revision or 'main'}) into {out}")
    return 0
