"""Read torch.export's guards and constraint-violation messages as symshape claims.

Guards are printed by torch's Python printer over *sources* such as
``L['x'].size()[0]`` (``//``, ``%``, ``max(...)``, ``and``, ...).  They are
parsed with Python's :mod:`ast` (never evaluated) and rebuilt as symshape
expressions, a source becoming the symshape dimension of that input size and a
name (a ``Dim`` name such as ``b`` or ``_s``) the expression of that ``Dim``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.errors import SymshapeError
from symshape.shapes import Dim

SourceKey = tuple[tuple[int | str, ...], int]
"""``((argument name, key, key, ...), axis)`` of a source ``L['x'][0].size()[1]``."""


class GuardParseError(SymshapeError):
    """A guard or message of torch.export could not be read as symshape claims."""


_NEGATE = {"==": "!=", "!=": "==", ">=": "<", ">": "<=", "<=": ">", "<": ">="}
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=", ast.Lt: "<"}


def source_key(node: ast.AST) -> SourceKey | None:
    """The key of a size source ``L[...]...size()[axis]`` (None if not one)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "size"
            and not call.args and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)):
        return None
    keys: list[int | str] = []
    cur = call.func.value
    while isinstance(cur, ast.Subscript):
        if not isinstance(cur.slice, ast.Constant) or \
                not isinstance(cur.slice.value, int | str):
            return None
        keys.append(cur.slice.value)
        cur = cur.value
    if not (isinstance(cur, ast.Name) and cur.id == "L") or not keys:
        return None
    return tuple(reversed(keys)), node.slice.value


class Reader:
    """Rebuilds torch's Python text as symshape expressions and claims.

    ``source(key)`` gives the dimension of a size source, ``name(id)`` the
    expression of a name; both raise :class:`GuardParseError` when unknown.
    """

    def __init__(self, source: Callable[[SourceKey], Dim], name: Callable[[str], Dim]) -> None:
        self.source = source
        self.name = name

    def parse(self, text: str) -> ast.expr:
        try:
            return ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            raise GuardParseError(f"cannot parse torch's text {text!r}") from None

    def expr(self, text: str) -> Dim:
        """The symshape dimension of an integer expression."""
        return self._expr(self.parse(text), text)

    def claims(self, text: str) -> list[str]:
        """The claims whose conjunction is the guard ``text``."""
        out: list[str] = []
        self._claims(self.parse(text), text, False, out)
        return out

    def _fail(self, node: ast.AST, text: str, what: str) -> GuardParseError:
        return GuardParseError(f"cannot read {ast.unparse(node)!r} in torch's text {text!r}: "
                               f"{what}")

    def _claims(self, node: ast.expr, text: str, negate: bool, out: list[str]) -> None:
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) and not negate:
            for v in node.values:
                self._claims(v, text, False, out)
            return
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and negate:
            for v in node.values:  # not (p or q) == not p and not q
                self._claims(v, text, True, out)
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self._claims(node.operand, text, not negate, out)
            return
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            if node.value == negate:
                out.append("0 >= 1")
            return
        if not isinstance(node, ast.Compare):
            raise self._fail(node, text, "not a comparison or a conjunction of comparisons "
                             "(symshape claims have no disjunction)")
        left = self._expr(node.left, text)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            sym = _CMP.get(type(op))
            if sym is None:
                raise self._fail(node, text, f"unsupported comparison {type(op).__name__}")
            right = self._expr(right_node, text)
            out.append(f"{left} {_NEGATE[sym] if negate else sym} {right}")
            left = right

    def _expr(self, node: ast.expr, text: str) -> Dim:
        key = source_key(node)
        if key is not None:
            return self.source(key)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            v = self._expr(node.operand, text)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            x = self._expr(node.left, text)
            if isinstance(node.op, ast.Pow):
                if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, int)
                        and node.right.value >= 0):
                    raise self._fail(node, text, "the exponent is not a non-negative constant")
                return x ** node.right.value
            y = self._expr(node.right, text)
            try:
                if isinstance(node.op, ast.Add):
                    return x + y
                if isinstance(node.op, ast.Sub):
                    return x - y
                if isinstance(node.op, ast.Mult):
                    return x * y
                if isinstance(node.op, ast.FloorDiv):
                    return floordiv(x, y)
                if isinstance(node.op, ast.Mod):
                    return mod(x, y)
            except ZeroDivisionError:
                raise self._fail(node, text, "division by zero") from None
            raise self._fail(node, text, f"the operator {type(node.op).__name__} has no "
                             "symshape counterpart")
        if isinstance(node, ast.Call):
            fname = ast.unparse(node.func)
            vals = [self._expr(a, text) for a in node.args]
            if fname in ("max", "min") and len(vals) >= 2:
                fn = max_expr if fname == "max" else min_expr
                acc = vals[0]
                for v in vals[1:]:
                    acc = fn(acc, v)
                return acc
            if fname == "abs" and len(vals) == 1:
                return max_expr(vals[0], -vals[0])
            if fname in ("math.floor", "math.ceil") and len(node.args) == 1 and \
                    isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, ast.Div):
                num = self._expr(node.args[0].left, text)
                den = self._expr(node.args[0].right, text)
                if fname == "math.floor":
                    return floordiv(num, den)
                return -floordiv(-num, den)
            raise self._fail(node, text, f"the function {fname} has no symshape counterpart")
        raise self._fail(node, text, "not an integer expression of sizes")


# -- constraint-violation messages ------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One bullet of torch's "Constraints violated" message."""

    kind: str
    """``"guard"``, ``"inferred"``, ``"specialized"``, ``"equal"`` or ``"related"``."""
    text: str
    """The bullet as torch wrote it."""
    names: tuple[tuple[str, str], ...]
    """``(Dim name, source)`` pairs the bullet mentions."""
    range: str = ""
    """The specified range of the Dim (``"2 <= b <= 1024"``), if given."""
    guard: str = ""
    """The guard, the inferred or related expression, or the constant."""


_SRC = r"L\[[^\n]*?\]\.size\(\)\[\d+\]"
_GUARD = re.compile(rf"Not all values of (?P<name>.+?) = (?P<src>{_SRC}) in the specified "
                    r"range(?P<range>.*?) satisfy the generated guard (?P<guard>.*?)\.?$",
                    re.DOTALL)
_INFERRED = re.compile(rf"Not all values of (?P<name>.+?) = (?P<src>{_SRC}) in the specified "
                       r"range(?P<range>.*?) are valid because .*? was inferred to be equal "
                       r"to (?P<guard>.*?)\.?$", re.DOTALL)
_SPECIALIZED = re.compile(r"You marked (?P<name>.+?) as dynamic but your code specialized "
                          r"it to be a constant \((?P<guard>-?\d+)\)")
_EQUAL = re.compile(rf"The values of (?P<n1>.+?) = (?P<s1>{_SRC}) and (?P<n2>.+?) = "
                    rf"(?P<s2>{_SRC}) must always be equal")
_RELATED = re.compile(rf"The values of (?P<n1>.+?) = (?P<s1>{_SRC}) must always be related to "
                      rf"the values of (?P<n2>.+?) = (?P<s2>{_SRC}) by (?P<lhs>.+?) = "
                      r"(?P<guard>.*?)\.?$", re.DOTALL)


def parse_violations(message: str) -> list[Violation]:
    """The bullets of a "Constraints violated" message, parsed."""
    body = message.split("Suggested fixes:")[0]
    bullets: list[str] = []
    for line in body.splitlines():
        if line.startswith("  - "):
            bullets.append(line[4:])
        elif bullets and line.startswith("    ") and not line.strip().startswith("User stack"):
            bullets[-1] += " " + line.strip()
    out: list[Violation] = []
    for b in bullets:
        b = b.split("\n\nUser stack:")[0].strip()
        if m := _INFERRED.match(b):
            out.append(Violation("inferred", b, ((m["name"], m["src"]),),
                                 m["range"].strip(), m["guard"]))
        elif m := _GUARD.match(b):
            out.append(Violation("guard", b, ((m["name"], m["src"]),), m["range"].strip(),
                                 m["guard"]))
        elif m := _SPECIALIZED.match(b):
            out.append(Violation("specialized", b, ((m["name"], ""),), "", m["guard"]))
        elif m := _EQUAL.match(b):
            out.append(Violation("equal", b, ((m["n1"], m["s1"]), (m["n2"], m["s2"]))))
        elif m := _RELATED.match(b):
            out.append(Violation("related", b, ((m["n1"], m["s1"]), (m["n2"], m["s2"])), "",
                                 m["guard"]))
        else:
            out.append(Violation("unknown", b, ()))
    return out


def suggested_fixes(message: str) -> list[str]:
    """torch's own "Suggested fixes" lines."""
    if "Suggested fixes:" not in message:
        return []
    tail = message.split("Suggested fixes:", 1)[1]
    out: list[str] = []
    for line in tail.splitlines():
        s = line.strip()
        if not s:
            if out:
                break
            continue
        if not line.startswith("  "):
            break
        out.append(s)
    return out


__all__ = ["GuardParseError", "Reader", "SourceKey", "Violation", "parse_violations",
           "source_key", "suggested_fixes"]
