"""Canonical fingerprints of an SCM, for the contamination guard of fresh SCM streams.

Three levels, each a Weisfeiler-Lehman hash (:func:`networkx.weisfeiler_lehman_graph_hash`,
``iterations=4``) of the SCM's graph, so each is invariant to renaming and reordering the
variables (CausalArena paper section 3.2 asks that benchmark SCMs stay out of pretraining
corpora; issue 13 §2):

- ``graph``: the bare directed graph (temporal SCMs: the instantaneous edges and the lagged
  edges, each edge labelled with its lag set) -- equal for isomorphic graphs;
- ``mix``: the graph with each node labelled by its *families* only (variable kind, role,
  mechanism family, root distribution family, noise family; temporal: mechanism) -- equal when
  the graph and the mechanism/noise family assignment agree up to isomorphism;
- ``exact``: the graph with each node labelled by its whole mechanism (families and every
  parameter, floats rounded to 9 significant digits) and each edge by its position among the
  child's parents (static specs; the parameters refer to parents by position) or its weights
  (temporal) -- equal for the same SCM under any relabelling.

A lab SCM's hidden disturbance (``metadata["lab"]["hidden"]``, CausaLab appendix A.2) is part
of the SCM: each affected variable carries it in its ``mix`` label (presence) and ``exact``
label (values and weight), so a ``lab-hidden`` SCM differs from its ``lab-main`` twin.  A
released row that holds its SCM as JSON (``spec`` or ``scm`` field, as the lab and temporal
reserved commitments serialise it) is fingerprinted by that SCM.

WL hashes are not a complete isomorphism test: two non-isomorphic graphs can share a hash
(never the reverse: isomorphic graphs always do).  The guard therefore reports a hash match as
"up to graph isomorphism"; where both specs are at hand :func:`same_graph` confirms it with
:func:`networkx.is_isomorphic`.  A fingerprint reveals no spec: it is a SHA-256-based digest.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import networkx as nx

LEVELS = ("exact", "mix", "graph")
_ITER = 4
#: Identifies the hashing scheme (networkx >= 3.5 hashes directed graphs by in- and
#: out-edges separately; older versions give other digests).
SCHEME = "wl4-sha256-16/networkx>=3.5"


def _round(v: Any) -> Any:
    if isinstance(v, float):
        return float(f"{v:.9g}")
    if isinstance(v, list):
        return [_round(x) for x in v]
    if isinstance(v, dict):
        return {k: _round(x) for k, x in sorted(v.items())}
    return v


def _label(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def _fam(block: Any) -> Any:
    return None if not block else block.get("family")


def _hidden(d: dict[str, Any]) -> tuple[set[str], Any]:
    """Variables a lab SCM's hidden disturbance affects, and its values and weight (lab
    specs keep it in ``metadata["lab"]["hidden"]``; :mod:`causalarena.generator.lab.episode`)."""
    lab = (d.get("metadata") or {}).get("lab") if isinstance(d.get("metadata"), dict) else None
    hid = lab.get("hidden") if isinstance(lab, dict) else None
    if not isinstance(hid, dict) or not hid.get("affected"):
        return set(), None
    return {str(a) for a in hid["affected"]}, _round([hid.get("values"), hid.get("weight")])


def _static_graphs(d: dict[str, Any]) -> tuple[nx.DiGraph, nx.DiGraph, nx.DiGraph]:
    G, M, E = nx.DiGraph(), nx.DiGraph(), nx.DiGraph()
    affected, hidden = _hidden(d)
    for v in d["variables"]:
        n = v["name"]
        fams = [
            v.get("kind"),
            v.get("role"),
            _fam(v.get("mechanism")),
            _fam(v.get("root")),
            _fam(v.get("noise")),
        ]
        whole = {k: x for k, x in v.items() if k not in ("name", "parents", "metadata")}
        if n in affected:  # a hidden disturbance is part of the variable's mechanism
            fams.append("hidden")
            whole = {**whole, "_hidden": hidden}
        G.add_node(n, l="")
        M.add_node(n, l=_label(fams))
        E.add_node(n, l=_label(_round(whole)))
    for v in d["variables"]:
        for pos, p in enumerate(v.get("parents") or []):
            G.add_edge(p, v["name"], l="")
            M.add_edge(p, v["name"], l="")
            E.add_edge(p, v["name"], l=str(pos))
    return G, M, E


def _temporal_graphs(d: dict[str, Any]) -> tuple[nx.DiGraph, nx.DiGraph, nx.DiGraph]:
    names = d["names"]
    N = len(names)
    A0, AL = d["A0"], d["A_lag"]
    W0, WL = d.get("W0"), d.get("W_lag")
    G, M, E = nx.DiGraph(), nx.DiGraph(), nx.DiGraph()
    mech = d.get("mechanisms") or [None] * N
    bias = d.get("bias") or [None] * N
    noise = d.get("noise_scale") or [None] * N
    for j in range(N):
        G.add_node(j, l="")
        M.add_node(j, l=_label(mech[j]))
        E.add_node(j, l=_label(_round([mech[j], bias[j], noise[j]])))
    lags: dict[tuple[int, int], list] = {}
    for i in range(N):
        for j in range(N):
            if A0[i][j]:
                lags.setdefault((i, j), []).append([0, _round(W0[i][j]) if W0 else None])
            for k, Ak in enumerate(AL):
                if Ak[i][j]:
                    w = _round(WL[k][i][j]) if WL else None
                    lags.setdefault((i, j), []).append([k + 1, w])
    for (i, j), ls in lags.items():
        G.add_edge(i, j, l=_label([x[0] for x in ls]))
        M.add_edge(i, j, l=_label([x[0] for x in ls]))
        E.add_edge(i, j, l=_label(ls))
    return G, M, E


def graphs(spec: str | dict[str, Any]) -> tuple[nx.DiGraph, nx.DiGraph, nx.DiGraph]:
    """The three labelled graphs (graph, mix, exact) of a spec given as JSON or a dict.

    Raises
    ------
    ValueError
        The JSON is neither a static :class:`~causalarena.spec.SCMSpec` (``variables``) nor a
        temporal SCM (``A0``/``A_lag``), nor a row holding one as its ``spec``/``scm`` field.
    """
    d = json.loads(spec) if isinstance(spec, str) else spec
    if not isinstance(d, dict):
        raise ValueError("an SCM spec must be a JSON object")
    inner = d.get("spec", d.get("scm"))
    if isinstance(inner, str | dict):
        # a released row holding its SCM as JSON (lab ``spec``, temporal ``scm``; neither SCM
        # format has such a field), as the reserved commitments of those families serialise it
        d = json.loads(inner) if isinstance(inner, str) else inner
        if not isinstance(d, dict):
            raise ValueError("an SCM spec must be a JSON object")
    if "variables" in d:
        return _static_graphs(d)
    if "A0" in d and "A_lag" in d:
        return _temporal_graphs(d)
    raise ValueError("not an SCM spec: it has neither 'variables' nor 'A0'/'A_lag'")


def _wl(g: nx.DiGraph) -> str:
    import warnings

    with warnings.catch_warnings():  # the networkx 3.5 note on directed hashes (see SCHEME)
        warnings.simplefilter("ignore", UserWarning)
        h = nx.weisfeiler_lehman_graph_hash(
            g, node_attr="l", edge_attr="l", iterations=_ITER, digest_size=16
        )
    return f"{g.number_of_nodes()}-{g.number_of_edges()}-{h}"


def fingerprint(spec: str | dict[str, Any]) -> dict[str, str]:
    """``{"exact", "mix", "graph"}`` digests of a spec (see the module docstring).

    Each is ``"<nodes>-<edges>-<32 hex>"``.

    Raises
    ------
    ValueError
        Not an SCM spec (see :func:`graphs`).
    """
    G, M, E = graphs(spec)
    return {"graph": _wl(G), "mix": _wl(M), "exact": _wl(E)}


def fingerprint_adjacency(A: Any) -> str:
    """``graph``-level digest of a bare adjacency matrix (``A[i, j] = 1`` iff ``i -> j``), for
    corpora that carry only graphs (e.g. ``.npz`` files with ``g``)."""
    import numpy as np

    A = np.asarray(A)
    g = nx.DiGraph()
    g.add_nodes_from(range(A.shape[0]), l="")
    for i, j in zip(*np.nonzero(A), strict=True):
        g.add_edge(int(i), int(j), l="")
    return _wl(g)


def same_graph(a: str | dict[str, Any], b: str | dict[str, Any]) -> bool:
    """Exact isomorphism test of two specs' bare graphs (confirms a ``graph`` hash match)."""
    return nx.is_isomorphic(graphs(a)[0], graphs(b)[0])


def match(fp: dict[str, str], index: dict[str, set[str]]) -> str | None:
    """The strictest level at which ``fp`` is in ``index`` (``{level: set of digests}``)."""
    for level in LEVELS:
        if fp.get(level) in index.get(level, ()):
            return level
    return None
