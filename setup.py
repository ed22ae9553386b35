"""The compiled parts, both optional (engine/csrc/):

- ``engine.vectors._kernels``: the vector sidecar's scans (a CPython module, engine/vectors/kernels.py);
- ``engine.retrieval._passages``: the text scans of passage evidence (engine/retrieval/passages.py);
- ``engine.storage._memlensrank``: a SQLite loadable extension, ``memlens_bm25`` (FTS5's bm25 with
  the document frequencies the keyword arm already knows; engine/storage/rank_extension.py).

Without a C compiler the install still succeeds: the numpy passes and FTS5's own bm25 serve,
with the same results and slower (docs/benchmarks.md).
"""

from setuptools import Extension, setup

HEADERS = ["engine/csrc/sqlite3.h", "engine/csrc/sqlite3ext.h"]  # SQLite 3.50's, public domain

setup(ext_modules=[
    Extension("engine.vectors._kernels", ["engine/csrc/kernels.c"], optional=True,
              extra_compile_args=["-O3", "-std=c11"]),
    Extension("engine.retrieval._passages", ["engine/csrc/passages.c"], optional=True,
              # no fused multiply-add: the floats must equal Python's, operation for operation
              extra_compile_args=["-O2", "-std=c11", "-ffp-contract=off"]),
    Extension("engine.storage._memlensrank", ["engine/csrc/memlensrank.c"], depends=HEADERS,
              include_dirs=["engine/csrc"], optional=True,
              extra_compile_args=["-O2", "-std=c11"]),
])
