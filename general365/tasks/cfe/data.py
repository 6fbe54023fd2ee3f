"""CFE-Bench's records (a problem, its answer variables, its reasoning flow) and the release
read from its folder, one of its files or a Hub copy (docs/cfe-bench.md, "Data"). Loading
is all-or-nothing: every row is checked and each bad row is a DataError naming file, row
number, id, field and what was expected.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from ...errors import DataError, DataErrors, UserError
from ...jsonl import parse as parse_json
from ...schema.enums import _StrEnum
from ...validators import is_finite, is_int
from . import NAME

FILES = {"text": "CFE_text.json", "mm": "CFE_mm.json"}
SUBSETS = ("all", "text", "mm")
DATA_ENV = "CFE_BENCH_DATA"         # a folder with the release's files
DUPLICATE_MARK = "~"
MAX_TOLERANCE = 0.5                 # a relative tolerance above this accepts nearly anything


class VariableType(_StrEnum):
    NUMERIC = "numeric"
    FORMULA = "formula"
    OTHER = "other"


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
        """What a response row carries of its problem, so that it is graded and reported
        with no dataset at hand (figures are not carried)."""
        d: dict[str, Any] = {"benchmark": NAME, "question": self.question,
                             "modality": self.modality,
                             "variables": [v.to_dict() for v in self.variables]}
        if self.subject is not None:
            d["subject"] = self.subject
        if self.tolerance is not None:
            d["tolerance"] = self.tolerance
        return d

    def graded_fields(self) -> dict[str, Any]:
        """The inline fields, and `answer`: every gold on one line (for the audit)."""
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
        types = Counter(v.type.value for p in self.problems for v in p.variables)
        return {"source": self.source, "problems": len(self.problems),
                "text": len(self.subset("text")), "mm": len(self.subset("mm")),
                "variables": sum(len(p.variables) for p in self.problems),
                "variable_types": dict(sorted(types.items())), "notes": list(self.notes)}


# --- one release row -----------------------------------------------------------------


class _RowCheck:
    """Checks of one raw row; every failure is a DataError naming the row."""

    def __init__(self, path: str, index: int):
        self.path, self.index = path, index
        self.row_id: str | None = None

    def fail(self, message: str, field: str | None = None, value: Any = None,
             expected: str | None = None) -> DataError:
        return DataError(message, path=self.path, line=self.index, row_id=self.row_id,
                         field=field, value=value, expected=expected)

    def get(self, d: Mapping[str, Any], key: str, where: str | None = None) -> Any:
        name = f"{where}.{key}" if where else key
        if key not in d or d[key] is None:
            raise self.fail("missing field", name, expected=_EXPECTED.get(name, "a value"))
        return d[key]

    def text(self, value: Any, name: str, *, empty: bool = True) -> str:
        if not isinstance(value, str):
            raise self.fail("wrong type", name, value, "a string")
        if not empty and not value.strip():
            raise self.fail("empty", name, value, "a non-empty string")
        return value

    def strings(self, value: Any, name: str, *, scalars: bool = False) -> list[str]:
        if not isinstance(value, list):
            raise self.fail("wrong type", name, value, "a list of strings")
        out = []
        for i, v in enumerate(value):
            if scalars and is_finite(v):
                v = str(v)   # a number where the release writes text: read as written
            if not isinstance(v, str):
                raise self.fail("wrong type", f"{name}[{i}]", v, "a string")
            out.append(v)
        return out

    def tolerance(self, value: Any, name: str) -> float | None:
        if value is None:
            return None
        if not is_finite(value) or not 0 <= value <= MAX_TOLERANCE:
            raise self.fail("bad tolerance", name, value,
                            f"a relative tolerance from 0 to {MAX_TOLERANCE} (0.01 = 1%)")
        return float(value)

    def images(self, value: Any, name: str, folder: Path | None) -> tuple[str, ...]:
        paths = self.strings(value, name)
        if folder is None:
            return tuple(paths)
        root = folder.resolve()
        out = []
        for i, p in enumerate(paths):
            where = f"{name}[{i}]"
            if not p.strip() or os.path.isabs(p):
                raise self.fail("bad image path", where, p, "a path relative to the data folder")
            full = (folder / p).resolve()
            if root not in full.parents:
                raise self.fail("image path leaves the data folder", where, p,
                                "a path inside the data folder")
            if not full.is_file():
                raise self.fail("image file not found", where, p, f"a file under {folder}")
            out.append(str(full))
        return tuple(out)

    def flow(self, value: Any) -> tuple[FlowStep, ...]:
        """The steps in the order given: the release numbers one flow 1, 2, 2, 3, ..."""
        if not isinstance(value, list):
            raise self.fail("wrong type", "reasoning_flow", value, _EXPECTED["reasoning_flow"])
        steps = []
        for i, s in enumerate(value):
            where = f"reasoning_flow[{i}]"
            if not isinstance(s, Mapping):
                raise self.fail("wrong type", where, s,
                                "an object {step_id, step, verifiable_answer}")
            sid = s.get("step_id")
            if not is_int(sid) or sid < 0:
                raise self.fail("bad step_id", f"{where}.step_id", sid, "a non-negative integer")
            step = self.text(s.get("step"), f"{where}.step", empty=False)
            ans = s.get("verifiable_answer")
            if isinstance(ans, float) and not math.isfinite(ans):
                ans = None
            if not isinstance(ans, (str, int, float, bool)):
                raise self.fail("bad verifiable_answer", f"{where}.verifiable_answer", ans,
                                "a string, number or boolean")
            steps.append(FlowStep(sid, step, ans))
        return tuple(steps)


_LISTS = ("short_answer_variable", "short_answer_value", "short_answer_description",
          "short_answer_type")
_EXPECTED = {
    "id": "a non-empty string",
    "question": "an object with 'text' and 'images'",
    "question.text": "the question as a non-empty string",
    "answer": "an object with 'text' (the instructor's solution) and 'images'",
    "short_answer_value": "a list with one gold value per variable",
    "short_answer_variable": "a list of variable names",
    "short_answer_description": "a list with one description per variable",
    "short_answer_type": "a list of numeric | formula | other, one per variable",
    "reasoning_flow": "a list of {step_id, step, verifiable_answer}",
}


def parse_row(raw: Any, *, path: str, index: int, modality: str | None,
              folder: Path | None) -> CFEProblem:
    """One release row as a CFEProblem; a DataError names what is wrong with it."""
    row = _RowCheck(path, index)
    if not isinstance(raw, Mapping):
        raise row.fail("not a JSON object", value=raw, expected="one object per problem")
    rid = row.get(raw, "id")
    if is_int(rid):
        rid = str(rid)
    row.row_id = rid if isinstance(rid, str) else None
    rid = row.text(rid, "id", empty=False)
    q = row.get(raw, "question")
    if not isinstance(q, Mapping):
        raise row.fail("wrong type", "question", q, _EXPECTED["question"])
    question = row.text(row.get(q, "text", "question"), "question.text", empty=False)
    images = row.images(q.get("images") or [], "question.images", folder)
    a = raw.get("answer") or {}
    if not isinstance(a, Mapping):
        raise row.fail("wrong type", "answer", a, _EXPECTED["answer"])
    solution = row.text(a.get("text") or "", "answer.text")
    solution_images = row.images(a.get("images") or [], "answer.images", folder)
    lists = {k: row.get(raw, k) for k in _LISTS}
    names, values, descs, types = [row.strings(v, k, scalars=k == "short_answer_value")
                                   for k, v in lists.items()]
    if not names:
        raise row.fail("no variables", "short_answer_variable", names,
                       "at least one answer variable")
    for k, got in zip(_LISTS[1:], (values, descs, types)):
        if len(got) != len(names):
            raise row.fail(f"{len(got)} entries for {len(names)} variables", k, got,
                           "one entry per short_answer_variable")
    tolerances = raw.get("short_answer_tolerance")
    if tolerances is not None and (not isinstance(tolerances, list)
                                   or len(tolerances) != len(names)):
        raise row.fail("wrong shape", "short_answer_tolerance", tolerances,
                       "a list with one tolerance (or null) per variable")
    variables = []
    tols = tolerances if tolerances is not None else [None] * len(names)
    for i, (n, v, d, t, tl) in enumerate(zip(names, values, descs, types, tols)):
        n = row.text(n, f"short_answer_variable[{i}]", empty=False).strip()
        if n in [x.name for x in variables]:
            raise row.fail("a variable name appears twice", f"short_answer_variable[{i}]", n,
                           "distinct variable names")
        if not v.strip():
            raise row.fail("empty", f"short_answer_value[{i}]", v, "the gold value")
        try:
            vt = VariableType(t.strip().lower())
        except ValueError:
            raise row.fail("unknown variable type", f"short_answer_type[{i}]", t,
                           "numeric, formula or other") from None
        tol = row.tolerance(tl, f"short_answer_tolerance[{i}]")
        variables.append(Variable(n, vt, d.strip(), v.strip(), tol))
    flow = row.flow(raw.get("reasoning_flow") or [])
    subject = raw.get("subject", raw.get("field"))
    if subject is not None:
        subject = row.text(subject, "subject", empty=False).strip()
    mod = modality or ("mm" if images else "text")
    if mod == "text" and images:
        raise row.fail("images in a text-only file", "question.images", len(images),
                       f"no images (multimodal rows belong in {FILES['mm']})")
    return CFEProblem(id=rid, question=question, variables=tuple(variables), modality=mod,
                      images=images, solution=solution, solution_images=solution_images,
                      reasoning_flow=flow, subject=subject,
                      tolerance=row.tolerance(raw.get("tolerance"), "tolerance"),
                      source=f"{path}:{index}")


def parse_rows(files: Iterable[tuple[Path, str | None, list[Any]]], *,
               folder: Path | None) -> tuple[list[CFEProblem], list[str]]:
    """Check every row of every file; raises DataErrors listing each bad row once."""
    problems: list[CFEProblem] = []
    errors: list[DataError] = []
    seen: dict[str, int] = {}
    renamed: list[str] = []
    for path, modality, rows in files:
        for i, raw in enumerate(rows, start=1):
            try:
                p = parse_row(raw, path=str(path), index=i, modality=modality, folder=folder)
            except DataError as exc:
                errors.append(exc)
                continue
            k = seen.get(p.id, 0) + 1
            seen[p.id] = k
            if k > 1:
                new = f"{p.id}{DUPLICATE_MARK}{k}"
                renamed.append(f"{p.source} -> {new[:12]}...{new[-3:]}")
                p = dataclasses.replace(p, id=new, source_id=p.id)
            problems.append(p)
    if errors:
        raise DataErrors(errors)
    final: dict[str, CFEProblem] = {}
    for p in problems:   # a release id that already reads like a renamed duplicate
        if p.id in final:
            path, line = p.source.rsplit(":", 1)
            errors.append(DataError("the id collides with a renamed duplicate", path=path,
                                    line=int(line), row_id=p.id, field="id",
                                    expected=f"ids without '{DUPLICATE_MARK}N' suffixes"))
        final[p.id] = p
    if errors:
        raise DataErrors(errors)
    notes = []
    if renamed:
        notes.append(f"{len(renamed)} row(s) repeat an earlier id and were renamed ID~k "
                     f"(source_id keeps the release's id): " + "; ".join(renamed))
    return problems, notes


# --- files and folders ------------------------------------------------------------------


def _read_array(path: Path) -> list[Any]:
    from ...data.readers import read_text

    if not path.is_file():
        raise UserError(f"{path}: no such file")
    value = parse_json(read_text(path), path=str(path), expected="a JSON array of problems")
    if not isinstance(value, list):
        raise DataError("not a JSON array", path=str(path), value=type(value).__name__,
                        expected="a JSON array of problems (the release's format)")
    return value


def load_folder(folder: str | os.PathLike, subset: str = "all") -> CFEData:
    """The release's folder (CFE_text.json, CFE_mm.json, images/)."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder (expected the CFE-Bench release: "
                        f"{FILES['text']}, {FILES['mm']}, images/)")
    if subset not in SUBSETS:
        raise UserError(f"unknown CFE-Bench subset {subset!r}; expected one of "
                        f"{', '.join(SUBSETS)}")
    files = [(folder / FILES[m], m) for m in (("text", "mm") if subset == "all" else (subset,))]
    missing = [p.name for p, _ in files if not p.is_file()]
    if missing:
        raise UserError(f"{folder}: no {', '.join(missing)} (expected the CFE-Bench release "
                        f"format: {FILES['text']}, {FILES['mm']} and images/)")
    problems, notes = parse_rows([(p, m, _read_array(p)) for p, m in files], folder=folder)
    return CFEData(str(folder), problems, notes)


def load_file(path: str | os.PathLike) -> CFEData:
    """One file in the release's format; images resolve against the file's folder, and a
    row is multimodal when it has images (or the file is named CFE_mm.json)."""
    path = Path(path).expanduser()
    modality = {v: k for k, v in FILES.items()}.get(path.name)
    problems, notes = parse_rows([(path, modality, _read_array(path))], folder=path.parent)
    return CFEData(str(path), problems, notes)


def load_hub(hub_id: str, subset: str = "all", *, revision: str | None = None) -> CFEData:
    """A copy of the release on the Hugging Face Hub, in the release's layout, fetched to
    the Hub cache and read as a folder; refused at once when the Hub cannot be reached."""
    from ...data.readers import require_hub

    require_hub(hub_id)
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        from ...errors import MissingExtra

        raise MissingExtra("huggingface_hub", "data") from None
    patterns = [name for _, name in sorted(FILES.items())] + ["images/**"]
    try:
        local = snapshot_download(hub_id, repo_type="dataset", revision=revision,
                                  allow_patterns=patterns)
    except Exception as exc:   # the Hub's errors are many; the user needs the one line
        raise UserError(f"could not fetch {hub_id} from the Hub: {exc}") from None
    data = load_folder(local, subset)
    data.source = f"hub:{hub_id}" + (f"@{revision}" if revision else "")
    return data


def load(source: str | os.PathLike | None = None, subset: str = "all") -> CFEData:
    """A folder, a file, or a Hub id (ORG/NAME); None: $CFE_BENCH_DATA."""
    if source is None:
        source = os.environ.get(DATA_ENV)
        if not source:
            raise UserError(f"no CFE-Bench source: give the release's folder (with "
                            f"{FILES['text']}, {FILES['mm']}, images/) or set ${DATA_ENV}")
        source = Path(source).expanduser()
    path = Path(source).expanduser()
    if path.is_dir():
        return load_folder(path, subset)
    if path.is_file():
        data = load_file(path)
        if subset != "all":
            data.problems = data.subset(subset)
        return data
    from ...data.readers import looks_like_hub_id

    if looks_like_hub_id(str(source)):
        return load_hub(str(source), subset)
    raise UserError(f"{source}: no such file or folder, and not a Hub id (ORG/NAME)")

