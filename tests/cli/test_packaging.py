"""A non-editable install from the wheel works on its own: `memlens` runs and finds its styles."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib

import pytest

from tests.conftest import REPO

HEADLESS_APP = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    import tui.app
    from engine.config import load_config
    from tui.app import MemlensApp

    assert "site-packages" in tui.app.__file__, tui.app.__file__
    assert Path(MemlensApp.CSS_PATH).exists(), MemlensApp.CSS_PATH

    async def main():
        app = MemlensApp(load_config(Path(sys.argv[1])))
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            rules = sum(len(v) for v in app.stylesheet.rules_map.values())
            assert rules > 20, rules  # app.tcss was parsed, not just Textual's defaults
            await pilot.press(*"climbing")
            await pilot.pause(1.0)
            print("screen", type(app.screen).__name__, "rules", rules)

    asyncio.run(main())
""")


def _run(args, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEMLENS_ROOT")}
    return subprocess.run(args, capture_output=True, text=True, env=env, **kw)


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_the_app_runs_headless(tmp_path):
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                  str(REPO)], timeout=600)
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("memlens-*.whl"))

    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], timeout=300).returncode == 0
    python = venv / "bin" / "python"
    installed = _run([str(python), "-m", "pip", "install", "-q", str(wheel)], timeout=1200)
    assert installed.returncode == 0, installed.stderr[-2000:]

    version = _run([str(venv / "bin" / "memlens"), "--version"], cwd=tmp_path, timeout=120)
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert version.returncode == 0 and version.stdout == f"memlens {declared}\n", version.stderr

    compiled = _run([str(python), "-c", "from engine.vectors import kernels; "
                     "from engine.retrieval import passages; "
                     "print(kernels.COMPILED, passages.COMPILED)"], cwd=tmp_path, timeout=120)
    assert compiled.stdout == "True True\n", compiled.stderr  # the compiled scans were built
    related = _run([str(python), "-c", "from engine.retrieval.word_neighbours import neighbours; "
                    "print(dict(neighbours('dog'))['pet'] > 0.45)"], cwd=tmp_path, timeout=120)
    assert related.stdout == "True\n", related.stderr  # the related-words table is packaged

    root = tmp_path / "demo"
    demo = _run([str(venv / "bin" / "memlens"), "demo", "--root", str(root), "--no-app"],
                cwd=tmp_path, timeout=600)
    assert demo.returncode == 0, demo.stderr
    assert (root / "data/search/memlens.db").exists()

    app = _run([str(python), "-c", HEADLESS_APP, str(root)], cwd=tmp_path, timeout=300)
    assert app.returncode == 0, app.stderr[-3000:]
    assert "screen MainScreen" in app.stdout


def test_the_wheel_holds_every_front_door():
    import tomllib

    from setuptools import find_packages

    find = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = set(find_packages(str(REPO), include=find["packages"]["find"]["include"]))
    assert {"engine", "cli", "tui", "mcp_server"} <= packages
