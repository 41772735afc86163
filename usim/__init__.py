"""usim: a proof-checking companion for "On the Existence of Universal Simulators
of Attention" (Dutta, Chakrabarty, Ansari, Das; arXiv 2506.18739).

Layers, each importing only those below it:

``usim.rasp``           the RASP language (expressions, printing, cost)
``usim.encodings``      its interpretations (numeric, exact, symbolic, smt) and
                        the layouts of matrices as sequences
``usim.constructions``  the paper's constructions, written in RASP
``usim.engine``         claims, obligations, proof engines, certificates
``usim.proofs``         one module per result of the paper
``usim.cli``            the ``usim`` command (``usim.commands``: one module per
                        subcommand; ``usim.render``, ``usim.show``: text and
                        pictures for people)

The layers live in top-level folders of the repository (``rasp/``,
``encodings/``, ...) and are installed as subpackages of ``usim`` by the
mapping in :mod:`usim.packages` (the one list of folders, which ``setup.py``
gives the installer): that mapping is the only mechanism. Run usim from an
installed (or editable, ``pip install -e .``) package; from the repository root, Python would find this folder before the
installed package, so use the ``usim`` command, ``python -m usim ...`` (which
hands over to the installed package, :mod:`usim.__main__`) or ``python -P -m ...``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_PUBLIC = {
    # state a construction and a claim
    "claim": "usim.engine.declare", "erratum": "usim.engine.declare", "every_shape": "usim.engine.declare",
    "redeclare": "usim.engine.declare",
    "Claim": "usim.engine.claim", "Status": "usim.engine.claim", "Counterexample": "usim.engine.claim",
    "Construction": "usim.constructions.base", "SequenceLayout": "usim.encodings.layout",
    "Program": "usim.rasp.program",
    # prove it, check a listing, run, verify
    "claims": "usim.api", "one_claim": "usim.api", "prove": "usim.api", "certificate": "usim.api", "write_certificate": "usim.api",
    "spec": "usim.api", "check": "usim.api", "run": "usim.api", "verify": "usim.api",
    "read_tracr": "usim.api", "check_tracr": "usim.api", "compile_tracr": "usim.api", "compile_listing": "usim.api",
    "ClaimReport": "usim.engine.runner", "Verification": "usim.engine.verify",
    "CheckReport": "usim.listings.check",
}
"""The public API (:mod:`usim.api` and the types it speaks in), each name imported
from its module when first used: ``import usim`` stays as light as ``usim --help``."""

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'usim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
