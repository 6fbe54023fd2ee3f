"""The package's layers (docs/architecture.md): data flows one way, so imports do too.

Every import counts, at the top of a module or inside a function (a lazy import is still a
dependency). Checked on the source with ast, so the test sees imports that a run never
reaches."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "general365"

# A part of the package may not import the parts named beside it.
FORBIDDEN = {
    "schema": {"answers", "data", "prompts", "runners", "grading", "reporting", "tasks", "api",
               "cli", "analysis", "audit", "expand", "results"},
    "answers": {"data", "prompts", "runners", "grading", "reporting", "tasks", "api", "cli",
                "results"},
    "data": {"prompts", "runners", "grading", "reporting", "tasks", "api", "cli", "results"},
    "prompts": {"data", "runners", "grading", "reporting", "tasks", "api", "cli", "results"},
    "runners": {"grading", "reporting", "tasks", "api", "cli", "data", "results"},
    "grading": {"runners", "reporting", "tasks", "api", "cli", "data", "results"},
    "reporting": {"runners", "grading", "tasks", "api", "cli", "data", "results"},
    "tasks": {"api", "cli"},
    "api": {"cli"},
    "audit": {"cli", "api"},
    "analysis": {"cli"},
    "expand": {"cli"},
    "results": {"cli", "api"},
    "integrations": {"cli"},
}


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The general365 modules `path` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("general365")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("general365"):
                continue
            found.add(target)
            # `from . import x` names a module x
            for a in node.names:
                candidate = f"{target}.{a.name}"
                if (PACKAGE.parent / Path(*candidate.split("."))).with_suffix(".py").exists() \
                        or (PACKAGE.parent / Path(*candidate.split("."))).is_dir():
                    found.add(candidate)
    return found - {me}


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in PACKAGE.rglob("*.py")
            if "_shipped" not in p.parts}


def part(module: str) -> str:
    bits = module.split(".")
    return bits[1] if len(bits) > 1 else ""


def test_no_part_imports_a_part_above_it():
    bad = []
    for module, deps in sorted(graph().items()):
        for dep in sorted(deps):
            if part(dep) in FORBIDDEN.get(part(module), ()):
                bad.append(f"{module} imports {dep}")
    assert bad == []


def test_nothing_outside_the_cli_imports_it():
    bad = [f"{m} imports {d}" for m, deps in graph().items() for d in deps
           if part(d) == "cli" and part(m) not in ("cli", "__main__")]
    assert bad == []


def _cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in g:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles():
    # A package's __init__ re-exporting its own modules is not a cycle of the data flow:
    # only imports between modules count.
    g = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph().items()}
    assert _cycles(g) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module,dep", [
    ("general365.data.official", "general365.grading.rule"),
    ("general365.reporting.build", "general365.grading.hybrid"),
])
def test_the_rule_catches_an_upward_import(module, dep):
    assert part(dep) in FORBIDDEN[part(module)]


def test_no_two_classes_share_a_name():
    """One name per idea: a class name says which idea it is, anywhere in the package."""
    seen: dict[str, str] = {}
    twice = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_shipped" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                if node.name in seen:
                    twice.append(f"{node.name}: {seen[node.name]} and {where}")
                seen.setdefault(node.name, where)
    assert twice == []
