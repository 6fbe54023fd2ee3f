"""CFE-Bench's judge prompt, one answer variable at a time. Our own wording (the paper
publishes none), versioned by a hash of its text, which is part of every judge cache key;
the reply is every general365 judge's JSON `accuracy`. The item's `question` is the problem
followed by the variable block, so the variable is part of the cache key too.
"""

from __future__ import annotations

import hashlib

from ...grading.judge_task import JudgePrompt
from .data import CFEProblem, Variable

SYSTEM_PROMPT = """You are grading one answer variable of a university exam problem.
You are given the problem, the variable to check (its name, type and description), its reference value, and the final part of a student's response.

Steps:
1. Find the value the response finally gives for this variable. It is normally on a line "name = value" near the end, or in a \\boxed{} expression, but it may be stated in words. Use the response's final value, not intermediate work.
2. Compare that value with the reference value:
   - numbers: equal within the stated relative tolerance, after converting units (6.25 Mbp equals 6250 kbp); a missing unit is read in the reference's unit;
   - formulas: mathematically equivalent, in the same symbols as the reference (rearranged, factored or expanded forms are equal);
   - other answers (words, choices, descriptions): the same meaning; every essential part of the reference must be present and nothing in the value may contradict it.
3. The value is incorrect if the response gives no value for this variable, gives several different final values for it, or gives a value that does not match.
Do not challenge the reference value.
Output a JSON object with a single field 'accuracy' whose value is true or false."""

USER_TEMPLATE = """{question}

Reference value: {answer}

Response (final part):
{prediction}"""

VARIABLE_TEMPLATE = """Problem:
{question}

Variable to check: {name}
Type: {type}
Description: {description}
Relative tolerance for numbers: {tolerance:g}"""

PROMPT_VERSION = "cfe-" + hashlib.sha256(
    (SYSTEM_PROMPT + "\x00" + USER_TEMPLATE + "\x00" + VARIABLE_TEMPLATE).encode("utf-8")
).hexdigest()[:16]


def judge_question(problem: CFEProblem, variable: Variable, tolerance: float) -> str:
    """The `question` of a judge item: the problem and the variable block."""
    return VARIABLE_TEMPLATE.format(question=problem.question, name=variable.name,
                                    type=variable.type.value,
                                    description=variable.description or "(none given)",
                                    tolerance=tolerance)


CFE_JUDGE_PROMPT = JudgePrompt("cfe-variable", PROMPT_VERSION, SYSTEM_PROMPT, USER_TEMPLATE)
