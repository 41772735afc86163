"""finite_to_network: a tracr program over finite value sets, compiled by usim to an exact network.

The network reads the input as :class:`usim.tracr_reader.convert.TracrReading`
codes it (a token's code, or the number itself) and computes tracr's program
exactly on every input of the vocabulary of length n. Each sequence of the
program is held in the residual stream as the one-hot code of its value, over
the values it can hold (:mod:`usim.tracr_reader.value_sets`), or, for a mean, as
one number. Every one-hot code is 0 at BOS. The components:

* **a value's one-hot code from a number x** (the input, a mean, a selector's
  width): for the sorted values v_0 < ... < v_{m-1}, the hat of v_i is the
  piecewise-linear function that is 1 at v_i and 0 at v_{i-1} and v_{i+1}: four
  ReLU units, exact at every value; each reads -M pos:0 as well, so that all
  are 0 at BOS;
* **Map(f, x)**: one ReLU unit relu(x_v) per value v of x, written to f(v)'s
  dimension (nothing where f gives None: the code is 0, undefined);
  **SequenceMap(f, x, y)**: relu(x_a + y_b - 1) per pair, written to f(a, b)'s;
  a LinearSequenceMap of numbers: relu(z) - relu(-z) of z = a x + b y;
* **Select(keys, queries, R)**: an average-hard head with d_k = |keys' values| + 1:
  the key vector is the key's one-hot code and pos:0; the query vector is, for
  each key value a, R(a, query) and 1/2 on pos:0's coordinate. The score of a
  selected key is 1, of another 0, of BOS 1/2: the maximal-score keys are
  exactly the selected keys, or BOS alone on a row that selects none;
* **Aggregate(s, x)**: that head, its value the number x holds (a mean: 0 at
  BOS, the default 0 on an empty row) or x's one-hot code (a single value moved;
  0 on an empty row: undefined);
* **SelectorWidth(s)**: the same head with BOS scored 1, so that it is always
  among the maximisers, its value pos:0: the head gives 1 / (w + 1), and the
  hats of the values 1 / (w + 1), w = 0 .. n, give w's one-hot code.

The layers: a sequence is computed in the first attention (for aggregates and
selector widths) or MLP (for everything else) sub-layer after those of its
inputs. What this does not compile (ConstantSOp, SelectorAnd/Or/Not, a numerical
default other than 0, a symbol default) is refused with one line naming it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from usim.errors import InputError
from usim.rasp.expr import Op
from usim.tracr_reader.convert import TracrReading, _COMPARISONS, _ORDERED, read_tracr
from usim.tracr_reader.value_sets import ATOM, CannotRead, Failed, ValueSets, agrees, applied, exact, tracr_rasp
from usim.transformer.model import HARD, MLP, TOKEN, Head, Layer, Linear, Network, embedding_dims

Form = dict  # residual dimension -> weight: a linear readout


@dataclass(frozen=True)
class FiniteNetwork:
    """A tracr program compiled by usim for inputs of length n.

    Attributes:
        network: the network (outputs ``out:K``, one per output value, or ``out:0``, the number).
        reading: the program read into usim's RASP (its input's codes; the reference).
        values: the value each output stands for (a one-hot output), or None (a number).
    """

    network: Network
    reading: TracrReading
    values: tuple[Any, ...] | None

    def decode(self, outputs: dict[str, Any]) -> list[Any]:
        """One input's outputs as tracr's values: the value whose code is 1, None where none is."""
        if self.values is None:
            return [Fraction(v) for v in outputs["out:0"]]
        columns = [list(outputs[f"out:{k}"]) for k in range(len(self.values))]
        decoded = []
        for p in range(len(columns[0]) if columns else 0):
            ones = [k for k in range(len(columns)) if columns[k][p] == 1]
            zeros = all(columns[k][p] == 0 for k in range(len(columns)) if k not in ones)
            decoded.append(self.values[ones[0]] if len(ones) == 1 and zeros else None)
        return decoded


class _Compiler:
    def __init__(self, reading: TracrReading, sets: ValueSets, n: int) -> None:
        self.rasp = tracr_rasp()
        self.reading, self.sets, self.n = reading, sets, n
        self.dims: list[str] = list(embedding_dims(n))
        self.units: dict[int, list[tuple[Form, Form]]] = defaultdict(list)  # MLP sub-layer -> (in, out)
        self.heads: dict[int, list[Head]] = defaultdict(list)
        self.ready: dict[int, int] = {}  # id(sop) -> the sub-layer after which its code is there
        self.codes: dict[int, dict[Any, int]] = {}  # id(sop) -> exact value -> dimension (one-hot)
        self.numbers: dict[int, Form] = {}  # id(sop) -> the form that is its number
        self.python: dict[int, dict[Any, Any]] = {}  # id(sop) -> exact value -> tracr's value
        self._keep: list[Any] = []

    # -- dimensions and sub-layers: attention at even, MLP at odd indices -----------------
    def new_dim(self, label: str) -> int:
        self.dims.append(label)
        return len(self.dims) - 1

    @staticmethod
    def next_mlp(after: int) -> int:
        return after + 1 if after % 2 == 0 else after + 2

    @staticmethod
    def next_attention(after: int) -> int:
        return after + 1 if after % 2 else after + 2

    def every_position(self, weight: Any) -> Form:
        return {1 + t: Fraction(weight) for t in range(self.n + 1)}

    def real_positions(self) -> Form:
        return {1 + t: Fraction(1) for t in range(1, self.n + 1)}

    # -- one-hot codes -------------------------------------------------------------------
    def one_hot(self, sop: Any) -> tuple[dict[Any, int], int]:
        """``sop``'s one-hot code (made from its number where it is a number) and when it is there."""
        self.compile(sop)
        if id(sop) not in self.codes:
            self.codes[id(sop)] = self._hats(sop, self.numbers[id(sop)], sorted(self.python[id(sop)]))
            self.ready[id(sop)] = self.next_mlp(self.ready[id(sop)])
        return self.codes[id(sop)], self.ready[id(sop)]

    def _hats(self, sop: Any, x: Form, values: list[Any]) -> dict[Any, int]:
        """The hat units of each value, at the MLP sub-layer after ``sop``'s number; 0 at BOS."""
        layer = self.next_mlp(self.ready[id(sop)])
        if not values:
            return {}
        values = [Fraction(v) for v in values]
        gap = min((b - a for a, b in zip(values, values[1:])), default=Fraction(1))
        big = (max(abs(v) for v in values) + 2) / gap + 2  # every argument below 0 at BOS (x is 0 or 1 there)
        out = {}
        for i, v in enumerate(values):
            left = values[i - 1] if i else v - gap
            right = values[i + 1] if i + 1 < len(values) else v + gap
            key = v.numerator if v.denominator == 1 else v
            dim = self.new_dim(f"{sop.label}:{self.python[id(sop)][key]!r}")
            out[key] = dim
            for start, slope, sign in ((left, 1 / (v - left), 1), (v, 1 / (v - left), -1),
                                       (v, 1 / (right - v), -1), (right, 1 / (right - v), 1)):
                form = {d: w * slope for d, w in x.items()}
                for p, w in self.every_position(-start * slope).items():
                    form[p] = form.get(p, 0) + w
                form[1] = form.get(1, 0) - big  # pos:0
                self.units[layer].append((form, {dim: Fraction(sign)}))
        return out

    def number(self, sop: Any) -> tuple[Form, int]:
        """The form that is ``sop``'s number."""
        self.compile(sop)
        if id(sop) not in self.numbers:
            codes = self.codes[id(sop)]
            if self.reading_kind(sop) == ATOM:
                raise CannotRead(f"tracr's {sop.label} holds values that are not numbers: it has no number")
            self.numbers[id(sop)] = {dim: Fraction(v) for v, dim in codes.items() if v != 0}
        return self.numbers[id(sop)], self.ready[id(sop)]

    def reading_kind(self, sop: Any) -> str:
        return self.sets.kind(sop) if not isinstance(sop, self.rasp.Aggregate) else (
            ATOM if self.sets.kind(sop.sop) == ATOM else "number")

    # -- the program -----------------------------------------------------------------------
    def compile(self, sop: Any) -> None:
        if id(sop) in self.ready:
            return
        self._keep.append(sop)
        rasp = self.rasp
        if isinstance(sop, rasp.TokensType):
            # keyed by the input's number (a token's code, or the number itself): its one-hot code is made from it
            self.python[id(sop)] = {self.reading.encode([t])[0]: t for t in self.reading.vocab}
            self.ready[id(sop)] = -1
            self.numbers[id(sop)] = {TOKEN: Fraction(1)}
            return
        if isinstance(sop, rasp.IndicesType):
            self.python[id(sop)] = {i: i for i in range(self.n)}
            self.codes[id(sop)] = {i: 1 + (i + 1) for i in range(self.n)}  # pos:(i + 1)
            self.ready[id(sop)] = -1
            return
        if isinstance(sop, (rasp.LengthType, rasp.Full)):
            value = self.n if isinstance(sop, rasp.LengthType) else sop.fill
            layer = self.next_mlp(-1)
            key = self._code(value)
            dim = self.new_dim(f"{sop.label}:{value!r}")
            self.units[layer].append((self.real_positions(), {dim: Fraction(1)}))
            self.python[id(sop)], self.codes[id(sop)], self.ready[id(sop)] = {key: value}, {key: dim}, layer
            return
        if isinstance(sop, rasp.LinearSequenceMap) and self.reading_kind(sop.fst) != ATOM != \
                self.reading_kind(sop.snd):
            (x, rx), (y, ry) = self.number(sop.fst), self.number(sop.snd)
            a, b = exact(sop.fst_fac), exact(sop.snd_fac)
            z: Form = {}
            for form, factor in ((x, a), (y, b)):
                for d, w in form.items():
                    z[d] = z.get(d, 0) + factor * w
            layer = self.next_mlp(max(rx, ry))
            dim = self.new_dim(f"{sop.label}")
            self.units[layer] += [(z, {dim: Fraction(1)}), ({d: -w for d, w in z.items()}, {dim: Fraction(-1)})]
            self.numbers[id(sop)], self.ready[id(sop)] = {dim: Fraction(1)}, layer
            self.python[id(sop)] = dict(self.sets.of(sop))
            return
        if isinstance(sop, rasp.SequenceMap):
            (xs, rx), (ys, ry) = self.one_hot(sop.fst), self.one_hot(sop.snd)
            layer = self.next_mlp(max(rx, ry))
            out = self._outputs(sop)
            for a, da in xs.items():
                for b, db in ys.items():
                    result = applied(sop.f, (self.python[id(sop.fst)][a], self.python[id(sop.snd)][b]))
                    if result is not None and not isinstance(result, Failed):
                        both = self.every_position(-1)  # relu(x_a + y_b - 1); a code may be a position's dimension
                        for d in (da, db):
                            both[d] = both.get(d, 0) + 1
                        self.units[layer].append((both, {out[self._code(result)]: Fraction(1)}))
            self.ready[id(sop)] = layer
            return
        if isinstance(sop, rasp.Map):
            xs, rx = self.one_hot(sop.inner)
            layer = self.next_mlp(rx)
            out = self._outputs(sop)
            for a, da in xs.items():
                result = applied(sop.f, (self.python[id(sop.inner)][a],))
                if result is not None and not isinstance(result, Failed):
                    self.units[layer].append(({da: Fraction(1)}, {out[self._code(result)]: Fraction(1)}))
            self.ready[id(sop)] = layer
            return
        if isinstance(sop, (rasp.Aggregate, rasp.SelectorWidth)):
            self._attend(sop)
            return
        raise CannotRead(f"usim's compiler does not compile tracr's {type(sop).__name__} ({sop.label})")

    def _code(self, value: Any) -> Any:
        """The exact key a value is filed under: a number exactly, anything else by the reading's code."""
        return exact(value) if not isinstance(value, str) and not isinstance(value, tuple) else ("atom", value)

    def _outputs(self, sop: Any) -> dict[Any, int]:
        values = self.sets.of(sop)
        self.python[id(sop)] = {self._code(py): py for py in values.values()}
        self.codes[id(sop)] = {key: self.new_dim(f"{sop.label}:{py!r}") for key, py in
                               sorted(self.python[id(sop)].items(), key=lambda kv: repr(kv[0]))}
        return self.codes[id(sop)]

    def _relation(self, sel: Any) -> tuple[Any, Any, dict]:
        rasp = self.rasp
        if not isinstance(sel, rasp.Select):
            raise CannotRead(f"usim's compiler does not compile tracr's {type(sel).__name__} ({sel.label}): "
                             "only a Select")
        keys, queries = self.python_values(sel.keys), self.python_values(sel.queries)
        predicate = sel.predicate
        relation = {}
        for kx, pk in keys.items():
            for qx, pq in queries.items():
                if isinstance(predicate, rasp.Comparison) and _COMPARISONS[predicate.name] in _ORDERED and \
                        not isinstance(pk, (str, tuple)) and not isinstance(pq, (str, tuple)):
                    holds = _ORDERED[_COMPARISONS[predicate.name]](exact(pk), exact(pq))
                else:
                    holds = bool(predicate(pk, pq))
                relation[kx, qx] = holds
        return sel.keys, sel.queries, relation

    def python_values(self, sop: Any) -> dict[Any, Any]:
        self.compile(sop)
        if id(sop) not in self.python:
            self.python[id(sop)] = {self._code(py): py for py in self.sets.of(sop).values()}
        return self.python[id(sop)]

    def _attend(self, sop: Any) -> None:
        rasp = self.rasp
        key_sop, query_sop, relation = self._relation(sop.selector)
        (kcodes, rk), (qcodes, rq) = self.one_hot(key_sop), self.one_hot(query_sop)
        after = max(rk, rq)
        width = isinstance(sop, rasp.SelectorWidth)
        if not width:
            after = max(after, self._value_ready(sop.sop))
        layer = self.next_attention(after)
        key_values = sorted(kcodes, key=repr)
        query_columns = [{qcodes[q]: Fraction(1) for q in qcodes if relation[k, q]} for k in key_values]
        key_columns = [{kcodes[k]: Fraction(1)} for k in key_values]
        query_columns.append(self.every_position(1 if width else Fraction(1, 2)))
        key_columns.append({1: Fraction(1)})  # pos:0
        if width:
            values = [{1: Fraction(1)}]
            out_dim = self.new_dim(f"{sop.label}:1/(w+1)")
            outs = [{out_dim: Fraction(1)}]
        elif self.reading_kind(sop.sop) == ATOM:
            if sop.default is not None:
                raise CannotRead(f"usim's compiler does not compile tracr's {sop.label}: a default of "
                                 f"{sop.default!r} for values that are not numbers")
            moved = self.codes[id(sop.sop)]
            self.python[id(sop)] = dict(self.python[id(sop.sop)])
            self.codes[id(sop)] = {v: self.new_dim(f"{sop.label}:{self.python[id(sop)][v]!r}") for v in moved}
            values = [{d: Fraction(1)} for d in moved.values()]
            outs = [{self.codes[id(sop)][v]: Fraction(1)} for v in moved]
        else:
            if sop.default not in (None, 0):
                raise CannotRead(f"usim's compiler does not compile tracr's {sop.label}: the default "
                                 f"{sop.default!r} (0 or None only)")
            form, _ = self.number(sop.sop)
            values = [form]
            out_dim = self.new_dim(f"{sop.label}")
            outs = [{out_dim: Fraction(1)}]
            self.numbers[id(sop)] = {out_dim: Fraction(1)}
            self.python[id(sop)] = dict(self.sets.of(sop))
        width_all = len(self.dims)
        head = Head(sop.label, HARD, Linear.of(width_all, query_columns), Linear.of(width_all, key_columns),
                    Linear.of(width_all, values), Linear.of(len(outs), [{}]))
        self.heads[layer].append((head, outs))
        self.ready[id(sop)] = layer
        if width:
            ws = list(range(self.n + 1))
            points = {Fraction(1, w + 1): w for w in ws}
            self.ready[id(sop)] = layer
            self.python[id(sop)] = {Fraction(1, w + 1): w for w in ws}
            raw = self._hats(sop, {out_dim: Fraction(1)}, sorted(points))
            self.codes[id(sop)] = {Fraction(points[p]): d for p, d in raw.items()}
            self.python[id(sop)] = {Fraction(w): w for w in ws}
            self.ready[id(sop)] = self.next_mlp(layer)

    def _value_ready(self, sop: Any) -> int:
        if self.reading_kind(sop) == ATOM:
            return self.one_hot(sop)[1]
        return self.number(sop)[1]

    # -- the network -----------------------------------------------------------------------
    def network(self, output: Any) -> tuple[Network, tuple[Any, ...] | None]:
        if self.reading_kind(output) == ATOM or self.sets.kind(output) == "boolean" or id(output) not in self.numbers:
            codes, _ = self.one_hot(output)
            ordered = sorted(codes, key=repr)
            readouts = [{codes[v]: 1} for v in ordered]
            values: tuple[Any, ...] | None = tuple(self.python[id(output)][v] for v in ordered)
        else:
            readouts = [self.numbers[id(output)]]
            values = None
        width = len(self.dims)
        last = max([*self.units, *self.heads, 0])
        layers = []
        for index in range(0, last + 1, 2):
            heads = []
            for head, outs in self.heads.get(index, []):
                grown = Head(head.name, HARD, _grow(head.query, width), _grow(head.key, width),
                             _grow(head.value, width), Linear.of(len(outs), [{u: w for u, o in enumerate(outs)
                                                                                for d2, w in o.items() if d2 == d}
                                                                               for d in range(width)]))
                heads.append(grown)
            units = self.units.get(index + 1, [])
            relu_in = Linear.of(width, [form for form, _ in units])
            relu_out = Linear.of(len(units), [{u: w for u, (_, o) in enumerate(units) for d2, w in o.items()
                                                if d2 == d} for d in range(width)])
            mlp = MLP(relu_in, relu_out, Linear.zeros(width, 0), Linear.zeros(width, 0), Linear.zeros(0, width))
            layers.append(Layer(tuple(heads), mlp))
        outputs = tuple((f"out:{k}", Linear.of(width, [r])) for k, r in enumerate(readouts))
        return Network(f"usim:{output.label}@n{self.n}", self.n, tuple(self.dims), tuple(layers), outputs,
                       description=f"usim's compilation of tracr's {output.label} over finite value sets"), values


def _grow(m: Linear, rows: int) -> Linear:
    return Linear(rows, m.columns)


def compile_finite(program: Any, vocab: Sequence[Any], max_len: int, n: int) -> FiniteNetwork:
    """``program`` compiled exactly for inputs of the vocabulary of length ``n``.

    Args:
        program: a tracr program.
        vocab: the tokens.
        max_len: the longest input the value sets are inferred for (at least ``n``).
        n: the length the network is for.

    Returns:
        The network, the program's reading, and how to read the output.

    Raises:
        CannotRead: what the compiler does not compile, named.
    """
    if not 1 <= n <= max_len:
        raise InputError(f"the length must be from 1 to {max_len}, got {n}")
    reading = read_tracr(program, vocab, max_len)
    compiler = _Compiler(reading, ValueSets(frozenset(vocab), max_len), n)
    compiler.compile(program)
    network, values = compiler.network(program)
    return FiniteNetwork(network, reading, values)


def _evaluated(program: Any, tokens: list[Any]) -> list[Any]:
    """tracr's evaluator on ``tokens``; None at every position where it raises."""
    rasp = tracr_rasp()
    try:
        return list(rasp.evaluate(program, tokens))
    except Exception:  # tracr's evaluator raises where a selector compares None, ...: nothing is asked there
        return [None] * len(tokens)


MAX_INPUTS = 100_000
"""The most inputs a compiled program is proved on (``usim compile``, ``usim verify``): every one is run."""

ENGINES = ("exhaustive", "z3")
"""How :func:`check_finite` proves a length: every input run exactly, or z3 on every input at once."""


def _equals_value(reading: TracrReading, term: Any, value: Any) -> Any:
    """z3: the reading's term (a code, a number, a Boolean) holds tracr's ``value``."""
    import z3

    if isinstance(term, z3.BoolRef):
        return term if value else z3.Not(term)
    if reading.kind == ATOM:
        return term == reading.atoms.index(value)
    return term == exact(value)


def z3_difference(compiled: FiniteNetwork, timeout: float) -> tuple[str, list[Any] | None]:
    """Whether the compiled network differs anywhere from its reading, asked of z3 once for every
    input of the vocabulary of the network's length.

    The input's n codes are z3 constants, each one of the vocabulary's codes; the network's
    forward pass and the reading's program are both evaluated in usim's SMT interpretation
    (:class:`usim.encodings.smt.SmtInterpretation`; the network's heads that read the input as terms,
    :meth:`usim.transformer.forward._Pass.pairwise_hard_terms`). The query: some input
    and some position where an output is not what the reading's term says (a one-hot output
    ``out:k`` not 1 exactly where the reading holds the k-th value and 0 elsewhere; a number not
    the reading's number). At a position where the reading is undefined its term still has a
    value (the mean of a row's values, the empty row's 0), so ``unsat`` is more than the claim
    needs: the network gives the reading's value at every position, defined or not. A model is
    only a candidate: the caller replays it exactly.

    Args:
        compiled: the network and its reading.
        timeout: seconds z3 may take.

    Returns:
        ``("unsat", None)``, ``("sat", tokens)`` with the model's input as tokens, or
        ``("unknown", None)`` (z3 gave up, or ran out of time).
    """
    import z3

    from usim.encodings.evaluate import evaluate_sops
    from usim.encodings.smt import SmtInterpretation
    from usim.transformer.forward import run

    reading, n = compiled.reading, compiled.network.n
    codes = [reading.encode([token])[0] for token in reading.vocab]
    whole = all(Fraction(c).denominator == 1 for c in codes)
    xs = [z3.Int(f"x{p}") if whole else z3.Real(f"x{p}") for p in range(n)]
    smt = SmtInterpretation()
    outputs = run(compiled.network, smt, xs)
    expected = evaluate_sops((reading.sop,), smt, xs)[0]
    differences = []
    for p in range(n):
        if compiled.values is None:
            differences.append(smt.scalar(Op.NE, outputs["out:0"][p], expected[p]))
            continue
        for k, value in enumerate(compiled.values):
            differences.append(outputs[f"out:{k}"][p] != z3.If(_equals_value(reading, expected[p], value), 1, 0))
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(*(z3.Or([x == smt.constant(c) for c in codes]) for x in xs), *smt.facts, z3.Or(differences))
    answer = solver.check()
    if answer == z3.unsat:
        return "unsat", None
    if answer == z3.sat:
        model = solver.model()
        values = [model.eval(x, model_completion=True) for x in xs]
        by_code = {Fraction(c): token for c, token in zip(codes, reading.vocab)}
        return "sat", [by_code[Fraction(str(v))] for v in values]
    return "unknown", None


@dataclass(frozen=True)
class FiniteCheck:
    """A compiled network against the program on every input of the vocabulary up to a length,
    exactly (a proof by exhaustion of the finite domain).

    Attributes:
        inputs: every input, of length 1 to the longest.
        positions: their positions, in all.
        undefined: positions where the program is undefined (tracr's None): nothing is asked there.
        differs: positions where the program is defined and the network's output is not its value,
            and positions where the reading is not tracr's evaluator (undefined where it gives a
            value, or another value: :func:`usim.tracr_reader.value_sets.agrees`).
        first: the first difference: (input, position, the program's value, the network's).
        sizes: per length, (layers, heads, residual width, parameters) of the network.
        engines: per length, what proved or refuted it (``z3``, ``exhaustive``, or exhaustive
            after z3's candidate or unknown).
    """

    inputs: int
    positions: int
    undefined: int
    differs: int
    first: tuple | None
    sizes: tuple[tuple[int, int, int, int], ...]
    engines: tuple[str, ...] = ()

    @property
    def proved(self) -> bool:
        """The network computes the program at every defined position of every input."""
        return self.inputs > 0 and self.differs == 0


def check_finite(program: Any, vocab: Sequence[Any], max_len: int,
                 broken: Callable[[Network], Network | None] | None = None,
                 reference: Callable[[list[Any]], list[Any]] | None = None,
                 engine: str = "exhaustive", timeout: float = 60.0) -> FiniteCheck:
    """Compile ``program`` at every length up to ``max_len`` and prove each network equal to the
    program's exact reading (tracr's evaluator's meaning) on every input of the vocabulary.

    ``engine="exhaustive"`` runs each network exactly on every input. ``engine="z3"`` asks z3
    once per length whether the network differs from the reading anywhere
    (:func:`z3_difference`); where z3 says no, every input is still run, but through the reading
    and tracr's evaluator only (they must agree, and say where nothing is asked), not through the
    network. Where z3 finds a candidate or gives up, that length is run exhaustively: z3's
    answer proves, never refutes, and a timeout costs time, never a verdict.

    Args:
        program: a tracr program.
        vocab: the tokens.
        max_len: the longest input.
        broken: a broken compilation to check instead (:mod:`usim.transformer.broken`); a
            length it leaves unchanged (None) is checked as compiled.
        reference: the values the network must give on an input (None where nothing is asked);
            None: the program's reading (tracr's evaluator's meaning).
        engine: one of :data:`ENGINES`.
        timeout: seconds z3 may take per length.

    Returns:
        What the check found.

    Raises:
        InputError: an engine usim does not have.
    """
    import dataclasses
    import itertools

    from usim.encodings.exact import EXACT
    from usim.transformer.forward import run

    if engine not in ENGINES:
        raise InputError(f"no engine {engine!r} for a compiled network (engines: {', '.join(ENGINES)})")
    inputs = positions = undefined = differs = 0
    first = None
    sizes, engines = [], []
    tokens = sorted(vocab, key=repr)
    for n in range(1, max_len + 1):
        compiled = compile_finite(program, vocab, max_len, n)
        network = compiled.network
        if broken is not None:
            network = broken(network) or network
            compiled = dataclasses.replace(compiled, network=network)
        sizes.append((len(network.layers), sum(len(layer.heads) for layer in network.layers), network.width,
                      network.parameters()))
        proved_by_z3 = False
        if engine == "z3":
            answer, _ = z3_difference(compiled, timeout)
            proved_by_z3 = answer == "unsat"
            engines.append("z3" if proved_by_z3 else f"exhaustive (z3: {'a candidate' if answer == 'sat' else answer})")
        else:
            engines.append("exhaustive")
        for xs in itertools.product(tokens, repeat=n):
            xs = list(xs)
            reading = compiled.reading.run(xs)
            if reference is None:
                expected = reading
                evaluator = _evaluated(program, xs)  # tracr's own: the reading may say None only where it does
            else:
                expected, evaluator = reference(xs), None
            # z3 proved the network gives the reading's value wherever the reading has one; where it
            # has none and something is asked, the network itself is run
            asked_undefined = any(r is None and e is not None for r, e in zip(reading, expected))
            got = reading if proved_by_z3 and not asked_undefined else \
                compiled.decode(run(network, EXACT, compiled.reading.encode(xs)))
            inputs, positions = inputs + 1, positions + n
            for p, (e, g) in enumerate(zip(expected, got)):
                if evaluator is not None and not agrees(evaluator[p], e):
                    differs += 1  # the reading is not tracr's evaluator here (undefined, or another value)
                    first = first or (tuple(xs), p, evaluator[p], g)
                elif e is None:
                    undefined += 1
                elif g is None or g != e:
                    differs += 1
                    first = first or (tuple(xs), p, e, g)
    return FiniteCheck(inputs, positions, undefined, differs, first, tuple(sizes), tuple(engines))
