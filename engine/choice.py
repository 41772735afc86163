"""Which engines answer an obligation, chosen by the kind of statement it is.

Each engine can prove some statements fast and others not at all, and some of
its failures are known in advance: z3 reads ``exp`` as an uninterpreted
function with a few axioms, so on the whole program of U (softmax of a cubic
form, divided by sums of such exponentials) it does not finish beyond 4 x 4
within 120 s, while cvc5, which reasons about the real exponential, proves the
same obligation at 8 x 8 in 3 s (figures in ``docs/scale.md``). Spending the
timeout on such an engine for every size is waste, and it leaves one engine
where the project wants two to agree.

So an obligation may say what kind of statement it is (``Obligation.kind``);
:data:`CHOICES` maps a kind to the engines that answer it, each a list of
alternatives in order of preference (the first one installed is used: cvc5 is
an optional extra), and says why. An obligation of no listed kind gets its
claim's engines. Engines named on the command line (``--engine``) always win:
the choice is a default, never a restriction. The choice made, and why, is
written in each obligation's row of the certificate (``engine_choice``).

None of this touches soundness: which engines run changes how much evidence
there is, never what counts as proof (PROVED needs every engine that answered
to agree; a timeout is UNKNOWN).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from usim.engine.solvers.cvc5_engine import cvc5_available


@dataclass(frozen=True)
class Choice:
    """The engines for one kind of obligation: each entry is a list of
    alternatives (the first installed is used; none installed: that entry is
    dropped), and why this choice."""

    engines: tuple[tuple[str, ...], ...]
    why: str


WHOLE_PROGRAM = "U's whole program"
"""U run on <hdr, X, A, V> against the formula: its exponentials take cubic
forms of the inputs (exp(c x_i A x_j^T)), inside quotients of their sums."""

STAGE = "a stage of U"
"""One stage of U on fresh symbols for its workspace: products, transposes,
one softmax whose exponentials take one symbol each (times the scale)."""

CHOICES: Mapping[str, Choice] = {
    WHOLE_PROGRAM: Choice(
        (("sympy",), ("cvc5",)),
        "z3 is not run: it reads exp as an uninterpreted function and did not finish U's whole "
        "program beyond 4 x 4 in 120 s; cvc5 (real exp) proves it"),
    STAGE: Choice(
        (("sympy",), ("cvc5", "z3")),
        "cvc5 where installed (z3 otherwise): it proves U's stages about 4 times faster than z3 "
        "at 16 x 16"),
}


def installed(engine: str) -> bool:
    return cvc5_available() if engine == "cvc5" else True


def choose(kind: str | None, claim_engines: Sequence[str]) -> tuple[list[str], str | None]:
    """The engines for an obligation of ``kind`` and the note that records the
    choice (None: the claim's own engines, nothing chosen)."""
    choice = CHOICES.get(kind) if kind is not None else None
    if choice is None:
        return list(claim_engines), None
    names = [next(e for e in options if installed(e)) for options in choice.engines
             if any(installed(e) for e in options)]
    missing = [e for options in choice.engines for e in options[:1] if not installed(e)]
    note = f"{kind}: {' and '.join(names)}; {choice.why}"
    if missing:
        note += f" ({', '.join(missing)} not installed)"
    return names, note
