"""Interpretations of RASP programs and layouts of matrices as sequences.

Four interpretations share one traversal (:mod:`usim.encodings.evaluate`):

=========== ==================================== ===============================
name        values                               use
=========== ==================================== ===============================
numeric     numpy float64, batched (B, n)        running, cross-validation
exact       int / Fraction                       exact runs, counterexample replay
symbolic    sympy expressions                    canonical-form proofs
smt         z3 terms (+ recorded facts)          SMT proofs and counterexamples
=========== ==================================== ===============================
"""

from usim.encodings.evaluate import evaluate, evaluate_all, evaluate_sops, plan_for
from usim.encodings.exact import ExactInterpretation, as_exact
from usim.encodings.interpretation import ElementwiseInterpretation, Interpretation
from usim.encodings.layout import Block, MatrixShape, SequenceLayout
from usim.encodings.numeric import NumericInterpretation
from usim.encodings.runners import run_exact, run_numeric, run_smt, run_symbolic
from usim.encodings.selection import StaticSelection
from usim.encodings.smt import SmtInterpretation
from usim.encodings.symbolic import SymbolicInterpretation

__all__ = [name for name in dir() if not name.startswith("_")]
