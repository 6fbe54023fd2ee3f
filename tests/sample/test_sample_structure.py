"""The bundled sample as a whole: big enough, balanced like the paper's benchmark, and every
row usable by the grader. (Row-level checks and the machine verification of every answer
live in tests/sample/.)"""

import re
from collections import Counter, defaultdict

import pytest

from general365.data.sample import load_sample
from general365.schema import AnswerType, Category


@pytest.fixture(scope="module")
def sample():
    return load_sample()


@pytest.fixture(scope="module")
def seeds(sample):
    return [p for p in sample if p.variant == 0]


def test_at_least_40_seeds_each_with_exactly_three_variants(sample, seeds):
    assert len(seeds) >= 40
    variants = defaultdict(list)
    for p in sample:
        if p.variant > 0:
            variants[p.seed_id].append(p)
    assert set(variants) <= {s.id for s in seeds}, "a variant names a seed that is not there"
    for s in seeds:
        got = sorted((v.variant, v.id) for v in variants[s.id])
        assert got == [(k, f"{s.id}-v{k}") for k in (1, 2, 3)], s.id
    assert len(sample) == 4 * len(seeds) >= 160


def test_every_category_has_at_least_six_seeds(seeds):
    per = Counter(c for s in seeds for c in s.categories)
    short = {c.value: per[c] for c in Category if per[c] < 6}
    assert not short, f"categories with fewer than 6 seeds: {short}"


def test_most_seeds_carry_two_or_more_categories(seeds):
    # The paper: nearly 70% of problems carry two or more challenge categories.
    multi = sum(len(s.categories) >= 2 for s in seeds)
    assert multi >= 0.70 * len(seeds), f"{multi} of {len(seeds)} seeds have 2+ categories"
    assert all(s.categories for s in seeds)


def test_all_answer_types_and_the_rule_graded_share(sample):
    # The paper: 238 of 365 seeds rule-graded (65%), the rest choice or text answers.
    types = Counter(p.answer_type for p in sample)
    assert set(types) == set(AnswerType)
    share = (types[AnswerType.NUMBER] + types[AnswerType.INTERVAL]) / len(sample)
    assert 0.60 <= share <= 0.70, f"number+interval share {share:.1%}"
    rare = {t.value: n for t, n in types.items() if n < 0.10 * len(sample)}
    assert not rare, f"answer types on fewer than 10% of rows: {rare}"


def _last_sentence(text: str) -> str:
    pieces = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]
    return pieces[-1]


def test_every_question_ends_with_a_boxed_output_instruction(sample):
    bad = [p.id for p in sample if "\\boxed" not in _last_sentence(p.question)]
    assert not bad, f"questions whose last sentence does not ask for \\boxed: {bad}"


def test_every_seed_has_its_reasoning(seeds):
    assert not [s.id for s in seeds if not s.reasoning.strip()]


_MACHINE = re.compile(r"machine[- ]verified", re.I)
_HAND = re.compile(r"(?=.*\breview)(?=.*\btwice\b)(?=.*\bhand)", re.I | re.S)


def test_every_source_says_how_the_answer_was_checked(sample):
    machine = [p for p in sample if _MACHINE.search(p.source)]
    rest = [p for p in sample if not _MACHINE.search(p.source)]
    assert len(machine) >= 0.60 * len(sample), f"{len(machine)} of {len(sample)} machine-verified"
    unchecked = [p.id for p in rest if not _HAND.search(p.source)]
    assert not unchecked, f"neither machine-verified nor reviewed twice by hand: {unchecked}"


def test_every_rule_graded_gold_parses(sample):
    from general365.answers.gold import parse_gold

    failures = []
    for p in sample:
        if p.answer_type.is_rule_graded:
            try:
                parse_gold(p.answer, p.answer_type, p.float_round)
            except ValueError as exc:
                failures.append(f"{p.id}: {p.answer!r}: {exc}")
    assert not failures, failures


def test_choice_golds_are_option_letters(sample):
    for p in sample:
        if p.answer_type is AnswerType.SINGLE_CHOICE:
            assert re.fullmatch(r"[A-Z]", p.answer.strip()), p.id
        elif p.answer_type is AnswerType.MULTIPLE_CHOICE:
            letters = re.sub(r"[\s,]", "", p.answer)
            assert re.fullmatch(r"[A-Z]{1,}", letters) and len(set(letters)) == len(letters), p.id
