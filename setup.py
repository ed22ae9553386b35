"""The one compiled module: the vector sidecar's scans (engine/_kernels.c).

Optional: without a C compiler the install still succeeds and engine/kernels.py falls back to
the numpy passes (same results, ~3x slower at 500k; docs/benchmarks.md).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("engine._kernels", ["engine/_kernels.c"], optional=True,
                             extra_compile_args=["-O3", "-std=c11"])])
