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


def find_scenario_files(paths: list[str | Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """YAML files named in ``paths`` or found (``*.yaml``, recursively) in the folders named.

    Inside a folder, symbolic links are never followed out of it: a linked file or folder
    whose target lies outside the folder given is refused (listed with the reason), a link
    to a file inside it is read, and linked folders are not descended into (their files are
    reached through the folder itself).  A file named directly is used as named.

    Returns
    -------
    files : list of Path
        Sorted per folder, in argument order.
    refused : list of (Path, str)
        Links out of their folder and the reason, in the same order.

    Raises
    ------
    ValueError
        A path that does not exist.
    """
    files: list[Path] = []
    refused: list[tuple[Path, str]] = []
    for p in map(Path, paths):
        if p.is_dir():
            found, bad = _walk(p)
            files += found
            refused += bad
        elif p.exists() or p.is_symlink():
            files.append(p)
        else:
            raise ValueError(f"{p}: no such file or folder")
    return files, refused


def _walk(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    import os

    root = folder.resolve()
    found: list[Path] = []
    refused: list[tuple[Path, str]] = []

    def outside(link: Path) -> str | None:
        target = link.resolve()
        if target == root or target.is_relative_to(root):
            return None
        return (
            f"is a symbolic link to {target}, outside {folder}; links out of a scenario folder "
            "are not followed (copy the file into the folder instead)"
        )

    for top, dirs, names in os.walk(folder, followlinks=False):
        for d in sorted(dirs):
            link = Path(top) / d
            if link.is_symlink() and (why := outside(link)):
                refused.append((link, why))
        for n in names:
            if not n.endswith(".yaml"):
                continue
            f = Path(top) / n
            why = outside(f) if f.is_symlink() else None
            if why:
                refused.append((f, why))
            else:
                found.append(f)
    return sorted(found), sorted(refused)
