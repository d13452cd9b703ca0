"""Plots stay readable with many methods: curves against d are capped at MAX_CURVES."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from PIL import Image

from causalarena.eval import plots


def _table(n):
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        rng.random((n, 3)), index=[f"m{k:03d}" for k in range(n)], columns=[10, 20, 50]
    )


def test_curves_against_d_of_250_methods_keep_their_axes(tmp_path, monkeypatch):
    titles = []
    real = plots._save

    def spy(fig, path, metadata):
        ax = fig.axes[0]
        titles.append((ax.get_title(), [ln.get_label() for ln in ax.get_lines()]))
        return real(fig, path, metadata)

    monkeypatch.setattr(plots, "_save", spy)
    table = _table(250)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # constrained_layout's "axes sizes collapsed" warning
        path = plots.plot_metric_vs_d(table, tmp_path / "f1_vs_d.png")
    title, labels = titles[0]
    assert f"({plots.MAX_CURVES} best of 250 methods)" in title
    best = table.mean(axis=1).sort_values(ascending=False).index[: plots.MAX_CURVES]
    assert sorted(labels) == sorted(best)
    assert Image.open(path).size[0] < 1500


def test_few_methods_draw_every_curve_with_the_plain_title(tmp_path, monkeypatch):
    seen = []
    real = plots._save
    monkeypatch.setattr(
        plots, "_save", lambda fig, p, m: (seen.append(fig.axes[0]), real(fig, p, m))[1]
    )
    plots.plot_metric_vs_d(_table(plots.MAX_CURVES), tmp_path / "x.png")
    assert len(seen[0].get_lines()) == plots.MAX_CURVES
    assert seen[0].get_title() == "F1 against dimension"
