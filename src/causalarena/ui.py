"""Progress display (rich); ``quiet=True`` turns it off."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def progress(quiet: bool = False) -> Iterator[Progress]:
    """A rich progress bar on stderr, disabled when ``quiet``."""
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=quiet,
    )
    with bar:
        yield bar
