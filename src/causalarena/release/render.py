"""Render every metadata file of a release folder from one :class:`ReleaseMetadata`.

The metadata model (:mod:`causalarena.release.metadata`) sits below the renderers
(:mod:`.card`, :mod:`.croissant`, :mod:`.citation`); the engine calls this module.
"""

from __future__ import annotations

from pathlib import Path

from causalarena.release.card import write_card_from_metadata
from causalarena.release.citation import write_citation_files
from causalarena.release.metadata import collect_metadata


def write_metadata_files(folder: str | Path, *, croissant: bool = True) -> dict[str, Path]:
    """(Re)write every metadata file of a release folder from one :class:`ReleaseMetadata`.

    Writes ``README.md``, ``CITATION.cff``, ``.zenodo.json`` and (when ``croissant`` and
    ``mlcroissant`` is installed) ``croissant.json``.

    Returns
    -------
    dict
        File kind -> written path.
    """
    folder = Path(folder)
    meta = collect_metadata(folder)
    out = {"card": write_card_from_metadata(folder, meta)}
    out.update(write_citation_files(folder, meta))
    if croissant:
        from causalarena.release.croissant import write_croissant

        out["croissant"] = write_croissant(folder, meta)
    return out
