"""The ``usim`` command: one subcommand per module in :mod:`usim.commands`.

Each command module defines ``register(subparsers)`` (adds its parser and sets
``func``). A :class:`UsimError` (the user's mistake) is printed as one line and
exits with status 2; the command's own status otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from usim import __version__
from usim.errors import UsimError

COMMANDS = ("run", "repl", "prove", "report", "verify", "check", "show", "simulate", "compile", "site", "paper-map")


class OneLineParser(argparse.ArgumentParser):
    """A parser whose own refusals (a missing option, ``--seed abc``) are one line
    and exit status 2, like every other mistake, instead of a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="usim",
        description="Run, prove and show the constructions of 'On the Existence of "
        "Universal Simulators of Attention' (arXiv 2506.18739).",
    )
    parser.add_argument("--version", action="version", version=f"usim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in COMMANDS:
        importlib.import_module(f"usim.commands.{name.replace('-', '_')}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsimError as error:
        print(f"usim {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped (usim ... | head): nothing more to say
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
