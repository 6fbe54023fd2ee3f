"""The maps match the code: docs/architecture.md's "Map" section and each package's
`__init__.py` docstring name exactly the modules there are, every module path a doc names
exists, docstring examples import, and no doc or docstring sends the reader outside the
repository.

When a module is added, removed or renamed, a failure here names the package and the
module: add (or remove) one line `- name.py  what it holds` in that package's __init__
docstring, and the name in the package's line of docs/architecture.md's Map.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "general365"
ARCHITECTURE = REPO / "docs" / "architecture.md"
# A map line of an __init__ docstring: `- name.py  what it holds` (a subpackage: `name/`).
MAP_LINE = re.compile(r"^\s*- ([\w]+\.py|[\w]+/)\s")
# A package's item in architecture.md's Map (it may go on over indented lines):
# - `general365/grading/`: `choice.py`, ...
DOC_LINE = re.compile(r"^- `(general365/(?:[\w]+/)*)`: (.*)$")


def packages() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)


def modules_of(package: Path) -> set[str]:
    """The package's own modules and subpackages, as its map names them."""
    return ({f.name for f in package.glob("*.py") if f.name != "__init__.py"}
            | {d.name + "/" for d in package.iterdir() if (d / "__init__.py").is_file()})


def rel(package: Path) -> str:
    return package.relative_to(REPO).as_posix() + "/"


def docstring_map(package: Path) -> set[str]:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    return {m.group(1) for line in (doc or "").splitlines() if (m := MAP_LINE.match(line))}


def architecture_map() -> dict[str, set[str]]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "\n## Map\n" in text, "docs/architecture.md has no '## Map' section"
    section = text.split("\n## Map\n", 1)[1].split("\n## ", 1)[0]
    items: list[str] = []   # a bullet with its indented continuation lines
    for line in section.splitlines():
        if line.startswith("- "):
            items.append(line)
        elif line.startswith("  ") and items:
            items[-1] += " " + line.strip()
    found: dict[str, set[str]] = {}
    for item in items:
        m = DOC_LINE.match(item)
        if m:
            found[m.group(1)] = set(re.findall(r"`([\w]+\.py|[\w]+/)`", m.group(2)))
    return found


@pytest.mark.parametrize("package", packages(), ids=rel)
def test_each_package_docstring_lists_exactly_its_modules(package):
    listed, there = docstring_map(package), modules_of(package)
    assert not there - listed, (f"{rel(package)}__init__.py's map does not list "
                                f"{sorted(there - listed)}: add a line '- name  what it holds'")
    assert not listed - there, (f"{rel(package)}__init__.py's map lists {sorted(listed - there)}, "
                                "which are not in the package")


def test_architecture_names_every_package_and_module():
    documented = architecture_map()
    actual = {rel(p): modules_of(p) for p in packages()}
    assert sorted(set(actual) - set(documented)) == [], \
        "packages missing from docs/architecture.md's Map"
    assert sorted(set(documented) - set(actual)) == [], \
        "docs/architecture.md's Map names packages that do not exist"
    for package, there in actual.items():
        listed = documented[package]
        assert not there - listed, (f"docs/architecture.md's Map: {package} lacks "
                                    f"{sorted(there - listed)}")
        assert not listed - there, (f"docs/architecture.md's Map: {package} names "
                                    f"{sorted(listed - there)}, which do not exist")


def test_every_module_path_architecture_names_exists():
    # The Map's names are each relative to its package (the test above checks them).
    text = ARCHITECTURE.read_text(encoding="utf-8").split("\n## Map\n", 1)[0]
    # A path such as `runners/session.py` or general365/tasks/base.py; upper-case parts are
    # placeholders (`general365/cli/VERB.py`).
    paths = set(re.findall(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.py)\b", text))
    paths |= {p for p in re.findall(r"`((?:[\w]+/)+)`", text)}
    missing = [p for p in sorted(paths) if not re.search(r"[A-Z]", p)
               and not (REPO / p).exists() and not (PACKAGE / p).exists()]
    assert missing == []


def _examples() -> list[tuple[str, str]]:
    """The import lines of every docstring example in the package: (module, line)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)):
                continue
            for line in (ast.get_docstring(node) or "").splitlines():
                line = line.strip().removeprefix(">>> ")
                if re.match(r"(from general365[\w.]* import [\w, ]+|import general365[\w.]*)$",
                            line):
                    found.append((path.relative_to(REPO).as_posix(), line))
    return found


@pytest.mark.parametrize("where,line", _examples())
def test_docstring_examples_import(where, line):
    module = re.match(r"(?:from|import) ([\w.]+)", line).group(1)
    importlib.import_module(module)
    exec(line, {})   # a name the example imports that the module lacks: ImportError


def test_no_doc_sends_the_reader_outside_the_repository():
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
             *sorted((REPO / "notebooks").glob("*.ipynb")),
             *(p for p in sorted(PACKAGE.rglob("*")) if p.suffix in (".py", ".md"))]
    outside = re.compile(r"/work/|\.\./shared|shared/(?:docs|reference)|shared reference"
                         r"|\.\./\.\./")
    found = [f"{p.relative_to(REPO)}:{n}: {line.strip()}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
             if outside.search(line)]
    assert found == []


def test_every_doc_a_doc_names_exists():
    """`docs/NAME.md`, and a project file such as `DESIGN.md` or `SOURCE.md`, named in the
    docs and docstrings, is a file here (other `.md` names are files general365 writes)."""
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
             *sorted(PACKAGE.rglob("*.py"))]
    here = {p.name for p in REPO.rglob("*.md") if ".git" not in p.parts}
    missing = []
    for p in files:
        text = p.read_text(encoding="utf-8")
        for name in re.findall(r"(?<![\w/.:-])(docs/[\w-]+\.md)\b", text):
            if not (REPO / name).is_file():
                missing.append(f"{p.relative_to(REPO)}: {name}")
        for name in re.findall(r"(?<![\w/.:-])([A-Z][A-Z_]+\.md)\b", text):
            if name not in here:
                missing.append(f"{p.relative_to(REPO)}: {name}")
    assert missing == []
