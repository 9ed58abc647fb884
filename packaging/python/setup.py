"""Builds kvscope._core through the repository's CMake tree (the core, the CLI's library and
packaging/python/src/module.cpp on Debian's pybind11); the version is the core's kVersion.

KVSCOPE_CMAKE_BUILD_DIR names the tree to build in (scripts/build-python.sh passes build/native,
whose core objects it then reuses); the default is build/python/cmake."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VERSION = re.search(r'kVersion = "([^"]+)"',
                    (ROOT / "core/include/kvscope/request/report_json.hpp").read_text()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tree = Path(os.environ.get("KVSCOPE_CMAKE_BUILD_DIR", ROOT / "build/python/cmake")).resolve()
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tree), "-DKVSCOPE_PYTHON=ON",
                        f"-DPYTHON_EXECUTABLE={sys.executable}"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(tree), "--target", "kvscope_python",
                        "-j", str(os.cpu_count() or 2)], check=True)
        built = next((tree / "python").glob("_core*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


(ROOT / "build/python").mkdir(parents=True, exist_ok=True)  # egg_info writes there
setup(
    version=VERSION,
    packages=["kvscope"],
    package_data={"kvscope": ["py.typed", "*.pyi"]},
    ext_modules=[Extension("kvscope._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(ROOT / "build/python/setuptools")},
             "egg_info": {"egg_base": str(ROOT / "build/python")}},
)
