"""JSON text and objects with a bounded nesting depth (no ``RecursionError`` on hostile input).

``json.loads`` recurses once per nesting level and raises ``RecursionError`` (or fails later in
``repr``/validation) on a file such as ``[[[[...]]]]``.  :func:`loads` measures the depth of the
text first, without recursion, and refuses anything deeper than :data:`MAX_DEPTH` with a
:class:`JSONDepthError` that callers turn into their own error naming the file and field.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

#: Deepest nesting accepted in a manifest, spec, card or Croissant file (real files use < 12).
MAX_DEPTH = 64

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPEN = np.frombuffer(b"[{", dtype=np.uint8)
_CLOSE = np.frombuffer(b"]}", dtype=np.uint8)


class JSONDepthError(ValueError):
    """JSON text or an object nests deeper than allowed.

    Attributes
    ----------
    depth : int
        The depth found (at least ``limit + 1``).
    limit : int
        The limit that was exceeded.
    path : str
        Dotted path of the first too-deep value (objects only; ``"<text>"`` for text).
    """

    def __init__(self, depth: int, limit: int, path: str = "<text>"):
        self.depth, self.limit, self.path = depth, limit, path
        super().__init__(f"nests {depth} levels deep at {path} (limit {limit})")


def text_depth(text: str | bytes | bytearray) -> int:
    """Maximum bracket nesting depth of JSON text, ignoring brackets inside strings.

    Linear time, no recursion (string literals are removed with a regular expression, then
    ``[{``/``]}`` are counted with a cumulative sum).
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    stripped = _STRING.sub(b'""', raw)
    arr = np.frombuffer(stripped, dtype=np.uint8)
    step = np.isin(arr, _OPEN).astype(np.int64) - np.isin(arr, _CLOSE).astype(np.int64)
    return int(np.cumsum(step).max(initial=0))


def object_depth(obj: Any, limit: int = MAX_DEPTH) -> tuple[int, str]:
    """Depth of nested dicts/lists/tuples (iterative) and the path of the deepest one seen.

    Stops descending past ``limit + 1`` levels, so the cost is bounded by the object's size.
    """
    best, where = 0, "<root>"
    stack: list[tuple[Any, int, str]] = [(obj, 1, "<root>")]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict):
            items = ((f"{path}.{k}", v) for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            items = ((f"{path}[{i}]", v) for i, v in enumerate(node))
        else:
            continue
        if depth > best:
            best, where = depth, path
        if depth > limit:
            return best, where
        stack.extend((v, depth + 1, p) for p, v in items)
    return best, where


def check_object(obj: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`JSONDepthError` if ``obj`` nests deeper than ``limit``."""
    depth, path = object_depth(obj, limit)
    if depth > limit:
        raise JSONDepthError(depth, limit, path)


def loads(text: str | bytes | bytearray, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` after checking the nesting depth.

    Raises
    ------
    JSONDepthError
        If the text nests deeper than ``limit``.
    json.JSONDecodeError, UnicodeDecodeError
        As ``json.loads`` does for invalid text, and for an integer literal longer than
        :data:`MAX_INT_DIGITS` digits.
    """
    depth = text_depth(text)
    if depth > limit:
        raise JSONDepthError(depth, limit)
    return json.loads(text, parse_int=_parse_int)


#: Longest integer literal accepted (Python's own limit on int/str conversion).
MAX_INT_DIGITS = 4300


def _parse_int(literal: str) -> int:
    """``int(literal)``, refusing absurdly long literals as invalid JSON (not ``ValueError``)."""
    digits = len(literal.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise json.JSONDecodeError(
            f"integer literal with {digits} digits (limit {MAX_INT_DIGITS})", literal[:20], 0
        )
    return int(literal)
