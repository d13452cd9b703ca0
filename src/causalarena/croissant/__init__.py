"""Croissant metadata (``croissant.json``) of release folders; see :mod:`.builder`."""

from causalarena.croissant.builder import (
    CROISSANT,
    build_croissant,
    load_records,
    validate_croissant,
    write_croissant,
)

__all__ = ["CROISSANT", "build_croissant", "load_records", "validate_croissant", "write_croissant"]
