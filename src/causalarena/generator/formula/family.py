"""The ``arena-formula`` suite as a release family (see :mod:`causalarena.generator.scenario.family`)."""

from causalarena.generator.scenario.family import make_family

FAMILY = make_family("formula")
