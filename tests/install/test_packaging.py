"""What a user installs: the sdist and the wheel built from it, their contents and metadata.

The wheel carries the sample, the paper's numbers, the metric Space and the dataset card
(both copied in from the checkout's top-level folders by setup.py's build step, so a clone
without symbolic links builds the same wheel). The sdist carries what the tests need.
The fresh installs, one per extra, are in test_install.py.
"""

from __future__ import annotations

import configparser
import re
import subprocess
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from support import install

REPO = install.REPO
SHIPPED = {"metric/general365": "general365/_shipped/metric/general365",
           "dataset_card": "general365/_shipped/dataset_card"}


@pytest.fixture(scope="module")
def artifacts(run_tmp) -> install.Artifacts:
    if install.uv() is None:
        pytest.skip("uv is not installed (pip install uv; it is in the dev extra)")
    return install.build_once(run_tmp)


@pytest.fixture(scope="module")
def wheel_names(artifacts) -> set[str]:
    return set(zipfile.ZipFile(artifacts.wheel).namelist())


@pytest.fixture(scope="module")
def metadata(artifacts):
    with zipfile.ZipFile(artifacts.wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(z.read(name).decode())


def _tracked(folder: str) -> list[Path]:
    return sorted(p for p in (REPO / folder).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def test_the_wheel_carries_the_metric_and_the_card_as_in_the_checkout(artifacts, wheel_names):
    with zipfile.ZipFile(artifacts.wheel) as z:
        for source, dest in SHIPPED.items():
            files = _tracked(source)
            assert files, source
            for path in files:
                inside = f"{dest}/{path.relative_to(REPO / source).as_posix()}"
                assert inside in wheel_names, inside
                assert z.read(inside) == path.read_bytes(), f"{inside} differs from {path}"
    # evaluate.load(DIR) runs DIR/<basename>.py: the shipped folder is named for its script
    metric = SHIPPED["metric/general365"]
    assert f"{metric}/{metric.rsplit('/', 1)[1]}.py" in wheel_names


def test_the_wheel_carries_the_data_and_the_entry_point(artifacts, wheel_names):
    for needed in ("general365/data/sample/part_a.jsonl", "general365/data/sample/part_b.jsonl",
                   "general365/data/sample/part_c.jsonl",
                   "general365/data/published/table1_full.csv",
                   "general365/data/published/table2_public.csv",
                   "general365/data/published/table3_stability.csv",
                   "general365/data/published/SOURCE.md", "general365/extras.py",
                   # lm_eval --include_path general365.integrations.lm_eval.TASK_DIR
                   "general365/integrations/lm_eval/tasks/general365.yaml",
                   "general365/integrations/lm_eval/tasks/general365_sample.yaml",
                   "general365/integrations/lm_eval/tasks/_general365_template_yaml",
                   "general365/integrations/lm_eval/tasks/utils.py"):
        assert needed in wheel_names, needed
    with zipfile.ZipFile(artifacts.wheel) as z:
        entry = next(n for n in wheel_names if n.endswith("entry_points.txt"))
        assert "general365 = general365.cli:console_main" in z.read(entry).decode()
    # nothing but the package and its metadata at the top (no tests/, no stray metric/)
    assert {n.split("/")[0] for n in wheel_names} == {
        "general365", next(n.split("/")[0] for n in wheel_names if ".dist-info/" in n)}
    # every package folder of the checkout is in the wheel
    for init in (REPO / "general365").rglob("__init__.py"):
        assert init.relative_to(REPO).as_posix() in wheel_names, init


def test_the_sdist_carries_what_the_wheel_and_the_tests_need(artifacts):
    with tarfile.open(artifacts.sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for needed in ("setup.py", "setup.cfg", "pyproject.toml", "MANIFEST.in", "README.md",
                   "LICENSE", "tests/conftest.py", "scripts/test.sh", "scripts/setup.sh"):
        assert needed in names, needed
    for folder in ("tests/support", "tests/sample", "metric/general365", "dataset_card",
                   "notebooks", "general365/data/sample", "general365/data/published"):
        for path in _tracked(folder):
            assert path.relative_to(REPO).as_posix() in names, path
    for test in (REPO / "tests").rglob("test_*.py"):
        assert test.relative_to(REPO).as_posix() in names, test
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_no_symbolic_links_in_git():
    # A clone where links are not supported (Windows' default) gets a text file for each
    # link, and a wheel built from it would silently lack what the link pointed to.
    r = subprocess.run(["git", "ls-files", "-s"], cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout (an sdist)")
    links = [line.split("\t", 1)[1] for line in r.stdout.splitlines() if line.startswith("120000")]
    assert links == []


def test_metadata_python_versions_extras_and_urls(metadata):
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    assert metadata["Requires-Python"] == ">=3.10"
    classifiers = metadata.get_all("Classifier")
    for minor in (10, 11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    # extras' names are compared as PEP 685 normalizes them (lm_eval is lm-eval)
    assert set(metadata.get_all("Provides-Extra")) == {
        re.sub(r"[-_.]+", "-", e).lower() for e in cfg["options.extras_require"]}
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
    assert {"Homepage", "Source", "Documentation", "Issues"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())


def test_the_package_page_shows_how_to_install_every_extra(metadata):
    page = metadata.get_payload()
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    assert "pip install general365" in page
    for extra in cfg["options.extras_require"]:
        if extra != "dev":
            assert f"general365[{extra}]" in page, extra


def test_the_package_page_links_are_absolute(metadata):
    # The README is the long description; on a package page a relative link goes nowhere.
    page = metadata.get_payload()
    targets = re.findall(r"\]\(([^)\s]+)\)", page) + re.findall(r'(?:href|src)="([^"]+)"', page)
    assert targets
    relative = [t for t in targets if not re.match(r"(https?://|#|mailto:)", t)]
    assert relative == []
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    source = dict(line.split(" = ", 1) for line in
                  cfg.get("metadata", "project_urls").strip().splitlines())["Source"].strip()
    docs = [t for t in targets if "/docs/" in t]
    assert docs and all(t.startswith(source + "/blob/main/docs/") for t in docs), docs
    for t in docs:   # each linked doc exists in the checkout
        assert (REPO / t.split("/blob/main/", 1)[1].split("#")[0]).is_file(), t


def test_the_metric_space_requirements_match_the_package():
    # metric/general365/requirements.txt is what the Space installs: the same floors.
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    ours = {re.split(r"[<>=\[]", x.strip())[0].lower(): x.strip()
            for x in cfg.get("options", "install_requires").splitlines() if x.strip()}
    space = [x.strip() for x in (REPO / "metric/general365/requirements.txt").read_text()
             .splitlines() if x.strip() and not x.startswith("#")]
    assert any(x.startswith("general365[judge]") for x in space)
    for line in space:
        name = re.split(r"[<>=\[]", line)[0].lower()
        if name in ours:
            assert line == ours[name], (line, ours[name])
