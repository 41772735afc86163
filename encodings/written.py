"""The divisions and roots a target writes, before sympy simplifies them away.

sympy simplifies as it builds: ``x * y / y`` is ``x``, and ``x + 1/y - 1/y`` is
``x``, before any check can read the division. A target written that way is
undefined where y = 0 (run on numbers it gives nan there), yet its symbolic
value looks defined everywhere; the proofs read the symbolic value, so they
would prove a claim that is false at y = 0. Every division and root goes
through ``sympy.Pow`` as it is written (``a / b`` is ``a * b**-1``,
``sqrt(a)`` is ``a**(1/2)``), so while a target is built :func:`written_powers`
has ``Pow`` record each partial power it is asked for, and the checkers
(:mod:`usim.engine.definedness` for a bounded obligation,
:mod:`usim.engine.parametric.domain` for every size) require its domain
condition wherever the preconditions hold, unless the target's value still
evaluates that power everywhere (:func:`cancelled_powers`), where the value's
own conditions cover it.

A division that is meant only where a data condition holds is written with
:func:`piecewise`, whose branches are recorded on their own: a power a branch
keeps is required where the branch is taken (recorded guarded by the branch's
condition, so that it stays required when the whole Piecewise is cancelled
later, 0 * piecewise(...)), one it cancels is required everywhere.

>>> import sympy
>>> x, y = sympy.symbols("x y")
>>> with written_powers() as powers:
...     value = x * y / y
>>> value, sorted(powers, key=str)
(x, [(y, -1)])
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from typing import Any, Callable, Iterator, Sequence

import sympy

from usim.encodings.definedness import power_condition

_ASSUMPTIONS = importlib.import_module("sympy.core.assumptions")  # the module (sympy.core exports a function of that name)
_ASK = _ASSUMPTIONS._ask
_LOG_EVAL = sympy.log.__dict__["eval"]
_MOD_EVAL = sympy.Mod.__dict__["eval"]

Power = tuple[sympy.Expr, sympy.Expr]

_RECORDS: list[set[Power]] = []  # the innermost recording last
_BUILD = sympy.Pow.__dict__["__new__"]


def _partial(exponent: sympy.Basic) -> bool:
    """Whether a power with this exponent can be undefined: negative, fractional or symbolic."""
    return not (exponent.is_Integer and exponent >= 0)


_INSIDE = [0]  # powers being built and sympy's questions being asked: what they build is not written


def _recording(cls: type, b: Any, e: Any, evaluate: bool | None = None) -> sympy.Expr:
    """Pow's constructor, recording the power asked for unless sympy builds it
    while evaluating another power (1/(x*y) writes x**-1 and y**-1, and
    1/Piecewise((x + 1, x > 0), ...) writes 1/(x + 1) into the branch: the
    power written is the outer one, whose condition implies theirs) or while
    answering a question about an expression (is it real? sympy rebuilds
    the powers inside it to ask them)."""
    if _RECORDS and not _INSIDE[0]:
        base, exponent = sympy.sympify(b), sympy.sympify(e)
        if _partial(exponent) and (base.free_symbols or exponent.free_symbols) \
                and not (base.is_number and base.is_positive):  # E**x is exp(x), defined everywhere
            if exponent.is_Integer and isinstance(base, sympy.Pow) and base.exp.is_Rational:
                # (c**q)**-k: c**q was recorded when written (its own domain); it is non-zero where c is
                base, exponent = base.base, sympy.Integer(-1)
            _RECORDS[-1].add((base, exponent))
    try:
        _INSIDE[0] += 1
        return _BUILD.__func__(cls, b, e, evaluate)
    finally:
        _INSIDE[0] -= 1


def _record(base: Any, exponent: sympy.Expr) -> None:
    """Record ``base ** exponent`` as written, unless sympy builds it for itself (see :func:`_recording`)."""
    if _RECORDS and not _INSIDE[0]:
        base = sympy.sympify(base)
        if base.free_symbols:
            _RECORDS[-1].add((base, exponent))


def _log_eval(cls: type, arg: Any, base: Any = None) -> Any:
    """log's evaluation, its argument recorded as a power of the same domain (x > 0: x ** -1/2)."""
    _record(arg, sympy.Rational(-1, 2))
    return _LOG_EVAL.__func__(cls, arg, base)


def _mod_eval(cls: type, p: Any, q: Any) -> Any:
    """Mod's evaluation, its divisor recorded as a division (q != 0: q ** -1)."""
    _record(q, sympy.Integer(-1))
    return _MOD_EVAL.__func__(cls, p, q)


def _asking(fact: str, obj: Any) -> Any:
    """sympy's answer to a question about ``obj``, nothing it builds meanwhile recorded."""
    try:
        _INSIDE[0] += 1
        return _ASK(fact, obj)
    finally:
        _INSIDE[0] -= 1


@contextlib.contextmanager
def written_powers() -> Iterator[set[Power]]:
    """Every partial power (a division, a root) over symbols that sympy is
    asked to build inside the block, as ``(base, exponent)`` pairs, whether or
    not it survives in the value built; a log of x is recorded as x ** -1/2 and
    a Mod by q as q ** -1 (the same domains: x > 0, q != 0). Powers without symbols are left out (a
    constant's division is sympy's own: 1/0 is zoo, which nothing cancels), and
    so are those of a positive constant (E**x, which exp(x) is), defined everywhere.

    Yields:
        The set the powers are added to (filled as the block runs; a block
        recorded inside, by a nested ``written_powers``, fills its own).
    """
    found: set[Power] = set()
    if not _RECORDS:
        _INSIDE[0] = 0  # nothing is being built when the first record opens (an alarm cannot leave it raised)
    _RECORDS.append(found)
    if len(_RECORDS) == 1:
        sympy.Pow.__new__ = staticmethod(_recording)
        sympy.log.eval = classmethod(_log_eval)
        sympy.Mod.eval = classmethod(_mod_eval)
        _ASSUMPTIONS._ask = _asking
    try:
        yield found
    finally:
        _RECORDS.pop()
        if not _RECORDS:
            sympy.Pow.__new__ = _BUILD
            sympy.log.eval = _LOG_EVAL
            sympy.Mod.eval = _MOD_EVAL
            _ASSUMPTIONS._ask = _ASK


def remembered(maxsize: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``functools.lru_cache`` for a function that builds a target's values, kept
    true to :func:`written_powers`: each value is cached with the powers written
    while it was built, and a call answered from the cache writes them to the
    record open then (a plain cache would answer without writing anything, and a
    division cancelled in the value would go unseen).

    Args:
        maxsize: how many values to keep.

    Returns:
        The decorator (the function's arguments must be hashable).
    """
    def wrap(build: Callable[..., Any]) -> Callable[..., Any]:
        @functools.lru_cache(maxsize=maxsize)
        def built(*args: Any) -> tuple[Any, frozenset[Power]]:
            with written_powers() as powers:
                value = build(*args)
            return value, frozenset(powers)

        @functools.wraps(build)
        def call(*args: Any) -> Any:
            value, powers = built(*args)
            if _RECORDS:
                _RECORDS[-1].update(powers)
            return value
        return call
    return wrap


def _evaluated_powers(values: Sequence[Any]) -> set[tuple[sympy.Expr, bool, bool]]:
    """(base, negative, fractional) of every power the values evaluate wherever
    they are evaluated: not inside a Piecewise's branches (but its first condition)."""
    found: set[tuple[sympy.Expr, bool, bool]] = set()
    seen: set[sympy.Basic] = set()
    stack = [sympy.sympify(v) for v in values]
    while stack:
        e = stack.pop()
        if e in seen or e.is_Atom:
            continue
        seen.add(e)
        if isinstance(e, sympy.Piecewise):
            stack.append(e.args[0].cond)
            continue
        if isinstance(e, sympy.Pow) and e.exp.is_Number:
            found.add((e.base, bool(e.exp.is_negative), not e.exp.is_Integer))
        stack.extend(e.args)
    return found


def cancelled_powers(powers: set[Power], values: Sequence[Any]) -> set[Power]:
    """The written powers whose domain the values themselves no longer require:
    those sympy cancelled, or that a Piecewise keeps only in a branch.

    A written division by b is accounted for by a negative power of b that the
    values evaluate everywhere (their own conditions require b != 0, or more); a
    written root of b by a fractional power of b (b >= 0, or more); a written
    negative root by a negative fractional power. Any other written power is
    returned, and its condition is then required wherever the values are. (A
    division kept only in a branch of a Piecewise built by sympy is returned
    too: the same 1/v may have been cancelled elsewhere, x * v / v, so where
    v = 0 the target is undefined although the branch is not taken;
    :func:`piecewise` records its branches apart.)

    Args:
        powers: as :func:`written_powers` records them.
        values: the target's values (sympy expressions).

    Returns:
        The powers not accounted for.
    """
    evaluated: dict[sympy.Expr, set[tuple[bool, bool]]] = {}
    for b, n, f in _evaluated_powers(values):
        evaluated.setdefault(b, set()).add((n, f))
    left = set()
    for base, exponent in powers:
        negative, fractional = bool(exponent.is_negative), not exponent.is_Integer
        covered = exponent.is_Number and any(
            (n or not negative) and (f or not fractional) for n, f in evaluated.get(base, ()))
        if not covered:
            left.add((base, exponent))
    return left


def written_conditions(powers: set[Power]) -> list[Any]:
    """The conditions under which every written power is defined (those sympy
    decides true left out; each a conjunct).

    Args:
        powers: as :func:`written_powers` records them (or :func:`cancelled_powers` leaves).

    Returns:
        The sympy Booleans, in a fixed order.
    """
    found: dict[Any, None] = {}
    for base, exponent in sorted(powers, key=sympy.default_sort_key):
        condition = power_condition(base, exponent)
        for part in (condition.args if isinstance(condition, sympy.And) else (condition,)):
            if part is not sympy.true:
                found[part] = None
    return list(found)


def piecewise(condition: Any, then: Callable[[], Any], otherwise: Callable[[], Any]) -> sympy.Expr:
    """then() where the data condition holds, otherwise() where it does not:
    ``Piecewise((then(), condition), (otherwise(), True))``, with each branch's
    divisions and roots its own (1/v where v > 0 is defined everywhere).

    Each branch is built inside its own :func:`written_powers`; the powers a
    branch's value keeps are passed to the enclosing record guarded by the
    branch's condition (:func:`guarded`: required where the branch is taken, also
    when the Piecewise itself is cancelled later), those it cancels are passed on
    as they are, to be required everywhere. With no record open it is the plain
    Piecewise.

    Args:
        condition: a sympy Boolean over the inputs (x > 0, ...).
        then: the value where it holds.
        otherwise: the value where it does not.

    Returns:
        The Piecewise.

    >>> v = sympy.Symbol("v")
    >>> with written_powers() as powers:
    ...     value = piecewise(v > 0, lambda: 1 / v, lambda: 0)
    >>> value, written_conditions(powers)
    (Piecewise((1/v, v > 0), (0, True)), [Ne(Piecewise((v, v > 0), (1, True)), 0)])
    """
    if not _RECORDS:
        return sympy.Piecewise((then(), condition), (otherwise(), True))
    branches = []
    for branch, taken in ((then, condition), (otherwise, sympy.Not(condition))):
        with written_powers() as inside:
            value = sympy.sympify(branch())
        cancelled = cancelled_powers(inside, [value])
        # kept, or guarded already (an inner piecewise's: its guard and this branch's both)
        for power in inside:
            _RECORDS[-1].add(guarded(power, taken) if power not in cancelled or _guard(power[0]) is not None
                             else power)
        branches.append(value)
    return sympy.Piecewise((branches[0], condition), (branches[1], True))


def guarded(power: Power, taken: Any) -> Power:
    """A written power required only where ``taken`` holds: its base replaced by
    ``Piecewise((base, taken), (1, True))``, whose domain condition (!= 0, >= 0) is
    the base's where ``taken`` holds and true elsewhere (1 is in every power's domain).
    A power guarded already (by an inner :func:`piecewise`) keeps one guard, both
    conditions: ``Piecewise((base, inner & taken), (1, True))``. (The parametric
    engine reads no Piecewise: a guarded power leaves a proof for every size UNKNOWN,
    as a target with a Piecewise already does.)

    Args:
        power: (base, exponent), as :func:`written_powers` records it.
        taken: a sympy Boolean: where the power is evaluated.

    Returns:
        The guarded (base, exponent); the power itself where ``taken`` is true.
    """
    base, exponent = power
    if taken is sympy.true:
        return power
    inner = _guard(base)
    if inner is not None:
        base, taken = inner[0], sympy.And(inner[1], taken)
    return sympy.Piecewise((base, taken), (sympy.Integer(1), True)), exponent


def _guard(base: Any) -> tuple[Any, Any] | None:
    """(base, condition) of a base :func:`guarded` made, Piecewise((base, condition), (1, True)); else None."""
    if isinstance(base, sympy.Piecewise) and len(base.args) == 2 and base.args[1] == (1, sympy.true):
        return base.args[0].expr, base.args[0].cond
    return None
