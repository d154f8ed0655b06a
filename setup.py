"""Build script beside pyproject.toml for what pyproject cannot say: cffi's extension and the data packages.

cffi_modules is a setup() keyword registered by cffi; pyproject.toml cannot carry it (as in pymunk).
Packages are found automatically; the top-level data folders (engine/resources.py: DATA_DIRS) ship as
package data inside `engine` (engine.configs -> configs/, ...) and the explorer's assets inside `webapp`.
A folder that does not exist in this tree is simply not shipped.
"""
import ast
from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent


def _data_dirs() -> tuple[str, ...]:
    # read DATA_DIRS without importing engine (build isolation has no numpy)
    tree = ast.parse((HERE / "engine" / "resources.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "DATA_DIRS":
            return ast.literal_eval(node.value)
    raise RuntimeError("engine/resources.py has no DATA_DIRS")


data_pkgs = {f"engine.{d}": d for d in _data_dirs() if (HERE / d).is_dir()}
data_pkgs.update({"webapp.static": "static", "webapp.templates": "templates"})
# their sub-folders are listed as (data-only) packages too, so setuptools ships them without a warning
data_subpkgs = [f"{p}.{sub}" for p, d in data_pkgs.items() for sub in find_namespace_packages(where=str(HERE / d))]

setup(
    # namespace finding also lists engine/include, engine/csrc (shipped C sources) as data-only packages
    packages=find_namespace_packages(include=["engine", "engine.*", "webapp", "webapp.*", "simtscope", "simtscope.*"],
                                     exclude=["*.__pycache__"])
    + list(data_pkgs) + data_subpkgs,
    package_dir=data_pkgs,
    package_data={"engine.include": ["*.h"], "engine.csrc": ["*.c", "*.h"], "engine.ctest": ["*.c"], "engine.ptx": ["*.ebnf"],
                  "webapp.store.csrc": ["*.c", "*.h"], "webapp.store": ["*.json"],
                  **{p: ["**/*"] for p in data_pkgs}},
    exclude_package_data={"": ["*.pyc", "*.o", "*.so"]},
    cffi_modules=["engine/build_ffi.py:ffibuilder", "webapp/store/build_lod.py:ffibuilder"],
)
