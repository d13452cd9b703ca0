"""Registry of the real datasets of the external-validity track (one frozen entry per dataset).

Reference graphs here are expert-specified or experimentally motivated structures from the
literature, *not* independently verified true DAGs; scores against them measure agreement with
a published reference, and several datasets carry alternative references for that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from causalarena.generator.real._petshop import PETSHOP_NODES
from causalarena.generator.real.sources import SourceFile, source_file

#: Stated on every real row, in the manifest and in the spec JSON.
REFERENCE_CAVEAT = (
    "Reference graphs are expert-specified or experimentally motivated structures from the "
    "literature, not independently verified ground truth."
)


@dataclass(frozen=True)
class ReferenceGraph:
    """One reference graph of a dataset.

    Attributes
    ----------
    name : str
        Identifier, e.g. ``"bnlearn-17"``.
    file : str
        Source file path (see :class:`~causalarena.generator.real.sources.SourceFile`).
    n_edges : int
        Documented number of edges over the dataset's variables.
    description : str
        Where it comes from and how it differs from the pinned reference.
    """

    name: str
    file: str
    n_edges: int
    description: str


@dataclass(frozen=True)
class RealDataset:
    """Registry entry of one real dataset.

    Attributes
    ----------
    name : str
        Dataset id used in instance ids and shard names (``real-<name>/...``).
    title : str
    group : {"sachs", "cdcsg", "petshop", "chambers"}
    settings : tuple of str
        ``("obs",)`` for observation-only tables; ``("obs", "obsint")`` for interventional
        datasets (``obs`` is then the conversion obtained by dropping intervention rows).
    files : tuple of SourceFile
        Every file read, with canonical URL and expected checksum.
    licence : str
        SPDX-like licence id of the distributed data files.
    licence_note : str
        What the licence covers and any caveat about the original measurements.
    redistributable : bool
        Whether a built shard may be published (False: build locally only).
    citation : str
        BibTeX of the source publication(s).
    homepage : str
    variables : tuple of str
        Column names in table order.
    reference_graph : str
        Name of the pinned reference (written to ``adjacency``).
    graphs : tuple of ReferenceGraph
        Pinned reference first, then the alternatives.
    intervention_encoding : str
        How intervention rows and targets are derived from the source.
    preprocessing : str
        Every transformation applied to the source values.
    """

    name: str
    title: str
    group: str
    settings: tuple[str, ...]
    files: tuple[SourceFile, ...]
    licence: str
    licence_note: str
    redistributable: bool
    citation: str
    homepage: str
    variables: tuple[str, ...]
    reference_graph: str
    graphs: tuple[ReferenceGraph, ...]
    intervention_encoding: str
    preprocessing: str
    options: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def alternative_references(self) -> tuple[str, ...]:
        """Names of the non-pinned reference graphs."""
        return tuple(g.name for g in self.graphs if g.name != self.reference_graph)

    def file(self, path: str) -> SourceFile:
        """The :class:`SourceFile` with this path (``KeyError`` if not a file of the dataset)."""
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(f"{self.name}: no source file {path!r}")


# --------------------------------------------------------------------------------- citations
_SACHS_BIB = """@article{sachs2005causal,
  title={Causal Protein-Signaling Networks Derived from Multiparameter Single-Cell Data},
  author={Sachs, Karen and Perez, Omar and Pe'er, Dana and Lauffenburger, Douglas A. and Nolan, Garry P.},
  journal={Science}, volume={308}, number={5721}, pages={523--529}, year={2005},
  doi={10.1126/science.1105809}
}"""
_CDCSG_BIB = """@article{zhao2023causal,
  title={Causal Discovery via Causal Star Graphs},
  author={Zhao, Boxiang and Wang, Shuliang and Chi, Lianhua and Li, Qi and Liu, Xiaojia and Geng, Jing},
  journal={ACM Transactions on Knowledge Discovery from Data}, volume={17}, number={7},
  pages={98:1--98:24}, year={2023}, doi={10.1145/3586163}
}
@article{mooij2016distinguishing,
  title={Distinguishing Cause from Effect Using Observational Data: Methods and Benchmarks},
  author={Mooij, Joris M. and Peters, Jonas and Janzing, Dominik and Zscheischler, Jakob and Sch{\\"o}lkopf, Bernhard},
  journal={Journal of Machine Learning Research}, volume={17}, number={32}, pages={1--102}, year={2016}
}"""
_PETSHOP_BIB = """@inproceedings{hardt2024petshop,
  title={The {PetShop} Dataset -- Finding Causes of Performance Issues across Microservices},
  author={Hardt, Michaela and Orchard, William Roy and Bl{\\"o}baum, Patrick and Kirschbaum, Elke and Kasiviswanathan, Shiva},
  booktitle={Proceedings of the Third Conference on Causal Learning and Reasoning (CLeaR)},
  pages={957--978}, year={2024}
}"""
_CHAMBERS_BIB = """@article{gamella2025causal,
  title={Causal Chambers as a Real-World Physical Testbed for {AI} Methodology},
  author={Gamella, Juan L. and Peters, Jonas and B{\\"u}hlmann, Peter},
  journal={Nature Machine Intelligence}, year={2025}, doi={10.1038/s42256-024-00964-x}
}"""

# ------------------------------------------------------------------------------------- Sachs
#: Canonical protein names, in the column order of the ACI file.
SACHS_VARIABLES = ("Raf", "Mek", "Plcg", "PIP2", "PIP3", "Erk", "Akt", "PKA", "PKC", "P38", "Jnk")

#: Condition -> (reagents, intervention target or None), ACI ``safe_choice*_more.exps``.
SACHS_CONDITIONS: dict[int, tuple[str, str | None]] = {
    1: ("CD3, CD28", None),
    2: ("CD3, CD28, ICAM-2", None),
    3: ("CD3, CD28, akt-inhibitor", "Akt"),
    4: ("CD3, CD28, G0076", "PKC"),
    5: ("CD3, CD28, Psitectorigenin", "PIP2"),
    6: ("CD3, CD28, U0126", "Mek"),
    7: ("CD3, CD28, LY294002", "PIP3"),
    8: ("PMA", "PKC"),
    9: ("beta2CAMP", "PKA"),
    10: ("CD3, CD28, ICAM-2, akt-inhibitor", "Akt"),
    11: ("CD3, CD28, ICAM-2, G0076", "PKC"),
    12: ("CD3, CD28, ICAM-2, Psitectorigenin", "PIP2"),
    13: ("CD3, CD28, ICAM-2, U0126", "Mek"),
    14: ("CD3, CD28, ICAM-2, LY294002", "PIP3"),
}

SACHS = RealDataset(
    name="sachs",
    title="Sachs et al. (2005) flow cytometry, 11 phosphoproteins/lipids, 14 conditions",
    group="sachs",
    settings=("obs", "obsint"),
    files=tuple(
        source_file(p)
        for p in (
            "sachs/aci_sachs_14conditions.tsv",
            "sachs/bnlearn_sachs.bif",
            "sachs/cdt_cyto_full_target.csv",
            "sachs/jci_sachs-gt.dot",
            "sachs/cmu_sachs.2005.ground.truth.graph.txt",
        )
    ),
    licence="BSD-2-Clause",
    licence_note=(
        "Measurements as bundled by caus-am/aci (BSD-2-Clause); graphs from erdogant/bnlearn "
        "(MIT), cdt (MIT), caus-am/jci (BSD-2-Clause), cmu-phil/example-causal-datasets (CC0). "
        "No licence statement from Sachs et al. for the original measurements was found."
    ),
    redistributable=True,
    citation=_SACHS_BIB,
    homepage="https://doi.org/10.1126/science.1105809",
    variables=SACHS_VARIABLES,
    reference_graph="bnlearn-17",
    graphs=(
        ReferenceGraph(
            "bnlearn-17",
            "sachs/bnlearn_sachs.bif",
            17,
            "consensus network of the bnlearn repository (sachs.bif), pinned reference",
        ),
        ReferenceGraph(
            "cdt-18",
            "sachs/cdt_cyto_full_target.csv",
            18,
            "graph of cdt.data.load_dataset('sachs'): bnlearn-17 without Erk->Akt, PIP3->PIP2, "
            "PKC->PKA, Plcg->PIP3, plus PIP2->PIP3, PIP2->PKC, PIP3->Akt, PIP3->Plcg, Plcg->PKC",
        ),
        ReferenceGraph(
            "jci-19",
            "sachs/jci_sachs-gt.dot",
            19,
            "JCI system graph (context nodes dropped) = cdt-18 + PIP3->PIP2; contains the "
            "2-cycle PIP2<->PIP3, so it is not a DAG",
        ),
        ReferenceGraph(
            "cmu-20",
            "sachs/cmu_sachs.2005.ground.truth.graph.txt",
            20,
            "cmu-phil ground truth: bnlearn-17 without Plcg->PIP3, plus PIP3->Plcg, Plcg->PKC, "
            "PIP2->PKC, PIP3->Akt",
        ),
    ),
    intervention_encoding=(
        "column 'experiment' = condition 1..14; conditions 1-2 (CD3/CD28, +ICAM-2) are "
        "observational; every other condition targets one protein (ACI safe_choice*_more.exps): "
        + "; ".join(f"{k} {v[0]} -> {v[1]}" for k, v in SACHS_CONDITIONS.items() if v[1])
        + ". PIP2 (psitectorigenin) is an abundance target, the others activity targets; "
        "mask[r, target] = True on every row of the condition. Mappings differ between "
        "authors (e.g. U0126 -> Mek vs Erk)."
    ),
    preprocessing=(
        "raw (untransformed) intensities as float32; rows ordered observational conditions "
        "first (1, 2), then conditions 3..14, each in file order; no rows dropped"
    ),
)

# ------------------------------------------------------------------------------------ CD-CSG
_CDCSG = {
    # name: (file stem, title, variables)
    "abalone": (
        "abalone",
        "Abalone (UCI)",
        (
            "Rings",
            "Length",
            "Diameter",
            "Height",
            "Whole_weight",
            "Shucked_weight",
            "Viscera_weight",
            "Shell_weight",
        ),
    ),
    "autompg": ("autompg", "Auto MPG (UCI)", ("Displacement", "Horsepower", "Weight", "MPG")),
    "cardiac-arrhythmia": (
        "cad",
        "Cardiac Arrhythmia (UCI)",
        ("Age", "Height", "Weight", "Heart_rate"),
    ),
    "concrete": (
        "concrete",
        "Concrete Compressive Strength (UCI)",
        (
            "Cement",
            "Blast_furnace_slag",
            "Fly_ash",
            "Water",
            "Superplasticizer",
            "Coarse_aggregate",
            "Fine_aggregate",
            "Age_days",
            "Compressive_strength",
        ),
    ),
    "dwd": (
        "dwd",
        "Deutscher Wetterdienst climate stations",
        ("Altitude", "Temperature", "Precipitation", "Longitude", "Sunshine_hours"),
    ),
    "ozone": ("ozone", "Ozone", ("Wind_speed", "Radiation", "Temperature", "Ozone")),
}
_CDCSG_EDGES = {"abalone": 7, "autompg": 3, "cardiac-arrhythmia": 3, "concrete": 8, "dwd": 4}
_CDCSG_EDGES["ozone"] = 3


def _cdcsg(name: str) -> RealDataset:
    stem, title, variables = _CDCSG[name]
    prep = "values as float32; blank trailing fields and blank lines ignored"
    options: dict = {"stem": stem}
    if name == "autompg":
        prep += (
            "; the 6 rows with Horsepower = 0 (UCI's missing value '?', stored as 0 by CD-CSG) "
            "are dropped by default, giving the 392 complete rows of Tuebingen pair 14 "
            "(option autompg_missing='keep' keeps them as recorded)"
        )
        options["missing"] = "drop"
    return RealDataset(
        name=f"cdcsg-{name}",
        title=f"{title}, CD-CSG real-world table",
        group="cdcsg",
        settings=("obs",),
        files=(source_file(f"cdcsg/{stem}.txt"), source_file(f"cdcsg/{stem}_gt.txt")),
        licence="MIT",
        licence_note=(
            "Files of LawrenceZhao9676/CD-CSG (MIT); the values originate from UCI / the "
            "Tuebingen cause-effect pairs. Column names are not in the source; they were "
            "identified by matching the columns with the Tuebingen pairs."
        ),
        redistributable=True,
        citation=_CDCSG_BIB,
        homepage="https://github.com/LawrenceZhao9676/CD-CSG",
        variables=variables,
        reference_graph="cdcsg",
        graphs=(
            ReferenceGraph(
                "cdcsg",
                f"cdcsg/{stem}_gt.txt",
                _CDCSG_EDGES[name],
                "CD-CSG ground-truth matrix (row i -> column j), from the Tuebingen pairs",
            ),
        ),
        intervention_encoding="none (observation-only table)",
        preprocessing=prep,
        options=options,
    )


# ----------------------------------------------------------------------------------- PetShop
_PETSHOP_TITLES = {
    "high_traffic": "high traffic",
    "low_traffic": "low traffic",
    "temporal_traffic1": "temporal traffic 1",
    "temporal_traffic2": "temporal traffic 2",
}
#: (train issues, test issues) per scenario, as in the repository.
PETSHOP_ISSUES = {
    "high_traffic": (8, 18),
    "low_traffic": (8, 18),
    "temporal_traffic1": (2, 6),
    "temporal_traffic2": (2, 6),
}
_PETSHOP_EDGES = {
    "high_traffic": 47,
    "low_traffic": 44,
    "temporal_traffic1": 43,
    "temporal_traffic2": 43,
}


def petshop_issue_paths(scenario: str) -> list[str]:
    """Relative ``metrics.csv`` paths of a scenario's fault episodes (train then test, by k)."""
    n_train, n_test = PETSHOP_ISSUES[scenario]
    return [
        f"petshop/{scenario}/{split}/issue_{k}"
        for split, n in (("train", n_train), ("test", n_test))
        for k in range(n)
    ]


def _petshop(scenario: str) -> RealDataset:
    base = f"petshop/{scenario}"
    paths = [f"{base}/graph.csv", f"{base}/noissue/metrics.csv"]
    for ep in petshop_issue_paths(scenario):
        paths += [f"{ep}/metrics.csv", f"{ep}/target.json"]
    return RealDataset(
        name=f"petshop-{scenario.replace('_', '-')}",
        title=f"PetShop microservices, {_PETSHOP_TITLES[scenario]}",
        group="petshop",
        settings=("obs", "obsint"),
        files=tuple(source_file(p) for p in paths),
        licence="CC-BY-4.0",
        licence_note="dataset CC-BY-4.0 (LICENSE_DATASET), code Apache-2.0; (c) Amazon.com",
        redistributable=True,
        citation=_PETSHOP_BIB,
        homepage="https://github.com/amazon-science/petshop-root-cause-analysis",
        variables=PETSHOP_NODES[scenario],
        reference_graph="reversed-call-graph",
        graphs=(
            ReferenceGraph(
                "reversed-call-graph",
                f"{base}/graph.csv",
                _PETSHOP_EDGES[scenario],
                "graph.csv (caller -> callee) with every edge reversed (callee -> caller), "
                "the causal graph of the PetShop paper's code",
            ),
            ReferenceGraph(
                "call-graph",
                f"{base}/graph.csv",
                _PETSHOP_EDGES[scenario],
                "graph.csv as distributed (caller -> callee); the call graph, NOT the causal "
                "reference, kept for comparison",
            ),
        ),
        intervention_encoding=(
            "observational rows: noissue/metrics.csv (one row per 300-s step); interventional "
            "rows: the 5 steps of each fault-injection episode {train,test}/issue_k, with "
            "mask[r, root_cause.node] = True (target.json); episodes ordered train then test, "
            "by k"
        ),
        preprocessing=(
            "one variable per graph node: the node's latency Average (seconds) per 300-s step; "
            "empty cells (no calls recorded) and nodes without any metrics column are 0.0, so "
            "the latter are constant columns (listed in constant_columns); time order kept, "
            "rows treated as samples"
        ),
        options={"scenario": scenario, "metric": "latency", "statistic": "Average"},
    )


# ----------------------------------------------------------------------------------- Chambers
#: Light-tunnel experiments used: the reference plus the 20 single-target experiments of the
#: Causal Chambers case study (experiment name encodes the target).
LT_EXPERIMENTS = (
    ("uniform_reference",)
    + tuple(
        f"uniform_{t}_strong"
        for t in (
            "red",
            "green",
            "blue",
            "v_c",
            "t_ir_1",
            "t_ir_2",
            "t_ir_3",
            "t_vis_1",
            "t_vis_2",
            "t_vis_3",
            "pol_1",
            "pol_2",
            "v_angle_1",
            "v_angle_2",
        )
    )
    + tuple(f"uniform_l_{k}_mid" for k in ("11", "12", "21", "22", "31", "32"))
)
#: Targets of the 32 regimes of wt_walks_v1 ``regime_jumps_single`` (``regimes_targets.py``).
WT_REGIME_TARGETS: tuple[tuple[str, ...], ...] = tuple(
    (t,) if t else ()
    for t in (
        "", "v_2", "", "res_out", "v_out", "hatch", "v_1", "osr_upwind", "", "osr_upwind",
        "v_out", "v_1", "res_in", "osr_upwind", "res_out", "osr_downwind", "osr_ambient",
        "v_in", "hatch", "osr_upwind", "", "res_in", "v_1", "osr_intake", "", "v_1", "",
        "osr_upwind", "osr_intake", "osr_ambient", "v_in", "res_in",
    )
)  # fmt: skip
_LT_VARS = (
    "red", "green", "blue", "osr_c", "v_c", "current", "pol_1", "pol_2", "osr_angle_1",
    "osr_angle_2", "v_angle_1", "v_angle_2", "angle_1", "angle_2", "ir_1", "vis_1", "ir_2",
    "vis_2", "ir_3", "vis_3", "l_11", "l_12", "l_21", "l_22", "l_31", "l_32", "diode_ir_1",
    "diode_vis_1", "diode_ir_2", "diode_vis_2", "diode_ir_3", "diode_vis_3", "t_ir_1",
    "t_vis_1", "t_ir_2", "t_vis_2", "t_ir_3", "t_vis_3",
)  # fmt: skip
_WT_VARS = (
    "hatch", "pot_1", "pot_2", "osr_1", "osr_2", "osr_mic", "osr_in", "osr_out", "osr_upwind",
    "osr_downwind", "osr_ambient", "osr_intake", "v_1", "v_2", "v_mic", "v_in", "v_out",
    "load_in", "load_out", "current_in", "current_out", "res_in", "res_out", "rpm_in",
    "rpm_out", "pressure_upwind", "pressure_downwind", "pressure_ambient", "pressure_intake",
    "mic", "signal_1", "signal_2",
)  # fmt: skip


def chamber_zip(dataset: str) -> SourceFile:
    """:class:`SourceFile` of a Causal Chambers dataset zip (md5-verified; no sha256 published).

    The md5 is the one published in causal-chamber ``datasets/directory.yaml`` (2025-02-25),
    recorded in ``sources.txt``.
    """
    return source_file(
        f"chambers/{dataset}.zip",
        origin="causalchamber.org (juangamella/causal-chamber datasets/directory.yaml)",
    )


_CHAMBER_LICENCE = "measurements CC-BY-4.0 (dataset README); ground-truth graphs MIT (package)"

LIGHT_TUNNEL = RealDataset(
    name="chambers-light-tunnel",
    title="Causal Chambers light tunnel (lt_interventions_standard_v1)",
    group="chambers",
    settings=("obs", "obsint"),
    files=(
        chamber_zip("lt_interventions_standard_v1"),
        source_file("chambers/adjacency_lt_standard.csv"),
    ),
    licence="CC-BY-4.0",
    licence_note=_CHAMBER_LICENCE,
    redistributable=True,
    citation=_CHAMBERS_BIB,
    homepage="https://causalchamber.org",
    variables=_LT_VARS,
    reference_graph="lt-standard",
    graphs=(
        ReferenceGraph(
            "lt-standard",
            "chambers/adjacency_lt_standard.csv",
            57,
            "Mk1 light-tunnel graph, standard configuration (causalchamber ground_truth)",
        ),
    ),
    intervention_encoding=(
        "one CSV per experiment; 'uniform_reference' is observational, 'uniform_<var>_<strength>' "
        "intervenes on <var> (mask[r, var] = True on all its rows); the CSV column "
        "'intervention' marks the first reading after a SET and is NOT a target indicator. "
        "Experiments used: " + ", ".join(LT_EXPERIMENTS)
    ),
    preprocessing="the 38 graph variables as float32; other columns dropped; file order kept",
    options={"dataset": "lt_interventions_standard_v1", "experiments": LT_EXPERIMENTS},
)

WIND_TUNNEL = RealDataset(
    name="chambers-wind-tunnel",
    title="Causal Chambers wind tunnel (wt_walks_v1, regime_jumps_single)",
    group="chambers",
    settings=("obs", "obsint"),
    files=(
        chamber_zip("wt_walks_v1"),
        source_file("chambers/adjacency_wt_standard.csv"),
        source_file("chambers/adjacency_wt_pressure-control.csv"),
    ),
    licence="CC-BY-4.0",
    licence_note=_CHAMBER_LICENCE,
    redistributable=True,
    citation=_CHAMBERS_BIB,
    homepage="https://causalchamber.org",
    variables=_WT_VARS,
    reference_graph="wt-standard",
    graphs=(
        ReferenceGraph(
            "wt-standard",
            "chambers/adjacency_wt_standard.csv",
            42,
            "Mk1 wind-tunnel graph, standard configuration (causalchamber ground_truth)",
        ),
        ReferenceGraph(
            "wt-pressure-control",
            "chambers/adjacency_wt_pressure-control.csv",
            44,
            "pressure-control configuration: wt-standard + pressure_downwind -> load_in, "
            "load_out (feedback; cyclic, not a DAG)",
        ),
    ),
    intervention_encoding=(
        "experiment regime_jumps_single: 32 regimes of 10,000 rows numbered by the 'flag' "
        "column (increasing); regime k targets WT_REGIME_TARGETS[k] (regimes_targets.py "
        "targets_single); rows of regimes without targets are observational"
    ),
    preprocessing=(
        "the 32 graph variables as float32; rows of target-free regimes first (time order), "
        "then intervened regimes (time order); a time series treated as samples"
    ),
    options={"dataset": "wt_walks_v1", "experiment": "regime_jumps_single"},
)

#: Every real dataset, in build order.
REGISTRY: dict[str, RealDataset] = {
    d.name: d
    for d in (
        [SACHS]
        + [_cdcsg(n) for n in _CDCSG]
        + [_petshop(s) for s in PETSHOP_ISSUES]
        + [LIGHT_TUNNEL, WIND_TUNNEL]
    )
}


def get_dataset(name: str) -> RealDataset:
    """Registry entry by name.

    Raises
    ------
    KeyError
        Unknown name (the message lists the known ones).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown real dataset {name!r}; known: {sorted(REGISTRY)}") from None
