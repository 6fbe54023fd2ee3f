"""Everything about the package is declared in setup.cfg; this file adds one build step.

The evaluate metric Space (metric/general365/) and the dataset card (dataset_card/) live at
the top of the repository, where they are uploaded from as they are. The wheel needs a copy
of both inside the package, so build_py copies them in as plain files:

    metric/general365/*    -> general365/_shipped/metric/general365/*
    dataset_card/*         -> general365/_shipped/dataset_card/*

The metric folder keeps its name because `evaluate.load(DIR)` runs DIR/<basename of DIR>.py.
A copy at build time (rather than a link in git) works from any clone, including one made
where symbolic links are not supported, and from the sdist (MANIFEST.in ships both folders).
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

# (source folder in the repository, destination inside the built package)
SHIPPED = (
    ("metric/general365", "general365/_shipped/metric/general365"),
    ("dataset_card", "general365/_shipped/dataset_card"),
)


class build_py_with_shipped(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads both folders from the checkout itself
        here = os.path.dirname(os.path.abspath(__file__))
        for source, dest in SHIPPED:
            src = os.path.join(here, source)
            if not os.path.isfile(os.path.join(src, "README.md")):
                raise SystemExit(f"general365 build: {source}/README.md is missing; the "
                                 f"wheel would lack it (is this a complete checkout or sdist?)")
            target = os.path.join(self.build_lib, dest)
            if os.path.isdir(target):
                shutil.rmtree(target)
            shutil.copytree(src, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))


setup(cmdclass={"build_py": build_py_with_shipped})
