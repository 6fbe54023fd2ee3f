"""One name per idea: no function or class of a package shadows one of its modules
(`general365.report` is the report function; the report package is general365.reporting)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "general365"
PACKAGES = sorted(".".join(p.parent.relative_to(PACKAGE.parent).parts)
                  for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("name", PACKAGES)
def test_no_name_in_a_package_shadows_one_of_its_modules(name):
    package = importlib.import_module(name)
    folder = Path(package.__file__).parent
    modules = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
    modules += [d.name for d in folder.iterdir() if (d / "__init__.py").is_file()]
    shadowed = [m for m in modules
                if m in vars(package) and not inspect.ismodule(vars(package)[m])]
    assert shadowed == [], f"{name}: these names are both a module and something else"


def test_report_is_the_documented_function():
    import general365

    api = importlib.import_module("general365.api")
    assert general365.report is api.report
    assert inspect.signature(general365.report) == inspect.signature(api.report)
    assert importlib.import_module("general365.reporting").build_report
