"""Readers turning verified source files into :class:`RealTable` objects (one per dataset)."""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causalarena.generator.real import graphs as g
from causalarena.generator.real.registry import (
    SACHS_CONDITIONS,
    WT_REGIME_TARGETS,
    RealDataset,
    get_dataset,
    petshop_issue_paths,
)
from causalarena.generator.real.repairs import constant_columns
from causalarena.generator.real.sources import (
    MissingSourceError,
    RealDataError,
    SourceFile,
    default_cache_dir,
    fetch,
    resolve,
)


@dataclass
class RealTable:
    """One real dataset with its reference graphs.

    Attributes
    ----------
    name : str
        Registry name.
    variables : list of str
        Column names (length d).
    X : numpy.ndarray
        Shape (n, d), float32, in the source's units (see the registry's ``preprocessing``).
    mask : numpy.ndarray
        Shape (n, d), bool; ``mask[r, j]`` iff variable j was intervened on in row r.
        Observational rows (all False) come first.
    n_obs, n_int : int
        Observational and interventional rows.
    adjacency : numpy.ndarray
        Shape (d, d), int8, the pinned reference graph (``A[i, j] = 1`` iff i -> j).
    reference_graph : str
        Name of the pinned reference.
    alternatives : dict
        ``{name: adjacency (d, d) int8}`` of the alternative references.
    intervention_targets : list of str
        Variables intervened on in at least one row.
    files : list of dict
        ``{"path", "sha256", "verification", "origin", "url"}`` of each file read.
    info : dict
        Dataset-specific details (conditions and their row counts, dropped rows, episodes).
    """

    name: str
    variables: list[str]
    X: np.ndarray
    mask: np.ndarray
    n_obs: int
    n_int: int
    adjacency: np.ndarray
    reference_graph: str
    alternatives: dict[str, np.ndarray] = field(default_factory=dict)
    intervention_targets: list[str] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def d(self) -> int:
        """Number of variables."""
        return len(self.variables)

    @property
    def n_edges(self) -> int:
        """Edges of the pinned reference graph."""
        return int(np.count_nonzero(self.adjacency))

    def observational(self) -> RealTable:
        """The observation-only conversion: intervention rows dropped (``n_int = 0``)."""
        keep = ~self.mask.any(axis=1)
        return RealTable(
            name=self.name,
            variables=list(self.variables),
            X=self.X[keep],
            mask=np.zeros((int(keep.sum()), self.d), dtype=bool),
            n_obs=int(keep.sum()),
            n_int=0,
            adjacency=self.adjacency,
            reference_graph=self.reference_graph,
            alternatives=dict(self.alternatives),
            intervention_targets=[],
            files=list(self.files),
            info=dict(self.info),
        )

    def constant_columns(self) -> list[str]:
        """Names of the variables with zero range over the rows of this table."""
        return [self.variables[j] for j in constant_columns(self.X)]


class _Files:
    """Resolve and record the files of one dataset."""

    def __init__(self, ds: RealDataset, real_data_dir, cache_dir, download, allow_unpinned):
        self.ds, self.dir, self.cache = ds, real_data_dir, cache_dir
        self.download, self.allow_unpinned = download, allow_unpinned
        self.used: list[dict[str, Any]] = []

    def __call__(self, path: str) -> Path:
        sf: SourceFile = self.ds.file(path)
        p = resolve(
            sf,
            self.dir,
            cache_dir=self.cache,
            download_missing=self.download,
            allow_unpinned=self.allow_unpinned,
        )
        self._record(sf)
        return p

    def unzipped(self, path: str) -> dict[str, Path]:
        """Basename -> path of the CSVs of a zip fetched into the cache (pooch ``Unzip``)."""
        from causalarena._extras import require

        pooch = require("pooch", "build", "real-data source files")
        sf: SourceFile = self.ds.file(path)
        cache = self.cache if self.cache is not None else default_cache_dir()
        try:
            names = fetch(sf, cache, processor=pooch.Unzip())
        except MissingSourceError as exc:
            raise MissingSourceError(
                f"{sf.path}: not in {cache} and the download failed ({exc}); expected "
                f"{sf.expected()}; get it from {sf.url} or pass real_data_dir"
            ) from None
        self._record(sf)
        return {Path(n).name: Path(n) for n in sorted(names) if n.endswith(".csv")}

    def _record(self, sf: SourceFile) -> None:
        self.used.append(
            {
                "path": sf.path,
                "sha256": sf.sha256,
                "md5": sf.md5,
                "verification": sf.verification,
                "origin": sf.origin,
                "url": sf.url,
            }
        )


def _table(
    ds: RealDataset,
    X: np.ndarray,
    mask: np.ndarray,
    graphs: dict[str, np.ndarray],
    files: _Files,
    info: dict[str, Any],
) -> RealTable:
    """Assemble a table: check shapes, reorder rows observational-first, check graph sizes."""
    variables = list(ds.variables)
    d = len(variables)
    if X.ndim != 2 or X.shape[1] != d or mask.shape != X.shape:
        raise RealDataError(f"{ds.name}: table has shape {X.shape}, expected (n, {d})")
    for gname, A in graphs.items():
        n = int(np.count_nonzero(A))
        want = next(r.n_edges for r in ds.graphs if r.name == gname)
        if n != want:
            raise RealDataError(f"{ds.name}: reference {gname!r} has {n} edges, expected {want}")
    is_int = mask.any(axis=1)
    order = np.concatenate([np.flatnonzero(~is_int), np.flatnonzero(is_int)])
    X, mask = X[order], mask[order]
    targets = [variables[j] for j in np.flatnonzero(mask.any(axis=0))]
    return RealTable(
        name=ds.name,
        variables=variables,
        X=np.ascontiguousarray(X, dtype=np.float32),
        mask=np.ascontiguousarray(mask, dtype=bool),
        n_obs=int((~is_int).sum()),
        n_int=int(is_int.sum()),
        adjacency=graphs[ds.reference_graph],
        reference_graph=ds.reference_graph,
        alternatives={k: v for k, v in graphs.items() if k != ds.reference_graph},
        intervention_targets=targets,
        files=files.used,
        info=info,
    )


# ------------------------------------------------------------------------------------- Sachs
_SACHS_ALIASES = {
    # cdt names
    "praf": "Raf",
    "pmek": "Mek",
    "plcg": "Plcg",
    "p44/42": "Erk",
    "pakts473": "Akt",
    "pjnk": "Jnk",
    # ACI / JCI names
    "PLCg": "Plcg",
    "p38": "P38",
    "JNK": "Jnk",
}


def _sachs_name(name: str, variables: list[str]) -> str:
    if name in variables:
        return name
    if name in _SACHS_ALIASES:
        return _SACHS_ALIASES[name]
    for v in variables:  # cmu-phil lower-case names (plc = Plcg)
        if v.lower() == name.lower() or (name == "plc" and v == "Plcg"):
            return v
    raise RealDataError(f"Sachs: unknown protein name {name!r}")


def _read_sachs(ds: RealDataset, f: _Files, **_: Any) -> RealTable:
    variables = list(ds.variables)
    path = f("sachs/aci_sachs_14conditions.tsv")
    lines = path.read_text(encoding="utf-8").splitlines()
    header = [h.strip('"') for h in lines[0].split("\t")]
    if len(header) != 12 or header[-1] != "experiment":
        raise RealDataError(f"{path}: unexpected header {header}")
    if [_sachs_name(h, variables) for h in header[:11]] != variables:
        raise RealDataError(f"{path}: protein columns {header[:11]} do not match {variables}")
    try:
        data = np.array([[float(x) for x in ln.split("\t")] for ln in lines[1:] if ln.strip()])
    except ValueError as exc:
        raise RealDataError(f"{path}: non-numeric value ({exc})") from None
    cond = data[:, 11].astype(int)
    if set(np.unique(cond).tolist()) != set(SACHS_CONDITIONS):
        raise RealDataError(f"{path}: conditions {sorted(set(cond))}, expected 1..14")
    X = data[:, :11]
    mask = np.zeros(X.shape, dtype=bool)
    for c, (_, target) in SACHS_CONDITIONS.items():
        if target is not None:
            mask[cond == c, variables.index(target)] = True
    graphs = {
        "bnlearn-17": g.read_bif_edges(f("sachs/bnlearn_sachs.bif")),
        "cdt-18": g.read_cause_effect_csv(f("sachs/cdt_cyto_full_target.csv")),
        "jci-19": [
            (a, b)
            for a, b in g.read_dot_edges(f("sachs/jci_sachs-gt.dot"))[0]
            if a in header[:11] and b in header[:11]
        ],
        "cmu-20": g.read_tetrad_edges(f("sachs/cmu_sachs.2005.ground.truth.graph.txt")),
    }
    adj = {
        k: g.edges_to_adjacency(
            [(_sachs_name(a, variables), _sachs_name(b, variables)) for a, b in e], variables
        )
        for k, e in graphs.items()
    }
    # observational conditions first, each condition's rows in file order
    order = np.argsort(np.where(np.isin(cond, (1, 2)), 0, cond), kind="stable")
    info = {
        "conditions": [
            {"condition": c, "reagents": r, "target": t, "rows": int((cond == c).sum())}
            for c, (r, t) in SACHS_CONDITIONS.items()
        ]
    }
    return _table(ds, X[order], mask[order], adj, f, info)


# ------------------------------------------------------------------------------------ CD-CSG
def _read_whitespace_table(path: Path, d: int) -> np.ndarray:
    rows = []
    for k, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = ln.split()
        if not parts:
            continue  # blank line (cad.txt ends with a line of tabs)
        if len(parts) != d:
            raise RealDataError(f"{path}: line {k} has {len(parts)} values, expected {d}")
        try:
            rows.append([float(x) for x in parts])
        except ValueError as exc:
            raise RealDataError(f"{path}: line {k}: {exc}") from None
    return np.array(rows, dtype=np.float64).reshape(-1, d)


def _read_cdcsg(ds: RealDataset, f: _Files, *, autompg_missing: str = "drop", **_: Any):
    stem = ds.options["stem"]
    d = len(ds.variables)
    X = _read_whitespace_table(f(f"cdcsg/{stem}.txt"), d)
    A = g.read_matrix_txt(f(f"cdcsg/{stem}_gt.txt"))
    if A.shape != (d, d):
        raise RealDataError(f"{ds.name}: ground truth is {A.shape}, expected ({d}, {d})")
    info: dict[str, Any] = {"rows_in_file": int(X.shape[0])}
    if stem == "autompg":
        if autompg_missing not in ("drop", "keep"):
            raise ValueError(f"autompg_missing must be 'drop' or 'keep', got {autompg_missing!r}")
        zero = X[:, ds.variables.index("Horsepower")] == 0
        info["horsepower_zero_rows"] = int(zero.sum())
        info["autompg_missing"] = autompg_missing
        if autompg_missing == "drop":
            X = X[~zero]
    return _table(ds, X, np.zeros(X.shape, dtype=bool), {ds.reference_graph: A}, f, info)


# ----------------------------------------------------------------------------------- PetShop
def read_petshop_metrics(
    path: str | os.PathLike, nodes: list[str], metric: str = "latency", statistic: str = "Average"
) -> tuple[np.ndarray, np.ndarray]:
    """One ``metrics.csv`` as an (n, len(nodes)) float64 array of one metric per node.

    The file has three header rows (microservice, metric, statistic), a ``unix_timestamp``
    row, then one row per 300-s step whose first cell is the timestamp.  Empty cells and nodes
    without a column are NaN.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Values (n, len(nodes)) float64 and timestamps (n,) float64 (unix seconds).

    Raises
    ------
    RealDataError
        If the header rows are not as documented.
    """
    import csv

    path = Path(path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 4 or [r[0] for r in rows[:4]] != [
        "microservice",
        "metric",
        "statistic",
        "unix_timestamp",
    ]:
        raise RealDataError(
            f"{path}: expected header rows microservice/metric/statistic/unix_timestamp"
        )
    col = {}
    for j, (svc, met, stat) in enumerate(zip(rows[0], rows[1], rows[2], strict=False)):
        if j and met == metric and stat == statistic:
            col[svc] = j
    body = [r for r in rows[4:] if r and r[0]]
    out = np.full((len(body), len(nodes)), np.nan)
    for j, node in enumerate(nodes):
        if node in col:
            c = col[node]
            out[:, j] = [float(r[c]) if c < len(r) and r[c] != "" else np.nan for r in body]
    return out, np.array([float(r[0]) for r in body])


def _read_petshop(ds: RealDataset, f: _Files, **_: Any) -> RealTable:
    sc = ds.options["scenario"]
    nodes = list(ds.variables)
    call, names = g.read_named_adjacency_csv(f(f"petshop/{sc}/graph.csv"))
    if names != nodes:
        raise RealDataError(f"{ds.name}: graph.csv nodes differ from the registry's")
    met, stat = ds.options["metric"], ds.options["statistic"]
    obs, _ = read_petshop_metrics(f(f"petshop/{sc}/noissue/metrics.csv"), nodes, met, stat)
    parts, masks, episodes = [obs], [np.zeros(obs.shape, dtype=bool)], []
    for ep in petshop_issue_paths(sc):
        vals, _ = read_petshop_metrics(f(f"{ep}/metrics.csv"), nodes, met, stat)
        tpath = f(f"{ep}/target.json")
        try:
            root = json.loads(tpath.read_text(encoding="utf-8"))["root_cause"]["node"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise RealDataError(f"{tpath}: no root_cause.node ({exc})") from None
        if root not in nodes:
            raise RealDataError(f"{tpath}: root cause {root!r} is not a graph node")
        m = np.zeros(vals.shape, dtype=bool)
        m[:, nodes.index(root)] = True
        parts.append(vals)
        masks.append(m)
        episodes.append(
            {"episode": ep.split(f"{sc}/", 1)[1], "root_cause": root, "rows": len(vals)}
        )
    X = np.nan_to_num(np.concatenate(parts), nan=0.0)
    mask = np.concatenate(masks)
    graphs = {"reversed-call-graph": call.T.copy(), "call-graph": call}
    info = {"episodes": episodes, "metric": f"{met}/{stat}"}
    return _table(ds, X, mask, graphs, f, info)


# ---------------------------------------------------------------------------------- Chambers
def chamber_graph(path: str | os.PathLike, variables: list[str] | None = None) -> np.ndarray:
    """A Causal Chambers ground-truth adjacency (``adjacency_*.csv``), optionally reindexed.

    Parameters
    ----------
    path : path
        CSV with row and column names; non-zero (row i, column j) means i -> j.
    variables : list of str, optional
        Return the subgraph induced by these variables, in this order.

    Returns
    -------
    numpy.ndarray
        (d, d) int8.
    """
    A, names = g.read_named_adjacency_csv(path)
    if variables is None:
        return A
    return g.induced_subgraph(A, names, list(variables))[0]


def _chamber_csvs(ds: RealDataset, f: _Files, experiments: list[str]) -> dict[str, bytes]:
    """CSV bytes of experiments, from the md5-verified zip or an extracted folder."""
    name = ds.options["dataset"]
    zsf = ds.file(f"chambers/{name}.zip")
    base = Path(f.dir) if f.dir is not None else None
    folder = base / "chambers" / name if base is not None else None
    zpath = base / zsf.path if base is not None else None
    if folder is not None and folder.is_dir() and not (zpath is not None and zpath.is_file()):
        if not f.allow_unpinned:
            raise RealDataError(
                f"{folder}: extracted CSVs have no published checksum; supply the zip "
                f"{zsf.path} (md5 {zsf.md5}, {zsf.url}) or pass allow_unpinned=True"
            )
        out = {}
        for e in experiments:
            p = folder / f"{e}.csv"
            if not p.is_file():
                raise RealDataError(f"{p}: experiment file missing")
            out[e] = p.read_bytes()
        f.used.append({"path": f"chambers/{name}/", "verification": "unpinned", "url": zsf.url})
        return out
    if f.dir is None and f.download:
        extracted = f.unzipped(zsf.path)  # pooch.Unzip: extracted once into the cache
        for e in experiments:
            if f"{e}.csv" not in extracted:
                raise RealDataError(f"{zsf.path}: no {e}.csv in the archive")
        return {e: extracted[f"{e}.csv"].read_bytes() for e in experiments}
    zp = f(zsf.path)  # verified zip in the offline folder (read in place, nothing written)
    out = {}
    with zipfile.ZipFile(zp) as z:
        members = {Path(m).name: m for m in z.namelist() if m.endswith(".csv")}
        for e in experiments:
            if f"{e}.csv" not in members:
                raise RealDataError(f"{zp}: no {e}.csv in the archive")
            out[e] = z.read(members[f"{e}.csv"])
    return out


def _csv_columns(raw: bytes, columns: list[str], where: str) -> tuple[np.ndarray, dict]:
    import pandas as pd

    df = pd.read_csv(io.BytesIO(raw))
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise RealDataError(f"{where}: missing columns {missing}")
    return df[columns].to_numpy(dtype=np.float64), df


def _read_light_tunnel(ds: RealDataset, f: _Files, **_: Any) -> RealTable:
    variables = list(ds.variables)
    A = chamber_graph(f("chambers/adjacency_lt_standard.csv"), variables)
    exps = list(ds.options["experiments"])
    raw = _chamber_csvs(ds, f, exps)
    parts, masks, info = [], [], []
    for e in exps:
        vals, _ = _csv_columns(raw[e], variables, f"{ds.options['dataset']}/{e}.csv")
        m = np.zeros(vals.shape, dtype=bool)
        target = lt_experiment_target(e, variables)
        if target is not None:
            m[:, variables.index(target)] = True
        parts.append(vals)
        masks.append(m)
        info.append({"experiment": e, "target": target, "rows": len(vals)})
    X, mask = np.concatenate(parts), np.concatenate(masks)
    return _table(ds, X, mask, {"lt-standard": A}, f, {"experiments": info})


def lt_experiment_target(experiment: str, variables: list[str]) -> str | None:
    """Target encoded in a light-tunnel experiment name (``uniform_<var>_<strength>``).

    Returns None for ``uniform_reference``.

    Raises
    ------
    RealDataError
        If the name does not follow the pattern or names an unknown variable.
    """
    if experiment == "uniform_reference":
        return None
    for strength in ("_weak", "_mid", "_strong"):
        if experiment.startswith("uniform_") and experiment.endswith(strength):
            var = experiment[len("uniform_") : -len(strength)]
            if var in variables:
                return var
    raise RealDataError(f"experiment {experiment!r}: no target variable encoded in the name")


def _read_wind_tunnel(ds: RealDataset, f: _Files, **_: Any) -> RealTable:
    variables = list(ds.variables)
    graphs = {
        "wt-standard": chamber_graph(f("chambers/adjacency_wt_standard.csv"), variables),
        "wt-pressure-control": chamber_graph(
            f("chambers/adjacency_wt_pressure-control.csv"), variables
        ),
    }
    e = ds.options["experiment"]
    raw = _chamber_csvs(ds, f, [e])[e]
    X, df = _csv_columns(raw, variables, f"{ds.options['dataset']}/{e}.csv")
    if "flag" not in df.columns:
        raise RealDataError(f"{e}.csv: no 'flag' column (regime number)")
    flags = df["flag"].to_numpy()
    levels = np.unique(flags)
    if len(levels) != len(WT_REGIME_TARGETS):
        raise RealDataError(
            f"{e}.csv: {len(levels)} regimes in 'flag', expected {len(WT_REGIME_TARGETS)}"
        )
    regime = np.searchsorted(levels, flags)
    mask = np.zeros(X.shape, dtype=bool)
    for k, targets in enumerate(WT_REGIME_TARGETS):
        for t in targets:
            mask[regime == k, variables.index(t)] = True
    info = {"regimes": [{"regime": k, "targets": list(t)} for k, t in enumerate(WT_REGIME_TARGETS)]}
    return _table(ds, X, mask, graphs, f, info)


_READERS = {
    "sachs": _read_sachs,
    "cdcsg": _read_cdcsg,
    "petshop": _read_petshop,
    "chambers-light-tunnel": _read_light_tunnel,
    "chambers-wind-tunnel": _read_wind_tunnel,
}


def load_real(
    name: str,
    real_data_dir: str | os.PathLike | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    download: bool = True,
    allow_unpinned: bool = False,
    autompg_missing: str = "drop",
) -> RealTable:
    """Load one real dataset from verified source files.

    Parameters
    ----------
    name : str
        Registry name (``causalarena.generator.real.REGISTRY``), e.g. ``"sachs"``.
    real_data_dir : path, optional
        Offline folder with the source layout (``sachs/``, ``cdcsg/``, ``petshop/``,
        ``chambers/``).  Without it, files come from the cache or are downloaded.
    cache_dir : path, optional
        Download cache (default ``$CAUSALARENA_REAL_CACHE`` or ``~/.cache/causalarena/real``).
    download : bool, default=True
        Download files missing from the cache (ignored with ``real_data_dir``).
    allow_unpinned : bool, default=False
        Accept files without a published checksum (extracted Causal Chambers CSVs).
    autompg_missing : {"drop", "keep"}, default="drop"
        Auto MPG rows with Horsepower = 0 (UCI's missing values): drop them (392 rows) or
        keep them as recorded (398 rows).

    Returns
    -------
    RealTable

    Raises
    ------
    KeyError
        Unknown dataset name.
    MissingSourceError
        A source file is missing and could not be obtained (names file, checksum and URL).
    SourceChecksumError
        A source file does not match its expected checksum.
    RealDataError
        A file is not in its documented format.
    """
    ds = get_dataset(name)
    files = _Files(ds, real_data_dir, cache_dir, download, allow_unpinned)
    reader = _READERS.get(ds.name) or _READERS[ds.group]
    return reader(ds, files, autompg_missing=autompg_missing)
