# cffi_modules is a setup() keyword registered by cffi; pyproject.toml cannot carry it (as in pymunk).
from setuptools import setup

setup(cffi_modules=["engine/build_ffi.py:ffibuilder"])
