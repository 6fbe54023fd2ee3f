"""The one grading loop (grading/engine.py): a benchmark is a hook on it, never a copy. A
toy benchmark's hook runs on the real pool (math-verify in its workers) and the real Judge
against the fault server; CFE-Bench, which had a loop of its own, now shares what the loop
gives every benchmark."""

from __future__ import annotations

import pytest

from general365.answers.gold import parse_gold
from general365.errors import OptionError
from general365.grading.engine import Grader
from general365.grading.judge import Judge, JudgeItem
from general365.grading.pool import RulePool, RuleTask
from general365.schema import AnswerType, Problem, Response, Status
from general365.tasks.cfe.data import CFEProblem, Variable, VariableType
from general365.tasks.cfe.grade import grade as cfe_grade
from support.servers import Behaviour


class Exact:
    """A toy benchmark: a number gold that math-verify compares in the pool; under
    `cascade` the judge is asked about every answer it finds wrong."""

    desc = "grading exact"
    chunk_size = 3
    judge_needed = "asks an LLM judge about wrong answers"
    judge_prompt = None

    def chunk(self, pairs, policy):
        return ExactChunk(pairs, policy)


class ExactChunk:
    def __init__(self, pairs, policy):
        self.pairs, self.policy = pairs, policy
        self.tasks = [RuleTask(parse_gold(p.answer, AnswerType.NUMBER), r.response)
                      for r, p in pairs]
        self.status: list = [None] * len(pairs)
        self.asked: list[int] = []

    def ruled(self, found):
        self.status = [found[t].status for t in self.tasks]
        return []

    def questions(self):
        if self.policy == "rule":
            return []
        self.asked = [i for i, s in enumerate(self.status) if s is not Status.CORRECT]
        return [JudgeItem(self.pairs[i][1].question, self.pairs[i][1].answer,
                          self.pairs[i][0].response) for i in self.asked]

    def judged(self, answers):
        for i, a in zip(self.asked, answers):
            self.status[i] = a.status

    def rows(self):
        return [(r.run, s) for (r, _), s in zip(self.pairs, self.status)]


def test_a_benchmark_is_a_hook_on_the_one_loop(fault_server):
    with pytest.raises(OptionError, match="^policy cascade asks an LLM judge about wrong"):
        Grader(Exact(), policy="cascade")
    with pytest.raises(OptionError, match="^timeout must be a positive number"):
        Grader(Exact(), policy="rule", timeout=0)
    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}'))
    judge = Judge("exact-judge", base_url=fault_server.base_url, cache=False,
                  backoff_base=0.01)
    grader = Grader(Exact(), policy="cascade", judge=judge, timeout=60)
    problem = Problem.from_dict({"id": "q", "question": "How many eggs in a dozen?",
                                 "answer": "12", "answer_type": "number"})
    answers = ["\\sqrt{144}", "13", "\\sqrt{144}", "2\\cdot 6", "13", "\\frac{24}{2}",
               "\\sqrt{144}"]
    pairs = [(Response("q", n, a), problem) for n, a in enumerate(answers)]
    with RulePool(1) as pool:
        out = list(grader.run(pairs, pool=pool))
        # in input order across its three chunks; the wrong answers went to the judge
        assert out == [(n, Status.CORRECT) for n in range(7)]
        assert pool.graded == 4   # each distinct answer once, across chunks
        assert [r["messages"][1]["content"].rsplit("Prediction: ", 1)[1].strip()
                for r in fault_server.requests] == ["13", "13"]
        # what the grader paid for is not paid again
        assert list(grader.run(pairs, pool=pool)) == out and pool.graded == 4
    with RulePool(1) as pool:   # the rule policy asks no judge
        ruled = list(Grader(Exact(), policy="rule").run(pairs, pool=pool))
        assert [s for _, s in ruled] == [Status.INCORRECT if a == "13" else Status.CORRECT
                                         for a in answers]


def test_cfe_reads_a_response_repeated_across_chunks_once():
    # CFE-Bench's chunks used to be graded one by one, each sending its own readings.
    problem = CFEProblem("n", "Count them.", (Variable("n", VariableType.NUMERIC, "a count",
                                                       "12"),))
    pairs = [(Response("n", run, "n = 12"), problem) for run in range(4)]
    with RulePool(1) as pool:
        graded = cfe_grade(pairs, policy="rule", pool=pool, chunk_size=1)
        assert [g.correct for g in graded] == [True] * 4
        assert pool.graded == 1
