"""Safe equations: a whitelisted ``ast`` parse, a numpy evaluator and a sympy view.

Formula nodes (CausalArena paper, section 4.3 and appendix A.3 stage 4) write a named
scientific equation.  An equation string is parsed with :func:`ast.parse` and every node of
the tree is checked against a whitelist (numbers, names, ``+ - * / **``, unary minus and calls
of the functions in :data:`FUNCTIONS`); nothing is ever passed to ``eval`` (sympy's
``parse_expr`` uses ``eval``, so it is not used).  The checked tree is kept as nested tuples
(:data:`Tree`) and is

* evaluated with numpy (:func:`evaluate`), vectorised over rows, with no clipping: this is the
  executable form used by the sampler, so a formula output is the exact value of the
  equation at its parents' values;
* evaluated with :mod:`pint` quantities (the same :func:`evaluate`) for the dimensional check;
* converted to a sympy expression (:func:`to_sympy`) for solving for the output variable
  (the solve-for orientation) and for the independent residual check (``sympy.lambdify``).

Trees are tuples: ``("num", float)``, ``("sym", name)``, ``(op, a, b)`` for op in
``add sub mul div pow``, ``("neg", a)`` and ``("call", fname, (args...))``.
"""

from __future__ import annotations

import ast
import math
import sys
from functools import lru_cache
from typing import Any

import numpy as np

from causalarena.errors import CausalArenaError

Tree = tuple

#: Whitelisted function names -> (numpy implementation, arity); ``min``/``max`` take 2 args.
FUNCTIONS: dict[str, tuple[Any, int]] = {
    "exp": (np.exp, 1),
    "log": (np.log, 1),
    "log10": (np.log10, 1),
    "log2": (np.log2, 1),
    "sqrt": (np.sqrt, 1),
    "cbrt": (np.cbrt, 1),
    "sin": (np.sin, 1),
    "cos": (np.cos, 1),
    "tan": (np.tan, 1),
    "asin": (np.arcsin, 1),
    "acos": (np.arccos, 1),
    "atan": (np.arctan, 1),
    "sinh": (np.sinh, 1),
    "cosh": (np.cosh, 1),
    "tanh": (np.tanh, 1),
    "abs": (np.abs, 1),
    "atan2": (np.arctan2, 2),
    "min": (np.minimum, 2),
    "max": (np.maximum, 2),
}
#: Names with a fixed meaning (cannot be used as variables or constants).
BUILTIN_CONSTANTS: dict[str, float] = {"pi": math.pi, "e_": math.e}
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}
MAX_LENGTH = 2000
MAX_DEPTH = 60


class ExpressionError(CausalArenaError, ValueError):
    """An equation string is not in the whitelisted grammar (message names the offending part)."""


def _convert(node: ast.AST, text: str, depth: int = 0) -> Tree:
    if depth > MAX_DEPTH:
        raise ExpressionError(f"equation {text!r} is nested too deeply")
    if isinstance(node, ast.Expression):
        return _convert(node.body, text, depth + 1)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExpressionError(f"equation {text!r}: only numbers are allowed as literals")
        if not math.isfinite(float(node.value)):
            raise ExpressionError(f"equation {text!r}: literal {node.value!r} is not finite")
        return ("num", float(node.value))
    if isinstance(node, ast.Name):
        return ("sym", node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return (
            _BINOPS[type(node.op)],
            _convert(node.left, text, depth + 1),
            _convert(node.right, text, depth + 1),
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _convert(node.operand, text, depth + 1)
        return ("neg", inner) if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            shown = ast.unparse(node.func)
            raise ExpressionError(
                f"equation {text!r}: function {shown!r} is not allowed; "
                f"allowed: {', '.join(sorted(FUNCTIONS))}"
            )
        if node.keywords:
            raise ExpressionError(f"equation {text!r}: keyword arguments are not allowed")
        fname = node.func.id
        arity = FUNCTIONS[fname][1]
        if len(node.args) != arity or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"equation {text!r}: {fname}() takes {arity} argument(s)")
        return ("call", fname, tuple(_convert(a, text, depth + 1) for a in node.args))
    shown = ast.unparse(node) if hasattr(ast, "unparse") else type(node).__name__
    raise ExpressionError(
        f"equation {text!r}: {shown!r} is not allowed (numbers, names, + - * / **, "
        "unary minus and whitelisted function calls only)"
    )


@lru_cache(maxsize=4096)
def parse(text: str) -> Tree:
    """Parse one side of an equation into a checked tree.

    Raises
    ------
    ExpressionError
        Syntax errors, disallowed constructs (attributes, subscripts, comparisons, lambdas,
        strings, keyword arguments, unknown functions) or texts longer than 2,000 characters.
    """
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError(f"equation side {text!r} is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"equation is longer than {MAX_LENGTH} characters")
    try:
        node = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"equation {text!r} is not valid: {exc.msg}") from None
    return _convert(node, text)


def parse_equation(text: str) -> tuple[Tree, Tree]:
    """Split ``"lhs = rhs"`` at its single ``=`` and parse both sides.

    Raises
    ------
    ExpressionError
        No ``=``, more than one, or either side not in the grammar.
    """
    if not isinstance(text, str) or text.count("=") != 1 or "==" in text:
        raise ExpressionError(f"equation {text!r} must have exactly one '=' (lhs = rhs)")
    lhs, rhs = text.split("=")
    return parse(lhs), parse(rhs)


def symbols(tree: Tree) -> set[str]:
    """Names referenced by a tree (variables and constants, not functions)."""
    kind = tree[0]
    if kind == "sym":
        return {tree[1]} - set(BUILTIN_CONSTANTS)
    if kind == "num":
        return set()
    if kind == "call":
        return set().union(*(symbols(a) for a in tree[2]))
    return set().union(*(symbols(a) for a in tree[1:]))


def calls(tree: Tree) -> list[tuple[str, tuple[Tree, ...]]]:
    """Every function call in the tree (outermost first)."""
    kind = tree[0]
    if kind in ("sym", "num"):
        return []
    if kind == "call":
        out = [(tree[1], tree[2])]
        for a in tree[2]:
            out += calls(a)
        return out
    return [c for a in tree[1:] for c in calls(a)]


def evaluate(tree: Tree, env: dict[str, Any]) -> Any:
    """Evaluate a tree with numpy on arrays, floats or pint quantities.

    Parameters
    ----------
    tree : Tree
    env : dict
        Value of every symbol (ndarray of shape (n,), float64, a float or a pint Quantity).

    Returns
    -------
    ndarray, float or Quantity
        The exact value (no clipping; invalid arguments give nan/inf, which the sampler and the
        release gate report).

    Raises
    ------
    KeyError
        A symbol without a value.
    """
    kind = tree[0]
    if kind == "num":
        return _no_huge_int(tree[1])
    if kind == "sym":
        if tree[1] in env:
            return env[tree[1]]
        if tree[1] in BUILTIN_CONSTANTS:
            return BUILTIN_CONSTANTS[tree[1]]
        raise KeyError(tree[1])
    if kind == "neg":
        return -evaluate(tree[1], env)
    if kind == "call":
        fn = FUNCTIONS[tree[1]][0]
        return fn(*(evaluate(a, env) for a in tree[2]))
    a, b = evaluate(tree[1], env), evaluate(tree[2], env)
    if kind == "add":
        return _no_huge_int(a + b)
    if kind == "sub":
        return _no_huge_int(a - b)
    if kind == "mul":
        return _no_huge_int(a * b)
    if kind == "div":
        return a / b
    if _is_int(a) and _is_int(b):  # 10**400, 2**2**2**2**2**2: float arithmetic, never bignums
        a, b = float(a), float(b)
    try:
        return a**b
    except OverflowError:  # Python floats raise where numpy gives inf; the gate reports inf
        return math.inf
    except ZeroDivisionError:
        return math.inf


#: Largest integer that converts to a finite float.
_MAX_FLOAT_INT = int(sys.float_info.max)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _no_huge_int(x: Any) -> Any:
    """A Python int beyond float range as +-inf (a literal or integer product so large that
    converting it to float would raise OverflowError); anything else unchanged."""
    if _is_int(x) and abs(x) > _MAX_FLOAT_INT:
        return math.copysign(math.inf, x)
    return x


_PREC = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}
_SYM = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}


def render(tree: Tree) -> str:
    """Canonical text of a tree (``parse(render(t)) == t``)."""
    kind = tree[0]
    if kind == "num":
        return repr(tree[1])
    if kind == "sym":
        return tree[1]
    if kind == "call":
        return f"{tree[1]}({', '.join(render(a) for a in tree[2])})"
    if kind == "neg":
        inner = render(tree[1])
        return f"-({inner})" if tree[1][0] not in ("num", "sym", "call") else f"-{inner}"
    p = _PREC[kind]
    left, right = render(tree[1]), render(tree[2])
    lk, rk = tree[1][0], tree[2][0]
    if lk in _PREC and (_PREC[lk] < p or (kind == "pow" and _PREC[lk] <= p)):
        left = f"({left})"
    if lk == "num" and tree[1][1] < 0:
        left = f"({left})"
    if rk in _PREC and (_PREC[rk] < p or (_PREC[rk] == p and kind in ("sub", "div"))):
        right = f"({right})"
    if rk == "num" and tree[2][1] < 0:
        right = f"({right})"
    return f"{left} {_SYM[kind]} {right}"


# ----------------------------------------------------------------------------------- sympy


def to_sympy(tree: Tree, syms: dict[str, Any]) -> Any:
    """Build the sympy expression of a tree (no parsing, no eval).

    Parameters
    ----------
    syms : dict
        ``name -> sympy.Symbol`` for every symbol of the tree.
    """
    from causalarena._extras import require

    sp = require("sympy", "build", "compiling semantic/formula scenarios")

    kind = tree[0]
    if kind == "num":
        v = tree[1]
        return sp.Integer(int(v)) if float(v).is_integer() and abs(v) < 2**53 else sp.Float(v)
    if kind == "sym":
        if tree[1] == "pi":
            return sp.pi
        if tree[1] == "e_":
            return sp.E
        return syms[tree[1]]
    if kind == "neg":
        return -to_sympy(tree[1], syms)
    if kind == "call":
        args = [to_sympy(a, syms) for a in tree[2]]
        table = {
            "exp": sp.exp,
            "log": sp.log,
            "log10": lambda x: sp.log(x, 10),
            "log2": lambda x: sp.log(x, 2),
            "sqrt": sp.sqrt,
            "cbrt": sp.cbrt,
            "sin": sp.sin,
            "cos": sp.cos,
            "tan": sp.tan,
            "asin": sp.asin,
            "acos": sp.acos,
            "atan": sp.atan,
            "sinh": sp.sinh,
            "cosh": sp.cosh,
            "tanh": sp.tanh,
            "abs": sp.Abs,
            "atan2": sp.atan2,
            "min": sp.Min,
            "max": sp.Max,
        }
        return table[tree[1]](*args)
    a, b = to_sympy(tree[1], syms), to_sympy(tree[2], syms)
    return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "pow": a**b}[kind]


def from_sympy(expr: Any) -> Tree:
    """Convert a sympy expression (of the grammar's functions) back into a tree.

    Raises
    ------
    ExpressionError
        The expression uses something outside the grammar (e.g. ``LambertW`` from a solve).
    """
    from causalarena._extras import require

    sp = require("sympy", "build", "compiling semantic/formula scenarios")

    if expr is sp.pi:
        return ("sym", "pi")
    if expr is sp.E:
        return ("sym", "e_")
    if isinstance(expr, sp.Symbol):
        return ("sym", expr.name)
    if expr.is_Number:
        return ("num", float(expr))
    if isinstance(expr, sp.Add):
        args = [from_sympy(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = ("add", out, a)
        return out
    if isinstance(expr, sp.Mul):
        args = [from_sympy(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = ("mul", out, a)
        return out
    if isinstance(expr, sp.Pow):
        base, ex = expr.args
        if ex == sp.Rational(1, 2):
            return ("call", "sqrt", (from_sympy(base),))
        if ex == -1:
            return ("div", ("num", 1.0), from_sympy(base))
        return ("pow", from_sympy(base), from_sympy(ex))
    names = {
        sp.exp: "exp",
        sp.log: "log",
        sp.sin: "sin",
        sp.cos: "cos",
        sp.tan: "tan",
        sp.asin: "asin",
        sp.acos: "acos",
        sp.atan: "atan",
        sp.sinh: "sinh",
        sp.cosh: "cosh",
        sp.tanh: "tanh",
        sp.Abs: "abs",
        sp.atan2: "atan2",
        sp.Min: "min",
        sp.Max: "max",
    }
    fname = names.get(expr.func)
    if fname is None or len(expr.args) != FUNCTIONS[fname][1]:
        raise ExpressionError(f"solved expression {expr} uses {expr.func} outside the grammar")
    return ("call", fname, tuple(from_sympy(a) for a in expr.args))
