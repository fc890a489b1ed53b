"""Solving the dimension variables of exported functions with symshape's plan.

JAX solves the dimension variables of ``jax.export`` arguments from the actual
argument shapes in ``shape_poly.solve_dim_vars``, which accepts only
"linear uni-variate" equations.  When it gives up, the replacement installed by
:mod:`symshape.jax.plugin` calls :func:`solve_with_plan`, which builds a
:class:`symshape.shapecheck.ShapeCheck` for the same specs and hands JAX a solution in the
form JAX expects: values with an ``_evaluate(env)`` method and a constraints
object with ``check_statically``/``shape_assertions``.  Both run the plan's
program through :class:`symshape.jax.ir.Runner`, so

* when lowering (``jax.export``), the program becomes the code of the module's
  entry point that computes the dimension variables, and its assertions become
  ``shape_assertion`` operations with symshape's messages;
* when calling (``Exported.call``), the program runs on the concrete shapes
  and a failing assertion raises symshape's message as a ``ValueError``.

Such an export is complete, but JAX's own call path (``Exported.call``, also
after ``jax.export.deserialize``) solves the dimension variables again with
JAX's solver, which cannot: only a caller that runs the call inside
``symshape.jax.decisions()`` can call it.  The export warns about this with an
:class:`ArtifactPortabilityWarning` when it is lowered, not at the call site
in production.
"""

from __future__ import annotations

import functools
import sys
import threading
import warnings
from typing import Any

from symshape.algebra.atoms import FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.errors import SymshapeError
from symshape.jax import _internals as jx
from symshape.jax.convert import JaxConversionError, bridge_for_jax, from_jax
from symshape.jax.ir import NeedsRuntime, Runner
from symshape.shapecheck import ShapeCheck


class ArtifactPortabilityWarning(UserWarning):
    """An export whose dimension variables only symshape can solve: the artifact
    can be called only where ``symshape.jax.decisions()`` is active."""


class _Plan:
    """A ShapeCheck for the avals of one exported function, bound to JAX's names."""

    def __init__(self, check: ShapeCheck, synth: list[tuple[str, int, int]],
                 last_var: str, jax_reason: str) -> None:
        self.check = check
        self.jax_reason = jax_reason
        self.warned = False
        self.program = check.program
        self.synth = synth
        self.names = {(arg, axis): name for name, arg, axis in synth}
        # JAX evaluates the variables in sorted order after the assertions: once the
        # last one is done, the memoized runner (holding JAX tracers) is dropped.
        self.last_var = last_var
        self._local = threading.local()

    def done(self, var: str) -> None:
        """Forget the memoized runner after the last variable was evaluated."""
        if var == self.last_var:
            self._local.last = None

    def runner(self, env: dict[str, Any], *, allow_runtime: bool) -> Runner:
        """The runner for ``env`` (one per JAX evaluation environment, memoized so
        the steps are emitted once however many values JAX asks for)."""
        last = getattr(self._local, "last", None)
        if last is not None:
            last_env, snapshot, last_runner = last
            if last_env is env and last_runner.allow_runtime == allow_runtime and \
                    all(env.get(k) is v for k, v in snapshot):
                return last_runner
        names = self.names

        def dim_value(arg: int, axis: int) -> Any:
            return env[names[(arg, axis)]]

        r = Runner(self.program, dim_value, allow_runtime=allow_runtime)
        self._local.last = (env, tuple(env.items()), r)
        return r


def _has_runtime(env: dict[str, Any]) -> bool:
    return any(jx.is_tracer(v) for v in env.values())


class _PlanValue:
    """A dimension variable's value for JAX's ``ShapeEvaluator`` (``_evaluate``)."""

    def __init__(self, plan: _Plan, name: str, expr: DimExpr | int, out_ids: dict[str, int]
                 ) -> None:
        self.plan = plan
        self.name = name
        self.expr = expr
        self.out_ids = out_ids

    def _evaluate(self, env: dict[str, Any]) -> Any:
        runner = self.plan.runner(env, allow_runtime=_has_runtime(env))
        try:
            return _eval_expr(self.expr, runner, self.out_ids)
        except NeedsRuntime:
            raise ValueError(
                f"the dimension variable '{self.name}' cannot be computed statically from "
                f"the symbolic argument shapes {dict(env)}") from None
        finally:
            self.plan.done(self.name)

    def __repr__(self) -> str:
        return f"<symshape plan value of {self.name}>"


def _eval_expr(e: DimExpr | int, runner: Runner, out_ids: dict[str, int]) -> Any:
    """Value of a symshape expression over the plan's outputs (mixed values)."""
    if isinstance(e, int):
        return e
    total: Any = 0
    for mono, coeff in e.sorted_terms():
        term: Any = coeff
        for atom, k in mono:
            if type(atom) is Var:
                av = runner.value(out_ids[atom.name])
            elif type(atom) is FloorDiv:
                av = runner.int_op("floordiv", _eval_expr(atom.num, runner, out_ids),
                                    _eval_expr(atom.den, runner, out_ids))
            else:
                assert type(atom) is Max0
                av = runner.int_op("max", _eval_expr(atom.arg, runner, out_ids), 0)
            for _ in range(k):
                term = runner.int_op("mul", term, av)
        total = runner.int_op("add", total, term)
    return total


class _PlanConstraints:
    """The plan's assertions, as JAX's ``ShapeConstraints`` are used."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan

    def check_statically(self, shape_eval: Any) -> None:
        """Raise a ValueError with symshape's message for the first failing assertion."""
        self.plan.runner(shape_eval.env, allow_runtime=False).check_statically()

    def shape_assertions(self, shape_eval: Any) -> None:
        """Emit ``shape_assertion`` operations for the assertions not decided statically.

        JAX calls this only when it lowers an export, which is where the export
        is told that its artifact needs symshape to be called."""
        env = shape_eval.env
        self.plan.runner(env, allow_runtime=_has_runtime(env)).emit_assertions()
        plan = self.plan
        if not plan.warned:
            plan.warned = True
            warnings.warn(_portability_message(plan), ArtifactPortabilityWarning,
                          stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by our caller that names the
    innermost frame outside JAX and symshape: the user's line asking for the export."""
    frame = sys._getframe(1)  # our caller: stacklevel 1
    level = 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(
            ("jax.", "jaxlib.", "symshape.", "contextlib")):
        frame = frame.f_back
        level += 1
    return level


def _portability_message(plan: _Plan) -> str:
    specs = ", ".join(f"{name} = {plan.check.specs[arg][axis]}"
                      for name, arg, axis in plan.synth)
    return (f"symshape.jax solved the dimension variables of this export with its own plan "
            f"({specs}), because JAX's solver cannot: {plan.jax_reason}. The exported "
            f"artifact (also once serialized) can be called only where symshape is "
            f"imported and the call runs inside symshape.jax.decisions(); any other caller "
            f"gets JAX's error. To ship it to callers without symshape, export with "
            f"specifications JAX can solve (each variable alone, times a constant, on some "
            f"axis) and state the other relations as constraints or assert_shapes checks.")


@functools.lru_cache(maxsize=256)
def _cached_solution(args_avals: tuple[Any, ...], tree: Any, jax_reason: str
                     ) -> tuple[dict[str, Any], _PlanConstraints, list[tuple[str, int, int]]]:
    shapes = [tuple(a.shape) for a in args_avals]
    scope = next(jx.expr_scope(d) for s in shapes for d in s if jx.is_jax_dim_expr(d))
    bridge = bridge_for_jax(scope)
    specs = [from_jax(s) for s in shapes]
    check = ShapeCheck(specs, scope=bridge.sym)
    used = sorted({st.params for st in check.program.steps if st.op == "dim"})
    synth = [(jx.describe_dim(tree, arg, axis), arg, axis) for arg, axis in used]
    dim_vars = jx.all_dim_vars(args_avals)
    plan = _Plan(check, synth, dim_vars[-1], jax_reason)
    out_ids = dict(check.program.outputs)
    solution: dict[str, Any] = {}
    for var in dim_vars:
        # A JAX variable that symshape's scope rewrites (an equality oriented the
        # other way round) is computed from the plan's variables.
        expr = var_expr = bridge.sym.var(var)
        if isinstance(var_expr, DimExpr) and var_expr.free_vars - set(out_ids):
            raise SymshapeError(f"the dimension variable '{var}' is not determined by the plan")
        solution[var] = _PlanValue(plan, var, expr, out_ids)
    return solution, _PlanConstraints(plan), synth


def _first_sentence(err: Exception) -> str:
    """The first sentence of JAX's message (it names the variables it cannot solve)."""
    text = str(err).strip()
    end = text.find(". ")
    return text if end < 0 else text[:end]


def solve_with_plan(args_avals: tuple[Any, ...], args_kwargs_tree: Any,
                    jax_error: ValueError) -> Any:
    """JAX's ``solve_dim_vars`` result computed by symshape's shape-check plan.

    Raises ``jax_error`` (JAX's own message, with symshape's reason appended)
    when symshape cannot solve the specs either.
    """
    jx.require("solve")
    if not any(jx.is_jax_dim_expr(d) for a in args_avals for d in a.shape):
        raise jax_error
    try:
        return _cached_solution(args_avals, args_kwargs_tree, _first_sentence(jax_error))
    except (SymshapeError, JaxConversionError) as err:
        raise ValueError(f"{jax_error}\nsymshape could not solve them either: {err}") from None


__all__ = ["ArtifactPortabilityWarning", "solve_with_plan"]
