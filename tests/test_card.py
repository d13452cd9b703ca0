"""Dataset card: one strict metadata model, computed coverage, loadable YAML, broken cards fail."""

from __future__ import annotations

import shutil
from collections import Counter

import pyarrow.dataset as pads
import pytest
import yaml
from pydantic import ValidationError

from causalarena.release.card import read_front_matter, render_card, validate_card
from causalarena.release.metadata import ReleaseMetadata, collect_metadata
from causalarena.schema import VIEW_RE


@pytest.fixture(scope="module")
def rel(mini_release, tmp_path_factory):
    """A private copy of the mini release (tests here may edit its card)."""
    out = tmp_path_factory.mktemp("card") / "rel"
    shutil.copytree(mini_release, out)
    return out


@pytest.fixture
def broken(rel, tmp_path):
    """A fresh copy whose README.md a test may break (data files are symlinked)."""
    out = tmp_path / "rel"
    out.mkdir()
    for p in rel.iterdir():
        if p.is_dir():
            (out / p.name).symlink_to(p)
        else:
            shutil.copy(p, out / p.name)
    return out


def test_card_validates_and_has_front_matter(rel):
    assert validate_card(rel) == []
    fm = read_front_matter(rel / "README.md")
    assert fm["license"] == "cc-by-4.0"
    assert fm["size_categories"] == ["n<1K"]
    main = [c for c in fm["configs"] if not VIEW_RE.match(c["config_name"])]
    views = [c for c in fm["configs"] if VIEW_RE.match(c["config_name"])]
    assert [c["config_name"] for c in main] == ["synthetic-obs", "synthetic-obsint"]
    assert [c.get("default") for c in fm["configs"]] == [True] + [None] * 11  # one default
    for c in main:
        assert c["data_files"] == [{"split": "test", "path": f"data/{c['config_name']}/*.parquet"}]
    # one view per (config, d), listing exactly that config's shards of that d
    assert sorted(c["config_name"] for c in views) == sorted(
        f"{c}-d{d:03d}"
        for c in ("synthetic-obs", "synthetic-obsint")
        for d in (10, 20, 30, 50, 100)
    )
    for v in views:
        m = VIEW_RE.match(v["config_name"])
        paths = v["data_files"][0]["path"]
        assert len(paths) == 8 and all(p.startswith(f"data/{m['config']}/test-") for p in paths)
        ds = {
            x for p in paths for x in pads.dataset(rel / p).to_table(columns=["d"])["d"].to_pylist()
        }
        assert ds == {int(m["d"])}
    for info in fm["dataset_info"]:
        assert info["splits"][0]["num_examples"] == (
            10 if VIEW_RE.match(info["config_name"]) else 50
        )
        x = next(f for f in info["features"] if f["name"] == "X")
        adj = next(f for f in info["features"] if f["name"] == "adjacency")
        m = VIEW_RE.match(info["config_name"])
        if m:
            d = int(m["d"])
            assert x == {
                "name": "X",
                "dtype": {"array2_d": {"shape": [1000, d], "dtype": "float32"}},
            }  # fixed n: every row of both arena configs has n_obs + n_int = 1000
            assert adj["dtype"]["array2_d"] == {"shape": [d, d], "dtype": "int8"}
        else:
            assert x == {"name": "X", "list": {"list": "float32"}}
    text = (rel / "README.md").read_text()
    assert "`A[i, j] = 1` iff edge `i → j` (row = parent, column = child)" in text
    assert "DOI: pending" in text
    usage = text[text.index("is the default config") :]
    assert usage.index("datasets.load_dataset(") < usage.index("ca.load(")  # plain datasets first


def test_card_without_one_default_or_with_a_wrong_view_fails(broken):
    out = broken
    card = out / "README.md"
    text = card.read_text()
    card.write_text(text.replace("  default: true\n", "", 1))
    assert any("default: true" in p for p in validate_card(out))
    # a view that lists a shard of another d is caught
    fm = read_front_matter(card)
    v10 = next(c for c in fm["configs"] if c["config_name"] == "synthetic-obs-d010")
    v20 = next(c for c in fm["configs"] if c["config_name"] == "synthetic-obs-d020")
    p10, p20 = v10["data_files"][0]["path"][0], v20["data_files"][0]["path"][0]
    bad = text.replace(f"    - {p10}\n", f"    - {p20}\n", 1)
    assert bad != text
    card.write_text(bad)
    assert any("synthetic-obs-d010" in p for p in validate_card(out))
    # a view serving other columns than the metadata's is caught (first view: d010)
    fewer = text.replace(
        "  columns:\n  - instance_id\n  - scm_id\n", "  columns:\n  - instance_id\n", 1
    )
    assert fewer != text
    card.write_text(fewer)
    assert any(
        "synthetic-obs-d010" in p and "must serve the columns" in p for p in validate_card(out)
    )


def test_card_is_rendered_from_the_metadata_model(rel):
    meta = collect_metadata(rel)
    assert (rel / "README.md").read_text() == render_card(meta)
    assert validate_card(rel, meta) == []


def test_card_round_trips_through_huggingface_hub(rel):
    """The card is a Hub ``DatasetCard``: loaded and re-serialised by huggingface_hub it is
    byte-identical, and its ``DatasetCardData`` equals the front matter of the metadata model."""
    from huggingface_hub import DatasetCard

    from causalarena.release.card import front_matter

    text = (rel / "README.md").read_text()
    card = DatasetCard.load(rel / "README.md")
    assert str(card) == text
    fm = front_matter(collect_metadata(rel))
    assert card.data.to_dict() == fm == read_front_matter(rel / "README.md")
    assert list(card.data.to_dict())[:2] == ["license", "pretty_name"]  # our key order kept
    assert card.text.startswith("\n# ") and "## Schema" in card.text


def test_coverage_is_counted_from_the_shards(rel):
    meta = collect_metadata(rel)
    t = pads.dataset(rel / "data" / "synthetic-obs", format="parquet").to_table(
        columns=["graph_family", "d", "mechanism_tags", "root_dependency", "audit_attempts"]
    )
    rows = t.to_pylist()
    counts = Counter((r["graph_family"], r["d"]) for r in rows)
    tab = meta.coverage.family_by_d
    for fam, row in zip(tab.rows, tab.counts, strict=True):
        assert row == [counts[(fam, d)] for d in tab.columns]
    mech = Counter(m for r in rows for m in set(r["mechanism_tags"]))
    assert {s.level: s.scms for s in meta.coverage.mechanism} == dict(mech)
    dep = Counter(r["root_dependency"] for r in rows)
    assert {s.level: s.scms for s in meta.coverage.root_dependency} == dict(dep)
    assert meta.audit.resampled_scms == sum(1 for r in rows if r["audit_attempts"] > 1)
    body = (rel / "README.md").read_text()
    top = meta.coverage.mechanism[0]
    assert f"| `{top.level}` | {top.scms} | {top.share:.1%} |" in body


def test_yaml_loads_with_datasets_and_declared_features(rel):
    import datasets

    fm = read_front_matter(rel / "README.md")
    for info in fm["dataset_info"]:
        config = info["config_name"]
        if VIEW_RE.match(config):
            continue  # the fixed-d views: tests/test_layout.py
        feats = datasets.Features._from_yaml_list(info["features"])
        assert isinstance(feats["X"], datasets.List) and isinstance(
            feats["X"].feature, datasets.List
        )
        ds = datasets.load_dataset(str(rel), config, split="test")
        assert ds.num_rows == 50 and ds.features == feats
        ds2 = datasets.load_dataset(
            "parquet",
            data_files=str(rel / "data" / config / "*.parquet"),
            split="train",
            features=feats,
        )
        assert ds2.num_rows == 50


def test_strict_model_rejects_unknown_fields_and_values(rel):
    meta = collect_metadata(rel)
    data = meta.model_dump()
    with pytest.raises(ValidationError, match="extra"):
        ReleaseMetadata.model_validate({**data, "homepage": "x"})
    with pytest.raises(ValidationError):
        ReleaseMetadata.model_validate({**data, "license": "mit"})
    with pytest.raises(ValidationError):
        ReleaseMetadata.model_validate({**data, "doi": "doi-pending-42"})
    with pytest.raises(ValidationError):
        ReleaseMetadata.model_validate({**data, "task_categories": ["causal-magic"]})


def _edit_front_matter(folder, fn):
    text = (folder / "README.md").read_text()
    end = text.find("\n---\n", 4)
    fm = yaml.safe_load(text[4:end])
    fn(fm)
    (folder / "README.md").write_text(
        "---\n" + yaml.safe_dump(fm, sort_keys=False) + text[end + 1 :]
    )


def test_broken_cards_fail_validation(broken):
    _edit_front_matter(
        broken, lambda fm: fm["dataset_info"][0]["splits"][0].update(num_examples=49)
    )
    assert any("num_examples" in p for p in validate_card(broken))


def test_wrong_feature_type_fails(broken):
    def bad(fm):
        x = next(f for f in fm["dataset_info"][0]["features"] if f["name"] == "X")
        x["list"] = {"list": "float64"}

    _edit_front_matter(broken, bad)
    assert any("features" in p and "'X'" in p for p in validate_card(broken))


def test_missing_field_and_section_fail(broken):
    _edit_front_matter(broken, lambda fm: fm.pop("license"))
    text = (broken / "README.md").read_text().replace("## Limitations\n", "## Notes\n")
    (broken / "README.md").write_text(text)
    probs = validate_card(broken)
    assert any("'license'" in p for p in probs)
    assert any("Limitations" in p for p in probs)


def test_changed_data_files_fail(broken):
    _edit_front_matter(
        broken, lambda fm: fm["configs"][0]["data_files"][0].update(path="data/*.parquet")
    )
    assert any("data_files" in p for p in validate_card(broken))
