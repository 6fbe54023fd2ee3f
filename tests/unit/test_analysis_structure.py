"""The near-copy measure (general365.analysis.structure) and the labelled sample it is
measured against (tests/data/variant_labels.csv): a variant is a near-copy when it asks what
its seed asks and is solved the same way, whatever its story."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from general365 import AnswerType, Problem
from general365.analysis import analyze
from general365.analysis.structure import SCREEN, THRESHOLD, StructureIndex, combined, parts
from general365.expand.candidates import ExpansionCandidate
from general365.expand.checks import check_near_duplicates
from general365.data.sample import load_sample

DATA = Path(__file__).resolve().parents[1] / "data"

LIFT = ("{a} takes the lift from floor {x} to floor {y}. The lift moves {z} floors a minute "
        "and stops nowhere else. How many minutes does the ride take? Put your final answer "
        "in \\boxed{{}}.")
LIFT_WHY = "{y} - {x} = {d} floors; {d} / {z} = {t} minutes."


def _index(*questions, reasonings=None):
    return StructureIndex(list(questions), reasonings)


def test_parts_are_the_ask_and_the_constraints_without_options_or_format():
    q = ("Five friends sit in a row. Ava is not at an end.\nBen sits next to Ava.\n"
         "Which statements must be true?\nA. Ava is second.\nB. Ben is first.\n"
         "Select all correct options and put their letters in \\boxed{}.")
    p = parts(q)
    assert p.ask == "Which statements must be true?"
    assert p.constraints == ("Five friends sit in a row.", "Ava is not at an end.",
                             "Ben sits next to Ava.")


def test_a_copy_with_names_and_numbers_swapped_is_a_near_copy():
    seed = LIFT.format(a="Ann", x=2, y=14, z=3)
    copy = LIFT.format(a="Bo", x=1, y=9, z=2)
    s = _index(seed, copy, reasonings=[LIFT_WHY.format(x=2, y=14, d=12, z=3, t=4),
                                       LIFT_WHY.format(x=1, y=9, d=8, z=2, t=4)]).compare(1, 0)
    assert s.ask == pytest.approx(1.0) and s.reasoning == pytest.approx(1.0)
    assert s.score >= THRESHOLD
    # without worked solutions the question's parts decide, and agree
    assert _index(seed, copy).compare(1, 0).score == pytest.approx(1.0)


def test_the_story_does_not_count_but_the_ask_and_the_constraints_do():
    seed = ("A shed holds 3 canoes in single file. Only the canoe nearest the water can be "
            "carried out. What is the smallest number of moves needed?")
    renamed = ("A driveway holds 3 cars in single file. Only the car nearest the street can "
               "be driven out. What is the smallest number of moves needed?")
    turned = seed.replace("smallest", "largest")
    added = seed.replace("carried out.", "carried out. No canoe may be moved twice in a row.")
    idx = _index(seed, renamed, turned, added)
    assert idx.compare(1, 0).score >= THRESHOLD          # a new story only
    assert idx.compare(2, 0).ask < THRESHOLD             # the question turned round
    assert idx.compare(2, 0).score < THRESHOLD
    assert idx.compare(3, 0).constraints < 0.6           # a constraint added
    assert idx.compare(3, 0).score < THRESHOLD


def test_a_judge_score_is_combined_with_the_structure_score():
    assert combined(0.3, 5) and not combined(0.95, 3)
    assert combined(SCREEN, 4) and not combined(SCREEN - 0.01, 4)
    assert combined(THRESHOLD, None) and not combined(THRESHOLD - 0.01, None)


def test_no_variant_of_the_sample_is_a_near_copy_by_default():
    a = analyze(["sample"], embedder="tfidf", cache=False, tsne_method="off")
    d = a.dataset("sample").diversity
    assert len(d.links) == 120
    assert [link.variant_id for link in d.links if link.near_copy] == []
    out = d.to_dict()
    assert out["near_copies"] == 0 and out["near_copy_threshold"] == THRESHOLD


def test_expand_flags_a_renamed_copy_of_its_seed_and_not_a_new_question():
    seed = Problem(id="s", question=LIFT.format(a="Ann", x=2, y=14, z=3), answer="4",
                   answer_type=AnswerType.NUMBER,
                   reasoning=LIFT_WHY.format(x=2, y=14, d=12, z=3, t=4))

    def cand(k, question, reasoning):
        return ExpansionCandidate("s", k, {"question": question, "reasoning": reasoning,
                                           "answer": "4", "answer_type": "number",
                                           "float_round": 0, "change": "c"})

    copy = cand(0, LIFT.format(a="Bo", x=1, y=9, z=2), LIFT_WHY.format(x=1, y=9, d=8, z=2, t=4))
    new = cand(1, "Ann's lift moves 3 floors a minute, but it must stop for 1 minute at every "
                  "floor whose number is a multiple of 4. She rides from floor 2 to floor 14. "
                  "At which floor is she after 3 minutes? Put your final answer in \\boxed{}.",
               "Floors 2-5 take a minute; the stop at 4 adds one; at 3 minutes she is at 5.")
    check_near_duplicates([copy, new], {"s": seed})
    assert copy.flag_names == ["near_copy_of_seed"]
    assert "structure 1.00 to the seed" in copy.flags[0].reason
    assert new.flag_names == []


def _labels():
    with open(DATA / "variant_labels.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_every_variant_of_the_sample_is_labelled_once_with_a_reason():
    rows = _labels()
    variants = {p.id: p for p in load_sample() if p.variant}
    current = [r for r in rows if r["text"] == "current"]
    assert sorted(r["id"] for r in current) == sorted(variants)
    assert all(r["label"] in ("near-copy", "new-structure") and r["reason"].strip()
               and r["seed_id"] == variants[r["id"]].seed_id for r in current)
    # each earlier text of a rewritten variant is kept, labelled, and differs from today's
    retired = {json.loads(line)["id"]: json.loads(line)
               for line in (DATA / "retired_variants.jsonl").read_text("utf-8").splitlines()}
    old = [r for r in rows if r["text"] == "retired"]
    assert sorted(r["id"] for r in old) == sorted(retired)
    assert all(retired[r["id"]]["question"] != variants[r["id"]].question for r in old)
    assert {r["text"] for r in rows} == {"current", "retired"}


def _row(id_, seed, variant, question, reasoning):
    return {"id": id_, "seed_id": seed, "variant": variant, "question": question,
            "answer": "4", "answer_type": "number", "float_round": 0,
            "categories": ["Complex Constraints"], "reasoning": reasoning}


def test_with_a_judge_its_score_joins_the_structure_score(fault_server, tmp_path):
    from general365.grading.judge import Judge
    from support.servers import Behaviour

    # family "lift": a renamed copy (structure 1.0) that the judge scores 2;
    # family "crate": a new question (structure low) that the judge scores 5
    crate = ("Each of {n} crates holds at most {k} kg. Sacks weigh {a} kg and {b} kg, one per "
             "crate. What is the {w} number of crates that can carry all the sacks? Put your "
             "final answer in \\boxed{{}}.")
    rows = [_row("lift", "lift", 0, LIFT.format(a="Ann", x=2, y=14, z=3),
                 LIFT_WHY.format(x=2, y=14, d=12, z=3, t=4)),
            _row("lift-v1", "lift", 1, LIFT.format(a="Bo", x=1, y=9, z=2),
                 LIFT_WHY.format(x=1, y=9, d=8, z=2, t=4)),
            _row("crate", "crate", 0, crate.format(n=8, k=40, a=15, b=25, w="smallest"),
                 "Pair a light and a heavy sack where the weight allows."),
            _row("crate-v1", "crate", 1, crate.format(n=8, k=40, a=15, b=25, w="largest"),
                 "Every sack in its own crate, as long as there are crates.")]
    src = tmp_path / "fam.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def script(req, n):
        problem_a = req["messages"][1]["content"].split("Problem A:\n", 1)[1]
        return Behaviour.reply("2" if "lift" in problem_a else "5")
    fault_server.set_script(script)
    judge = Judge("sim-judge", base_url=fault_server.base_url, cache=False)
    a = analyze([f"fam={src}"], embedder="tfidf", cache=False, tsne_method="off", judge=judge)
    d = a.dataset("fam").diversity
    got = {link.variant_id: (link.judge_score, link.near_copy) for link in d.links}
    assert got == {"lift-v1": (2, False), "crate-v1": (5, True)}
    assert d.links[0].structure >= THRESHOLD > d.links[1].structure
    assert "combined with the LLM judge" in d.to_dict()["near_copy_measure"]
    assert a.settings["near_copy_judge"]["scored"] == 2
