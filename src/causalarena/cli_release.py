"""Release verbs of the ``causalarena`` CLI, wired in by :mod:`causalarena.cli`.

Verbs added by :func:`add_commands`:

- ``release freeze DIR --version X.Y.Z --reserved-key KEYFILE [--against MANIFEST] [--registry DIR]``
  (or ``--no-reserved``)
- ``release keygen KEYFILE`` (a new secret key for the reserved half)
- ``release set-doi DIR DOI [--previous-doi DOI]``
- ``release metadata DIR`` (re-render card, Croissant and citation files)
- ``release validate DIR [--records]`` (card, Croissant, CFF, Zenodo metadata)
- ``publish DIR --version X.Y.Z [--repo-id ORG/NAME] [--zenodo] [--dry-run] ...``
- ``verify DIR [--rebuild] [--reveal KEYFILE [--reserved-dir DIR]] [--metadata] [--workers N]`` (extends an existing
  ``verify`` parser with these flags, or adds the verb when absent)

:func:`dispatch` returns the exit code for these verbs and ``None`` for any other verb.
Exit codes: 0 success; 1 verification found problems; 2 bad input or refused operation
(e.g. different content under a frozen version).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

VERBS = ("release", "publish", "verify")


def add_commands(subparsers: Any) -> None:
    """Add the release verbs to the CLI's ``subparsers`` (from ``add_subparsers``)."""
    rel = subparsers.add_parser("release", help="freeze, set the DOI of, or validate a release")
    rsub = rel.add_subparsers(dest="release_cmd", required=True)
    fr = rsub.add_parser("freeze", help="freeze a built release folder as an immutable version")
    fr.add_argument("folder")
    fr.add_argument("--version", required=True, help="X.Y.Z (must equal the built suite version)")
    fr.add_argument("--against", default=None, help="previously frozen manifest.json or folder")
    fr.add_argument(
        "--registry", default=None, help="registry of frozen versions (default DIR/frozen)"
    )
    fr.add_argument(
        "--reserved-key",
        default=None,
        metavar="KEYFILE",
        help="secret key of the reserved half (commitments are computed from it)",
    )
    fr.add_argument("--no-reserved", action="store_true", help="skip the reserved commitment")
    kg = rsub.add_parser("keygen", help="create a secret key for the reserved half (mode 0600)")
    kg.add_argument("keyfile")
    sd = rsub.add_parser("set-doi", help="record the minted DOI in manifest, card and citations")
    sd.add_argument("folder")
    sd.add_argument("doi")
    sd.add_argument("--previous-doi", default=None, help="DOI of the previous version")
    md = rsub.add_parser("metadata", help="re-render card, croissant.json and citation files")
    md.add_argument("folder")
    va = rsub.add_parser("validate", help="validate card, Croissant and citation files")
    va.add_argument("folder")
    va.add_argument("--records", action="store_true", help="also load every Croissant record")

    pb = subparsers.add_parser("publish", help="publish a frozen release (Hub and/or Zenodo)")
    pb.add_argument("folder")
    pb.add_argument("--version", required=True)
    pb.add_argument("--repo-id", default=None, help="Hugging Face dataset repo ORG/NAME")
    pb.add_argument("--hf-endpoint", default=None, help="Hub endpoint (default: huggingface.co)")
    pb.add_argument("--private", action="store_true")
    pb.add_argument("--zenodo", action="store_true", help="also deposit on Zenodo (ZENODO_TOKEN)")
    pb.add_argument("--zenodo-url", default=None, help="Zenodo API base URL")
    pb.add_argument("--zenodo-new-version-of", default=None, help="previous deposition id")
    pb.add_argument("--zenodo-publish", action="store_true", help="publish (irreversible)")
    pb.add_argument("--dry-run", action="store_true", help="print the plan; no network")
    pb.add_argument(
        "--json", action="store_true", help="print the plan/result as one JSON object instead"
    )

    v = subparsers.choices.get("verify") if hasattr(subparsers, "choices") else None
    if v is None:
        v = subparsers.add_parser("verify", help="check a release folder against its manifest")
        v.add_argument("folder")
    v.add_argument("--rebuild", action="store_true", help="regenerate every shard and compare")
    v.add_argument("--workers", type=int, default=1, help="workers for --rebuild")
    v.add_argument(
        "--reveal",
        default=None,
        metavar="KEYFILE",
        help="check every reserved commitment with the secret key",
    )
    v.add_argument(
        "--reserved-dir",
        default=None,
        help="with --reveal: read the reserved instances from this reserved build",
    )
    v.add_argument("--metadata", action="store_true", help="also validate card/Croissant/CFF")
    v.add_argument(
        "--json", action="store_true", help="print {folder, ok, problems} as one JSON object"
    )
    if "--quiet" not in v._option_string_actions:
        v.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _report(problems: list[dict[str, Any]]) -> None:
    for pr in problems:
        key = pr.get("path", pr.get("scm_id"))
        print(f"{pr['problem']:15s} {key}  expected={pr['expected']} found={pr['found']}")


def dispatch(args: argparse.Namespace) -> int | None:
    """Run a release verb; ``None`` if ``args.cmd`` is not one of them.

    Errors of the package (:class:`~causalarena.errors.CausalArenaError`), ``ValueError`` and
    ``OSError`` print one line and return 2.
    """
    if getattr(args, "cmd", None) not in VERBS:
        return None
    from causalarena.errors import CausalArenaError

    try:
        return _run(args)
    except (CausalArenaError, ValueError, OSError, ImportError) as exc:
        print(f"causalarena {args.cmd}: error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.cmd == "verify":
        from causalarena.release.verify import verify, verify_metadata, verify_rebuild

        problems = verify(args.folder)
        if getattr(args, "metadata", False):
            problems += verify_metadata(args.folder)
        if getattr(args, "rebuild", False):
            quiet = getattr(args, "quiet", False)
            if not quiet:
                print(f"rebuilding {args.folder} into a temporary folder …", file=sys.stderr)
            problems += verify_rebuild(args.folder, workers=args.workers, quiet=quiet)
        if getattr(args, "reveal", None):
            from causalarena.release.reserved import verify_reveal

            problems += verify_reveal(
                args.folder,
                args.reveal,
                reserved_dir=getattr(args, "reserved_dir", None),
                quiet=getattr(args, "quiet", False),
            )
        if getattr(args, "json", False):
            doc = {"folder": str(args.folder), "ok": not problems, "problems": problems}
            print(json.dumps(doc, indent=2, default=str))
            return 1 if problems else 0
        _report(problems)
        if problems:
            print(f"{len(problems)} problem(s) in {args.folder}", file=sys.stderr)
            return 1
        print(f"{args.folder}: every check passed")
        return 0
    if args.cmd == "release":
        from causalarena.release import freeze as fz
        from causalarena.release.manifest import read_manifest

        if args.release_cmd == "freeze":
            before = (read_manifest(args.folder).get("freeze") or {}).get("content_sha256")
            m = fz.freeze(
                args.folder,
                args.version,
                against=args.against,
                registry=args.registry,
                reserved=not args.no_reserved,
                reserved_key=args.reserved_key,
            )
            r = m["freeze"].get("reserved")
            if r:
                extra = (
                    f", reserved half committed: {r.get('units', '?')} units, {r['count']} "
                    f"instances (root {r['root_sha256']})"
                )
            elif args.reserved_key:
                extra = f"; {m['suite']} has no key-drawn reserved half, so the key was not used"
            else:
                extra = ""
            verb = "froze"
            if before is not None and before == m["freeze"]["content_sha256"]:
                verb = "already frozen, content unchanged:"  # idempotent; other content is refused
            print(
                f"{verb} {m['suite']} {args.version} ({m['scale']}): {len(m['files'])} files, "
                f"content sha256 {m['freeze']['content_sha256']}{extra}"
            )
        elif args.release_cmd == "keygen":
            from causalarena.release.reserved import generate_key

            kid = generate_key(args.keyfile)
            print(
                f"wrote a new reserved key to {args.keyfile} (key_id {kid}); keep it outside "
                "the repository and every release folder, and back it up"
            )
        elif args.release_cmd == "set-doi":
            fz.set_doi(args.folder, args.doi, previous_doi=args.previous_doi)
            print(f"{args.folder}: DOI {args.doi} recorded in manifest, card and citation files")
        elif args.release_cmd == "metadata":
            from causalarena.release.render import write_metadata_files

            for kind, path in write_metadata_files(args.folder).items():
                print(f"{kind:10s} {path}")
        elif args.release_cmd == "validate":
            from causalarena.release.verify import verify_metadata

            problems = verify_metadata(args.folder, records=args.records)
            _report(problems)
            if problems:
                return 1
            print(f"{args.folder}: card, croissant.json, CITATION.cff and .zenodo.json are valid")
        return 0
    # publish
    from causalarena.release import publish as pub

    if not args.repo_id and not args.zenodo:
        raise ValueError("publish needs --repo-id ORG/NAME and/or --zenodo")
    results = []
    if args.repo_id:
        results.append(
            pub.publish_hf(
                args.folder,
                args.repo_id,
                args.version,
                dry_run=args.dry_run,
                endpoint=args.hf_endpoint,
                private=args.private,
            )
        )
    if args.zenodo:
        results.append(
            pub.publish_zenodo(
                args.folder,
                args.version,
                dry_run=args.dry_run,
                base_url=args.zenodo_url or pub.ZENODO_URL,
                new_version_of=args.zenodo_new_version_of,
                publish=args.zenodo_publish,
            )
        )
    if getattr(args, "json", False):
        print(json.dumps({"dry_run": args.dry_run, "targets": results}, indent=1, default=str))
        return 0
    for res in results:
        if res["target"] == "huggingface":
            print(
                f"{'plan' if res['dry_run'] else 'published'}: {res['repo_id']} (dataset), tag {res['tag']}"
            )
            for f in res["files"]:
                print(f"  {f['bytes']:>12,d}  {f['path']}")
            print(f"  {res['total_bytes']:>12,d}  total ({len(res['files'])} files)")
        else:
            print(f"{'plan' if res['dry_run'] else 'deposited'}: zenodo, version {res['version']}")
            for s in res["steps"]:
                print(f"  - {s}")
            if not res["dry_run"]:
                print(
                    f"  deposition {res['deposition_id']}, DOI {res['doi']} "
                    f"({'published' if res['published'] else 'reserved, draft'}); record it with "
                    f"`causalarena release set-doi {args.folder} {res['doi']}`"
                )
    if args.dry_run:
        print(_dry_run_summary(results))
    return 0


def _dry_run_summary(results: list[dict[str, Any]]) -> str:
    """One readable line closing a ``publish --dry-run`` plan."""
    parts = []
    for res in results:
        if res["target"] == "huggingface":
            parts.append(
                f"{len(res['files'])} files ({res['total_bytes']:,d} bytes) to Hugging Face "
                f"{res['repo_id']} at tag {res['tag']}"
            )
        else:
            parts.append(f"a Zenodo deposition of version {res['version']}")
    return "dry run, nothing sent: would publish " + " and ".join(parts)
