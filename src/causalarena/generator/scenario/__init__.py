"""Semantic and formula scenarios: file format, mechanism vocabulary, compiler and release gate.

* :mod:`.schema` - the YAML scenario format (pydantic, unknown fields rejected);
* :mod:`.operations` - the structured mechanism vocabulary, noise channels and roots;
* :mod:`.expressions` - safe equations (``ast`` whitelist, numpy evaluation, sympy view);
* :mod:`.units` - dimensional checks with pint;
* :mod:`.compile` - scenario -> :class:`~causalarena.spec.SCMSpec`;
* :mod:`.gate` - the deterministic release gate (paper appendix A.3 stage 5);
* :mod:`.pool` - the scenario files shipped with the package;
* :mod:`.scaffold` - a new-scenario template.
"""
