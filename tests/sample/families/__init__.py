"""One module per seed family of the bundled sample; importing them registers every
verifier with tests/sample/harness.py."""

import importlib
import pkgutil


def load_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        importlib.import_module(f"{__name__}.{info.name}")
