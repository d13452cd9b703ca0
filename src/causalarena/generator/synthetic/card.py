"""The prose of the synthetic arena's dataset card, declared by the family
(:func:`causalarena.generator.synthetic.family.text`) and rendered by the release engine's
shared metadata collection; the coverage and audit tables are counted from the shards."""

from __future__ import annotations

SUMMARY = (
    "Synthetic structural causal models (SCMs) with exact ground-truth directed acyclic "
    "graphs for benchmarking causal discovery from observational and interventional "
    "tabular data. Each row is one dataset instance: a sampled table, its intervention "
    "mask, the true adjacency matrix and the executable SCM specification that "
    "generated it."
)
TAGS = ("causal-discovery", "structural-causal-models", "benchmark", "synthetic", "tabular")
INTENDED_USES = (
    "Scoring causal-discovery methods (classical, neural and pretrained) on directed-graph "
    "recovery with exact ground truth, sliced by graph family, dimension, mechanism, noise, "
    "root dependency and difficulty.",
    "Reproducible reference evaluations: every number should be reported together with the "
    "suite name, the release version (Hub tag) and, once minted, the DOI.",
    "Inspecting or re-sampling the generating processes: every row carries its executable SCM "
    "specification (`spec`), so new samples, interventions or sample sizes can be drawn with "
    "`causalarena.sample`.",
)
OUT_OF_SCOPE = (
    "Claims about real-world causal structure: all data are synthetic, no variable has a "
    "real-world meaning.",
    "Training a model and then reporting its score on the same public instances as if they were "
    "unseen (see the overlap disclosure below).",
    "Effect estimation or counterfactual benchmarks: the ground truth released is the directed "
    "graph; interventional rows are samples, not paired counterfactuals.",
)
OVERLAP_GUIDANCE = (
    "Public SCMs, their samples and the generator code may end up in pretraining corpora. When "
    "you report a score, state whether any public CausalArena SCMs, generated samples, the "
    "`causalarena` generator or a closely related prior were used while developing or "
    "pretraining the method.",
    "Label results with the release version; a score on a familiar generator distribution and a "
    "score on newly introduced environments answer different questions.",
    "Half of every (graph family, d) block is reserved for held-out evaluation and later "
    "release. It is drawn from a secret key, and each reserved instance (spec and data) is "
    "committed to by a salted sha256 in `manifest.json`, so a later reveal can prove the "
    "instances were fixed at this version.",
)
LIMITATIONS = (
    "Synthetic, anonymous variables: an edge is a matrix entry without an operational or "
    "scientific story; the semantic and formula-grounded SCM families of the paper are not part "
    "of this suite.",
    "Known directed graphs only: no latent confounding, no selection bias, no cycles.",
    "Byte-identical rebuilds are guaranteed only on the platform and library versions recorded "
    "in `manifest.json` (`environment`).",
    "The reserved half is drawn from the maintainers' secret key, so it cannot be regenerated "
    "from the package and seed; its pool positions, graph families, d and difficulty schedule "
    "are public (they follow the suite definition). Until the key is revealed, only the "
    "maintainers can score on it or check its commitments.",
    "The mini scale is a smoke-test subset (one SCM per block, one replicate); report "
    "leaderboard numbers on the full scale.",
)
CHANGELOG = (
    (
        "1.0.0",
        "First release: 10 graph families x d in {10, 20, 30, 50, 100}, half of every block "
        "public, obs and obs+int configs, audited SCMs with executable specs.",
    ),
)
