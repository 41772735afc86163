"""Compiler pass 1: a RASP program, at one length n, to a circuit.

A circuit (:mod:`usim.transformer.circuit`) is what the network computes
before it is cut into layers: residual dimensions and the components that write
them, each reading affine *forms* of the dimensions, of which linear maps cost
nothing.

Three analyses come first, all exact, at the length n (the first two in
:mod:`usim.transformer.rasp_analysis`):

1. **Known values** (:func:`known_values`). The program is evaluated with
   every input value unknown (the exact interpretation, with an unknown value
   propagating as an undefined one does): every sequence known at every
   position depends on positions alone (indices, length, the sizes U's header
   fixes), and every selector known everywhere is decided into its selection.
   A known sequence is a table: a form with no dimension, no component.
2. **Demand** (:func:`demand`). Which positions of each sequence anything
   reads: all of an output; ``where(c, a, b)`` with c known reads a where c
   holds and b elsewhere; an aggregate over a known selection reads its values
   at the selected keys of the rows it is read at. A branch read nowhere is
   never built.
3. **Realisation** (:class:`_Realiser`), node by node from the outputs, each
   form valid at the positions its node is read at:

   * ``tokens``: the token dimension; ``+``, ``-``, a multiple by a constant:
     forms;
   * a product of two forms that read the input, or of one and a non-constant
     table: a **bilinear MLP unit** (a . r)(b . r), exact (a table is the
     readout of the position dimensions);
   * ``where(c, a, b)``, c known: b + (a - b) [c] (a bilinear unit with the
     table [c]), or one branch where the other is not read;
   * ``maximum(a, b) = b + relu(a - b)``, ``minimum``, ``absolute``: **ReLU
     units**, exact;
   * a division by a known table: a multiple by its inverse;
   * ``aggregate(s, v, default)`` with s known: an **average-hard head**
     whose maximal-score keys are exactly the selected keys, with a **sink**:
     the BOS position scores below every selected key and above every other,
     so on a row that selects nothing the head attends only to BOS, whose
     value is 0 (the value read is v - default, and the form adds the default
     back: an empty row gives the default; a full row the mean of v). The
     scores come from the position code alone (:mod:`usim.transformer.circuit_to_network`
     says how). An AHAT aggregate's empty row selects every key instead;
   * a division a / b whose numerator and denominator are sums of exp(x) over
     keys fixed per query (:func:`exp_linear`: exp, known multiples, ``where``
     with a known condition and aggregates over known selections) and whose
     denominator weighs the keys of each row read equally: a **softmax head**
     with logits x, the row's keys as its additive mask (-inf elsewhere), and
     values the one-hot code of the keys, so that its output is the softmax
     row itself; bilinear units then read, at each query, the weights the
     numerator puts on its keys (the softmax block's own entry). This is the
     softmax block as one softmax head, exact: exp is never an MLP.

   Everything else (a comparison or a ``where`` on data-dependent values,
   ``//``, ``%``, ``**``, ``sqrt``, ``exp`` outside a softmax, a selector that
   reads the input, ``selector_width``) is refused with one line naming the
   expression: it has no exact realisation here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from usim.encodings.evaluate import describe
from usim.rasp.expr import (
    Aggregate,
    Expr,
    Map,
    Op,
    Predicate,
    Select,
    Semantics,
    SOp,
    Tokens,
)
from usim.rasp.program import Program
from usim.transformer.circuit import (
    Circuit,
    CompileError,
    Component,
    Form,
    GateUnit,
    HardHeadPart,
    ReluUnit,
    SoftHeadPart,
    number,
    truths,
)
from usim.transformer.model import TOKEN, embedding_dims
from usim.transformer.rasp_analysis import Known, demand, known_values


# ----------------------------------------------------------------------------
# exp-linear forms (the softmax block).

@dataclass(frozen=True)
class ExpLinear:
    """At real position q: sum_k rows[q][k] exp(x[k]) + offset[q]."""

    x: SOp | None
    rows: tuple[dict[int, Fraction], ...]
    offset: tuple[Fraction, ...]


# ----------------------------------------------------------------------------
# 3. Realisation.

class _Realiser:
    def __init__(self, program: Program, known: Known, wanted: dict[int, np.ndarray]) -> None:
        self.program, self.known, self.wanted, self.n = program, known, wanted, known.n
        self.dims: list[str] = list(embedding_dims(self.n))
        self.components: list[Component] = []
        self.forms: dict[int, Form] = {}
        self.notes: list[str] = []
        self._explin: dict[int, ExpLinear | None] = {}
        self._softmax_x: dict[int, tuple[SOp, ExpLinear, ExpLinear]] = {}
        self._labels: set[str] = set()
        self._consumers: dict[int, list[Expr]] = {}
        for node in program.nodes():
            for child in node.children():
                self._consumers.setdefault(child.id, []).append(node)

    # -- helpers ---------------------------------------------------------------
    def mask(self, node: Expr) -> np.ndarray:
        return self.wanted.get(node.id, np.zeros(self.n, dtype=bool))

    def new_dim(self, label: str) -> int:
        base, k = label, 1
        while label in self._labels:
            k += 1
            label = f"{base}#{k}"
        self._labels.add(label)
        self.dims.append(label)
        return len(self.dims) - 1

    def label(self, node: Expr) -> str:
        """The node's name, or (unnamed) the name of the nearest named node that reads it."""
        seen, frontier = {node.id}, [node]
        while frontier:
            for candidate in frontier:
                if candidate.has_name:
                    return candidate.name if candidate is node else f"{candidate.name}.{node.kind}"
            frontier = [c for f in frontier for c in self._consumers.get(f.id, ()) if c.id not in seen]
            seen.update(c.id for c in frontier)
        return node.name

    def zero(self) -> Form:
        return Form((), (Fraction(0),) * self.n)

    def refuse(self, node: Expr, why: str) -> CompileError:
        return CompileError(f"{self.program.name}: cannot compile {describe(node)}: {why}")

    def default(self, node: Aggregate) -> Fraction:
        """What a head writes where its row selects no key: the aggregate's default.

        Args:
            node: the aggregate.

        Returns:
            Its default, exactly.

        Raises:
            CompileError: it has none (``default=None``, as an aggregate of
                symbols in a listing: an empty row is undefined), so no head
                realises it.
        """
        if node.default is None:
            raise self.refuse(node, "it has no default: a row that selects no key is undefined in the "
                              "program, and a head writes a number there")
        return Fraction(node.default)

    def relu(self, f: Form, label: str) -> Form:
        if f.is_static:
            return Form((), tuple(max(x, Fraction(0)) for x in f.offset))
        out = self.new_dim(label)
        self.components.append(ReluUnit(label, f, out))
        return Form.dim(out, self.n)

    def product(self, a: Form, b: Form, where: np.ndarray, label: str) -> Form:
        """a * b at the positions ``where``: a form when one side is a table
        constant there, else a bilinear unit."""
        if a.is_static and b.is_static:
            return Form((), tuple(x * y for x, y in zip(a.offset, b.offset)))
        for static, other in ((a, b), (b, a)):
            if static.is_static:
                values = {static.offset[t] for t in np.flatnonzero(where)}
                if len(values) <= 1:
                    return other.scaled(values.pop() if values else Fraction(0))
        out = self.new_dim(label)
        self.components.append(GateUnit(label, a, b, out))
        return Form.dim(out, self.n)

    # -- what a node needs before it can be built --------------------------------
    def needs(self, node: Expr) -> list[Expr]:
        if node.id in self.known.tables or isinstance(node, Tokens):
            return []
        if isinstance(node, Map):
            if node.op is Op.WHERE and node.args[0].id in self.known.tables:
                holds = truths(self.known.tables[node.args[0].id])
                where = self.mask(node)
                return [arg for arg, side in ((node.args[1], holds), (node.args[2], ~holds))
                        if (where & side).any()]
            if node.op is Op.TRUEDIV and node.args[1].id not in self.known.tables:
                return [self.softmax_plan(node)[0]]
            return list(node.args)
        if isinstance(node, Aggregate):
            if node.selector.id not in self.known.selections:
                raise self.refuse(node, "its selector reads the input (data-dependent selectors are not "
                                  "compiled: the blocks and U have none)")
            return [node.values]
        raise self.refuse(node, f"a {node.kind} has no exact realisation in a network here")

    def form(self, root: SOp) -> Form:
        stack: list[Expr] = [root]
        while stack:
            node = stack[-1]
            if node.id in self.forms:
                stack.pop()
                continue
            missing = [d for d in self.needs(node) if d.id not in self.forms]
            if missing:
                stack.extend(missing)
                continue
            self.forms[node.id] = self.build(node)
            stack.pop()
        return self.forms[root.id]

    # -- building ---------------------------------------------------------------
    def build(self, node: Expr) -> Form:
        table = self.known.tables.get(node.id)
        if table is not None:
            return Form.table(table)
        if isinstance(node, Tokens):
            return Form.dim(TOKEN, self.n)
        if isinstance(node, Map):
            return self.build_map(node)
        if isinstance(node, Aggregate):
            return self.build_head(node)
        raise self.refuse(node, "not compiled")  # pragma: no cover - needs() refused it

    def build_map(self, node: Map) -> Form:
        op, where, label = node.op, self.mask(node), self.label(node)
        f = [self.forms.get(a.id) for a in node.args]
        if op is Op.ADD:
            return f[0] + f[1]
        if op is Op.SUB:
            return f[0] - f[1]
        if op is Op.NEG:
            return -f[0]
        if op is Op.MUL:
            return self.product(f[0], f[1], where, label)
        if op is Op.TRUEDIV:
            table = self.known.tables.get(node.args[1].id)
            if table is not None:
                inverse = tuple(Fraction(0) if number(v) == 0 else 1 / number(v) for v in table)
                if any(number(table[t]) == 0 for t in np.flatnonzero(where)):
                    raise self.refuse(node, "it divides by 0 where it is read")
                return self.product(f[0], Form((), inverse), where, label)
            return self.build_softmax(node)
        if op is Op.WHERE:
            condition = self.known.tables.get(node.args[0].id)
            if condition is None:
                raise self.refuse(node, "its condition reads the input (a data-dependent where has no exact "
                                  "MLP on the reals)")
            holds = truths(condition)
            a, b = f[1], f[2]
            if not where.any():
                return self.zero()
            if not (where & holds).any():
                return b
            if not (where & ~holds).any():
                return a
            return b + self.product(a - b, Form.table(holds.astype(int).tolist()), where, label)
        if op is Op.MAXIMUM:
            return f[1] + self.relu(f[0] - f[1], label)
        if op is Op.MINIMUM:
            return f[0] - self.relu(f[0] - f[1], label)
        if op is Op.ABS:
            return self.relu(f[0], label + ".pos") + self.relu(-f[0], label + ".neg")
        why = {
            Op.EXP: "exp is realised only inside a softmax head (the numerator and denominator of a "
                    "softmax block); an exp read elsewhere has no exact MLP",
            Op.FLOORDIV: "// of a value that reads the input has no exact MLP on the reals",
            Op.MOD: "% of a value that reads the input has no exact MLP on the reals",
            Op.POW: "** of a value that reads the input has no exact MLP",
            Op.SQRT: "sqrt of a value that reads the input has no exact MLP",
        }.get(op, f"the comparison or connective {op.symbol} of values that read the input has no exact "
                  "MLP on the reals")
        raise self.refuse(node, why)

    def build_head(self, node: Aggregate) -> Form:
        selection = self.known.selections[node.selector.id]
        rows = []
        for q in range(self.n):
            chosen = tuple(int(k) for k in selection.keys_of(q))
            if not chosen and node.semantics is Semantics.AHAT:
                chosen = tuple(range(self.n))
            rows.append(chosen)
        default = self.default(node)
        value = self.forms[node.values.id] - Form((), (default,) * self.n)
        label = self.label(node)
        out = self.new_dim(label)
        self.components.append(HardHeadPart(label, tuple(rows), value, out, self.equality(node)))
        return Form.dim(out, self.n, (default,) * self.n)

    def equality(self, node: Aggregate) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]] | None:
        """(key values, query values) when the selector is select(keys, queries, ==)
        of known rationals, and no empty row is turned into a full one."""
        s = node.selector
        if not (isinstance(s, Select) and s.predicate is Predicate.EQ):
            return None
        keys, queries = self.known.tables.get(s.keys.id), self.known.tables.get(s.queries.id)
        if keys is None or queries is None:
            return None
        try:
            keys_q, queries_q = tuple(map(number, keys)), tuple(map(number, queries))
        except (TypeError, ValueError):
            return None
        if node.semantics is Semantics.AHAT and not set(queries_q) <= set(keys_q):
            return None
        return keys_q, queries_q

    # -- the softmax block ---------------------------------------------------------
    def exp_linear(self, node: SOp) -> ExpLinear | None:
        """``node`` as sum_k C[q][k] exp(x[k]) + offset[q], or None."""
        if node.id in self._explin:
            return self._explin[node.id]
        out = self._exp_linear(node)
        self._explin[node.id] = out
        return out

    def _exp_linear(self, node: SOp) -> ExpLinear | None:
        n = self.n
        table = self.known.tables.get(node.id)
        if table is not None:
            return ExpLinear(None, tuple({} for _ in range(n)), tuple(map(number, table)))
        if isinstance(node, Map):
            if node.op is Op.EXP:
                return ExpLinear(node.args[0], tuple({q: Fraction(1)} for q in range(n)), (Fraction(0),) * n)
            parts = [self.exp_linear(a) for a in node.args] if node.op is not Op.WHERE else None
            if node.op in (Op.ADD, Op.SUB, Op.NEG):
                if any(p is None for p in parts):
                    return None
                sign = Fraction(-1) if node.op is not Op.ADD else Fraction(1)
                if node.op is Op.NEG:
                    return _combine(parts[0], None, Fraction(-1), Fraction(0))
                return _combine(parts[0], parts[1], Fraction(1), sign)
            if node.op in (Op.MUL, Op.TRUEDIV):
                left, right = node.args
                if node.op is Op.MUL and left.id in self.known.tables:
                    left, right = right, left
                factor = self.known.tables.get(right.id)
                inner = self.exp_linear(left)
                if factor is None or inner is None:
                    return None
                f = [number(v) for v in factor]
                if node.op is Op.TRUEDIV:
                    f = [Fraction(0) if v == 0 else 1 / v for v in f]
                return ExpLinear(inner.x, tuple({k: c * f[q] for k, c in inner.rows[q].items()}
                                                for q in range(n)),
                                 tuple(inner.offset[q] * f[q] for q in range(n)))
            if node.op is Op.WHERE:
                condition = self.known.tables.get(node.args[0].id)
                a, b = self.exp_linear(node.args[1]), self.exp_linear(node.args[2])
                if condition is None or a is None or b is None or not _same_x(a, b):
                    return None
                holds = truths(condition)
                return ExpLinear(_x(a, b), tuple(a.rows[q] if holds[q] else b.rows[q] for q in range(n)),
                                 tuple(a.offset[q] if holds[q] else b.offset[q] for q in range(n)))
            return None
        if isinstance(node, Aggregate) and node.selector.id in self.known.selections:
            inner = self.exp_linear(node.values)
            if inner is None:
                return None
            selection = self.known.selections[node.selector.id]
            rows, offset = [], []
            for q in range(n):
                keys = [int(k) for k in selection.keys_of(q)]
                if not keys and node.semantics is Semantics.AHAT:
                    keys = list(range(n))
                if not keys:
                    rows.append({})
                    offset.append(self.default(node))
                    continue
                row: dict[int, Fraction] = {}
                for k in keys:
                    for j, c in inner.rows[k].items():
                        row[j] = row.get(j, Fraction(0)) + c / len(keys)
                rows.append({j: c for j, c in row.items() if c != 0})
                offset.append(sum((inner.offset[k] for k in keys), Fraction(0)) / len(keys))
            return ExpLinear(inner.x, tuple(rows), tuple(offset))
        return None

    def softmax_plan(self, node: Map) -> tuple[SOp, ExpLinear, ExpLinear]:
        """The logits x and the two exp-linear forms of a softmax division, checked."""
        if node.id in self._softmax_x:
            return self._softmax_x[node.id]
        a, b = self.exp_linear(node.args[0]), self.exp_linear(node.args[1])
        if a is None or b is None or not _same_x(a, b) or _x(a, b) is None:
            raise self.refuse(node, "a division by a value that reads the input is compiled only as a "
                              "softmax: numerator and denominator must be sums of exp(x) over keys fixed per "
                              "position (exp, known multiples, where with a known condition, aggregates)")
        for q in np.flatnonzero(self.mask(node)):
            q = int(q)
            if a.offset[q] != 0 or b.offset[q] != 0:
                raise self.refuse(node, f"at position {q} the numerator or denominator adds a constant to its "
                                  "sum of exponentials: not a softmax")
            weights = set(b.rows[q].values())
            if not b.rows[q] or len(weights) != 1 or next(iter(weights)) <= 0:
                raise self.refuse(node, f"at position {q} the denominator does not weigh its keys equally "
                                  "(a softmax head's mask is 0 or -inf)")
            if not set(a.rows[q]) <= set(b.rows[q]):
                raise self.refuse(node, f"at position {q} the numerator reads a key its denominator does not")
        plan = (_x(a, b), a, b)
        self._softmax_x[node.id] = plan
        return plan

    def build_softmax(self, node: Map) -> Form:
        x, a, b = self.softmax_plan(node)
        read = self.mask(node)
        allowed, slots = [], set()
        for q in range(self.n):
            if read[q]:
                allowed.append(tuple(sorted(b.rows[q])))
                slots.update(a.rows[q])
            else:
                allowed.append(())
        slots_t = tuple(sorted(slots))
        name = self.label(node)
        outs = tuple(self.new_dim(f"{name}.w{k}") for k in slots_t)
        self.components.append(SoftHeadPart(name, self.forms[x.id], tuple(allowed), slots_t, outs))
        self.notes.append(f"{name}: one softmax head (logits {self.label(x)}; each row's keys its mask) and "
                          f"{len(slots_t)} bilinear unit(s) reading the weights")
        total = self.zero()
        for k, out in zip(slots_t, outs):
            ratio = [Fraction(0)] * self.n
            for q in np.flatnonzero(read):
                q = int(q)
                kappa = next(iter(b.rows[q].values()))
                ratio[q] = a.rows[q].get(k, Fraction(0)) / kappa
            total = total + self.product(Form.dim(out, self.n), Form((), tuple(ratio)), read, f"{name}.at{k}")
        return total


def _x(a: ExpLinear, b: ExpLinear | None) -> SOp | None:
    return a.x if a.x is not None or b is None else b.x


def _same_x(a: ExpLinear, b: ExpLinear) -> bool:
    return a.x is None or b.x is None or a.x is b.x


def _combine(a: ExpLinear, b: ExpLinear | None, ca: Fraction, cb: Fraction) -> ExpLinear | None:
    if b is not None and not _same_x(a, b):
        return None
    n = len(a.rows)
    rows = []
    for q in range(n):
        row = {k: c * ca for k, c in a.rows[q].items()}
        if b is not None:
            for k, c in b.rows[q].items():
                row[k] = row.get(k, Fraction(0)) + c * cb
        rows.append({k: c for k, c in row.items() if c != 0})
    offset = tuple(a.offset[q] * ca + (b.offset[q] * cb if b is not None else 0) for q in range(n))
    return ExpLinear(_x(a, b), tuple(rows), offset)


def rasp_to_circuit(program: Program, n: int, outputs: Sequence[str] | None = None) -> Circuit:
    """The circuit computing ``program`` on sequences of length n.

    Args:
        program: the RASP program.
        n: the sequence length (at least 1).
        outputs: the names of the outputs compiled; None: every output.

    Returns:
        The circuit: residual dimensions, components, output forms.

    Raises:
        CompileError: n < 1, no output of that name, or a node with no exact
            realisation (one line naming it).
    """
    if n < 1:
        raise CompileError(f"the sequence length must be at least 1, got {n}")
    known = known_values(program, n)
    wanted = demand(program, known)
    realiser = _Realiser(program, known, wanted)
    chosen = [(name, sop) for name, sop in program.outputs if outputs is None or name in outputs]
    if not chosen:
        raise CompileError(f"{program.name} has no output {', '.join(outputs or ())}")
    forms = tuple((name, realiser.form(sop)) for name, sop in chosen)
    return Circuit(program.name, n, tuple(realiser.dims), tuple(realiser.components), forms,
                   tuple(realiser.notes))
