"""The C part of the simulation (simulation/_engine.c); everything else is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "simulation._engine",
    sources=["simulation/_engine.c"],
    # the same arithmetic as Python's, to the bit: no fused multiply-adds, no fast math
    extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math", "-Wall"],
)])
