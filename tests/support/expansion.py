"""A scripted expansion model for the fault server: candidate replies of every kind, chosen
by the candidate's index (read back from the request's seed: candidate k is sent with
run_seed(0, k) = 1000003 * k).

A real model cannot be made to write good variants, near-copies or broken JSON on demand,
so these replies are written here; the server, HTTP, the SDK and everything after them are
real. Candidate k of a seed gets REPLIES[k % len(REPLIES)]:

    0  valid: the sample's variant 1 of the seed, as plain JSON
    1  valid: the sample's variant 2, in a ```json fence after some prose
    2  near-copy of the seed (its question word for word)
    3  unparseable gold (answer "many" for a number)
    4  leaked answer (the gold, 7919, in the question)
    5  broken JSON
    6  no output-format instruction, and float_round 2 the question never asks for
    7  schema: answer_type "numeric", no "change"
    8  answer type changed (text for a number seed)
    9  near-duplicate of candidate 0
"""

from __future__ import annotations

import json
from typing import Any, Callable

from general365 import load_problems
from support.servers import Behaviour

SEED_STRIDE = 1000003   # runners.base.run_seed(0, k) = k * 1000003
KINDS = ("valid", "valid_fenced", "near_copy", "bad_gold", "leaked", "broken_json",
         "no_instruction", "schema", "type_changed", "sibling")
EXPECTED_FLAGS = {
    "valid": set(), "valid_fenced": set(), "near_copy": {"near_copy_of_seed"},
    "bad_gold": {"gold_unparseable"}, "leaked": {"leaked_answer"},
    "broken_json": {"unparseable"},
    "no_instruction": {"no_format_instruction", "float_round_wording"},
    "schema": {"schema"}, "type_changed": {"answer_type_changed"},
    "sibling": {"near_duplicate_of_sibling"},
}


def sample_families() -> dict[str, list]:
    fam: dict[str, list] = {}
    for p in load_problems(source="sample"):
        fam.setdefault(p.seed_id, []).append(p)
    return {k: sorted(v, key=lambda p: p.variant) for k, v in fam.items()}


def _as_reply(p, change: str = "a new story with other constraints") -> dict[str, Any]:
    return {"question": p.question, "reasoning": p.reasoning, "answer": p.answer,
            "answer_type": p.answer_type.value, "float_round": p.float_round, "change": change}


def reply_text(kind: str, family: list) -> str:
    seed, v1, v2 = family[0], family[1], family[2]
    if kind in ("valid", "sibling"):
        return json.dumps(_as_reply(v1))
    if kind == "valid_fenced":
        return "Here is the variant.\n```json\n" + json.dumps(_as_reply(v2), indent=1) + "\n```"
    if kind == "near_copy":
        return json.dumps(_as_reply(seed, "renamed nothing"))
    if kind == "bad_gold":
        return json.dumps({**_as_reply(family[3]), "answer": "many"})
    if kind == "leaked":
        q = ("A librarian shelves 7919 books, one per minute, taking a break of 5 minutes "
             "after every 60 books. The answer is 7919. How many books are shelved? Put "
             "your final answer in \\boxed{}.")
        return json.dumps({"question": q, "reasoning": "count", "answer": "7919",
                           "answer_type": "number", "float_round": 0, "change": "story"})
    if kind == "broken_json":
        return '{"question": "A tower has floors", "answer": 12, "reasoning": '
    if kind == "no_instruction":
        q = ("Mia walks 3 km at 4 km/h and then 5 km at 6 km/h. How many minutes does the "
             "whole walk take?")
        return json.dumps({"question": q, "reasoning": "45 + 50", "answer": "95",
                           "answer_type": "number", "float_round": 2, "change": "walk"})
    if kind == "schema":
        q = ("Three clocks chime at 7, 11 and 13 minute intervals, all at noon. After how "
             "many minutes do they next chime together? Put your final answer in \\boxed{}.")
        return json.dumps({"question": q, "reasoning": "lcm", "answer": "1001",
                           "answer_type": "numeric", "float_round": 0})
    if kind == "type_changed":
        q = ("Ravi, Sun and Tomas each own one pet: a cat, a dog or a fish. Ravi is allergic "
             "to fur and Tomas walks his pet daily. Who owns the cat? State your final answer "
             "in \\boxed{}.")
        return json.dumps({"question": q, "reasoning": "Ravi: fish; Tomas: dog", "answer":
                           "Sun", "answer_type": "text", "float_round": 0, "change": "pets"})
    raise ValueError(kind)


def seed_of(request: dict) -> dict:
    text = request["messages"][-1]["content"]
    return json.loads(text.split("The seed problem:\n", 1)[1])


def candidate_of(request: dict) -> int:
    return int(request.get("seed") or 0) // SEED_STRIDE


def expansion_script(families: dict[str, list] | None = None, *,
                     refuse_structured: bool = False,
                     delay: float = 0.0) -> Callable[[dict, int], Behaviour]:
    """The fault server's script: each request answered as its candidate index says.
    `refuse_structured`: a request with response_format gets a 400, as servers that do not
    take it answer."""
    families = families or sample_families()
    by_question = {f[0].question: f for f in families.values()}

    def script(request: dict, _n: int) -> Behaviour:
        if refuse_structured and "response_format" in request:
            return Behaviour.error(400, message="response_format is not supported")
        family = by_question[seed_of(request)["question"]]
        kind = KINDS[candidate_of(request) % len(KINDS)]
        return Behaviour.reply(reply_text(kind, family), delay=delay)

    return script
