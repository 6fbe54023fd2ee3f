"""The `evaluate` metric: loaded the real way (evaluate.load, offline), from the repo root,
from anywhere through METRIC_PATH and from its own folder; add_batch; two-process mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import general365

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable

PREDICTIONS = [
    r"so \boxed{12}",                                   # correct
    r"<think>\boxed{7}</think> The answer is \boxed{12}.",  # correct after the reasoning
    r"<think>... \boxed{12}",                           # no_answer: never closed
    r"\boxed{2.666}",                                   # correct at 2 places
    r"\boxed{2.6}",                                     # incorrect
    r"\boxed{B, D}",                                    # correct (letters)
    r"\boxed{B}",                                       # incorrect
    r"\boxed{Paris}",                                   # text: ungraded under rule
]
REFERENCES = ["12", "12", "12", "2.67", "2.67", "BD", "BD", "Paris"]
TYPES = ["number"] * 5 + ["multiple_choice"] * 2 + ["text"]
ROUNDS = [0, 0, 0, 2, 2, 0, 0, 0]


def _load(path=None, **kwargs):
    import evaluate

    return evaluate.load(path or general365.METRIC_PATH, **kwargs)


def test_metric_path_points_at_the_space_folder():
    assert Path(general365.METRIC_PATH).resolve() == (REPO / "metric" / "general365").resolve()
    for name in ("general365.py", "README.md", "app.py", "requirements.txt"):
        assert (Path(general365.METRIC_PATH) / name).is_file(), name


def test_compute_rule_policy_counts_every_status():
    out = _load().compute(predictions=PREDICTIONS, references=REFERENCES, answer_type=TYPES,
                          float_round=ROUNDS)
    assert {k: out[f"status/{k}"] for k in ("correct", "incorrect", "no_answer", "timeout",
                                            "judge_failed", "ungraded")} == {
        "correct": 4, "incorrect": 2, "no_answer": 1, "timeout": 0, "judge_failed": 0,
        "ungraded": 1}
    assert out["total"] == 8 and out["graded"] == 7
    assert out["accuracy"] == pytest.approx(4 / 7)
    assert out["coverage"] == pytest.approx(7 / 8)
    assert out["accuracy/multiple_choice"] == pytest.approx(0.5)
    assert out["graded/text"] == 0 and out["total/text"] == 1
    assert "accuracy/text" not in out  # nothing graded: no accuracy rather than a made-up one


def _is_plain_number(v) -> bool:
    import math

    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def test_default_output_is_flat_numbers_that_loggers_take():
    import re

    out = _load().compute(predictions=PREDICTIONS, references=REFERENCES, answer_type=TYPES,
                          float_round=ROUNDS, categories=[["Spatial & Temporal"]] * 8)
    assert all(_is_plain_number(v) for v in out.values()), out
    # one level, "/" between parts, no spaces or "&" (TensorBoard and MLflow rewrite those)
    assert all(re.fullmatch(r"[a-z_]+(/[a-z0-9_]+)?", k) for k in out), sorted(out)
    assert out["accuracy/spatial_temporal"] == pytest.approx(4 / 7)
    assert out["total/spatial_temporal"] == 8
    assert not {"statuses", "by_answer_type", "by_category", "policy", "details"} & set(out)
    json.dumps(out, allow_nan=False)


def test_nothing_graded_is_zero_accuracy_never_none():
    out = _load().compute(predictions=[r"\boxed{Paris}"], references=["Paris"],
                          answer_type=["text"], float_round=[0])
    assert out["accuracy"] == 0.0 and out["graded"] == 0 and out["coverage"] == 0.0
    empty = general365.metric.compute(predictions=[], references=[], answer_type=[],
                                      float_round=[])
    assert empty["accuracy"] == 0.0 and empty["coverage"] == 0.0 and empty["total"] == 0
    assert all(_is_plain_number(v) for v in empty.values())


def test_breakdown_and_details_on_request():
    out = _load().compute(predictions=PREDICTIONS, references=REFERENCES, answer_type=TYPES,
                          float_round=ROUNDS, breakdown=True)
    assert out["policy"] == "rule"
    assert out["statuses"]["correct"] == 4 and out["statuses"]["ungraded"] == 1
    assert out["by_answer_type"]["multiple_choice"] == {"total": 2, "graded": 2, "correct": 1,
                                                        "accuracy": 0.5}
    assert out["by_answer_type"]["text"] == {"total": 1, "graded": 0, "correct": 0}
    assert "details" not in out
    assert out["accuracy"] == pytest.approx(4 / 7)  # the flat numbers stay


def test_string_float_round_as_in_the_official_release():
    out = _load().compute(predictions=[r"\boxed{2.666}", r"\boxed{3.4}"], references=["2.67", "3"],
                          answer_type=["number", "number"], float_round=["2", "0"])
    assert out["status/correct"] == 1 and out["status/incorrect"] == 1


def test_categories_breakdown_and_details():
    cats = [["Optimal Strategy"], ["Optimal Strategy", "Spatial & Temporal"]]
    out = _load().compute(predictions=[r"\boxed{5}", r"\boxed{4}"], references=["5", "5"],
                          answer_type=["number", "number"], float_round=[0, 0],
                          categories=cats, return_details=True, breakdown=True)
    assert out["by_category"]["Optimal Strategy"] == {"total": 2, "graded": 2, "correct": 1,
                                                      "accuracy": 0.5}
    assert out["by_category"]["Spatial & Temporal"]["accuracy"] == 0.0
    assert out["accuracy/optimal_strategy"] == 0.5 and out["accuracy/spatial_temporal"] == 0.0
    assert [d["status"] for d in out["details"]] == ["correct", "incorrect"]
    assert out["details"][0]["extracted"] == "5"



def test_a_category_given_as_text_is_read_as_the_release_writes_it_not_letter_by_letter():
    # The direct call (no evaluate features to check the column) takes "A; B" as the row path
    # and the importer do, instead of iterating the string's characters into categories.
    from general365.metric import compute

    out = compute([r"\boxed{3}", r"\boxed{5}"], ["3", "4"], answer_type=["number", "number"],
                  categories=["Optimal Strategy; Complex Constraints", "Optimal Strategy"],
                  breakdown=True)
    assert out["by_category"] == {
        "Optimal Strategy": {"total": 2, "graded": 2, "correct": 1, "accuracy": 0.5},
        "Complex Constraints": {"total": 1, "graded": 1, "correct": 1, "accuracy": 1.0}}

# --- references as the dataset's own rows ------------------------------------------------


def _sample(n=None):
    ds = general365.load_dataset("all", source="sample")
    return ds if n is None else ds.select(range(n))


def test_references_as_a_dataset():
    ds = _sample()
    preds = [r"<think>x</think>\boxed{%s}" % a for a in ds["answer"]]
    preds[0] = r"\boxed{-1}"
    out = _load().compute(predictions=preds, references=ds)
    types = ds["answer_type"]
    text = types.count("text")
    assert out["total"] == len(ds) and out["graded"] == len(ds) - text
    assert out["correct"] == len(ds) - text - 1
    for t in set(types):
        assert out[f"total/{t}"] == types.count(t)
    n_cat = sum("Spatial & Temporal" in c for c in ds["categories"])
    assert out["total/spatial_temporal"] == n_cat


@pytest.mark.parametrize("shape", ["rows", "problems", "columns", "dataset"])
def test_references_as_rows_in_every_shape(shape):
    ds = _sample(6)
    refs = {"rows": [dict(r) for r in ds], "columns": ds[:6], "dataset": ds,
            "problems": general365.load_problems(source="sample")[:6]}[shape]
    preds = [r"\boxed{%s}" % a for a in ds["answer"]]
    out = _load().compute(predictions=preds, references=refs, return_details=True)
    plain = _load().compute(predictions=preds, references=ds["answer"],
                            answer_type=ds["answer_type"], float_round=ds["float_round"],
                            categories=ds["categories"], return_details=True)
    assert out == plain


def test_rows_from_the_official_release_and_by_hand():
    rows = [{"answer": "2.67", "answer_type": "number", "float_round": "2"},
            {"answer": "12", "answer_type": "number"},                     # float_round: 0
            {"answer": 7, "answer_type": "number", "float_round": 0,       # an int answer
             "question": None, "categories": "Optimal Strategy"}]
    out = _load().compute(predictions=[r"\boxed{2.666}", r"\boxed{12.4}", r"\boxed{7}"],
                          references=rows, breakdown=True)
    assert out["correct"] == 2 and out["status/incorrect"] == 1
    assert out["by_category"] == {"Optimal Strategy": {"total": 1, "graded": 1, "correct": 1,
                                                       "accuracy": 1.0}}


def test_add_and_add_batch_take_rows():
    ds = _sample(6)
    metric = _load()
    metric.add_batch(predictions=[r"\boxed{%s}" % a for a in ds["answer"][:3]],
                     references=ds.select(range(3)))
    metric.add(prediction=r"\boxed{%s}" % ds[3]["answer"], reference=ds[3])
    metric.add_batch(predictions=[r"\boxed{x}", r"<think>"], references=ds[4:6])
    out = metric.compute()
    assert out["total"] == 6 and out["correct"] == 4


@pytest.mark.parametrize("refs, kwargs, message", [
    ([{"answer": "1"}], {}, "answer_type"),
    ([{"answer_type": "number"}], {}, "answer"),
    (["1", {"answer": "1", "answer_type": "number"}], {}, "mixes"),
    ([{"answer": "1", "answer_type": "number"}], {"answer_type": ["number"]}, "given twice"),
    ({"question": ["q"]}, {}, "'answer' column"),
    ([3.5], {}, "gold string"),
])
def test_bad_reference_rows_are_one_clear_error(refs, kwargs, message):
    with pytest.raises(general365.UserError, match=message):
        _load().compute(predictions=[r"\boxed{1}"] * len(refs), references=refs, **kwargs)


def test_add_batch_accumulates_before_compute():
    metric = _load()
    metric.add_batch(predictions=PREDICTIONS[:4], references=REFERENCES[:4],
                     answer_type=TYPES[:4], float_round=ROUNDS[:4])
    metric.add_batch(predictions=PREDICTIONS[4:], references=REFERENCES[4:],
                     answer_type=TYPES[4:], float_round=ROUNDS[4:])
    out = metric.compute()
    assert out["total"] == 8 and out["status/correct"] == 4


def test_judge_policy_without_a_judge_is_one_clear_error():
    with pytest.raises(general365.UserError, match="judge"):
        _load().compute(predictions=[r"\boxed{A}"], references=["A"],
                        answer_type=["single_choice"], float_round=[0], policy="paper")


def test_unknown_answer_type_names_the_row():
    with pytest.raises(general365.DataError, match="answer_type"):
        _load().compute(predictions=[r"\boxed{1}"], references=["1"], answer_type=["numbr"],
                        float_round=[0])


def _run(code: str, cwd: Path, env=None, timeout=300) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "HF_EVALUATE_OFFLINE": "1", **(env or {})}
    return subprocess.run([PY, "-c", textwrap.dedent(code)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def test_loads_from_repo_root_by_relative_path():
    r = _run("""
        import evaluate
        m = evaluate.load("metric/general365")
        print(m.compute(predictions=[r"\\boxed{12}"], references=["12"], answer_type=["number"],
                        float_round=[0])["accuracy"])
    """, cwd=REPO)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "1.0"


def test_loads_from_its_own_folder(tmp_path):
    # The script is named like the package; loaded from its own folder, `import general365`
    # would find the script itself. The wrapper must still reach the package.
    folder = REPO / "metric" / "general365"
    r = _run("""
        import evaluate
        m = evaluate.load("general365.py")
        print(m.compute(predictions=[r"\\boxed{3.1416}"], references=["3.14"],
                        answer_type=["number"], float_round=[2])["accuracy"])
    """, cwd=folder)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "1.0"


def test_two_processes_share_one_result(tmp_path):
    # evaluate's distributed mode: each process adds its shard; process 0 gets the result.
    code = """
        import json, sys, evaluate, general365
        pid = int(sys.argv[1])
        m = evaluate.load(general365.METRIC_PATH, num_process=2, process_id=pid,
                          experiment_id="g365-test", cache_dir=sys.argv[2])
        preds = [[r"\\boxed{1}", r"\\boxed{2}"], [r"\\boxed{3}", r"<think>unfinished"]][pid]
        refs = [["1", "5"], ["3", "4"]][pid]
        m.add_batch(predictions=preds, references=refs, answer_type=["number"] * 2,
                    float_round=[0, 0])
        out = m.compute()
        print(json.dumps(out))
    """
    env = {**os.environ, "HF_EVALUATE_OFFLINE": "1"}
    # evaluate writes <cache_dir>/general365/...: keep that folder out of the working
    # directory, or `import general365` there would find it as a namespace package.
    cache, work = tmp_path / "cache", tmp_path / "work"
    work.mkdir()
    procs = [subprocess.Popen([PY, "-c", textwrap.dedent(code), str(i), str(cache)],
                              cwd=work, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    main = json.loads(outs[0][0].strip().splitlines()[-1])
    assert outs[1][0].strip().splitlines()[-1] == "null"
    assert main["total"] == 4
    assert main["status/correct"] == 2
    assert main["status/incorrect"] == 1
    assert main["status/no_answer"] == 1


def test_judge_given_as_arguments_grades_text_and_choice(fault_server, tmp_path):
    # policy defaults to "paper" when a judge is given; the judge is scripted to say true only
    # for a prediction naming Paris (a fake judge reply: the real part under test is our client,
    # the metric and the policy).
    from support.servers import Behaviour

    def script(request, n):
        user = request["messages"][-1]["content"]
        verdict = "true" if "Paris" in user.split("Prediction:")[-1] else "false"
        return Behaviour.reply('{"accuracy": %s}' % verdict)

    fault_server.set_script(script)
    judge = {"model": "judge-x", "base_url": fault_server.base_url,
             "cache": str(tmp_path / "judge.sqlite"), "backoff_base": 0.01}
    out = _load().compute(
        predictions=[r"<think>London?</think>\boxed{Paris}", r"\boxed{Rome}", r"\boxed{12}"],
        references=["Paris", "Paris", "12"], answer_type=["text", "text", "number"],
        float_round=[0, 0, 0], question=["Capital of France?"] * 2 + ["6+6?"],
        judge=judge, return_details=True, breakdown=True)
    assert out["policy"] == "paper"
    assert [d["status"] for d in out["details"]] == ["correct", "incorrect", "correct"]
    assert [d["method"] for d in out["details"]] == ["judge", "judge", "rule"]
    assert out["details"][0]["judge"]["model"] == "judge-x"
    # the judge saw the final-answer region, never the reasoning, and only for text rows
    assert len(fault_server.requests) == 2
    assert all("London" not in json.dumps(r) for r in fault_server.requests)


@pytest.mark.parametrize("prediction", [5, ["\\boxed{5}"], {"content": "\\boxed{5}"},
                                        b"\\boxed{5}"])
def test_a_prediction_that_is_not_text_is_one_clear_error(prediction):
    # evaluate's features refuse these before the metric runs; called directly, the metric's
    # logic raised a bare AttributeError ('int' object has no attribute 'rfind').
    from general365.metric import compute

    with pytest.raises(general365.UserError, match=r"predictions\[1\] is a"):
        compute(["\\boxed{5}", prediction], ["5", "5"], answer_type=["number", "number"])
    assert compute([None], ["5"], answer_type=["number"])["status/no_answer"] == 1
