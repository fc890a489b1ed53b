"""Run-time checks of :func:`symshape.torch.export` that fail in the user's words.

torch turns the ``torch._check`` calls made while tracing into
``aten._assert_scalar`` nodes whose message is its own ("Runtime assertion
failed for expression Eq(s27, 16*((s27//16))) on node 'eq_1'"), whatever
message ``torch._check`` was given.  After the export, each such node's
condition is read back as symshape claims over the specs' variables, and its
message is replaced by the user's constraint that the condition follows from
(with what torch's own input checks guarantee: the ``Dim`` ranges), naming
where each variable is read from:

    shape constraint mod(s, 16) == 0 fails for s = x.shape[0]

The message is a string argument of the node, so it is saved by
``torch.export.save`` and raised by a program loaded where symshape is not
installed.  It cannot hold the sizes of the failing call (an fx graph has no
string formatting that serializes); in the process that exported, the
program's ``module()`` adds them when a check fails (nothing is added to a call
that passes):

    shape constraint mod(s, 16) == 0 fails: s = 120 (x.shape[0])

torch checks the ``Dim`` ranges itself, before these nodes, with its own
messages ("Guard failed: x.size()[0] <= 99"); in the exporting process those
failures are reported with symshape's message for the arguments too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from symshape.decision import prove
from symshape.errors import ShapeMismatchError, SymshapeError
from symshape.operators import FUNCTIONS
from symshape.scope import SymbolicScope
from symshape.shapes import Dim
from symshape.torch import _internals as ti
from symshape.torch.convert import tensor_placeholders
from symshape.torch.fxread import assertion_claims
from symshape.torch.specs import ExportSpecs, InputDim, linear_in_one, tensor_shapes

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTIONS = frozenset(op.function for op in FUNCTIONS)  # reserved words, not names


@dataclass(frozen=True)
class Source:
    """Where a name of a message is read from: ``(size - offset) // coeff`` of
    one input size."""

    name: str
    leaf: int
    axis: int
    text: str
    """``x.shape[0]`` or ``(x.shape[1] - 1) // 2``."""
    coeff: int = 1
    offset: int = 0

    def value(self, shapes: Sequence[Sequence[int]]) -> int | None:
        if self.leaf >= len(shapes) or self.axis >= len(shapes[self.leaf]):
            return None
        return (int(shapes[self.leaf][self.axis]) - self.offset) // self.coeff


@dataclass(frozen=True)
class CheckLabel:
    """What a run-time assertion checks, in the user's words."""

    what: str
    """``shape constraint mod(s, 16) == 0``, ``one of the shape constraints
    ...`` or ``the shape relation the model needs, b <= a,``."""
    sources: tuple[Source, ...]
    """The names of ``what`` and where they are read from (a size that is no
    ``Dim`` is its own name: ``z.shape[0]``)."""

    @property
    def message(self) -> str:
        """The message baked into the program (no sizes)."""
        where = ", ".join(f"{s.name} = {s.text}" for s in self.sources if s.name != s.text)
        return f"{self.what} fails" + (f" for {where}" if where else "")

    def with_sizes(self, shapes: Sequence[Sequence[int]]) -> str:
        """The message with the values at the input ``shapes``."""
        parts = []
        for s in self.sources:
            v = s.value(shapes)
            shown = "?" if v is None else str(v)
            parts.append(f"{s.name} = {shown}" + (f" ({s.text})" if s.name != s.text else ""))
        return f"{self.what} fails" + (": " + ", ".join(parts) if parts else "")


def _names(text: str) -> list[str]:
    out: list[str] = []
    for m in _WORD.finditer(text):
        w = m.group()
        if w not in _FUNCTIONS and w not in out:
            out.append(w)
    return out


def _size_text(es: ExportSpecs, d: InputDim) -> str:
    return f"{es.input_name(d.leaf)}.shape[{d.axis}]"


def _variable_sources(es: ExportSpecs) -> dict[str, Source]:
    """Each variable of the specs read off the first input size ``c*v + d``."""
    out: dict[str, Source] = {}
    for d in es.inputs:
        lin = linear_in_one(d.expr)
        if lin is None or lin[1] < 1 or lin[0] in out:
            continue
        v, c, off = lin
        size = _size_text(es, d)
        text = size if off == 0 else f"{size} - {off}" if off > 0 else f"{size} + {-off}"
        if c != 1:
            text = f"({text}) // {c}" if off else f"{size} // {c}"
        out[v] = Source(v, d.leaf, d.axis, text, c, off)
    return out


def _proved(claims: Sequence[str], constraints: Sequence[str]) -> bool:
    try:
        sc = SymbolicScope(list(constraints))
        return all(prove(c, scope=sc).proved for c in claims)
    except SymshapeError:
        return False


class _Labeler:
    """Names the reason of each assertion of one export."""

    def __init__(self, ep: Any, es: ExportSpecs) -> None:
        self.es = es
        self.leaf_of = {n: i for i, n in enumerate(tensor_placeholders(ep))}
        self.sources = _variable_sources(es)
        taken = {str(v) for d in es.inputs for v in _names(str(d.expr))}
        # A size that is no Dim (``a + b``) is a name of its own in the claims.
        self.size_names: dict[tuple[int, int], str] = {}
        relations: list[str] = []
        for d in es.inputs:
            if d.torch_dim is None or d.root is not None or isinstance(d.expr, int):
                continue
            name = re.sub(r"\W+", "_", _size_text(es, d)).strip("_")
            while name in taken:
                name += "_"
            taken.add(name)
            self.size_names[(d.leaf, d.axis)] = name
            size = _size_text(es, d)
            self.sources[name] = Source(size, d.leaf, d.axis, size)
            relations.append(f"{name} == {d.expr}")
        self.display = {n: s.text for n, s in self.sources.items() if n in
                        self.size_names.values()}
        user = [u for u in es.unexpressed if ".shape[" not in u]  # not the sizes
        self.candidates = [*user, *relations]
        self.facts = list(es.dim_facts)

    def dim_of(self, node: Any, axis: int) -> Dim:
        leaf = self.leaf_of.get(node)
        if leaf is None:
            raise SymshapeError(f"{node} is not a tensor input of the program")
        name = self.size_names.get((leaf, axis))
        if name is not None:
            return self.es.scope.var(name)
        for d in self.es.inputs:
            if d.leaf == leaf and d.axis == axis:
                return d.expr
        raise SymshapeError(f"no spec for axis {axis} of input {leaf}")

    def shown(self, text: str) -> str:
        """``text`` with the names of sizes written as the sizes."""
        return _WORD.sub(lambda m: self.display.get(m.group(), m.group()), text)

    def label(self, cond: Any, torch_text: str) -> CheckLabel:
        claims = assertion_claims(cond, self.dim_of, torch_text)
        # The first constraint (or the fewest, in order) that implies the
        # condition: when the condition fails, so does that constraint.
        for c in self.candidates:
            if _proved(claims, [*self.facts, c]):
                return self._label(f"shape constraint {self.shown(c)}", [c])
        if len(self.candidates) > 1 and _proved(claims, [*self.facts, *self.candidates]):
            shown = "; ".join(self.shown(c) for c in self.candidates)
            return self._label(f"one of the shape constraints {shown}", self.candidates)
        shown = " and ".join(self.shown(c) for c in claims)
        return self._label(f"the shape relation the model needs, {shown},", claims)

    def _label(self, what: str, texts: Sequence[str]) -> CheckLabel:
        names = [n for t in texts for n in _names(t)]
        order = list(dict.fromkeys(names))
        return CheckLabel(what, tuple(self.sources[n] for n in order if n in self.sources))


def label_runtime_checks(ep: Any, es: ExportSpecs) -> dict[str, CheckLabel]:
    """Replace the message of every ``aten._assert_scalar`` of ``ep`` that reads
    as symshape claims by its :class:`CheckLabel`'s message (in place); returns
    the labels by message."""
    labeler = _Labeler(ep, es)
    labels: dict[str, CheckLabel] = {}
    changed = False
    for node in ep.graph.nodes:
        if node.op != "call_function" or not ti.is_assert_scalar(node.target):
            continue
        cond = node.args[0]
        if not isinstance(cond, ti.FxNode):
            continue
        text = str(node.args[1]) if len(node.args) > 1 else str(cond)
        try:
            label = labeler.label(cond, text)
        except SymshapeError:
            continue  # torch's message stays
        labels[label.message] = label
        node.args = (cond, label.message, *node.args[2:])
        changed = True
    if changed:
        _checks_first(ep.graph)
        ep.graph_module.recompile()
    return labels


def _is_size_arithmetic(node: Any) -> bool:
    """Is ``node`` an input size or arithmetic on sizes (no tensor work)?"""
    if node.op != "call_function":
        return False
    val = node.meta.get("val")
    return ti.target_name(node) == "sym_size" or isinstance(
        val, int | bool | torch.SymInt | torch.SymBool)


def _checks_first(graph: Any) -> None:
    """Move the assertions (and the size arithmetic they read) before the
    first tensor operation, so that a bad call fails with their message rather
    than inside the model (torch places some after the operation that first
    needed them)."""
    nodes = list(graph.nodes)
    anchor = next((n for n in nodes if n.op != "placeholder" and not _is_size_arithmetic(n)
                   and not ti.is_assert_scalar(n.target)), None)
    if anchor is None:
        return
    position = {n: i for i, n in enumerate(nodes)}
    moved: set[Any] = set()

    def move(n: Any) -> None:
        if n in moved or n.op == "placeholder" or position[n] < position[anchor]:
            return
        for a in n.all_input_nodes:
            move(a)
        anchor.prepend(n)
        moved.add(n)

    for n in nodes:
        if n.op == "call_function" and ti.is_assert_scalar(n.target) and \
                all(_is_size_arithmetic(a) or a.op == "placeholder" for a in _ancestors(n)):
            move(n)


def _ancestors(node: Any) -> list[Any]:
    out: list[Any] = []
    todo = list(node.all_input_nodes)
    while todo:
        n = todo.pop()
        if n not in out:
            out.append(n)
            todo.extend(n.all_input_nodes)
    return out


def failure_message(es: ExportSpecs, labels: dict[str, CheckLabel], error: BaseException,
                    args: Sequence[Any]) -> str | None:
    """The message, with the sizes of ``args``, of a failed call of a program
    exported by :func:`symshape.torch.export`; None when symshape has nothing
    to add."""
    shapes = tensor_shapes(args)
    text = str(error)
    for message, label in labels.items():
        if message in text:
            return label.with_sizes(shapes)
    if len(shapes) != len(es.tensor_paths):
        return None
    try:
        es.check.solve(shapes)
    except ShapeMismatchError as err:
        return str(err)
    except SymshapeError:
        return None
    return None


class _ModuleWithSizes:
    """``ExportedProgram.module`` whose module reports failed checks with the
    sizes of the call (bound to the program as its ``module``)."""

    def __init__(self, es: ExportSpecs, labels: dict[str, CheckLabel]) -> None:
        self.es = es
        self.labels = labels

    def __call__(self, ep: Any, *a: Any, **k: Any) -> Any:
        gm = type(ep).module(ep, *a, **k)
        forward: Callable[..., Any] = gm.forward
        es, labels = self.es, self.labels

        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                return forward(*args, **kwargs)
            except (RuntimeError, AssertionError) as err:
                better = failure_message(es, labels, err, args) if not kwargs else None
                if better is None:
                    raise
                raise type(err)(better) from err

        gm.forward = checked
        return gm


def attach_messages(ep: Any, es: ExportSpecs) -> Any:
    """Label ``ep``'s run-time checks (:func:`label_runtime_checks`) and make
    ``ep.module()`` report failures with the sizes of the call; returns ``ep``."""
    import types
    labels = label_runtime_checks(ep, es)
    ep.module = types.MethodType(_ModuleWithSizes(es, labels), ep)
    return ep


__all__ = ["CheckLabel", "Source", "attach_messages", "failure_message",
           "label_runtime_checks"]
