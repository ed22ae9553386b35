"""The compiled parts, both optional (engine/csrc/):

- ``engine.vectors._kernels``: the vector sidecar's scans (a CPython module, engine/vectors/kernels.py);
- ``engine.retrieval._passages``: the text scans of passage evidence (engine/retrieval/passages.py);
- ``engine.storage._memlensrank``: a SQLite loadable extension, ``memlens_bm25`` (FTS5's bm25 with
  the document frequencies the keyword arm already knows; engine/storage/rank_extension.py).

Without a C compiler (or with one that cannot build a part: kernels.c needs GCC or Clang) the
install still succeeds and says which part was not built: the numpy passes, the Python scans and
FTS5's own bm25 serve, with the same results and slower (docs/benchmarks.md); `memlens stats`
says which parts serve.
"""

import os
import re
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HEADERS = ["engine/csrc/sqlite3.h", "engine/csrc/sqlite3ext.h",  # SQLite 3.50's, public domain
           "engine/csrc/fts5_postings.h"]
INSTEAD = {  # what serves when a part is not built
    "engine.vectors._kernels": "the numpy passes serve",
    "engine.retrieval._passages": "the Python scans serve",
    "engine.storage._memlensrank": "FTS5's own bm25 serves",
}


class OptionalParts(build_ext):
    """Each part builds where a C compiler can, and says in one line when it cannot; MSVC gets
    its own flags; the SQLite extension exports its entry point, not a PyInit_ function."""

    def build_extension(self, ext):
        if self.compiler.compiler_type == "msvc":
            ext.extra_compile_args = ["/O2"]
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - optional: the install goes on without it
            print(f"memlens: {ext.name} not built ({_reason(exc)}); {INSTEAD[ext.name]} instead, "
                  "with the same results, slower", file=sys.stderr)

    def get_export_symbols(self, ext):
        if ext.name == "engine.storage._memlensrank":
            return ["sqlite3_memlensrank_init"]
        return super().get_export_symbols(ext)


def _reason(exc: Exception) -> str:
    """Why a part did not build, short: the compiler's name and exit status rather than its
    whole command line (the compiler's own messages are printed above this line)."""
    text = str(exc).strip()
    failed = (re.search(r"Command '\['?([^',\]]+)'?.*?exit status (\d+)", text, re.S)
              or re.search(r"command '([^']+)' failed with exit code (\d+)", text))
    if failed:
        return f"the C compiler {os.path.basename(failed[1])!r} failed, exit status {failed[2]}"
    text = text.splitlines()[-1] if text else type(exc).__name__
    return text if len(text) <= 120 else text[:119] + "…"


setup(cmdclass={"build_ext": OptionalParts}, ext_modules=[
    Extension("engine.vectors._kernels", ["engine/csrc/kernels.c"], optional=True,
              extra_compile_args=["-O3", "-std=c11"]),
    Extension("engine.retrieval._passages", ["engine/csrc/passages.c"], optional=True,
              # no fused multiply-add: the floats must equal Python's, operation for operation
              extra_compile_args=["-O2", "-std=c11", "-ffp-contract=off"]),
    Extension("engine.storage._memlensrank",
              ["engine/csrc/memlensrank.c", "engine/csrc/fts5_postings.c"], depends=HEADERS,
              include_dirs=["engine/csrc"], optional=True,
              extra_compile_args=["-O2", "-std=c11"]),
])
