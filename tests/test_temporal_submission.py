"""DoTime metric parity and the ctp-submission/1 format (issue 14 section 2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from causalarena.eval import temporal as H
from causalarena.eval import temporal_submission as C


def _dotime_eval():
    pytest.importorskip("torch", reason="dotime needs torch")
    return pytest.importorskip("dotime.evaluation", reason="dotime==0.2.0 not installed (extra)")


@pytest.mark.parametrize("seed", range(6))
def test_metrics_match_dotimes_functions_on_random_inputs(seed):
    E = _dotime_eval()
    import torch

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    y = rng.normal(0, rng.uniform(0.05, 3), n).astype(np.float32)
    y[rng.random(n) < 0.1] = rng.uniform(-0.09, 0.09)  # near-zero targets
    p = (y + rng.normal(0, 1, n)).astype(np.float32)
    p[rng.random(n) < 0.05] = 0.0  # a zero prediction has no sign: wrong for DoTime
    obs = (y + rng.normal(0, 0.5, n)).astype(np.float32)
    tp, ty = torch.from_numpy(p), torch.from_numpy(y)
    y64, p64, o64 = (a.astype(np.float64) for a in (y, p, obs))
    assert H.nmse(p64, y64) == pytest.approx(E.compute_nmse(tp, ty), rel=1e-5)
    assert H.r2(p64, y64) == pytest.approx(E.compute_r2(tp, ty), rel=1e-5, abs=1e-6)
    g = C.group_metrics(p64, y64, o64, "effect")
    assert g["rmse"] == pytest.approx(E.compute_rmse(tp, ty), rel=1e-5)
    assert g["mae"] == pytest.approx(E.compute_mae(tp, ty), rel=1e-5)
    for name, (pp, tt) in {"level": (p, y), "effect": (p - obs, y - obs)}.items():
        d = E.direction_accuracy(torch.from_numpy(pp), torch.from_numpy(tt))
        assert g[f"dir_n_valid_{name}"] == d["n_valid"]
        assert g[f"dir_acc_{name}"] == pytest.approx(d["accuracy"], abs=1e-7)
    # the harness's own groups agree with DoTime too (level and effect direction, binomial SE)
    q = {
        "y": y64,
        "p": p64,
        "yf": o64,
        "pe": p64 - o64,
        "var": np.ones(n),
        "naive": o64,
    }
    h = H._group(q)
    assert h["direction_level"]["n"] == g["dir_n_valid_level"]
    assert h["direction_level"]["acc"] == pytest.approx(g["dir_acc_level"])
    assert h["direction_effect"]["se"] == pytest.approx(g["dir_acc_se_effect"])
    assert h["nmse"] == pytest.approx(E.compute_nmse(tp, ty), rel=1e-5)
    # bootstrap: the same resampling gives the same numbers as dotime.evaluation.bootstrap_ci
    vals = np.abs(p64 - y64)
    assert H.bootstrap_ci(vals) == pytest.approx(E.bootstrap_ci(vals.tolist()), rel=1e-12)
    lo, hi = h["ci"]["mae"]
    assert (lo, hi) == pytest.approx(E.bootstrap_ci(vals.tolist())[2:], rel=1e-12)
    assert lo <= h["mae"] <= hi


def test_degenerate_groups_are_null_like_dotimes_nan():
    E = _dotime_eval()
    import torch

    y = np.full(5, 2.0)
    p = np.arange(5.0)
    assert H.nmse(p, y) is None and np.isnan(E.compute_nmse(torch.tensor(p), torch.tensor(y)))
    assert H.r2(p, y) is None and np.isnan(E.compute_r2(torch.tensor(p), torch.tensor(y)))
    g = C.group_metrics(p, np.full(5, 0.01), None, "level")
    assert g["dir_n_valid"] == 0 and g["dir_acc"] is None and "dir_acc_effect" not in g


def test_lift_and_effect_error_correlation():
    rng = np.random.default_rng(0)
    n = 200
    y = rng.normal(0, 1, n)
    naive = y + rng.normal(0, 1, n)
    p = y + rng.normal(0, 0.5, n)
    eff = rng.normal(0, 2, n)
    q = {"y": y, "p": p, "yf": y - eff, "pe": p - y + eff, "var": np.ones(n), "naive": naive}
    h = H._group(q)
    want = 1 - np.sqrt(np.mean((p - y) ** 2)) / np.sqrt(np.mean((naive - y) ** 2))
    assert h["lift_over_naive"] == pytest.approx(want) and 0.3 < want < 0.7
    assert abs(h["effect_error_corr"]) < 0.2  # errors unrelated to the effect size here
    p2 = y + np.abs(eff) * rng.choice([-1, 1], n)  # error grows with the effect
    h2 = H._group({**q, "p": p2})
    assert h2["effect_error_corr"] > 0.9
    lo, hi = h["ci"]["rmse"]
    assert lo < h["rmse"] < hi


@pytest.fixture(scope="module")
def scored():
    """A small generic run of the harness (zero and last-value models)."""
    from causalarena.generator.temporal import suites as S
    from causalarena.generator.temporal.storage import decode_row, episodes_to_arrow

    s = S.get_temporal_suite("dot-identifiability")
    eps = S.generate_suite_episodes(s, s.public_indices("mini")[:18])
    rows = [decode_row(r) for r in episodes_to_arrow(eps).to_pylist()]

    class Last:
        name = "last-value"

        def predict(self, v):
            x = v.x_context[:, v.query_column]
            return np.full(len(v.query_times), x[np.isfinite(x)][-1])

    return rows, H.evaluate(Last(), rows, isolation="none")


def test_harness_result_carries_a_submission_and_round_trips(scored, tmp_path):
    rows, res = scored
    sub = res["dotime"]
    assert list(sub) == list(C.TOP_KEYS) and sub["schema"] == "ctp-submission/1"
    assert sub["suite"] == "dot-Identifiability-v1" and sub["model"] == "last-value"
    assert sub["pairs_share_noise"] is True and sub["dir_target"] == "effect"
    assert sub["pooled"]["rmse"] == pytest.approx(res["pooled"]["rmse"], rel=1e-12)
    # the last-value model is the naive baseline: zero lift
    assert res["pooled"]["lift_over_naive"] == pytest.approx(0.0, abs=1e-12)
    assert "back_door" in sub["per_structure"] and "backdoor" not in sub["per_structure"]
    assert sub["n_queries"] == sum(len(r["y_true"]) for r in rows)
    path = C.write_submission(sub, tmp_path / "sub.json")
    back = C.read_submission(path)
    assert back == json.loads(json.dumps(sub))
    text = path.read_text()
    assert "NaN" not in text


def test_reader_refuses_bad_files(tmp_path, scored):
    _, res = scored
    p = tmp_path / "s.json"
    for edit, msg in (
        (lambda d: d.update(schema="ctp-submission/2"), "expected 'ctp-submission/1'"),
        (lambda d: d.pop("per_structure"), "missing field 'per_structure'"),
        (lambda d: d["pooled"].update(rmse="low"), "pooled.rmse: must be a number"),
        (lambda d: d.update(n_queries=-1), "field n_queries must be a count, got -1"),
    ):
        d = json.loads(json.dumps(res["dotime"]))
        edit(d)
        p.write_text(json.dumps(d))
        with pytest.raises(C.SubmissionError, match=msg) as ei:
            C.read_submission(p)
        assert str(p) in str(ei.value)
    p.write_text("{not json")
    with pytest.raises(C.SubmissionError, match="not a readable JSON document"):
        C.read_submission(p)
    # hostile but well-formed documents (breaker): one SubmissionError each, never a crash
    base = json.loads(json.dumps(res["dotime"]))
    for text, msg in (
        ("[" * 100_000 + "]" * 100_000, "not a readable JSON document"),
        (
            json.dumps(base).replace(
                '"n_episodes": ', '"n_episodes": ' + "9" * 5000 + ', "x": ', 1
            ),
            "not a readable JSON document",
        ),
        (json.dumps({**base, "pooled": {**base["pooled"], "rmse": 10**400}}), "is not a metric"),
        (json.dumps({**base, "suite": {"a": 1}}), "field suite must be a printable name"),
        (json.dumps({**base, "suite": "x\x1b[2Jfake"}), "field suite must be a printable name"),
        (json.dumps({**base, "dir_target": "z" * 10_000_000}), "field dir_target is z"),
    ):
        p.write_text(text)
        with pytest.raises(C.SubmissionError, match=msg) as ei:
            C.read_submission(p)
        assert len(str(ei.value)) < 400


def _dotime_suite(n=6):
    pytest.importorskip("torch", reason="dotime needs torch")
    B = pytest.importorskip("dotime.benchmarks", reason="dotime==0.2.0 not installed (extra)")
    meta = next(
        v["dot-Generic-100k"]
        for v in vars(B).values()
        if isinstance(v, dict) and "dot-Generic-100k" in v
    )
    return B._generate_fallback(meta, n=n)


def test_a_file_written_by_dotimes_own_submission_tool_is_read(tmp_path, monkeypatch):
    """dotime-eval-submission (its main(), the leaderboard writer) on a locally generated suite;
    our reader accepts it, and our writer produces the same keys at every level."""
    suite = _dotime_suite()
    from dotime.reference import submission as DS

    monkeypatch.setattr(DS, "load_benchmark", lambda name: suite)
    out = tmp_path / "dotime.json"
    argv = ["--suite", "dot-Generic-100k", "--baseline", "AR1", "--out", str(out)]
    assert DS.main([*argv, "--target-qa", "warn"]) == 0
    theirs = C.read_submission(out)
    raw = json.loads(out.read_text())
    assert theirs["schema"] == "ctp-submission/1" and theirs["baseline"] == "AR1"
    assert theirs["pooled"]["rmse"] == raw["pooled"]["rmse"]
    # the same predictions through our writer: the same document up to float32 rounding
    import torch
    from dotime.baselines import get
    from dotime.evaluation import query_obs_levels

    model = get("AR1")
    recs = []
    for ep in suite:
        pred = torch.as_tensor(model.predict(ep)).reshape(-1).double().numpy()
        row = {
            "y_true": ep.y_true.reshape(-1).double().numpy(),
            "y_factual": query_obs_levels(ep).double().numpy(),
            "pair_mode": "interventional",
            "structure": "diverse",  # DoTime's generic episodes have no structure
            "suite": "dot-Generic-100k",
        }
        recs.append({"mean": pred, "row": row})
    ours = C.submission(recs, model="AR1")
    assert set(ours) == set(theirs) and set(ours["pooled"]) == set(theirs["pooled"])
    assert set(ours["target_qa"]) == set(theirs["target_qa"])
    assert ours["suite"] == theirs["suite"] and ours["per_structure"] == theirs["per_structure"]
    for k in ("dir_target", "dir_target_mode", "pairs_share_noise", "n_episodes", "n_queries"):
        assert ours[k] == theirs[k], k
    for k, v in theirs["pooled"].items():
        if v is None:
            assert ours["pooled"][k] is None, k
        elif isinstance(v, int):
            assert ours["pooled"][k] == v, k
        else:
            assert ours["pooled"][k] == pytest.approx(v, rel=1e-5, abs=1e-6), k


def test_cli_evaluate_writes_and_check_reads_a_submission(tmp_path, capsys):
    import pyarrow.parquet as pq

    from causalarena.cli import main
    from causalarena.generator.temporal import suites as S
    from causalarena.generator.temporal.storage import episodes_to_arrow

    s = S.get_temporal_suite("dot-regimes")
    eps = S.generate_suite_episodes(s, s.public_indices("mini")[:6])
    rel = tmp_path / "rel"
    (rel / "data" / "dot-regimes").mkdir(parents=True)
    pq.write_table(
        episodes_to_arrow(eps), rel / "data" / "dot-regimes" / "test-00000-of-00001.parquet"
    )
    model = tmp_path / "m" / "model.py"
    model.parent.mkdir()
    model.write_text(
        "import numpy as np\n"
        "class M:\n"
        "    def predict(self, v):\n"
        "        return np.ones(len(v.query_times))\n"
    )
    out = tmp_path / "sub.json"
    argv = ["temporal", "evaluate", str(rel), "--config", "dot-RegimeSwitch-v1"]
    assert main([*argv, "--model", f"{model}:M", "--submission", str(out)]) == 2  # no manifest
    assert "manifest.json" in capsys.readouterr().err
    argv.append("--no-verify")  # hand-made shards, not a release
    assert main([*argv, "--model", f"{model}:M", "--name", "ones", "--submission", str(out)]) == 0
    d = C.read_submission(out)
    y = np.concatenate([e.y_true for e in eps])
    assert d["model"] == "ones" and d["suite"] == "dot-RegimeSwitch-v1"
    assert d["pooled"]["rmse"] == pytest.approx(np.sqrt(np.mean((1 - y) ** 2)))
    assert set(d["per_structure"]) <= {"regime_2", "regime_3", "regime_5"}
    assert main(["temporal", "check-submission", str(out)]) == 0
    assert "dot-RegimeSwitch-v1 | ones: 6 episodes" in capsys.readouterr().out
    out.write_text("{}")
    assert main(["temporal", "check-submission", str(out)]) == 2
    assert str(out) in capsys.readouterr().err
    assert main([*argv, "--baseline", "nope"]) == 2
    assert "known: backdoor_ols" in capsys.readouterr().err
