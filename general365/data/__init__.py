"""The General365 dataset layer. See docs/dataset.md.

- sample.py    the bundled sample (load_sample)
- readers.py   raw rows from a Hub id, a file, a folder, or the sample
- linkage.py   seed/variant linkage and categories for sources that lack them
- official.py  the importer: validate every row, parse golds once (import_source)
- hub.py       the Hub folder: build it (--out checked first), check it, push it
- card.py      the dataset card, from dataset_card/README.md
- load.py      general365.load_dataset / load_problems
- building.py  validate, build and push (general365 dataset ...)
"""
