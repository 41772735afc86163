"""Errors in a RASP file, each pointing at a line, a column and the offending text.

Both are :class:`usim.errors.UsimError`: the command line prints them as one line
and exits with status 2.
"""

from __future__ import annotations

from usim.errors import UsimError


class RaspFileError(UsimError):
    """A mistake at a place in a RASP file."""

    kind = "error"

    def __init__(self, filename: str, line: int, column: int, message: str, text: str = "") -> None:
        self.filename = filename
        self.line = line
        self.column = column
        self.message = message
        self.text = text
        where = f"{filename}:{line}:{column}"
        shown = f" (at `{text}`)" if text else ""
        super().__init__(f"{where}: {self.kind}: {message}{shown}")


class RaspSyntaxError(RaspFileError):
    """The file is not in the RASP REPL's language."""

    kind = "syntax error"


class RaspEvaluationError(RaspFileError):
    """The file parses, but a statement has no meaning (a type error, an unknown
    name, an operation usim cannot express in its closed set)."""

    kind = "error"


class TableTooLarge(RaspEvaluationError):
    """A ``+`` of symbols whose table of joined strings would pass usim's limit
    (:data:`usim.repl.symbols.MAX_CONCATENATION_TABLE`). A top-level assignment
    that meets it leaves its names unbuilt (:class:`usim.repl.values.Unbuilt`)
    rather than failing the file: only what reads them is refused."""
