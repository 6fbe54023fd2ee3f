"""Installs that work for users: the wheel (built from the sdist) in fresh environments, one
per extra, each running that extra's own feature against real parts, as a user would run it.

    row           Python   extras                        feature
    base          3.10     -                             sample, rule grading, the metric via
    base          3.13                                   evaluate.load(METRIC_PATH), dataset build;
                                                         every other verb stops naming its extra
    judge         3.11     judge                         grade --judge-model against `vllm serve`
    openai        3.11     openai                        generate --backend openai against it
                                                         (it reports its context: /tokenize)
    transformers  3.11     transformers                  generate --backend transformers
    plots         3.11     plots                         report (figures, the page)
    rl            3.11     rl                            a GRPOTrainer step with general365's
                                                         rewards on a tiny model built there
    demo          3.11     transformers, plots           general365 demo
    floors-base   3.10     -                             base, every install_requires at its floor
    floors-extras 3.11     judge, openai, transformers,  judge, API runner and demo, every extra's
                           plots                         dependency at its floor

The judge and the API runner talk to the session's real `vllm serve` on the tiny model
(support.models), which runs from this checkout's environment, not the fresh one.
"""

from __future__ import annotations

import json
import re
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import general365

from support import install

pytestmark = pytest.mark.slow

PY_OLDEST, PY_NEWEST, PY_REST = "3.10", "3.13", "3.11"


@pytest.fixture(scope="module")
def wheel(run_tmp) -> Path:
    if install.uv() is None:
        pytest.skip("uv is not installed (pip install uv; it is in the dev extra)")
    return install.build_once(run_tmp).wheel


# Each row's environment: label -> (Python, extras, floors). A test's label is its name
# without "test_", "_" as "-", a parameter as a suffix: test_base[3.10] is "base-3.10".
ROWS = {
    f"base-{PY_OLDEST}": (PY_OLDEST, (), False),
    f"base-{PY_NEWEST}": (PY_NEWEST, (), False),
    "judge": (PY_REST, ("judge",), False),
    "openai": (PY_REST, ("openai",), False),
    "transformers": (PY_REST, ("transformers",), False),
    "plots": (PY_REST, ("plots",), False),
    "rl": (PY_REST, ("rl",), False),
    "analysis": (PY_REST, ("analysis",), False),
    "demo": (PY_REST, ("transformers", "plots"), False),
    "floors-base": (PY_OLDEST, (), True),
    "floors-extras": (PY_REST, ("judge", "openai", "transformers", "plots"), True),
}


def _label(test_name: str) -> str:
    return re.sub(r"\[(.*)\]$", r"-\1", test_name.removeprefix("test_")).replace("_", "-")


def _make(where: Path, wheel: Path, label: str) -> install.Env | str:
    """The row's environment, or why this machine cannot make it (the test skips)."""
    python, extras, lowest = ROWS[label]
    exe = install.find_python(python)
    if exe is None:
        return f"no Python {python} here (pyenv or python{python} on PATH)"
    if any(re.match(r"torch\b", x) for x in install.declared(tuple(extras))) \
            and install.local_cpu_torch(
            "cp" + python.replace(".", "")) is None:
        return (f"no local CPU torch wheel for Python {python} (GENERAL365_TORCH_WHEELS); "
                "PyPI's Linux torch would pull several GB of CUDA")
    return install.make_env(where, label, exe, wheel, tuple(extras), lowest=lowest)


@pytest.fixture(scope="module")
def envs(request, wheel, tmp_path_factory):
    """The environments of the rows this session runs, all installed at once in threads
    from the first test on: uv mostly waits on the index and the disk, so the installs
    overlap one another and the checks the tests run meanwhile."""
    where = tmp_path_factory.mktemp("envs")
    labels = [_label(item.name) for item in request.session.items
              if item.module is request.module and _label(item.name) in ROWS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {label: pool.submit(_make, where, wheel, label) for label in labels}
        yield futures
        for future in futures.values():
            future.cancel()


def _env(envs, request) -> install.Env:
    made = envs[_label(request.node.name)].result()
    if isinstance(made, str):
        pytest.skip(made)
    return made


def _ok(r, what: str) -> None:
    assert r.returncode == 0, f"{what}: exit {r.returncode}\n{r.stdout[-1500:]}\n{r.stderr[-3000:]}"


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _shortest(types: tuple[str, ...], n: int) -> list:
    # The server's context is 1024 tokens: the judge's prompt holds the whole question.
    import general365

    problems = [p for p in general365.load_problems(source="sample")
                if p.answer_type.value in types]
    return sorted(problems, key=lambda p: len(p.question))[:n]


def _stops_for(env: install.Env, needle: str, *args: str) -> None:
    r = env.run(*args)
    assert r.returncode == 2, f"{args}: exit {r.returncode}\n{r.stderr[-2000:]}"
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'general365[{needle}]'" in lines[0], r.stderr


# --- what each extra does -------------------------------------------------------------

def check_base(env: install.Env) -> None:
    r = env.py(textwrap.dedent(r"""
        import json, evaluate, general365
        problems = general365.load_problems(source="sample")
        number = [p for p in problems if p.answer_type.value == "number"][:2]
        verdicts = general365.grade([
            {"id": number[0].id, "run": 0, "response": "\\boxed{%s}" % number[0].answer},
            {"id": number[1].id, "run": 0, "response": "<think>\\boxed{1}"}], problems,
            policy="rule")
        metric = evaluate.load(general365.METRIC_PATH)
        scores = metric.compute(predictions=["\\boxed{12}", "\\boxed{2.6}"],
                                references=["12", "2.67"], answer_type=["number", "number"],
                                float_round=[0, 2])
        print(json.dumps({"n": len(problems), "statuses": [v.status.value for v in verdicts],
                          "metric_path": general365.METRIC_PATH, "scores": scores}))
    """))
    _ok(r, "the Python API and the metric")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["n"] == len(general365.load_problems("sample")) and out["statuses"] == ["correct", "no_answer"]
    assert "site-packages" in out["metric_path"]          # the wheel's copy, not a checkout
    assert out["scores"]["accuracy"] == 0.5
    _ok(env.run("dataset", "build", "--source", "sample", "--out", "hub"), "dataset build")
    card = (env.home / "hub" / "README.md").read_text()
    assert "configs:" in card and "<!-- general365:" not in card    # every marker filled in
    r = env.py("import general365; print(len(general365.load_dataset('all', source='hub')))")
    _ok(r, "load the built folder")
    assert r.stdout.strip().splitlines()[-1] == str(len(general365.load_problems("sample")))


def check_judge(env: install.Env, server) -> None:
    problems = _shortest(("single_choice", "multiple_choice", "text"), 3)
    (env.home / "responses.jsonl").write_text("".join(
        json.dumps({"id": p.id, "run": 0, "response": r"The answer is \boxed{A}"}) + "\n"
        for p in problems))
    r = env.run("grade", "responses.jsonl", "--dataset", "sample", "--out", "judged.jsonl",
                "--policy", "paper", "--judge-model", server.model,
                "--judge-base-url", server.base_url, "--judge-structured", "vllm",
                "--judge-max-tokens", "16", "--judge-cache", "none", "--no-progress")
    _ok(r, "grade with the judge")
    graded = _lines(env.home / "judged.jsonl")
    assert len(graded) == 3
    assert all(g["method"] == "judge" and g["status"] in ("correct", "incorrect")
               for g in graded), graded


def check_openai(env: install.Env, server) -> None:
    (env.home / "ids.txt").write_text("".join(p.id + "\n" for p in _shortest(("number",), 2)))
    r = env.run("generate", "--backend", "openai", "--model", server.model,
                "--base-url", server.base_url, "--dataset", "sample", "--ids", "ids.txt",
                "--max-tokens", "8", "--out", "api-run")
    _ok(r, "generate --backend openai")
    rows = _lines(env.home / "api-run" / "responses.jsonl")
    assert len(rows) == 2 and all(isinstance(x["response"], str) for x in rows)
    assert json.loads((env.home / "api-run" / "run.json").read_text())["backend"] == "openai"


def check_transformers(env: install.Env) -> None:
    r = env.py("from general365.tiny_model import build_tiny_model; build_tiny_model('tiny')")
    _ok(r, "build the tiny model")
    (env.home / "ids.txt").write_text("".join(p.id + "\n" for p in _shortest(("number",), 2)))
    r = env.run("generate", "--backend", "transformers", "--model", "tiny", "--dataset",
                "sample", "--ids", "ids.txt", "--max-tokens", "8", "--out", "tf-run")
    _ok(r, "generate --backend transformers")
    assert len(_lines(env.home / "tf-run" / "responses.jsonl")) == 2


def check_plots(env: install.Env) -> None:
    problems = _shortest(("number", "interval", "single_choice"), 12)
    (env.home / "right.jsonl").write_text("".join(
        json.dumps({"id": p.id, "run": 0, "response": "\\boxed{%s}" % p.answer}) + "\n"
        for p in problems))
    _ok(env.run("grade", "right.jsonl", "--dataset", "sample", "--policy", "rule",
                "--out", "right-graded.jsonl", "--no-progress"), "grade (rule)")
    _ok(env.run("report", "right-graded.jsonl", "--out", "report"), "report")
    assert (env.home / "report" / "index.html").stat().st_size > 1000
    assert list((env.home / "report" / "figures").glob("*.png"))


def check_rl(env: install.Env) -> None:
    # TRL brings transformers, which builds the tiny model: the rl extra alone is enough.
    r = env.py(textwrap.dedent(r"""
        import json, os
        os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
        import general365, trl
        from transformers import AutoTokenizer
        from general365.rewards import accuracy_reward, format_reward
        from general365.tiny_model import build_tiny_model
        build_tiny_model("tiny")
        ds = general365.load_dataset("seed", source="sample")
        ds = ds.filter(lambda r: r["answer_type"] == "number").select(range(2))
        ds = ds.map(lambda r: {"prompt": [{"role": "user", "content": r["question"][:160]}]})
        args = trl.GRPOConfig(output_dir="grpo", use_cpu=True, max_steps=1, logging_steps=1,
                              per_device_train_batch_size=4, num_generations=2,
                              max_completion_length=8, report_to="none", save_strategy="no")
        trainer = trl.GRPOTrainer(model="tiny", reward_funcs=[accuracy_reward, format_reward],
                                  args=args, train_dataset=ds,
                                  processing_class=AutoTokenizer.from_pretrained("tiny"))
        trainer.train()
        step = [h for h in trainer.state.log_history if "loss" in h][0]
        print(json.dumps({"keys": sorted(step), "statuses": accuracy_reward.last_statuses}))
    """))
    _ok(r, "a GRPOTrainer step with the rewards")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert {"rewards/general365_accuracy/mean", "rewards/general365_format/mean",
            "general365/correct", "general365/no_answer"} <= set(out["keys"]), out["keys"]
    assert len(out["statuses"]) == 4
    assert set(out["statuses"]) <= {"correct", "incorrect", "no_answer"}, out["statuses"]


def check_analysis(env: install.Env) -> None:
    # The default embedder is the packaged offline MiniLM: nothing is downloaded.
    r = env.run("analyze", "sample", "--out", "analysis", "--no-progress", "--no-embed-cache")
    _ok(r, "general365 analyze sample")
    a = json.loads((env.home / "analysis" / "analysis.json").read_text())
    assert a["settings"]["embedder"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert a["settings"]["tsne"]["method"] == "opentsne"
    assert a["datasets"]["sample"]["n"] == 160
    assert len((env.home / "analysis" / "tsne.csv").read_text().splitlines()) == 1 + 160
    assert (env.home / "analysis" / "index.html").stat().st_size > 1000


def check_demo(env: install.Env) -> None:
    r = env.run("demo", "--limit", "2", "--runs", "1", "--max-tokens", "8", "--out", "demo",
                "--model-dir", "demo-model")
    _ok(r, "general365 demo")
    assert len(_lines(env.home / "demo" / "graded.jsonl")) == 2
    assert (env.home / "demo" / "report" / "index.html").is_file()


# --- the rows -----------------------------------------------------------------------------

@pytest.mark.parametrize("python", [PY_OLDEST, PY_NEWEST])
def test_base(envs, request, python):
    env = _env(envs, request)
    check_base(env)
    _stops_for(env, "transformers,plots", "demo", "--out", "d")
    _stops_for(env, "judge", "grade", "x.jsonl", "--out", "g.jsonl", "--judge-model", "m")
    _stops_for(env, "plots", "report", "x.jsonl", "--out", "r")
    _stops_for(env, "openai", "generate", "--backend", "openai", "--model", "m", "--out", "d")
    _stops_for(env, "vllm", "generate", "--backend", "vllm", "--model", "m", "--out", "d")
    _stops_for(env, "transformers,judge,plots", "run", "--backend", "transformers",
               "--model", "m", "--out", "d", "--judge-model", "j")
    assert not (env.home / "d").exists()


def test_judge(envs, request, vllm_server):
    env = _env(envs, request)
    check_judge(env, vllm_server)
    _stops_for(env, "plots", "report", "x.jsonl", "--out", "r")


def test_openai(envs, request, vllm_server):
    env = _env(envs, request)
    check_openai(env, vllm_server)


def test_transformers(envs, request):
    env = _env(envs, request)
    check_transformers(env)
    _stops_for(env, "plots", "demo", "--out", "d")


def test_plots(envs, request):
    env = _env(envs, request)
    check_plots(env)
    _stops_for(env, "transformers", "demo", "--out", "d")


def test_rl(envs, request):
    env = _env(envs, request)
    check_rl(env)
    _stops_for(env, "plots", "report", "x.jsonl", "--out", "r")


def test_analysis(envs, request):
    env = _env(envs, request)
    check_analysis(env)
    _stops_for(env, "judge", "grade", "x.jsonl", "--out", "g.jsonl", "--judge-model", "m")


def test_demo(envs, request):
    env = _env(envs, request)
    check_demo(env)


def _assert_at_floors(env: install.Env, lines: list[str]) -> None:
    installed = env.versions()
    for line in lines:
        name, floor = re.match(r"([A-Za-z0-9_.\-]+)(?:\[.*\])?\s*>=\s*([^,;\s]+)", line).groups()
        if name == "torch":
            continue      # the local CPU build: the only torch this machine can install
        got = installed[re.sub(r"[-_.]+", "-", name).lower()]
        assert _release(got) == _release(floor), f"{name}: floor {floor}, installed {got}"


def test_floors_base(envs, request):
    # Every install_requires floor, exactly, on the oldest Python.
    env = _env(envs, request)
    _assert_at_floors(env, install.declared())
    check_base(env)


def test_floors_extras(envs, request, vllm_server):
    # Every extra's floor, exactly (the base packages as low as those extras allow).
    extras = ("judge", "openai", "transformers", "plots")
    env = _env(envs, request)
    base = set(install.declared())
    _assert_at_floors(env, [x for x in install.declared(extras) if x not in base])
    check_judge(env, vllm_server)
    check_openai(env, vllm_server)
    check_demo(env)


def _release(version: str) -> tuple[int, ...]:
    parts = [int(x) for x in re.match(r"\d+(?:\.\d+)*", version).group(0).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)
