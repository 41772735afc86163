"""Build usim's API reference from its docstrings: ``python docs/api_reference.py OUT_FOLDER``.

pdoc (a well-kept generator that reads Google-style sections and needs no
configuration) writes one HTML page per module of the public API: what
``import usim`` exports (``usim.api``), the pytest helper, how claims are
declared and read from code, and the types the reports are made of. A
warning while building (a docstring pdoc cannot read, a module that does not
import) fails the build: ``tests/test_docs_api_reference.py`` builds it in CI.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

MODULES = (
    "usim.api",
    "usim.testing",
    "usim.claim_code",
    "usim.engine.declare",
    "usim.engine.claim",
    "usim.engine.runner",
    "usim.engine.verify",
    "usim.constructions.base",
    "usim.encodings.layout",
    "usim.rasp.program",
    "usim.listings.report",
)
"""The modules of the reference, in its order."""


def build(out: str) -> None:
    """Write the reference into the folder ``out`` (index.html and one page per module).

    Args:
        out: the folder (created if needed).

    Raises:
        UserWarning: pdoc warned while reading a docstring (turned into an error).
    """
    import pdoc

    pdoc.render.configure(docformat="google", show_source=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        pdoc.pdoc(*MODULES, output_directory=Path(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python docs/api_reference.py OUT_FOLDER", file=sys.stderr)
        sys.exit(2)
    build(sys.argv[1])
