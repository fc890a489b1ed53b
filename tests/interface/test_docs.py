"""The documentation site builds in strict mode, and what it shows is true.

* ``mkdocs build --strict`` succeeds (warnings fail it) and produces the pages;
* the grammar page contains the real grammar file, line by line;
* every ``pycon`` example in the pages runs as a doctest;
* every ``console`` example (``$ symshape ...``, including the REPL transcript)
  prints what the page shows.
"""

from __future__ import annotations

import ast
import doctest
import html
import importlib.util
import io
import os
import re
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from support.paths import ROOT

from symshape import parsing
from symshape.repl import PROMPT, run

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
# The pages of mkdocs.yml's nav, in order (read from the file: a page added there is
# checked here too).
NAV_PAGES = [m.group(1) for m in re.finditer(
    r"^  - [^:\n]+: ([\w-]+)\.md$",
    (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:", 1)[1].split("\n\n")[0],
    re.MULTILINE)]

_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def fenced(page: Path, language: str) -> list[tuple[int, str]]:
    """``(line number, body)`` of the fenced blocks of ``language`` in ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(2)) for m in _FENCE.finditer(text)
            if m.group(1) == language]


def _have(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


# -- the site -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not _have("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.skip("the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def test_pages_exist(site: Path) -> None:
    assert NAV_PAGES[:2] == ["index", "getting-started"] and "api" in NAV_PAGES, NAV_PAGES
    for name in NAV_PAGES:
        page = site / "index.html" if name == "index" else site / name / "index.html"
        assert page.is_file(), name
    assert {p.stem for p in PAGES} == set(NAV_PAGES)


def test_grammar_page_renders_the_grammar_file(site: Path) -> None:
    shown = html.unescape((site / "grammar" / "index.html").read_text(encoding="utf-8"))
    lines = [s for s in (ROOT / "grammar" / "symshape.lark").read_text().splitlines()
             if s.strip()]
    assert len(lines) > 20
    missing = [s for s in lines if s not in shown]
    assert not missing, missing[:5]


def test_api_reference_is_generated_from_docstrings(site: Path) -> None:
    from symshape.decision import prove
    from symshape.shapes import symbolic_shape
    raw = (site / "api" / "index.html").read_text(encoding="utf-8")
    shown = " ".join(html.unescape(re.sub(r"<[^>]+>", "", raw)).split())
    for fn in (symbolic_shape, prove):
        assert fn.__doc__ is not None
        first = fn.__doc__.strip().splitlines()[0].replace("``", "")
        assert first in shown, first
    for name in ("SymbolicScope", "ShapeCheck", "Verdict", "assert_shapes", "args_specs",
                 "InconclusiveDimensionOperation"):
        assert name in shown, name
    assert ":class:" not in shown  # Sphinx roles are rendered (docs/_ext/sphinx_roles.py)


def _api_sections(site: Path) -> dict[str, str]:
    """The API page's top-level entries: ``{heading id: its text up to the next one}``."""
    raw = (site / "api" / "index.html").read_text(encoding="utf-8")
    heads = list(re.finditer(r'<h2 id="([^"]+)"', raw))
    return {m.group(1): " ".join(html.unescape(re.sub(
        r"<[^>]+>", " ", raw[m.end():heads[i + 1].start() if i + 1 < len(heads) else None]))
        .split()) for i, m in enumerate(heads)}


def test_api_reference_uses_the_names_users_import(site: Path) -> None:
    """Every public name is documented as ``symshape.<name>`` (how ``import symshape``
    reaches it), never under the internal module that defines it; ``symshape.prove`` is
    the function, not the module of the same name with its helpers."""
    import symshape
    sections = _api_sections(site)
    missing = [n for n in symshape.__all__ if f"symshape.{n}" not in sections]
    assert not missing, missing
    internal = [h for h in sections if h.startswith(("symshape.decision", "symshape.errors",
                                                     "symshape.shapecheck", "symshape.algebra"))]
    assert not internal, internal
    prove = sections["symshape.prove"]
    assert "prove ( claim : str" in prove, prove[:300]
    assert "claim_links" not in prove and "Decide claim for every valuation" in prove
    raw = (site / "api" / "index.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="#(symshape[^"]*)"', raw))
    assert "symshape.Verdict" in links and "symshape.SymbolicScope" in links
    assert not [h for h in links if h.startswith("symshape.decision")], links


def _source_docstrings(cls: type) -> tuple[str, dict[str, str]]:
    """The first line of the docstring of ``cls`` and of each of its public
    properties, read from its module's source (where the core is compiled, the
    runtime ``__doc__`` of a compiled class is mypyc's filler)."""
    path = ROOT / (cls.__module__.replace(".", "/") + ".py")  # (not __file__: a .so)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]

    def first(doc: str | None) -> str:
        assert doc, f"{cls.__name__}: missing docstring"
        return " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "")

    props = {f.name: first(ast.get_docstring(f)) for f in node.body
             if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")
             and any(isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list)}
    return first(ast.get_docstring(node)), props


def _rendered(text: str) -> str:
    """``text`` as the page shows it, for comparison: inline markup and Sphinx
    roles dropped, and no blanks (the page's markup splits words differently)."""
    text = re.sub(r":\w+:`~?([^`]+)`", lambda m: m.group(1).rpartition(".")[2], text)
    return re.sub(r"\s+", "", text.replace("`", ""))


def test_api_reference_shows_class_and_property_docstrings(site: Path) -> None:
    """Every public class of ``import symshape`` is documented with its own
    docstring and those of its public properties, read from the source (not
    the compiled module's filler)."""
    import symshape
    raw = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "mypyc filler" not in raw
    sections = _api_sections(site)
    classes = [getattr(symshape, n) for n in symshape.__all__
               if isinstance(getattr(symshape, n), type)]
    assert len(classes) >= 8
    checked_props = 0
    for cls in classes:
        shown = re.sub(r"\s+", "", sections[f"symshape.{cls.__name__}"])
        doc, props = _source_docstrings(cls)
        assert _rendered(doc) in shown, (cls.__name__, doc)
        for name, pdoc in props.items():
            assert name in shown and _rendered(pdoc) in shown, (cls.__name__, name, pdoc)
            checked_props += 1
    assert checked_props >= 10, checked_props


def test_grammar_page_states_the_real_limits() -> None:
    text = " ".join((DOCS / "grammar.md").read_text().split())
    m = re.search(r"at most ([\d,]+) characters, ([\d,]+) levels of nesting and ([\d,]+) "
                  r"digits", text)
    assert m, "the limits sentence changed: update this test"
    numbers = [int(g.replace(",", "")) for g in m.groups()]
    assert numbers == [parsing.MAX_TEXT_LENGTH, parsing.MAX_DEPTH, parsing.MAX_INT_DIGITS]


# -- examples ------------------------------------------------------------------------


@pytest.mark.parametrize("page", [p for p in PAGES if fenced(p, "pycon")], ids=lambda p: p.name)
def test_python_examples(page: Path) -> None:
    if page.name == "jax.md" and not _have("jax"):
        pytest.skip("jax is not installed")
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {}  # the blocks of a page share one namespace, in order
    report = io.StringIO()
    for line, body in fenced(page, "pycon"):
        test = parser.get_doctest(body, globs, f"{page.name}:{line}", str(page), line)
        runner.run(test, out=report.write, clear_globs=False)
        globs = test.globs  # get_doctest copies the namespace
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, report.getvalue()


def _expect(expected: list[str], actual: list[str]) -> bool:
    """Do the lines match? A line ``...`` in ``expected`` stands for any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(_expect(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and _expect(expected[1:], actual[1:])


def _shell(command: str) -> list[str]:
    """Run a documented command line with ``symshape`` meaning this checkout."""
    env = dict(os.environ, PY=sys.executable,
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    script = 'symshape() { "$PY" -m symshape "$@"; }\n' + command + " 2>&1"
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=120)
    return p.stdout.rstrip("\n").split("\n")


def _repl_transcript(block: list[str]) -> tuple[list[str], list[str]]:
    """Replay a transcript of ``symshape repl`` on a terminal: (expected, actual)."""
    inputs = [line[len(PROMPT):] for line in block if line.startswith(PROMPT)]
    out = io.StringIO()
    run(stdin=io.StringIO("".join(s + "\n" for s in inputs)), stdout=out, stderr=out,
        interactive=True)
    banner, *answers = out.getvalue().split(PROMPT)
    shown = banner + "".join(PROMPT + s + "\n" + a for s, a in zip(inputs, answers, strict=False))
    return block, shown.rstrip("\n").split("\n")


def _console_cases() -> list[tuple[str, list[str]]]:
    cases = []
    for page in PAGES:
        for line, body in fenced(page, "console"):
            lines = body.rstrip("\n").split("\n")
            starts = [i for i, s in enumerate(lines) if s.startswith("$ ")]
            for k, i in enumerate(starts):
                end = starts[k + 1] if k + 1 < len(starts) else len(lines)
                if "symshape" in lines[i]:
                    cases.append((f"{page.name}:{line + i}", lines[i:end]))
    return cases


@pytest.mark.parametrize("case", _console_cases(), ids=lambda c: c[0])
def test_console_examples(case: tuple[str, list[str]]) -> None:
    _where, (command, *expected) = case
    if command == "$ symshape repl":
        expected, actual = _repl_transcript(expected)
    else:
        actual = _shell(command[2:])
    assert _expect(expected, actual), "\n".join(["expected:", *expected, "got:", *actual])


def test_console_examples_are_found() -> None:
    cases = _console_cases()
    assert len(cases) >= 10
    assert any(c[1][0] == "$ symshape repl" for c in cases)


_PRINTED = re.compile(r"^[ \t]*print\(.*\)\s+#\s*(.*)$", re.MULTILINE)


def test_readme_python_examples_print_what_their_comments_say() -> None:
    """Each README example runs, and each ``print(...)  # text`` line prints ``text``
    (the JAX one: JAX alone raises on ``a*b >= a``, the plug-in makes the export work)."""
    blocks = fenced(ROOT / "README.md", "python")
    assert len(blocks) == 2, "the README has the taste and the JAX before/after"
    assert "symshape.jax.decisions()" in blocks[1][1]
    for line, body in blocks:
        if "import jax" in body and not _have("jax"):
            continue
        expected = _PRINTED.findall(body)
        assert expected, f"README.md:{line}: no print with the expected output as a comment"
        out = io.StringIO()
        code = compile(body, f"README.md:{line}", "exec")
        with redirect_stdout(out):
            exec(code, {})  # noqa: S102 - our own README
        assert out.getvalue().splitlines() == expected, (line, out.getvalue())


def test_readme_jax_claim_holds_without_the_plugin_too() -> None:
    """The README's "before" is JAX's own behaviour: its exception is JAX's
    InconclusiveDimensionOperation, not a symshape error."""
    if not _have("jax"):
        pytest.skip("jax is not installed")
    from jax import export
    a, b = export.symbolic_shape("a, b")
    with pytest.raises(Exception) as info:
        _ = a * b >= a
    assert type(info.value).__name__ == "InconclusiveDimensionOperation"
    assert type(info.value).__module__.startswith("jax")
    import symshape.jax as sj
    with sj.decisions():
        assert a * b >= a
    assert not sj.is_installed()


def test_demo_shows_the_code_it_runs() -> None:
    """``python -m symshape.demo`` (the README's first command) labels each function it
    exports with the code that runs, e.g. ``x.reshape(-1, 128).sum(axis=1)``."""
    if not _have("jax"):
        pytest.skip("jax is not installed")
    import symshape.demo
    tree = ast.parse(Path(symshape.demo.__file__).read_text(encoding="utf-8"))
    nested = [fn for outer in ast.walk(tree) if isinstance(outer, ast.FunctionDef)
              for fn in outer.body if isinstance(fn, ast.FunctionDef)]
    shown = [f"{fn.name}(x) = {ast.unparse(fn.body[-1].value)}" for fn in nested
             if isinstance(fn.body[-1], ast.Return) and fn.body[-1].value is not None]
    assert "g(x) = x.reshape(-1, 128).sum(axis=1)" in shown, shown
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "symshape.demo"], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    for code in shown:
        assert f"exported {code} for x: " in p.stdout, (code, p.stdout)
    assert "output shapes: ((floordiv(a, 128),),)" in p.stdout, p.stdout


def test_readme_commands_are_what_ci_runs() -> None:
    """The README's test command is the one `.ci/run` runs, verbatim."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [b.strip().splitlines()[-1] for _, b in fenced(ROOT / "README.md", "bash")]
    assert len(commands) == 2, commands
    assert "python -m symshape.demo" in commands[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines(), (commands[1], ci)
    assert "pytest" in commands[1] and ".[all]" in commands[1]
    assert readme.count("```bash") == 2
