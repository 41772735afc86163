"""usim: a proof-checking companion for "On the Existence of Universal Simulators
of Attention" (Dutta, Chakrabarty, Ansari, Das; arXiv 2506.18739).

Layers, each importing only those below it:

``usim.rasp``           the RASP language (expressions, printing, cost)
``usim.encodings``      its interpretations (numeric, exact, symbolic, smt) and
                        the layouts of matrices as sequences
``usim.constructions``  the paper's constructions, written in RASP
``usim.engine``         claims, obligations, proof engines, certificates
``usim.proofs``         one module per result of the paper
``usim.cli``            the ``usim`` command
"""

from __future__ import annotations

__version__ = "0.1.0"

# In a source checkout, the layers are folders beside this one (rasp/, encodings/,
# ...), mapped to usim.rasp etc. only by the installer. When Python finds this
# folder first (running from the repository root puts it on sys.path ahead of
# the installed package), let usim.<layer> resolve to those folders, so the
# source tree and the installed package are the same package.
import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "engine")) and _os.path.isfile(
    _os.path.join(_root, "engine", "claim.py")
):
    __path__.append(_root)  # type: ignore[name-defined]  # noqa: F821
del _os, _here, _root
