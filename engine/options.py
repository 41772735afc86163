"""What a caller of the engine chooses from, importable without loading a solver.

The command line builds its help texts from these (``usim run --help`` must
not load sympy or z3); :mod:`usim.engine.engines` keys its table by the same
names.
"""

from __future__ import annotations

ENGINE_NAMES: tuple[str, ...] = ("sympy", "z3", "exhaustive", "cvc5")
"""Every equality engine, in the order reports list them."""

DEFAULT_TIMEOUT = 60.0
"""Seconds per obligation and engine; past it the verdict is UNKNOWN."""

MAX_BOUND = 64
"""The largest bound N accepted (``--max-n``, a certificate's bound): U at N = 64
is already a program over tens of thousands of positions, and the shapes of a
claim grow like N^3."""
