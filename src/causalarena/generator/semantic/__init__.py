"""Semantic operational SCMs (CausalArena paper, section 4.2 and appendix A.4).

The scenarios are YAML files under ``scenarios/<domain>/`` (package data), compiled and gated
by :mod:`causalarena.generator.scenario`.
"""
