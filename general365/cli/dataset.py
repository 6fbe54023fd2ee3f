"""`general365 dataset build|validate|push`: wiring only (general365.data.building)."""

from __future__ import annotations

import argparse
import sys

from ..data.readers import SPLITS
from ..terminal import shown

_SOURCE_HELP = ("HUB_ID (e.g. meituan-longcat/General365_Public), a .parquet/.jsonl/.json "
                "file, a folder of them (also one written by `dataset build`), or 'sample'")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="write the folder to upload to the Hub",
                       description="Import, validate and write the Hub dataset folder "
                                   "(parquet files + dataset card).")
    _source_args(b)
    b.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    b.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")
    b.add_argument("--add", action="store_true",
                   help="add this split to the folder already at --out (keeping its other "
                        "split), e.g. --split test next to an existing public split")
    b.add_argument("--license", metavar="ID",
                   help="the card's licence id (default: cc-by-4.0 for the sample, "
                        "'other' for anything else: state the publishers' licence)")

    v = sub.add_parser("validate", help="check a source and summarise it",
                       description="Validate every row (golds parsed by the grader's parser) "
                                   "and print a summary; exit 2 with one line per bad row.")
    _source_args(v)

    p = sub.add_parser("push", help="upload a built folder to the Hub",
                       description="Check a folder written by `dataset build` and upload it "
                                   "as a Hub dataset repo.")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--repo", required=True, metavar="ORG/NAME")
    p.add_argument("--private", action="store_true")
    p.add_argument("--token-env", default="HF_TOKEN", metavar="VAR",
                   help="the environment variable that holds the token (default HF_TOKEN; "
                        "when it is unset the saved `hf auth login` token is used)")


def _source_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", required=True, help=_SOURCE_HELP)
    p.add_argument("--split", default="public", choices=SPLITS,
                   help="public: the released half (default); test: the full benchmark")
    p.add_argument("--linkage", metavar="FILE",
                   help="CSV or JSON Lines of id,seed_id,variant[,categories] for sources "
                        "that do not carry the seed/variant linkage")


def main(args: argparse.Namespace) -> int:
    return {"build": _build, "validate": _validate, "push": _push}[args.action](args)


def _print_summary(summary: dict) -> None:
    width = max(len(k) for k in summary)
    for key, value in summary.items():
        if key == "notes":
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
        print(f"  {key:<{width}}  {shown(value)}")   # the dataset's own words, escaped
    notes = summary.get("notes") or []
    print(f"  {'problems':<{width}}  0 bad rows" + (f"; {len(notes)} note(s):" if notes else ""))
    for n in notes:
        print(f"    - {shown(n)}")


def _validate(args) -> int:
    from ..data.official import import_source

    result = import_source(args.source, split=args.split, linkage_file=args.linkage)
    print(f"general365 dataset validate: {args.source}: OK")
    _print_summary(result.summary())
    return 0


def _build(args) -> int:
    from ..data.building import build_dataset

    done = build_dataset(args.source, args.out, split=args.split, linkage=args.linkage,
                         overwrite=args.overwrite, add=args.add, license=args.license)
    if done.restored:
        print(f"general365 dataset build: recovered {args.out} from an interrupted build "
              f"(it was set aside as {done.restored})", file=sys.stderr)
    built = done.built
    print(f"general365 dataset build: wrote {built.out}")
    _print_summary(done.imported.summary())
    for split, rows in built.rows.items():
        print(f"  split {shown(split)}: "
              + ", ".join(f"{shown(c)} {n} rows" for c, n in rows.items()))
    for f in built.files:
        print(f"    {shown(f)}")
    print(f"  next: general365 dataset push {built.out} --repo ORG/NAME")
    return 0


def _push(args) -> int:
    from ..data.building import push_dataset

    url = push_dataset(args.folder, args.repo, private=args.private, token_env=args.token_env)
    print(f"general365 dataset push: uploaded {args.folder} to {url}")
    return 0
