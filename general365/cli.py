"""`general365 ...`: the command line. It only wires: each verb lives in the module that
owns its work (see VERBS), which adds its own arguments and runs.

A user's mistake (`UserError`) prints one line and exits 2; nothing else is caught here.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from . import __version__
from .errors import UserError

# verb -> module with `add_arguments(parser)` and `main(args) -> int`
VERBS = {
    "dataset": ("general365.data.commands", "build, validate or push the Hub dataset folder"),
    "generate": ("general365.runners.commands", "generate responses with a model"),
    "grade": ("general365.grading.commands", "grade a responses file"),
    "report": ("general365.report.commands", "tables, figures and a leaderboard page"),
    "run": ("general365.pipeline", "generate + grade + report into one folder"),
    "audit": ("general365.audit.commands", "sample graded rows for review; score the labels"),
    "demo": ("general365.demo", "the whole pipeline offline on the bundled sample"),
    "analyze": ("general365.analysis.commands", "statistics, diversity and difficulty of sets"),
}


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; only the chosen verb's module is imported (a verb's module may import
    heavy optional packages, and one broken verb must not break the others)."""
    parser = argparse.ArgumentParser(
        prog="general365",
        description="The reference toolkit for the General365 general-reasoning benchmark.",
    )
    parser.add_argument("--version", action="version", version=f"general365 {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    sub.required = True
    for name, (module_name, help_text) in VERBS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == verb:
            module = importlib.import_module(module_name)
            module.add_arguments(p)
            p.set_defaults(_main=module.main)
    return parser


def _describe_os_error(exc: OSError) -> str:
    """One line for a failed file operation: what, which path, why."""
    paths = [p for p in (exc.filename, exc.filename2) if p]
    where = " -> ".join(str(p) for p in paths)
    why = exc.strerror or str(exc)
    return f"{where}: {why}" if where else why


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    verb = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(verb if verb in VERBS else None)
    args = parser.parse_args(argv)
    try:
        return int(args._main(args) or 0)
    except UserError as exc:
        print(f"general365 {args.verb}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        # A file the user named cannot be read or written (permissions, a folder where a
        # file was expected, a full disk): their environment, not a bug; one line, exit 2.
        print(f"general365 {args.verb}: error: {_describe_os_error(exc)}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"general365 {args.verb}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print(f"general365 {args.verb}: interrupted", file=sys.stderr)
        return 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (a job scheduler's stop, `kill`), handled like Ctrl-C: every `finally`
    runs, so a temporary file or folder is removed and run.json records the interruption,
    instead of the process vanishing mid-write."""


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
    """The `general365` program. `general365 ... | head` closes the pipe early: end quietly,
    as Unix tools do; SIGTERM cleans up as Ctrl-C does (only here: a library caller's
    signal handling is not ours to change)."""
    global _MAIN_PID
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _MAIN_PID = os.getpid()
    signal.signal(signal.SIGTERM, _on_sigterm)
    return main()


if __name__ == "__main__":
    sys.exit(console_main())
