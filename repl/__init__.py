"""Programs written in the original RASP REPL's language, read into usim.

``load_file(path)`` / ``load_text(text)`` parse a file (lark grammar ``rasp.lark``,
:mod:`.parser`), elaborate its statements (:mod:`.elaborate`, with the REPL's library,
:mod:`.library`) and return a :class:`RaspFile`: its names, its examples, and
``build(name, args)`` / ``program(name, args)``, which call a function of the file
(or take a sequence it defines) and give usim's expression graph.

Syntax errors are :class:`RaspSyntaxError` and meaning errors
:class:`RaspEvaluationError`; both name file, line, column and the offending text.
"""

from usim.repl.errors import RaspEvaluationError, RaspFileError, RaspSyntaxError
from usim.repl.parser import parse, parse_expression
from usim.repl.rasp_file import Built, RaspFile, is_name, load_file, load_text, read_input
from usim.repl.running import Example
from usim.repl.values import RaspFunction

__all__ = [
    "Built", "Example", "RaspEvaluationError", "RaspFile", "RaspFileError", "RaspFunction",
    "RaspSyntaxError", "is_name", "load_file", "load_text", "parse", "parse_expression", "read_input",
]
