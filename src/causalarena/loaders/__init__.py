"""Loaders of released suites (Hugging Face ``datasets``) and, later, real tables."""

from causalarena.loaders.load import iter_numpy, load, to_numpy

__all__ = ["iter_numpy", "load", "to_numpy"]
