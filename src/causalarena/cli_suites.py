"""``causalarena suites [--json]``: every suite the package builds.

One row per suite: its family, version, scales, configs, public instances per config at each
scale (from the design: :attr:`causalarena.family.Family.sizes`; ``None`` where the size
depends on data on disk), the names it also answers to (``dot`` for ``dot-all``, DoTime's
suite names) and the DOI when one is recorded (a DOI is recorded in a published release's
``manifest.json``; pass such folders with ``--release`` to show theirs).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

VERBS = ("suites",)


def add_commands(subparsers: Any) -> None:
    """Register ``suites`` on the main parser."""
    s = subparsers.add_parser("suites", help="list every suite: family, version, scales, configs")
    s.add_argument("--json", action="store_true", help="print a JSON list, one object per suite")
    s.add_argument(
        "--release",
        action="append",
        default=[],
        metavar="DIR",
        help="release folder whose recorded DOI to show (repeatable)",
    )


def _aliases() -> dict[str, list[str]]:
    from causalarena.generator.temporal.family import ALL
    from causalarena.generator.temporal.suites import DOTIME_ALIASES

    out: dict[str, list[str]] = {ALL: ["dot"], "arena-real": ["real"]}
    for alias, name in sorted(DOTIME_ALIASES.items()):
        out.setdefault(name, []).append(alias)
    return out


def suite_table(releases: list[str] = ()) -> list[dict[str, Any]]:
    """Every registered suite as a dict, sorted by name.

    Keys: ``suite``, ``family``, ``version``, ``scales`` (list), ``configs`` (list),
    ``instances`` (``{scale: {config: public instances}}``, or ``None`` when the family's size
    depends on data on disk), ``aliases`` (other names ``build``/``load`` accept) and ``doi``
    (from the ``publication`` record of the manifests of ``releases`` whose suite it is, else
    ``None``).
    """
    from causalarena.family import families
    from causalarena.release.manifest import read_manifest

    aliases = _aliases()

    dois: dict[str, str] = {}
    for folder in releases:
        m = read_manifest(folder)
        doi = (m.get("publication") or {}).get("doi")
        if doi:
            dois[m["suite"]] = doi
    rows = []
    for fam in families().values():
        for name, info in fam.suites.items():
            rows.append(
                {
                    "suite": name,
                    "family": fam.name,
                    "version": info.version,
                    "scales": list(info.scales),
                    "configs": [c.name for c in fam.configs(name)],
                    "instances": _sizes(fam, name, info.scales),
                    "aliases": aliases.get(name, []),
                    "doi": dois.get(name),
                }
            )
    return sorted(rows, key=lambda r: r["suite"])


def _sizes(fam: Any, suite: str, scales: Any) -> dict[str, dict[str, int]] | None:
    if fam.sizes is None:
        return None
    out = {}
    for scale in scales:
        got = fam.sizes(suite, scale)
        if got is None:
            return None
        out[scale] = dict(got)
    return out


def _total(row: dict[str, Any]) -> str:
    if row["instances"] is None:
        return "from data"
    return "/".join(f"{sum(row['instances'][s].values()):,}" for s in row["scales"])


def all_suites() -> list[str]:
    """Names of every registered suite, sorted."""
    from causalarena.family import families

    return sorted(s for f in families().values() for s in f.suites)


def dispatch(args: argparse.Namespace) -> int | None:
    """Run ``suites``; None when the verb is not ours."""
    if getattr(args, "cmd", None) not in VERBS:
        return None
    from causalarena.cli_common import error_text
    from causalarena.errors import CausalArenaError

    try:
        rows = suite_table(args.release)
    except (CausalArenaError, ValueError, OSError) as exc:
        print(f"causalarena suites: error: {error_text(exc)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    w = max(len(r["suite"]) for r in rows)
    sizes = {r["suite"]: _total(r) for r in rows}
    v = max(len(x) for x in sizes.values())
    print(
        f"{'suite':<{w}}  {'family':<10} {'version':<8} {'scales':<10} {'instances':>{v}}  configs"
    )
    for r in rows:
        configs = ", ".join(r["configs"])
        extra = f"  (also: {', '.join(r['aliases'])})" if r["aliases"] else ""
        doi = f"  doi:{r['doi']}" if r["doi"] else ""
        print(
            f"{r['suite']:<{w}}  {r['family']:<10} {r['version']:<8} "
            f"{','.join(r['scales']):<10} {sizes[r['suite']]:>{v}}  {configs}{extra}{doi}"
        )
    print(
        "instances: public instances summed over configs, per scale (mini/full); "
        "`--json` gives them per config",
        file=sys.stderr,
    )
    return 0
