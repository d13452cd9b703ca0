"""Pool statistics of the scenario families beside the paper's (appendix A.4, A.5, Figure 18).

:func:`pool_stats` summarises a list of scenarios per family: variable, edge and target counts
(min, max, mean), the share of nodes without extra noise, mechanism shares over edges (each
edge is attributed to its child's vocabulary family, as in Figure 18) and noise shares over
nodes, and the reviewer score means when reviews are recorded.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from causalarena.generator.scenario import schema as sch
from causalarena.generator.scenario.compile import tag_of

#: The paper's realised pools (appendix A.4 and A.5).
PAPER = {
    "semantic": {
        "variables": (17, 25, 22.89),
        "edges": (25, 67, 40.28),
        "targets": (1, 12, 3.82),
        "no_noise_share": 0.432,
    },
    "formula": {
        "variables": (16, 25, 22.68),
        "edges": (18, 50, 32.97),
        "targets": (1, 17, 5.78),
        "no_noise_share": 0.728,
    },
}

#: Mechanism (edge) and noise (node) shares the paper states in the text of A.4 / A.5 for
#: its Figure 18 (the other bars are not given as numbers).
PAPER_MIX = {
    "semantic": {
        "mechanism": {
            "event_count": 0.153,
            "threshold_piecewise": 0.085,
            "stock_flow": 0.083,
            "ordinal_categorical": 0.081,
        },
        "noise": {"none": 0.432, "normal": 0.262},
    },
    "formula": {
        "mechanism": {
            "deterministic_formula": 0.181,
            "measurement_error": 0.092,
            "linear_affine": 0.086,
            "physical_law": 0.071,
            "calibration_offset": 0.062,
        },
        "noise": {"none": 0.728},
    },
}


def _range(values: list[int]) -> tuple[int, int, float]:
    return (min(values), max(values), round(sum(values) / len(values), 2)) if values else (0, 0, 0)


def pool_stats(scenarios: list[sch.Scenario]) -> dict[str, dict[str, Any]]:
    """Per-family statistics (see module docstring); families without scenarios are omitted."""
    out: dict[str, dict[str, Any]] = {}
    for fam in ("semantic", "formula"):
        group = [s for s in scenarios if s.family == fam]
        if not group:
            continue
        nodes = [v for s in group for v in s.variables]
        edges = Counter(tag_of(v) for v in nodes for _ in v.parents)
        noise = Counter(v.noise.family for v in nodes)
        n_edges = sum(edges.values())
        reviews = [s.review for s in group if s.review is not None]
        scores: dict[str, float] = {}
        for c in sch.REVIEW_CRITERIA:
            vals = [r.scores[c] for r in reviews if c in r.scores]
            if vals:
                scores[c] = round(sum(vals) / len(vals), 2)
        out[fam] = {
            "scenarios": len(group),
            "domains": len({s.domain for s in group}),
            "variables": _range([len(s.variables) for s in group]),
            "edges": _range([sum(len(v.parents) for v in s.variables) for s in group]),
            "targets": _range([len(s.interventions) for s in group]),
            "formula_nodes": sum(isinstance(v.mechanism, sch.OpFormula) for v in nodes),
            "no_noise_share": round(noise.get("none", 0) / len(nodes), 3),
            "mechanism_edge_shares": {k: round(n / n_edges, 3) for k, n in edges.most_common()},
            "noise_node_shares": {k: round(n / len(nodes), 3) for k, n in noise.most_common()},
            "reviewed": len(reviews),
            "review_score_means": scores,
            "paper": PAPER[fam],
        }
    return out


def format_stats(stats: dict[str, dict[str, Any]]) -> str:
    """Plain-text table of :func:`pool_stats` with the paper's numbers beside ours."""
    lines = []
    for fam, s in stats.items():
        p = s["paper"]
        lines.append(f"{fam}: {s['scenarios']} scenarios in {s['domains']} domains")
        for key in ("variables", "edges", "targets"):
            lo, hi, mean = s[key]
            plo, phi, pmean = p[key]
            lines.append(
                f"  {key:<10} {lo}-{hi}, mean {mean:.2f}   (paper {plo}-{phi}, mean {pmean:.2f})"
            )
        lines.append(
            f"  no extra noise {s['no_noise_share']:.1%} of nodes   (paper {p['no_noise_share']:.1%})"
        )
        lines.append(
            "  mechanisms (edge share): "
            + ", ".join(f"{k} {v:.1%}" for k, v in s["mechanism_edge_shares"].items())
        )
        lines.append(
            "  noise (node share): "
            + ", ".join(f"{k} {v:.1%}" for k, v in s["noise_node_shares"].items())
        )
        if s["review_score_means"]:
            lines.append(
                "  review score means: "
                + ", ".join(f"{k} {v:.2f}" for k, v in s["review_score_means"].items())
            )
        else:
            lines.append("  reviews: none recorded yet")
    return "\n".join(lines)
