"""Reading answers: LaTeX and prose notation (notation.py), plain numbers and intervals as
exact fractions (exact.py), their sympy forms (symbolic.py) and a problem's gold parsed once
(gold.py).

Below both the dataset layer and the grader: loading a dataset parses every gold with the
same parser the grader uses, and neither layer imports the other for it.
"""
