"""The solvers that decide an obligation's equality, one module each.

Every engine is an :class:`~usim.engine.solvers.base.Engine` (``base.py``: the
contract and the clock they share): ``sympy_engine.py`` (canonical forms),
``z3_engine.py`` (z3, with ``z3_problem.py``: an obligation in z3),
``exhaustive.py`` (every input of a finite domain), ``cvc5_engine.py``
(SMT-LIB with the real exponential, written by ``smtlib.py`` and run by the
child script ``cvc5_child.py``). ``counterexamples.py`` is the search every
engine runs after "not proved". The table of engines by name is
:data:`usim.engine.engines.ENGINES`.
"""
