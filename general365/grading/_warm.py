"""Imported once in the pool's fork server (pool_server.py): builds math-verify's LaTeX parser
there (and what number answers need of sympy), so every worker forked from it (and every
replacement after a timeout) starts warm. Sympy's inequality and set machinery, which only
interval answers need and which costs as much again, is built on request (`warm_intervals`,
asked by the pool before its first interval item; workers forked before that are replaced)."""

from __future__ import annotations

from ..answers.gold import GoldAnswer
from .rule import grade_slow
from ..schema import AnswerType

grade_slow(GoldAnswer("2", AnswerType.NUMBER, 0), "\\sqrt{4}", fast=False)


def warm_intervals() -> None:
    grade_slow(GoldAnswer("[2,5)", AnswerType.INTERVAL, 0), "2\\le x<5", fast=False)


WARMERS = {"interval": warm_intervals}
