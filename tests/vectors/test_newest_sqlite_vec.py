"""The vector code against the newest sqlite-vec on the package registry, beside the pinned one.

memlens needs sqlite-vec for two things only, both through its public SQL: dropping the vec0
table an index written by an older memlens holds (the v11 migration), and, in tests, its exact
``vec_distance_cosine`` as the reference the vector search is checked against. The rest of the
suite runs those tests with the pinned release; this runs them again with the newest release
(pre-releases included) installed into a folder ahead of it on the path, so an upgrade that
breaks either shows here first. Skipped, with the reason printed, when the registry cannot be
reached.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

CHECKS = ["tests/vectors/test_vector_index.py", "tests/vectors/test_one_vector_store.py",
          "tests/index/test_crash_harness.py::test_a_conversion_killed_anywhere_resumes_and_"
          "loses_nothing"]
VERSION = ("import sqlite_vec, sqlean; c = sqlean.connect(':memory:'); "
           "c.enable_load_extension(True); sqlite_vec.load(c); "
           "print(sqlite_vec.__file__, c.execute('select vec_version()').fetchone()[0])")


def test_the_vector_code_passes_with_the_newest_sqlite_vec(tmp_path):
    target = tmp_path / "newest"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--pre", "--no-deps", "--upgrade",
         "--target", str(target), "sqlite-vec"], capture_output=True, text=True, timeout=300)
    if install.returncode != 0:
        pytest.skip("the newest sqlite-vec could not be installed from the registry: "
                    + (install.stderr.strip().splitlines() or ["no output"])[-1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(REPO)])}
    where, version = subprocess.run([sys.executable, "-c", VERSION], env=env, cwd=REPO,
                                    capture_output=True, text=True, check=True
                                    ).stdout.split()
    assert Path(where).is_relative_to(target)  # the newest, not the pinned one
    print(f"sqlite-vec {version} (newest on the registry)")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
                          "0", *CHECKS], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"with sqlite-vec {version}:\n{run.stdout[-3000:]}"
    assert " passed" in run.stdout and "skipped" not in run.stdout
