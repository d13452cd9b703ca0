"""The scenario files shipped as package data (``generator/<family>/scenarios/<domain>/``)."""

from __future__ import annotations

from pathlib import Path

FAMILIES = ("semantic", "formula")


def scenario_root(family: str) -> Path:
    """Folder of a family's scenario files.

    Raises
    ------
    ValueError
        Unknown family.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown scenario family {family!r}; known: {', '.join(FAMILIES)}")
    return Path(__file__).resolve().parent.parent / family / "scenarios"


def scenario_files(family: str | None = None) -> list[Path]:
    """Shipped scenario files (sorted by domain then name), of one family or both."""
    fams = FAMILIES if family is None else (family,)
    out: list[Path] = []
    for f in fams:
        out += sorted(scenario_root(f).glob("*/*.yaml"))
    return out
