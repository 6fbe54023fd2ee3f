"""Issue 18, item 4: the answer reader as a property, over a seeded generative corpus.

Thousands of (gold, answer_type, float_round, response) cases built by
tests/support/reader_corpus.py from every number, interval and choice gold of the bundled
sample, the official-format fixtures, and golds modelled on math-verify's tests. All are
graded through the public `general365.grade(rows, policy="rule")` in one batch (real
math-verify, real worker pool), then:

- no near-miss may grade `correct` (a false positive is the worst defect of an RL reward);
- every rendering of a gold that a careful grader reads as the gold must grade `correct`;
- every gold of the corpus must be accepted (one refused gold stops a whole evaluation).

Each test collects all its failures into one assertion, grouped by cause, so a run shows
every failure at once. Cases the contract leaves open are in `reader_corpus.OPEN` with a
proposed verdict; they are graded by the baseline script but not asserted here.

The whole corpus, its failures today and the open cases' verdicts:
    python tests/support/reader_corpus.py --out tests/data/reader_failures_baseline.txt
"""

from __future__ import annotations

import collections

import pytest

from support.reader_corpus import SEED, build_corpus, failures, grade_cases


@pytest.fixture(scope="module")
def corpus():
    cases = build_corpus()
    verdicts, refused = grade_cases(cases)
    return cases, failures(cases, verdicts, refused)


def _report(title: str, lines: list[str]) -> str:
    by = collections.Counter(line[1:line.index("]")] for line in lines)
    head = ", ".join(f"{kind}: {n}" for kind, n in by.most_common())
    return f"{len(lines)} {title} ({head}):\n" + "\n".join(lines)


def test_corpus_is_seeded_large_and_covers_every_kind():
    cases = build_corpus()
    assert cases == build_corpus(SEED), "the corpus must be reproducible from its seed"
    fam = collections.Counter(c.family for c in cases)
    assert fam["render"] >= 1500 and fam["miss"] >= 2000, fam
    render_kinds = {c.kind for c in cases if c.family == "render"}
    miss_kinds = {c.kind for c in cases if c.family == "miss"}
    # the table of notations, and its list of near-misses
    assert {"time", "currency", "latex-separator", "unicode-fraction", "unicode-minus",
            "scientific", "percent", "wrapper", "frac-trailing-words",
            "constant-or-expression", "symbol-times-unit", "interval-3-digit",
            "interval-semicolon", "interval-complement", "interval-or", "interval-condition",
            "list", "plus-minus", "statement", "choice-in-prose"} <= render_kinds
    assert {"sign-flip", "expression-changed", "digit-off-or-transposed",
            "separator-changes-value", "endpoints-swapped", "endpoint-opened-or-closed",
            "union-piece-missing", "list-changed", "plus-minus-changed", "time-changed",
            "hedged-box", "negated-box", "every-integer", "invisible-character",
            "phantom-or-color", "unknown-macro", "lhs-not-a-variable", "percent-hides-100",
            "trailing-word-not-a-unit", "choice-hedged", "box-after-box-empty",
            "box-after-box-unclosed", "box-commented-out", "statement-hedged",
            "statement-retracted"} <= miss_kinds
    # each near-miss and rendering exists with and without a reasoning block
    assert {("<think>" in c.response) for c in cases if c.family == "miss"} == {True, False}
    assert {("<think>" in c.response) for c in cases if c.family == "render"} == {True, False}


def test_no_near_miss_ever_grades_correct(corpus):
    _, (false_positives, _, _) = corpus
    assert not false_positives, _report("near-misses graded correct", false_positives)


def test_every_rendering_of_the_gold_grades_correct(corpus):
    _, (_, missed, _) = corpus
    assert not missed, _report("renderings of the gold not graded correct", missed)


def test_every_gold_of_the_corpus_is_accepted(corpus):
    _, (_, _, refused) = corpus
    assert not refused, f"{len(refused)} golds refused:\n" + "\n".join(refused)
