"""`general365 expand` against a scripted OpenAI-compatible server (tests/support/expansion.py:
every kind of candidate reply), through the real runner, run store and checks: every flag
shown, structured output and its fallback, the solver check graded by the real grader,
kill -9 then resume, and the errors a user can make."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from general365.cli import main
from general365.expand.checks import FLAGS
from general365.runners.store import iter_records
from support.expansion import (EXPECTED_FLAGS, KINDS, expansion_script, reply_text,
                               sample_families, seed_of)
from support.servers import Behaviour, FaultServer

SEEDS = ("g365s-001", "g365s-003")


def read_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def ids_file(tmp: Path, ids=SEEDS) -> str:
    path = tmp / "ids.txt"
    path.write_text("\n".join(ids) + "\n")
    return str(path)


def expand_args(server, out, ids: str, *extra: str, candidates: int = 10) -> list[str]:
    return ["expand", "sample", "--model", server.model, "--backend", "openai",
            "--base-url", server.base_url, "--out", str(out), "--candidates", str(candidates),
            "--ids", ids, "--max-tokens", "400", "--no-progress", *extra]


@pytest.fixture(scope="module")
def expanded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("expand")
    with FaultServer(script=expansion_script()) as server:
        out = tmp / "exp"
        assert main(expand_args(server, out, ids_file(tmp))) == 0
        yield server, out, tmp, list(server.requests)


def test_every_kind_of_reply_gets_its_flags(expanded, capsys):
    server, out, _, requests = expanded
    rows = read_jsonl(out / "candidates.jsonl")
    assert [(r["seed_id"], r["candidate"]) for r in rows] == \
        [(s, k) for s in SEEDS for k in range(10)]
    for r in rows:
        kind = KINDS[r["candidate"]]
        assert {f["flag"] for f in r["flags"]} == EXPECTED_FLAGS[kind], (r["id"], r["flags"])
        assert all(f["flag"] in FLAGS and f["reason"] for f in r["flags"])
        assert r["id"] == f"{r['seed_id']}-c{r['candidate']}"
    fam = sample_families()
    valid = next(r for r in rows if r["id"] == "g365s-001-c1")   # the fenced one
    v2 = fam["g365s-001"][2]
    assert (valid["question"], valid["answer"], valid["answer_type"], valid["float_round"]) == \
        (v2.question, v2.answer, v2.answer_type.value, v2.float_round)
    assert valid["categories"] == [c.value for c in fam["g365s-001"][0].categories]
    broken = next(r for r in rows if r["id"] == "g365s-001-c5")
    assert broken["reply"].startswith('{"question"') and broken["question"] is None
    assert "broken JSON" in broken["flags"][0]["reason"]
    # one request per candidate, each with the structured-output schema
    assert len(requests) == 20
    assert all(r["response_format"]["type"] == "json_schema" for r in requests)
    assert {seed_of(r)["question"] for r in requests} == {fam[s][0].question for s in SEEDS}
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "complete" and run["runs"] == 10
    assert run["expansion"] == {"candidates": 10, "prompt_version": "expand-1",
                                "structured": "json_schema"}
    assert run["dataset"]["seeds"] == 2 and run["dataset"]["source"] == "sample"
    seeds = read_jsonl(out / "seeds.jsonl")
    assert [s["id"] for s in seeds] == list(SEEDS)


def test_rerun_asks_nothing_and_rebuilds_the_same(expanded, capsys):
    server, out, tmp, _ = expanded
    before = (out / "candidates.jsonl").read_text()
    server.reset()
    assert main(expand_args(server, out, ids_file(tmp))) == 0
    assert server.requests == []
    assert "written 0, already done 20" in capsys.readouterr().out
    assert (out / "candidates.jsonl").read_text() == before
    # a run on fewer seeds keeps the other seed's candidates
    assert main(expand_args(server, out, ids_file(tmp, ["g365s-001"]))) == 0
    assert server.requests == []
    assert (out / "candidates.jsonl").read_text() == before


def test_a_server_that_refuses_structured_output(tmp_path, capsys):
    with FaultServer(script=expansion_script(refuse_structured=True)) as server:
        out = tmp_path / "exp"
        ids = ids_file(tmp_path, ["g365s-001"])
        assert main(expand_args(server, out, ids, candidates=3)) == 0
        captured = capsys.readouterr()
        assert "refused structured output" in captured.err
        assert "structured output: off" in captured.out
        assert len(server.requests) == 6   # 3 refused with 400, 3 answered
        assert [r["candidate"] for r in read_jsonl(out / "candidates.jsonl")] == [0, 1, 2]
        # the folder keeps its choice: a rerun asks nothing, json_schema is refused
        server.reset()
        assert main(expand_args(server, out, ids, candidates=3)) == 0
        assert server.requests == []
        assert main(expand_args(server, out, ids, "--structured", "json_schema",
                                candidates=3)) == 2
        assert "was expanded with structured output off" in capsys.readouterr().err
        # more candidates later: asked without response_format, as the folder was
        assert main(expand_args(server, out, ids, candidates=4)) == 0
        assert len(server.requests) == 1 and "response_format" not in server.requests[0]


def test_structured_off_sends_no_response_format(tmp_path):
    with FaultServer(script=expansion_script()) as server:
        out = tmp_path / "exp"
        assert main(expand_args(server, out, ids_file(tmp_path, ["g365s-003"]),
                                "--structured", "off", candidates=2)) == 0
        assert all("response_format" not in r for r in server.requests)
        assert json.loads((out / "run.json").read_text())["expansion"]["structured"] == "off"


def solver_script(families):
    """Expansion requests as scripted; solver requests (a candidate's question) answered
    right for candidate 0's question, wrong for candidate 1's, right otherwise."""
    expansion = expansion_script(families)
    golds = {}
    for fam in families.values():
        for k, kind in enumerate(KINDS):
            try:
                d = json.loads(reply_text(kind, fam).split("```json\n")[-1].rstrip("`\n"))
            except ValueError:
                continue
            golds[d["question"]] = (k, d.get("answer"))

    def script(request, n):
        text = request["messages"][-1]["content"]
        if "The seed problem:\n" in text:
            return expansion(request, n)
        k, gold = golds[text]
        answer = "999999" if k == 1 else gold
        return Behaviour.reply(f"Thinking done. \\boxed{{{answer}}}")

    return script


def test_solver_check_counts_agreement_with_the_real_grader(tmp_path, capsys):
    families = sample_families()
    with FaultServer(script=solver_script(families)) as server:
        out = tmp_path / "exp"
        ids = ids_file(tmp_path, ["g365s-001"])
        args = expand_args(server, out, ids, "--solver-model", server.model,
                           "--solver-k", "3", "--solver-max-tokens", "50")
        assert main(args) == 0
        summary = capsys.readouterr().out
        rows = {r["candidate"]: r for r in read_jsonl(out / "candidates.jsonl")}
        assert rows[0]["solver"]["correct"] == 3 and rows[0]["solver"]["agreement"] == 1.0
        assert rows[1]["solver"]["graded"] == 3 and rows[1]["solver"]["agreement"] == 0.0
        # blocking flags: never asked; a text gold without a judge: not graded
        for k in (3, 5, 7):
            assert rows[k]["solver"] is None
        assert rows[8]["solver"]["graded"] == 0 and rows[8]["solver"]["agreement"] is None
        assert rows[8]["solver"]["ungraded_reason"]
        graded = read_jsonl(out / "solver" / "graded.jsonl")
        assert len(graded) == 3 * 7 and {g["model"] for g in graded} == {server.model}
        assert "0/k (check the gold, or very hard) 1" in summary
        assert "not asked (blocking flags) 3" in summary
        # a later expand without the solver keeps the agreement
        server.reset()
        assert main(expand_args(server, out, ids)) == 0
        assert server.requests == []
        again = {r["candidate"]: r for r in read_jsonl(out / "candidates.jsonl")}
        assert again[1]["solver"] == rows[1]["solver"]


def test_kill_minus_nine_then_resume(tmp_path, capsys):
    with FaultServer(script=expansion_script(delay=0.15)) as server:
        out = tmp_path / "exp"
        ids = ids_file(tmp_path)
        exe = Path(sys.executable).with_name("general365")
        head = [str(exe)] if exe.exists() else [sys.executable, "-m", "general365.cli"]
        cmd = [*head, *expand_args(server, out, ids, "--concurrency", "2")]
        env = {**os.environ, "OPENAI_API_KEY": "test-key"}
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        responses = out / "responses.jsonl"
        deadline = time.monotonic() + 120
        while not (responses.exists() and responses.read_bytes().count(b"\n") >= 6):
            assert proc.poll() is None, "expand ended before it could be killed"
            assert time.monotonic() < deadline, "expand wrote nothing in time"
            time.sleep(0.05)
        # a second expand on the same folder is refused while the first runs
        assert main(expand_args(server, out, ids)) == 2
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert "another process is writing to this run folder" in capsys.readouterr().err
        kept = list(iter_records(str(responses)))
        assert 6 <= len(kept) < 20
        assert not (out / "candidates.jsonl").exists()   # killed before the checks
        server.reset()
        assert main(expand_args(server, out, ids)) == 0
        assert len(server.requests) == 20 - len(kept)
    records = list(iter_records(str(responses)))
    keys = [(r["id"], r["run"]) for r in records]
    assert sorted(keys) == sorted((s, k) for s in SEEDS for k in range(10))
    rows = read_jsonl(out / "candidates.jsonl")
    assert len(rows) == 20
    for r in rows:
        assert {f["flag"] for f in r["flags"]} == EXPECTED_FLAGS[KINDS[r["candidate"]]]
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "complete" and len(run["sessions"]) == 2


@pytest.mark.parametrize("extra, message", [
    (["--candidates", "0"], "--candidates must be an integer >= 1"),
    (["--structured", "json_schema", "--backend", "vllm"], "--structured json_schema is for "
                                                           "--backend openai"),
    (["--near-duplicate", "1.5"], "--near-duplicate must be a cosine in (0, 1]"),
    (["--solver-model", "m", "--solver-k", "0"], "--solver-k must be an integer >= 1"),
    (["--solver-model", "m", "--solver-backend", "vllm", "--solver-base-url", "http://x/v1"],
     "--solver-base-url is for --solver-backend openai"),
    (["--temperature", "-1"], "--temperature must be >= 0"),
    (["--judge-model", "j"], "--judge-model grades the solver check's text answers: give "
                             "--solver-model too"),
    # a solver option without the solver model would be silently ignored
    (["--solver-k", "2"], "--solver-k is for the solver check: give --solver-model too"),
    (["--solver-backend", "openai"], "--solver-backend is for the solver check"),
    (["--solver-base-url", "http://x/v1"], "--solver-base-url is for the solver check"),
    (["--solver-max-tokens", "9"], "--solver-max-tokens is for the solver check"),
    (["--solver-preset", "chat"], "--solver-preset is for the solver check"),
])
def test_bad_options_exit_2_before_any_request(fault_server, tmp_path, capsys, extra, message):
    fault_server.set_script(expansion_script())
    args = expand_args(fault_server, tmp_path / "exp", ids_file(tmp_path), candidates=2)
    assert main(args + extra) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err, err
    assert fault_server.requests == [] and not (tmp_path / "exp").exists()


def test_bad_inputs_exit_2_with_one_line(fault_server, tmp_path, capsys):
    fault_server.set_script(expansion_script())
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"id": "s1", "question": "Q? Put your final answer in "
                                "\\boxed{}.", "answer": "3", "answer_type": "number"}) + "\n")
    cases = [
        (["expand", str(bare)], "seed 's1' has no reasoning"),
        (["expand", str(tmp_path / "missing.jsonl")], "missing.jsonl"),
    ]
    base = ["--model", fault_server.model, "--backend", "openai", "--base-url",
            fault_server.base_url, "--candidates", "2", "--no-progress"]
    for head, message in cases:
        assert main(head + base + ["--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err, err
    unknown = ids_file(tmp_path, ["g365s-001", "nope"])
    assert main(["expand", "sample", *base, "--ids", unknown, "--out", str(tmp_path / "o")]) == 2
    assert "--ids" in capsys.readouterr().err
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["expand", "sample", *base, "--limit", "1", "--out", str(afile)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err
    assert fault_server.requests == [] and not (tmp_path / "o").exists()
    for action in (["expand", "review", str(tmp_path / "nowhere")],
                   ["expand", "select", str(tmp_path / "nowhere"), "--decisions", str(bare),
                    "--out", str(tmp_path / "v.jsonl")]):
        assert main(action) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "no such folder" in err, err
