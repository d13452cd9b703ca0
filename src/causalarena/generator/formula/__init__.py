"""Formula-grounded scientific SCMs (CausalArena paper, section 4.3 and appendix A.5).

The scenarios are YAML files under ``scenarios/<domain>/`` (package data), compiled and gated
by :mod:`causalarena.generator.scenario`.
"""
