"""Sample-size and intervention-protocol sensitivity (CausalArena paper section 5.3).

Tables of the ``arena-samplesize`` and ``arena-protocols`` suites
(:mod:`causalarena.generator.protocols`), computed from the replicate-averaged instance
scores of :func:`causalarena.eval.analyses.instance_scores`:

- :func:`protocol_table` (paper Table 3): per method and protocol the mean and SD of F1 and
  SHD over the suite's SCMs, the change relative to Default (mean over the SCMs scored under
  both protocols of the paired difference), and per method the SD of its protocol mean F1s
  across the protocols (sample SD, ``ddof=1``; lower = less sensitive);
- :func:`samplesize_table` (paper Figure 6a / Table 18): mean F1 and SHD per method and n.

Configs are recognised by name (``protocols-<protocol>``, ``samplesize-n<n>``), so these
tables need no column beyond the scorer's ``config``.

Coverage rule: by default an instance a method did not run (missing, failed, timed out,
invalid) counts with the scorer's fallback, the empty graph (paper B.1), so a method that
skips the hard protocols is not rewarded.  :func:`run_instances` is the documented
alternative: only the instances the method ran (``status == "ok"``), each scored by its ok
runs -- the protocol effect on what the method actually produced.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from causalarena.generator.protocols.protocols import PROTOCOLS

__all__ = [
    "PROTOCOL_PREFIX",
    "SAMPLESIZE_PREFIX",
    "format_protocol_table",
    "protocol_of",
    "protocol_table",
    "run_instances",
    "samplesize_table",
    "size_of",
]

PROTOCOL_PREFIX = "protocols-"
SAMPLESIZE_PREFIX = "samplesize-n"
DEFAULT = "default"
_ORDER = [p.name for p in PROTOCOLS]
_LABEL = {p.name: p.label for p in PROTOCOLS}


def protocol_of(config: str) -> str | None:
    """Protocol name of a ``protocols-<name>`` config, else None."""
    c = str(config)
    return c[len(PROTOCOL_PREFIX) :] if c.startswith(PROTOCOL_PREFIX) else None


def size_of(config: str) -> int | None:
    """n of a ``samplesize-n<n>`` config, else None."""
    c = str(config)
    tail = c[len(SAMPLESIZE_PREFIX) :]
    return int(tail) if c.startswith(SAMPLESIZE_PREFIX) and tail.isdigit() else None


def run_instances(inst: pd.DataFrame, metrics: tuple[str, ...] = ("f1", "shd")) -> pd.DataFrame:
    """The instance scores restricted to the instances that were run.

    Parameters
    ----------
    inst : pandas.DataFrame
        Instance scores of :func:`causalarena.eval.analyses.instance_scores` (``n_ok`` and the
        ``<metric>_ok`` columns).
    metrics : tuple of str, default ("f1", "shd")

    Returns
    -------
    pandas.DataFrame
        The cells with at least one ``ok`` run; each metric replaced by its mean over the ok
        runs (``<metric>_ok``), so the empty-graph fallback of the coverage rule never enters.

    Raises
    ------
    ValueError
        ``inst`` lacks ``n_ok`` (not a table of instance scores).
    """
    if "n_ok" not in inst.columns:
        raise ValueError("run_instances needs instance scores with an 'n_ok' column")
    out = inst[pd.to_numeric(inst["n_ok"], errors="coerce").fillna(0) > 0].copy()
    for m in metrics:
        if f"{m}_ok" in out.columns:
            out[m] = out[f"{m}_ok"]
    return out


def protocol_table(inst: pd.DataFrame, metrics: tuple[str, ...] = ("f1", "shd")) -> pd.DataFrame:
    """Paper Table 3 in long form.

    Parameters
    ----------
    inst : pandas.DataFrame
        Instance scores (one row per method x config x SCM) with ``config``, ``scm_id`` and
        the metric columns; rows of other configs are ignored.
    metrics : tuple of str, default ("f1", "shd")

    Returns
    -------
    pandas.DataFrame
        One row per method x protocol (protocols in paper order): ``method``, ``protocol``,
        ``n_instances`` and for each metric ``<m>``, ``<m>_sd``, ``delta_<m>`` (NaN for
        Default or without paired SCMs); plus ``f1_sd_protocols`` (same value on every row
        of a method; NaN with fewer than two protocols).  Empty when no protocol config is
        present.
    """
    cols = ["method", "protocol", "n_instances"]
    for m in metrics:
        cols += [m, f"{m}_sd", f"delta_{m}"]
    cols.append("f1_sd_protocols")
    if inst.empty or "config" not in inst.columns:
        return pd.DataFrame(columns=cols)
    df = inst.assign(protocol=inst["config"].map(protocol_of))
    df = df[df["protocol"].notna()]
    metrics = tuple(m for m in metrics if m in df.columns)
    if df.empty or not metrics:
        return pd.DataFrame(columns=cols)
    rows = []
    for method, g in df.groupby("method", sort=True):
        by_p = {p: s.set_index("scm_id") for p, s in g.groupby("protocol")}
        base = by_p.get(DEFAULT)
        order = [p for p in _ORDER if p in by_p] + sorted(set(by_p) - set(_ORDER))
        for p in order:
            s = by_p[p]
            row = {"method": method, "protocol": p, "n_instances": int(len(s))}
            for m in metrics:
                v = pd.to_numeric(s[m], errors="coerce")
                row[m] = float(v.mean())
                row[f"{m}_sd"] = float(v.std(ddof=1)) if v.notna().sum() > 1 else np.nan
                if base is None or p == DEFAULT:
                    row[f"delta_{m}"] = np.nan
                else:
                    b = pd.to_numeric(base[m], errors="coerce")
                    common = v.index.intersection(b.index)
                    diff = (v.loc[common] - b.loc[common]).dropna()
                    row[f"delta_{m}"] = float(diff.mean()) if len(diff) else np.nan
            rows.append(row)
    out = pd.DataFrame(rows)
    for m in out["method"].unique():
        sel = out["method"] == m
        f1 = out.loc[sel, "f1"].dropna() if "f1" in out else pd.Series(dtype=float)
        out.loc[sel, "f1_sd_protocols"] = float(f1.std(ddof=1)) if len(f1) > 1 else np.nan
    return out.reindex(columns=[c for c in cols if c in out.columns])


def format_protocol_table(table: pd.DataFrame, missing: str = "–") -> pd.DataFrame:
    """Wide Table 3: one row per method, one ``F1 / SHD`` cell per protocol (the F1 change
    relative to Default in brackets for the other protocols) and the ``F1 SD`` column."""
    if table.empty:
        return pd.DataFrame()
    protocols = list(dict.fromkeys(table["protocol"]))
    rows = []
    for method, g in table.groupby("method", sort=True):
        g = g.set_index("protocol")
        row = {"Method": method}
        for p in protocols:
            if p not in g.index:
                row[_LABEL.get(p, p)] = missing
                continue
            r = g.loc[p]
            f1 = missing if pd.isna(r.get("f1")) else f"{r['f1']:.3f}"
            shd = missing if pd.isna(r.get("shd")) else f"{r['shd']:.1f}"
            cell = f"{f1} / {shd}"
            if p != DEFAULT and not pd.isna(r.get("delta_f1")):
                cell += f" ({r['delta_f1']:+.3f})"
            row[_LABEL.get(p, p)] = cell
        sd = g["f1_sd_protocols"].iloc[0]
        row["F1 SD"] = missing if pd.isna(sd) else f"{sd:.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


def samplesize_table(inst: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    """Mean ``metric`` per method (index) and sample size n (int columns, increasing) over
    the ``samplesize-n<n>`` configs; empty when none is present."""
    if inst.empty or "config" not in inst.columns or metric not in inst.columns:
        return pd.DataFrame()
    df = inst.assign(_n=inst["config"].map(size_of))
    df = df[df["_n"].notna()]
    if df.empty:
        return pd.DataFrame()
    df = df.assign(_n=df["_n"].astype(int), _v=pd.to_numeric(df[metric], errors="coerce"))
    table = df.pivot_table(index="method", columns="_n", values="_v", aggfunc="mean")
    table = table.reindex(columns=sorted(table.columns))
    table.columns.name = "n"
    table.index.name = "method"
    return table
