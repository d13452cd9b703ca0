"""Audited pretraining priors of pretrained methods, for the OOD score (paper 6.2, Fig. 14).

The package ships a versioned file, ``causalarena/eval/data/pretraining_priors.json``: for each
pretrained method the categories of the four synthetic factor axes (``graph_family``,
``mechanism_tags``, ``noise_tags``, ``root_tags``) that its documented pretraining prior
covers, the source of the audit and the covered counts of the paper's Figure 14.  A method
whose category-level mapping is not available has ``categories: null``; it is listed (with its
Figure 14 counts) but cannot enter the OOD score.  Users pass their own file with the same
schema to ``causalarena report --priors FILE``.

Every category is checked against the generator's vocabulary, so a typo is an error naming the
file, the method, the axis and the value, never a silently empty prior.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import pandas as pd

from causalarena.errors import CausalArenaError

__all__ = [
    "AXES",
    "DEFAULT_PRIORS",
    "Priors",
    "PriorsError",
    "axis_vocabulary",
    "coverage_table",
    "load_priors",
]

#: Factor axes of the OOD score, in the order of paper Figure 14.
AXES = ("graph_family", "mechanism_tags", "noise_tags", "root_tags")
#: The packaged file.
DEFAULT_PRIORS = "pretraining_priors.json"
_SCHEMA_VERSION = 1


class PriorsError(CausalArenaError, ValueError):
    """A priors file is malformed (names the file, field and value)."""


def axis_vocabulary() -> dict[str, tuple[str, ...]]:
    """All categories of each axis in the synthetic generator (10 / 16 / 15 / 14)."""
    from causalarena.generator.distributions import NOISE_FAMILIES, ROOT_FAMILIES
    from causalarena.generator.graphs import GRAPH_FAMILIES
    from causalarena.generator.mechanisms import MECHANISM_TAGS

    return {
        "graph_family": tuple(GRAPH_FAMILIES),
        "mechanism_tags": tuple(MECHANISM_TAGS),
        "noise_tags": (*NOISE_FAMILIES, "none"),
        "root_tags": tuple(ROOT_FAMILIES),
    }


@dataclass(frozen=True)
class Priors:
    """A loaded priors file.

    Attributes
    ----------
    version : str
        Version of the file (bump it whenever an audited list changes).
    path : str
        Where it was read from.
    methods : dict
        ``{method: record}`` with ``display_name``, ``source``, ``audited_by``,
        ``categories`` (``{axis: [category, ...]}`` or ``None``) and ``paper_counts``.
    reference_methods : tuple of str
        The paper's reference group (registry names).
    """

    version: str
    path: str
    methods: dict[str, dict[str, Any]]
    reference_methods: tuple[str, ...]

    def audited(self) -> dict[str, dict[str, list[str]]]:
        """``{method: {axis: [categories]}}`` of the methods with a category-level mapping."""
        return {m: dict(r["categories"]) for m, r in self.methods.items() if r["categories"]}


def _fail(path: str, where: str, problem: str) -> PriorsError:
    return PriorsError(f"{path}: {where}: {problem}")


def load_priors(path: str | Path | None = None) -> Priors:
    """Read and validate a priors file (default: the packaged one).

    Parameters
    ----------
    path : str or Path, optional
        JSON file with the schema of the packaged file.

    Returns
    -------
    Priors

    Raises
    ------
    PriorsError
        Unreadable or non-JSON file, wrong ``schema_version``, missing field, an axis that is
        not one of :data:`AXES`, or a category outside the generator's vocabulary (the
        message names the file, method, axis and value).
    """
    if path is None:
        text = files("causalarena.eval").joinpath("data", DEFAULT_PRIORS).read_text("utf-8")
        where = f"causalarena/eval/data/{DEFAULT_PRIORS}"
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise PriorsError(f"{where}: cannot read priors file ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PriorsError(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise _fail(where, "top level", "expected a JSON object")
    if data.get("schema_version") != _SCHEMA_VERSION:
        raise _fail(
            where, "schema_version", f"{data.get('schema_version')!r} is not {_SCHEMA_VERSION}"
        )
    for key in ("version", "methods"):
        if key not in data:
            raise _fail(where, key, "missing")
    if not isinstance(data["methods"], dict):
        raise _fail(where, "methods", "expected an object {method: record}")
    vocab = axis_vocabulary()
    methods: dict[str, dict[str, Any]] = {}
    for m, rec in data["methods"].items():
        if not isinstance(rec, dict):
            raise _fail(where, f"methods.{m}", "expected an object")
        cats = rec.get("categories")
        if cats is not None:
            if not isinstance(cats, dict):
                raise _fail(where, f"methods.{m}.categories", "expected an object or null")
            for axis, values in cats.items():
                if axis not in AXES:
                    raise _fail(
                        where, f"methods.{m}.categories", f"unknown axis {axis!r} (one of {AXES})"
                    )
                if not isinstance(values, list):
                    raise _fail(where, f"methods.{m}.categories.{axis}", "expected a list")
                bad = [v for v in values if v not in vocab[axis]]
                if bad:
                    raise _fail(
                        where,
                        f"methods.{m}.categories.{axis}",
                        f"unknown categor{'y' if len(bad) == 1 else 'ies'} {bad}",
                    )
        methods[str(m)] = {
            "display_name": rec.get("display_name", m),
            "source": rec.get("source"),
            "audited_by": rec.get("audited_by"),
            "categories": None if cats is None else {a: list(v) for a, v in cats.items()},
            "paper_counts": dict(rec.get("paper_counts") or {}),
        }
    refs = tuple((data.get("reference_group") or {}).get("methods") or ())
    return Priors(str(data["version"]), where, methods, refs)


def coverage_table(priors: Priors) -> pd.DataFrame:
    """Covered / total categories per method and axis, and their mean ratio (Figure 14).

    Returns
    -------
    pandas.DataFrame
        One row per method (alphabetical): for each axis ``<axis>`` (``"covered/total"``,
        from the audited list, else the paper's count) and ``<axis>_ratio``; ``mean`` is the
        unweighted mean of the four ratios (the paper's Mean column, not a radar area);
        ``audited`` says whether the categories are listed.
    """
    vocab = axis_vocabulary()
    rows = []
    for m in sorted(priors.methods, key=str.lower):
        rec = priors.methods[m]
        row: dict[str, Any] = {"method": rec["display_name"], "audited": bool(rec["categories"])}
        ratios = []
        for axis in AXES:
            total = len(vocab[axis])
            if rec["categories"]:
                covered = len(set(rec["categories"].get(axis, [])))
            else:
                covered = rec["paper_counts"].get(axis)
            row[axis] = "–" if covered is None else f"{covered}/{total}"
            row[f"{axis}_ratio"] = None if covered is None else covered / total
            if covered is not None:
                ratios.append(covered / total)
        row["mean"] = sum(ratios) / len(ratios) if len(ratios) == len(AXES) else None
        rows.append(row)
    return pd.DataFrame(rows)
