"""CFE-Bench grading: responses written from the real golds (right values, other units,
scientific notation, perturbed values, missing variables, boxes instead of lines) graded by
the real rule path and pool; Variable and Question Accuracy checked against values this
test computes itself; formulas by symbolic equivalence; policies with the real Judge
against the fault-injecting server."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from general365.errors import UserError
from general365.grading.judge import Judge
from general365.schema import Response, Status
from general365.tasks.cfe.data import CFEProblem, Variable, VariableType
from general365.tasks.cfe.grade import grade, question_status
from general365.tasks.cfe.graded_rows import accuracy, read_cfe_graded
from general365.tasks.cfe.grade import PROMPT_VERSION
from support.servers import Behaviour

TRUE, FALSE = '{"accuracy": true}', '{"accuracy": false}'

# The test's own reading of a gold that is a plain number with a unit it can convert: a
# prefix and a base unit from this short list. Independent of the grader's tables.
_PREFIX = {"": 0, "k": 3, "M": 6, "G": 9, "m": -3, "µ": -6, "n": -9, "p": -12}
_BASES = ("bp", "Pa", "eV", "Hz", "m", "s", "g", "J", "W", "V", "A", "N")
_GOLD = re.compile(r"^(-?\d+(?:\.\d+)?)(?:\s*(?:×|·)\s*10\^\{?(-?\d+)\}?)?(?:\s+([kMGmµn]?)"
                   r"(" + "|".join(_BASES) + r"))?$")


def plain_number(value: str):
    """(Fraction, prefix, base) when the test can read the gold, else None."""
    m = _GOLD.match(value.strip())
    if m is None:
        return None
    v = Fraction(m.group(1)) * (Fraction(10) ** int(m.group(2)) if m.group(2) else 1)
    return v, m.group(3) or "", m.group(4) or ""


def decimal(v: Fraction) -> str:
    return format(float(v), ".12g")


def rewrite(value: str) -> str:
    """The same quantity written differently: one prefix down (x1000) when it has a unit,
    else in e-notation."""
    v, prefix, base = plain_number(value)
    if base:
        down = {0: "m", 3: "", 6: "k", 9: "M", -3: "µ", -6: "n", -9: "p"}[_PREFIX[prefix]]
        return f"{decimal(v * 1000)} {down}{base}"
    return f"{float(v):.10e}".replace("e+", "e")


def perturb(value: str) -> str:
    v, prefix, base = plain_number(value)
    wrong = v * Fraction(11, 10) if v else Fraction(1)
    return f"{decimal(wrong)} {prefix}{base}".strip()


KINDS = ("right", "rewritten", "boxed", "perturbed", "missing")


def respond(p: CFEProblem, kind: str) -> tuple[str, list[bool]]:
    """A response of the given kind and which of its variables are right."""
    vs = p.variables
    if kind == "boxed":
        return "Working...\n" + " ".join(f"\\boxed{{{v.value}}}" for v in vs), [True] * len(vs)
    lines, right = [], []
    for i, v in enumerate(vs):
        if kind == "missing" and i == len(vs) - 1:
            right.append(False)
            continue
        if kind == "perturbed" and i == 0:
            lines.append(f"{v.name} = {perturb(v.value)}")
            right.append(False)
            continue
        value = rewrite(v.value) if kind == "rewritten" else v.value
        lines.append(f"{v.name} = {value}")
        right.append(True)
    return "Some working first: x = 12 (not a variable).\n\nFinal answers:\n" + \
        "\n".join(lines), right


def test_real_golds_give_the_accuracies_computed_here(cfe_data, tmp_path):
    chosen = [p for p in cfe_data.problems
              if all(plain_number(v.value) for v in p.variables)
              and all(v.type is not VariableType.FORMULA for v in p.variables)]
    assert len(chosen) >= 60, len(chosen)        # numeric and unit-valued `other` answers
    pairs, labels = [], []
    for i, p in enumerate(chosen):
        kind = KINDS[i % len(KINDS)]
        text, right = respond(p, kind)
        pairs.append((Response(p.id, 0, text, model="golds"), p))
        labels.append(right)
    graded = grade(pairs, policy="rule")
    # Each variable's verdict is the label written.
    for g, right in zip(graded, labels):
        got = [v.status is Status.CORRECT for v in g.variables]
        assert got == right, (g.problem.id, [(v.variable.value, v.extracted, v.status.value,
                                              v.detail) for v in g.variables])
        assert g.correct == all(right)
    missing = [v for g in graded for v in g.variables if v.extracted is None]
    assert missing and all(v.status is Status.NO_ANSWER for v in missing)
    # The measures, through the graded file and the report's reader.
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps(g.record()) + "\n" for g in graded), encoding="utf-8")
    [model] = read_cfe_graded([str(path)])
    a = accuracy(model.rows)
    want_var = sum(Fraction(sum(r), len(r)) for r in labels) / len(labels)
    want_q = Fraction(sum(all(r) for r in labels), len(labels))
    assert a.variable_accuracy == pytest.approx(float(want_var), abs=1e-12)
    assert a.question_accuracy == pytest.approx(float(want_q), abs=1e-12)
    assert a.variable_coverage == 1.0
    assert 0 < want_q < want_var < 1


def test_every_real_gold_stated_verbatim_is_never_wrong(cfe_data):
    pairs = [(Response(p.id, 0, "\n".join(f"{v.name} = {v.value}" for v in p.variables)), p)
             for p in cfe_data.problems]
    graded = grade(pairs, policy="rule")
    statuses = [(v.variable.type, v.status) for g in graded for v in g.variables]
    assert len(statuses) == sum(len(p.variables) for p in cfe_data.problems)
    wrong = [(g.problem.id, v.variable.name, v.detail) for g in graded for v in g.variables
             if v.status not in (Status.CORRECT, Status.UNGRADED)]
    # One gold states its parameters after the formula (`G(z) = ..., \Omega = 10^{-1}, r =
    # 0.98`), and the line of `G(z)` is cut where `\Omega =` starts: the parameters are not
    # part of the formula, so it is still right.
    assert wrong == []
    numeric = [s for t, s in statuses if t is VariableType.NUMERIC]
    assert numeric and all(s is Status.CORRECT for s in numeric)
    assert sum(s is Status.CORRECT for t, s in statuses if t is VariableType.FORMULA) >= 350
    # `other` answers in words are the judge's: ungraded under policy rule.
    assert any(s is Status.UNGRADED for t, s in statuses if t is VariableType.OTHER)


def test_real_formulas_in_equivalent_forms(cfe_data):
    simple = [(p, v) for p in cfe_data.problems for v in p.variables
              if v.type is VariableType.FORMULA and len(v.value) < 60
              and not re.search(r"=|\\begin|\\le|\\ge|<|>|\\in|\\sim|\\approx|,|\\pm", v.value)]
    sample = simple[::max(1, len(simple) // 16)][:16]
    assert len(sample) == 16
    pairs = []
    for p, v in sample:
        one = CFEProblem(p.id, p.question, (v,))
        g = v.value.strip().strip("$")
        pairs.append((Response(p.id, 0, f"{v.name} = $\\frac{{2}}{{3}}\\cdot\\frac{{3}}{{2}}"
                                        f"\\left({g}\\right)$"), one))
        pairs.append((Response(p.id, 1, f"{v.name} = $\\left({g}\\right) + 1$"), one))
    graded = grade(pairs, policy="rule")
    same, plus_one = graded[0::2], graded[1::2]
    assert not [g for g in same if g.status is Status.INCORRECT]
    assert sum(g.correct for g in same) >= 13, [(g.variables[0].variable.value,
                                                 g.variables[0].detail) for g in same]
    assert not [g for g in plus_one if g.correct]
    assert sum(g.status is Status.INCORRECT for g in plus_one) >= 13


def formula_problem(gold: str, name: str = "y") -> CFEProblem:
    return CFEProblem("f-" + str(abs(hash(gold))), "Find it.",
                      (Variable(name, VariableType.FORMULA, "a formula", gold),))


@pytest.mark.parametrize("gold,answer,right", [
    (r"$\frac{\mu_0 I}{2\pi (R_1 + R_2)}$", r"\mu_0 I/(2\pi R_1 + 2\pi R_2)", True),
    (r"$\frac{\mu_0 I}{2\pi (R_1 + R_2)}$", r"\frac{\mu_0 I}{\pi (R_1 + R_2)}", False),
    (r"$2^{n} - n - 1$", r"-1 - n + 2^n", True),
    (r"$\frac{\pi}{T} e^{-|\omega| T}$", r"\pi e^{-T|\omega|}/T", True),
    (r"$\frac{\pi}{T} e^{-|\omega| T}$", r"\frac{\pi}{t} e^{-|\omega| t}", False),  # case
    (r"$H_{y} = -\frac{J_{0}}{a}\frac{\cos(ax)}{\sinh(ad)}$",
     r"-\frac{J_0 \cos(a x)}{a \sinh(a d)}", True),
    (r"$3 - 2\sqrt{2}$", r"(\sqrt{2}-1)^2", True),
    (r"$3 - 2\sqrt{2}$", "0.1716", True),                   # a number within 1%
    (r"$3 - 2\sqrt{2}$", "0.18", False),
    (r"$\ln(1+x) - \ln x$", r"\ln\frac{1+x}{x}", True),     # equal at random points
    (r"$\frac{5}{33}$", "0.1515", True),
    (r"$p + m g t$", "p + gtm", True),                      # `m g t` are symbols, not units
    # parameters stated after the formula are not part of it; two answers are two answers
    (r"$G = \frac{a}{z - r},\quad a = 2,\; r = 0.5$", r"\frac{a}{z-r}", True),
    (r"$G = \frac{a}{z - r},\quad a = 2,\; r = 0.5$", r"\frac{a}{z+r}", False),
    (r"$x = 1, y = 2$", "1", False),
])
def test_formulas(gold, answer, right):
    [g] = grade([(Response("r", 0, f"y = {answer}"), formula_problem(gold))], policy="rule")
    assert g.correct is right, g.variables[0].detail
    assert g.variables[0].method == "rule"


def numeric_problem(gold: str, name: str = "n") -> CFEProblem:
    return CFEProblem("n-" + str(abs(hash(gold))), "Count them.",
                      (Variable(name, VariableType.NUMERIC, "a count", gold),))


@pytest.mark.parametrize("gold,answer,right", [
    ("1", "1+0.009", False),            # issue 18: an integer gold is exact on every path
    ("12", r"\frac{24}{2}", True), ("2", r"(\sqrt{2})^2", True), ("12", "12.1", False),
    ("1.0", "1+0.009", True),           # a measurement keeps the tolerance
])
def test_integer_golds_are_exact_through_expressions_too(gold, answer, right):
    [g] = grade([(Response("r", 0, f"n = {answer}"), numeric_problem(gold))], policy="rule")
    assert g.correct is right, g.variables[0].detail


def test_a_formula_that_hangs_times_out_and_the_pool_goes_on():
    problems = [formula_problem(r"$x^2$")]
    pairs = [(Response("a", 0, r"y = 9^{9^{9^{9}}}"), problems[0]),
             (Response("a", 1, r"y = x \cdot x"), problems[0])]
    slow, fine = grade(pairs, policy="rule", timeout=2.0)
    assert slow.variables[0].status is Status.TIMEOUT and "limit" in slow.variables[0].detail
    assert slow.status is Status.TIMEOUT
    assert fine.correct


def test_question_status_rolls_up():
    C, I, N, U, J, T = (Status.CORRECT, Status.INCORRECT, Status.NO_ANSWER, Status.UNGRADED,
                        Status.JUDGE_FAILED, Status.TIMEOUT)
    assert question_status([C, C]) is C
    assert question_status([C, I, U]) is I
    assert question_status([N, N]) is N
    assert question_status([C, N]) is I       # a variable left out is a wrong question
    assert question_status([C, J]) is J and question_status([C, T, U]) is T
    assert question_status([C, U]) is U       # undecided, not wrong


def unit_problem() -> CFEProblem:
    return CFEProblem("u1", "Estimate the genome size and name the species.",
                      (Variable("genome_size", VariableType.OTHER, "in kbp", "6250 kbp"),
                       Variable("species", VariableType.OTHER, "its name", "E. coli")))


def test_tolerances_row_then_user():
    p = unit_problem()
    resp = Response("u1", 0, "genome_size = 6.4 Mbp\nspecies = E. coli")
    [g] = grade([(resp, p)], policy="rule")
    assert g.variables[0].status is Status.INCORRECT            # 2.4% off the default 1%
    [g] = grade([(resp, p)], policy="rule", tolerance=0.05)
    assert g.variables[0].status is Status.CORRECT
    strict = CFEProblem("u1", p.question, (Variable("genome_size", VariableType.OTHER, "",
                                                     "6250 kbp", 0.001),) + p.variables[1:],
                        tolerance=0.1)
    [g] = grade([(resp, strict)], policy="rule", tolerance=0.05)
    assert g.variables[0].status is Status.INCORRECT            # the variable's own wins
    loose = CFEProblem("u1", p.question, p.variables, tolerance=0.1)
    [g] = grade([(resp, loose)], policy="rule")
    assert g.variables[0].status is Status.CORRECT              # the row's beats the default


def test_rule_policy_leaves_words_ungraded_and_coverage_shows_it():
    [g] = grade([(Response("u1", 0, "genome_size = 6250 kbp\nspecies = E. coli"),
                  unit_problem())], policy="rule")
    assert [v.status for v in g.variables] == [Status.CORRECT, Status.UNGRADED]
    assert g.status is Status.UNGRADED and g.score == 1.0 and g.graded_variables == 1
    rec = g.record()
    assert [p["status"] for p in rec["parts"]] == ["correct", "ungraded"]
    assert rec["score"] == 1.0 and rec["status"] == "ungraded"
    assert rec["benchmark"] == "cfe" and rec["correct"] is False and "judge" not in rec
    # The gold travels with the row (regrading needs no dataset); the verdicts are parts.
    assert [v["value"] for v in rec["variables"]] == ["6250 kbp", "E. coli"]
    assert "status" not in rec["variables"][0]
    assert rec["answer"] == "genome_size = 6250 kbp; species = E. coli"


def test_bad_arguments():
    pairs = [(Response("u1", 0, "x"), unit_problem())]
    with pytest.raises(UserError, match="unknown grading policy"):
        grade(pairs, policy="strict")
    with pytest.raises(UserError, match="cascade sends CFE-Bench variables to an LLM judge"):
        grade(pairs, policy="cascade")
    for bad in (-0.1, 0.9, True, "1%"):
        with pytest.raises(UserError, match="tolerance"):
            grade(pairs, policy="rule", tolerance=bad)
    with pytest.raises(UserError, match="timeout"):
        grade(pairs, policy="rule", timeout=0)


# --- the judge path ------------------------------------------------------------------------


def judging_script(req, n):
    """A judge that says yes when the response's final part holds the reference value."""
    user = req["messages"][1]["content"]
    gold = user.split("\nReference value: ", 1)[1].split("\n", 1)[0]
    final = user.split("\nResponse (final part):\n", 1)[1]
    return Behaviour.reply(TRUE if gold in final else FALSE)


def make_judge(server, tmp_path, **kw):
    return Judge("cfe-judge", base_url=server.base_url, cache=tmp_path / "j.sqlite",
                 backoff_base=0.01, **kw)


def test_cascade_sends_only_what_the_rule_did_not_find_right(fault_server, tmp_path):
    fault_server.set_script(judging_script)
    p = unit_problem()
    responses = [
        Response("u1", 0, "<think>SECRET 6250 kbp</think>genome_size = 6.25 Mbp\n"
                          "species = E. coli"),            # rule: right; judge: species
        Response("u1", 1, "The genome is 6250 kbp long; species = E. coli"),   # no line
        Response("u1", 2, "<think>cut off before the answer"),                 # no region
    ]
    judge = make_judge(fault_server, tmp_path)
    a, b, c = grade([(r, p) for r in responses], policy="cascade", judge=judge)
    assert [v.method for v in a.variables] == ["rule", "judge"]
    assert a.correct and a.variables[1].detail.startswith("rule undecided (an 'other' answer")
    assert [v.status for v in b.variables] == [Status.CORRECT, Status.CORRECT]
    assert b.variables[0].method == "judge" and b.variables[0].detail == "rule: no_answer"
    assert c.status is Status.NO_ANSWER and all(v.method is None for v in c.variables)
    # Three variables reached the judge, with CFE's prompt, never the reasoning.
    assert len(fault_server.requests) == 3
    for req in fault_server.requests:
        system, user = (m["content"] for m in req["messages"])
        assert system.startswith("You are grading one answer variable")
        assert "SECRET" not in user and "Variable to check:" in user
    rec = b.record()
    # What the rule alone said of the question (one unstated, one undecided: not right),
    # first, for the audit to read.
    assert rec["method"] == "judge" and rec["detail"].startswith(
        "rule: incorrect; judge: 2 of 2")
    assert rec["judge"]["model"] == "cfe-judge" and json.loads(rec["judge"]["raw"]) == {
        "genome_size": TRUE, "species": TRUE}
    assert rec["status"] == "correct" and rec["score"] == 1.0
    assert [p["method"] for p in rec["parts"]] == ["judge", "judge"]
    # A second grade is served from the cache: the prompt's version is in its key.
    fault_server.reset()
    again = grade([(r, p) for r in responses], policy="cascade", judge=judge)
    assert not fault_server.requests and [g.status for g in again] == [a.status, b.status,
                                                                      c.status]
    assert PROMPT_VERSION.startswith("cfe-") and judge.prompt.version != PROMPT_VERSION


def test_paper_policy_judges_every_variable(fault_server, tmp_path):
    fault_server.set_script(judging_script)
    [g] = grade([(Response("u1", 0, "genome_size = 6250 kbp\nspecies = B. subtilis"),
                  unit_problem())], policy="paper", judge=make_judge(fault_server, tmp_path))
    assert [v.method for v in g.variables] == ["judge", "judge"]
    assert [v.status for v in g.variables] == [Status.CORRECT, Status.INCORRECT]
    assert g.status is Status.INCORRECT and g.score == 0.5
    assert len(fault_server.requests) == 2
    assert all(v.detail is None for v in g.variables)   # no rule verdict to report


def test_judge_failures_retries_and_garbage(fault_server, tmp_path):
    def script(req, n):
        user = req["messages"][1]["content"]
        if "Variable to check: species" in user:
            return Behaviour.reply("I think it is right")     # never a verdict
        return Behaviour.error(429, retry_after=0) if n == 0 else Behaviour.reply(TRUE)

    fault_server.set_script(script)
    judge = make_judge(fault_server, tmp_path, max_reasks=1, concurrency=1)
    [g] = grade([(Response("u1", 0, "genome_size = 1 kbp\nspecies = E. coli"),
                  unit_problem())], policy="cascade", judge=judge)
    size, species = g.variables
    assert size.status is Status.CORRECT and size.detail == "rule: incorrect"
    assert species.status is Status.JUDGE_FAILED and "no usable reply" in species.detail
    assert g.status is Status.JUDGE_FAILED and not g.correct
    assert judge.stats.retries == 1 and judge.stats.reasks >= 1


def test_using_shares_one_cache_and_its_counters(tmp_path):
    from general365.tasks.cfe.grade import CFE_JUDGE_PROMPT

    judge = make_judge_at("http://127.0.0.1:9/v1", tmp_path)
    cfe = judge.using(CFE_JUDGE_PROMPT)
    assert cfe.prompt is CFE_JUDGE_PROMPT and judge.prompt is not CFE_JUDGE_PROMPT
    assert judge.using(judge.prompt) is judge
    assert cfe.cache is judge.cache is not None          # one cache, whichever opens it
    assert cfe.stats is judge.stats
    cfe.close()                                          # closing either closes it...
    assert judge._cache is None
    assert judge.cache is cfe.cache                      # ...and either reopens it
    judge.close()
    with pytest.raises(UserError, match="judge prompt must be a JudgePrompt"):
        judge.using("cfe")


def make_judge_at(url, tmp_path):
    return Judge("cfe-judge", base_url=url, cache=tmp_path / "j.sqlite")
