"""The options ``usim prove`` and ``usim check`` share: defined and checked here, once.

Each is refused before any work is done, in one line (exit status 2): the
timeout is a finite positive number of seconds (at most
:data:`~usim.engine.options.MAX_TIMEOUT`); the jobs a positive count; the bound N at least 1 and, for
``usim prove``, at most :data:`~usim.engine.options.MAX_BOUND` (beyond it a
claim's shapes alone would not fit in memory, let alone their proofs), while
``usim check`` sets no largest bound of its own (:data:`CHECK_LARGEST_N`); the
engines are names of :data:`~usim.engine.options.ENGINE_NAMES`, each once; a
file to write has a writable folder. Importing this module loads no solver
(``usim --help`` builds every parser).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from usim.engine.options import DEFAULT_TIMEOUT, ENGINE_NAMES, MAX_BOUND, is_bound, timeout_wanted
from usim.errors import UsimError

PROVE_LARGEST_N: int | None = MAX_BOUND
"""The largest ``--max-n`` of ``usim prove``."""
CHECK_LARGEST_N: int | None = None
"""The largest ``--max-n`` of ``usim check``: none of its own."""


def help_text(doc: str) -> str:
    """A module docstring as ``--help`` shows it: reST's roles and literals
    (``:mod:`x```, ````x````) as plain text, the layout kept.

    Args:
        doc: the docstring (or a paragraph of it).

    Returns:
        The text.
    """
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).find("~") > 0
                  else m.group(1), doc)
    return text.replace("``", "")


def add_max_n(parser: argparse.ArgumentParser, help: str) -> None:
    """``--max-n N`` (default None: the claim's or the spec's own bound).

    Args:
        parser: the command's parser.
        help: what N bounds, in the command's words.
    """
    parser.add_argument("--max-n", type=int, default=None, help=help)


def add_engine(parser: argparse.ArgumentParser, help: str) -> None:
    """``--engine E[,E...]`` (default all), read by :func:`engines_option`.

    Args:
        parser: the command's parser.
        help: the option's help, in the command's words.
    """
    parser.add_argument("--engine", default="all", help=help)


def add_timeout(parser: argparse.ArgumentParser, per: str) -> None:
    """``--timeout S``: seconds per task and engine (default
    :data:`~usim.engine.options.DEFAULT_TIMEOUT`), checked by :func:`check_timeout`.

    Args:
        parser: the command's parser.
        per: what one engine gets the seconds for ("obligation", "shape").
    """
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds per {per} and engine; over it: UNKNOWN (default {DEFAULT_TIMEOUT:g})")


def add_jobs(parser: argparse.ArgumentParser, what: str) -> None:
    """``--jobs J`` / ``-j J``: how many processes run at once (default: this
    machine's cores), checked by :func:`check_jobs`.

    Args:
        parser: the command's parser.
        what: what runs J at a time, for the help text.
    """
    parser.add_argument("--jobs", "-j", type=int, default=max(1, os.cpu_count() or 1),
                        help=f"{what} (default: the number of cores)")


def check_jobs(jobs: int) -> None:
    """Refuse a count of processes below one.

    Args:
        jobs: the value of ``--jobs``.

    Raises:
        UsimError: zero or negative.
    """
    if jobs < 1:
        raise UsimError(f"--jobs must be at least 1, not {jobs}")


def check_timeout(seconds: float, option: str = "--timeout") -> None:
    """Refuse a timeout that is not a finite positive number of seconds.

    Args:
        seconds: the value of ``option``.
        option: the option's name, as the message gives it.

    Raises:
        UsimError: zero, negative, infinite or NaN.
    """
    wanted = timeout_wanted(seconds)
    if wanted is not None:
        raise UsimError(f"{option} must be {wanted}, not {seconds:g}")


def check_max_n(max_n: int | None, largest: int | None) -> None:
    """Refuse a bound below 1, or above the command's largest.

    Args:
        max_n: the value of ``--max-n`` (None: not given).
        largest: the command's largest bound (:data:`PROVE_LARGEST_N`,
            :data:`CHECK_LARGEST_N`), None for no largest.

    Raises:
        UsimError: the bound is out of range; the message says the range.
    """
    if max_n is None or is_bound(max_n, largest):
        return
    if largest is None:
        raise UsimError("--max-n must be at least 1")
    raise UsimError(f"--max-n must be between 1 and {largest}, not {max_n}")


def engines_option(text: str | None) -> list[str] | None:
    """The engines ``--engine`` asks for (``usim prove`` and ``usim check``).

    Args:
        text: the option's text: ``all`` (or None), or engine names separated
            by commas (spaces around a name are ignored).

    Returns:
        The names in the order given, or None for each claim's own engines.

    Raises:
        UsimError: a name is empty (a stray comma), unknown, or given twice.
    """
    if text in (None, "all"):
        return None
    names = [e.strip() for e in text.split(",")]
    engines = f"engines: {', '.join(ENGINE_NAMES)}"
    if not text.strip():
        raise UsimError(f"--engine needs a name; {engines}")
    if "" in names:
        raise UsimError(f"--engine {text!r} has an empty name (a comma too many?); {engines}")
    unknown = [e for e in names if e not in ENGINE_NAMES]
    if unknown:
        raise UsimError(f"no engine {unknown[0]!r}; {engines}")
    twice = [e for index, e in enumerate(names) if e in names[:index]]
    if twice:
        raise UsimError(f"--engine {text!r} names {twice[0]} twice")
    return names


def check_writable(path: str, option: str) -> None:
    """Refuse a file that cannot be written: its folder is missing or not
    writable, or it is itself a folder.

    Args:
        path: the file named by the option.
        option: the option's name, for the message (``--json``, ``--out``).

    Raises:
        UsimError: the file cannot be written; the message says why.
    """
    target = Path(path)
    if target.is_dir():
        raise UsimError(f"{option} {path} is a folder; give a file name")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsimError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsimError(f"{option} {path}: the folder {folder} is not writable")
