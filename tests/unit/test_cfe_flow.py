"""CFE-Bench reasoning-flow diagnostics: unit execution (real runner against a scripted
server, real store, real grader) and flow lengths (a scripted segmenting model), with the
costed commands' call counts printed first."""

from __future__ import annotations

import json
import statistics

import pytest

from general365.runners.base import SamplingSettings
from general365.runners.openai_api import OpenAIRunner, RetryPolicy
from general365.cli import main
from general365.tasks.cfe import flow
from general365.tasks.cfe.data import CFEProblem, FlowStep, Variable, VariableType
from support.servers import Behaviour

SETTINGS = SamplingSettings(temperature=0.0, max_tokens=32, seed=1)


def problem(pid: str, answers: list, modality: str = "text") -> CFEProblem:
    return CFEProblem(pid, f"Question {pid}?", (Variable("x", VariableType.NUMERIC, "", "1"),),
                      modality=modality,
                      reasoning_flow=tuple(FlowStep(i + 1, f"Sub-question {i + 1} of {pid}", a)
                                           for i, a in enumerate(answers)))


def runner(server) -> OpenAIRunner:
    return OpenAIRunner(server.model, base_url=server.base_url, jitter_seed=0,
                        retry=RetryPolicy(max_attempts=2, base_delay=0.01))


def test_unit_prompts_carry_the_reference_prefix(cfe_data):
    u = flow.units(cfe_data.problems)
    assert len(u) == sum(len(p.reasoning_flow) for p in cfe_data.problems)
    third = next(x for x in u if x.index == 2)
    [msg] = flow.unit_messages(third)
    text = msg["content"]
    flow_ = third.problem.reasoning_flow
    assert text.startswith(third.problem.question)
    assert f"Step 1: {flow_[0].step}" in text and f"Step 2: {flow_[1].step}" in text
    assert f"Step 3: {flow_[2].step}" in text and "Step 4:" not in text
    assert text.rstrip().endswith("answer = <value>")
    mm = next(x for x in u if x.problem.modality == "mm")
    [msg] = flow.unit_messages(mm)
    assert any(part["type"] == "image_url" for part in msg["content"])
    assert len(flow.unit_requests(u[:10], SETTINGS, runs=3)) == 30
    p = flow.unit_problem(third)
    assert p.variables[0].name == "answer" and p.id.endswith("#unit3")


def test_unit_execution_accuracy_and_resume(fault_server, tmp_path):
    problems = [problem("a", [0.5, 12, 3.25]), problem("b", [7, 2.0], modality="mm")]
    truth = {f"{p.id}#unit{i + 1}": s.verifiable_answer
             for p in problems for i, s in enumerate(p.reasoning_flow)}
    right = {"a#unit1", "a#unit3", "b#unit2"}

    def script(req, n):
        text = req["messages"][-1]["content"]
        text = text if isinstance(text, str) else text[-1]["text"]
        text = text.split("Now answer only the next step:", 1)[1]
        pid = next(k for k in truth if f"Step {k[-1]}: Sub-question {k[-1]} of {k[0]}" in text)
        value = truth[pid] if pid in right else 999
        return Behaviour.reply(f"Working.\nanswer = {value}")

    fault_server.set_script(script)
    units = flow.units(problems)
    requests = flow.unit_requests(units, SETTINGS)
    out = str(tmp_path / "units")
    gen = flow.generate_into(out, lambda: runner(fault_server), requests,
                             model=fault_server.model, purpose="units",
                             prompt_version=flow.UNIT_PROMPT_VERSION, progress=False)
    assert (gen.requested, gen.already_done, gen.written, gen.failed) == (5, 0, 5, 0)
    run_json = json.loads((tmp_path / "units" / "run.json").read_text())
    assert run_json["dataset"]["diagnostic"] == "units" and run_json["status"] == "complete"
    assert run_json["prompt"]["version"] == flow.UNIT_PROMPT_VERSION
    results = flow.grade_units(out, units, policy="rule")
    assert {g.problem.id for g in results.graded if g.correct} == right
    assert results.accuracy() == (3, 5, 0.6)
    table = flow.unit_table(results).records()
    overall = {r["Subset"]: r for r in table if r["Position"] == "all"}
    assert overall["text"]["Unit execution accuracy"] == pytest.approx(2 / 3)
    assert overall["mm"]["Unit execution accuracy"] == pytest.approx(1 / 2)
    first = next(r for r in table if r["Subset"] == "all" and r["Position"] == "1")
    assert (first["Units"], first["Correct"]) == (2, 1)
    # A rerun asks for nothing it has.
    fault_server.reset()
    again = flow.generate_into(out, lambda: runner(fault_server), requests,
                               model=fault_server.model, purpose="units",
                               prompt_version=flow.UNIT_PROMPT_VERSION, progress=False)
    assert again.already_done == 5 and again.written == 0
    assert not fault_server.requests


def test_parse_steps_is_strict():
    assert flow.parse_steps('{"steps": 7}') == 7
    assert flow.parse_steps('```json\n{"steps": 3}\n```') == 3
    assert flow.parse_steps('<think>maybe 4</think>{"steps": 5}') == 5
    for bad in ['{"steps": 0}', '{"steps": "4"}', '{"steps": 4, "why": "x"}', "4 steps",
                '{"steps": true}', "<think>unclosed", "", None, '[{"steps": 2}]',
                '{"steps": 2} {"steps": 3}']:
        assert flow.parse_steps(bad) is None, bad


def graded(qid, run, status, response, modality="text"):
    return {"id": qid, "run": run, "response": response, "status": status,
            "correct": status == "correct", "modality": modality, "benchmark": "cfe"}


def test_flow_lengths_solved_and_unsolved(fault_server, tmp_path):
    problems = {p.id: p for p in [problem("a", [1, 2, 3]), problem("b", [1, 2, 3, 4, 5]),
                                  problem("c", [1]), problem("d", [1, 2], modality="mm")]}
    rows = [graded("a", 0, "correct", "s1\ns2\ns3\ns4"),
            graded("b", 0, "incorrect", "<think>long</think>s1\ns2"),
            graded("c", 0, "correct", "s1\ns2\ns3\ns4\ns5\ns6"),
            graded("d", 0, "no_answer", "<think>never closed", modality="mm"),
            graded("d", 1, "incorrect", "GARBAGE", modality="mm"),
            graded("a", 1, "ungraded", "s1")]             # no verdict: left out
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def script(req, n):
        solution = req["messages"][1]["content"].split("Solution:\n", 1)[1]
        if "GARBAGE" in solution:
            return Behaviour.reply("There are a few steps.")
        return Behaviour.reply(json.dumps({"steps": len(solution.splitlines())}))

    fault_server.set_script(script)
    items = flow.outcomes([str(path)])
    assert len(items) == 5
    requests = flow.segment_requests(items, SETTINGS)
    assert len(requests) == 4                        # d run 0 has no final part to count
    assert "long" not in json.dumps([r.messages for r in requests])   # reasoning left out
    out = str(tmp_path / "seg")
    flow.generate_into(out, lambda: runner(fault_server), requests, model=fault_server.model,
                       purpose="lengths", prompt_version=flow.SEGMENT_VERSION, progress=False)
    counts, failed = flow.read_counts(out)
    assert counts == {"a#run0": 4, "b#run0": 2, "c#run0": 6} and failed == 1
    rows_ = {(r.subset, r.outcome): r for r in flow.length_rows(items, problems, counts)}
    solved = rows_[("text", "Solved")]
    assert solved.questions == 2 and solved.gt_mean == 2.0 and solved.resp_mean == 5.0
    assert solved.gt_std == statistics.pstdev([3, 1]) and solved.resp_std == 1.0
    unsolved = rows_[("text", "Unsolved")]
    assert (unsolved.questions, unsolved.gt_mean, unsolved.resp_counted) == (1, 5.0, 1)
    mm = rows_[("mm", "Unsolved")]
    assert mm.questions == 2 and mm.gt_mean == 2.0 and mm.resp_counted == 0
    assert rows_[("all", "Overall")].questions == 5
    table = flow.length_table(flow.length_rows(items, problems, counts))
    assert table.key == "cfe_flow_lengths" and flow.SEGMENT_VERSION in table.note


def test_cli_prints_the_number_of_calls_first(cfe_dir, tmp_path, capsys):
    argv = ["cfe", "units", "--dataset", str(cfe_dir), "--config", "text", "--limit", "3",
            "--model", "m", "--out", str(tmp_path / "u"), "--runs", "2", "--dry-run"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    from general365.tasks.cfe.data import load

    n = sum(len(p.reasoning_flow) for p in load(cfe_dir, subset="text").problems[:3])
    assert err.startswith(f"unit execution: {2 * n} model call(s) ({n} units of 3 problems")
    assert not (tmp_path / "u").exists()                  # a dry run writes nothing
    # Bad options: one line, exit 2, before anything is asked.
    for bad, needle in ((["--runs", "0"], "--runs must be at least 1"),
                        (["--limit", "0"], "--limit must be at least 1"),
                        (["--policy", "paper"], "--policy paper sends CFE-Bench variables")):
        assert main(argv[:-1] + bad) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and needle in err, err


def test_cli_units_and_lengths_end_to_end(fault_server, tmp_path, capsys, cfe_dir):
    # The scripted model answers every unit with its verifiable answer (read from the
    # prompt's data, which the script is given), so every unit is right.
    from general365.tasks.cfe.data import load

    problems = load(cfe_dir, subset="text").problems[:2]
    truth = {f"Step {i + 1}: {s.step}": s.verifiable_answer
             for p in problems for i, s in enumerate(p.reasoning_flow)}

    def script(req, n):
        text = req["messages"][-1]["content"].split("Now answer only the next step:\n", 1)[1]
        step = text.split("\n\nEnd your response", 1)[0]
        return Behaviour.reply(f"answer = {flow._answer_text(truth[step])}")

    fault_server.set_script(script)
    out = tmp_path / "u"
    argv = ["cfe", "units", "--dataset", str(cfe_dir), "--config", "text", "--limit", "2",
            "--model", fault_server.model, "--base-url", fault_server.base_url,
            "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    n = sum(len(p.reasoning_flow) for p in problems)
    assert f"unit execution: {n} model call(s)" in captured.err
    assert len(fault_server.requests) == n
    table = (out / "cfe_unit_execution.csv").read_text()
    assert "Unit execution accuracy" in table and (out / "cfe_unit_execution.md").is_file()
    overall = next(line for line in captured.out.splitlines() if "| text | all |" in line)
    units, right = (int(x) for x in overall.split("|")[3:5])
    # Every graded unit is right; a unit whose answer is words is ungraded under rule.
    assert units == right and 0 < units <= n, overall
    # A rerun asks for nothing it has.
    fault_server.reset()
    assert main(argv) == 0 and not fault_server.requests

    # Flow lengths of a graded file: one call per graded response, counted by a script.
    rows = [{"id": p.id, "run": 0, "response": "step\n" * (k + 2), **p.inline_fields()}
            for k, p in enumerate(problems)]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["grade", str(responses), "--out", str(tmp_path / "g.jsonl"),
                 "--no-progress"]) == 0
    fault_server.reset()
    fault_server.set_script(lambda req, n: Behaviour.reply(json.dumps(
        {"steps": req["messages"][1]["content"].count("step")})))
    lengths = ["cfe", "lengths", "--dataset", str(cfe_dir), "--config", "text",
               "--graded", str(tmp_path / "g.jsonl"), "--segment-model", fault_server.model,
               "--base-url", fault_server.base_url, "--out", str(tmp_path / "seg")]
    capsys.readouterr()
    assert main(lengths) == 0
    captured = capsys.readouterr()
    assert "flow lengths: 2 model call(s)" in captured.err and len(fault_server.requests) == 2
    unsolved = next(line for line in captured.out.splitlines() if "| text | Unsolved |" in line)
    gt = statistics.fmean(len(p.reasoning_flow) for p in problems)
    cells = [c.strip() for c in unsolved.split("|")]
    assert cells[3] == "2" and float(cells[4]) == pytest.approx(gt, abs=0.005)
    assert cells[6] == "2" and cells[7] == "2.50" and cells[8] == "0.50"   # 2 and 3 steps


def test_cli_variables_for_the_audit(tmp_path, capsys):
    row = {"id": "q", "run": 0, "response": "x = 1", "status": "incorrect", "correct": False,
           "benchmark": "cfe", "question": "Q?",
           "variables": [{"name": "x", "type": "numeric", "value": "1", "description": "a"},
                         {"name": "y", "type": "other", "value": "red",
                          "description": "a colour"}],
           "parts": [
               {"name": "x", "type": "numeric", "value": "1", "status": "correct",
                "method": "rule", "extracted": "1"},
               {"name": "y", "type": "other", "value": "red", "status": "incorrect",
                "method": "judge", "extracted": "blue", "detail": "rule undecided",
                "judge": {"model": "j", "raw": '{"accuracy": false}', "votes": [False]}}]}
    graded = tmp_path / "g.jsonl"
    graded.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "v.jsonl"
    assert main(["cfe", "variables", str(graded), "--out", str(out)]) == 0
    assert "wrote 2 variable rows" in capsys.readouterr().out
    x, y = [json.loads(line) for line in out.read_text().splitlines()]
    assert (x["id"], x["status"], x["answer"]) == ("q#x", "correct", "1")
    assert y["judge"]["model"] == "j" and y["detail"] == "rule undecided"
    assert y["question"] == "Q?\n\nVariable: y (other): a colour"
    # A row that is not a CFE graded row: one line, exit 2, nothing written.
    graded.write_text(json.dumps({"id": "q", "run": 0, "response": "", "status": "correct",
                                  "correct": True}) + "\n", encoding="utf-8")
    out.unlink()
    assert main(["cfe", "variables", str(graded), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "field 'parts'" in err and ":1" in err
    assert not out.exists()
