"""A network's forward pass, in every interpretation RASP programs have.

The pass uses only the interpretations' own sequence operations
(:class:`~usim.encodings.interpretation.Interpretation`: ``lift``, ``map``,
``aggregate_static``), so a network is evaluated numerically (numpy),
exactly (rationals), symbolically (sympy) and in z3 by the same arithmetic as
a RASP program, and the engines prove statements about it as about a program.

As the RASP evaluator does, the pass splits what depends on positions alone
from what depends on the input. A readout w . r(t) has a *static* part (its
weights on the one-hot position dimensions: the table t -> w(pos:t), exact)
and a dynamic part (its weights on the token and on what layers wrote).

**Average-hard heads.** When W_Q and W_K read only position dimensions (the
selectors the compiler makes), the scores score(t, s) = q_t . k_s are exact
rationals fixed per length; the maximisers of each row are decided exactly
once (:func:`argmax_selection`, integer arithmetic on a common denominator)
into a :class:`~usim.encodings.selection.StaticSelection`, and the head's
output is the interpretation's aggregate over it: the mean of the values at
the maximisers. This is the finite, exact check per length of the argmax
sets. A hard head whose scores read the input (the programs over finite
value sets: a selector that reads values) is decided by the exact
interpretation one input at a time (:meth:`_Pass.pairwise_hard`), and by an
element-wise interpretation of terms (z3's) as terms: key s is selected at
query t where its score is at least every other key's
(:meth:`_Pass.pairwise_hard_terms`); the numeric interpretation refuses it.

**Softmax heads.** Where W_Q reads position dimensions only (the query side is
fixed per position; the keys may read the input), every interpretation evaluates
the head as follows. (A head whose queries read the input too, as tracr's
models' do, is evaluated by the numeric interpretation alone, pair by pair:
:meth:`_Pass.pairwise_softmax`.) Queries with the same query
vector and the same mask row form a group g; for each, the scores are a
sequence over keys s_g(s) = q_g . k_s, and

    out(t) = sum_g agg_g(exp(s_g) * v)(t) / sum_g agg_g(exp(s_g))(t),

agg_g the mean over the allowed keys at the queries of g (0 at other
queries): the ratio of the means is the ratio of the sums, i.e. the softmax
average. Scores fixed per position are first shifted by their row's maximum
(softmax does not change; exp does not overflow). Where the scores are fixed and equal on every allowed key of a row
(a masked head with zero scores), the weights are exactly 1/|allowed| and the
output is the interpretation's plain mean, with no exp at all.

``hard_as_softmax=beta`` evaluates every average-hard head as a softmax head
with scores beta * score (no mask): the measurement of
:mod:`usim.transformer.softmax_bound`, never a proof.

Division appears only in a mean over a non-empty set (the maximisers; a
mask row, which a :class:`~usim.transformer.model.Head` refuses to leave
empty) and in a softmax over a non-empty row (a sum of exponentials, which is
positive); there is no root: a network is defined at every real input
(:func:`network_conditions`).
"""

from __future__ import annotations

import math
import weakref
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from usim.encodings.exact import EXACT
from usim.encodings.interpretation import ElementwiseInterpretation, Interpretation, Seq
from usim.encodings.selection import OuterSelection, StaticSelection
from usim.errors import EvaluationError, ShapeError
from usim.rasp.expr import Op, Semantics
from usim.transformer.model import HARD, TOKEN, Column, Head, Linear, Network


class Exact(tuple):
    """A value known exactly at every network position (a table over positions)."""


def shift_right(n: int) -> StaticSelection:
    """Network position t + 1 takes input position t; BOS (0) takes nothing (0)."""
    return StaticSelection.from_rows(n + 1, [[]] + [[t] for t in range(n)])


def shift_left(n: int) -> StaticSelection:
    """Real position t takes network position t + 1 (BOS dropped)."""
    return StaticSelection.from_rows(n, [[t + 1] for t in range(n)])


def _scaled_integers(columns: Sequence[Column], size: int) -> tuple[np.ndarray, list[int]]:
    """A (size x d) table of the position weights as integers: column j times its
    own common denominator D_j (returned)."""
    table = np.zeros((size, len(columns)), dtype=object)
    denominators = []
    for j, column in enumerate(columns):
        entries = [(i - 1, w) for i, w in column if 1 <= i <= size]
        d = math.lcm(*(w.denominator for _, w in entries)) if entries else 1
        denominators.append(d)
        for t, w in entries:
            table[t, j] = int(w * d)
    return table, denominators


def exact_scores(query: Linear, key: Linear, size: int) -> tuple[np.ndarray, int]:
    """The score matrix q_t . k_s of position-only readouts, exactly: an integer
    (size x size) array S and a positive D with score(t, s) = S[t, s] / D."""
    q, dq = _scaled_integers(query.columns, size)
    k, dk = _scaled_integers(key.columns, size)
    weights = [dq[j] * dk[j] for j in range(len(dq))]
    common = math.lcm(*weights) if weights else 1
    factors = np.asarray([common // w for w in weights], dtype=object)
    scores = (q * factors[None, :]).dot(k.T) if weights else np.zeros((size, size), dtype=object)
    return np.asarray(scores, dtype=object), common


def argmax_selection(query: Linear, key: Linear, size: int) -> StaticSelection:
    """The keys of maximal score in every row, decided exactly."""
    scores, _ = exact_scores(query, key, size)
    best = scores.max(axis=1)
    codes = np.flatnonzero(np.equal(scores, best[:, None]).astype(bool).ravel())
    return StaticSelection.from_codes(size, codes)


_SELECTIONS: "weakref.WeakKeyDictionary[Head, StaticSelection]" = weakref.WeakKeyDictionary()


def head_selection(head: Head, size: int) -> StaticSelection:
    """The maximisers of an average-hard head with position-only scores (cached)."""
    found = _SELECTIONS.get(head)
    if found is None or found.n != size:
        if not _positions_only(head.query, size) or not _positions_only(head.key, size):
            raise EvaluationError(f"the average-hard head {head.name} has scores that read the input: "
                                  "only position-only scores are decided (no compiled program has such a head)")
        found = argmax_selection(head.query, head.key, size)
        _SELECTIONS[head] = found
    return found


def _positions_only(m: Linear, size: int) -> bool:
    return all(1 <= i <= size for i in m.reads())


class _Pass:
    """One forward pass of ``network`` in ``interp``."""

    def __init__(self, network: Network, interp: Interpretation, tokens: Any, beta: Any) -> None:
        n = interp.length(tokens)
        if n != network.n:
            raise ShapeError(f"the network {network.name} runs on sequences of length {network.n}, "
                             f"got {n}")
        self.net, self.interp, self.size, self.beta = network, interp, n + 1, beta
        self.dynamic: dict[int, Seq] = {TOKEN: interp.aggregate_static(shift_right(n), tokens, 0,
                                                                       Semantics.RASP)}
        self._constants: dict[Fraction, Seq] = {}

    # -- values: Exact tables or the interpretation's sequences -----------------
    def lift(self, x: Any) -> Seq:
        return self.interp.lift(list(x)) if isinstance(x, Exact) else x

    def constant(self, c: Fraction) -> Seq:
        if c not in self._constants:
            self._constants[c] = self.interp.lift([c] * self.size)
        return self._constants[c]

    def op(self, op: Op, *args: Any) -> Any:
        if all(isinstance(a, Exact) for a in args):
            return Exact(EXACT.map(op, [list(a) for a in args]))
        return self.interp.map(op, [self.lift(a) for a in args])

    def readout(self, column: Column) -> Any:
        static = [Fraction(0)] * self.size
        dynamic = None
        for dim, w in column:
            if 1 <= dim <= self.size:
                static[dim - 1] += w
                continue
            value = self.dynamic.get(dim)
            if value is None:  # a dimension nothing has written: 0
                continue
            term = value if w == 1 else self.interp.map(Op.MUL, [self.constant(w), value])
            dynamic = term if dynamic is None else self.interp.map(Op.ADD, [dynamic, term])
        if dynamic is None:
            return Exact(static)
        if any(static):
            dynamic = self.interp.map(Op.ADD, [dynamic, self.interp.lift(static)])
        return dynamic

    def write(self, out: Linear, values: Sequence[Any]) -> None:
        """r += out^T values (out: len(values) x W)."""
        for dim, column in enumerate(out.columns):
            if not column:
                continue
            if dim <= self.size:
                raise EvaluationError(f"{self.net.name}: a layer writes to the embedding's dimension "
                                      f"{self.net.dims[dim]}")
            total = None
            for unit, w in column:
                value = self.lift(values[unit])
                term = value if w == 1 else self.interp.map(Op.MUL, [self.constant(w), value])
                total = term if total is None else self.interp.map(Op.ADD, [total, term])
            old = self.dynamic.get(dim)
            self.dynamic[dim] = total if old is None else self.interp.map(Op.ADD, [old, total])

    def mean(self, selection: StaticSelection, value: Any) -> Any:
        if isinstance(value, Exact):
            return Exact(EXACT.aggregate_static(selection, list(value), 0, Semantics.RASP))
        return self.interp.aggregate_static(selection, value, 0, Semantics.RASP)

    # -- heads ----------------------------------------------------------------
    def head(self, head: Head) -> list[Any]:
        values = [self.readout(c) for c in head.value.columns]
        if head.kind == HARD and self.beta is None:
            if not _positions_only(head.query, self.size) or not _positions_only(head.key, self.size):
                if isinstance(self.interp, type(EXACT)):
                    return self.pairwise_hard(head, values)
                if isinstance(self.interp, ElementwiseInterpretation):
                    return self.pairwise_hard_terms(head, values)
            selection = head_selection(head, self.size)
            return [self.mean(selection, v) for v in values]
        scale = Fraction(1) if head.kind != HARD else self.beta
        return self.softmax(head, values, scale, head.mask if head.kind != HARD else None)

    def softmax(self, head: Head, values: list[Any], scale: Any, mask: np.ndarray | None) -> list[Any]:
        size = self.size
        if not _positions_only(head.query, size):
            from usim.encodings.numeric import NumericInterpretation

            if isinstance(self.interp, NumericInterpretation):
                return self.pairwise_softmax(head, values, scale, mask)
            raise EvaluationError(f"the softmax head {head.name} has queries that read the input: only the "
                                  "numeric interpretation evaluates one (tracr's models; no compiled program has one)")
        allowed = np.ones((size, size), dtype=bool) if mask is None else mask
        queries = np.zeros((size, head.d_k), dtype=object)
        for j, column in enumerate(head.query.columns):
            for i, w in column:
                queries[i - 1, j] = w
        keys = [self.readout(c) for c in head.key.columns]
        if all(isinstance(k, Exact) for k in keys) and scale == 1:
            scores, _ = exact_scores(head.query, head.key, size)
            rows = [np.flatnonzero(allowed[t]) for t in range(size)]
            if all(len(set(scores[t, rows[t]].tolist())) == 1 for t in range(size)):
                uniform = StaticSelection.from_rows(size, [r.tolist() for r in rows])
                return [self.mean(uniform, v) for v in values]
        groups: dict[tuple, list[int]] = {}
        for t in range(size):
            groups.setdefault((tuple(queries[t].tolist()), allowed[t].tobytes()), []).append(t)
        numerators: list[Any] = [None] * len(values)
        denominator = None
        for (vector, _), members in groups.items():
            query_mask = np.zeros(size, dtype=bool)
            query_mask[members] = True
            selection = OuterSelection(size, query_mask, allowed[members[0]])
            score = None
            for a, k in zip(vector, keys):
                if a == 0:
                    continue
                term = self.op(Op.MUL, Exact([Fraction(a)] * size), k)
                score = term if score is None else self.op(Op.ADD, score, term)
            score = Exact([Fraction(0)] * size) if score is None else score
            if isinstance(score, Exact):  # fixed scores: shift by the row's maximum (softmax is unchanged)
                top = max(score[k] for k in np.flatnonzero(allowed[members[0]]))
                score = Exact(v - top for v in score)
            if scale != 1:
                score = self.interp.map(Op.MUL, [self.interp.lift([scale] * size), self.lift(score)])
            e = self.interp.map(Op.EXP, [self.lift(score)])
            mean_e = self.interp.aggregate_static(selection, e, 0, Semantics.RASP)
            denominator = mean_e if denominator is None else self.interp.map(Op.ADD, [denominator, mean_e])
            for i, v in enumerate(values):
                weighted = self.interp.map(Op.MUL, [e, self.lift(v)])
                mean_ev = self.interp.aggregate_static(selection, weighted, 0, Semantics.RASP)
                numerators[i] = mean_ev if numerators[i] is None else \
                    self.interp.map(Op.ADD, [numerators[i], mean_ev])
        return [self.interp.map(Op.TRUEDIV, [num, denominator]) for num in numerators]

    def pairwise_hard(self, head: Head, values: list[Any]) -> list[Any]:
        """An average-hard head whose scores read the input, in the exact interpretation only (one
        input, rationals): every pair's score q_t . k_s exactly, each row's maximisers, the mean of
        the values there (the programs compiled from finite value sets: a selector that reads values)."""
        def exact(x: Any) -> list[Any]:
            return list(x) if isinstance(x, Exact) else list(x)

        queries = [exact(self.readout(c)) for c in head.query.columns]
        keys = [exact(self.readout(c)) for c in head.key.columns]
        outs = [exact(v) for v in values]
        size = self.size
        rows = []
        for t in range(size):
            scores = [sum((q[t] * k[s] for q, k in zip(queries, keys)), Fraction(0)) for s in range(size)]
            best = max(scores)
            rows.append([s for s in range(size) if scores[s] == best])
        selection = StaticSelection.from_rows(size, rows)
        return [EXACT.aggregate_static(selection, v, 0, Semantics.RASP) for v in outs]

    def pairwise_hard_terms(self, head: Head, values: list[Any]) -> list[Any]:
        """An average-hard head whose scores read the input, in an element-wise interpretation of
        terms (z3's, sympy's): every pair's score q_t . k_s as a term, key s selected at query t
        exactly where its score is at least every other key's (the row's maximisers), and the mean
        of the values there by the interpretation's own aggregate over that selection."""
        interp = self.interp

        def terms(x: Any) -> list[Any]:
            return [interp.constant(v) for v in x] if isinstance(x, Exact) else list(x)

        queries = [terms(self.readout(c)) for c in head.query.columns]
        keys = [terms(self.readout(c)) for c in head.key.columns]
        size = self.size
        rows = []
        for t in range(size):
            scores = [interp.total([interp.scalar(Op.MUL, q[t], k[s]) for q, k in zip(queries, keys)])
                      if queries else interp.constant(0) for s in range(size)]
            rows.append([interp.conjunction(*(interp.scalar(Op.GE, scores[s], other) for o, other in
                                              enumerate(scores) if o != s)) for s in range(size)])
        return [interp.aggregate_dynamic(rows, terms(v), 0, Semantics.RASP) for v in values]

    def pairwise_softmax(self, head: Head, values: list[Any], scale: Any, mask: np.ndarray | None) -> list[Any]:
        """A softmax head whose queries read the input, in the numeric interpretation only: the
        scores q_t . k_s of every pair, shifted by each row's maximum (softmax is unchanged), as
        arrays; a score that is not finite is an error naming the head, never a wrong number."""
        dtype = self.interp.dtype

        def array(x: Any) -> np.ndarray:
            return np.asarray(self.lift(x), dtype=dtype)

        queries = [array(self.readout(c)) for c in head.query.columns]
        keys = [array(self.readout(c)) for c in head.key.columns]
        outs = [array(v) for v in values]
        shape = np.broadcast_shapes((1, self.size), *(a.shape for a in queries + keys + outs))
        scores = np.zeros(shape[:-1] + (self.size, self.size), dtype=dtype)
        for q, k in zip(queries, keys):
            scores += np.broadcast_to(q, shape)[..., :, None] * np.broadcast_to(k, shape)[..., None, :]
        scores *= dtype(scale)
        if not np.all(np.isfinite(scores)):
            raise EvaluationError(f"the softmax head {head.name}: a score leaves the range of "
                                  f"{np.dtype(dtype).name}")
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        return [np.einsum("...ts,...s->...t", weights, np.broadcast_to(v, shape)) for v in outs]

    # -- the pass -------------------------------------------------------------
    def run(self) -> None:
        zero = None
        for layer in self.net.layers:
            outputs = [(head, self.head(head)) for head in layer.heads]
            for head, out in outputs:
                self.write(head.output, out)
            mlp = layer.mlp
            hidden = []
            for column in mlp.relu_in.columns:
                x = self.readout(column)
                if isinstance(x, Exact):
                    hidden.append(Exact(max(v, 0) for v in x))
                else:
                    zero = zero if zero is not None else self.constant(Fraction(0))
                    hidden.append(self.interp.map(Op.MAXIMUM, [x, zero]))
            self.write(mlp.relu_out, hidden)
            gated = [self.op(Op.MUL, self.readout(a), self.readout(b))
                     for a, b in zip(mlp.gate_a.columns, mlp.gate_b.columns)]
            self.write(mlp.gate_out, gated)

    def real(self, value: Any) -> Seq:
        """The value at the real positions (BOS dropped), in the interpretation."""
        if isinstance(value, Exact):
            return self.interp.lift(list(value)[1:])
        return self.interp.aggregate_static(shift_left(self.size - 1), value, 0, Semantics.RASP)


def run(network: Network, interp: Interpretation, tokens: Any, *, hard_as_softmax: Any = None) -> dict[str, Seq]:
    """Every output of ``network`` on ``tokens`` (in ``interp``'s domain), by name."""
    p = _Pass(network, interp, tokens, hard_as_softmax)
    p.run()
    return {name: p.real(p.readout(readout.columns[0])) for name, readout in network.outputs}


def trace(network: Network, interp: Interpretation, tokens: Any) -> dict[str, Seq]:
    """The final value of every dimension a layer writes, by its label, in the
    order the dimensions were made (for locating where two networks differ)."""
    p = _Pass(network, interp, tokens, None)
    p.run()
    return {network.dims[d]: p.real(p.dynamic[d]) for d in sorted(p.dynamic) if d != TOKEN}


def network_conditions(network: Network, n: int) -> list[Any]:
    """Where each output position is defined: everywhere (see the module docstring)."""
    return [sympy.true] * n


def first_difference(network: Network, reference: Network, tokens: Sequence[Any]) -> str | None:
    """The first dimension (in the order the compiler made them) where
    ``network`` and the right ``reference`` differ at these tokens, with the
    position and both values; None when none does (or the two are not both networks)."""
    from usim.encodings.runners import traces_at

    if not isinstance(network, Network) or not isinstance(reference, Network):
        return None
    (mine, theirs), close = traces_at(tokens, lambda i, t: trace(network, i, t), lambda i, t: trace(reference, i, t))
    for label, values in mine.items():
        if label not in theirs:
            continue
        a = np.asarray(values, dtype=object).reshape(-1)
        b = np.asarray(theirs[label], dtype=object).reshape(-1)
        for p, (x, y) in enumerate(zip(a, b)):
            if not close(x, y):
                return (f"the network's dimension {label} (position {p}: the right network has {y}, "
                        f"this one {x})")
    return None
