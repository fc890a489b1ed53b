"""The package's layering: imports point one way, and the core stays light.

Every ``import`` of a ``symshape`` module is found by walking the syntax tree
of every module, imports inside functions included; only imports under
``if TYPE_CHECKING:`` are left out (they never run: annotations may name a
higher layer's types).  The graph of modules must have no cycle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from support.paths import ROOT

PACKAGE = ROOT / "symshape"
# What the core (everything but the adapters and the user interfaces) may import
# besides the standard library and itself.
CORE_THIRD_PARTY = {"lark", "numpy"}
ADAPTERS = ("symshape.jax", "symshape.torch", "symshape.sympy")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or \
        (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(path: Path, name: str, modules: dict[str, Path]) -> tuple[set[str], set[str]]:
    """The symshape modules ``name`` imports, and the other top-level packages."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    inner: set[str] = set()
    outer: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                (inner if alias.name.split(".")[0] == "symshape" else outer).add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "symshape":
                outer.add(mod)
            else:
                subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in modules]
                inner.update(subs)
                if len(subs) < len(node.names):
                    inner.add(mod)  # names defined in the module itself
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    inner.discard(name)
    return {m for m in inner if m in modules}, outer


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    modules = _modules()
    inner, outer = {}, {}
    for name, path in modules.items():
        inner[name], outer[name] = _imports(path, name, modules)
    return inner, outer


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_walk_sees_in_function_imports() -> None:
    inner, _ = _graph()
    assert "symshape.algebra.dimexpr" in inner["symshape.scope"]
    assert len(inner) >= 30
    # A planted cycle is found.
    planted = {k: set(v) for k, v in inner.items()}
    planted["symshape.algebra.dimexpr"].add("symshape.decision.engine")
    assert _cycles(planted)


def test_no_import_cycles() -> None:
    inner, _ = _graph()
    assert _cycles(inner) == []


def test_core_imports_only_the_standard_library_lark_and_numpy() -> None:
    _, outer = _graph()
    stdlib = sys.stdlib_module_names
    for name, mods in sorted(outer.items()):
        if name.startswith(ADAPTERS) or name in ("symshape.cli", "symshape.repl",
                                                 "symshape.demo", "symshape.__main__"):
            continue
        extra = {m.split(".")[0] for m in mods} - set(stdlib) - CORE_THIRD_PARTY - {"__future__"}
        assert not extra, f"{name} imports {sorted(extra)}"


def test_a_full_decision_loads_no_adapter_dependency() -> None:
    code = ("import sys, symshape\n"
            "v = symshape.prove('floordiv(a, b) <= a', constraints=['a >= b + 8'])\n"
            "assert v.proved and v.certificate.check()\n"
            "print(sorted(m for m in ('jax', 'torch', 'sympy', 'z3') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"


# Private names of libraries that are their documented API, and the two
# modules whose one job is to wrap the internals of JAX and of PyTorch.
FOREIGN_PRIVATE_OK = {"sys._getframe", "torch._check"}
INTERNALS_MODULES = ("symshape/jax/_internals.py", "symshape/torch/_internals.py")


def _private_reaches(source: str) -> list[tuple[int, str]]:
    """Accesses ``obj._name`` (``obj`` not ``self``/``cls``) of a private name
    that the module itself never defines: a reach into another module's
    private state."""
    tree = ast.parse(source)
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            defined.add(node.value)  # a ``__slots__`` entry
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        text = ast.unparse(node)
        if node.attr not in defined and text not in FOREIGN_PRIVATE_OK:
            out.append((node.lineno, text))
    return out


def test_the_private_reach_check_can_fail() -> None:
    assert _private_reaches("def f(scope):\n    return scope._term_rules\n") == [
        (2, "scope._term_rules")]
    assert _private_reaches("class A:\n    _x = 1\ndef f(a):\n    return a._x\n") == []


def test_no_module_reaches_into_another_modules_private_names() -> None:
    """The algebra asks the scope through ``symshape.algebra.protocol.AlgebraScope``; the
    decision layer and the adapters use public names only."""
    root = ROOT / "symshape"
    found = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if rel in INTERNALS_MODULES:
            continue
        reaches = _private_reaches(path.read_text(encoding="utf-8"))
        if reaches:
            found[rel] = reaches
    assert found == {}


# Private modules of the package itself (``symshape._x``): the modules that may
# import each.  A private module of a subpackage (``symshape.jax._internals``)
# may be imported only from within that subpackage.
SYNTAX = {"symshape.parsing", "symshape._larkparse", "symshape._fastparse",
          "symshape._simplescan"}
ROOT_PRIVATE_USERS: dict[str, set[str]] = {
    "symshape._accel": {"symshape"},  # the package picks the build first
    "symshape._fastparse": SYNTAX,
    "symshape._larkparse": SYNTAX,
    "symshape._simplescan": {"symshape._fastparse"},
    "symshape._resources": SYNTAX,
    # the tested framework ranges: read by the adapters' version gates
    "symshape._versions": {"symshape.jax._internals", "symshape.torch._internals"},
}


def _compiled_core() -> set[str]:
    """The modules ``hatch_build.COMPILED`` lists (read from its syntax tree:
    the build hook imports hatchling)."""
    tree = ast.parse((PACKAGE.parent / "hatch_build.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets):
            paths = ast.literal_eval(node.value)
            return {p[:-3].replace("/", ".").removesuffix(".__init__") for p in paths}
    raise AssertionError("hatch_build.py defines no COMPILED")


def _is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _may_import_private_module(importer: str, module: str) -> bool:
    package = module.rpartition(".")[0]
    if package == "symshape":
        if module == "symshape._mypyc":  # mypyc's class decorator, for the compiled core
            return importer in _compiled_core()
        return importer in ROOT_PRIVATE_USERS.get(module, set())
    return importer == package or importer.startswith(package + ".")


def _forbidden_private_module(importer: str, module: str) -> str | None:
    """The first private module on the path of ``module`` that ``importer``
    may not import, if any."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        prefix = ".".join(parts[: i + 1])
        if _is_private(part) and not _may_import_private_module(importer, prefix):
            return prefix
    return None


def _private_imports(source: str, name: str, is_package: bool,
                     modules: set[str]) -> list[tuple[int, str]]:
    """Imports by module ``name`` of another module's private name (``from m
    import _x``), and of a private module it may not use (see
    ``_may_import_private_module``)."""
    tree = ast.parse(source)
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        targets: list[tuple[str, str | None]] = []  # (module, name imported from it)
        if isinstance(node, ast.Import):
            targets = [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [(mod, a.name) for a in node.names]
        for mod, imported in targets:
            if mod.split(".")[0] != "symshape":
                continue
            sub = f"{mod}.{imported}"
            module = sub if imported is not None and sub in modules else mod
            forbidden = _forbidden_private_module(name, module)
            if forbidden:
                out.append((node.lineno, f"module {forbidden}"))
            elif module == mod and imported is not None and _is_private(imported):
                out.append((node.lineno, sub))
    return out


def test_the_private_import_check_can_fail() -> None:
    modules = {"symshape.expr", "symshape._fastparse", "symshape.jax._internals",
               "symshape.jax.ir", "symshape.torch.explain", "symshape.printing"}
    assert _private_imports("from symshape.expr import _ONE, DimExpr\n", "symshape.rules",
                            False, modules) == [(1, "symshape.expr._ONE")]
    assert _private_imports("from symshape._fastparse import int_to_digits\n",
                            "symshape.printing", False, modules) == [
        (1, "module symshape._fastparse")]
    assert _private_imports("from symshape.jax import _internals as jx\n",
                            "symshape.torch.explain", False, modules) == [
        (1, "module symshape.jax._internals")]
    assert _private_imports("import symshape.jax._internals\n", "symshape.torch.explain",
                            False, modules) == [(1, "module symshape.jax._internals")]
    # Allowed: a subpackage's private module from within it, the syntax layer's
    # own modules, a private alias of a public name.
    assert _private_imports("from symshape.jax import _internals as jx\n"
                            "from symshape.expr import floordiv as _fd\n",
                            "symshape.jax.ir", False, modules) == []
    assert _private_imports("from symshape._fastparse import fast_parser\n",
                            "symshape.parsing", False, modules) == []


def test_no_module_imports_another_modules_private_names_or_modules() -> None:
    """Private names stay in their module; a private module stays in its
    package (the root package's: with the modules ``ROOT_PRIVATE_USERS``
    lists, and mypyc's decorator with the compiled core)."""
    modules = _modules()
    found = {}
    for name, path in sorted(modules.items()):
        bad = _private_imports(path.read_text(encoding="utf-8"), name,
                               path.name == "__init__.py", set(modules))
        if bad:
            found[name] = bad
    assert found == {}


def test_modules_over_600_lines_say_why_at_their_top() -> None:
    """Small modules with one job each; one that grows past about 600 lines
    keeps a written reason in its docstring ("(Over 600 lines for a reason:
    ..." or "(About N lines, ...")."""
    import ast
    import re

    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= 600:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not re.search(r"\((?:Over|About) \d+ lines", doc):
            unexplained.append(str(path.relative_to(PACKAGE)))
    assert not unexplained, unexplained
