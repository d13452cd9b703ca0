"""Progress display (rich) on stderr; ``quiet=True`` turns it off.

Progress is shown only when stderr is a terminal, unless asked for with ``--progress`` (which
sets ``$CAUSALARENA_PROGRESS=1``, also seen by worker processes): piped or redirected output
never carries progress bars, and stdout never does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

PROGRESS_ENV = "CAUSALARENA_PROGRESS"


def progress_enabled(quiet: bool, console: Console) -> bool:
    """Whether to show progress: not ``quiet``, and stderr a terminal or progress forced."""
    if quiet:
        return False
    return console.is_terminal or os.environ.get(PROGRESS_ENV, "") not in ("", "0")


@contextmanager
def progress(quiet: bool = False) -> Iterator[Progress]:
    """A rich progress bar on stderr; disabled when ``quiet`` or stderr is not a terminal."""
    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not progress_enabled(quiet, console),
    )
    with bar:
        yield bar
