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

PACKAGE = Path(__file__).resolve().parent.parent / "symshape"
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
    assert "symshape.expr" in inner["symshape.scope"]
    assert len(inner) >= 30
    # A planted cycle is found.
    planted = {k: set(v) for k, v in inner.items()}
    planted["symshape.expr"].add("symshape.decision.engine")
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
