"""Exception hierarchy of :mod:`causalarena`.

Every error names the object (file, variable, instance), the field and the offending value,
so that a user can fix the input without reading the source.
"""

from __future__ import annotations


class CausalArenaError(Exception):
    """Base class of every error raised on purpose by :mod:`causalarena`."""


class SpecError(CausalArenaError, ValueError):
    """An SCM specification is invalid.

    Parameters
    ----------
    variable : str or None
        Name of the offending variable (``None`` for spec-level problems).
    field : str
        Dotted path of the offending field, e.g. ``"mechanism.params.weights"``.
    value : object
        The offending value (rendered with ``repr``, truncated).
    reason : str
        Human-readable explanation.
    """

    def __init__(self, variable: str | None, field: str, value: object, reason: str):
        self.variable = variable
        self.field = field
        self.value = value
        self.reason = reason
        shown = repr(value)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        where = f"variable {variable!r}, " if variable is not None else ""
        super().__init__(f"invalid SCM spec: {where}field {field!r} = {shown}: {reason}")


class AuditError(CausalArenaError):
    """A generated SCM could not pass the audit gates within the attempt budget."""


class ReleaseError(CausalArenaError):
    """A release folder is missing, malformed, or does not match its manifest."""


class ChecksumError(ReleaseError):
    """A file's sha256 differs from the one recorded for it."""


class LabError(CausalArenaError, ValueError):
    """A lab-episode request is invalid: an action past the budget, a non-controllable
    property, a malformed hypothesis, an unknown episode (CausaLab sections 3.2 and 4).

    The message names the field and the offending value and says what is allowed.
    """
