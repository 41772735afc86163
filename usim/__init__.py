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

__version__ = "0.1.0"
