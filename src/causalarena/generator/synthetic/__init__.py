"""The synthetic SCM family of the arena: the pool draw (:mod:`.draw`) and the named suites
(:mod:`.suites`)."""

from causalarena.generator.synthetic.draw import (
    DIMENSIONS,
    GENERATOR_REV,
    STRESSORS,
    _Reject,
    block_of,
    dependency_for,
    difficulty_for,
    draw_spec,
    node_tags,
    suite_key,
)
from causalarena.generator.synthetic.suites import SUITES, Scale, SuiteDef, get_suite

__all__ = [
    "DIMENSIONS",
    "GENERATOR_REV",
    "STRESSORS",
    "SUITES",
    "Scale",
    "SuiteDef",
    "_Reject",
    "block_of",
    "dependency_for",
    "difficulty_for",
    "draw_spec",
    "get_suite",
    "node_tags",
    "suite_key",
]
