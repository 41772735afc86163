"""tracr_to_usim: a tracr RASP program as a usim expression (see :mod:`usim.tracr_reader`).

Each tracr expression becomes one usim node, named with tracr's label:

* ``tokens``, ``indices``, ``length``: usim's; a vocabulary of strings (or any
  values that are not numbers) is held as codes, the vocabulary's sorted first;
* ``Map(f, x)``: the table of f over x's values, read by halving the sorted
  values, each leaf ``where(x == v, f(v), undefined)``, so that a value the
  table does not hold is undefined; ``SequenceMap(f, x, y)``: a table of tables;
  ``LinearSequenceMap`` of numbers: ``a x + b y`` in usim's arithmetic;
* ``Select(keys, queries, p)``: a tracr ``Comparison`` of numbers (or ``==``,
  ``!=`` of codes) is usim's predicate; any other predicate is tabulated over
  the keys' and queries' values as the relation R(k, q). Where the sets of keys
  two query values select are equal or disjoint (``q == k + 1``, ``k == "a"``),
  R(k, q) is ``g(k) == h(q)`` for two tables g, h (each key's set, each query's
  set): one usim select. Otherwise R is the union, over each set S of keys some
  query value selects, of ``[k in S] == [S(q) == S]``;
* ``SelectorAnd``, ``SelectorOr``, ``SelectorNot``, ``SelectorWidth``: usim's;
* ``Aggregate(s, x, default)``: the mean of the selected values for numbers
  (booleans as 0, 1), usim's single-value aggregate for codes (undefined where
  several keys are selected: tracr's evaluator raises there); ``default=None``
  is undefined on an empty row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

from usim.encodings.domain import Undefined
from usim.errors import InputError, UsimError
from usim.rasp import expr as E
from usim.repl.symbols import undefined
from usim.tracr_reader.value_sets import (
    ATOM, BOOLEAN, NUMBER, CannotRead, Failed, ValueSets, agrees, applied, exact, kind_of, tracr_rasp,
)

_COMPARISONS = {"EQ": E.Predicate.EQ, "NEQ": E.Predicate.NE, "LT": E.Predicate.LT, "LEQ": E.Predicate.LE,
                "GT": E.Predicate.GT, "GEQ": E.Predicate.GE, "TRUE": E.Predicate.TRUE,
                "FALSE": E.Predicate.FALSE}
_ORDERED = {E.Predicate.LT: lambda k, q: k < q, E.Predicate.LE: lambda k, q: k <= q,
            E.Predicate.GT: lambda k, q: k > q, E.Predicate.GE: lambda k, q: k >= q,
            E.Predicate.EQ: lambda k, q: k == q, E.Predicate.NE: lambda k, q: k != q}


@dataclass(frozen=True)
class TracrReading:
    """A tracr program read for a vocabulary and a maximum length.

    Attributes:
        sop: usim's expression for the program's output.
        kind: what the output holds: ``"number"``, ``"boolean"`` or ``"atom"``.
        vocab: the tokens' values, sorted as their codes are.
        max_len: the longest input the tables are made for.
        atoms: code -> value, for every value held as a code.
    """

    sop: E.SOp
    kind: str
    vocab: tuple
    max_len: int
    atoms: tuple
    input_kind: str
    program: Any = field(default=None, compare=False, repr=False)

    def differs_from_tracr(self, n: int) -> str | None:
        """Where this reading differs from tracr's evaluator on an input of length ``n`` (every input
        of the vocabulary), in words; None where it never does. Numbers agree to 1e-12, relatively
        (:func:`usim.tracr_reader.value_sets.agrees`: tracr computes in floats); None is None; where
        tracr's evaluator raises, the reading must be undefined.

        Args:
            n: the length.

        Returns:
            The first difference, or None.
        """
        import itertools

        rasp = tracr_rasp()
        for tokens in itertools.product(self.vocab, repeat=n):
            tokens = list(tokens)
            try:
                expected = list(rasp.evaluate(self.program, tokens))
            except Exception:  # tracr's evaluator raises: nothing for the reading to equal
                expected = [None] * n
            try:
                got = self.run(tokens)
            except UsimError:
                got = [None] * n
            for p, (e, g) in enumerate(zip(expected, got)):
                if agrees(e, g):
                    continue
                return f"on {tokens!r} at position {p} tracr's evaluator gives {e!r}, usim's reading {g!r}"
        return None

    def encode(self, tokens: Sequence[Any]) -> list[Any]:
        """An input as usim's expression reads it (codes, exact numbers).

        Raises:
            InputError: empty, longer than ``max_len``, or a token outside the vocabulary.
        """
        tokens = list(tokens)
        if not tokens or len(tokens) > self.max_len:
            raise InputError(f"the input has {len(tokens)} tokens; this reading is for 1 to {self.max_len}")
        outside = [t for t in tokens if t not in self.vocab]
        if outside:
            raise InputError(f"the token {outside[0]!r} is not in the vocabulary {list(self.vocab)!r}")
        if self.input_kind == ATOM:
            return [self.atoms.index(t) for t in tokens]
        return [exact(t) for t in tokens]

    def symbol(self, code: Any) -> Any:
        """The value a code stands for (what a counterexample shows).

        Raises:
            InputError: ``code`` is no code of this reading.
        """
        if self.input_kind != ATOM and self.kind != ATOM or code != int(code) or not 0 <= code < len(self.atoms):
            raise InputError(f"{code} is no code of this reading")
        return self.atoms[int(code)]

    def decode(self, values: Sequence[Any]) -> list[Any]:
        """usim's values as tracr's: codes back to their values, undefined as None."""
        def one(v: Any) -> Any:
            if isinstance(v, Undefined):
                return None
            if self.kind == ATOM:
                return self.atoms[int(v)]
            if self.kind == BOOLEAN:
                return bool(v)
            v = Fraction(v)
            return v.numerator if v.denominator == 1 else v
        return [one(v) for v in values]

    def run(self, tokens: Sequence[Any]) -> list[Any]:
        """The program on ``tokens``, exactly, as tracr's values (None where tracr has None).

        Raises:
            InputError: see :meth:`encode`.
            UndefinedError: where tracr's evaluator raises (a selector comparing None).
        """
        from usim.encodings.evaluate import evaluate_sops
        from usim.encodings.exact import EXACT

        return self.decode(evaluate_sops((self.sop,), EXACT, self.encode(tokens))[0])


def python_tokens(values: Sequence[Any]) -> list[Any]:
    """Tokens as tracr holds them: usim reads ``0.5`` as the rational 1/2, tracr's token is the
    float 0.5 (its evaluator averages ints, floats and booleans only).

    Args:
        values: tokens as usim's input reader gives them (ints, Fractions, strings).

    Returns:
        The same tokens, a Fraction as the int it is or as a float.
    """
    out = []
    for v in values:
        if isinstance(v, Fraction):
            v = v.numerator if v.denominator == 1 else float(v)
        out.append(v)
    return out


def program_of(value: Any, where: str) -> Any:
    """A tracr sequence, or what a function of no arguments gives (tracr's ``make_length``).

    Raises:
        CannotRead: neither, naming ``where`` it came from.
    """
    rasp = tracr_rasp()
    if not isinstance(value, rasp.RASPExpr) and callable(value):
        try:
            value = value()
        except TypeError as error:
            raise CannotRead(f"{where} is a function that cannot be called with no arguments ({error}): name a "
                             "program, or a function of no arguments that makes one") from None
        except Exception as error:  # the user's function raised
            raise CannotRead(f"{where} raised {type(error).__name__}: {error} (no program made)") from None
    if not isinstance(value, rasp.SOp):
        raise CannotRead(f"{where} is not a tracr sequence (tracr.rasp.rasp.SOp): it is {type(value).__name__}")
    return value


def read_tracr(program: Any, vocab: Sequence[Any], max_len: int) -> TracrReading:
    """tracr's program (a ``tracr.rasp.rasp.SOp``) as usim's expression, for inputs of
    the ``vocab``'s tokens of length 1 to ``max_len``.

    Args:
        program: the tracr sequence whose values are the output.
        vocab: the values a token can take.
        max_len: the longest input.

    Returns:
        The reading: the expression, what it holds, and how inputs and outputs are coded.

    Raises:
        CannotRead: an expression usim cannot read (named by its tracr label).
        TracrMissing: tracr is not installed.

    Example:
        >>> from tracr.compiler import lib
        >>> read_tracr(lib.make_length(), {"a", "b"}, 5).run(["a", "b", "a"])
        [3, 3, 3]
    """
    rasp = tracr_rasp()
    if not isinstance(program, rasp.SOp):
        raise CannotRead(f"expected a tracr sequence (tracr.rasp.rasp.SOp), got {type(program).__name__}")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise InputError(f"the maximum length must be a positive integer, got {max_len!r}")
    vocab = list(vocab)
    for token in vocab:
        if not isinstance(token, (str, int, float, tuple)) or isinstance(token, float) and token != token:
            raise InputError(f"the token {token!r} is not a string, a number or a tuple (a vocabulary holds those)")
        try:
            hash(token)
        except TypeError:
            raise InputError(f"the token {token!r} cannot be a token (not hashable)") from None
    vocab = frozenset(vocab)
    if not vocab or None in vocab:
        raise InputError("the vocabulary must hold at least one token, and None is not a token")
    reader = _Reader(rasp, ValueSets(vocab, max_len))
    input_kind = kind_of(vocab, "vocabulary")
    try:  # the tokens in Python's own order (strings alphabetically); tokens that do not compare, by type and repr
        ordered = tuple(sorted(vocab))
    except TypeError:
        ordered = tuple(sorted(vocab, key=_order))
    if input_kind == ATOM:
        for token in ordered:
            reader.code(token)
    try:
        sop = reader.sop(program)
    except RecursionError:
        raise CannotRead("the tracr program is nested too deeply for usim to read (Python's recursion limit)") from None
    return TracrReading(sop, reader.kind(program), ordered, max_len, tuple(reader.atoms), input_kind, program)


def _order(value: Any) -> tuple[str, str]:
    return (type(value).__name__, value if isinstance(value, str) else repr(value))


@dataclass
class _Reader:
    rasp: Any
    sets: ValueSets
    atoms: list[Any] = field(default_factory=list)
    _codes: dict[Any, int] = field(default_factory=dict)
    _nodes: dict[int, E.Expr] = field(default_factory=dict)
    _keep: list[Any] = field(default_factory=list)

    def code(self, atom: Any) -> int:
        if atom not in self._codes:
            self._codes[atom] = len(self.atoms)
            self.atoms.append(atom)
        return self._codes[atom]

    def kind(self, sop: Any) -> str:
        if isinstance(sop, self.rasp.Aggregate) and self.kind(sop.sop) != ATOM:
            return NUMBER  # a mean (its values need not be listed to know that)
        if isinstance(sop, self.rasp.LinearSequenceMap) and self.kind(sop.fst) != ATOM != self.kind(sop.snd):
            return NUMBER
        return self.sets.kind(sop)

    def held(self, sop: Any, value: Any) -> E.SOp | int | Fraction | None:
        """The usim value of tracr's ``value`` in a sequence like ``sop``: a code, an exact number, or
        None where it is None or a function failed (undefined)."""
        if value is None or isinstance(value, Failed):
            return None
        return self.code(value) if self.kind(sop) == ATOM else exact(value)

    def sop(self, sop: Any) -> E.SOp:
        node = self._nodes.get(id(sop))
        if node is None:
            node = self._convert(sop)
            if not isinstance(node, (E.Tokens, E.Indices, E.Length)) and not node.has_name:
                node.named(sop.label)
            self._nodes[id(sop)] = node
            self._keep.append(sop)
        return node  # type: ignore[return-value]

    def selector(self, sel: Any) -> E.Selector:
        node = self._nodes.get(id(sel))
        if node is None:
            node = self._convert_selector(sel)
            self._nodes[id(sel)] = node
            self._keep.append(sel)
        return node  # type: ignore[return-value]

    def _convert(self, sop: Any) -> E.SOp:
        rasp = self.rasp
        if isinstance(sop, rasp.TokensType):
            return E.tokens
        if isinstance(sop, rasp.IndicesType):
            return E.indices
        if isinstance(sop, rasp.LengthType):
            return E.length
        if isinstance(sop, rasp.Full):
            value = self.held(sop, sop.fill)
            return undefined() if value is None else E.constant(value)
        if isinstance(sop, rasp.SelectorWidth):
            return E.selector_width(self.selector(sop.selector))
        if isinstance(sop, rasp.LinearSequenceMap) and self.kind(sop) == NUMBER:
            return exact(sop.fst_fac) * self.sop(sop.fst) + exact(sop.snd_fac) * self.sop(sop.snd)
        if isinstance(sop, rasp.SequenceMap):
            x, y = self.sets.of(sop.fst), self.sets.of(sop.snd)
            return self._table(sop.fst, x, lambda kx, _: self._table(
                sop.snd, y, lambda ky, _: self.held(sop, self._applied(sop, [(sop.fst, kx), (sop.snd, ky)]))))
        if isinstance(sop, rasp.Map):
            x = self.sets.of(sop.inner)
            return self._table(sop.inner, x, lambda kx, _: self.held(sop, self._applied(sop, [(sop.inner, kx)])))
        if isinstance(sop, rasp.Aggregate):
            selector, values = self.selector(sop.selector), self.sop(sop.sop)
            atoms = self.kind(sop.sop) == ATOM
            default = sop.default
            if default is not None and (kind_of([default], "default") == ATOM) != atoms:
                raise CannotRead(f"tracr's {sop.label} has the default {default!r}, of another kind than "
                                 f"its values: usim reads a sequence of one kind")
            usim_default = None if default is None else (self.code(default) if atoms else exact(default))
            return E.aggregate(selector, values, default=usim_default, single=atoms)
        if isinstance(sop, rasp.ConstantSOp):
            raise CannotRead(f"usim does not read tracr's ConstantSOp ({sop.label}): a constant list fixes "
                             "the input's length")
        raise CannotRead(f"usim does not read tracr's {type(sop).__name__} ({sop.label})")

    def _table(self, sop: Any, values: dict[Any, Any], leaf: Callable[[Any, Any], Any]) -> E.SOp:
        """``leaf(k, v)`` where ``sop`` holds the value v (tracr's Python value; k its key in
        ``values``), undefined elsewhere."""
        node = self.sop(sop)
        keyed = {(self.code(py) if self.kind(sop) == ATOM else key): (key, py) for key, py in values.items()}
        return _lookup(node, sorted(keyed), lambda code: leaf(*keyed[code]))

    def _applied(self, sop: Any, arguments: list[tuple[Any, Any]]) -> Any:
        """``sop``'s function at the arguments (each a sequence and a key of its values), as tracr's
        evaluator calls it; refused where the Python values one key stands for (1, 1.0, True) give
        results that are not alike, which usim cannot tell apart."""
        import itertools

        choices = [self.sets.representatives(arg, key) for arg, key in arguments]
        results = [applied(sop.f, tuple(args)) for args in itertools.product(*choices)]
        first = results[0]
        for other in results[1:]:
            # equal results are one value to usim (their types are kept as representatives downstream)
            alike = (isinstance(first, Failed) and isinstance(other, Failed)) or (
                not isinstance(first, Failed) and not isinstance(other, Failed) and first == other)
            if not alike:
                raise CannotRead(f"tracr's {sop.label}: its function tells apart values usim holds as one "
                                 f"({', '.join(map(repr, itertools.chain(*choices)))} give {first!r} and {other!r})")
        return first

    def _convert_selector(self, sel: Any) -> E.Selector:
        rasp = self.rasp
        if isinstance(sel, rasp.Select):
            return self._select(sel)
        if isinstance(sel, rasp.SelectorAnd):
            return self.selector(sel.fst) & self.selector(sel.snd)
        if isinstance(sel, rasp.SelectorOr):
            return self.selector(sel.fst) | self.selector(sel.snd)
        if isinstance(sel, rasp.SelectorNot):
            return ~self.selector(sel.inner)
        raise CannotRead(f"usim does not read tracr's {type(sel).__name__} ({sel.label})")

    def _select(self, sel: Any) -> E.Selector:
        keys, queries = self.sop(sel.keys), self.sop(sel.queries)
        kinds = {self.kind(sel.keys), self.kind(sel.queries)}
        predicate = sel.predicate
        if isinstance(predicate, self.rasp.Comparison):
            usim = _COMPARISONS[predicate.name]
            if usim in (E.Predicate.TRUE, E.Predicate.FALSE) or ATOM not in kinds or (
                    kinds == {ATOM} and usim in (E.Predicate.EQ, E.Predicate.NE)):
                return E.select(keys, queries, usim)
        key_values, query_values = self.sets.of(sel.keys), self.sets.of(sel.queries)
        relation = {}
        for kx, pk in key_values.items():
            for qx, pq in query_values.items():
                answers = set()
                for rk in self.sets.representatives(sel.keys, kx):
                    for rq in self.sets.representatives(sel.queries, qx):
                        try:
                            answers.add(bool(predicate(rk, rq)))
                        except Exception as error:  # the user's predicate
                            raise CannotRead(f"tracr's {sel.label}: the predicate raises on key {rk!r}, query "
                                             f"{rq!r} ({type(error).__name__}: {error})") from None
                if len(answers) > 1:
                    raise CannotRead(f"tracr's {sel.label}: its predicate tells apart values usim holds as one")
                relation[kx, qx] = answers.pop()
        if ATOM not in kinds:
            for usim, holds in _ORDERED.items():
                if all(relation[k, q] == holds(k, q) for k, q in relation):
                    return E.select(keys, queries, usim)
        return self._tabulated_select(sel, relation, key_values, query_values)

    def _tabulated_select(self, sel: Any, relation: dict, key_values: dict, query_values: dict) -> E.Selector:
        """R(k, q) as one select where the key sets of query values are equal or disjoint, else a union."""
        keys_of = {q: frozenset(k for k in key_values if relation[k, q]) for q in query_values}
        sets = sorted({s for s in keys_of.values() if s}, key=lambda s: sorted(map(_order, s)))
        keys, queries = self.sop(sel.keys), self.sop(sel.queries)
        if not sets:
            return E.select(keys, queries, E.Predicate.FALSE)
        if all(a == b or not (a & b) for a in sets for b in sets):
            label = {s: i for i, s in enumerate(sets)}
            group = {k: label[s] for s in sets for k in s}
            g = self._table(sel.keys, key_values, lambda kx, _: group.get(kx, -1))
            h = self._table(sel.queries, query_values, lambda qx, _: label.get(keys_of[qx], -2))
            return E.select(g, h, E.Predicate.EQ)
        union = None
        for s in sets:
            member = self._table(sel.keys, key_values, lambda kx, _, s=s: int(kx in s))
            asks = self._table(sel.queries, query_values, lambda qx, _, s=s: 1 if keys_of[qx] == s else 2)
            part = E.select(member, asks, E.Predicate.EQ)
            union = part if union is None else union | part
        return union


def _lookup(node: E.SOp, keys: list[Any], leaf: Callable[[Any], Any]) -> E.SOp:
    """``leaf(k)`` where ``node`` holds k (``keys`` sorted), by halving; undefined where it holds
    none of them, and where a leaf is None."""
    if not keys:
        return E.where(node == node, undefined(), undefined())
    if len(keys) == 1:
        value = leaf(keys[0])
        return E.where(node == keys[0], undefined() if value is None else value, undefined())
    middle = len(keys) // 2
    return E.where(node < keys[middle], _lookup(node, keys[:middle], leaf), _lookup(node, keys[middle:], leaf))
