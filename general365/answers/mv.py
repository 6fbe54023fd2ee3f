"""math-verify's LaTeX parser, as the reader hands it cleaned expressions."""

from __future__ import annotations


def mv_value(latex: str):
    """The first sympy object math-verify reads from `latex`, or None."""
    from math_verify import parse

    # A bare `[2,5)` or `\{1,2\}` parses to nothing and a bare `1,2,3` to 1.2: math-verify
    # reads them only inside math delimiters.
    parsed = parse(f"${latex}$", parsing_timeout=None)
    return next((p for p in parsed if not isinstance(p, str)), None)
