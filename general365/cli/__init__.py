"""`general365 ...`: the command line. It only parses and wires: each verb is a module of
this package (VERBS) that maps its flags to the library's entry point. A `UserError` prints
one line (through terminal.shown: messages quote files and servers) and exits 2; an
`OptionError` names the flag that set the bad value. Nothing else is caught here.

- __main__.py         `python -m general365.cli`
- generate.py         `general365 generate`
- grade.py            `general365 grade`
- report.py           `general365 report`
- run.py              `general365 run`: generate + grade + report
- dataset.py          `general365 dataset build|validate|push`
- demo.py             `general365 demo`
- analyze.py          `general365 analyze` (and `analyze difficulty`)
- audit.py            `general365 audit sample|score`
- expand.py           `general365 expand` (and `expand review|select`)
- cfe.py              `general365 cfe`: CFE-Bench's diagnostics
- flags.py            shared flags: `--benchmark` and its benchmarks' own, the LLM judge's
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from .. import __version__
from ..errors import OptionError, UserError
from ..terminal import shown

# verb -> module with `add_arguments(parser)` and `main(args) -> int`
VERBS = {
    "dataset": ("general365.cli.dataset", "build, validate or push the Hub dataset folder"),
    "generate": ("general365.cli.generate", "generate responses with a model"),
    "grade": ("general365.cli.grade", "grade a responses file"),
    "report": ("general365.cli.report", "tables, figures and a leaderboard page"),
    "run": ("general365.cli.run", "generate + grade + report into one folder"),
    "audit": ("general365.cli.audit", "sample graded rows for review; score the labels"),
    "demo": ("general365.cli.demo", "the whole pipeline offline on the bundled sample"),
    "analyze": ("general365.cli.analyze", "statistics, diversity and difficulty of sets"),
    "expand": ("general365.cli.expand", "propose, check, review and select variants of seeds"),
    "cfe": ("general365.cli.cfe", "CFE-Bench diagnostics: unit execution, flow lengths, "
                                  "per-variable audit rows"),
}


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; only the chosen verb's module is imported (it may import heavy packages,
    and one broken verb must not break the others)."""
    parser = argparse.ArgumentParser(
        prog="general365",
        description="The reference toolkit for the General365 general-reasoning benchmark.",
    )
    parser.add_argument("--version", action="version", version=f"general365 {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for name, (module_name, help_text) in VERBS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == verb:
            module = importlib.import_module(module_name)
            module.add_arguments(p)
            p.set_defaults(_main=module.main)
    return parser


def _flags(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """option name -> the flag that sets it (a verb's FLAGS may rename one: run's
    --grade-workers is grade's `workers`)."""
    spelled: dict[str, str] = {}
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:   # argparse keeps no public list of a parser's options
            choices = getattr(action, "choices", None)
            if isinstance(choices, dict):   # sub-commands
                stack.extend(choices.values())
            longs = [s for s in action.option_strings if s.startswith("--")]
            if longs and action.dest not in spelled:
                spelled[action.dest] = longs[0]
    renamed = getattr(importlib.import_module(VERBS[args.verb][0]), "FLAGS", {})

    def spell(option: str) -> str:
        return renamed.get(option) or spelled.get(option) or "--" + option.replace("_", "-")
    return spell


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    verb = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(verb if verb in VERBS else None)
    args = parser.parse_args(argv)

    def error(text: str) -> None:
        print(f"general365 {args.verb}: error: {text}", file=sys.stderr)

    try:
        return int(args._main(args) or 0)
    except OptionError as exc:
        error(shown(exc.render(_flags(parser, args))))
        return exc.exit_code
    except UserError as exc:
        error("\n".join(shown(line) for line in exc.lines()))
        return exc.exit_code
    except OSError as exc:
        # A file the user named cannot be read or written (permissions, a folder where a
        # file was expected, a full disk): their environment, not a bug; one line, exit 2.
        where = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p)
        why = exc.strerror or str(exc)
        error(shown(f"{where}: {why}" if where else why))
        return 2
    except Terminated:
        print(f"general365 {args.verb}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print(f"general365 {args.verb}: interrupted", file=sys.stderr)
        return 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's stop, `kill`), handled like Ctrl-C: every `finally` runs
    (temporaries removed, run.json records the interruption)."""


def _on_sigterm(signum, frame) -> None:
    if os.getpid() != _MAIN_PID:
        # A forked child (a worker) inherited this handler: it dies as it would have.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    # Once: a second SIGTERM ends the process at once (what is left then is swept by the
    # next run: see fsutil).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise Terminated()


_MAIN_PID = os.getpid()


def console_main() -> int:
    """The `general365` program: a closed pipe (`| head`) ends it quietly, SIGTERM cleans up
    as Ctrl-C does (only here: a library caller's signal handling is not ours)."""
    global _MAIN_PID
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _MAIN_PID = os.getpid()
    signal.signal(signal.SIGTERM, _on_sigterm)
    return main()
