"""A fast front end for grammar/symshape.lark: a tokenizer and an iterative
operator-precedence parser for the *valid* texts of the language.

Parsing a short text with lark costs tens of microseconds, and building the
lark parser costs tens of milliseconds once per process (plus importing lark).
One-off queries parse every constraint and claim from strings, so
:mod:`symshape.parsing` tries this front end first and falls back to the lark
parser for anything it does not accept.  The front end never reports an error
itself: it returns ``None`` and lark parses the text again, so every error
message comes from the grammar path.  For every text it accepts, it returns
exactly what the lark path returns (tests/syntax/test_parse_frontend.py checks both
paths against each other on generated valid and invalid texts).

The grammar file stays the single source of the syntax of tokens: the token
regexp is built here from the terminal definitions of grammar/symshape.lark.
The structure of the rules is hand-written below (it is small: operands,
binary operators grouped by precedence, two-argument calls, shape specs and
comparison chains), and a test fails if the grammar gains a terminal that
this module does not handle.

The parser keeps its own stack of open parentheses and calls instead of
recursing, so deep nesting costs no Python stack.

Raw results (what :mod:`symshape.parsing` post-processes, identical for both
paths): an AST node for ``expr_input``; a list of nodes and placeholders for
``spec_input``; ``[node, (op, column), node, ...]`` for ``comparison_input``.

Simple comparisons (``b >= 16``, ``mod(s, 128) == 0``: most constraints)
are read by a one-pass scanner, :mod:`symshape._simplescan`, before the
tokenizer is tried.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final, NamedTuple

from symshape._resources import grammar_text
from symshape._simplescan import SimpleScanner
from symshape.operators import FUNCTIONS, Op
from symshape.util import digits_to_int

__all__ = ["START_WHAT", "FastParser", "Terminal", "fast_parser", "function_name",
           "read_terminals"]

START_WHAT: Final = {
    "expr_input": "dimension expression",
    "spec_input": "shape spec",
    "comparison_input": "comparison",
}
"""The grammar's start symbols, and what each parses (in words, for messages)."""


# --------------------------------------------------------------------------- helpers


def function_name(call_token: str) -> str:
    """``"max"`` from the CALL token ``"max("`` or ``"max ("``: the kind of the
    call's node (:class:`symshape.operators.Op`), for the functions it names."""
    name = call_token.rstrip("( \t\f\r\n")
    return _FUNCTION_KINDS.get(name, name)


# function name -> the kind string of its node (the same string, shared)
_FUNCTION_KINDS: Final[dict[str, str]] = {
    op.function: op.value for op in FUNCTIONS if op.function is not None}



# --------------------------------------------------------------------------- terminals


class Terminal(NamedTuple):
    """A terminal of the grammar file: its name, priority and regexp."""

    name: str
    priority: int
    regexp: str
    is_string: bool  # defined by one string literal (may become a keyword of a regexp)
    max_width: int  # lark's ordering key: the longest possible match (large if unbounded)


# The terminals the grammar imports from lark's common.lark (only those it uses);
# a test checks them against lark's own definitions.
_IMPORTED: Final = {"WS": r"(?:[ \t\f\r\n])+"}
_UNBOUNDED: Final = 1 << 30

_TERMINAL_LINE: Final = re.compile(r"([A-Z][A-Z0-9_]*)(?:\.(-?\d+))?\s*:(.*)")
_ALTERNATIVE: Final = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|/((?:[^/\\]|\\.)*)/|(\|))')
_IMPORT_LINE: Final = re.compile(r"%import\s+common\.([A-Z_]+)\s*$")
_IGNORE_LINE: Final = re.compile(r"%ignore\s+([A-Z_]+)\s*$")
_BOUNDED: Final = re.compile(r"[*+{]")


def _string_value(body: str) -> str | None:
    if "\\" in body:  # the grammar's strings need no escapes; do not guess
        return None
    return body


def read_terminals(grammar: str) -> tuple[list[Terminal], set[str]] | None:
    """The terminals and the ignored terminal names of a lark grammar text.

    Reads one-line terminal definitions made of string literals and regexps
    without flags, ``%import common.X`` and ``%ignore X``; returns ``None`` on
    anything else in a terminal line (then the fast front end stays off).
    """
    terminals: list[Terminal] = []
    ignore: set[str] = set()
    for raw in grammar.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        imported = _IMPORT_LINE.match(line)
        if imported:
            name = imported.group(1)
            if name not in _IMPORTED:
                return None
            terminals.append(Terminal(name, 0, _IMPORTED[name], False, _UNBOUNDED))
            continue
        ignored = _IGNORE_LINE.match(line)
        if ignored:
            ignore.add(ignored.group(1))
            continue
        if line.startswith("%"):
            return None
        m = _TERMINAL_LINE.fullmatch(line)
        if not m:
            continue  # a rule
        name, priority, rhs = m.group(1), int(m.group(2) or 0), m.group(3)
        parts: list[str] = []
        strings: list[str] = []
        pos, expect_alt = 0, True
        rhs = rhs.rstrip()
        while pos < len(rhs):
            a = _ALTERNATIVE.match(rhs, pos)
            if a is None or (a.group(3) is not None) == expect_alt:
                return None
            pos = a.end()
            expect_alt = not expect_alt
            if a.group(3) is not None:
                continue
            if a.group(1) is not None:
                value = _string_value(a.group(1))
                if value is None:
                    return None
                strings.append(value)
                parts.append(re.escape(value))
            else:
                parts.append(a.group(2))
        if not parts or expect_alt:
            return None
        is_string = len(parts) == 1 and len(strings) == 1
        if is_string:
            width = len(strings[0])
        elif len(strings) == len(parts):
            width = max(len(s) for s in strings)
        else:
            width = _UNBOUNDED if any(_BOUNDED.search(p) for p in parts) else 1
        regexp = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
        terminals.append(Terminal(name, priority, regexp, is_string, width))
    return terminals, ignore


# --------------------------------------------------------------------------- parser

# The terminal names the parser below understands, by role.
_BINARY_OPS: Final[dict[str, str]] = {
    "PLUS": Op.ADD.value, "MINUS": Op.SUB.value, "STAR": Op.MUL.value,
    "DSLASH": Op.FLOORDIV.value, "PERCENT": Op.MOD.value}
_NEG: Final[str] = Op.NEG.value
_POW: Final[str] = Op.POW.value
_ADDITIVE: Final = frozenset({"PLUS", "MINUS"})
KNOWN_TERMINALS: Final = frozenset({
    "CALL", "RESERVED", "NAME", "INT", "UNDERSCORE", "ELLIPSIS", "PLUS", "MINUS", "STAR",
    "DSLASH", "PERCENT", "POW", "CMPOP", "LPAR", "RPAR", "COMMA", "WS"})
"""Every terminal the hand-written rules handle (a test compares it with the grammar)."""

_END: Final = ("$END", "", -1)
_KINDS_KEPT: Final = 1024  # classified tokens remembered (operators, calls, numbers)


class _Fail(Exception):
    """The text is not accepted here: let the grammar path parse it (and explain)."""


def group_operators(seq: list[Any], op_name: Callable[[Any], str] = str) -> Any:
    """Group ``[operand, op, operand, ...]`` by precedence, left-associatively:
    ``*``, ``//`` and ``%`` before ``+`` and ``-``.  ``op_name(op)`` is the
    grammar's terminal name of an operator (``PLUS``, ``STAR``, ...): both
    front ends group through this one function."""
    if len(seq) == 1:
        return seq[0]
    total: Any = None
    total_kind = ""
    term = seq[0]
    for i in range(1, len(seq), 2):
        op = op_name(seq[i])
        right = seq[i + 1]
        if op not in _ADDITIVE:
            term = (_BINARY_OPS[op], term[1], term, right)
        else:
            if total is not None:
                term = (total_kind, total[1], total, term)
            total = term
            total_kind = _BINARY_OPS[op]
            term = right
    if total is not None:
        term = (total_kind, total[1], total, term)
    return term


_finish = group_operators


class FastParser:
    """Tokenizer and parser for the valid texts of the grammar (see the module docstring)."""

    def __init__(self, grammar: str) -> None:
        table = read_terminals(grammar)
        self.enabled = False
        self.functions: tuple[str, ...] = ()
        if table is None:
            return
        terminals, ignore = table
        if {t.name for t in terminals} != KNOWN_TERMINALS or ignore != {"WS"}:
            return
        # lark's order: priority, then longest possible match, then pattern length.
        terminals.sort(key=lambda t: (-t.priority, -t.max_width, -len(t.regexp), t.name))
        regexps = [t for t in terminals if not t.is_string and t.name not in ignore]
        self.keywords: dict[str, dict[str, str]] = {}
        groups = []
        alternatives = []  # the same, without names
        for term in terminals:
            if term.name in ignore:
                continue
            if term.is_string:
                value = re.sub(r"\\(.)", r"\1", term.regexp)
                owner = next((r for r in regexps if r.priority == term.priority
                              and re.fullmatch(r.regexp, value)), None)
                if owner is not None:
                    self.keywords.setdefault(owner.name, {})[value] = term.name
                    continue
            groups.append(f"(?P<{term.name}>{term.regexp})")
            # (a name, new in almost every text, is captured: no lookup)
            alternatives.append(f"({term.regexp})" if term.name == "NAME" else f"(?:{term.regexp})")
        skip = "|".join(t.regexp for t in terminals if t.name in ignore)
        self._token = re.compile(f"(?:{skip})*+(?:{'|'.join(groups)})")
        self._blank = re.compile(f"(?:{skip})*+")
        if self._token.groups != len(groups):  # a terminal with its own capturing group
            return
        # group number -> terminal name, and -> {keyword value: terminal name}
        self._kinds = [""] * (len(groups) + 1)
        for name, index in self._token.groupindex.items():
            self._kinds[index] = name
        self._keywords_at = [self.keywords.get(kind) for kind in self._kinds]
        # The alternatives without names, and any one character last: one
        # findall call splits a text into (blank, token, name) triples, far
        # faster than one match per token (the kind of a token other than a
        # name comes from _kind_of).
        self._split = re.compile(f"((?:{skip})*+)({'|'.join(alternatives)}|(?s:.))")
        self._kind_of: dict[str, str] = {}  # token -> its terminal (see tokens)
        self._name_keywords = self.keywords.get("NAME", {})
        if self._split.groups != 3:
            return
        call = next(t.regexp for t in terminals if t.name == "CALL")
        names = re.match(r"\(\?:([A-Za-z_|]+)\)", call)
        self.functions = tuple(names.group(1).split("|")) if names else ()
        # The shortcut for simple comparisons (see symshape._simplescan),
        # given the grammar's blank characters and functions.
        blanks = "".join(ch for ch in map(chr, range(128)) if re.fullmatch(skip, ch))
        if re.fullmatch(f"(?:{skip})", blanks * 2) is None:
            return  # (a blank that is more than a run of characters)
        self._simple = SimpleScanner(
            blanks, {f: function_name(f + "(") for f in self.functions},
            Op.ADD.value, Op.SUB.value, Op.MUL.value)
        self.enabled = True

    # ---------------------------------------------------------------- tokens

    def tokens(self, text: str) -> list[tuple[str, str, int]] | None:
        """``(terminal, value, offset)`` for each token, or None where lexing fails
        or a name does not start with a letter or '_' (``str.isidentifier``)."""
        if not self.enabled:
            return None
        out: list[tuple[str, str, int]] = []
        append = out.append
        kind_of = self._kind_of
        offset = 0
        # findall skips no character: the last alternative takes any one
        # character no terminal matches (it then has no kind), and only blanks
        # at the end of the text are left unmatched
        name_keywords = self._name_keywords
        found: list[tuple[str, str, str]] = self._split.findall(text)
        for blank, value, name in found:
            offset += len(blank)
            if name:
                kind = name_keywords.get(name)
                if kind is None:
                    if not name[0].isidentifier():  # '²a': word characters
                        return None
                    kind = "NAME"
            else:
                kind = kind_of.get(value)
                if kind is None:
                    kind = self._classify(value)
                    if kind is None:
                        return None
                    if len(kind_of) >= _KINDS_KEPT:  # (numbers may all differ)
                        kind_of.clear()
                    kind_of[value] = kind
            append((kind, value, offset))
            offset += len(value)
        if offset != len(text) and self._blank.fullmatch(text, offset) is None:
            return None
        return out

    def _classify(self, value: str) -> str | None:
        """The terminal of a token the text was split into (None: not a token).

        A token's terminal depends on the token alone: the terminals' regexps
        are tried in the same order on the token by itself, and the one
        context-dependent construct they use, a ``\\b`` after a keyword,
        holds at the end of the token exactly where it held in the text
        (tests/syntax/test_parse_frontend.py checks the tokens against lark's lexer).
        """
        m = self._token.fullmatch(value)
        if m is None:
            return None
        index: int = m.lastindex  # type: ignore[assignment]
        kind = self._kinds[index]
        keywords = self._keywords_at[index]
        if keywords is None:
            return kind
        if value in keywords:
            return keywords[value]
        if kind != "NAME" or value[0].isidentifier():  # '²a': word characters
            return kind
        return None

    # ---------------------------------------------------------------- parse

    def parse(self, text: str, start: str) -> Any:
        """The raw result of ``text`` for the start symbol, or None if not accepted."""
        if not self.enabled:
            return None
        if start == "comparison_input":
            raw = self._simple.scan(text)
            if raw is not None:
                return raw
        return self.parse_tokens(text, start)

    def is_simple(self, text: str) -> bool:
        """Whether ``text`` is a simple comparison (see :mod:`symshape._simplescan`),
        which :meth:`parse` reads without the general tokenizer and parser."""
        return self.enabled and self._simple.scan(text) is not None

    def parse_tokens(self, text: str, start: str) -> Any:
        """:meth:`parse` without the shortcut for simple comparisons: the
        tokenizer and the parser of the whole language."""
        if not self.enabled:
            return None
        toks = self.tokens(text)
        if toks is None:
            return None
        try:
            return _parse(toks, start)
        except _Fail:
            return None


def _exponent(toks: list[tuple[str, str, int]], i: int) -> tuple[int, int]:
    """The value of the literal exponent starting at token ``i`` (after ``^``),
    written as the grammar accepts it (unary plus and parentheses around an
    integer), and the index after it."""
    opened = 0
    kind = toks[i][0]
    while kind == "PLUS" or kind == "LPAR":
        if kind == "LPAR":
            opened += 1
        i += 1
        kind = toks[i][0]
    if kind != "INT":
        raise _Fail
    value = digits_to_int(toks[i][1])
    i += 1
    for _ in range(opened):
        if toks[i][0] != "RPAR":
            raise _Fail
        i += 1
    return value, i  # a following '^' (a^2^3) fails in the caller: nothing accepts it


def _apply_prefix(node: Any, prefix: list[tuple[str, int]]) -> Any:
    for kind, col in reversed(prefix):
        # unary plus makes no node; the operand starts at the '+'
        node = (_NEG, col, node) if kind == "MINUS" else (node[0], col, *node[2:])
    return node


# Frame kinds: the whole text, a parenthesised operand, a call, and the
# parenthesised form of a shape spec "(a, b)" (which is only known to be one
# once a comma or a placeholder shows up inside the first parenthesis).
_TOP, _PAREN, _CALL, _MAYBE_SPEC, _SPEC = range(5)


def _parse(toks: list[tuple[str, str, int]], start: str) -> Any:
    """Parse the tokens; raise _Fail for anything not accepted.

    Indexing never runs past the ``$END`` sentinel appended to the tokens: a
    token after the current one is only looked at when the current one is not
    ``$END``."""
    n = len(toks)
    toks.append(_END)
    spec = start == "spec_input"
    comparison = start == "comparison_input"
    items: list[Any] = []  # shape spec items, or comparison chain
    # A frame: [kind, column, prefix of the operand it is the primary of,
    #           seq being built, first argument or spec items]
    frames: list[list[Any]] = []
    seq: list[Any] = []
    prefix: list[tuple[str, int]] = []
    node: Any = None
    frame_kind = _TOP
    i = 0
    if spec:
        if n == 0:
            return []
        if toks[0][0] == "LPAR":
            # "(" first: "()", "(_)", "(x, ...)" or a parenthesised operand
            if toks[1][0] == "RPAR":
                if n != 2:
                    raise _Fail
                return []
            frames.append([_MAYBE_SPEC, toks[0][2] + 1, [], seq, []])
            frame_kind = _MAYBE_SPEC
            seq = []
            i = 1
    while True:
        # ---- an item start in a spec: a placeholder is a whole item
        kind, value, offset = toks[i]
        if (kind == "UNDERSCORE" or kind == "ELLIPSIS") and not seq and not prefix \
                and (frame_kind == _TOP and spec or frame_kind in (_MAYBE_SPEC, _SPEC)):
            node = (value, offset + 1)
            i += 1
            nxt = toks[i][0]
            if frame_kind == _TOP:
                items.append(node)
                if nxt == "$END":
                    return items
                if nxt != "COMMA":
                    raise _Fail
                i += 1
                if toks[i][0] == "$END":
                    return items
                continue
            frame = frames[-1]
            frame[4].append(node)
            if nxt == "RPAR":  # "(_)" or "(x, _)"
                if toks[i + 1][0] != "$END":
                    raise _Fail
                return frame[4]
            if nxt != "COMMA":
                raise _Fail
            frame[0] = frame_kind = _SPEC
            i += 1
            if toks[i][0] == "RPAR":  # "(_,)"
                if toks[i + 1][0] != "$END":
                    raise _Fail
                return frame[4]
            continue
        # ---- an operand: unary signs, then a primary
        while kind == "MINUS" or kind == "PLUS":
            prefix.append((kind, offset + 1))
            i += 1
            kind, value, offset = toks[i]
        if kind == "INT":
            node = ("int", offset + 1, digits_to_int(value))
            i += 1
        elif kind == "NAME":
            node = ("var", offset + 1, value)
            i += 1
        elif kind == "LPAR" or kind == "CALL":
            frames.append([_PAREN if kind == "LPAR" else _CALL, offset + 1, prefix, seq,
                           function_name(value) if kind == "CALL" else None])
            frame_kind = frames[-1][0]
            seq = []
            prefix = []
            i += 1
            continue
        else:
            raise _Fail
        # ---- after a primary: a power, the prefix, then an operator or a closer
        while True:
            if toks[i][0] == "POW":
                exponent, i = _exponent(toks, i + 1)
                node = (_POW, node[1], node, exponent)
            if prefix:
                node = _apply_prefix(node, prefix)
            seq.append(node)
            kind, value, offset = toks[i]
            if kind in _BINARY_OPS:
                seq.append(kind)
                i += 1
                prefix = []
                break
            if kind == "RPAR":
                if frame_kind in (_PAREN, _MAYBE_SPEC):
                    x = _finish(seq)
                    frame = frames.pop()
                    node = (x[0], frame[1], *x[2:])
                elif frame_kind == _CALL:
                    frame = frames.pop()
                    if type(frame[4]) is not tuple:
                        raise _Fail
                    node = (frame[4][0], frame[1], frame[4][1], _finish(seq))
                elif frame_kind == _SPEC:
                    frame = frames[-1]
                    frame[4].append(_finish(seq))
                    if toks[i + 1][0] != "$END":
                        raise _Fail
                    return frame[4]
                else:
                    raise _Fail
                prefix, seq = frame[2], frame[3]
                frame_kind = frames[-1][0] if frames else _TOP
                i += 1
                continue  # the closed parenthesis is a primary of the frame below
            if kind == "COMMA":
                i += 1
                prefix = []
                if frame_kind == _CALL:
                    frame = frames[-1]
                    if frame[4] is None or type(frame[4]) is tuple:
                        raise _Fail
                    frame[4] = (frame[4], _finish(seq))
                    seq = []
                    break
                if frame_kind in (_MAYBE_SPEC, _SPEC):
                    frame = frames[-1]
                    frame[0] = frame_kind = _SPEC
                    frame[4].append(_finish(seq))
                    seq = []
                    if toks[i][0] == "RPAR":  # trailing comma: "(a,)"
                        if toks[i + 1][0] != "$END":
                            raise _Fail
                        return frame[4]
                    break
                if frame_kind == _TOP and spec:
                    items.append(_finish(seq))
                    seq = []
                    if toks[i][0] == "$END":
                        return items
                    break
                raise _Fail
            if kind == "CMPOP" and comparison and frame_kind == _TOP:
                items.append(_finish(seq))
                items.append((value, offset + 1))
                seq = []
                prefix = []
                i += 1
                break
            if kind == "$END" and frame_kind == _TOP:
                if spec:
                    items.append(_finish(seq))
                    return items
                if comparison:
                    if not items:
                        raise _Fail
                    items.append(_finish(seq))
                    return items
                return _finish(seq)
            raise _Fail


@lru_cache(maxsize=1)
def fast_parser() -> FastParser:
    """The fast front end for the shipped grammar, built once on first use."""
    return FastParser(grammar_text("symshape.lark"))
