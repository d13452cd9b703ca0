"""`causalarena info` (and the summary printed after `build`) works for every family, not only
the arena's: a lab release has none of the arena's columns."""

import pyarrow.parquet as pq


def test_info_of_a_lab_release_counts_rows_per_config(tmp_path, capsys):
    from causalarena.cli import main
    from causalarena.release.engine import build

    out = build("lab-main", scale="mini", out=tmp_path / "lab", quiet=True)
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    for config in ("main-3nodes", "main-7nodes"):
        rows = pq.read_table(out / "data" / config).num_rows
        line = next(ln for ln in text.splitlines() if config in ln)
        assert f" {rows} " in line.replace("│", " ")
    assert "error" not in text


def test_lab_env_is_a_top_level_attribute():
    import causalarena as ca

    env = ca.LabEnv(ca.find_episode("lab-main/main-4nodes/000"))
    assert "resonanceFreq" not in env.describe()["controllable"]
