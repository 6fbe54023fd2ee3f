"""A deliberately templated question set: a few templates with names and numbers swapped.

It is what the paper calls template-based expansion (section 3.3), made on purpose, so that
the diversity measures of general365.analysis can be tested against a set whose lack of
diversity is known: every item is one of `TEMPLATES` with other names and numbers, and every
"variant" is its seed with other names and numbers.

    rows = templated_rows(families=30, variants=3, seed=0)   # General365-format dicts
    write_templated(path, ...)                               # the same as a .jsonl file

Also used by benchmarks/analyze_scale.py to make sets of the paper's sizes.
"""

from __future__ import annotations

import json
import random
from typing import Callable

NAMES = ("Alice", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jun",
         "Kemal", "Lena", "Mateo", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sami", "Tove")

# (text, answer from the numbers): each template has name slots a, b and number slots x, y, z.
TEMPLATES: tuple[tuple[str, Callable[[int, int, int], int]], ...] = (
    ("{a} collects stamps and keeps them in an album. At the start of the month the album "
     "holds {x} stamps. During the month {b} gives {a} {y} more stamps from an old "
     "collection, and at the end of the month {a} gives away {z} stamps to friends at "
     "school. No stamp is lost or bought. How many stamps does the album of {a} hold at "
     "the end of the month? Put your final answer in \\boxed{{}}.",
     lambda x, y, z: x + y - z),
    ("A train leaves the central station with {x} passengers on board. At the first stop "
     "{y} passengers get off and {z} passengers get on; {a} and {b} are among those who "
     "stay on board the whole time. Nobody else gets on or off before the second stop. "
     "How many passengers are on the train when it arrives at the second stop? Put your "
     "final answer in \\boxed{{}}.", lambda x, y, z: x - y + z),
    ("{a} reads {x} pages of a long novel every evening for {y} evenings in a row, and "
     "{b}, who is reading the same novel, reads {z} pages every evening over the same "
     "evenings. Neither of them skips an evening or rereads a page. How many pages do "
     "{a} and {b} read in total over those evenings? Put your final answer in "
     "\\boxed{{}}.", lambda x, y, z: (x + z) * y),
    ("A rectangular vegetable garden owned by {a} is {x} metres long and {y} metres wide. "
     "Its neighbour {b} offers to plant one tomato seedling every {z} square metres, but "
     "first the two of them measure the whole garden. How many square metres does the "
     "garden cover? Put your final answer in \\boxed{{}}.", lambda x, y, z: x * y),
)


def _one(rng: random.Random, template: int) -> tuple[str, str]:
    text, answer = TEMPLATES[template]
    a, b = rng.sample(NAMES, 2)
    x, y, z = rng.randint(20, 90), rng.randint(2, 19), rng.randint(2, 19)
    question = text.format(a=a, b=b, x=x, y=y, z=z)
    return question, str(answer(x, y, z))


def templated_rows(families: int = 30, variants: int = 3, *, seed: int = 0,
                   prefix: str = "tpl") -> list[dict]:
    """`families` seeds (template = family number modulo the number of templates), each
    with `variants` variants of the same template."""
    rng = random.Random(seed)
    rows = []
    for f in range(families):
        seed_id = f"{prefix}-{f + 1:04d}"
        for v in range(variants + 1):
            question, answer = _one(rng, f % len(TEMPLATES))
            rows.append({"id": seed_id if v == 0 else f"{seed_id}-v{v}", "seed_id": seed_id,
                         "variant": v, "question": question, "answer": answer,
                         "answer_type": "number", "float_round": "0",
                         "categories": ["Complex Constraints"]})
    return rows


def write_templated(path, families: int = 30, variants: int = 3, *, seed: int = 0) -> str:
    with open(path, "w", encoding="utf-8") as f:
        for row in templated_rows(families, variants, seed=seed):
            f.write(json.dumps(row) + "\n")
    return str(path)
