"""Lab episodes: interactive causal discovery on a hidden SCM (CausaLab, arXiv:2605.26029).

Modules: :mod:`.graph` (variables and DAGs), :mod:`.semantics` (shift interventions on a
crystal), :mod:`.episode` (hidden SCM, crystals, records, budgets), :mod:`.suites` (named
suites), :mod:`.causalab` (the public release converted), :mod:`.hypothesis` (parser and
consistency check), :mod:`.env` (``LabEnv``), :mod:`.protocol` (JSON-lines server).
"""

from causalarena.generator.lab.episode import Episode, LabConfig, draw_episode
from causalarena.generator.lab.suites import LAB_SUITES, episodes, find_episode

__all__ = ["LAB_SUITES", "Episode", "LabConfig", "draw_episode", "episodes", "find_episode"]
