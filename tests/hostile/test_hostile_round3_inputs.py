"""Hostile inputs of issue 19 (round 3), items 2 to 7: one test per attack, named after
what it attacks. Each failed on the code before its fix (a traceback, a hang, a crash that
every rerun repeats, or a value passed on unflagged).

- CFE: numbers beyond a float (1e309 and up) and exponents of a billion;
- CFE: a response whose reading is slow runs under `--timeout`, like a formula;
- analyze: a similarity judge replying `²` or `①`;
- `cfe lengths`: a segmenting reply nested 100,000 deep;
- expand: hostile generator replies (NaN, Infinity, 5,000 digits, a lone surrogate);
- the embedding cache: foreign and damaged files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv: str, timeout: float = 600) -> tuple[int, str, str]:
    """`general365 ARGV` in a fresh interpreter: (exit code, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "general365", *argv], capture_output=True,
                       text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def no_traceback(err: str) -> None:
    assert "Traceback" not in err, err[-3000:]


# --- CFE: numbers (items 2 and 3) ---------------------------------------------------------


def cfe_row(response: str, gold: str = "6.25 kbp", vtype: str = "numeric") -> dict:
    return {"id": "q1", "run": 0, "model": "m", "response": response, "benchmark": "cfe",
            "question": "How long is the genome?", "modality": "text",
            "variables": [{"name": "name", "type": vtype, "description": "a length",
                           "value": gold}]}


def grade_cfe(tmp_path: Path, response: str, *flags: str, **row) -> dict:
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps(cfe_row(response, **row)) + "\n", encoding="utf-8")
    out = tmp_path / "g.jsonl"
    code, _, err = cli("grade", str(responses), "--out", str(out), "--policy", "rule",
                       "--no-progress", *flags)
    no_traceback(err)
    assert code == 0, err
    (graded,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return graded


@pytest.mark.parametrize("answer", [r"2\times10^{400}", "1e400 kbp", "-3e308 kbp"])
def test_cfe_number_beyond_a_float_is_incorrect_with_a_reason(tmp_path, answer):
    graded = grade_cfe(tmp_path, f"name = {answer}")
    (part,) = graded["parts"]
    assert part["status"] == "incorrect" and "out of range" in part["detail"], part


def test_cfe_integer_gold_against_a_number_beyond_a_float(tmp_path):
    graded = grade_cfe(tmp_path, "name = 1e400", gold="5")
    (part,) = graded["parts"]
    assert part["status"] == "incorrect" and "1e400" in part["detail"], part


def test_cfe_exponent_of_a_billion_ends_within_the_timeout(tmp_path):
    # It ran 8 minutes at 100% CPU computing 10**999999999; now the exponent is bounded
    # before anything is computed (and the reading runs under --timeout besides).
    graded = grade_cfe(tmp_path, "name = 1e999999999 kbp", "--timeout", "10")
    (part,) = graded["parts"]
    assert part["status"] == "incorrect" and "out of range" in part["detail"], part
    graded = grade_cfe(tmp_path, "name = 10^{-999999999}", "--timeout", "10", gold="0.5")
    assert graded["parts"][0]["status"] == "incorrect"


def test_cfe_unit_power_of_a_billion_is_not_a_unit(tmp_path):
    graded = grade_cfe(tmp_path, "name = 3 m^{999999999}", "--timeout", "10", gold="3 m^2")
    (part,) = graded["parts"]
    assert part["status"] == "ungraded" and "cannot convert" in part["detail"], part


def test_cfe_units_answer_beyond_a_float(fault_server, tmp_path, capsys, cfe_dir):
    # `cfe units` grades each unit's answer with the same reader: it crashed the same way,
    # and the stored reply crashed every rerun.
    from general365.cli import main
    from support.servers import Behaviour

    fault_server.set_script(lambda req, n: Behaviour.reply("answer = 1e400"))
    argv = ["cfe", "units", "--dataset", str(cfe_dir), "--config", "text", "--limit", "1",
            "--model", fault_server.model, "--base-url", fault_server.base_url,
            "--out", str(tmp_path / "u")]
    for _ in range(2):   # the run, then a rerun that grades the stored replies
        code = main(argv)
        captured = capsys.readouterr()
        no_traceback(captured.err)
        assert code == 0, captured.err
        overall = next(line for line in captured.out.splitlines() if "| text | all |" in line)
        assert overall.split("|")[4].strip() == "0", overall    # none right

def test_cfe_reading_a_response_runs_under_the_timeout(tmp_path):
    # Thousands of unclosed boxes: the box reader takes quadratic time (minutes here).
    # The reading runs in the rule pool's workers, so the limit ends it: status timeout.
    graded = grade_cfe(tmp_path, "\\boxed{" * 12000, "--timeout", "1")
    (part,) = graded["parts"]
    assert part["status"] == "timeout" and "limit" in part["detail"], part
    assert graded["status"] == "timeout"


# --- analyze: the similarity judge (item 4) ----------------------------------------------


def similarity_set(path: Path) -> str:
    rows = [{"id": f"q{k}", "question": f"The orchard apple ladder puzzle, version {k}: how "
             "many are left?", "reasoning": "Count the apples, then remove the ladders.",
             "answer": str(3 + k)} for k in range(2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("reply", ["²", "①"])
def test_similarity_judge_reply_of_a_digit_int_refuses(fault_server, tmp_path, capsys, reply):
    # isdigit() took the character and int() refused it: a ValueError ended the run. The
    # promise: refused, asked again, then the pair is left unscored (exit 1, one line).
    from general365.cli import main
    from support.servers import Behaviour

    fault_server.set_script(lambda req, n: Behaviour.reply(reply))
    out = tmp_path / "out"
    code = main(["analyze", similarity_set(tmp_path / "s.jsonl"), "--out", str(out),
                 "--judge-model", "sim", "--judge-base-url", fault_server.base_url,
                 "--judge-cache", str(tmp_path / "j.sqlite"), "--embedder", "tfidf",
                 "--tsne", "off", "--no-progress", "--no-embed-cache"])
    err = capsys.readouterr().err
    no_traceback(err)
    # (two items, each the other's nearest neighbour: one pair asked, counted per item)
    assert code == 1 and "2 pair(s) could not be scored" in err, err
    assert len(err.strip().splitlines()) == 1
    assert len(fault_server.requests) == 3     # refused, asked again, then left unscored
    d = json.loads((out / "analysis.json").read_text())["similarity"]["datasets"]["s"]
    assert d["failed"] == 2 and d["scored"] == 0


# --- cfe lengths: the segmenting reply (item 5) ------------------------------------------


def test_cfe_lengths_segmenting_reply_nested_100000_deep(fault_server, tmp_path, capsys,
                                                          cfe_dir):
    # json raised RecursionError (only ValueError was caught), and the reply is stored, so
    # every rerun crashed again. Now such a reply counts no steps: segment_failed.
    from general365.cli import main
    from general365.tasks.cfe.data import load
    from support.servers import Behaviour

    problems = load(cfe_dir, subset="text").problems[:1]
    rows = [{"id": p.id, "run": 0, "response": "step\nstep\n", **p.inline_fields()}
            for p in problems]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    graded = tmp_path / "g.jsonl"
    assert main(["grade", str(responses), "--out", str(graded), "--no-progress"]) == 0
    fault_server.set_script(lambda req, n: Behaviour.reply("[" * 100000 + "]" * 100000))
    lengths = ["cfe", "lengths", "--dataset", str(cfe_dir), "--config", "text",
               "--graded", str(graded), "--segment-model", fault_server.model,
               "--base-url", fault_server.base_url, "--out", str(tmp_path / "seg")]
    capsys.readouterr()
    for _ in range(2):   # the run, then a rerun that reads the stored reply
        code = main(lengths)
        captured = capsys.readouterr()
        no_traceback(captured.err)
        assert code == 0, captured.err
        assert 'repl(ies) were not {"steps": N}; left out' in captured.err, captured.err
        assert "| text | Overall | 1 | 6.00 | 0.00 | 0 |" in captured.out, captured.out


# The same class (item 5): a server's whole body nested 100,000 deep, decoded by the SDK.
DEEP_BODY = b"[" * 100000 + b"]" * 100000


def test_generation_server_body_nested_100000_deep_is_retried(fault_server):
    from general365.runners.base import GenerationRequest, preset
    from general365.runners.openai_api import OpenAIRunner, RetryPolicy
    from support.servers import Behaviour

    calls = []

    def script(req, n):
        calls.append(n)
        return Behaviour.malformed(DEEP_BODY) if len(calls) == 1 else Behaviour.reply("ok")

    fault_server.set_script(script)
    runner = OpenAIRunner(fault_server.model, base_url=fault_server.base_url, jitter_seed=0,
                          retry=RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05))
    request = GenerationRequest("p1", 0, ({"role": "user", "content": "Say hi."},),
                                preset("reasoning", max_tokens=16, seed=11))
    [g] = runner.generate([request])
    assert g.error is None and g.response == "ok" and len(fault_server.requests) == 2


def test_judge_server_body_nested_100000_deep_is_judge_failed(fault_server, tmp_path):
    from general365.grading.judge import Judge, JudgeItem
    from general365.schema import Status
    from support.servers import Behaviour

    fault_server.set_script(lambda req, n: Behaviour.malformed(DEEP_BODY))
    judge = Judge("j", base_url=fault_server.base_url, cache=tmp_path / "j.sqlite",
                  backoff_base=0.01, timeout=5.0, max_reasks=1)
    [r] = judge.judge_batch([JudgeItem("Capital of France?", "Paris", "It is Paris.")])
    assert r.status is Status.JUDGE_FAILED and "unreadable response body" in r.detail



@pytest.mark.parametrize("status", [200, 400])
def test_embedding_server_body_nested_100000_deep(embed_fault_server, tmp_path, capsys,
                                                  status):
    # analyze's embedder decodes the body itself (httpx): a reply, or an error's message.
    from support.embed_servers import Reply

    embed_fault_server.script = lambda body, n: Reply(status=status, body=DEEP_BODY)
    code = analyze_with_cache(embed_fault_server, tmp_path, tmp_path / "e.sqlite")
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 2 and len(err.strip().splitlines()) == 1, err


# --- expand: hostile generator replies (item 6) ------------------------------------------

# Candidate k of the seed gets HOSTILE_REPLIES[k]: the JSON text a generator wrote.
HOSTILE_REPLIES = {
    "float_round NaN": '"float_round": NaN',
    "answer Infinity": '"answer": Infinity',
    "answer 1e999": '"answer": 1e999',
    "answer of 5,000 digits": '"answer": ' + "7" * 5000,
    "answer text of 5,000 digits": '"answer": "1.' + "9" * 5000 + '"',
    "lone surrogate in the reasoning": '"reasoning": "count \\ud800 them"',
    "answer text inf": '"answer": "inf"',
    "nested 500 deep": '"change": ' + "[" * 500 + "]" * 500,
}


def hostile_reply(name: str, seed) -> str:
    fields = {"question": seed.question + " (a variant)", "reasoning": "count them",
              "answer": seed.answer, "answer_type": seed.answer_type.value,
              "float_round": seed.float_round, "change": "a new story"}
    raw = HOSTILE_REPLIES[name]
    key = raw.split(":", 1)[0].strip('"')
    rest = {n: v for n, v in fields.items() if n != key}
    return json.dumps(rest)[:-1] + ", " + raw + "}"


@pytest.mark.parametrize("attack", list(HOSTILE_REPLIES))
def test_expand_hostile_generator_reply_is_flagged_never_a_crash(tmp_path, capsys, attack):
    # NaN was written to candidates.jsonl (then review and select refused the folder); 5,000
    # digits and a lone surrogate gave a traceback, no candidates.jsonl, and every rerun
    # crashed on the stored reply; Infinity and 1e999 became an unflagged gold "inf".
    from general365 import load_problems
    from general365.cli import main
    from general365.expand.checks import BLOCKING
    from support.servers import Behaviour, FaultServer

    seed = next(p for p in load_problems(source="sample") if p.id == "g365s-001")
    ids = tmp_path / "ids.txt"
    ids.write_text("g365s-001\n")
    out = tmp_path / "exp"
    with FaultServer(script=lambda req, n: Behaviour.reply(hostile_reply(attack, seed))) \
            as server:
        argv = ["expand", "sample", "--model", server.model, "--backend", "openai",
                "--base-url", server.base_url, "--out", str(out), "--candidates", "1",
                "--ids", str(ids), "--max-tokens", "400", "--no-progress",
                "--structured", "off"]
        for _ in range(2):   # the run, then a rerun from the stored reply
            code = main(argv)
            err = capsys.readouterr().err
            no_traceback(err)
            assert code == 0, err
    (row,) = [json.loads(line) for line in (out / "candidates.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert {f["flag"] for f in row["flags"]} & set(BLOCKING), row["flags"]
    # the folder is readable by its own review and select
    assert main(["expand", "review", str(out)]) == 0
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text(json.dumps({"seed_id": "g365s-001", "candidate": 0,
                                     "decision": "reject"}) + "\n")
    code = main(["expand", "select", str(out), "--decisions", str(decisions),
                 "--out", str(tmp_path / "variants.jsonl")])
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 0, err



def test_expand_gold_that_stalls_the_parser_is_flagged_within_the_limit(tmp_path, capsys,
                                                                        monkeypatch):
    # Found by the hostile pass on item 6: a gold of nested parentheses took math-verify a
    # minute (300 deep) and longer the deeper, in the expand process, on every rerun. The
    # golds are read in the rule pool now, under a limit (30 s; 2 s here).
    from general365 import load_problems
    from general365.cli import main
    from general365.expand import checks
    from support.servers import Behaviour, FaultServer

    monkeypatch.setattr(checks, "GOLD_TIMEOUT", 2.0)
    seed = next(p for p in load_problems(source="sample") if p.id == "g365s-001")
    gold = "(" * 300 + "1" + ")" * 300   # short enough to reach math-verify (50 s at 300 deep)
    reply = json.dumps({"question": seed.question + " (a variant)", "reasoning": "count",
                        "answer": gold, "answer_type": "number", "float_round": 0,
                        "change": "a new story"})
    ids = tmp_path / "ids.txt"
    ids.write_text("g365s-001\n")
    out = tmp_path / "exp"
    with FaultServer(script=lambda req, n: Behaviour.reply(reply)) as server:
        code = main(["expand", "sample", "--model", server.model, "--backend", "openai",
                     "--base-url", server.base_url, "--out", str(out), "--candidates", "1",
                     "--ids", str(ids), "--max-tokens", "400", "--no-progress",
                     "--structured", "off"])
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 0, err
    (row,) = [json.loads(line) for line in (out / "candidates.jsonl").read_text().splitlines()]
    (flag,) = [f for f in row["flags"] if f["flag"] == "gold_unparseable"]
    assert "within 2 s" in flag["reason"], flag

# --- the embedding cache: foreign and damaged files (item 7) -----------------------------

from support.embed_servers import embed_fault_server  # noqa: E402,F401  (a fixture)


def analyze_with_cache(server, tmp_path: Path, cache: Path) -> int:
    from general365.cli import main

    code = main(["analyze", similarity_set(tmp_path / "s.jsonl"), "--out",
                 str(tmp_path / "out"), "--embedder", "emb", "--embedder-base-url",
                 server.base_url, "--embed-cache", str(cache), "--tsne", "off",
                 "--no-progress"])
    return code


def refused(capsys, code: int, cache: Path) -> str:
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"embedding cache {cache}" in lines[0], err
    return lines[0]


def test_embed_cache_foreign_sqlite_file_with_an_embeddings_table(embed_fault_server, tmp_path,
                                                                   capsys):
    import sqlite3

    cache = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE embeddings (id INTEGER PRIMARY KEY, label TEXT)")
    db.execute("INSERT INTO embeddings VALUES (1, 'theirs')")
    db.commit()
    db.close()
    code = analyze_with_cache(embed_fault_server, tmp_path, cache)
    assert "not an embedding cache's" in refused(capsys, code, cache)
    db = sqlite3.connect(cache)
    assert db.execute("SELECT * FROM embeddings").fetchall() == [(1, "theirs")]   # untouched


@pytest.mark.parametrize("marked", [False, True], ids=["verdicts-table-only", "judge-cache"])
def test_embed_cache_judge_cache_file_gets_no_embeddings_table(embed_fault_server, tmp_path,
                                                               capsys, marked):
    import sqlite3

    from general365.grading.judge_cache import JudgeCache

    cache = tmp_path / "judge.sqlite"
    if marked:
        JudgeCache(cache).close()
    else:   # a judge cache from before the file was marked: its verdicts table alone
        db = sqlite3.connect(cache)
        db.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, model TEXT NOT NULL)")
        db.commit()
        db.close()
    before = sorted(r[0] for r in sqlite3.connect(cache).execute(
        "SELECT name FROM sqlite_master WHERE type='table'"))
    code = analyze_with_cache(embed_fault_server, tmp_path, cache)
    refused(capsys, code, cache)
    after = sorted(r[0] for r in sqlite3.connect(cache).execute(
        "SELECT name FROM sqlite_master WHERE type='table'"))
    assert after == before and "embeddings" not in after


@pytest.mark.parametrize("damage", ["vector is text", "vector of 3 bytes", "vector of NaN"])
def test_embed_cache_damaged_vector_rows_are_misses(embed_fault_server, tmp_path, capsys,
                                                    damage):
    # np.frombuffer raised TypeError or ValueError; NaN vectors went on into analysis.json.
    import sqlite3

    cache = tmp_path / "e.sqlite"
    code = analyze_with_cache(embed_fault_server, tmp_path, cache)
    assert code == 0, capsys.readouterr().err
    asked = len(embed_fault_server.requests)
    db = sqlite3.connect(cache)
    (dim,) = db.execute("SELECT dim FROM embeddings").fetchone()
    if damage == "vector is text":
        db.execute("UPDATE embeddings SET vector = 'garbage'")
    elif damage == "vector of 3 bytes":
        db.execute("UPDATE embeddings SET vector = x'010203'")
    else:
        db.execute("UPDATE embeddings SET vector = ?", (b"\x00\x00\xc0\x7f" * dim,))
    db.commit()
    db.close()
    capsys.readouterr()
    code = analyze_with_cache(embed_fault_server, tmp_path, cache)
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 0, err
    assert len(embed_fault_server.requests) > asked      # embedded again, not read as garbage


def test_judge_cache_damaged_rows_are_misses(fault_server, tmp_path, capsys):
    # The embedding cache's case in the judge cache: a row whose votes are not JSON gave
    # a ValueError traceback on every rerun. Now it is asked again and replaced.
    import sqlite3

    from general365.cli import main
    from support.servers import Behaviour

    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}'))
    src = tmp_path / "r.jsonl"
    src.write_text(json.dumps({"id": "t", "run": 0, "response": "Paris", "answer": "Paris",
                               "answer_type": "text", "question": "Capital?"}) + "\n")
    cache = tmp_path / "judge.sqlite"
    argv = ["grade", str(src), "--policy", "paper", "--judge-model", "j", "--judge-base-url",
            fault_server.base_url, "--judge-cache", str(cache), "--no-progress", "--out"]
    assert main(argv + [str(tmp_path / "g1.jsonl")]) == 0
    db = sqlite3.connect(cache)
    db.execute("UPDATE verdicts SET votes = 'not json'")
    db.commit()
    db.close()
    capsys.readouterr()
    code = main(argv + [str(tmp_path / "g2.jsonl")])
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 0, err
    assert len(fault_server.requests) == 2                     # asked again
    assert json.loads((tmp_path / "g2.jsonl").read_text())["status"] == "correct"
    assert main(argv + [str(tmp_path / "g3.jsonl")]) == 0
    assert len(fault_server.requests) == 2                     # the row was replaced


def test_embedding_server_retry_after_nan(embed_fault_server, tmp_path, capsys):
    # Found by the hostile pass: a Retry-After of "nan" went on to time.sleep(nan), a
    # ValueError traceback. A wait that is not a number is no wait asked for.
    from support.embed_servers import Reply

    embed_fault_server.script = lambda body, n: Reply(status=429, retry_after="nan") \
        if n == 0 else Reply()
    code = analyze_with_cache(embed_fault_server, tmp_path, tmp_path / "e.sqlite")
    err = capsys.readouterr().err
    no_traceback(err)
    assert code == 0, err
    assert len(embed_fault_server.requests) >= 2
