"""CFE-Bench's records: a problem, its answer variables and its reasoning flow (data.py
loads them; release_rows.py checks a release row into one)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from . import NAME

BENCHMARK = NAME                    # the benchmark's name, as its rows carry it
FILES = {"text": "CFE_text.json", "mm": "CFE_mm.json"}
SUBSETS = ("all", "text", "mm")
HUB_ID = "Analogy-AI/CFE_Bench"     # where a copy would be published; none is, as of writing
DATA_ENV = "CFE_BENCH_DATA"         # a folder with the release's files
DUPLICATE_MARK = "~"
MAX_TOLERANCE = 0.5                 # a relative tolerance above this accepts nearly anything


class VariableType(str, enum.Enum):
    NUMERIC = "numeric"
    FORMULA = "formula"
    OTHER = "other"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Variable:
    """One annotated answer variable: what the model must state, and its gold value."""

    name: str
    type: VariableType
    description: str
    value: str
    tolerance: float | None = None  # the row's own relative tolerance for this variable

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "type": self.type.value, "description": self.description,
             "value": self.value}
        if self.tolerance is not None:
            d["tolerance"] = self.tolerance
        return d


@dataclass(frozen=True)
class FlowStep:
    """One unit of the reference reasoning flow: a sub-question and its checkable answer."""

    step_id: int
    step: str
    verifiable_answer: str | int | float | bool


@dataclass(frozen=True)
class CFEProblem:
    id: str
    question: str
    variables: tuple[Variable, ...]
    modality: str = "text"                      # text | mm
    images: tuple[str, ...] = ()                # absolute paths of the question's figures
    solution: str = ""                          # the instructor's solution (answer.text)
    solution_images: tuple[str, ...] = ()
    reasoning_flow: tuple[FlowStep, ...] = ()
    subject: str | None = None
    tolerance: float | None = None              # the row's relative tolerance
    source_id: str = ""                         # the id as the release spells it
    source: str = ""                            # file:row

    def __post_init__(self):
        if not self.source_id:
            object.__setattr__(self, "source_id", self.id)

    def inline_fields(self) -> dict[str, Any]:
        """What each response row carries of its problem, so that it is graded (and
        reported) with no dataset at hand: the variables (the gold), the question, the
        modality, the subject and tolerance where set. Figures are not carried."""
        d: dict[str, Any] = {"benchmark": BENCHMARK, "question": self.question,
                             "modality": self.modality,
                             "variables": [v.to_dict() for v in self.variables]}
        if self.subject is not None:
            d["subject"] = self.subject
        if self.tolerance is not None:
            d["tolerance"] = self.tolerance
        return d

    def graded_fields(self) -> dict[str, Any]:
        """The fields a graded row carries (schema.Graded.to_dict): the inline ones, and
        `answer`, every variable's gold on one line (what the audit shows a reviewer)."""
        return {**self.inline_fields(),
                "answer": "; ".join(f"{v.name} = {v.value}" for v in self.variables)}

    def tolerance_for(self, variable: Variable, default: float) -> float:
        """The relative tolerance for a variable: its own, else its row's, else `default`."""
        if variable.tolerance is not None:
            return variable.tolerance
        return self.tolerance if self.tolerance is not None else default


@dataclass
class CFEData:
    """What a load produced: the problems (text rows first, in file order) and notes."""

    source: str
    problems: list[CFEProblem]
    notes: list[str] = field(default_factory=list)

    def subset(self, modality: str) -> list[CFEProblem]:
        return [p for p in self.problems if p.modality == modality]

    def summary(self) -> dict[str, Any]:
        types: dict[str, int] = {}
        for p in self.problems:
            for v in p.variables:
                types[v.type.value] = types.get(v.type.value, 0) + 1
        return {"source": self.source, "problems": len(self.problems),
                "text": len(self.subset("text")), "mm": len(self.subset("mm")),
                "variables": sum(len(p.variables) for p in self.problems),
                "variable_types": dict(sorted(types.items())), "notes": list(self.notes)}
