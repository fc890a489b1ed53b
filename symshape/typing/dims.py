"""Reading the shape strings of annotations, in symshape's syntax or jaxtyping's.

A shape string becomes an :class:`ArraySpec`: a tuple of :class:`Item`, each one
dimension (an expression of the grammar, ``_``, or a broadcastable dimension)
or a run of dimensions (``...``, ``*batch``).  For the ranks of a call the
runs are expanded (:func:`expand`) into the comma-separated spec strings that
:class:`symshape.ShapeCheck` reads, so every dimension is solved and checked by
symshape's own plan.

Which syntax a string is in (``syntax="auto"``):

* a comma outside parentheses makes it symshape's (``"b, 2*h + 1"``);
* otherwise it is symshape's when symshape's parser reads it and none of its
  words starts with ``_`` followed by a letter (``"2*h + 1"``, ``"b"``, ``"..."``);
* otherwise it is jaxtyping's (``"b c"``, ``"*batch #c"``, ``"rows=3"``, ``"_n"``).

Where both syntaxes read a string, they give it the same meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from symshape import parsing
from symshape.errors import ParseError, SymshapeError

Syntax = Literal["auto", "symshape", "jaxtyping"]

Kind = Literal["dim", "any", "run", "anyrun"]
"""``dim``: one dimension with a spec; ``any``: one dimension of any size
(``_``); ``run``: a named run of dimensions (``*batch``), the same sizes
wherever the name occurs in one call; ``anyrun``: any dimensions (``...``)."""

_NAME = re.compile(r"[^\W\d]\w*")
# The variable of the i-th dimension of the run '*batch' is 'batch__i'.
RUN_SEPARATOR = "__"


@dataclass(frozen=True)
class Item:
    """One entry of a shape string.

    Attributes:
      kind: see :data:`Kind`.
      text: the expression (``dim``) or the name of the run (``run``).
      broadcast: a size of 1 is accepted too (jaxtyping's ``#``), without
        binding anything.
      names: the dimension variables of a ``dim``.
    """

    kind: Kind
    text: str = ""
    broadcast: bool = False
    names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ArraySpec:
    """The parsed shape string of one array.

    Attributes:
      text: the string as written.
      syntax: the syntax it was read in (``symshape`` or ``jaxtyping``).
      items: its entries, in order; at most one is a run.
      has_broadcast: whether an entry is broadcastable.
    """

    text: str
    syntax: str
    items: tuple[Item, ...]
    has_broadcast: bool = field(init=False, default=False, compare=False)

    def __post_init__(self) -> None:
        # Read on every call whose shapes were not seen before.
        object.__setattr__(self, "has_broadcast", any(it.broadcast for it in self.items))

    @property
    def run_index(self) -> int | None:
        """The position of the run (``...`` or ``*name``), if any."""
        for i, it in enumerate(self.items):
            if it.kind in ("run", "anyrun"):
                return i
        return None

    @property
    def fixed_rank(self) -> int:
        """The number of single dimensions (the least rank)."""
        return sum(it.kind in ("dim", "any") for it in self.items)

    @property
    def shown(self) -> str:
        """The spec as shown in messages: ``(b, 2*h + 1)``."""
        return f"({self.text.strip()})" if self.syntax == "symshape" else f"'{self.text}'"


def _names_in(node: Any, out: set[str]) -> None:
    if isinstance(node, tuple) and node:
        if node[0] == "var":
            out.add(node[2])
            return
        for child in node[1:]:
            _names_in(child, out)


def names_in(node: Any) -> frozenset[str]:
    """The variable names of a syntax tree of :mod:`symshape.parsing`."""
    out: set[str] = set()
    _names_in(node, out)
    return frozenset(out)


def constraint_names(text: str) -> frozenset[str]:
    """The variables a constraint mentions (raises ParseError when malformed)."""
    out: set[str] = set()
    for _op, left, right in parsing.parse_comparison(text):
        _names_in(left, out)
        _names_in(right, out)
    return frozenset(out)


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def _has_top_level_comma(text: str) -> bool:
    return len(split_top_level(text)) > 1


def _expr_item(text: str, spec: str, broadcast: bool = False) -> Item:
    try:
        node = parsing.parse_expr(text)
    except ParseError as err:
        raise ParseError(f"in the shape string {spec!r}, the dimension {text!r}: {err.reason}",
                         text=err.text, column=err.column, expected=err.expected) from None
    return Item("dim", text.strip(), broadcast, names_in(node))


def _read_symshape(text: str) -> ArraySpec:
    try:
        nodes = parsing.parse_spec(text)
    except ParseError:
        nodes = None
    body = text.strip()
    pieces = [p.strip() for p in split_top_level(body)]
    if nodes is not None and len(pieces) == 1 and body.startswith("(") \
            and body.endswith(")"):
        try:
            parsing.parse_expr(body)  # "(a + 1)" is one expression
        except ParseError:  # "(a, b)", "(a,)", "()": the parentheses hold the spec
            body = body[1:-1]
            pieces = [p.strip() for p in split_top_level(body)]
    if pieces and pieces[-1] == "" and len(pieces) > 1:
        pieces.pop()  # a trailing comma
    if pieces == [""]:
        pieces = []
    items: list[Item] = []
    for piece in pieces:
        if piece == "_":
            items.append(Item("any"))
        elif piece == "...":
            items.append(Item("anyrun"))
        elif piece.startswith("*") and _NAME.fullmatch(piece[1:].strip()):
            items.append(Item("run", piece[1:].strip()))  # an extension: '*batch'
        else:
            items.append(_expr_item(piece, text))
    if nodes is None and not any(it.kind == "run" for it in items):
        parsing.parse_spec(text)  # raises the parser's own error
    _one_run(items, text)
    return ArraySpec(text, "symshape", tuple(items))


def _one_run(items: list[Item], text: str) -> None:
    if sum(it.kind in ("run", "anyrun") for it in items) > 1:
        raise ParseError(f"the shape string {text!r} has more than one run of dimensions "
                         "('...' or '*name'); at most one is allowed", text=text)


def _read_jaxtyping(text: str) -> ArraySpec:
    items: list[Item] = []
    for word in text.split():
        if "," in word and "(" not in word:
            raise ParseError(f"in the jaxtyping shape string {text!r}, {word!r}: dimensions are "
                             "separated by spaces there, or by commas in symshape's syntax "
                             "(not both)", text=text)
        if word == "...":
            items.append(Item("anyrun"))
            continue
        rest, run, broadcast, anonymous = word, False, False, False
        while rest:
            head = rest[0]
            if head == "*" and not run:
                run, rest = True, rest[1:]
            elif head == "#" and not broadcast:
                broadcast, rest = True, rest[1:]
            elif head == "_" and not anonymous:
                anonymous, rest = True, rest[1:]
            elif head == "?":
                raise ParseError(
                    f"in the shape string {text!r}, {word!r}: jaxtyping's '?' (a size that "
                    "may differ between the leaves of a pytree) is not supported; use a "
                    "separate name for each leaf", text=text)
            elif rest.count("=") == 1 and "==" not in rest:
                rest = rest.split("=")[1]  # 'rows=3' is the size 3, named for readers
            else:
                break
        if anonymous and (rest == "" or rest.isidentifier()):
            items.append(Item("anyrun" if run else "any"))
        elif run:
            if not rest.isidentifier():
                raise ParseError(f"in the shape string {text!r}, {word!r}: a run of "
                                 "dimensions is named by an identifier ('*batch')", text=text)
            items.append(Item("run", rest, broadcast))
        elif anonymous:
            raise ParseError(f"in the shape string {text!r}, {word!r}: '_' marks a dimension "
                             "of any size and takes no expression", text=text)
        else:
            items.append(_expr_item(rest, text, broadcast))
    _one_run(items, text)
    return ArraySpec(text, "jaxtyping", tuple(items))


def _looks_jaxtyping(text: str) -> bool:
    words = text.split()
    if re.search(r"[\w)]\s+[\w(*#?.]", text) or any(w[0] in "*#?" for w in words) \
            or re.search(r"(?<![=<>!])=(?!=)", text):
        return True  # two operands side by side, or jaxtyping's marks: no parse needed
    try:
        parsing.parse_spec(text)
    except ParseError:
        return True
    return any(re.match(r"_[^\W\d_]", w) for w in words)


def read_spec(text: object, syntax: Syntax = "auto") -> ArraySpec:
    """The :class:`ArraySpec` of a shape string (see the module docs for the syntaxes).

    Raises:
      ParseError: for a malformed string.
      SymshapeError: for something other than a string, or an unknown syntax.
    """
    if not isinstance(text, str):
        raise SymshapeError(f"a shape annotation is a string such as 'b, 2*h + 1' or "
                            f"'batch channels', got {text!r}")
    if syntax == "auto":
        syntax = "symshape" if _has_top_level_comma(text) or not _looks_jaxtyping(text) \
            else "jaxtyping"
    if syntax == "symshape":
        return _read_symshape(text)
    if syntax == "jaxtyping":
        return _read_jaxtyping(text)
    raise SymshapeError(f"syntax must be 'auto', 'symshape' or 'jaxtyping', got {syntax!r}")


def run_variable(name: str, i: int) -> str:
    """The variable of the ``i``-th dimension of the run ``*name``."""
    return f"{name}{RUN_SEPARATOR}{i}"


def expand(spec: ArraySpec, rank: int, run_lengths: dict[str, int],
           ones: tuple[bool, ...] | None) -> str:
    """The spec string of ShapeCheck for an array of ``rank`` (>= ``fixed_rank``).

    ``run_lengths`` gives the length of every named run; ``ones[j]`` whether
    dimension ``j`` is a concrete 1 (a broadcastable dimension of size 1 is then
    a placeholder).
    """
    out: list[str] = []
    run_len = rank - spec.fixed_rank
    for it in spec.items:
        if it.kind == "any":
            out.append("_")
        elif it.kind == "anyrun":
            out.extend(["_"] * run_len)
        elif it.kind == "run":
            for i in range(run_lengths[it.text]):
                one = it.broadcast and ones is not None and ones[len(out)]
                out.append("_" if one else run_variable(it.text, i))
        else:
            one = it.broadcast and ones is not None and ones[len(out)]
            out.append("_" if one else it.text)
    return ", ".join(out)


__all__ = ["ArraySpec", "Item", "Syntax", "constraint_names", "expand", "names_in",
           "read_spec", "run_variable", "split_top_level"]
