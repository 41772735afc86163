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

from importlib import import_module
from typing import Any

# Names are loaded when first used (PEP 562): importing one module of this
# package (a layout, say) must not load sympy, z3 and numpy for all the others.
_WHERE = {
    "evaluate": "evaluate", "evaluate_all": "evaluate", "evaluate_sops": "evaluate", "plan_for": "evaluate",
    "ExactInterpretation": "exact", "as_exact": "exact",
    "ElementwiseInterpretation": "interpretation", "Interpretation": "interpretation",
    "Block": "layout", "MatrixShape": "layout", "SequenceLayout": "layout",
    "NumericInterpretation": "numeric",
    "run_exact": "runners", "run_numeric": "runners", "run_smt": "runners", "run_symbolic": "runners",
    "StaticSelection": "selection",
    "SmtInterpretation": "smt",
    "SymbolicInterpretation": "symbolic", "PointInterpretation": "symbolic",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
