"""Compiler pass 2: a circuit to a network: layers, heads, weights.

**Layers.** Time 0 is the embedding; layer l's attention runs at time 2l - 1
and its MLP at time 2l. A head runs at the first attention time after every
dimension it reads is written, a unit at the first MLP time after (as soon
as possible, as Tracr schedules). Hard heads of one layer with the same
selection are one head with several value coordinates.

**Scores of an average-hard head** (from the one-hot position code; BOS is
network position 0, real position t is t + 1). Two factorisations, the
smaller d_k taken:

* *by rows*: the distinct non-empty selection rows R_1 .. R_m; d_k = m + 1.
  q_t = 1/2 e_0 + e_c (c the row class of query t; no e_c for an empty row),
  k_s = [s in R_c]_c for a real key, k_BOS = e_0. So score(t, s) is 1 at a
  selected key, 1/2 at the sink, 0 elsewhere: the maximisers are the selected
  keys, or BOS alone on an empty row (margin 1/2).
* *by values*, for select(keys, queries, ==) over known rationals
  kappa_s, u_t: q_t = (2 u_t, -1, u_t^2 - mu), k_s = (kappa_s, kappa_s^2, 0),
  k_BOS = (0, 0, 1), so score(t, s) = u_t^2 - (kappa_s - u_t)^2: largest
  (u_t^2) exactly at the keys equal to the query, the sink at u_t^2 - mu, and
  every other key at most u_t^2 - g_t^2, g_t the distance to the nearest other
  key value. With mu = min_t g_t^2 / 2 (1/2 when there is none) the sink is
  strictly between (margin mu): d_k = 3 whatever n is.

The BOS query has q = e_0 (by rows) or (0, 0, 1): it attends to BOS only.
Every head reads its value v - default, which is 0 at BOS (every dimension a
layer writes is 0 at BOS: heads at BOS see only BOS's 0, units get 0 inputs,
no readout weighs pos:0), so a row that selects nothing gives 0 and the form
adds the default back.

**Softmax heads** (the softmax block): d_k = 1, q_t = 1 at every real query,
k_s = the logits' readout; the mask allows, at a read query, the keys of its
row, and BOS elsewhere; the values are the one-hot codes of the keys whose
weight is read (one coordinate each).
"""

from __future__ import annotations

import bisect
from fractions import Fraction

import numpy as np

from usim.encodings.selection import StaticSelection
from usim.transformer.forward import argmax_selection
from usim.transformer.model import HARD, SOFT, Head, Layer, Linear, MLP, Network, position_dim
from usim.transformer.circuit import (
    Circuit,
    Form,
    GateUnit,
    HardHeadPart,
    ReluUnit,
    SoftHeadPart,
)

HALF = Fraction(1, 2)


def form_column(form: Form) -> dict[int, Fraction]:
    """A form as a readout: its dimensions, and its table on pos:1 .. pos:n (BOS 0).

    Args:
        form: sum_i coeffs[i] r_i + offset[t].

    Returns:
        Residual dimension -> weight: the form's coefficients, and offset[t]
        on the position dimension of real position t.
    """
    column = dict(form.coeffs)
    for t, w in enumerate(form.offset):
        if w:
            column[position_dim(t + 1)] = column.get(position_dim(t + 1), Fraction(0)) + w
    return column


def _reads(c) -> set[int]:
    if isinstance(c, HardHeadPart):
        return c.value.dims()
    if isinstance(c, SoftHeadPart):
        return c.logits.dims()
    if isinstance(c, ReluUnit):
        return c.input.dims()
    return c.a.dims() | c.b.dims()


def schedule(circuit: Circuit) -> list[int]:
    """The time of every component (odd: a head, even: an MLP unit).

    Args:
        circuit: the first pass's circuit.

    Returns:
        The time of each of ``circuit.components``, in their order: the first
        time of its kind after everything it reads is written.
    """
    time = {d: 0 for d in range(circuit.n + 2)}
    out = []
    for c in circuit.components:
        t0 = max((time[d] for d in _reads(c)), default=0)
        head = isinstance(c, (HardHeadPart, SoftHeadPart))
        t = t0 + 1 if (t0 % 2 == 0) == head else t0 + 2
        for d in (c.outs if isinstance(c, SoftHeadPart) else (c.out,)):
            time[d] = t
        out.append(t)
    return out


def _by_rows(rows: tuple[tuple[int, ...], ...]) -> tuple[list[dict], list[dict], str]:
    classes: dict[tuple[int, ...], int] = {}
    for row in rows:
        if row and row not in classes:
            classes[row] = len(classes) + 1
    m = len(classes)
    query = [dict() for _ in range(m + 1)]
    key = [dict() for _ in range(m + 1)]
    query[0][position_dim(0)] = Fraction(1)
    key[0][position_dim(0)] = Fraction(1)
    for t, row in enumerate(rows):
        query[0][position_dim(t + 1)] = HALF
        if row:
            query[classes[row]][position_dim(t + 1)] = Fraction(1)
    for row, c in classes.items():
        for s in row:
            key[c][position_dim(s + 1)] = Fraction(1)
    return query, key, "by rows, margin 1/2"


def _by_values(keys: tuple[Fraction, ...], queries: tuple[Fraction, ...]) -> tuple[list[dict], list[dict], str]:
    distinct = sorted(set(keys))
    gaps = []
    for u in queries:
        i = bisect.bisect_left(distinct, u)
        near = [distinct[j] for j in (i - 1, i, i + 1) if 0 <= j < len(distinct) and distinct[j] != u]
        if near:
            gaps.append(min((v - u) ** 2 for v in near))
    mu = min(gaps) / 2 if gaps else HALF
    query = [dict(), dict(), {position_dim(0): Fraction(1)}]
    key = [dict(), dict(), {position_dim(0): Fraction(1)}]
    for t, u in enumerate(queries):
        p = position_dim(t + 1)
        query[0][p], query[1][p], query[2][p] = 2 * u, Fraction(-1), u * u - mu
    for s, kappa in enumerate(keys):
        p = position_dim(s + 1)
        key[0][p], key[1][p] = kappa, kappa * kappa
    return query, key, f"by values, margin {mu}"


def hard_scores(part: HardHeadPart) -> tuple[list[dict], list[dict], str]:
    """W_Q and W_K columns of a hard head (see the module docstring).

    Args:
        part: the hard head.

    Returns:
        (query columns, key columns, how they were made: "by rows" or "by
        values", with the margin), the factorisation with the smaller d_k.
    """
    by_rows = _by_rows(part.rows)
    if part.equality is not None and len(by_rows[0]) > 3:
        return _by_values(*part.equality)
    return by_rows


def expected_selection(part: HardHeadPart, size: int) -> StaticSelection:
    """The maximisers a hard head must have: its rows (real keys), BOS on an
    empty row and at the BOS query.

    Args:
        part: the hard head.
        size: the network's sequence length, BOS included (n + 1).

    Returns:
        The selection over network positions (BOS is 0, real position t is
        t + 1).
    """
    rows = [[0]] + [[k + 1 for k in row] or [0] for row in part.rows]
    return StaticSelection.from_rows(size, rows)


def circuit_to_network(circuit: Circuit, name: str | None = None, check: bool = True) -> Network:
    """The network of ``circuit``. With ``check``, every hard head's maximisers,
    decided exactly from its weights, are compared with its selection (a
    mismatch is a compiler bug, raised as an AssertionError).

    Args:
        circuit: the first pass's circuit (:func:`rasp_to_circuit`).
        name: the network's name; None: ``{program}@n{n}``.
        check: whether to re-decide every hard head's maximisers exactly.

    Returns:
        The network: layers as :func:`schedule` places the components, exact
        rational weights.
    """
    n, width = circuit.n, len(circuit.dims)
    size = n + 1
    times = schedule(circuit)
    top = max(times, default=0)
    layers = []
    notes = list(circuit.notes)
    scored: dict[str, int] = {}
    margins: list[Fraction] = []
    for index in range(1, (top + 1) // 2 + 1):
        attention, mlp_time = 2 * index - 1, 2 * index
        groups: dict[tuple, list[HardHeadPart]] = {}
        heads: list[Head] = []
        for c, t in zip(circuit.components, times):
            if t == attention and isinstance(c, HardHeadPart):
                groups.setdefault((c.rows, c.equality), []).append(c)
        for parts in groups.values():
            query, key, how = hard_scores(parts[0])
            label = parts[0].name if len(parts) == 1 else f"{parts[0].name} (+{len(parts) - 1})"
            head = Head(label, HARD, Linear.of(width, query), Linear.of(width, key),
                              Linear.of(width, [form_column(p.value) for p in parts]),
                              Linear.writes(len(parts), width, [p.out for p in parts]),
                        carries=tuple(p.name for p in parts))
            if check:
                got, want = argmax_selection(head.query, head.key, size), expected_selection(parts[0], size)
                if got.rows() != want.rows():  # pragma: no cover - a compiler bug
                    raise AssertionError(f"head {label}: its maximisers {got.rows()} are not its selection "
                                         f"{want.rows()}")
            scored[how.split(",")[0]] = scored.get(how.split(",")[0], 0) + 1
            margins.append(Fraction(how.rsplit(" ", 1)[1]))
            heads.append(head)
        for c, t in zip(circuit.components, times):
            if t == attention and isinstance(c, SoftHeadPart):
                mask = np.zeros((size, size), dtype=bool)
                mask[0, 0] = True
                for q, keys in enumerate(c.allowed):
                    if keys:
                        mask[q + 1, [k + 1 for k in keys]] = True
                    else:
                        mask[q + 1, 0] = True
                query = Linear.of(width, [{position_dim(t + 1): 1 for t in range(n)}])
                key = Linear.of(width, [form_column(c.logits)])
                value = Linear.of(width, [{position_dim(k + 1): 1} for k in c.slots])
                output = Linear.writes(len(c.slots), width, list(c.outs))
                heads.append(Head(c.name, SOFT, query, key, value, output, mask,
                                  carries=tuple(f"{c.name}.w{k}" for k in c.slots)))
        relus = [c for c, t in zip(circuit.components, times) if t == mlp_time and isinstance(c, ReluUnit)]
        gates = [c for c, t in zip(circuit.components, times) if t == mlp_time and isinstance(c, GateUnit)]
        mlp = MLP(Linear.of(width, [form_column(u.input) for u in relus]),
                  Linear.writes(len(relus), width, [u.out for u in relus]),
                  Linear.of(width, [form_column(u.a) for u in gates]),
                  Linear.of(width, [form_column(u.b) for u in gates]),
                  Linear.writes(len(gates), width, [u.out for u in gates]),
                  labels=tuple(u.name for u in relus + gates))
        layers.append(Layer(tuple(heads), mlp))
    if scored:
        notes.append("average-hard heads scored " + ", ".join(f"{how} ({k})" for how, k in scored.items())
                     + f"; smallest margin between a maximiser and the next score: {min(margins)}")
    outputs = tuple((nm, Linear.of(width, [form_column(f)])) for nm, f in circuit.outputs)
    return Network(name or f"{circuit.program}@n{n}", n, circuit.dims, tuple(layers), outputs,
                   f"{circuit.program} compiled for sequences of length {n}", tuple(notes))
