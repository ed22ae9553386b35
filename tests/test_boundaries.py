"""The engine knows nothing of the UI; front doors read through engine.library; no import
circles."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from scripts.import_graph import cycles, module_graph

ENGINE = Path(__file__).resolve().parents[1] / "engine"
MCP = ENGINE.parent / "mcp_server"
CLI = ENGINE.parent / "cli"
UI_LIBRARIES = {"textual", "rich"}


def _imports_of(package: Path, banned: set[str]) -> list[str]:
    """The absolute imports of ``banned`` top-level packages anywhere in a package's source
    (a ``__main__`` block and a function's body too)."""
    offenders = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in banned]
    return offenders


def _loaded_by_importing(package: Path, banned: tuple[str, ...]) -> list[str]:
    """The ``banned`` modules in sys.modules after importing every module of a package."""
    modules = sorted(
        ".".join((package.name, *p.relative_to(package).with_suffix("").parts))
        for p in package.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    code = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {banned!r})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=package.parent, check=True)
    return json.loads(out.stdout)


def test_engine_source_never_imports_a_ui_library():
    assert _imports_of(ENGINE, UI_LIBRARIES | {"tui", "mcp_server", "cli"}) == []


def test_importing_every_engine_module_loads_no_ui_library():
    assert _loaded_by_importing(ENGINE, ("textual", "rich")) == []


def test_the_mcp_server_imports_no_ui_library_and_not_the_app():
    assert _imports_of(MCP, UI_LIBRARIES | {"tui"}) == []
    assert _loaded_by_importing(MCP, ("textual", "rich", "tui")) == []


def test_the_cli_imports_no_textual_and_opens_the_app_only_lazily():
    assert _imports_of(CLI, {"textual"}) == []
    assert _loaded_by_importing(CLI, ("textual", "tui", "mcp", "mcp_server")) == []


def test_importing_the_cli_entry_point_loads_only_what_parsing_needs():
    # `memlens search` is a process per query: what `import cli.main` loads, every call pays
    code = ("import json, sys, cli.main\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=CLI.parent, check=True)
    heavy = {"textual", "rich", "tui", "mcp", "mcp_server", "pydantic", "openai", "httpx",
             "yaml", "watchfiles", "numpy", "wordllama"}
    assert heavy & set(json.loads(out.stdout)) == set()


# -- the import budget: what each command may load ---------------------------------------------

# Third-party packages each command may load (every one else is a cost the answer does not
# need). A keyword search reads SQLite (sqlean) and sizes its table's cells (rich.cells); a
# hybrid search adds the local embedder (tokenizers, numpy), BLAS pinning (threadpoolctl) and
# fuzzy person names for the profile row (rapidfuzz). Neither imports the sqlite-vec package
# (its import pulls numpy; the extension is loaded by path), the embedder wheels, the MCP SDK,
# pydantic, textual, an HTTP client or the standard library's mail parser.
BUDGET = {
    "keyword": {"sqlean", "rich"},
    "hybrid": {"sqlean", "rich", "numpy", "threadpoolctl"},
}
# engine modules a keyword search never loads: no embedder, no vector store
KEYWORD_NEVER = ("engine.embedder", "engine.embed.", "engine.vectors.sidecar",
                 "engine.index.embed_stage")


def _loaded_by_search(root: Path, mode: str, query: str) -> tuple[set[str], list[str]]:
    """(third-party top-level packages, engine modules) a `memlens search` process loaded."""
    code = ("import json, sys\n"
            "from cli.main import main\n"
            f"sys.argv = ['memlens', 'search', {query!r}, '--mode', {mode!r}, '--root', "
            f"{str(root)!r}, '--limit', '3']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "mods = set(sys.modules)\n"
            "print(json.dumps([sorted({m.split('.')[0] for m in mods} - "
            "(set(sys.stdlib_module_names) - {'email'})), "  # email: a mail parser, ~10 ms
            "sorted(m for m in mods if m.startswith('engine.'))]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=CLI.parent, check=True)
    third, engine = json.loads(out.stdout.strip().splitlines()[-1])
    ours = {"engine", "cli", "__main__", "_distutils_hack", "cython_runtime", "_cython_3_3_0"}
    return {m for m in third if m not in ours and not m.startswith("__editable__")}, engine


def test_each_search_mode_loads_only_what_its_answer_needs(tmp_path):
    from engine.config import load_config
    from engine.indexer import reindex
    from tests.conftest import make_root, write_chat

    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    write_chat(root / "data/telegram/ana.jsonl",
               ["we adopted a pet from the shelter", "the dog sleeps all day"] * 20)
    reindex(config=load_config(root))
    third, engine = _loaded_by_search(root, "keyword", "dahlias near the shed")
    assert third <= BUDGET["keyword"], third - BUDGET["keyword"]
    assert [m for m in engine if m.startswith(KEYWORD_NEVER)] == []
    # a query that finds chat windows adds their related words, from the shipped table
    third, engine = _loaded_by_search(root, "keyword", "dog")
    assert third <= BUDGET["keyword"], third - BUDGET["keyword"]
    assert [m for m in engine if m.startswith(KEYWORD_NEVER)] == []
    assert "engine.retrieval.word_neighbours" in engine  # the stage ran: not vacuous
    third, _ = _loaded_by_search(root, "hybrid", "dahlias near the shed")
    assert third <= BUDGET["hybrid"], third - BUDGET["hybrid"]
    assert "numpy" in third  # the local embedder ran: the budget is not vacuous


# -- front doors read through engine.library ---------------------------------------------------

TUI = ENGINE.parent / "tui"
FRONT_DOORS = (TUI, MCP, CLI)  # each file is checked as "<package>/<path inside it>"
SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|PRAGMA|BEGIN|COMMIT|ROLLBACK|WITH|"
                       r"CREATE|DROP|ALTER)\b")
# Files still allowed to hold SQL or open the index themselves. The lead ports them onto
# engine.library and empties this list; the test fails when a listed file no longer needs it.
SQL_ALLOWED: set[str] = set()


def _sql_in(path: Path) -> list[str]:
    """SQL a front-door file runs: .execute*() calls, SQL string literals, engine.storage.db opens."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("execute", "executemany", "executescript")):
            found.append(f"line {node.lineno}: .{node.func.attr}()")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and SQL_START.match(node.value)):
            found.append(f"line {node.lineno}: {node.value.split()[0]} ...")
        elif isinstance(node, ast.ImportFrom) and node.module == "engine.storage.db":
            found.append(f"line {node.lineno}: imports engine.storage.db")
    return found


def test_front_doors_hold_no_sql_outside_the_allow_list():
    with_sql = {p.relative_to(ENGINE.parent).as_posix(): _sql_in(p)
                for door in FRONT_DOORS for p in door.rglob("*.py")}
    assert any(name.startswith("mcp_server/") for name in with_sql)
    assert any(name.startswith("cli/") for name in with_sql)
    offenders = {name: lines for name, lines in with_sql.items()
                 if lines and name not in SQL_ALLOWED}
    assert offenders == {}, "read through engine.library instead"
    no_longer = sorted(name for name in SQL_ALLOWED if not with_sql.get(name))
    assert no_longer == [], "remove these from SQL_ALLOWED"


def test_the_sql_check_sees_each_kind_of_sql(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('from engine.storage.db import connect\nconn.execute(x)\nq = "SELECT 1"\n'
                     'text = "Select a theme"\n')
    assert [line.split(":")[0] for line in _sql_in(probe)] == ["line 1", "line 2", "line 3"]


def _surface() -> set[str]:
    """The modules docs/architecture.md's table "What a front door may import" lists."""
    text = (ENGINE.parent / "docs" / "architecture.md").read_text()
    table = text.split("## What a front door may import", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(engine[a-z_.]*)` \|", table, re.M))


def _engine_imports_of(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(a.name for a in node.names)
    return {m for m in modules if m.split(".")[0] == "engine"}


def test_front_doors_import_only_the_declared_surface():
    surface = _surface()
    assert "engine" in surface and "engine.library" in surface and len(surface) <= 10
    used = {p.relative_to(ENGINE.parent).as_posix(): _engine_imports_of(p)
            for door in FRONT_DOORS for p in door.rglob("*.py")}
    offenders = {name: sorted(mods - surface) for name, mods in used.items() if mods - surface}
    assert offenders == {}, "import these through the surface in docs/architecture.md"
    assert set().union(*used.values()) == surface, "the table lists a module nobody uses"


def test_the_surface_check_sees_a_deep_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from engine.retrieval.keyword_arm import plan\nimport engine.storage.db\n"
                     "from engine import search\n")
    assert _engine_imports_of(probe) - _surface() == {"engine.retrieval.keyword_arm",
                                                     "engine.storage.db"}


def test_no_module_of_the_engine_shadows_a_public_name():
    # importing engine.<name> binds the submodule over the lazily loaded public name
    import engine

    shadowed = [n for n in engine.__all__
                if (ENGINE / f"{n}.py").exists() or (ENGINE / n / "__init__.py").exists()]
    assert shadowed == []


def test_every_public_name_of_the_surface_loads():
    import importlib

    for module in _surface():
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", []):
            assert getattr(mod, name) is not None, f"{module}.{name}"


# -- the import graph ------------------------------------------------------------------------

def _engine_imports() -> dict[str, set[str]]:
    """engine module -> the engine modules it imports (lazy imports included)."""
    return module_graph(ENGINE)


# Import circles still to break (the lead empties this): config imports FILE_ROUTES from
# scanner (it can import engine.index.routes instead), and embedder builds the providers, which
# import its Embedder base class back.
KNOWN_CYCLES: set[frozenset[str]] = set()


def test_no_import_circles_in_the_engine_but_the_known_ones():
    assert cycles(_engine_imports()) == KNOWN_CYCLES


def test_no_import_circle_anywhere_in_the_product():
    # a front door's module imported back by the engine, or by a module it imports itself,
    # would tie the packages into one circle (python -m entry points are shims: see
    # engine/command_line.py and mcp_server/__main__.py)
    packages = (ENGINE, CLI, MCP, ENGINE.parent / "tui")
    assert cycles(module_graph(*packages)) == set()


def test_the_cycle_check_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {
        frozenset({"a", "b", "c"})}


def test_the_engine_core_never_imports_the_demo_generator():
    graph = _engine_imports()
    users = sorted(m for m, deps in graph.items()
                   if not m.startswith("engine.demo") and any(d.startswith("engine.demo")
                                                              for d in deps))
    assert users == []


# -- no private members of another object ----------------------------------------------------

def _private_reads(package: Path) -> list[str]:
    """``x._name`` where ``x`` is another object (``super()`` included), and ``self._name``
    where no module of the package defines ``_name``: a private of Textual's (``_keymap``,
    ``_bindings``, ``_highlights``...) that a Textual release may rename."""
    trees = {p: ast.parse(p.read_text(), str(p)) for p in package.rglob("*.py")}
    defined = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                defined.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                continue
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not own or node.attr not in defined:
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}: "
                             f"{ast.unparse(node)}")
    return found


def test_front_doors_use_no_private_member_of_another_object():
    assert [found for door in FRONT_DOORS for found in _private_reads(door)] == []


def test_the_private_member_check_sees_each_kind(tmp_path):
    package = tmp_path / "door"
    package.mkdir()
    (package / "probe.py").write_text(
        "class A:\n"
        "    def __init__(self):\n        self._mine = 1\n"
        "    def f(self, other):\n"
        "        return self._mine, other._mine, self._keymap, super()._set_theme()\n")
    assert [f.split(": ")[1] for f in _private_reads(package)] == [
        "other._mine", "self._keymap", "super()._set_theme"]


# -- the tests themselves ----------------------------------------------------------------------

TESTS = ENGINE.parent / "tests"


def test_no_test_module_imports_another_and_none_is_named_after_a_ticket():
    # what tests share lives in a conftest.py (tests/<feature>/conftest.py, or tests/ for all)
    imports = []
    for path in TESTS.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and any(
                    part.startswith("test_") for part in node.module.split(".")):
                imports.append(f"{path.relative_to(TESTS)}: {node.module}")
    assert imports == []
    ticket = re.compile(r"fixes|hardening|edges|bugs|regression|issue|ticket")
    assert [p.name for p in TESTS.rglob("test_*.py") if ticket.search(p.stem)] == []
