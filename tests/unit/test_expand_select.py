"""expand -> review -> select -> `general365 dataset build`, end to end on the sample's seeds
(the scripted server writes the candidates), with a hand-written decisions file; then
select's own rules: edits re-checked, the diverse and the hard preferred, short seeds
named, bad decisions refused with their line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from general365 import load_problems
from general365.cli import main
from general365.expand.candidates import ExpansionCandidate, Solver
from general365.expand.candidates import write_candidates
from support.expansion import expansion_script, sample_families
from support.servers import FaultServer

SEEDS = ("g365s-001", "g365s-003")


def write_jsonl(path: Path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def read_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("expand-select")
    ids = tmp / "ids.txt"
    ids.write_text("\n".join(SEEDS) + "\n")
    out = tmp / "exp"
    with FaultServer(script=expansion_script()) as server:
        assert main(["expand", "sample", "--model", server.model, "--backend", "openai",
                     "--base-url", server.base_url, "--out", str(out), "--candidates", "10",
                     "--ids", str(ids), "--max-tokens", "400", "--no-progress"]) == 0
    return out


def test_end_to_end_to_dataset_build(folder, tmp_path, capsys):
    assert main(["expand", "review", str(folder)]) == 0
    assert f"20 candidate(s) -> {folder / 'review.html'}" in capsys.readouterr().out
    html = (folder / "review.html").read_text()
    assert "Content-Security-Policy" in html and "g365s-003-c9" in html
    fixed_q = ("A ferry crosses a lake in 14 minutes, waits 6 minutes, and crosses back. How "
               "many minutes does a round trip take? Put your final answer in \\boxed{}.")
    decisions = write_jsonl(tmp_path / "decisions.jsonl", [
        {"seed_id": "g365s-001", "candidate": 0, "decision": "accept", "note": ""},
        {"seed_id": "g365s-001", "candidate": 1, "decision": "accept"},
        # a gold that did not parse, fixed by the reviewer
        {"seed_id": "g365s-001", "candidate": 3, "decision": "accept", "answer": "34",
         "question": fixed_q, "categories": ["Spatial & Temporal"], "note": "fixed"},
        {"seed_id": "g365s-001", "candidate": 5, "decision": "reject", "note": "broken"},
        {"seed_id": "g365s-003", "candidate": 0, "decision": "accept"},
        {"seed_id": "g365s-003", "candidate": 2, "decision": "reject"},
    ])
    rows_path = tmp_path / "variants.jsonl"
    assert main(["expand", "select", str(folder), "--decisions", decisions, "--per-seed", "3",
                 "--out", str(rows_path)]) == 0
    out = capsys.readouterr().out
    assert "4 variant(s) of 2 seed(s)" in out
    assert "4 accepted, 2 rejected, 14 candidate(s) undecided" in out
    assert "1 seed(s) with fewer than 3 variants (write the rest by hand): g365s-003 (1)" in out
    rows = read_jsonl(rows_path)
    assert [r["id"] for r in rows] == ["g365s-001", "g365s-001-v1", "g365s-001-v2",
                                       "g365s-001-v3", "g365s-003", "g365s-003-v1"]
    edited = next(r for r in rows if r["question"] == fixed_q)
    assert edited["answer"] == "34" and edited["categories"] == ["Spatial & Temporal"]
    assert "candidate 3 of g365s-001" in edited["source"]
    fam = sample_families()
    v = next(r for r in rows if r["id"] == "g365s-003-v1")
    assert v["question"] == fam["g365s-003"][1].question
    assert v["categories"] == [c.value for c in fam["g365s-003"][0].categories]
    report = json.loads((tmp_path / "variants.selection.json").read_text())
    assert report["short"] == {"g365s-003": 1}
    # the rows are a dataset: build it, and load it back
    built = tmp_path / "built"
    assert main(["dataset", "build", "--source", str(rows_path), "--out", str(built)]) == 0
    problems = load_problems(source=str(built))
    assert len(problems) == 6
    by_id = {p.id: p for p in problems}
    assert by_id["g365s-001-v2"].seed_id == "g365s-001" and by_id["g365s-001-v2"].variant == 2
    # refused to overwrite without --overwrite
    assert main(["expand", "select", str(folder), "--decisions", decisions,
                 "--out", str(rows_path)]) == 2
    assert "--overwrite" in capsys.readouterr().err


@pytest.mark.parametrize("row, message", [
    ({"seed_id": "g365s-001", "candidate": 3, "decision": "accept"},
     "accepted, but the gold does not parse"),
    ({"seed_id": "g365s-001", "candidate": 5, "decision": "accept"},
     "accepted, but question missing"),
    ({"seed_id": "g365s-001", "candidate": 0, "decision": "maybe"}, "bad decision"),
    ({"seed_id": "g365s-001", "candidate": 42, "decision": "accept"}, "no such candidate"),
    ({"seed_id": "g365s-001", "candidate": 0, "decision": "accept", "anwser": "3"},
     "unknown field 'anwser'"),
    ({"seed_id": "g365s-001", "candidate": 0, "decision": "accept", "categories": ["Cooking"]},
     "unknown Category"),
    ({"seed_id": "g365s-001", "candidate": 0, "decision": "accept", "float_round": -1},
     "float_round"),
])
def test_bad_decisions_exit_2_naming_the_line(folder, tmp_path, capsys, row, message):
    decisions = write_jsonl(tmp_path / "d.jsonl", [
        {"seed_id": "g365s-003", "candidate": 0, "decision": "accept"}, row])
    out = tmp_path / "v.jsonl"
    assert main(["expand", "select", str(folder), "--decisions", decisions,
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err and "d.jsonl:2" in err, err
    assert not out.exists()


def test_a_candidate_decided_twice_is_refused(folder, tmp_path, capsys):
    row = {"seed_id": "g365s-003", "candidate": 0, "decision": "accept"}
    decisions = write_jsonl(tmp_path / "d.jsonl", [row, {**row, "decision": "reject"}])
    assert main(["expand", "select", str(folder), "--decisions", decisions,
                 "--out", str(tmp_path / "v.jsonl")]) == 2
    assert "decided twice (first on line 1)" in capsys.readouterr().err


def _candidate(seed, k, question, rate=None):
    c = ExpansionCandidate(seed_id=seed.id, candidate=k,
                           fields={"question": question, "reasoning": "r", "answer": "7",
                                   "answer_type": "number", "float_round": 0, "change": "c"},
                           categories=[x.value for x in seed.categories], model="m")
    if rate is not None:
        c.solver = Solver(model="s", k=4, graded=4, correct=round(4 * rate))
    return c


def test_select_prefers_the_diverse_and_the_hard(tmp_path, capsys):
    seed = sample_families()["g365s-001"][0]
    folder = tmp_path / "exp"
    folder.mkdir()
    write_jsonl(folder / "seeds.jsonl", [seed.to_dict()])
    others = [p.question for p in sample_families()["g365s-017"]]
    near_seed = seed.question.replace("10 seconds", "12 seconds")
    cands = [
        _candidate(seed, 0, near_seed, rate=0.25),          # hard, but a copy of the seed
        _candidate(seed, 1, others[0], rate=1.0),           # new, but easy
        _candidate(seed, 2, others[0] + " Think twice.", rate=0.0),  # a copy of 1, hard
        _candidate(seed, 3, others[1], rate=0.5),
        _candidate(seed, 4, others[2], rate=0.0),           # new and hard
    ]
    write_candidates(str(folder / "candidates.jsonl"), cands)
    decisions = write_jsonl(tmp_path / "d.jsonl", [
        {"seed_id": seed.id, "candidate": k, "decision": "accept"} for k in range(5)])
    out = tmp_path / "v.jsonl"
    assert main(["expand", "select", str(folder), "--decisions", decisions, "--per-seed", "3",
                 "--out", str(out)]) == 0
    report = json.loads((tmp_path / "v.selection.json").read_text())
    picked = [x["candidate"] for x in report["seeds"][seed.id]]
    assert picked[0] in (2, 4)                    # novel and hard first
    # the near-copy of the seed, and the easy twin of a chosen one, are left out
    assert set(picked) == {2, 3, 4}
    assert [x["hardness"] for x in report["seeds"][seed.id]][:2] == [1.0, 1.0]
    assert report["short"] == {}
    capsys.readouterr()
