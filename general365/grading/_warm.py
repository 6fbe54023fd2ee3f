"""Imported once in the pool's fork server (pool_server.py): builds math-verify's LaTeX parser
and sympy's inequality machinery there, so every worker forked from it (and every
replacement after a timeout) starts warm."""

from __future__ import annotations

from ..answers.gold import GoldAnswer
from .rule import grade_slow
from ..schema import AnswerType

grade_slow(GoldAnswer("[2,5)", AnswerType.INTERVAL, 0), "2\\le x<5", fast=False)
grade_slow(GoldAnswer("2", AnswerType.NUMBER, 0), "\\sqrt{4}", fast=False)
