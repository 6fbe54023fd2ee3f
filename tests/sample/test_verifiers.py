"""Every sample row's gold, recomputed by its family's verifier from the question's own text.

Three checks per row: the recomputed answer matches the gold; a wrong gold of the same kind
does not; and editing numbers in the question (without touching the verifier) fails.
"""

from __future__ import annotations

import os
import re

import pytest

from sample.families import load_all
from sample.harness import (DIGITS, MACHINE_SOURCE, VERIFIERS, check_row, matches,
                            mutated_gold, recompute, rows)

load_all()


@pytest.mark.parametrize("row_id", sorted(rows()))
def test_gold_is_recomputed(row_id):
    assert row_id in VERIFIERS, f"{row_id} has no verifier"
    check_row(row_id)


@pytest.mark.parametrize("row_id", sorted(rows()))
def test_a_wrong_gold_fails(row_id):
    p = rows()[row_id]
    wrong = mutated_gold(p)
    assert wrong != p.answer
    computed = recompute(row_id)
    assert matches(p.answer_type, p.answer, p.float_round, computed)
    assert not matches(p.answer_type, wrong, p.float_round, computed), \
        f"{row_id}: the verifier also accepts the gold {wrong!r}"


def edits(text: str):
    """Copies of `text` with one number changed each (n -> n + 1; ½ -> ¼)."""
    for m in DIGITS.finditer(text):
        new = "¼" if not m.group().isdigit() else str(int(m.group()) + 1)
        yield m, text[:m.start()] + new + text[m.end():]


def noticed(row_id: str, edited: str, *, pinned: bool) -> bool:
    try:
        check_row(row_id, text=edited, pinned=pinned)
    except (AssertionError, ValueError, KeyError, IndexError, ZeroDivisionError):
        return True
    return False


@pytest.mark.parametrize("row_id", sorted(rows()))
def test_editing_any_number_in_the_question_fails(row_id):
    text = rows()[row_id].question
    missed = [m.group() for m, edited in edits(text) if not noticed(row_id, edited, pinned=True)]
    assert not missed, f"{row_id}: edits of these numbers go unnoticed: {missed}"


# Rows whose answer depends on none of their numbers taken one at a time (checked: the
# test below fails for them if that stops being true).
NO_NUMBER_MATTERS = {
    # Independence of X: three dice the same, Y: red shows k holds for every k; the other
    # pairs stay dependent (or independent) whichever single number is edited.
    "g365s-028-v3",
}


def data_numbers(text: str) -> list:
    """The numbers of a question other than its list numbering ("3. ..." at a line start)."""
    return [m for m in DIGITS.finditer(text)
            if not re.match(r"\d+\. ", text[m.start():]) or text[m.start() - 1:m.start()] not in
            ("", "\n")]


@pytest.mark.parametrize("row_id", [r for r in sorted(rows()) if data_numbers(rows()[r].question)])
def test_the_verifier_reads_the_numbers_it_uses(row_id):
    # Without the declared list, editing some number must still change the recomputed answer
    # (or break the reading): the verifier solves the question as written, not a copy of it.
    # With G365_SAMPLE_EDIT_ALL=1 every number is tried and the ones the answer does not
    # depend on are printed (worth a look after writing a family).
    every = os.environ.get("G365_SAMPLE_EDIT_ALL") == "1"
    text = rows()[row_id].question
    ignored = []
    for m in data_numbers(text):
        new = "¼" if not m.group().isdigit() else str(int(m.group()) + 1)
        if noticed(row_id, text[:m.start()] + new + text[m.end():], pinned=False):
            if not every:
                return
        else:
            ignored.append(m.group())
    if every:
        print(row_id, "answer does not depend on:", ignored)
    if row_id in NO_NUMBER_MATTERS:
        assert len(ignored) == len(data_numbers(text)), f"{row_id}: now some number matters"
    else:
        assert len(ignored) < len(data_numbers(text)), \
            f"{row_id}: no edited number changes anything"


def test_every_verifier_names_an_existing_row():
    assert set(VERIFIERS) <= set(rows())


def test_the_source_field_names_the_family_module():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for rid, p in rows().items():
        module = VERIFIERS[rid].module
        assert p.source == MACHINE_SOURCE.format(path=module), rid
        assert os.path.isfile(os.path.join(root, module))
        family = re.match(r"g365s-(\d{3})", rid).group(1)
        assert os.path.basename(module).startswith(f"f{family}_"), (rid, module)
