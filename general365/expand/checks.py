"""The automatic checks on candidates, each a named flag with a reason (docs/expand.md,
section 3, shows FLAGS, and which are BLOCKING; a test holds the two together).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from ..answers.gold import parse_gold
from ..grading.choice import gold_letters
from ..grading.rule import RuleResult
from ..schema import AnswerType, Problem, Status
from ..validators import is_int
from .candidates import ExpansionCandidate

FLAGS: dict[str, str] = {
    "unparseable": "the reply holds no JSON object (no object, broken JSON, JSON the strict "
                   "reader refuses such as NaN or a lone surrogate, or cut off)",
    "schema": "a field is missing or of the wrong type (question, reasoning, answer, "
              "answer_type, float_round, change)",
    "gold_unparseable": "the gold answer does not parse with the grader's parser for its "
                        "answer type (choice golds: letters that are options of the question)",
    "float_round_wording": "float_round disagrees with the question's rounding wording",
    "no_format_instruction": "the question does not end with an output-format instruction "
                             "(\\boxed{} or 'final answer')",
    "near_copy_of_seed": "the question asks what its seed asks and is solved the same way, "
                         "the story aside (the structure score)",
    "near_duplicate_of_sibling": "the question is a near-duplicate of an earlier candidate "
                                 "of the same seed",
    "leaked_answer": "the gold answer appears in the question",
    "answer_type_changed": "the answer type is one the seed's type does not allow (number "
                           "and interval go together, and the two choice types; text alone)",
}
BLOCKING = ("unparseable", "schema", "gold_unparseable")
NEAR_DUPLICATE = 0.90
# Seconds for the grader's parser to read one candidate's gold, in the rule pool: a
# generator's gold such as 300 nested parentheses takes math-verify a minute, and more
# nesting longer still; past the limit the gold is flagged, and the expansion goes on.
GOLD_TIMEOUT = 30.0

# answer types a candidate of a seed of each type may have
_GROUPS = ({AnswerType.NUMBER, AnswerType.INTERVAL},
           {AnswerType.SINGLE_CHOICE, AnswerType.MULTIPLE_CHOICE}, {AnswerType.TEXT})

_TEXT_FIELDS = ("question", "reasoning", "change")


# --- one candidate ----------------------------------------------------------------------


def normalise(fields: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The fields with their types fixed where that is safe, and what is wrong with them."""
    out = dict(fields)
    problems = [p for p in (_not_text(name, out.get(name)) for name in _TEXT_FIELDS) if p]
    answer = out.get("answer")
    if isinstance(answer, bool):
        problems.append("answer is not text")
    elif isinstance(answer, int) or (isinstance(answer, float) and math.isfinite(answer)):
        out["answer"] = str(answer)
    elif why := _not_text("answer", answer):
        problems.append(why)
    else:
        out["answer"] = answer.strip()
    kind = out.get("answer_type")
    if isinstance(kind, str) and kind.strip().lower() in AnswerType.values():
        out["answer_type"] = kind.strip().lower()
    else:
        problems.append(f"answer_type {kind!r} is not one of {', '.join(AnswerType.values())}")
    fr = out.get("float_round")
    # [0-9], not isdigit() (it takes `²`, which int() refuses), at most 9 of them (int() of
    # more than 4,300 raises).
    if isinstance(fr, str) and re.fullmatch(r"[0-9]{1,9}", fr.strip()):
        fr = int(fr.strip())
    if isinstance(fr, float) and fr.is_integer():
        fr = int(fr)
    if not is_int(fr) or not 0 <= fr <= 30:
        problems.append(f"float_round {fr!r} is not an integer from 0 to 30")
    else:
        out["float_round"] = fr
    return out, problems


def _not_text(name: str, value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return None
    return f"{name} {'missing' if value is None else 'is not non-empty text'}"


_OPTION_LINE = re.compile(r"(?m)^\s*\(?([A-Z])[.)]\s")
# Inline options: `(A) 12 (B) 17 (C) 19`, `A) 12 B) 17`, also after a colon or a comma.
_OPTION_INLINE = re.compile(r"(?:^|(?<=[\s:;,]))\(([A-Z])\)\s*\S|(?:^|(?<=[\s:;,]))([A-Z])\)\s+\S")


def option_letters(question: str) -> set[str]:
    """The letters of the options a question lists, as lines (`A. ...`, `B) ...`,
    `(C) ...`) or inline (`(A) 12 (B) 17 (C) 19`: two or more in sequence from A)."""
    found = set(_OPTION_LINE.findall(question))
    inline = [a or b for a, b in _OPTION_INLINE.findall(question)]
    if len(set(inline)) >= 2 and "A" in inline:
        found.update(inline)
    return found


GoldKey = tuple[str, str, Any]   # (answer, answer type, float_round)


def _gold_key(c: ExpansionCandidate) -> GoldKey:
    return c.get("answer"), AnswerType(c.get("answer_type")).value, c.get("float_round")


def _parse_problem(answer: str, kind: AnswerType, float_round: Any) -> str | None:
    try:
        parse_gold(answer, kind, float_round)
    except (ValueError, RecursionError) as exc:
        shown = answer if len(answer) <= 80 else answer[:77] + "..."
        return f"{shown!r} is not a valid {kind.value} answer: {_short(exc)}"
    return None


@dataclass(frozen=True)
class _GoldCheck:
    """A pool task (grading/pool.py): the gold read by the grader's parser in a worker,
    killed past the time limit. The verdict's detail is the problem (None: it parses)."""

    answer_type: str
    float_round: Any

    def grade_in_worker(self, answer: str) -> RuleResult:
        return RuleResult(Status.CORRECT,
                          _parse_problem(answer, AnswerType(self.answer_type), self.float_round))


def parse_golds(cands: Sequence[ExpansionCandidate]) -> dict[GoldKey, str | None]:
    """The problem of each rule-graded gold among the candidates (None: it parses), read in
    the rule pool under GOLD_TIMEOUT seconds each."""
    from ..grading.pool import RuleTask, shared_pool

    keys = []
    for c in cands:
        if "unparseable" in c.flag_names:
            continue
        fields, problems = normalise(c.fields)
        if {p.split(" ", 1)[0] for p in problems} & {"answer", "answer_type", "float_round"}:
            continue
        kind = AnswerType(fields["answer_type"])
        if kind.is_rule_graded:
            keys.append((fields["answer"], kind.value, fields["float_round"]))
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}
    tasks = [RuleTask(_GoldCheck(kind, fr), answer)  # type: ignore[arg-type]
             for answer, kind, fr in keys]
    out: dict[GoldKey, str | None] = {}
    for key, res in zip(keys, shared_pool().map(tasks, GOLD_TIMEOUT)):
        if res.status is Status.TIMEOUT:
            out[key] = (f"the grader's parser did not read the {key[1]} gold within "
                        f"{GOLD_TIMEOUT:g} s")
        elif res.status is Status.CORRECT:
            out[key] = res.detail
        else:   # the worker's own error (its detail says which)
            out[key] = f"the grader's parser failed on the gold ({res.detail})"
    return out


def gold_problem(c: ExpansionCandidate, parsed: Mapping[GoldKey, str | None] | None = None
                 ) -> str | None:
    """Why the gold does not parse for its answer type, or None. `parsed`: the rule-graded
    golds already read in the pool (parse_golds); any other is read here."""
    kind = AnswerType(c.get("answer_type"))
    answer = c.get("answer")
    if kind.is_rule_graded:
        if parsed is not None and _gold_key(c) in parsed:
            return parsed[_gold_key(c)]
        return _parse_problem(answer, kind, c.get("float_round"))
    if kind.is_choice:
        letters = gold_letters(answer)
        if not letters:
            return f"{answer!r} names no option letters"
        if kind is AnswerType.SINGLE_CHOICE and len(letters) != 1:
            return f"{answer!r} names {len(letters)} letters; single_choice takes one"
        missing = sorted(letters - option_letters(c.get("question")))
        if missing:
            return f"option {', '.join(missing)} is not listed in the question"
    return None


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# [0-9]{1,9}: `\d` takes every script's digits, and int() refuses more than 4,300 of them.
_PLACES = re.compile(r"\b([0-9]{1,9}|one|two|three|four|five|six)[\s-]+"
                     r"(?:decimal[\s-]+(?:places?|digits?)|digits?\s+after\s+the\s+decimal"
                     r"\s+point|places?\s+of\s+decimals?)", re.I)
_NEAREST = re.compile(r"\bnearest\s+(whole\s+number|integer|tenth|hundredth|thousandth)", re.I)
_NEAREST_PLACES = {"tenth": 1, "hundredth": 2, "thousandth": 3}


def stated_rounding(question: str) -> set[int]:
    """The decimal places the question's wording asks for (empty: it says none)."""
    return ({int(n) if n.isdigit() else _WORDS[n.lower()] for n in _PLACES.findall(question)}
            | {_NEAREST_PLACES.get(n.lower(), 0) for n in _NEAREST.findall(question)})


def rounding_problem(c: ExpansionCandidate) -> str | None:
    fr, kind = c.get("float_round"), AnswerType(c.get("answer_type"))
    if kind is not AnswerType.NUMBER:
        return f"float_round {fr} on a {kind.value} answer (rounding is for numbers)" \
            if fr else None
    stated = stated_rounding(c.get("question"))
    if stated and fr not in stated:
        asked = " or ".join(str(n) for n in sorted(stated))
        return f"the question asks for {asked} decimal place(s); float_round is {fr}"
    if not stated and fr:
        return f"float_round is {fr} but the question never says how to round"
    decimals = re.fullmatch(r"-?\d+\.(\d+)", c.get("answer"))
    if fr and decimals and len(decimals.group(1)) != fr:
        return f"the answer {c.get('answer')} has {len(decimals.group(1))} decimal place(s); " \
               f"float_round is {fr}"
    return None


_INSTRUCTION = re.compile(r"\\boxed|final\s+answer", re.I)
INSTRUCTION_TAIL = 200   # characters: the instruction must be among the question's last


def has_format_instruction(question: str) -> bool:
    return _INSTRUCTION.search(question.rstrip()[-INSTRUCTION_TAIL:]) is not None


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w]|\.\d)")


def _value(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def leak_problem(c: ExpansionCandidate) -> str | None:
    """Where the question gives its own answer away. Small integers (|n| < 10), option
    letters and single names are left alone: they occur in any question."""
    kind, answer, question = AnswerType(c.get("answer_type")), c.get("answer"), c.get("question")
    if kind.is_choice:
        return None
    if kind is AnswerType.NUMBER:
        gold = _value(answer.replace(",", ""))
        if gold is None or (gold.denominator == 1 and abs(gold) < 10):
            return None
        for m in _NUMBER.finditer(question):
            if _value(m.group(0)) == gold:
                return f"the question contains the answer {answer} ({m.group(0)!r})"
        return None
    squeeze = re.sub(r"\s+", "", answer)
    if kind is AnswerType.INTERVAL:
        return f"the question contains the answer {answer}" \
            if len(squeeze) > 2 and squeeze in re.sub(r"\s+", "", question) else None
    # text: a sequence or code (digits, punctuation, a run of capitals), not a plain word
    if len(squeeze) < 4 or re.fullmatch(r"[A-Z]?[a-z'’-]+", answer) \
            or not re.search(r"[\d,:;/]|^[A-Z]{4,}$", squeeze):
        return None
    pattern = r"(?<!\w)" + re.escape(answer) + r"(?!\w)"
    return f"the question contains the answer {answer!r}" if re.search(pattern, question) \
        else None


def type_problem(c: ExpansionCandidate, seed: Problem) -> str | None:
    kind = AnswerType(c.get("answer_type"))
    if kind in next(g for g in _GROUPS if seed.answer_type in g):
        return None
    return f"the seed's answer is {seed.answer_type.value}; this one is {kind.value}"


def check_one(c: ExpansionCandidate, seed: Problem,
              parsed: Mapping[GoldKey, str | None] | None = None) -> None:
    """The per-candidate checks; the fields are normalised in place. `parsed`: golds
    already read in the pool (parse_golds)."""
    if "unparseable" in c.flag_names:
        return
    c.fields, problems = normalise(c.fields)
    bad = {p.split(" ", 1)[0] for p in problems}
    if problems:
        c.flag("schema", "; ".join(problems))
    if bad & {"question", "answer", "answer_type"}:
        return   # every other check reads the question, the answer and its type
    checks = []
    if "float_round" not in bad:
        checks += [("gold_unparseable", gold_problem(c, parsed)),
                   ("float_round_wording", rounding_problem(c))]
    checks += [("answer_type_changed", type_problem(c, seed)),
               ("leaked_answer", leak_problem(c))]
    if not has_format_instruction(c.get("question")):
        checks.append(("no_format_instruction", "the question's last "
                       f"{INSTRUCTION_TAIL} characters hold no \\boxed{{}} or 'final answer' "
                       "instruction"))
    for name, why in checks:
        if why:
            c.flag(name, why)


# --- across candidates ------------------------------------------------------------------


def check_near_duplicates(cands: Sequence[ExpansionCandidate], seeds: Mapping[str, Problem],
                          threshold: float = NEAR_DUPLICATE) -> None:
    readable = [c for c in cands if isinstance(c.get("question"), str)
                and "unparseable" not in c.flag_names]
    if not readable:
        return
    from ..analysis.embed import TfidfEmbedder
    from ..analysis.skeleton import skeletons
    from ..analysis.structure import THRESHOLD as STRUCTURE, StructureIndex

    family_seeds = list(dict.fromkeys(c.seed_id for c in readable))
    texts = [seeds[s].question for s in family_seeds] + [c.get("question") for c in readable]
    reasonings = [seeds[s].reasoning or "" for s in family_seeds] + \
        [c.get("reasoning") if isinstance(c.get("reasoning"), str) else "" for c in readable]
    x = TfidfEmbedder().vectors(skeletons(texts))   # unit rows: row i . row j is a cosine
    structure = StructureIndex(texts, reasonings)
    row = {s: i for i, s in enumerate(family_seeds)}
    offset = len(family_seeds)
    earlier: dict[str, list[int]] = {}
    for j, c in enumerate(readable, start=offset):
        to_seed = structure.compare(j, row[c.seed_id])
        if to_seed.score >= STRUCTURE:
            c.flag("near_copy_of_seed", f"structure {to_seed.score:.2f} to the seed "
                                        f"(ask {to_seed.ask:.2f}, "
                                        + (f"reasoning {to_seed.reasoning:.2f}"
                                           if to_seed.reasoning is not None
                                           else f"constraints {to_seed.constraints:.2f}")
                                        + f"; threshold {STRUCTURE:.2f})")
        for i in earlier.get(c.seed_id, []):
            sim = float(x[j].multiply(x[i]).sum())
            if sim >= threshold:
                other = readable[i - offset].candidate
                c.flag("near_duplicate_of_sibling", f"similarity {sim:.2f} to candidate "
                                                    f"{other} (threshold {threshold:.2f})")
                break
        earlier.setdefault(c.seed_id, []).append(j)


def check_all(cands: Sequence[ExpansionCandidate], seeds: Mapping[str, Problem],
              threshold: float = NEAR_DUPLICATE) -> None:
    parsed = parse_golds(cands)
    for c in cands:
        check_one(c, seeds[c.seed_id], parsed)
    check_near_duplicates(cands, seeds, threshold)
