"""`general365 grade`: wiring, output, summary, and one clear error with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from general365.cli import main

ROOT = Path(__file__).resolve().parents[2]

INLINE = [
    {"id": "a", "run": 0, "response": r"<think>\boxed{7}</think> so \boxed{12}", "answer": "12",
     "answer_type": "number", "float_round": "0", "model": "m"},
    {"id": "b", "run": 0, "response": "Final answer: 3,600 seconds", "answer": "3600",
     "answer_type": "number", "categories": ["Spatial & Temporal"]},
    {"id": "c", "run": 2, "response": r"\boxed{B}", "answer": "BD", "answer_type": "multiple_choice"},
    {"id": "d", "run": 0, "response": "Paris", "answer": "Paris", "answer_type": "text"},
    {"id": "e", "run": 0, "response": r"<think>\boxed{[1,2)}", "answer": "[1,2)", "answer_type": "interval"},
]


def write_jsonl(path: Path, rows, extra_lines=()):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        for line in extra_lines:
            f.write(line + "\n")
    return path


def read_jsonl(path: Path):
    return [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines()]


def test_rule_policy_with_inline_gold(tmp_path, capsys):
    src = write_jsonl(tmp_path / "responses.jsonl", INLINE)
    out = tmp_path / "sub" / "graded.jsonl"
    rc = main(["grade", str(src), "--policy", "rule", "--out", str(out), "--workers", "1"])
    assert rc == 0
    rows = read_jsonl(out)
    assert [(r["id"], r["run"]) for r in rows] == [(r["id"], r["run"]) for r in INLINE]
    assert [r["status"] for r in rows] == ["correct", "correct", "incorrect", "ungraded", "no_answer"]
    assert rows[0]["method"] == "rule" and rows[0]["extracted"] == "12" and rows[0]["correct"] is True
    assert rows[0]["model"] == "m" and rows[0]["response"] == INLINE[0]["response"]
    assert rows[2]["method"] == "choice"
    assert rows[4]["detail"] and rows[4]["correct"] is False
    printed = capsys.readouterr().out
    assert "accuracy 50.0%" in printed and "coverage 80.0%" in printed
    assert [p.name for p in out.parent.iterdir()] == ["graded.jsonl"]  # no temp file left


def test_the_graded_file_is_the_same_however_the_responses_were_spelled(tmp_path, capsys):
    # However a responses line spells its strings and layout, the graded file is the same
    # bytes: each row written the one way general365 writes JSON Lines (jsonl.line).
    rows = [{"id": "q/1", "run": 0, "response": '<think>“x” \\frac{1}{2}\n\t"é"</think> '
             'so \\boxed{12}. Done 😀', "model": "m/1", "reasoning": "a \\ b\n中",
             "answer": "12", "answer_type": "number", "note": "x/y"},
            {"id": "q2", "run": 1, "response": "ctrl \x01 \\boxed{3}", "answer": "3",
             "answer_type": "number"}]
    spellings = {
        "own": [json.dumps(r, ensure_ascii=False) for r in rows],
        "ascii": [json.dumps(r) for r in rows],
        "slashes": [json.dumps(r, ensure_ascii=False).replace("/", "\\/") for r in rows],
        "compact": [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in rows],
    }
    graded = {}
    for name, lines in spellings.items():
        src = tmp_path / f"{name}.jsonl"
        src.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out = tmp_path / f"graded-{name}.jsonl"
        assert main(["grade", str(src), "--out", str(out), "--policy", "rule",
                     "--no-progress"]) == 0
        graded[name] = out.read_bytes()
    capsys.readouterr()
    assert len(set(graded.values())) == 1
    lines = graded["own"].decode("utf-8").splitlines()
    assert [json.loads(ln)["status"] for ln in lines] == ["correct", "correct"]
    from general365.jsonl import line

    for ln in lines:
        assert ln.encode("utf-8") + b"\n" == line(json.loads(ln))


def test_dataset_sample(tmp_path, capsys):
    from general365.data.load import load_problems

    problems = load_problems(source="sample")[:6]
    rows = [{"id": p.id, "run": 0, "response": f"\\boxed{{{p.answer}}}"} for p in problems]
    rows.append({"id": problems[0].id, "run": 1, "response": r"\boxed{-1}"})
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    out = tmp_path / "g.jsonl"
    assert main(["grade", str(src), "--dataset", "sample", "--policy", "rule", "--out", str(out)]) == 0
    graded = read_jsonl(out)
    assert [g["status"] for g in graded] == ["correct"] * 6 + ["incorrect"]
    assert graded[0]["answer"] == problems[0].answer and graded[0]["seed_id"] == problems[0].seed_id


@pytest.mark.parametrize("bad_line,needle", [
    ("{not json", "r.jsonl:3: not valid JSON"),
    ('{"id": "z", "run": 0}', "r.jsonl:3, id 'z', field 'response'"),
    ('{"id": "z", "run": -1, "response": "x", "answer": "1", "answer_type": "number"}', "field 'run'"),
    ('{"id": "z", "run": 0, "response": "x", "answer": "1", "answer_type": "numeric"}', "field 'answer_type'"),
    ('{"id": "z", "run": 0, "response": "x"}', "r.jsonl:3, id 'z', field 'answer'"),
    ('{"id": "z", "run": 0, "response": "x", "answer": "[2,5", "answer_type": "interval"}',
     "r.jsonl:3, id 'z', field 'answer'"),
    # Not JSON, though Python's json reads them: the graded row would carry them on, and
    # be a line jq or JavaScript refuses.
    ('{"id": "z", "run": 0, "response": "x", "answer": "1", "answer_type": "number", '
     '"score": NaN}', "r.jsonl:3, field 'score': NaN or an infinite number"),
    ('{"id": "z", "run": 0, "response": "x", "answer": "1", "answer_type": "number", '
     '"usage": {"t": 1e999}}', "r.jsonl:3, field 'usage': NaN or an infinite number"),
])
def test_bad_line_is_one_error_and_nothing_is_written(tmp_path, capsys, bad_line, needle):
    src = write_jsonl(tmp_path / "r.jsonl", INLINE[:2], [bad_line] + [json.dumps(INLINE[2])])
    out = tmp_path / "g.jsonl"
    out.write_text("previous\n")
    rc = main(["grade", str(src), "--policy", "rule", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert needle in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl", "r.jsonl"]


def test_the_rule_policy_reads_the_file_once_and_a_late_bad_line_still_leaves_nothing(
        tmp_path, capsys, monkeypatch):
    # No judge, nothing paid for: each line is checked and graded from one read (no second
    # pass), and a bad line found after grading began still writes nothing, not even the
    # folders --out named.
    import general365.grading.files as files

    reads = []

    def counted(path, **kw):
        reads.append(path)
        return real(path, **kw)

    real = files.iter_jsonl
    monkeypatch.setattr(files, "iter_jsonl", counted)
    rows = [{"id": f"r{i}", "run": 0, "response": f"<think>x</think> \\boxed{{{i}}}",
             "answer": str(i), "answer_type": "number"} for i in range(2500)]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    out = tmp_path / "new" / "deeper" / "g.jsonl"
    assert main(["grade", str(src), "--policy", "rule", "--out", str(out)]) == 0
    assert [r["status"] for r in read_jsonl(out)] == ["correct"] * 2500
    assert "graded 2500 responses" in capsys.readouterr().out
    assert reads == [str(src)], "the rule policy read the file a second time"

    bad = write_jsonl(tmp_path / "bad.jsonl", rows, ['{"id": "late", "run": 0}'])
    out = tmp_path / "other" / "g.jsonl"
    assert main(["grade", str(bad), "--policy", "rule", "--out", str(out),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"general365 grade: error: {bad}:2501, id 'late', field 'response': missing field"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "new", "r.jsonl"]


def test_unknown_id_with_a_dataset(tmp_path, capsys):
    src = write_jsonl(tmp_path / "r.jsonl", [{"id": "no-such-problem", "run": 0, "response": "1"}])
    rc = main(["grade", str(src), "--dataset", "sample", "--policy", "rule", "--out", str(tmp_path / "g.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and "no-such-problem" in err and "r.jsonl:1" in err
    assert not (tmp_path / "g.jsonl").exists()


@pytest.mark.parametrize("policy", ["paper", "cascade"])
def test_judge_policy_without_judge_flags(tmp_path, capsys, policy):
    src = write_jsonl(tmp_path / "r.jsonl", INLINE)
    rc = main(["grade", str(src), "--policy", policy, "--out", str(tmp_path / "g.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and "--judge-model" in err and "--policy rule" in err


def test_missing_and_empty_files(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nope.jsonl"), "--policy", "rule", "--out", str(tmp_path / "g")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("\n")
    assert main(["grade", str(tmp_path / "empty.jsonl"), "--policy", "rule", "--out", str(tmp_path / "g")]) == 2
    assert "no responses" in capsys.readouterr().err


def test_bad_numeric_flags(tmp_path, capsys):
    src = write_jsonl(tmp_path / "r.jsonl", INLINE)
    assert main(["grade", str(src), "--policy", "rule", "--workers", "0", "--out", str(tmp_path / "g")]) == 2
    assert main(["grade", str(src), "--policy", "rule", "--timeout", "0", "--out", str(tmp_path / "g")]) == 2


def test_console_entry_point_with_progress_bar(tmp_path):
    rows = [{**row, "run": r} for r in range(3) for row in INLINE]   # three runs of each
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    out = tmp_path / "g.jsonl"
    exe = Path(sys.executable).with_name("general365")
    proc = subprocess.run([str(exe), "grade", str(src), "--policy", "rule", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "grading" in proc.stderr and "15/15" in proc.stderr   # tqdm, on stderr
    assert "accuracy" in proc.stdout
    assert len(read_jsonl(out)) == 15


def test_paper_policy_with_the_judge_flags(tmp_path, capsys, monkeypatch, fault_server):
    from support.servers import Behaviour

    def script(req, n):
        user = req["messages"][1]["content"]
        ok = "Prediction: Paris" in user
        return Behaviour.reply('{"accuracy": %s}' % ("true" if ok else "false"))

    fault_server.set_script(script)
    monkeypatch.setenv("G365_TEST_JUDGE_KEY", "not-a-real-key")
    rows = INLINE + [{"id": "f", "run": 0, "response": "<think>Lyon?</think>Rome",
                      "answer": "Paris", "answer_type": "text", "question": "Capital?"}]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    out = tmp_path / "g.jsonl"
    rc = main(["grade", str(src), "--policy", "paper", "--out", str(out),
               "--judge-model", "cli-judge", "--judge-base-url", fault_server.base_url,
               "--judge-api-key-env", "G365_TEST_JUDGE_KEY", "--judge-concurrency", "2",
               "--judge-cache", str(tmp_path / "judge.sqlite"), "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    graded = {r["id"]: r for r in read_jsonl(out)}
    assert graded["d"]["status"] == "correct" and graded["d"]["method"] == "judge"
    assert graded["d"]["judge"]["model"] == "cli-judge" and graded["d"]["judge"]["votes"] == [True]
    assert graded["f"]["status"] == "incorrect"
    assert graded["c"]["method"] == "judge"          # paper: choice answers are judged
    assert graded["a"]["method"] == "rule"
    assert graded["e"]["status"] == "no_answer" and "judge" not in graded["e"]
    sent = [r["messages"][1]["content"] for r in fault_server.requests]
    assert len(sent) == 3 and not any("Lyon" in s for s in sent)  # region only
    assert (tmp_path / "judge.sqlite").exists()
    assert "not-a-real-key" not in out.read_text()


def test_judge_cache_serves_a_rerun_and_no_judge_cache_asks_again(tmp_path, capsys,
                                                                  fault_server):
    from support.servers import Behaviour

    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}'))
    rows = [{"id": "t", "run": 0, "response": "Paris", "answer": "Paris",
             "answer_type": "text", "question": "Capital?"}]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    base = ["grade", str(src), "--policy", "paper", "--judge-model", "cache-judge",
            "--judge-base-url", fault_server.base_url, "--judge-timeout", "5",
            "--judge-cache", str(tmp_path / "judge.sqlite"), "--no-progress"]
    assert main(base + ["--out", str(tmp_path / "g1.jsonl")]) == 0
    assert main(base + ["--out", str(tmp_path / "g2.jsonl")]) == 0
    assert len(fault_server.requests) == 1          # the rerun came from the cache
    assert main(base + ["--out", str(tmp_path / "g3.jsonl"), "--no-judge-cache"]) == 0
    assert len(fault_server.requests) == 2          # asked again
    assert read_jsonl(tmp_path / "g3.jsonl")[0]["status"] == "correct"
    assert main(base + ["--out", str(tmp_path / "g4.jsonl"), "--judge-timeout", "0"]) == 2
    assert "--judge-timeout" in capsys.readouterr().err


def test_a_second_response_for_the_same_id_and_run_is_refused(tmp_path, capsys):
    rows = [{"id": "a", "run": 0, "response": r"\boxed{1}", "answer": "1", "answer_type": "number"},
            {"id": "a", "run": 1, "response": r"\boxed{1}", "answer": "1", "answer_type": "number"},
            {"id": "a", "run": 0, "response": r"\boxed{2}", "answer": "1", "answer_type": "number"}]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    out = tmp_path / "g.jsonl"
    assert main(["grade", str(src), "--policy", "rule", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert ":3" in err and "line 1" in err and "'run'" in err
    assert not out.exists()


def test_inline_gold_must_agree_with_the_dataset(tmp_path, capsys):
    import general365

    p = general365.load_problems(source="sample")[0]
    rows = [{"id": p.id, "run": 0, "response": r"\boxed{999}", "answer": "999",
             "answer_type": p.answer_type.value}]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    out = tmp_path / "g.jsonl"
    assert main(["grade", str(src), "--dataset", "sample", "--policy", "rule",
                 "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'answer'" in err and "999" in err and p.id in err
    assert not out.exists()


def test_half_an_inline_gold_names_the_missing_field(tmp_path, capsys):
    src = write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "run": 0, "response": "x", "answer": "1"}])
    assert main(["grade", str(src), "--policy", "rule", "--out", str(tmp_path / "g.jsonl"),
                 "--no-progress"]) == 2
    assert "'answer_type'" in capsys.readouterr().err


def test_bad_bytes_are_reported_on_their_own_line(tmp_path, capsys):
    good = json.dumps({"id": "a", "run": 0, "response": r"\boxed{1}", "answer": "1",
                       "answer_type": "number"})
    lines = [good.replace('"run": 0', f'"run": {i}') for i in range(500)]
    data = ("\n".join(lines) + "\n").encode() + b'{"id": "\xff\xfe"}\n'
    src = tmp_path / "r.jsonl"
    src.write_bytes(data)
    assert main(["grade", str(src), "--policy", "rule", "--out", str(tmp_path / "g.jsonl"),
                 "--no-progress"]) == 2
    assert f"{src}:501" in capsys.readouterr().err


@pytest.mark.parametrize("flags, needle", [
    (["--judge-base-url", "notaurl"], "--judge-base-url"),
    (["--judge-votes", "2"], "--judge-votes"),
    (["--judge-concurrency", "0"], "--judge-concurrency"),
])
def test_judge_options_are_checked_up_front(tmp_path, capsys, flags, needle):
    src = write_jsonl(tmp_path / "r.jsonl", INLINE)
    rc = main(["grade", str(src), "--policy", "paper", "--judge-model", "m",
               "--out", str(tmp_path / "g.jsonl"), "--no-progress", *flags])
    assert rc == 2 and needle in capsys.readouterr().err


def test_out_that_is_a_folder_is_refused(tmp_path, capsys):
    src = write_jsonl(tmp_path / "r.jsonl", INLINE)
    assert main(["grade", str(src), "--policy", "rule", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("spell", ["same", "dotted", "hard link"])
def test_out_that_is_the_responses_file_is_refused(tmp_path, capsys, monkeypatch, spell):
    # Graded rows written over the responses would lose them: refused before anything.
    src = write_jsonl(tmp_path / "r.jsonl", INLINE)
    before = src.read_bytes()
    monkeypatch.chdir(tmp_path)
    out = {"same": str(src), "dotted": "./sub/../r.jsonl", "hard link": "h.jsonl"}[spell]
    (tmp_path / "sub").mkdir()
    if spell == "hard link":
        os.link(src, tmp_path / "h.jsonl")
    assert main(["grade", str(src), "--policy", "rule", "--out", out]) == 2
    assert "--out" in capsys.readouterr().err and src.read_bytes() == before


def test_judge_failures_exit_1_and_a_rerun_retries_them(tmp_path, capsys, fault_server):
    from support.servers import Behaviour

    state = {"down": True}
    fault_server.set_script(lambda req, n: Behaviour.error(500) if state["down"]
                            else Behaviour.reply('{"accuracy": true}'))
    rows = [{"id": "t", "run": 0, "response": "Paris", "answer": "Paris",
             "answer_type": "text", "question": "Capital?"}]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    args = ["grade", str(src), "--policy", "paper", "--judge-model", "j",
            "--judge-base-url", fault_server.base_url, "--judge-cache",
            str(tmp_path / "c.sqlite"), "--out", str(tmp_path / "g.jsonl"), "--no-progress"]

    assert main(args) == 1
    assert "judge_failed" in capsys.readouterr().err
    assert read_jsonl(tmp_path / "g.jsonl")[0]["status"] == "judge_failed"
    state["down"] = False
    assert main(args) == 0
    assert read_jsonl(tmp_path / "g.jsonl")[0]["status"] == "correct"


def test_without_policy_or_judge_the_cli_grades_by_rule(tmp_path, capsys):
    src = write_jsonl(tmp_path / "r.jsonl", INLINE)
    out = tmp_path / "g.jsonl"
    assert main(["grade", str(src), "--out", str(out), "--no-progress"]) == 0
    assert "(policy rule)" in capsys.readouterr().out
    assert all(r["method"] != "judge" for r in read_jsonl(out))


def test_each_gold_is_parsed_once_per_command(tmp_path, monkeypatch):
    # The check pass and the grading pass share the parsed golds (a spy, not a stand-in:
    # the real parser still runs).
    import general365.grading.hybrid as hybrid

    calls = []
    real = hybrid.parse_gold

    def counting(answer, answer_type, float_round, question=None):
        calls.append(answer)
        return real(answer, answer_type, float_round, question)

    monkeypatch.setattr(hybrid, "parse_gold", counting)
    rows = [{"id": "a", "run": r, "response": r"\boxed{3}", "answer": "3",
             "answer_type": "number"} for r in range(4)]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    assert main(["grade", str(src), "--policy", "rule", "--out", str(tmp_path / "g.jsonl"),
                 "--no-progress"]) == 0
    assert calls == ["3"]


def test_judge_structured_output_and_max_tokens_reach_the_request(tmp_path, fault_server):
    from support.servers import Behaviour

    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}'))
    rows = [{"id": "t", "run": 0, "response": "Paris", "answer": "Paris",
             "answer_type": "text", "question": "Capital?"}]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    base = ["grade", str(src), "--judge-model", "j", "--judge-base-url", fault_server.base_url,
            "--judge-cache", "none", "--no-progress", "--judge-max-tokens", "16"]
    assert main(base + ["--out", str(tmp_path / "a.jsonl"), "--judge-structured", "vllm"]) == 0
    assert main(base + ["--out", str(tmp_path / "b.jsonl"),
                        "--judge-structured", "json_schema"]) == 0
    first, second = fault_server.requests
    assert first["max_tokens"] == 16 and "structured_outputs" in first
    assert second["response_format"]["type"] == "json_schema"
