"""usim_to_tracr: a usim RASP expression written as a tracr program, for usim's compiler over finite value sets.

A listing in the RASP REPL's language is read into usim's expressions
(:mod:`usim.repl`); over a finite vocabulary (an alphabet's codes, or numbers)
it can be compiled as tracr's programs are
(:mod:`usim.transformer.finite_to_network`), once written as one. Each node
becomes the tracr expression of the same operation:

* ``tokens``, ``indices``, ``length``: tracr's; a constant: ``Full``;
* an element-wise operation: a ``Map`` of its one sequence argument, a
  ``SequenceMap`` of two, or of a pair and the third (``where(c, a, b)``), the
  constants folded into the function; the function is usim's exact scalar
  operation (:data:`usim.encodings.exact.EXACT`), None where it is undefined;
* ``select``: tracr's ``Select`` with the same comparison (keys first in both);
  an and, or, not of selects: one ``Select`` of the tuples of their keys and of
  their queries, its predicate the combination;
* ``aggregate``: tracr's ``Aggregate`` (a mean of numbers, the default 0 or
  None), ``selector_width``: tracr's.

usim's and tracr's meanings differ where several keys are selected by an
aggregate of symbols (usim: undefined; tracr: the mean of the codes), so the
compiled network is checked against usim's own evaluation of the expression,
never against this translation.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from usim.rasp import expr as E
from usim.tracr_reader.value_sets import CannotRead, tracr_rasp

_COMPARISON_OF = {E.Predicate.EQ: "EQ", E.Predicate.NE: "NEQ", E.Predicate.LT: "LT", E.Predicate.LE: "LEQ",
                  E.Predicate.GT: "GT", E.Predicate.GE: "GEQ", E.Predicate.TRUE: "TRUE", E.Predicate.FALSE: "FALSE"}


_PREDICATES = {E.Predicate.EQ: lambda k, q: k == q, E.Predicate.NE: lambda k, q: k != q,
               E.Predicate.LT: lambda k, q: k < q, E.Predicate.LE: lambda k, q: k <= q,
               E.Predicate.GT: lambda k, q: k > q, E.Predicate.GE: lambda k, q: k >= q,
               E.Predicate.TRUE: lambda k, q: True, E.Predicate.FALSE: lambda k, q: False}


def _tuple_of(rasp: Any, parts: list[Any]) -> Any:
    """The sequence of tuples of ``parts``' values, position by position."""
    out = rasp.Map(lambda x: (x,), parts[0], simplify=False)
    for part in parts[1:]:
        out = rasp.SequenceMap(lambda t, x: t + (x,), out, part)
    return out


def _scalar(op: E.Op, values: list[Any]) -> Any:
    """usim's exact value of ``op`` at one position; None where it is undefined."""
    from usim.encodings.domain import Undefined
    from usim.encodings.exact import EXACT

    out = EXACT.map(op, [[v] for v in values])[0]
    return None if isinstance(out, Undefined) else out


def usim_to_tracr(sop: E.SOp) -> Any:
    """``sop`` as a tracr program with the same operations.

    Args:
        sop: a usim RASP sequence.

    Returns:
        The tracr sequence (``tracr.rasp.rasp.SOp``).

    Raises:
        CannotRead: a node with no tracr counterpart here (an AHAT aggregate), named.
    """
    rasp = tracr_rasp()
    made: dict[int, Any] = {}

    def selector(node: E.Selector) -> Any:
        if isinstance(node, E.Select):
            keys, queries = sequence(node.keys), sequence(node.queries)
            return rasp.Select(keys, queries, getattr(rasp.Comparison, _COMPARISON_OF[node.predicate]))
        # and, or, not of selects: one select of the tuples of their keys and of their queries
        leaves: list[E.Select] = []

        def collect(n: E.Selector) -> None:
            if isinstance(n, E.Select):
                if n not in leaves:
                    leaves.append(n)
            elif isinstance(n, (E.SelectorAnd, E.SelectorNot)):
                for child in n.children():
                    collect(child)  # type: ignore[arg-type]
            else:
                raise CannotRead(f"usim's compiler over finite value sets does not compile {n.name}")

        collect(node)

        def holds(n: E.Selector, k: tuple, q: tuple) -> bool:
            if isinstance(n, E.Select):
                i = leaves.index(n)
                return _PREDICATES[n.predicate](k[i], q[i])
            if isinstance(n, E.SelectorNot):
                return not holds(n.inner, k, q)
            if isinstance(n, E.SelectorOr):
                return holds(n.left, k, q) or holds(n.right, k, q)
            return holds(n.left, k, q) and holds(n.right, k, q)  # type: ignore[attr-defined]

        keys = _tuple_of(rasp, [sequence(leaf.keys) for leaf in leaves])
        queries = _tuple_of(rasp, [sequence(leaf.queries) for leaf in leaves])
        return rasp.Select(keys, queries, lambda k, q: holds(node, k, q))

    def sequence(node: E.SOp) -> Any:
        if node.id in made:
            return made[node.id]
        if isinstance(node, E.Tokens):
            out = rasp.tokens
        elif isinstance(node, E.Indices):
            out = rasp.indices
        elif isinstance(node, E.Length):
            out = rasp.length
        elif isinstance(node, E.Constant):
            out = rasp.Full(node.value)
        elif isinstance(node, E.Map):
            out = _map(node)
        elif isinstance(node, E.Aggregate):
            if node.semantics is not E.Semantics.RASP:
                raise CannotRead(f"usim's compiler over finite value sets does not compile {node.name}: "
                                 "an AHAT aggregate")
            out = rasp.numerical(rasp.Aggregate(selector(node.selector), sequence(node.values),
                                                default=node.default))
        elif isinstance(node, E.SelectorWidth):
            out = rasp.SelectorWidth(selector(node.selector))
        else:
            raise CannotRead(f"usim's compiler over finite value sets does not compile {node.name}")
        made[node.id] = out
        return out

    def _map(node: E.Map) -> Any:
        dynamic = [i for i, a in enumerate(node.args) if not isinstance(a, E.Constant)]
        constants = {i: a.value for i, a in enumerate(node.args) if isinstance(a, E.Constant)}
        op = node.op

        def values(*given: Any) -> list[Any]:
            out, it = [], iter(given)
            for i in range(len(node.args)):
                out.append(constants[i] if i in constants else next(it))
            return out

        parts = [sequence(node.args[i]) for i in dynamic]
        if not parts:
            return rasp.Full(_scalar(op, values()))
        if len(parts) == 1:
            return rasp.Map(lambda x: _scalar(op, values(x)), parts[0], simplify=False)
        if len(parts) == 2:
            return rasp.SequenceMap(lambda x, y: _scalar(op, values(x, y)), parts[0], parts[1])
        pair = rasp.SequenceMap(lambda x, y: (x, y), parts[0], parts[1])
        return rasp.SequenceMap(lambda xy, z: _scalar(op, values(xy[0], xy[1], z)), pair, parts[2])

    return sequence(sop)


def listing_as_tracr(path: str, function: str, alphabet: Sequence[str] | None = None,
                     vocab: Sequence[Any] | None = None) -> tuple[Any, list[Any], Callable[[list[Any]], list[Any]]]:
    """A listing's function as a tracr program, with the listing's own meaning beside it.

    Args:
        path: the listing (the RASP REPL's language).
        function: a function of no parameters, or an expression.
        alphabet: the symbols a token ranges over (a listing of symbols).
        vocab: the numbers a token ranges over (a listing of numbers).

    Returns:
        The tracr program (:func:`usim_to_tracr`), the tokens as the program reads them (the
        symbols' codes, or the numbers), and the reference: usim's exact evaluation of the
        listing on an input, None where it is undefined.

    Raises:
        UsimError: neither or both of ``alphabet`` and ``vocab``, or the listing does not load.
    """
    from usim.encodings.domain import Undefined
    from usim.encodings.evaluate import evaluate_sops
    from usim.encodings.exact import EXACT
    from usim.errors import UsimError
    from usim.repl import load_file

    if (alphabet is None) == (vocab is None):
        raise UsimError("give the symbols a token ranges over (alphabet) or its numbers (vocab), one of them")
    listing = load_file(str(path), symbols=alphabet is not None, inputs=list(alphabet) if alphabet else None)
    sop = listing.build(function, {}).sop
    tokens = list(listing.alphabet.input_codes) if alphabet is not None else list(vocab)

    def reference(xs: list[Any]) -> list[Any]:
        return [None if isinstance(v, Undefined) else v for v in evaluate_sops((sop,), EXACT, list(xs))[0]]

    return usim_to_tracr(sop), tokens, reference
