"""The prose of the real-data track's dataset card, declared by the family
(:func:`causalarena.generator.real.family.text`) and rendered by the release engine's shared
metadata collection; per-dataset counts, licences and citations are read from the shards."""

from __future__ import annotations

SUMMARY = (
    "Public real-world measurements (laboratory, engineering and observational tables "
    "released by their authors) paired with reference causal graphs from the literature, for "
    "evaluating causal discovery on real data. The reference graphs are expert-specified or "
    "experimentally motivated reference structures, not verified ground truth. Each row is one "
    "dataset in one setting: the measured table, its intervention mask, the reference "
    "adjacency matrix, the dataset's licence and citation, and a JSON description of the "
    "source (not an executable SCM)."
)
TAGS = ("causal-discovery", "benchmark", "real-world-data")
INTENDED_USES = (
    "Checking whether causal-discovery methods that do well on synthetic SCMs recover the "
    "reference structures of real measurements, reported per dataset and per setting "
    "(`real-obs`, `real-obsint`).",
    "Comparing methods on agreement with a literature reference graph, together with the "
    "alternative reference graphs shipped per dataset (column `alternative_references`) to show "
    "how sensitive a score is to the choice of reference.",
    "Reproducible reference evaluations: report the release version (Hub tag), the reference "
    "graph name and, once minted, the DOI with every number.",
)
OUT_OF_SCOPE = (
    "Treating the reference graphs as verified causal truth or claiming that a method "
    "'discovered the true mechanism': agreement with a reference is agreement with an expert "
    "or experimental hypothesis.",
    "Effect estimation, counterfactual or clinical conclusions: the tables are released for "
    "structure-learning benchmarks only.",
    "Redistributing a dataset without its own licence and citation (see the per-dataset "
    "licences below).",
)
OVERLAP_GUIDANCE = (
    "Every table is public and widely used (Sachs et al. 2005, the UCI / Tuebingen tables, "
    "PetShop): it is likely to be in pretraining corpora together with its published graph. "
    "When you report a score, state whether the method or its pretraining data could have "
    "seen these tables or their reference graphs.",
    "Report real-data scores separately from synthetic ones and label them with the "
    "reference graph used (`reference_graph_name`).",
)
LIMITATIONS = (
    "Reference graphs are expert-specified or experimentally motivated structures from the "
    "literature, not verified truth; several are debated (Sachs ships alternative references "
    "that differ in edges and acyclicity).",
    "Few datasets with small graphs; scores have high variance and must not be averaged with "
    "synthetic results as if they were exchangeable instances.",
    "Measurements keep their original quirks: discretised or rounded values, outliers, "
    "constant columns (listed per dataset, not removed), and latent confounding or cycles that "
    "the reference DAG does not represent.",
    "Datasets whose source files are not available at build time are left out of a build "
    "(listed in the card with the reason); results on two builds with different dataset sets are "
    "not comparable.",
    "Byte-identical rebuilds need the same source files (checked by sha256/md5) and the "
    "platform and library versions recorded in `manifest.json` (`environment`).",
)
CHANGELOG = (
    (
        "1.0.0",
        "First real-data release: public real-world tables with literature reference graphs "
        "in the configs real-obs (observation-only) and real-obsint (with intervention "
        "masks); one shard per dataset and config.",
    ),
)
