"""Reading answers, the same way for golds and predictions.

- surface.py   what a reader sees once typesetting is gone; `Unreadable` for hidden content
- words.py     the words that may follow a value (units, labels) and those that may not
- reader.py    the answer reader: a gold's shape, a candidate read for that shape only, and
               `mv_value`, math-verify's parser for the cleaned expressions it leaves
- exact.py     the interval shape (plain unions as exact spans) and exact rounding
- gold.py      a problem's gold read once (`parse_gold`), and its sympy form
- symbolic.py  the contract's rules on math-verify's sympy objects (float_round, %, sets)

Below both the dataset layer and the grader: loading a dataset parses every gold with the
same reader the grader uses, and neither layer imports the other for it.
"""
