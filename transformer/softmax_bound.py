"""Average-hard heads as softmax heads with a scale beta and no mask: the bound and its measurement.

A compiled network is exact under average-hard attention, and exact under
softmax attention with masks (:mod:`usim.transformer.hard_to_masked`). A
softmax head *without* a mask approximates a hard head by scaling its scores:
weights softmax(beta * score). How far from the hard head?

**Lemma (one head, one query).** Let a query's scores over N keys have the
maximum S on a set M of m keys and every other score at most S - g (g > 0,
the *gap*), and let |v_s| <= V for every value. Then

    | sum_s softmax(beta score)_s v_s  -  (1/m) sum_{s in M} v_s |
        <= 2 (N - m)/m * exp(-beta g) * V.

*Proof.* Write Z = m e^{beta S} + sum_{s not in M} e^{beta score_s}; each
maximiser has weight a = e^{beta S} / Z, and the weight off M is
eps = 1 - m a = sum_{s not in M} e^{beta score_s} / Z
<= (N - m) e^{beta (S - g)} / (m e^{beta S}) = (N - m)/m e^{-beta g}.
The difference is sum_{s in M} (a - 1/m) v_s + sum_{s not in M} w_s v_s,
and a - 1/m = -eps/m, so it is at most m (eps/m) V + eps V = 2 eps V. QED.

The compiled heads have gap 1/2 (scored by rows: 1 at a selected key, 1/2 at
the sink, 0 elsewhere) or at least mu (scored by values; the network's notes
give the smallest margin), so one head is within 2 (N - m)/m e^{-beta/2} V
of its hard value. Through a network the deviations of one layer become input
deviations of the next (and products multiply them), so the end-to-end
deviation is *measured* (:func:`measure`), never proved: floating point,
random inputs, reported as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from usim.encodings.numeric import Difference, NumericInterpretation, difference
from usim.transformer.forward import run
from usim.transformer.model import Network


def head_bound(beta: float, gap: float, keys: int, maximisers: int, largest_value: float) -> float:
    """The lemma's bound: 2 (N - m)/m exp(-beta g) V."""
    if gap <= 0 or maximisers < 1 or keys < maximisers:
        raise ValueError("the bound needs a positive gap and 1 <= m <= N")
    return 2 * (keys - maximisers) / maximisers * math.exp(-beta * gap) * largest_value


@dataclass(frozen=True)
class Deviation:
    """The measured deviation at one beta, in float64 (:func:`measure`)."""

    beta: float
    measured: Difference  # max |softmax network - hard network| over the inputs and outputs, or why none
    inputs: int

    @property
    def largest(self) -> float:
        """The largest deviation (infinite when a value was undefined or overflowed)."""
        return self.measured.largest


def measure(network: Network, betas: Sequence[float], samples: int = 64, seed: int = 0,
            scale: float = 1.0) -> list[Deviation]:
    """The largest end-to-end deviation of the network with every hard head run
    as softmax(beta * scores) (no mask) from the network itself, on random inputs
    drawn from N(0, scale^2), in float64: a measurement, not a proof. A value
    undefined or infinite on either side (float64 overflowed) is no deviation:
    the Deviation says where instead."""
    numeric = NumericInterpretation()
    x = np.random.default_rng(seed).normal(scale=scale, size=(samples, network.n))
    with np.errstate(all="ignore"):
        exact = {k: np.asarray(v, dtype=float) for k, v in run(network, numeric, x).items()}
        out = []
        for beta in betas:
            soft = run(network, numeric, x, hard_as_softmax=float(beta))
            found = [difference(soft[k], exact[k], (f"the softmax network's {k}", f"the network's {k}"))
                     for k in exact]
            worst = next((d for d in found if d.missing), None) or max(found, key=lambda d: d.largest)
            out.append(Deviation(float(beta), worst, samples))
    return out
