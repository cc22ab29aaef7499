"""Builds the `nxrt` Python module with CMake and packages it (docs/python.md).

`pip install --no-build-isolation .` runs this: it configures nxrt in build/python (Release,
without tests and benchmarks; $NXRT_BUILD_DIR names another folder, and an already configured
one such as build/release is reused as it is), builds the target nxrt_python for the python3
running pip, and puts the extension and libnxrt.so (under its soname, which the extension finds
next to itself through its $ORIGIN run path) into the package next to python/nxrt/*.py.
$CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default: 2).
"""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        build_dir = os.path.abspath(os.environ.get("NXRT_BUILD_DIR", os.path.join(ROOT, "build", "python")))
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release", "-DNXRT_BUILD_TESTS=OFF",
                                   "-DNXRT_BUILD_BENCH=OFF", f"-DPython_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "nxrt_python", "-j", jobs])
        with open(os.path.join(build_dir, "python", "wheel_files.txt"), encoding="utf-8") as f:
            extension, library, soname = f.read().split("\n")[:3]
        package = os.path.join(self.build_lib, "nxrt")
        os.makedirs(package, exist_ok=True)
        shutil.copyfile(extension, os.path.join(package, os.path.basename(extension)))
        shutil.copyfile(library, os.path.join(package, soname))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    packages=["nxrt", "nxrt.capi"],
    package_dir={"": "python"},
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
)
