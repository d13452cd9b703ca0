"""Dataset-card text of the scenario suites: column descriptions and the domain / mix sections.

The release engine renders these through the family's
:class:`~causalarena.family.CardText` (``column_docs``, ``sections``, ``section_columns``);
nothing here reads or writes a file.  :func:`card_sections` computes, from the rows of a
built release (one row per SCM, deduplicated over configs and replicates):

- **Scenario domains**: per domain the number of public scenarios and the range and mean of
  variables (``d``), directed edges (``n_edges``) and intervention targets, with the
  paper's whole-pool numbers (appendix A.4, A.5) beside the release's totals;
- **Mechanism and noise mix** (paper appendix Figure 18): mechanism shares over *edges*
  (each edge counted under its child's vocabulary family, ``metadata.tag`` of the compiled
  spec) and noise shares over *nodes* (roots count as "none"), with the shares the paper
  states in the text of A.4 / A.5 where it states one.  The same definitions as
  :func:`causalarena.generator.scenario.stats.pool_stats`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from causalarena.generator.scenario.stats import PAPER, PAPER_MIX

#: Columns the sections read from every shard.
SECTION_COLUMNS = ("scm_id", "family", "domain", "d", "n_edges", "intervention_targets", "spec")

_COMMON_DOCS = (
    ("family", "SCM family (`semantic` or `formula`)"),
    ("graph_family", "SCM family again (scenario graphs have no generator family)"),
    ("domain", "application domain of the scenario (paper A.4/A.5; slice factor of reports)"),
    ("scenario", "scenario id (the YAML file's `id`; the stem of its file name)"),
    (
        "variable_meanings",
        "operational meaning of each variable, in the order of `variables`",
    ),
    ("units", "unit of each variable, in the order of `variables` (formula: a pint unit)"),
    (
        "edge_rationales",
        "one line per directed edge, `parent -> child: rationale` (why the edge exists)",
    ),
)
_EQUATION_DOC = (
    (
        "equations",
        "one line per formula node, `node = expression` solved for the node (sympy syntax); "
        "the relation as written, constants and units are in `spec`",
    ),
)


def column_docs(kind: str) -> tuple[tuple[str, str], ...]:
    """``(column, description)`` of the scenario columns (``equations`` for formula)."""
    return _COMMON_DOCS + (_EQUATION_DOC if kind == "formula" else ())


def _scm_rows(tables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per SCM (first occurrence over configs in sorted order, then rows)."""
    seen: dict[str, dict[str, Any]] = {}
    for config in sorted(tables):
        for row in tables[config].to_pylist():
            seen.setdefault(str(row["scm_id"]), row)
    return [seen[k] for k in sorted(seen)]


def _rng(values: Sequence[int]) -> str:
    if not values:
        return "–"
    return f"{min(values)}–{max(values)} (mean {sum(values) / len(values):.2f})"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def domain_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Markdown table of scenarios, variables, edges and targets per domain (+ all)."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by.setdefault(str(r["domain"]), []).append(r)
    lines = [
        "| domain | scenarios | variables | edges | targets |",
        "|---|---:|---|---|---|",
    ]

    def line(name: str, group: Sequence[Mapping[str, Any]]) -> str:
        return (
            f"| {name} | {len(group)} | {_rng([int(r['d']) for r in group])} | "
            f"{_rng([int(r['n_edges']) for r in group])} | "
            f"{_rng([len(r['intervention_targets']) for r in group])} |"
        )

    lines += [line(f"`{d}`", by[d]) for d in sorted(by)]
    lines.append(line("**all**", rows))
    return "\n".join(lines)


def mix_counts(rows: Sequence[Mapping[str, Any]]) -> tuple[Counter, Counter]:
    """Edges per child mechanism family and nodes per noise family, from the rows' ``spec``."""
    edges: Counter = Counter()
    noise: Counter = Counter()
    for r in rows:
        spec = json.loads(r["spec"])
        for v in spec["variables"]:
            edges[str(v["metadata"]["tag"])] += len(v["parents"])
            noise[str(v["noise"]["family"]).removeprefix("sc.")] += 1
    return edges, noise


def _share_table(label: str, unit: str, counts: Counter, paper: Mapping[str, float]) -> str:
    total = sum(counts.values()) or 1
    lines = [f"| {label} | {unit} | share | paper |", "|---|---:|---:|---:|"]
    for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n:
            lines.append(f"| `{k}` | {n} | {n / total:.1%} | {_pct(paper.get(k))} |")
    return "\n".join(lines)


def card_sections(tables: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The card sections of a scenario release (see module docstring).

    Parameters
    ----------
    tables : mapping of str to pyarrow.Table
        Config name -> the :data:`SECTION_COLUMNS` of its rows.

    Returns
    -------
    list of (str, str)
        ``(title, markdown)`` of the domain section and of the mechanism/noise section.
    """
    rows = _scm_rows(tables)
    if not rows:
        return []
    kind = str(rows[0]["family"])
    p = PAPER.get(kind)
    paper_line = ""
    if p is not None:
        paper_line = (
            f"\n\nPaper (appendix {'A.4' if kind == 'semantic' else 'A.5'}, the whole pool of "
            f"100 {kind} scenarios, 10 per domain): variables {p['variables'][0]}–"
            f"{p['variables'][1]} (mean {p['variables'][2]:.2f}), edges {p['edges'][0]}–"
            f"{p['edges'][1]} (mean {p['edges'][2]:.2f}), targets {p['targets'][0]}–"
            f"{p['targets'][1]} (mean {p['targets'][2]:.2f})."
        )
    domains = (
        f"The {len(rows)} public {kind} scenarios of this release by domain: range (mean) of "
        "variables, directed edges and intervention targets per scenario, counted from the "
        "rows (`d`, `n_edges`, `intervention_targets`)." + paper_line + "\n\n" + domain_table(rows)
    )
    edges, noise = mix_counts(rows)
    mix = PAPER_MIX.get(kind, {})
    n_nodes = sum(noise.values())
    body = (
        "As in the paper's appendix Figure 18: mechanism shares are shares of directed edges, "
        "each edge counted under its child's mechanism family; noise shares are shares of "
        f"nodes (roots count as `none`). {sum(edges.values())} edges and {n_nodes} nodes of "
        f"the {len(rows)} public scenarios, read from each row's `spec` (`metadata.tag`, "
        "`noise.family`). The paper column gives the shares the paper states for its whole "
        "pool (– where it states none).\n\n"
        + _share_table("mechanism family", "edges", edges, mix.get("mechanism", {}))
        + "\n\n"
        + _share_table("noise family", "nodes", noise, mix.get("noise", {}))
    )
    return [("Scenario domains", domains), ("Mechanism and noise mix", body)]
