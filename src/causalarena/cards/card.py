"""Dataset card (``README.md``) of a release folder, rendered from the manifest.

The YAML front matter declares one ``configs`` entry per config with its ``data_files``, so the
folder loads with ``datasets.load_dataset(folder, config)`` without a loading script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from causalarena.release.io import atomic_write_bytes


def render_card(manifest: dict[str, Any]) -> str:
    """Markdown card text with YAML front matter (deterministic)."""
    lines = [
        "---",
        "license: cc-by-4.0",
        f"pretty_name: CausalArena {manifest['suite']}",
        "tags:",
        "- causal-discovery",
        "- structural-causal-models",
        "- benchmark",
        "configs:",
    ]
    for config in sorted(manifest["configs"]):
        lines += [
            f"- config_name: {config}",
            "  data_files:",
            "  - split: test",
            f"    path: data/{config}/*.parquet",
        ]
    lines += [
        "---",
        "",
        f"# CausalArena `{manifest['suite']}` v{manifest['version']} ({manifest['scale']} scale)",
        "",
        "Synthetic structural causal models (SCMs) with exact ground-truth DAGs, built by "
        "[causalarena](https://pypi.org/project/causalarena/).",
        "",
        "Adjacency convention: `adjacency[i][j] = 1` iff edge `variables[i] -> variables[j]`"
        " (row = parent, column = child).",
        "",
        "| config | split | rows | shards |",
        "|---|---|---|---|",
    ]
    for config, c in sorted(manifest["configs"].items()):
        lines.append(f"| {config} | {c['split']} | {c['rows']} | {c['shards']} |")
    a = manifest["audit"]
    lines += [
        "",
        f"Audit: {a['scms']} SCMs, {a['resampled_scms']} needed at least one redraw "
        f"({a['total_attempts']} candidates in all).",
        "",
    ]
    return "\n".join(lines)


def write_card(out: Path, manifest: dict[str, Any]) -> None:
    """Write ``README.md`` atomically."""
    atomic_write_bytes(Path(out) / "README.md", render_card(manifest).encode())
