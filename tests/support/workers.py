"""How the work is shared between pytest-xdist workers (scripts/test.sh: -n 2 --dist
loadgroup). Loaded as a plugin by tests/conftest.py.

Each worker is a session of its own, so a session fixture is built by every worker that
asks for it. So every test file that uses one of the ENGINE_GROUPS fixtures goes to the one
worker of that group, which starts the engine once; every other file goes whole to one
worker, so that its module fixtures are built once too.

xdist's own groups (the xdist_group mark) do not work with pytest 9, which no longer lets a
plugin rename a test's node id; so the workers, which collect, write each file's group to a
file, and the scheduler, which does not collect, reads it back.

The order the work is handed out: the engine groups (the longest units) first, then the
folders from the slowest kind to the quickest, so that quick files fill in at the end.
"""

from __future__ import annotations

import json
import os
import tempfile

import pytest

ENGINE_GROUPS = {"vllm_server": "vllm-serve", "vllm_runner": "local-engines",
                 "transformers_runner": "local-engines", "local": "local-engines"}
ENGINE_ORDER = list(dict.fromkeys(ENGINE_GROUPS.values()))
KIND_ORDER = ("engines", "install", "docs", "hostile", "browser", "unit", "sample")
_INPUT = "general365_groups"      # the key of the groups file in each worker's workerinput
_groups_file: list[str] = []      # the controller's groups file, once made


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def engine_groups(items) -> dict[str, str]:
    """{test file: engine group} for each file that uses an engine. A file that uses the
    engines of two groups merges the groups, so that no engine is started twice."""
    uses: dict[str, set[str]] = {}
    for item in items:
        names = {ENGINE_GROUPS[f] for f in getattr(item, "fixturenames", ()) if f in ENGINE_GROUPS}
        uses.setdefault(_file(item.nodeid), set()).update(names)
    into = {name: name for name in ENGINE_ORDER}

    def root(name: str) -> str:
        while into[name] != name:
            name = into[name]
        return name

    for names in uses.values():
        roots = sorted({root(n) for n in names}, key=ENGINE_ORDER.index)
        for other in roots[1:]:
            into[other] = roots[0]
    return {f: root(min(names, key=ENGINE_ORDER.index)) for f, names in uses.items() if names}


def _rank(nodeid: str, groups: dict[str, str]) -> tuple[int, int]:
    group = groups.get(_file(nodeid))
    if group is not None:
        return 0, ENGINE_ORDER.index(group)
    parts = _file(nodeid).split("/")
    kind = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
    return 1, KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def pytest_configure(config):
    # The controller of a loadgroup run: a file for the workers to write the groups to.
    if config.getoption("dist", "no") == "loadgroup" and not hasattr(config, "workerinput"):
        fd, path = tempfile.mkstemp(prefix="general365-test-groups-", suffix=".json")
        os.close(fd)
        _groups_file.append(path)


def pytest_unconfigure(config):
    for path in _groups_file:
        try:
            os.unlink(path)
        except OSError:
            pass


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    if _groups_file:
        node.workerinput[_INPUT] = _groups_file[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    path = getattr(config, "workerinput", {}).get(_INPUT)
    if not path:
        return
    groups = engine_groups(items)
    items.sort(key=lambda item: _rank(item.nodeid, groups))
    # Every worker collects the same tests and writes the same groups.
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as out:
        json.dump(groups, out)
    os.replace(tmp, path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if not _groups_file:
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False      # keep the order the workers sorted

    class EngineGroups(LoadScopeScheduling):
        """Work units: an engine group, or a whole file."""

        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:     # asked only once every worker has collected
                try:
                    with open(_groups_file[0]) as f:
                        self.groups = json.load(f)
                except (OSError, ValueError):
                    self.groups = {}    # whole files, as --dist loadfile
            return self.groups.get(_file(nodeid), _file(nodeid))

    return EngineGroups(config, log)
