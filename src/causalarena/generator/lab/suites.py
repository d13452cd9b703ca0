"""Lab suites: named sets of configs, each a pure function of (suite, version, seed).

Generated suites (CausaLab section 5 and appendix A): ``lab-main`` (3-7 nodes, 50 graphs
each), ``lab-quadratic`` (the 50 four-node topologies with hard-quadratic mechanisms),
``lab-hidden`` (count 1/2/3 at +-5, range +-0.5/+-5/+-50 with one affected variable,
freqnode 1/2/3 with the target among the affected), ``lab-freqparent`` (4 and 6 nodes, the
target may have children) and ``lab-golden`` (4 and 6 nodes with an offline intervention
trace).  ``lab-causalab-v0.0.2`` is the public release converted
(:mod:`causalarena.generator.lab.causalab`).  Scales: ``mini`` writes the first 5 episodes of
every config, ``full`` all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from causalarena.errors import LabError
from causalarena.generator.lab.episode import Episode, LabConfig, draw_episode


@dataclass(frozen=True)
class LabSuite:
    """A lab suite: name, version, seed and configs."""

    name: str
    version: str
    seed: int
    configs: tuple[LabConfig, ...]
    description: str = ""

    def config(self, name: str) -> LabConfig:
        for c in self.configs:
            if c.name == name:
                return c
        raise LabError(
            f"suite {self.name!r} has no config {name!r}; configs: {[c.name for c in self.configs]}"
        )


SCALES = {"mini": 5, "full": None}
LAB_SEED = 20261201

_HIDDEN = (
    *(LabConfig(f"hidden-n{c}", 4, hidden_count=c, hidden_value=5.0) for c in (1, 2, 3)),
    *(
        LabConfig(f"hidden-pm{tag}", 4, hidden_count=1, hidden_value=v)
        for tag, v in (("0p5", 0.5), ("5", 5.0), ("50", 50.0))
    ),
    *(
        LabConfig(
            f"hidden-freqnode-n{c}", 4, hidden_count=c, hidden_value=5.0, hidden_on_target=True
        )
        for c in (1, 2, 3)
    ),
)

LAB_SUITES: dict[str, LabSuite] = {
    s.name: s
    for s in (
        LabSuite(
            "lab-main",
            "0.1.0",
            LAB_SEED,
            tuple(LabConfig(f"main-{k}nodes", k) for k in (3, 4, 5, 6, 7)),
            "linear mechanisms, target a sink, 3-7 nodes",
        ),
        LabSuite(
            "lab-quadratic",
            "0.1.0",
            LAB_SEED,
            (LabConfig("quadratic-4nodes", 4, family="quadratic"),),
            "hard-quadratic mechanisms on the lab-main 4-node topologies",
        ),
        LabSuite(
            "lab-hidden",
            "0.1.0",
            LAB_SEED,
            _HIDDEN,
            "hidden disturbance on the lab-main 4-node SCMs",
        ),
        LabSuite(
            "lab-freqparent",
            "0.1.0",
            LAB_SEED,
            tuple(LabConfig(f"freqparent-{k}nodes", k, target_can_be_parent=True) for k in (4, 6)),
            "the target may have children",
        ),
        LabSuite(
            "lab-golden",
            "0.1.0",
            LAB_SEED,
            tuple(LabConfig(f"golden-{k}nodes", k, golden=True) for k in (4, 6)),
            "offline intervention trace instead of online interventions (lab-main SCMs)",
        ),
    )
}
PUBLIC_SUITE = "lab-causalab-v0.0.2"


def suite_names() -> list[str]:
    return [*LAB_SUITES, PUBLIC_SUITE]


def get_lab_suite(name: str) -> LabSuite:
    """Look up a generated lab suite.

    Raises
    ------
    LabError
        If the name is unknown (the message lists the known suites).
    """
    if name not in LAB_SUITES:
        raise LabError(f"unknown lab suite {name!r}; known: {suite_names()}")
    return LAB_SUITES[name]


def _count(n: int, scale: str) -> int:
    if scale not in SCALES:
        raise LabError(f"unknown scale {scale!r}; choose from {sorted(SCALES)}")
    lim = SCALES[scale]
    return n if lim is None else min(n, lim)


def episodes(
    suite: str,
    config: str | None = None,
    scale: str = "full",
    data_dir: str | None = None,
) -> dict[str, list[Episode]]:
    """Episodes of a suite, ``{config: [Episode, ...]}`` (one config if ``config`` is given).

    ``lab-causalab-v0.0.2`` needs the public release on disk (``data_dir``,
    ``$CAUSALARENA_CAUSALAB_DATA`` or ``shared/data/causalab`` beside the repository).

    Raises
    ------
    LabError
        Unknown suite, config or scale; public release missing.
    """
    if suite == PUBLIC_SUITE:
        from causalarena.generator.lab.causalab import FILES, load_public

        if config is not None and config not in FILES:
            raise LabError(f"suite {suite!r} has no config {config!r}; configs: {list(FILES)}")
        got = load_public(data_dir, [config] if config else None)
        return {c: eps[: _count(len(eps), scale)] for c, eps in got.items()}
    s = get_lab_suite(suite)
    cfgs = [s.config(config)] if config else list(s.configs)
    return {
        c.name: [draw_episode(s.name, s.seed, c, i) for i in range(_count(c.n_episodes, scale))]
        for c in cfgs
    }


def find_episode(episode_id: str, data_dir: str | None = None) -> Episode:
    """The episode ``<suite>/<config>/<index>``.

    Raises
    ------
    LabError
        If the id is malformed or names no episode.
    """
    parts = episode_id.split("/")
    if len(parts) != 3 or not parts[2].isdigit():
        raise LabError(
            f"episode id {episode_id!r}: expected <suite>/<config>/<index>, "
            "e.g. lab-main/main-4nodes/000"
        )
    suite, config, idx = parts[0], parts[1], int(parts[2])
    eps = episodes(suite, config, "full", data_dir)[config]
    if idx >= len(eps):
        raise LabError(f"episode id {episode_id!r}: config {config!r} has {len(eps)} episodes")
    return eps[idx]
