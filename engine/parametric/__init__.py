"""Proofs for every size: the parametric engine.

The bounded engines prove a claim at each shape up to N. This package proves
the blocks whose attention is decided by positions alone (transpose, softmax,
product: Lemmas 3, 4 and 5) for every size at once, on the *family* the
builder emits when called with symbolic dimensions (:mod:`usim.rasp.family`).

The statement, for a :class:`~.statement.FamilyClaim` with dimensions
d = (r, c, ...): for every d with each d_i >= 1 meeting the side conditions,
every output position p in [0, n(d)) and every real input x,

    program_d(x)[p] = target_d(x)[p]     (wherever both are defined),

every operation of the program and the target is defined there, and some d
meets the side conditions. Here program_d is the family instantiated at d.

How it is proved (each step by the solver named, none assumed):

1. **Witness** (z3): the side conditions with every d_i >= 1 are satisfiable;
   the smallest sizes found are instantiated and the bounded witness check
   evaluates an input there. Unsatisfiable: VACUOUS.
2. **Layout** (z3): the output blocks fit in the sequence and have the
   target's shapes, for all d.
3. **Cases**: the positions are split exactly: p = o + a*C + b with
   0 <= a < R, 0 <= b < C for each output block (o, R x C), and the padding
   end <= p < n. a, b (and d) stay symbolic.
4. **Symbolic evaluation** (:mod:`.evaluate`) of the program at p:
   static nodes are z3 integer terms (Python's // and %); each selection is an
   index interval, *proved* (z3) equal to the selector's own entries for all
   keys in [0, n) (:mod:`.selection`); an aggregate is then the default, the
   value at the one selected key, or the normalised sum over the interval; a
   head sum over symbolic heads collapses to one head after z3 proves every
   other head's selection empty at p (or to 0 after it proves all empty);
   ``where`` and the input block of a position split the context only where
   z3 cannot decide them. Each split is into complementary conditions, so the
   cases still cover every position; the side where a condition holds also
   gets the coordinates its row-major equations determine (c i + j == P with
   0 <= j < c: i = q, j = r, each pair proved by z3 before it is added,
   :mod:`.digits`).
5. **Identity per case** (:mod:`.compare`): program and target values are
   sympy expressions over atoms (input entries with integer index terms, sums
   over a bound index, integers). Atoms are identified only by proof (z3:
   equal indices; equal extents and, recursively, equal bodies: the sum over
   a selection re-indexed onto the target's sum by the proved bijection k =
   lo + l); the remaining identity is decided by canonical forms (sympy or
   flint, exp as an atom), which can miss an identity but never invent one.
6. **Definedness**: every // and % has a non-zero divisor wherever it is
   evaluated (z3, over all keys and all heads for selectors); every real
   divisor of the program is evidently non-zero (sign analysis: a sum of
   exponentials over a non-empty interval is positive) and every square
   root's argument evidently >= 0 (a sum whose terms are squares is >= 0);
   the target reads only entries inside its inputs (z3). The claim's
   preconditions enter here only, and only as "this input entry is > 0
   (>= 0)" for an entry at fixed indices (a layer norm's eps), which the
   sign analysis then knows; any other precondition gives UNKNOWN.

Composition. Steps 3-5 give, for every d meeting the conditions and every p,
the value of the family at p as a term equal to the target's; the evaluator's
meaning of each node is the evaluator's meaning in :mod:`usim.encodings.evaluate`
restated over symbolic positions (RASP semantics, empty selection gives the
default), and the family's instance at d is the program the bounded engines
run. That last link is one definition, not a comparison: the claim's
construction is a :class:`~usim.constructions.base.SizedConstruction`, whose
program at every shape is the family's instance there (built from it), so
``usim run``, ``usim show`` and the bounded engines execute what was proved. A
claim that builds its program by another function gets a verdict about the
family alone (UNKNOWN for the claim). The tie (:func:`.allsizes.tie`) checks in
addition, node for node with names, that the instance is the claim's program
and what the builder builds when called with integers (a builder that inspects
the type of a size differs there), at every shape up to the bound and at
shapes past it (2N + 1, 4N + 3, 17, 33 in every dimension, shapes meeting the side
conditions); combinators a builder could branch on (:func:`usim.rasp.family.same_size`)
raise where the answer depends on the sizes. Cross-check: the bounded proof up
to N runs alongside; a bounded refutation of a claim proved for all sizes is an
ERROR, and a cross-check that is UNKNOWN or an ERROR is said beside the verdict.

U's stages need three more things, each proved like the rest: a header
field the stage's program sets to a size is that symbolic integer where an
index is expected (the softmax's key mask ``col < n``); a sum whose body needs
a case that holds exactly on its first t keys (t proved by z3) is two sums
(:mod:`.sums`); a target entry given by cases (:func:`usim.encodings.sized.when`)
is proved case by case.

A selection's key given by cases on the key's position (a layer norm's row
key: the row inside the block, -1 - p outside) gives one guess per case, each
proved or refused like any other. Max and min of values (the ReLU) are total
functions, compared on their arguments.

What is refused: a selection that is not one interval of keys, ``where`` on
token-dependent values (other than a size the program set), a case split
inside a sum that no threshold resolves, AHAT semantics, selector widths: the
verdict is UNKNOWN, never PROVED. A step z3 refutes yields sizes
where it fails; the verdict REFUTED needs the bounded engines to refute the
family's instance there with a replayed counterexample (:mod:`.allsizes`).
"""
