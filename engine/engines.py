"""The table of engines that discharge an obligation's equality: name -> engine.

Each engine answers PROVED, REFUTED or UNKNOWN for "for every input in the
domain satisfying the preconditions, the construction's output sequence equals
the target sequence", and never PROVED without a proof (the contract:
:mod:`usim.engine.solvers.base`). Each lives in a module of its own:

``sympy``
    canonical forms of the symbolic interpretation (:mod:`usim.engine.solvers.sympy_engine`);
``z3``
    z3 on "some position differs", exp uninterpreted (:mod:`usim.engine.solvers.z3_engine`);
``exhaustive``
    every input of a finite domain, run exactly (:mod:`usim.engine.solvers.exhaustive`);
``cvc5`` (optional: ``pip install cvc5``)
    SMT-LIB with the real exponential, in a child process killed at the
    deadline (:mod:`usim.engine.solvers.cvc5_engine`).

A new engine is one module under ``engine/solvers/`` and one row here; its
name is also listed in :data:`usim.engine.options.ENGINE_NAMES` (what the
command line's help reads without loading a solver), in the same order
(``tests/test_engine_solvers.py`` checks that the two agree).
"""

from __future__ import annotations

from usim.engine.solvers.base import EngineCheck
from usim.engine.solvers.cvc5_engine import Cvc5Engine
from usim.engine.solvers.exhaustive import ExhaustiveEngine
from usim.engine.solvers.sympy_engine import SympyEngine
from usim.engine.solvers.z3_engine import Z3Engine

ENGINES: dict[str, EngineCheck] = {engine.name: engine for engine in (
    SympyEngine(),
    Z3Engine(),
    ExhaustiveEngine(),
    Cvc5Engine(),
)}
"""Every equality engine by its name, in the order of :data:`usim.engine.options.ENGINE_NAMES`."""
