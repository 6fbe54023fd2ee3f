"""`general365 generate` end to end: the transformers backend on the tiny model (real
generation), resume, and bad inputs (one line, exit 2, nothing written); failed requests
with the API backend (exit 1, rerun resumes them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from general365.cli import main
from general365.runners.base import run_seed
from general365.runners.store import iter_records
from general365.schema import Response
from support.servers import Behaviour


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["generate", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("general365 generate: error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def dataset(tmp_path) -> Path:
    """Three problems, one far too long for the tiny model's 2048 positions."""
    rows = [
        {"id": "q-add", "question": "What is 2+3? Put the answer in \\boxed{}.", "answer": "5",
         "answer_type": "number", "categories": ["Complex Constraints"]},
        {"id": "q-pick", "question": "Which is larger, A) 3 or B) 7? Answer with a letter.",
         "answer": "B", "answer_type": "single_choice"},
        {"id": "q-long", "question": "Count the words. " + "word " * 4000, "answer": "4003",
         "answer_type": "number"},
    ]
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def ids_file(tmp_path, *ids: str) -> Path:
    path = tmp_path / "ids.txt"
    path.write_text("\n".join(ids) + "\n")
    return path


@pytest.mark.slow
def test_transformers_end_to_end_and_resume(tiny_model_dir, dataset, tmp_path, capsys):
    out = tmp_path / "run"
    ids = ids_file(tmp_path, "q-add", "q-pick")
    base = ["--backend", "transformers", "--model", tiny_model_dir, "--dataset", dataset,
            "--ids", ids, "--max-tokens", "8", "--seed", "3", "--dtype", "float32",
            "--out", out]
    code, stdout, err = run_cli(capsys, *base, "--runs", "2")
    assert code == 0, err
    assert "written 4, already done 0, failed 0" in stdout
    assert "generate" in err and "tok/s" in err          # the progress bar, on stderr
    records = list(iter_records(str(out / "responses.jsonl")))
    assert sorted((r["id"], r["run"]) for r in records) == [
        ("q-add", 0), ("q-add", 1), ("q-pick", 0), ("q-pick", 1)]
    # Run-major in the file: one full pass (run 0 of every problem) before any run 1.
    assert [r["run"] for r in records] == [0, 0, 1, 1]
    for r in records:
        resp = Response.from_dict(r)
        assert resp.model == str(tiny_model_dir)
        assert resp.sampling["seed"] == run_seed(3, resp.run)
        assert resp.sampling["temperature"] == 1.0 and resp.sampling["preset"] == "reasoning"
        assert 1 <= resp.output_tokens <= 8
        assert resp.finish_reason in ("stop", "length")
        assert resp.inline_problem() is not None           # gradable without the dataset
    assert {r["answer"] for r in records if r["id"] == "q-pick"} == {"B"}
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["status"] == "complete" and run_json["backend"] == "transformers"
    assert run_json["versions"]["torch"] and run_json["versions"]["transformers"]
    assert run_json["hardware"]["gpu_count"] == 0
    assert run_json["dataset"]["problems"] == 2 and run_json["dataset"]["fingerprint"]
    assert run_json["counts"]["written"] == 4

    # The same command again: nothing to do, and the model is not even loaded.
    before = (out / "responses.jsonl").read_bytes()
    code, stdout, _ = run_cli(capsys, *base, "--runs", "2")
    assert code == 0 and "written 0, already done 4" in stdout
    assert (out / "responses.jsonl").read_bytes() == before

    # One more run per problem: only run 2 is generated.
    code, stdout, err = run_cli(capsys, *base, "--runs", "3")
    assert code == 0, err
    assert "written 2, already done 4" in stdout
    assert (out / "responses.jsonl").read_bytes().startswith(before)

    # Other settings into the same folder are refused, not mixed.
    code, _, err = run_cli(capsys, *base, "--runs", "3", "--preset", "chat")
    assert code == 2
    assert "use a new --out" in error_line(err)


@pytest.mark.slow
def test_over_long_prompt_is_refused_before_anything_is_written(tiny_model_dir, dataset,
                                                                tmp_path, capsys):
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, "--backend", "transformers", "--model", tiny_model_dir,
                           "--dataset", dataset, "--max-tokens", "8", "--out", out)
    assert code == 2
    line = error_line(err)
    assert "'q-long'" in line and "max_model_len 2048" in line
    assert not out.exists()


def test_unknown_backend(dataset, tmp_path, capsys):
    code, _, err = run_cli(capsys, "--backend", "tgi", "--model", "m", "--dataset", dataset,
                           "--out", tmp_path / "run")
    assert code == 2
    assert "unknown backend 'tgi'; expected one of vllm, openai, transformers" in error_line(err)
    assert not (tmp_path / "run").exists()


def test_missing_dataset(tmp_path, capsys):
    code, _, err = run_cli(capsys, "--backend", "openai", "--model", "m", "--dataset",
                           tmp_path / "nope.jsonl", "--out", tmp_path / "run")
    assert code == 2
    assert "nope.jsonl" in error_line(err)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("extra, message", [
    (["--runs", "0"], "--runs must be at least 1"),
    (["--top-p", "1.5"], "--top-p must be in (0, 1]"),
    (["--top-k", "0"], "--top-k must be -1 (off) or a positive integer"),
    (["--preset", "creative"], "unknown preset 'creative'"),
    (["--chat-template-kwargs", "{oops"], "--chat-template-kwargs is not valid JSON"),
    (["--chat-template-kwargs", "[1]"], "must be a JSON object"),
    (["--base-url", "http://x/v1", "--backend", "vllm"], "--base-url is for --backend openai"),
])
def test_bad_options(dataset, tmp_path, capsys, extra, message):
    argv = ["--backend", "openai", "--model", "m", "--dataset", dataset,
            "--out", tmp_path / "run", *extra]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in error_line(err)
    assert not (tmp_path / "run").exists()


def test_out_must_be_a_folder(dataset, tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("x")
    code, _, err = run_cli(capsys, "--backend", "openai", "--model", "m", "--dataset", dataset,
                           "--out", taken)
    assert code == 2 and "exists and is not a folder" in error_line(err)
    assert taken.read_text() == "x"


def test_ids_file_naming_an_unknown_id(dataset, tmp_path, capsys):
    ids = ids_file(tmp_path, "q-add", "q-missing")
    code, _, err = run_cli(capsys, "--backend", "openai", "--model", "m", "--dataset", dataset,
                           "--ids", ids, "--out", tmp_path / "run")
    assert code == 2
    assert "ids.txt: id 'q-missing' is not in the dataset" in error_line(err)


def test_api_without_context_length_needs_max_tokens(fault_server, dataset, tmp_path, capsys):
    code, _, err = run_cli(capsys, "--backend", "openai", "--model", fault_server.model,
                           "--base-url", fault_server.base_url, "--dataset", dataset,
                           "--limit", "1", "--out", tmp_path / "run")
    assert code == 2 and "pass --max-tokens" in error_line(err)
    assert fault_server.requests == [] and not (tmp_path / "run").exists()


def test_failed_requests_exit_1_and_rerun_resumes_them(fault_server, dataset, tmp_path,
                                                       capsys):
    broken = {"on": True}
    fault_server.set_script(
        lambda r, n: Behaviour.error(500) if broken["on"] and "2+3" in
        r["messages"][-1]["content"] else Behaviour.reply(f"\\boxed{{{r['seed']}}}"))
    out = tmp_path / "run"
    argv = ["--backend", "openai", "--model", fault_server.model, "--base-url",
            fault_server.base_url, "--dataset", dataset, "--limit", "2", "--runs", "2",
            "--max-tokens", "16", "--max-attempts", "2", "--concurrency", "4",
            "--system-prompt", "Think step by step.", "--out", out]
    code, stdout, _ = run_cli(capsys, *argv)
    assert code == 1
    assert "written 2, already done 0, failed 2" in stdout
    assert "rerun the same command" in stdout
    assert {r["id"] for r in iter_records(str(out / "responses.jsonl"))} == {"q-pick"}
    assert json.loads((out / "run.json").read_text())["status"] == "failed"
    assert fault_server.requests[0]["messages"][0] == {"role": "system",
                                                       "content": "Think step by step."}

    broken["on"] = False
    code, stdout, _ = run_cli(capsys, *argv)
    assert code == 0
    assert "written 2, already done 2, failed 0" in stdout
    records = list(iter_records(str(out / "responses.jsonl")))
    assert sorted((r["id"], r["run"]) for r in records) == [
        ("q-add", 0), ("q-add", 1), ("q-pick", 0), ("q-pick", 1)]
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["status"] == "complete" and len(run_json["sessions"]) == 2
    assert run_json["prompt"]["system_prompt"] == "Think step by step."


@pytest.mark.slow
def test_openai_backend_against_real_vllm_serve(vllm_server, dataset, tmp_path, capsys):
    out = tmp_path / "run"
    ids = ids_file(tmp_path, "q-add", "q-pick")
    code, stdout, err = run_cli(capsys, "--backend", "openai", "--model", vllm_server.model,
                                "--base-url", vllm_server.base_url, "--dataset", dataset,
                                "--ids", ids, "--runs", "2", "--max-tokens", "12",
                                "--seed", "9", "--out", out)
    assert code == 0, err
    assert "written 4, already done 0, failed 0" in stdout
    records = list(iter_records(str(out / "responses.jsonl")))
    for r in records:
        assert 1 <= r["output_tokens"] <= 12 and r["finish_reason"] in ("stop", "length")
        assert r["prompt_tokens"] > 5 and r["sampling"]["seed"] == run_seed(9, r["run"])
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["runner"]["max_model_len"] == vllm_server.max_model_len
    assert run_json["runner"]["stats"]["requests"] == 4


# --- refused before anything loads or is written --------------------------------------


@pytest.mark.parametrize("extra, message", [
    (["--temperature", "nan"], "--temperature must be a finite number (got nan)"),
    (["--temperature", "inf"], "--temperature must be a finite number (got inf)"),
    (["--temperature", "-0.5"], "--temperature must be >= 0"),
    (["--top-p", "nan"], "--top-p must be a finite number"),
    (["--top-p", "0"], "--top-p must be in (0, 1]"),
    (["--top-k", "-2"], "--top-k must be -1 (off) or a positive integer"),
    (["--max-tokens", "0"], "--max-tokens must be at least 1"),
    (["--runs", "-1"], "--runs must be at least 1"),
    (["--request-timeout", "0"], "--request-timeout must be a positive number of seconds"),
    (["--request-timeout", "-1"], "--request-timeout must be a positive number of seconds"),
    (["--request-timeout", "nan"], "--request-timeout must be a finite number"),
    (["--gpu-memory-utilization", "nan"], "--gpu-memory-utilization must be a finite number"),
])
def test_bad_numbers_are_refused_up_front(dataset, tmp_path, capsys, extra, message):
    # A server that is not there: a number that slipped through would end as "cannot
    # reach the server" instead of naming the flag.
    argv = ["--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--dataset", dataset, "--max-tokens", "8", "--out", tmp_path / "run", *extra]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in error_line(err)
    assert "Traceback" not in err
    assert not (tmp_path / "run").exists()


def transformers_argv(model, dataset, tmp_path, out, *extra):
    ids = ids_file(tmp_path, "q-add", "q-pick")
    return ["--backend", "transformers", "--model", model, "--dataset", dataset, "--ids", ids,
            "--max-tokens", "8", "--dtype", "float32", "--out", out, *extra]


@pytest.mark.slow
def test_nan_temperature_with_transformers_writes_nothing(tiny_model_dir, dataset, tmp_path,
                                                          capsys):
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, *transformers_argv(tiny_model_dir, dataset, tmp_path, out,
                                                      "--temperature", "nan"))
    assert code == 2 and "--temperature must be a finite number" in error_line(err)
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("device, message", [
    ("foo", "--device 'foo' is not a torch device"),
    ("cuda", "--device 'cuda': this machine has no cuda device"),
])
def test_bad_device_is_one_line(tiny_model_dir, dataset, tmp_path, capsys, device, message):
    import torch

    if device == "cuda" and torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, *transformers_argv(tiny_model_dir, dataset, tmp_path, out,
                                                      "--device", device))
    assert code == 2 and message in error_line(err)
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("backend", ["transformers", "vllm"])
@pytest.mark.parametrize("make, message", [
    (lambda p: p.mkdir(), "the folder has no config.json; expected a model folder"),
    (lambda p: None, "no such folder; expected a model folder (with config.json) or a Hub"),
    (lambda p: p.write_text("x"), "is a file; expected a model folder"),
])
def test_model_that_is_not_a_model_folder(dataset, tmp_path, capsys, backend, make, message):
    model = tmp_path / "model"
    make(model)
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, *transformers_argv(model, dataset, tmp_path, out,
                                                      "--backend", backend))
    assert code == 2
    assert f"--model {model}: {message}" in error_line(err)
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("content, message", [
    ("[1,2]", "run.json: not a JSON object (got 'list')"),
    ('{"sessions": {}}', "run.json, field 'sessions': not a list"),
])
def test_run_json_of_another_shape_is_refused_before_writing(tiny_model_dir, dataset, tmp_path,
                                                             capsys, content, message):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text(content)
    code, _, err = run_cli(capsys, *transformers_argv(tiny_model_dir, dataset, tmp_path, out))
    assert code == 2 and message in error_line(err)
    assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["run.json"]
    assert (out / "run.json").read_text() == content


@pytest.mark.parametrize("name, expected", [
    ("responses.jsonl", "is a folder; expected a file of JSON lines"),
    ("run.json", "is a folder; expected a JSON file"),
])
def test_store_file_that_is_a_folder_is_refused_before_writing(tiny_model_dir, dataset,
                                                                tmp_path, capsys, name,
                                                                expected):
    out = tmp_path / "run"
    (out / name).mkdir(parents=True)
    code, _, err = run_cli(capsys, *transformers_argv(tiny_model_dir, dataset, tmp_path, out))
    assert code == 2
    assert f"{out / name}: {expected}" in error_line(err)
    assert sorted(p.name for p in out.iterdir()) == [name]
