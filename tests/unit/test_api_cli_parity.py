"""The Python API and the command line accept and refuse exactly the same inputs: each bad
input goes through both, and both refuse it with the same message (the API names the keyword
argument, the command line its flag), with nothing written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import general365
from general365.cli import main
from general365.errors import UserError

GOOD = {"id": "a", "run": 0, "response": r"\boxed{12}", "answer": "12", "answer_type": "number"}


def write(path: Path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def cli(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    return code, err


def same(api_message: str, cli_line: str, verb: str) -> None:
    """The CLI's line is the API's message with each option spelled as a flag."""
    assert cli_line.startswith(f"general365 {verb}: error: ")
    shown = cli_line[len(f"general365 {verb}: error: "):].strip()
    # the flag spelling (--top-p) and the keyword spelling (top_p) differ; nothing else
    def flat(s: str) -> str:
        s = re.sub(r"\bnames\b", "name", s)   # report's names= is given as --name, once a file
        s = re.sub(r"\bengine[-_]args?\b", "engine arg", s)   # engine_args=, --engine-arg each
        s = re.sub(r"--([a-z][a-z-]*)", lambda m: m.group(1), s)
        return re.sub(r"(?<=[a-z])[-_](?=[a-z])", " ", s)

    assert flat(shown) == flat(api_message.split(" (from Python:")[0]), (shown, api_message)


# --- generate ---------------------------------------------------------------------------

GENERATE_BAD = [
    ({"temperature": -1.0}, ["--temperature", "-1"], "temperature must be >= 0"),
    ({"temperature": float("nan")}, ["--temperature", "nan"], "must be a finite number"),
    ({"top_p": 1.5}, ["--top-p", "1.5"], "top_p must be in (0, 1]"),
    ({"top_k": 0}, ["--top-k", "0"], "top_k must be -1 (off)"),
    ({"runs": 0}, ["--runs", "0"], "runs must be at least 1"),
    ({"max_tokens": 0}, ["--max-tokens", "0"], "max_tokens must be at least 1"),
    ({"request_timeout": 0.0}, ["--request-timeout", "0"], "request_timeout must be"),
    ({"base_url": "http://127.0.0.1:9/v1", "backend": "transformers"},
     ["--base-url", "http://127.0.0.1:9/v1", "--backend", "transformers"],
     "base_url is for backend openai"),
    ({"preset": "fast"}, ["--preset", "fast"], "unknown preset"),
    ({"chat_template_kwargs": "{nope"}, ["--chat-template-kwargs", "{nope"], "not valid JSON"),
    # json.loads kept the last of two keys: thinking switched on by the second spelling
    ({"chat_template_kwargs": '{"enable_thinking": false, "enable_thinking": true}'},
     ["--chat-template-kwargs", '{"enable_thinking": false, "enable_thinking": true}'],
     "duplicated key 'enable_thinking'"),
    ({"chat_template_kwargs": '{"temperature": NaN}'},
     ["--chat-template-kwargs", '{"temperature": NaN}'], "NaN or an infinity"),
    ({"limit": 0}, ["--limit", "0"], "limit must be at least 1"),
    ({"backend": "tgi"}, ["--backend", "tgi"], "unknown backend"),
    ({"benchmark": "mmlu"}, ["--benchmark", "mmlu"], "is not a benchmark"),
    ({"base_url": ["http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1/"]},
     ["--base-url", "http://127.0.0.1:9/v1", "--base-url", "http://127.0.0.1:9/v1/"],
     "base_url http://127.0.0.1:9/v1 is given twice"),
    ({"base_url": "127.0.0.1:9"}, ["--base-url", "127.0.0.1:9"], "is not a URL"),
    ({"pipeline_parallel_size": 2}, ["--pipeline-parallel-size", "2"],
     "pipeline_parallel_size is for backend vllm"),
    ({"backend": "vllm", "distributed_executor_backend": "slurm"},
     ["--backend", "vllm", "--distributed-executor-backend", "slurm"],
     "distributed_executor_backend must be one of mp, ray, uni"),
    ({"backend": "vllm", "distributed_executor_backend": "ray", "data_parallel_size": 2},
     ["--backend", "vllm", "--distributed-executor-backend", "ray", "--data-parallel-size", "2"],
     "'ray' with data_parallel_size above 1 is not supported"),
    ({"engine_args": ["max_num_seqs"]}, ["--engine-arg", "max_num_seqs"], "expected KEY=VALUE"),
    ({"engine_args": ["max_num_seqs=2"]}, ["--engine-arg", "max_num_seqs=2"],
     "is for backend vllm or transformers"),
    ({"backend": "transformers", "engine_args": ["dtype=float16"]},
     ["--backend", "transformers", "--engine-arg", "dtype=float16"],
     "'dtype' is set by our own option dtype"),
]


@pytest.mark.parametrize("kwargs,flags,needle", GENERATE_BAD,
                         ids=[g[2][:24] for g in GENERATE_BAD])
def test_generate_refuses_the_same_inputs(tmp_path, capsys, kwargs, flags, needle):
    out = tmp_path / "run"
    base = {"backend": "openai", "dataset": "sample", "out": str(out)}
    with pytest.raises(UserError) as info:
        general365.generate("m", **{**base, **kwargs})
    assert needle in str(info.value)
    argv = ["generate", "--model", "m", "--dataset", "sample", "--out", out]
    if "backend" not in kwargs:
        argv += ["--backend", "openai"]
    code, err = cli(capsys, *argv, *flags)
    assert code == 2 and len(err.strip().splitlines()) == 1
    same(str(info.value), err, "generate")
    assert not out.exists()


def test_generate_ids_not_in_the_dataset(tmp_path, capsys):
    ids = tmp_path / "ids.txt"
    ids.write_text("no-such-id\n")
    with pytest.raises(UserError, match="'no-such-id' is not in the dataset"):
        general365.generate("m", backend="openai", dataset="sample", out=str(tmp_path / "r"),
                            ids=["no-such-id"])
    with pytest.raises(UserError, match="'no-such-id' is not in the dataset"):
        general365.generate("m", backend="openai", dataset="sample", out=str(tmp_path / "r"),
                            ids_file=str(ids))
    code, err = cli(capsys, "generate", "--model", "m", "--backend", "openai", "--dataset",
                    "sample", "--out", tmp_path / "r", "--ids", ids)
    assert code == 2 and "--ids" in err and "'no-such-id' is not in the dataset" in err
    assert not (tmp_path / "r").exists()


# --- grade ------------------------------------------------------------------------------


def grade_cases(tmp_path: Path):
    dup = write(tmp_path / "dup.jsonl", [GOOD, GOOD])
    first = next(p for p in general365.load_problems(source="sample")
                 if p.answer_type.value == "number")
    contra = write(tmp_path / "contra.jsonl", [{**GOOD, "id": first.id, "answer": "999"}])
    bad_gold = write(tmp_path / "badgold.jsonl", [{**GOOD, "answer": "[[[", "answer_type": "interval"}])
    good = write(tmp_path / "good.jsonl", [GOOD])
    folder = tmp_path / "folder"
    folder.mkdir()
    return [
        ((dup, str(tmp_path / "g.jsonl")), {}, [], "a second response for this id and run"),
        ((contra, str(tmp_path / "g.jsonl")), {"dataset": "sample"}, ["--dataset", "sample"],
         "the response carries answer '999', the dataset has"),
        ((bad_gold, str(tmp_path / "g.jsonl")), {}, [], "does not parse"),
        ((good, str(tmp_path / "g.jsonl")), {"workers": 0}, ["--workers", "0"],
         "workers must be at least 1"),
        ((good, str(tmp_path / "g.jsonl")), {"timeout": 0.0}, ["--timeout", "0"],
         "timeout must be a positive number"),
        ((good, str(tmp_path / "g.jsonl")), {"policy": "paper"}, ["--policy", "paper"],
         "needs an LLM judge"),
        ((good, str(folder)), {}, [], "is a folder"),
    ]


def test_grade_refuses_the_same_inputs(tmp_path, capsys):
    for (responses, out), kwargs, flags, needle in grade_cases(tmp_path):
        with pytest.raises(UserError) as info:
            general365.grade_file(responses, out, **kwargs)
        assert needle in str(info.value), (needle, str(info.value))
        code, err = cli(capsys, "grade", responses, "--out", out, "--no-progress", *flags)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        same(str(info.value), err, "grade")
        assert not Path(tmp_path / "g.jsonl").exists()


def test_grade_in_memory_refuses_what_the_file_form_refuses():
    """general365.grade (responses in memory) and grade_file check through one pairing."""
    with pytest.raises(UserError, match="a second response for this id and run"):
        general365.grade([GOOD, GOOD], policy="rule")
    problems = general365.load_problems(source="sample")
    first = next(p for p in problems if p.answer_type.value == "number")
    row = {**GOOD, "id": first.id, "answer": "999"}
    with pytest.raises(UserError, match="the response carries answer '999'"):
        general365.grade([row], problems, policy="rule")


# --- report -----------------------------------------------------------------------------


def test_report_refuses_the_same_inputs(tmp_path, capsys):
    graded = write(tmp_path / "graded.jsonl", [{**GOOD, "status": "correct", "correct": True}])
    cases = [({"published": "recent"}, None, "published 'recent': expected one of"),
             ({"bootstrap": 10}, ["--bootstrap", "10"], "bootstrap 10: expected at least 100"),
             ({"names": ["a", "b"]}, ["--name", "a", "--name", "b"], "names was given 2 time(s)"),
             ({"report_to": "tensorbord"}, ["--report-to", "tensorbord"],
              "report_to 'tensorbord': expected a comma-separated list"),
             ({"report_to": "none,mlflow"}, ["--report-to", "none,mlflow"],
              "report_to none cannot be given with a tracker"),
             ({"logging_dir": "tb"}, ["--logging-dir", "tb"],
              "logging_dir is where TensorBoard writes"),
             ({"push_to_hub": "org"}, ["--push-to-hub", "org"],
              "push_to_hub 'org': expected ORG/NAME"),
             # "" is the current folder to os.path.join: an unset shell variable
             ({"hub_folder": ""}, ["--hub-folder", ""], "hub_folder '' is empty"),
             ({"report_to": "tensorboard", "logging_dir": " "},
              ["--report-to", "tensorboard", "--logging-dir", " "], "logging_dir ' ' is empty"),
             ({"public": True}, ["--public"], "public is for the repository push_to_hub"),
             ({"token_env": "MY_TOKEN"}, ["--token-env", "MY_TOKEN"],
              "token_env is the Hub token for push_to_hub")]
    for kwargs, flags, needle in cases:
        with pytest.raises(UserError) as info:
            general365.report(graded, str(tmp_path / "r"), **kwargs)
        assert needle in str(info.value), str(info.value)
        if flags is None:   # argparse's own choices refuse it first, also with exit 2
            continue
        code, err = cli(capsys, "report", graded, "--out", tmp_path / "r", *flags)
        assert code == 2
        same(str(info.value), err, "report")
        assert not (tmp_path / "r").exists()


def test_report_and_run_refuse_an_empty_out(tmp_path, capsys, monkeypatch):
    graded = write(tmp_path / "graded.jsonl", [{**GOOD, "status": "correct", "correct": True}])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as info:
        general365.report(graded, "  ")
    code, err = cli(capsys, "report", graded, "--out", "  ")
    assert code == 2
    same(str(info.value), err, "report")
    with pytest.raises(UserError) as info:
        general365.run("m", backend="openai", dataset="sample", out="")
    code, err = cli(capsys, "run", "--model", "m", "--backend", "openai", "--dataset",
                    "sample", "--out", "")
    assert code == 2
    same(str(info.value), err, "run")
    assert sorted(os.listdir(tmp_path)) == ["graded.jsonl"]


def test_run_refuses_a_bad_tracker_before_generating(tmp_path, capsys):
    with pytest.raises(UserError) as info:
        general365.run("m", backend="openai", dataset="sample", out=str(tmp_path / "r"),
                       report_to="tensorbord")
    code, err = cli(capsys, "run", "--model", "m", "--backend", "openai", "--dataset",
                    "sample", "--out", tmp_path / "r", "--report-to", "tensorbord")
    assert code == 2
    same(str(info.value), err, "run")
    assert not (tmp_path / "r").exists()


def test_an_option_error_spells_the_flag_on_the_command_line(capsys, tmp_path):
    code, err = cli(capsys, "run", "--model", "m", "--backend", "openai", "--dataset",
                    "sample", "--out", tmp_path / "r", "--grade-workers", "0")
    assert code == 2 and "--grade-workers must be at least 1" in err
    with pytest.raises(UserError, match="^grade_workers must be at least 1"):
        general365.run("m", backend="openai", dataset="sample", out=str(tmp_path / "r"),
                       grade_workers=0)
    assert not (tmp_path / "r").exists()
