"""Whether the compiled parts (engine/csrc/) serve is said by `memlens stats` (and --json);
the app's statistics screen and MCP index_status are checked in their own tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

import pytest

from cli.main import main
from engine.index.compiled_parts import CompiledPart, compiled_parts, summary
from engine.retrieval import passages
from engine.storage import rank_extension
from engine.vectors import kernels
from tests.conftest import make_root

NAMES = ["vector kernels", "bm25 with known counts", "passage scans"]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("compiled") / "root")
    assert main(["reindex", "--root", str(root), "--json"]) == 0
    return root


def test_each_part_is_named_with_its_source_and_state():
    parts = compiled_parts(rank_loaded=rank_extension.LIBRARY is not None)
    assert [p.name for p in parts] == NAMES
    assert [p.loaded for p in parts] == [kernels.COMPILED, rank_extension.LIBRARY is not None,
                                         passages.COMPILED]
    assert all(p.source.startswith("engine/csrc/") and p.source.endswith(".c") for p in parts)
    assert all((p.fallback is None) == p.loaded for p in parts)


def test_the_summary_names_what_serves_instead():
    parts = [CompiledPart("vector kernels", "engine/csrc/kernels.c", True),
             CompiledPart("passage scans", "engine/csrc/passages.c", False,
                          "Python serves (not built: no C compiler at install)")]
    assert summary(parts) == ["vector kernels: in use",
                              "passage scans: Python serves (not built: no C compiler at "
                              "install)"]
    assert summary([]) == ["none"]


def test_stats_says_which_parts_serve(root, capsys):
    capsys.readouterr()
    assert main(["stats", "--root", str(root)]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines()]
    first = next(i for i, ln in enumerate(lines) if ln.startswith("compiled   "))
    shown = " ".join(lines[first:first + 3])
    assert all(name in shown for name in NAMES)
    assert main(["stats", "--root", str(root), "--json"]) == 0
    compiled = json.loads(capsys.readouterr().out)["compiled"]
    assert [p["name"] for p in compiled] == NAMES
    assert set(compiled[0]) == {"name", "source", "loaded", "fallback"}


def test_parts_turned_off_say_so_and_by_which_switch(root):
    if not (kernels.BUILT and rank_extension.LIBRARY is not None):
        pytest.skip("this install did not compile engine/csrc/ (no C compiler)")
    env = {**os.environ, "MEMLENS_KERNELS": "0", "MEMLENS_RANK_EXTENSION": "0"}
    out = subprocess.run([sys.executable, "-m", "cli", "stats", "--root", str(root), "--json"],
                         env=env, capture_output=True, text=True, timeout=120, check=True)
    compiled = {p["name"]: p for p in json.loads(out.stdout)["compiled"]}
    assert not any(p["loaded"] for p in compiled.values())
    assert compiled["vector kernels"]["fallback"] == (
        "numpy serves (turned off by MEMLENS_KERNELS=0)")
    assert compiled["bm25 with known counts"]["fallback"] == (
        "FTS5's bm25 serves (turned off by MEMLENS_RANK_EXTENSION=0)")


@pytest.mark.slow
def test_a_build_without_a_compiler_succeeds_and_says_what_serves_instead(tmp_path):
    from tests.conftest import REPO

    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
         "--build-temp", str(tmp_path / "tmp")], cwd=REPO, env={**os.environ, "CC": "false"},
        capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    said = [line for line in build.stderr.splitlines() if line.startswith("memlens: ")]
    assert [line.split()[1] for line in said] == [
        "engine.vectors._kernels", "engine.retrieval._passages", "engine.storage._memlensrank"]
    assert all(" not built (" in line and " instead, with the same results" in line
               for line in said)
    assert not list((tmp_path / "lib").rglob("_*.*"))


WHEEL_PARTS = {"engine/vectors/_kernels", "engine/retrieval/_passages",
               "engine/storage/_memlensrank"}


def _wheel(src, out, cc: str | None) -> tuple[set[str], list[str]]:
    """``pip wheel`` of the tree at ``src`` (with ``CC`` when given): the compiled parts the
    wheel holds and the lines the build said about parts it did not build."""
    import zipfile

    env = {k: v for k, v in os.environ.items() if k != "CC"} | ({"CC": cc} if cc else {})
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w",
                          str(out), str(src)], env=env, capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0 and ("No matching distribution" in run.stdout + run.stderr
                                or "Could not fetch" in run.stdout + run.stderr):
        pytest.skip("pip could not fetch setuptools from the registry to build the wheel: "
                    + (run.stderr.strip().splitlines() or ["?"])[-1])
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    [wheel] = out.glob("memlens-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        held = {n.split(".")[0] for n in zf.namelist() if n.endswith((".so", ".pyd"))}
    return held, [line.strip() for line in (run.stdout + run.stderr).splitlines()
                  if line.strip().startswith("memlens: ")]


@pytest.mark.slow
def test_pip_wheel_builds_each_part_with_a_compiler_and_says_so_for_each_without(tmp_path):
    """As a user installs: `pip wheel` (and so `pip install`) of a fresh tree, once with this
    machine's compiler and once where the compiler fails; `pip -v` shows the lines."""
    import shutil

    from tests.conftest import REPO

    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "*.so", "*.pyd", ".pytest_cache",
        ".ruff_cache"))
    held, said = _wheel(src, tmp_path / "without", "false")
    assert held == set()
    assert [line.split()[1] for line in said] == [
        "engine.vectors._kernels", "engine.retrieval._passages", "engine.storage._memlensrank"]
    assert all("not built (the C compiler 'false' failed, exit status 1); " in line
               and line.endswith("instead, with the same results, slower") for line in said), said
    # setuptools would take the parts it finds in build/ as built
    shutil.rmtree(src / "build", ignore_errors=True)
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"half checked: this machine has no C compiler ({compiler}) to build with")
    held, said = _wheel(src, tmp_path / "with", None)
    assert held == WHEEL_PARTS and said == []
