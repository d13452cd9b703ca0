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
from collections import Counter
from collections.abc import Sequence
from hashlib import blake2b
from typing import Any

import networkx as nx

LEVELS = ("exact", "mix", "graph")
_ITER = 4
#: Identifies the hashing scheme (networkx >= 3.5 hashes directed graphs by in- and
#: out-edges separately; older versions give other digests).
SCHEME = "wl4-sha256-16/networkx>=3.5"


def _round(v: Any) -> Any:
    """``v`` with every float rounded to 9 significant digits (in lists and dict values; the
    result is only serialised with ``sort_keys=True``, so dict order is kept as is)."""
    t = type(v)
    if t is str or t is int or t is bool or v is None:  # the common leaves, without isinstance
        return v
    if isinstance(v, float):  # also subclasses (numpy.float64)
        return float(f"{v:.9g}")
    if isinstance(v, dict):
        return {k: _round(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_round(x) for x in v]
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


#: A labelled directed graph: node labels ``{node: label}`` and edge labels ``{(u, v): label}``
#: (a repeated edge keeps its last label, as :class:`networkx.DiGraph` does).
Labelled = tuple[dict[Any, str], dict[tuple[Any, Any], str]]


#: Exact node labels by ``repr`` of the (JSON-parsed) mechanism block: lab SCMs repeat the same
#: few blocks (roots, small integer weights), so most labels are looked up, not hashed.
_EXACT_MEMO: dict[str, str] = {}
_MEMO_MAX = 1 << 14


def _exact_label(whole: dict[str, Any], native: bool) -> str:
    """``_label(_round(whole))``, memoised when ``whole`` comes from ``json.loads`` (plain
    dict/list/str/int/float/bool/None, for which ``repr`` is injective; a caller's dict may
    hold tuples or numpy scalars, so it is always hashed)."""
    if not native:
        return _label(_round(whole))
    key = repr(whole)
    lab = _EXACT_MEMO.get(key)
    if lab is None:
        if len(_EXACT_MEMO) >= _MEMO_MAX:
            _EXACT_MEMO.clear()
        lab = _EXACT_MEMO[key] = _label(_round(whole))
    return lab


def _static_labelled(
    d: dict[str, Any], levels: Sequence[str], native: bool = False
) -> dict[str, Labelled]:
    affected, hidden = _hidden(d)
    want = set(levels)
    nodes: dict[str, dict[Any, str]] = {lv: {} for lv in want}
    for v in d["variables"]:
        n = v["name"]
        hid = n in affected  # a hidden disturbance is part of the variable's mechanism
        if "graph" in want:
            nodes["graph"][n] = ""
        if "mix" in want:
            fams = [
                v.get("kind"),
                v.get("role"),
                _fam(v.get("mechanism")),
                _fam(v.get("root")),
                _fam(v.get("noise")),
            ]
            nodes["mix"][n] = _label(fams + ["hidden"] if hid else fams)
        if "exact" in want:
            whole = {k: x for k, x in v.items() if k not in ("name", "parents", "metadata")}
            nodes["exact"][n] = _exact_label({**whole, "_hidden": hidden} if hid else whole, native)
    edges: dict[str, dict[tuple[Any, Any], str]] = {lv: {} for lv in want}
    for v in d["variables"]:
        for pos, p in enumerate(v.get("parents") or []):
            for lv in want:
                edges[lv][(p, v["name"])] = str(pos) if lv == "exact" else ""
    return {lv: (nodes[lv], edges[lv]) for lv in want}


def _temporal_labelled(d: dict[str, Any], levels: Sequence[str]) -> dict[str, Labelled]:
    names = d["names"]
    N = len(names)
    A0, AL = d["A0"], d["A_lag"]
    W0, WL = d.get("W0"), d.get("W_lag")
    mech = d.get("mechanisms") or [None] * N
    bias = d.get("bias") or [None] * N
    noise = d.get("noise_scale") or [None] * N
    nodes: dict[str, dict[Any, str]] = {"graph": {}, "mix": {}, "exact": {}}
    for j in range(N):
        nodes["graph"][j] = ""
        nodes["mix"][j] = _label(mech[j])
        nodes["exact"][j] = _label(_round([mech[j], bias[j], noise[j]]))
    lags: dict[tuple[int, int], list] = {}
    for i in range(N):
        for j in range(N):
            if A0[i][j]:
                lags.setdefault((i, j), []).append([0, _round(W0[i][j]) if W0 else None])
            for k, Ak in enumerate(AL):
                if Ak[i][j]:
                    w = _round(WL[k][i][j]) if WL else None
                    lags.setdefault((i, j), []).append([k + 1, w])
    edges: dict[str, dict[tuple[Any, Any], str]] = {"graph": {}, "mix": {}, "exact": {}}
    for e, ls in lags.items():
        edges["graph"][e] = edges["mix"][e] = _label([x[0] for x in ls])
        edges["exact"][e] = _label(ls)
    return {lv: (nodes[lv], edges[lv]) for lv in levels}


def _labelled(spec: str | dict[str, Any], levels: Sequence[str]) -> dict[str, Labelled]:
    native = isinstance(spec, str)
    d = json.loads(spec) if native else spec
    if not isinstance(d, dict):
        raise ValueError("an SCM spec must be a JSON object")
    inner = d.get("spec", d.get("scm"))
    if isinstance(inner, str | dict):
        # a released row holding its SCM as JSON (lab ``spec``, temporal ``scm``; neither SCM
        # format has such a field), as the reserved commitments of those families serialise it
        native = native or isinstance(inner, str)
        d = json.loads(inner) if isinstance(inner, str) else inner
        if not isinstance(d, dict):
            raise ValueError("an SCM spec must be a JSON object")
    if "variables" in d:
        return _static_labelled(d, levels, native)
    if "A0" in d and "A_lag" in d:
        return _temporal_labelled(d, levels)
    raise ValueError("not an SCM spec: it has neither 'variables' nor 'A0'/'A_lag'")


def _digraph(g: Labelled) -> nx.DiGraph:
    G = nx.DiGraph()
    for n, lab in g[0].items():
        G.add_node(n, l=lab)
    for (u, v), lab in g[1].items():
        G.add_edge(u, v, l=lab)
    return G


def graphs(spec: str | dict[str, Any]) -> tuple[nx.DiGraph, nx.DiGraph, nx.DiGraph]:
    """The three labelled graphs (graph, mix, exact) of a spec given as JSON or a dict.

    Raises
    ------
    ValueError
        The JSON is neither a static :class:`~causalarena.spec.SCMSpec` (``variables``) nor a
        temporal SCM (``A0``/``A_lag``), nor a row holding one as its ``spec``/``scm`` field.
    """
    g = _labelled(spec, LEVELS)
    return _digraph(g["graph"]), _digraph(g["mix"]), _digraph(g["exact"])


def _wl_networkx(g: nx.DiGraph) -> str:
    import warnings

    with warnings.catch_warnings():  # the networkx 3.5 note on directed hashes (see SCHEME)
        warnings.simplefilter("ignore", UserWarning)
        h = nx.weisfeiler_lehman_graph_hash(
            g, node_attr="l", edge_attr="l", iterations=_ITER, digest_size=16
        )
    return f"{g.number_of_nodes()}-{g.number_of_edges()}-{h}"


def _blake(s: str) -> str:
    return blake2b(s.encode("ascii"), digest_size=16).hexdigest()


def _wl(g: Labelled) -> str:
    """``"<nodes>-<edges>-<hash>"`` of a labelled graph: the digest of
    :func:`networkx.weisfeiler_lehman_graph_hash` (``node_attr`` and ``edge_attr`` set,
    :data:`_ITER` iterations, 16-byte blake2b; networkx >= 3.5 directed rule: a node's new
    label is its label, then its sorted ``edge label + successor label`` strings, then its
    sorted ``edge label + predecessor label`` strings) computed on plain dicts -- the same
    digest without building a graph object (a lab SCM's fingerprint is most of a lab stream
    instance's cost otherwise; ``tests/test_stream.py`` checks it against networkx)."""
    labels, edges = g
    nbrs: dict[Any, tuple[list, list]] = {n: ([], []) for n in labels}
    for (u, v), lab in edges.items():
        if u not in nbrs or v not in nbrs:
            return _wl_networkx(_digraph(g))  # networkx's own error for an unlabelled node
        lab = str(lab)
        nbrs[u][0].append((v, lab))
        nbrs[v][1].append((u, lab))
    cur = {n: str(lab) for n, lab in labels.items()}
    adj = list(nbrs.items())
    counts: list[tuple[str, int]] = []
    for _ in range(_ITER):
        new = {}
        for n, (succ, pred) in adj:
            s = cur[n]
            if succ:
                s += "".join(sorted([e + cur[x] for x, e in succ]))
            if pred:
                s += "".join(sorted([e + cur[x] for x, e in pred]))
            new[n] = blake2b(s.encode("ascii"), digest_size=16).hexdigest()
        cur = new
        counts.extend(sorted(Counter(new.values()).items()))
    return f"{len(labels)}-{len(edges)}-{_blake(str(tuple(counts)))}"


def fingerprint(spec: str | dict[str, Any], levels: Sequence[str] = LEVELS) -> dict[str, str]:
    """``{"exact", "mix", "graph"}`` digests of a spec (see the module docstring).

    Each is ``"<nodes>-<edges>-<32 hex>"``.  ``levels`` restricts the result to those levels
    (a stream guarding at ``reject="exact"`` needs the exact digest only).

    Raises
    ------
    ValueError
        Not an SCM spec (see :func:`graphs`), or an unknown level.
    """
    bad = [lv for lv in levels if lv not in LEVELS]
    if bad:
        raise ValueError(f"unknown fingerprint level(s) {bad}; choose from {list(LEVELS)}")
    g = _labelled(spec, levels)
    return {lv: _wl(g[lv]) for lv in ("graph", "mix", "exact") if lv in g}


#: The fields of a static spec's variable as :func:`fingerprint_spec` reads them; a variable
#: model with other fields takes the JSON path, so a new field is never skipped silently.
_VAR_FIELDS = (
    "name",
    "kind",
    "role",
    "parents",
    "mechanism",
    "root",
    "noise",
    "strength",
    "out_loc",
    "out_scale",
    "metadata",
)


def _block(c: Any) -> dict[str, Any] | None:
    return None if c is None else {"family": c.family, "params": c.params}


def fingerprint_spec(spec: Any, levels: Sequence[str] = LEVELS) -> dict[str, str]:
    """``fingerprint(spec.to_json(), levels)`` of a static :class:`~causalarena.spec.SCMSpec`,
    read from its attributes instead of a JSON round trip (a lab stream fingerprints every
    episode's SCM; parsing its JSON again was a third of that cost).

    The same digests: a validated spec's parameters and metadata are already plain JSON types
    (``spec.to_jsonable``; its float fields are floats), which JSON text returns unchanged;
    ``tests/test_stream.py`` compares both paths on lab, synthetic and hand-made specs.
    Another variable model (a field added or renamed) takes the JSON path.

    Raises
    ------
    ValueError
        An unknown level.
    """
    bad = [lv for lv in levels if lv not in LEVELS]
    if bad:
        raise ValueError(f"unknown fingerprint level(s) {bad}; choose from {list(LEVELS)}")
    vs = spec.variables
    if not vs or tuple(type(vs[0]).model_fields) != _VAR_FIELDS:
        return fingerprint(spec.to_json(), levels)
    d = {
        "variables": [
            {
                "name": v.name,
                "kind": v.kind,
                "role": v.role,
                "parents": v.parents,
                "mechanism": _block(v.mechanism),
                "root": _block(v.root),
                "noise": _block(v.noise),
                "strength": v.strength,
                "out_loc": v.out_loc,
                "out_scale": v.out_scale,
            }
            for v in vs
        ],
        "metadata": spec.metadata,
    }
    g = _static_labelled(d, levels, native=True)
    return {lv: _wl(g[lv]) for lv in ("graph", "mix", "exact") if lv in g}


def fingerprint_adjacency(A: Any) -> str:
    """``graph``-level digest of a bare adjacency matrix (``A[i, j] = 1`` iff ``i -> j``), for
    corpora that carry only graphs (e.g. ``.npz`` files with ``g``)."""
    import numpy as np

    A = np.asarray(A)
    edges = {(int(i), int(j)): "" for i, j in zip(*np.nonzero(A), strict=True)}
    return _wl(({i: "" for i in range(A.shape[0])}, edges))


def same_graph(a: str | dict[str, Any], b: str | dict[str, Any]) -> bool:
    """Exact isomorphism test of two specs' bare graphs (confirms a ``graph`` hash match)."""
    return nx.is_isomorphic(graphs(a)[0], graphs(b)[0])


def match(fp: dict[str, str], index: dict[str, set[str]]) -> str | None:
    """The strictest level at which ``fp`` is in ``index`` (``{level: set of digests}``)."""
    for level in LEVELS:
        if fp.get(level) in index.get(level, ()):
            return level
    return None
